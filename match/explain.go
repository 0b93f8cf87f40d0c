package match

import (
	"fmt"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Explanation says why a request does not fit: per level of the jobspec,
// how many candidates were needed under one parent and how many the best
// parent offered, now and when everything is free. Fluxion itself only
// answers "unsatisfiable"; this is gofluxion's own.
type Explanation struct {
	// FitsNow reports that the request can be allocated at the asked time.
	FitsNow bool
	// Satisfiable reports that it fits the graph when everything is free
	// and up.
	Satisfiable bool
	// Levels lists every request of the jobspec, depth first.
	Levels []Level
}

// Level is one request of the jobspec.
type Level struct {
	// Path names the request and its ancestors, e.g. "node[4]/slot[1]/gpu[2]".
	Path  string
	Type  string
	Depth int
	// Needed is the least count the request accepts under one parent.
	Needed int64
	// FoundNow is the most qualified candidates any one parent offered at
	// the asked time, and FoundFree the same when everything is free;
	// -1 when no parent got as far as counting them (a higher level failed:
	// Reached is false). Top-level requests are always counted.
	FoundNow, FoundFree int64
	// Shape is set when the graph's shape keeps this level from ever being
	// allocated, whatever is free: why, and a shape that works on this
	// graph ("core sits under socket here, not directly under node…").
	Shape string
}

// Reached reports whether the walk got as far as counting this level's
// candidates now.
func (l Level) Reached() bool { return l.FoundNow >= 0 }

// Short reports whether the level is what keeps the request from fitting
// now: too few candidates where it was reached, or a shape the graph
// cannot serve.
func (l Level) Short() bool { return l.Shape != "" || (l.Reached() && l.FoundNow < l.Needed) }

// Cause returns "shape" when the graph's shape keeps the level from ever
// being allocated (see Shape), "capacity" when it cannot be met even on a
// free graph, "busy" when it can but not now, "unreached" when a higher
// level failed before it was counted, and "" when it is met.
func (l Level) Cause() string {
	switch {
	case l.Shape != "":
		return "shape"
	case l.FoundFree >= 0 && l.FoundFree < l.Needed:
		return "capacity"
	case !l.Reached():
		return "unreached"
	case l.FoundNow < l.Needed:
		return "busy"
	}
	return ""
}

// String describes the level in one line, without the -1 of unreached
// counts: "node[4]: needs 4, 3 found now, 8 when free (busy)".
func (l Level) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: needs %d", l.Path, l.Needed)
	if l.Reached() {
		fmt.Fprintf(&sb, ", %d found now", l.FoundNow)
	} else {
		sb.WriteString(", not reached now")
	}
	if l.FoundFree >= 0 {
		fmt.Fprintf(&sb, ", %d when free", l.FoundFree)
	}
	if c := l.Cause(); c != "" {
		fmt.Fprintf(&sb, " (%s)", c)
	}
	if l.Shape != "" {
		fmt.Fprintf(&sb, ": %s", l.Shape)
	}
	return sb.String()
}

// Reason is the most useful sentence about the first level that falls
// short, in the form "needs 4 node (with 2 gpu each): 3 found now, 8 when
// free". For a gang, that is the outer count: when an inner level is short
// too, the innermost short level that was reached follows as the cause,
// "needs 4 node (with 2 gpu each): 0 found now, 8 when free; needs 2 gpu:
// 1 found now, 2 when free". A level the graph's shape can never serve
// comes first, with its path and what would work ("node[2]/slot[1]: core
// sits under socket here…"). It is "" when the request fits now.
func (e *Explanation) Reason() string {
	if e.FitsNow {
		return ""
	}
	counts := e.countReason()
	for _, l := range e.Levels {
		if l.Shape != "" {
			if counts != "" {
				return l.Path + ": " + l.Shape + "; " + counts
			}
			return l.Path + ": " + l.Shape
		}
	}
	if counts != "" {
		return counts
	}
	if !e.Satisfiable {
		return "the request can never be met by this graph"
	}
	return "the request does not fit now"
}

// countReason is Reason from the counts alone, "" when no reached level is
// short.
func (e *Explanation) countReason() string {
	short := func(l Level) bool { return l.Reached() && l.FoundNow < l.Needed }
	for i, l := range e.Levels {
		if !short(l) {
			continue
		}
		// The deepest short descendant that some parent reached, if any.
		pick := i
		for j := i + 1; j < len(e.Levels) && e.Levels[j].Depth > l.Depth; j++ {
			if d := e.Levels[j]; short(d) && d.Depth > e.Levels[pick].Depth {
				pick = j
			}
		}
		if pick == i || e.Levels[pick].Type == "slot" {
			return e.sentence(i)
		}
		return e.sentence(i) + "; " + e.sentence(pick)
	}
	// Nothing counted short: the first level the walk found nothing for
	// (a top-level request whose every candidate is busy).
	for i, l := range e.Levels {
		if !l.Reached() {
			return e.sentence(i)
		}
	}
	return ""
}

func (e *Explanation) sentence(i int) string {
	l := e.Levels[i]
	var sb strings.Builder
	fmt.Fprintf(&sb, "needs %d %s", l.Needed, l.Type)
	var inner []string
	for _, c := range e.Levels[i+1:] {
		if c.Depth <= l.Depth {
			break
		}
		if c.Type != "slot" {
			inner = append(inner, fmt.Sprintf("%d %s", c.Needed, c.Type))
		}
	}
	if len(inner) > 0 {
		fmt.Fprintf(&sb, " (with %s each)", strings.Join(inner, ", "))
	}
	now := "none available now"
	if l.Reached() {
		now = fmt.Sprintf("%d found now", l.FoundNow)
	}
	switch {
	case l.FoundFree < 0:
		fmt.Fprintf(&sb, ": %s", now)
	case l.FoundFree == 0:
		fmt.Fprintf(&sb, ": %s, none even when free", now)
	case l.FoundFree < l.Needed:
		fmt.Fprintf(&sb, ": %s, only %d exist", now, l.FoundFree)
	default:
		fmt.Fprintf(&sb, ": %s, %d when free", now, l.FoundFree)
	}
	return sb.String()
}

// explainRec collects, per request, the best qualified count seen.
type explainRec struct {
	best map[*req]int64
}

func (m *Matcher) noteCount(r *req, q int64) {
	if e := m.explain; e != nil {
		if old, ok := e.best[r]; !ok || q > old {
			e.best[r] = q
		}
	}
}

// Explain reports why js does (not) fit at time at. It only selects and
// books nothing, so it is read-only like Satisfiability.
func (m *Matcher) Explain(js *jobspec.Jobspec, at int64) (*Explanation, error) {
	m.msg.Reset()
	m.beginOp()
	if js == nil || len(js.Resources) == 0 {
		return nil, &Error{Op: "explain", Errno: EINVAL, Msg: "empty request"}
	}
	d, ok := Duration(js.Duration)
	if !ok {
		return nil, &Error{Op: "explain", Errno: EINVAL, Msg: "bad duration"}
	}
	c := m.resolve(js)
	if c == nil {
		return nil, &Error{Op: "explain", Errno: EINVAL, Msg: "resource tree is nil, too deep or too large"}
	}
	m.setupMatch(c, js, 0, at, d)
	exp := &Explanation{}
	// run selects at time t; counting runs visit every candidate (static
	// order, no early stop) so the counts do not depend on the policy.
	selected := false
	run := func(atype allocType, t int64, counting bool) (map[*req]int64, bool) {
		m.explain = &explainRec{best: map[*req]int64{}}
		m.static = counting
		defer func() { m.explain, m.static = nil, false }()
		m.cur.atype, m.cur.at = atype, t
		ok := m.selectAt() == 0
		selected = ok
		if ok && !counting {
			// A selection that emits nothing still fails (spec §9): probe
			// the update walk without booking or re-keying anything.
			m.cur.atype = atNone
			m.probe = true
			ok = m.update(emit.Discard, false) == 0
			m.probe = false
		}
		m.resetColors()
		return m.explain.best, ok
	}
	_, fits := run(atAlloc, at, false)
	now, _ := run(atAlloc, at, true)
	_, sat := run(atSatisfiability, m.farFuture(), false)
	selectedFree := selected
	free, _ := run(atSatisfiability, m.farFuture(), true)
	exp.FitsNow, exp.Satisfiable = fits, sat
	// Types are named as the jobspec names them: an unknown type has no
	// number in the graph.
	var walk func(l []*req, js []*jobspec.Resource, prefix string, depth int)
	walk = func(l []*req, js []*jobspec.Resource, prefix string, depth int) {
		for k, r := range l {
			name := js[k].Type
			p := fmt.Sprintf("%s%s[%d]", prefix, name, r.count.Min)
			lv := Level{Path: p, Type: name, Depth: depth, Needed: int64(r.count.Min), FoundNow: -1, FoundFree: -1}
			if depth == 0 { // the whole graph is the top level's one parent
				lv.FoundNow, lv.FoundFree = 0, 0
			}
			if n, ok := now[r]; ok {
				lv.FoundNow = n
			}
			if n, ok := free[r]; ok {
				lv.FoundFree = n
			}
			exp.Levels = append(exp.Levels, lv)
			walk(r.with, js[k].With, p+"/", depth+1)
		}
	}
	walk(c.top, js.Resources, "", 0)
	if !sat {
		probs := m.shapeProblems(c, js)
		if selectedFree && len(probs) == 0 {
			probs = m.neverBooked(c, js)
		}
		for _, p := range probs {
			if p.Level < len(exp.Levels) && exp.Levels[p.Level].Shape == "" {
				exp.Levels[p.Level].Shape = p.Msg
			}
		}
	}
	return exp, nil
}
