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
		start := 0.0 // an absent starttime is 0, as in Fluxion
		if ex.Start != nil {
			start = *ex.Start
		}
		if ex.Exp != nil && *ex.Exp != 0 && *ex.Exp < start {
			return nil, invalidf(op, "R's execution.expiration %v is before its starttime %v", *ex.Exp, start)
		}
		if ex.Exp != nil && *ex.Exp > float64(match.GraphEnd) {
			return nil, invalidf(op, "R's execution.expiration %v is after the graph's window [0, %d)", *ex.Exp, match.GraphEnd)
		}
		if ex.Exp != nil && *ex.Exp-start > 0 {
			d.dur = int64(*ex.Exp - start)
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
// window, [0, 3153600000)). Job id 0 is refused (ErrInvalid), as in
// MatchWithID.
//
// The allocation lists exactly what Update books: the R's vertices, not
// the rest of a node the policy takes whole (hinodex and the other
// node-exclusive policies), nor the vertices attached under an exclusive
// vertex since the R was written. A vertex the R marks exclusive is taken
// only if no other job holds anything below it at any time of the window;
// a vertex another job holds fails the Update with ErrBusy, an R naming a
// vertex the graph lacks (or one vertex twice) with ErrInvalid, and
// nothing changes. An execution-only R (rv1_nosched) takes a node whole,
// and marks it exclusive, only when it lists every vertex of the node's
// rank. The id counts as used for Match's automatic ids. (Fluxion's
// update trusts the R: it emits what the policy's exclusive types cover
// without booking it, takes exclusive vertices over other jobs' holdings
// below them, and marks every node of an execution-only R exclusive;
// reapi/fluxcli keeps its answers.)
//
// A jgf_shorthand R (the jgf_shorthand format, or rv1_shorthand's
// scheduling part) lists only the topmost exclusive vertices; each stands
// for its whole subtree, which Update books, on any graph. This is a
// deliberate difference: Fluxion expands such a vertex only on graphs
// whose vertex ids are their creation indices (read from GRUG, hwloc or
// rv1exec) and, on a graph read from JGF, fails the update after booking
// the first such vertex, which it then keeps under a job it never records
// (resource-query reproduces this; reapi/fluxcli fails and books nothing).
func (x *Matcher) Update(id uint64, R []byte) (*Allocation, error) {
	if id == 0 {
		return nil, errJobZero("update")
	}
	if err := x.opts.Limits.checkInput("R", len(R)); err != nil {
		return nil, fromMatch("update", err)
	}
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
	x.wjobs()[id] = &Job{ID: id, State: Allocated, Start: d.start, End: a.End, Overhead: took, Nodes: strings.Join(a.Nodes(), ",")}
	x.useID(id)
	return a, nil
}

// PartialCancel releases the part of job id that R lists: the vertices of
// the JGF scheduling part of an RFC 20 R (as written by the rv1 format) or
// of a bare JGF, or else the ranks of its execution part. It reports
// whether that released the whole job, which is then Canceled.
//
// The JGF form releases the listed vertices the job holds exclusively
// (its leaves and exclusive vertices); every listed vertex must exist, be
// listed once and be held by the job. The rank form releases everything
// the job holds on the vertices carrying one of the ranks and below them
// (in graphs where only nodes have a rank, the node's sockets, cores,
// memory...); a rank whose vertices were all removed is skipped, and a
// rank where the job holds nothing is an error (ErrInvalid). A vertex the
// job holds shared (a node or socket above what it took) stays held, and
// keeps other jobs from taking it exclusively, exactly while the job
// still holds something below it, listed or not. The job is released
// whole (full, Canceled) exactly when it holds nothing any more, and then
// nothing of it remains, as after Cancel. Any error is found before
// anything changes. Reservations cannot be partially canceled.
func (x *Matcher) PartialCancel(id uint64, R []byte) (full bool, err error) {
	if err := x.opts.Limits.checkInput("R", len(R)); err != nil {
		return false, fromMatch("partial cancel", err)
	}
	d, err := parseR("partial cancel", R)
	if err != nil {
		return false, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.releases.Add(1)
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
	} else {
		x.wjobs()[j.ID].Nodes = strings.Join(x.nodesOf()[j.ID], ",")
	}
	return full, nil
}

// Attach grows the graph with a JGF subgraph: vertices whose path and rank
// exist are reused, the others are added under them. On error the graph
// is unchanged. Unlike Fluxion's resource-query, attached nodes count as
// up nodes at once (and removed ones are forgotten).
//
// The document is read by the strict JGF reader (see jgf.Options), which
// refuses with ErrInvalid what Fluxion attaches: a new vertex that is
// neither the containment root nor any vertex's containment child (it
// would be unreachable, yet found by path and rank), a vertex reused by
// path and rank with another type (the error names the path and both
// types), and a new node with a rank another node has (the error names
// the rank and both paths).
func (x *Matcher) Attach(jgfDoc []byte) error {
	doc, err := x.opts.Limits.checkAttach(jgfDoc)
	if err != nil {
		return fromMatch("attach", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.m.Attach(doc); err != nil {
		return fromMatch("attach", err)
	}
	x.m.CountUpNodes()
	return nil
}

// Remove removes the subgraph at path: the vertex at path and everything
// below it. An unknown path is ErrNotFound; the graph's root cannot be
// removed (ErrInvalid).
//
// Jobs (allocated or reserved) holding resources in the subgraph lose
// them first, as if partially cancelled: the resources are released and
// no longer count against their ancestors, while what each job holds
// elsewhere stays booked (Cancel releases it as usual). A job left holding
// nothing ends: it becomes Canceled in the job table. Fluxion instead
// keeps such jobs' bookings on the removed vertices, where nothing can
// release them.
func (x *Matcher) Remove(path string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.releases.Add(1) // under the lock, after the change (see ReleaseGeneration)
	g := x.m.Graph()
	vs := g.ByPath(path)
	if len(vs) == 0 {
		return newError("remove", ErrNotFound, nil, "no resource at path %q", path)
	}
	if v := vs[len(vs)-1]; v == g.Root(x.m.Dominant()) {
		return newError("remove", ErrInvalid, nil, "%q is the root of the graph, which cannot be removed", path)
	}
	if err := x.m.RemovePath(path); err != nil {
		return fromMatch("remove", err)
	}
	x.endRemoved()
	x.m.CountUpNodes()
	return nil
}

// endRemoved marks Canceled the jobs the last removal left holding
// nothing.
func (x *Matcher) endRemoved() {
	for _, id := range x.m.Ended() {
		if j, ok := x.jobs[id]; ok && j.State != Canceled {
			x.wjobs()[id].State = Canceled
		}
	}
}

// RemoveRanks removes the vertices of the given ranks (an idset such as
// "3-5,8"), with the subgraphs below them. A rank the graph does not have
// is ErrNotFound, found before anything changes (Fluxion removes the
// ranks before it); an empty set removes nothing. Jobs holding resources
// there lose them as with Remove: a job left holding nothing becomes
// Canceled.
func (x *Matcher) RemoveRanks(ranks string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.releases.Add(1) // under the lock, after the change (see ReleaseGeneration)
	sel, err := x.opts.Limits.rankSet(x.m, ranks)
	if err != nil {
		return fromMatch("remove ranks", err)
	}
	if !sel.missing.Empty() {
		return fromMatch("remove ranks", errMissingRanks(sel.missing)) // before anything changes
	}
	if len(sel.known) == 0 {
		return nil
	}
	if err := x.m.RemoveRanks(sel.known); err != nil {
		return fromMatch("remove ranks", err)
	}
	x.endRemoved()
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
	x.m.CountUpNodes() // as SetStatus
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
