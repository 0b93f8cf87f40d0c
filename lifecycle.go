package gofluxion

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/rv1"
)

// rDoc is an R as Update and PartialCancel accept it: an RFC 20 envelope
// ({"version": 1, "execution": …, "scheduling": JGF?}) or a bare JGF.
type rDoc struct {
	envelope   bool
	start, dur int64
	jgf        *jgf.Document // the scheduling part, or the bare JGF
	shorthand  bool
	exec       *rv1.R // the execution part, when there is no scheduling part
}

func parseR(op string, data []byte) (*rDoc, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, invalidf(op, "R is empty")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, newError(op, ErrInvalid, err, "R is not a JSON object: %v", err)
	}
	var version int
	_, hasExec := top["execution"]
	if v, ok := top["version"]; ok && json.Unmarshal(v, &version) == nil && version == 1 && hasExec {
		d := &rDoc{envelope: true, dur: match.GraphEnd}
		var ex struct {
			Start *float64 `json:"starttime"`
			Exp   *float64 `json:"expiration"`
		}
		// A starttime or expiration that is not a number must not read as
		// 0 (Fluxion's reader does that): the job would be booked at the
		// wrong time.
		if err := json.Unmarshal(top["execution"], &ex); err != nil {
			return nil, newError(op, ErrInvalid, err, "R's execution part: %v", err)
		}
		if ex.Start != nil {
			if *ex.Start < 0 || *ex.Start >= float64(match.GraphEnd) {
				return nil, invalidf(op, "R's execution.starttime %v is outside the graph's window [0, %d)", *ex.Start, match.GraphEnd)
			}
			d.start = int64(*ex.Start)
		}
		if ex.Exp != nil && *ex.Exp != 0 && ex.Start != nil && *ex.Exp < *ex.Start {
			return nil, invalidf(op, "R's execution.expiration %v is before its starttime %v", *ex.Exp, *ex.Start)
		}
		if ex.Start != nil && ex.Exp != nil && *ex.Exp-*ex.Start > 0 {
			d.dur = int64(*ex.Exp - *ex.Start)
		}
		if sched, ok := top["scheduling"]; ok {
			var w struct {
				Writer *string `json:"writer"`
			}
			_ = json.Unmarshal(sched, &w)
			if w.Writer != nil {
				scheme, path, _ := strings.Cut(*w.Writer, ":")
				switch {
				case scheme != "fluxion":
					return nil, invalidf(op, "R's scheduling.writer %q is not fluxion's", *w.Writer)
				case path == "" || path == "jgf":
				case path == "jgf_shorthand":
					d.shorthand = true
				default:
					return nil, invalidf(op, "R's scheduling.writer format %q is not jgf or jgf_shorthand", path)
				}
			}
			doc, err := jgf.Parse(sched)
			if err != nil {
				return nil, newError(op, ErrInvalid, err, "R's scheduling part: %v", err)
			}
			d.jgf = doc
			return d, nil
		}
		r, err := rv1.ParseR(data)
		if err != nil {
			return nil, newError(op, ErrInvalid, err, "R: %v", err)
		}
		d.exec = r
		return d, nil
	}
	doc, err := jgf.Parse(data)
	if err != nil {
		return nil, newError(op, ErrInvalid, err, "R is neither an RFC 20 R nor a JGF: %v", err)
	}
	return &rDoc{jgf: doc, dur: match.GraphEnd}, nil
}

// Update books an allocation made elsewhere, given as an R (an RFC 20 R
// as written in the rv1 or rv1_nosched format, or a JGF as written in the
// jgf format), as job id. This is how a restarted scheduler rebuilds its
// state from the allocations it handed out. The window comes from the R's
// starttime and expiration, in seconds (a bare JGF gets the graph's whole
// window, [0, 3153600000)).
func (x *Matcher) Update(id uint64, R []byte) (*Allocation, error) {
	d, err := parseR("update", R)
	if err != nil {
		return nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if j, ok := x.jobs[id]; ok && j.State != Canceled {
		return nil, newError("update", ErrExists, nil, "job %d is %s", id, strings.ToLower(j.State.String()))
	}
	rec := &emit.Recorder{}
	start := time.Now()
	if d.jgf != nil {
		err = x.m.UpdateJGF(d.jgf, d.shorthand, id, d.start, d.dur, rec)
	} else {
		err = x.m.UpdateRV1Exec(d.exec, id, d.start, d.dur, rec)
	}
	took := time.Since(start)
	if err != nil {
		return nil, fromMatch("update", err)
	}
	a := newAllocation(x, rec, id, d.start, d.start)
	a.End = d.start + d.dur
	a.Overhead = took
	x.wjobs()[id] = &Job{ID: id, State: Allocated, Start: d.start, End: a.End, Overhead: took}
	x.next = max(x.next, id+1)
	return a, nil
}

// PartialCancel releases the part of job id that R lists: the vertices of
// the JGF scheduling part of an RFC 20 R (as written by the rv1 format) or
// of a bare JGF, or else the ranks of its execution part. It reports
// whether that released the whole job, which is then Canceled.
//
// The rank form releases only vertices that carry one of the ranks. In
// graphs where only nodes have a rank (GRUG recipes, the demo graph) the
// resources below a node stay booked: use an R with a scheduling part.
// Reservations cannot be partially canceled.
func (x *Matcher) PartialCancel(id uint64, R []byte) (full bool, err error) {
	d, err := parseR("partial cancel", R)
	if err != nil {
		return false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	j, ok := x.jobs[id]
	if !ok || j.State != Allocated {
		return false, newError("partial cancel", ErrNotFound, nil, "no job %d allocated", id)
	}
	if d.jgf != nil {
		full, err = x.m.PartialCancelJGF(id, d.jgf)
	} else {
		full, err = x.m.PartialCancel(id, d.exec.Ranks())
	}
	if err != nil {
		return false, fromMatch("partial cancel", err)
	}
	if full {
		x.wjobs()[j.ID].State = Canceled
	}
	return full, nil
}

// Attach grows the graph with a JGF subgraph: vertices whose path and rank
// exist are reused, the others are added under them. On error the graph
// is unchanged. Unlike Fluxion's resource-query, attached nodes count as
// up nodes at once (and removed ones are forgotten).
func (x *Matcher) Attach(jgfDoc []byte) error {
	doc, err := x.opts.Limits.checkAttach(jgfDoc)
	if err != nil {
		return newError("attach", ErrInvalid, err, "%v", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.m.Attach(doc); err != nil {
		return fromMatch("attach", err)
	}
	x.m.CountUpNodes()
	return nil
}

// Remove removes the subgraph at path (jobs holding resources there keep
// their records but the resources can no longer be matched).
func (x *Matcher) Remove(path string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.m.RemovePath(path); err != nil {
		return newError("remove", ErrNotFound, err, "no resource at path %q", path)
	}
	x.m.CountUpNodes()
	return nil
}

// RemoveRanks releases what every job holds on the given ranks (an idset
// such as "3-5,8") and removes their vertices, with the subgraphs below
// them. A rank the graph does not have is ErrNotFound, found before
// anything changes (Fluxion removes the ranks before it).
func (x *Matcher) RemoveRanks(ranks string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	sel, err := x.opts.Limits.rankSet(x.m, ranks)
	if err != nil {
		return fromMatch("remove ranks", err)
	}
	if !sel.missing.Empty() {
		return fromMatch("remove ranks", errMissingRanks(sel.missing)) // before anything changes
	}
	if err := x.m.RemoveRanks(sel.known); err != nil {
		return fromMatch("remove ranks", err)
	}
	x.m.CountUpNodes()
	return nil
}

// SetRankStatus marks ranks (an idset such as "3-5,8", or "all") up or
// down: for each rank, its vertex with the shortest path (normally its
// node). Ranks the graph does not have are ignored (the set is never
// expanded beyond the graph's ranks; Limits.MaxRankSet bounds its size).
func (x *Matcher) SetRankStatus(ranks string, up bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	g := x.m.Graph()
	var ids []int64
	if ranks == "all" {
		for _, r := range g.Ranks() {
			if r >= 0 {
				ids = append(ids, r)
			}
		}
	} else {
		sel, err := x.opts.Limits.rankSet(x.m, ranks)
		if err != nil {
			return fromMatch("set rank status", err)
		}
		if sel.set.Empty() {
			return invalidf("set rank status", "empty rank set %q", ranks)
		}
		ids = sel.known
	}
	st := graph.StatusDown
	if up {
		st = graph.StatusUp
	}
	x.m.SetRankStatus(ids, st)
	return nil
}

// RankStatus reports whether rank r's node is up; ErrNotFound when no
// node vertex has that rank.
func (x *Matcher) RankStatus(r int64) (up bool, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	st, ok := x.m.RankStatus(r)
	if !ok {
		return false, newError("rank status", ErrNotFound, nil, "no node vertex at rank %d", r)
	}
	return st == graph.StatusUp, nil
}
