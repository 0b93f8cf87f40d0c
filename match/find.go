package match

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/hostlist"
)

// A find criteria expression (spec traversal.md §16.1): predicates
// name=value, parentheses, and juxtaposition / and / or evaluated strictly
// left to right with no precedence.
type criteria struct {
	first *operand
	rest  []clause
}

type clause struct {
	or bool
	op *operand
}

type operand struct {
	pred *predicate
	sub  *criteria
}

type predicate struct {
	name, value string
	job         uint64
	hosts       *hostlist.Set
}

// vertex flags inherited down the find walk.
type findFlags uint8

const (
	flagDown findFlags = 1 << iota
	flagAllocated
	flagReserved
)

func tokenizeCriteria(s string) []string {
	var toks []string
	cur := strings.Builder{}
	flush := func() {
		if cur.Len() > 0 {
			toks = append(toks, cur.String())
			cur.Reset()
		}
	}
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n':
			flush()
		case '(', ')':
			flush()
			toks = append(toks, string(r))
		default:
			cur.WriteRune(r)
		}
	}
	flush()
	return toks
}

// CriteriaDepth returns the deepest nesting of parentheses in the find
// criteria s (every parenthesis is a token of its own).
func CriteriaDepth(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
			deepest = max(deepest, depth)
		case ')':
			depth--
		}
	}
	return deepest
}

// parseCriteria parses a whole expression; ok is false when it is invalid.
func parseCriteria(s string) (*criteria, bool) {
	toks := tokenizeCriteria(s)
	if len(toks) == 0 {
		return nil, false
	}
	c, rest, ok := parseSeq(toks)
	if !ok || len(rest) != 0 {
		return nil, false
	}
	return c, true
}

func parseSeq(toks []string) (*criteria, []string, bool) {
	first, toks, ok := parseOperand(toks)
	if !ok {
		return nil, nil, false
	}
	c := &criteria{first: first}
	for len(toks) > 0 && toks[0] != ")" {
		or := false
		if t := strings.ToLower(toks[0]); t == "and" || t == "or" {
			or = t == "or"
			toks = toks[1:]
		}
		var op *operand
		op, toks, ok = parseOperand(toks)
		if !ok {
			return nil, nil, false
		}
		c.rest = append(c.rest, clause{or: or, op: op})
	}
	return c, toks, true
}

func parseOperand(toks []string) (*operand, []string, bool) {
	if len(toks) == 0 {
		return nil, nil, false
	}
	if toks[0] == "(" {
		sub, rest, ok := parseSeq(toks[1:])
		if !ok || len(rest) == 0 || rest[0] != ")" {
			return nil, nil, false
		}
		return &operand{sub: sub}, rest[1:], true
	}
	if toks[0] == ")" {
		return nil, nil, false
	}
	p, ok := parsePredicate(toks[0])
	if !ok {
		return nil, nil, false
	}
	return &operand{pred: p}, toks[1:], true
}

func parsePredicate(tok string) (*predicate, bool) {
	name, value, ok := strings.Cut(tok, "=")
	if !ok || value == "" {
		return nil, false
	}
	value = strings.ToLower(value)
	p := &predicate{name: name, value: value}
	switch name {
	case "status":
		return p, value == "up" || value == "down"
	case "sched-now":
		return p, value == "allocated" || value == "free"
	case "sched-future":
		return p, value == "reserved" || value == "free"
	case "jobid-alloc", "jobid-reserved", "jobid-span", "jobid-tag":
		n, err := strconv.ParseUint(value, 10, 64)
		p.job = n
		return p, err == nil
	case "agfilter":
		return p, value == "true" || value == "t" || value == "false" || value == "f"
	case "names":
		hs, err := hostlist.Parse(value)
		if err != nil {
			return nil, false
		}
		p.hosts = hs
		return p, true
	case "property":
		return p, true
	}
	return nil, false
}

// walk visits every predicate in order.
func (c *criteria) walk(f func(*predicate)) {
	visit := func(o *operand) {
		if o.pred != nil {
			f(o.pred)
		} else {
			o.sub.walk(f)
		}
	}
	visit(c.first)
	for _, cl := range c.rest {
		visit(cl.op)
	}
}

func (m *Matcher) evalCriteria(c *criteria, u graph.VertexID, fl findFlags) bool {
	v := m.evalOperand(c.first, u, fl)
	for _, cl := range c.rest {
		w := m.evalOperand(cl.op, u, fl)
		if cl.or {
			v = v || w
		} else {
			v = v && w
		}
	}
	return v
}

func (m *Matcher) evalOperand(o *operand, u graph.VertexID, fl findFlags) bool {
	if o.sub != nil {
		return m.evalCriteria(o.sub, u, fl)
	}
	p := o.pred
	vx := m.g.V(u)
	switch p.name {
	case "status":
		down := fl&flagDown != 0 || vx.Status == graph.StatusDown
		if p.value == "down" {
			return down
		}
		return !down && vx.Status == graph.StatusUp
	case "sched-now":
		a := fl&flagAllocated != 0 || m.hasAllocation(u)
		return a == (p.value == "allocated")
	case "sched-future":
		r := fl&flagReserved != 0 || m.hasReservation(u)
		return r == (p.value == "reserved")
	case "jobid-alloc":
		r, ok := m.jobAt(u, p.job)
		return ok && r.alloc != 0
	case "jobid-reserved":
		r, ok := m.jobAt(u, p.job)
		return ok && r.resv != 0
	case "jobid-span":
		r, ok := m.jobAt(u, p.job)
		return ok && r.fspan >= 0
	case "jobid-tag":
		r, ok := m.jobAt(u, p.job)
		return ok && r.tagged
	case "agfilter":
		return p.value == "true" || p.value == "t"
	case "names":
		return p.hosts.Contains(vx.Name)
	case "property":
		_, ok := vx.Prop(p.value)
		return ok
	}
	return false
}

func (m *Matcher) hasReservation(u graph.VertexID) bool {
	l := m.jobsOf(u)
	for i := range l.Len() {
		if l.At(i).resv != 0 {
			return true
		}
	}
	return false
}

type finder struct {
	crit     *criteria
	w        emit.Writer
	level    int
	job      uint64
	agfilter bool
	now      int64
	ev       emit.Vertex
}

// Find emits every vertex that satisfies the criteria expression, with its
// ancestors, to w (spec traversal.md §16). now is the wall-clock time that
// agfilter mode reports usage at.
func (m *Matcher) Find(expr string, now int64, w emit.Writer) error {
	m.msg.Reset()
	// The parser and evaluator recurse once per parenthesis: bound it.
	limit := m.opts.MaxFindDepth
	if limit <= 0 {
		limit = graph.DefaultMaxDepth
	}
	if CriteriaDepth(expr) > limit {
		return &Error{Op: "find", Errno: EINVAL, Msg: "find: criteria nest parentheses more than " + strconv.Itoa(limit) + " deep.\n"}
	}
	c, ok := parseCriteria(expr)
	if !ok {
		return &Error{Op: "find", Errno: EINVAL, Msg: "find: invalid criteria: " + expr + ".\n"}
	}
	f := finder{crit: c, w: w, now: now, level: m.baseLevel()}
	defer func() { m.keepLevel(f.level) }()
	c.walk(func(p *predicate) {
		switch p.name {
		case "jobid-alloc", "jobid-span", "jobid-tag", "jobid-reserved":
			f.job = p.job
		case "agfilter":
			f.agfilter = p.value == "true" || p.value == "t"
		}
	})
	m.tick()
	root := m.g.Root(m.dom)
	if root == graph.NoVertex {
		return &Error{Op: "find", Errno: EINVAL}
	}
	if _, err := m.findDFV(&f, root, 0); err != nil {
		return err
	}
	w.Times(0, 0)
	return nil
}

func (m *Matcher) findDFV(f *finder, u graph.VertexID, inherited findFlags) (int, error) {
	g := m.g
	vx := g.V(u)
	fl := inherited
	if vx.Status == graph.StatusDown {
		fl |= flagDown
	}
	if m.hasAllocation(u) {
		fl |= flagAllocated
	}
	if m.hasReservation(u) {
		fl |= flagReserved
	}
	m.gray(0, u)
	f.level++
	defer func() { f.level-- }()
	n := 0
	for si, sub := range m.subs {
		for _, h := range g.Out(u) {
			if h.Subsystem != sub || !m.white(si, h.Other) {
				continue
			}
			if si != 0 {
				continue
			}
			k, err := m.findDFV(f, h.Other, fl)
			if err != nil {
				return -1, err
			}
			if k > 0 {
				f.w.Edge(g, h.Edge, false)
				n += k
			}
		}
	}
	ok := m.evalCriteria(f.crit, u, fl)
	m.black(0, u)
	if !ok && n == 0 {
		return 0, nil
	}
	f.ev = emit.Vertex{ID: u, Needs: vx.Size, Exclusive: true, Level: f.level}
	if f.agfilter {
		flt := m.filter(0, u)
		if !flt.ok() {
			return 0, nil
		}
		var rec *jobRec
		if f.job != 0 {
			r, ok := m.jobAt(u, f.job)
			if !ok || r.fspan < 0 {
				// A vertex the job has no filter span at is left out (the
				// ops corpus shows no error here).
				return 0, nil
			}
			rec = &r
		}
		for i := 0; i < flt.Len(); i++ {
			total := flt.Total(i)
			var used int64
			if rec != nil {
				used, _ = flt.SpanPlanned(rec.fspan, i)
			} else {
				free, _ := flt.AvailAt(f.now, i)
				if free == total {
					if f0, err := flt.AvailAt(0, i); err == nil && f0 != free {
						free = f0
					}
				}
				used = total - free
			}
			f.ev.AgFilter = append(f.ev.AgFilter, emit.AgFilter{Type: g.Types.Name(flt.Type(i)), Used: used, Total: total})
		}
		sort.Slice(f.ev.AgFilter, func(a, b int) bool { return f.ev.AgFilter[a].Type < f.ev.AgFilter[b].Type })
	}
	// find starts a new tick, so ephemeral labels are stale and not shown.
	f.w.Vertex(g, &f.ev)
	return n + 1, nil
}
