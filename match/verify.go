package match

import (
	"fmt"

	"github.com/gofluxion/gofluxion/graph"
)

// Window is a job's booked window [Start, End) as its owner's job table
// has it, and whether the job is a reservation.
type Window struct {
	Start, End int64
	Reserved   bool
}

// CheckDerived checks the state a matcher derives from its primary state
// (the graph and every job's allocation or reservation spans) against it,
// for a matcher rebuilt by Restore from a State it cannot trust:
//
//   - the up-node count is the number of node vertices that are up with
//     no down ancestor (CountUpNodes);
//   - every job record is tagged, has its exclusivity span and books
//     nothing but in its job's window (an allocation for an allocated
//     job, a reservation for a reserved one);
//   - a job on a vertex is on its dominant parent too, up to the root;
//   - a job's pruning-filter counts on a vertex are those of what it
//     books below: a vertex it takes exclusively counts its whole size, a
//     shared one between nothing and its size (the units it left free
//     there, which the state does not record).
//
// jobs gives the window of every job that may hold resources. The checks
// hold for matchers without FluxionQuirks (Fluxion's half-done failures
// leave other states); CheckDerived refuses quirk options.
func (m *Matcher) CheckDerived(jobs map[uint64]Window) error {
	if m.opts.FluxionQuirks || m.opts.FluxionFailures || len(m.polExcl) > len(m.pol.ExclusiveTypes()) {
		return fmt.Errorf("match: restore: Fluxion quirk options in the state")
	}
	saved := m.nodesUp
	m.CountUpNodes()
	if m.nodesUp != saved {
		return fmt.Errorf("match: restore: %d nodes up in the state, but the graph has %d", saved, m.nodesUp)
	}
	g := m.g
	nv := graph.VertexID(g.NumVertices())
	root := g.Root(m.dom)
	byJob := map[uint64][]graph.VertexID{}
	var order []uint64
	for v := range nv {
		recs := m.jobsOf(v)
		for i := range recs.Len() {
			r := recs.At(i)
			w, ok := jobs[r.job]
			if !ok {
				return fmt.Errorf("match: restore: vertex %d holds resources for job %d, which has no window", v, r.job)
			}
			if err := m.checkRec(v, r, w); err != nil {
				return fmt.Errorf("match: restore: vertex %d (%s) job %d: %w", v, g.V(v).Name, r.job, err)
			}
			if v != root {
				if p := m.domParent(v); p != graph.NoVertex {
					if _, ok := m.jobAt(p, r.job); !ok {
						return fmt.Errorf("match: restore: job %d holds vertex %d (%s) but not its parent %d (%s)", r.job, v, g.V(v).Name, p, g.V(p).Name)
					}
				}
			}
			if byJob[r.job] == nil {
				order = append(order, r.job)
			}
			byJob[r.job] = append(byJob[r.job], v)
		}
	}
	if len(m.prune) == 0 {
		return nil
	}
	for _, job := range order {
		if err := m.checkFilters(job, byJob[job]); err != nil {
			return err
		}
	}
	return nil
}

// checkRec checks one record against its job's window.
func (m *Matcher) checkRec(v graph.VertexID, r jobRec, w Window) error {
	dur := w.End - w.Start
	if !r.tagged {
		return fmt.Errorf("not tagged")
	}
	if r.xspan == 0 {
		return fmt.Errorf("no exclusivity span")
	}
	s, d, n, err := m.xplan(v).SpanInfo(r.xspan)
	if err != nil || s != w.Start || d != dur || n != 1 {
		return fmt.Errorf("exclusivity span [%d, %d, %d] is not the job's window [%d, %d)", s, d, n, w.Start, w.End)
	}
	if r.alloc != 0 && r.resv != 0 {
		return fmt.Errorf("both an allocation and a reservation")
	}
	for _, sp := range []struct {
		id       int64
		what     string
		reserved bool
	}{{r.alloc, "allocation", false}, {r.resv, "reservation", true}} {
		if sp.id == 0 {
			continue
		}
		if sp.reserved != w.Reserved {
			return fmt.Errorf("a %s span for a job that is not one", sp.what)
		}
		s, d, n, err := m.plan(v).SpanInfo(sp.id)
		if err != nil || s != w.Start || d != dur || n <= 0 {
			return fmt.Errorf("%s span [%d, %d, %d] is not in the job's window [%d, %d)", sp.what, s, d, n, w.Start, w.End)
		}
	}
	if f := m.filter(0, v); r.fspan >= 0 {
		if !f.ok() || !f.HasSpan(r.fspan) {
			return fmt.Errorf("a filter span where there is no filter")
		}
		s, d, _, err := f.SpanInfo(r.fspan)
		if err != nil || s != w.Start || d != dur {
			return fmt.Errorf("filter span [%d, %d] is not the job's window [%d, %d)", s, d, w.Start, w.End)
		}
	}
	return nil
}

// bounds is what a job's records below a vertex add to its filter counts
// of one type: between lo and hi.
type bounds struct{ lo, hi int64 }

// checkFilters recomputes the filter counts of one job's vertices (vs)
// from what it books and checks the recorded ones against them.
func (m *Matcher) checkFilters(job uint64, vs []graph.VertexID) error {
	g := m.g
	conf := &m.prune[0]
	held := make(map[graph.VertexID]bool, len(vs))
	for _, v := range vs {
		held[v] = true
	}
	// Children before parents: sums below each vertex, by type.
	sums := map[graph.VertexID]map[graph.TypeID]bounds{}
	var walk func(v graph.VertexID, depth int) (map[graph.TypeID]bounds, error)
	walk = func(v graph.VertexID, depth int) (map[graph.TypeID]bounds, error) {
		if depth > graph.MaxDepth {
			return nil, fmt.Errorf("match: restore: job %d: deeper than %d", job, graph.MaxDepth)
		}
		if _, seen := sums[v]; seen {
			return nil, nil // a cycle (Fluxion's rules load them): once
		}
		sums[v] = nil
		below := map[graph.TypeID]bounds{}
		for _, h := range g.Out(v) {
			if h.Subsystem != m.dom || !held[h.Other] {
				continue
			}
			up, err := walk(h.Other, depth+1)
			if err != nil {
				return nil, err
			}
			for t, b := range up {
				s := below[t]
				below[t] = bounds{s.lo + b.lo, s.hi + b.hi}
			}
		}
		sums[v] = below
		// What v passes to its parent: its own units, then those below.
		up := map[graph.TypeID]bounds{}
		vx := g.V(v)
		if conf.has(vx.Type) {
			r, _ := m.jobAt(v, job)
			if r.alloc != 0 || r.resv != 0 {
				up[vx.Type] = bounds{vx.Size, vx.Size}
			} else {
				up[vx.Type] = bounds{0, vx.Size}
			}
		}
		for t, b := range below {
			if conf.has(t) {
				s := up[t]
				up[t] = bounds{s.lo + b.lo, s.hi + b.hi}
			}
		}
		return up, nil
	}
	for _, v := range vs {
		if p := m.domParent(v); p != graph.NoVertex && held[p] {
			continue // walked from its parent
		}
		if _, err := walk(v, 0); err != nil {
			return err
		}
	}
	for _, v := range vs {
		f := m.filter(0, v)
		if !f.ok() {
			continue
		}
		r, _ := m.jobAt(v, job)
		var counts []int64
		if r.fspan >= 0 {
			_, _, c, err := f.SpanInfo(r.fspan)
			if err != nil || len(c) != f.Len() {
				return fmt.Errorf("match: restore: vertex %d job %d: filter span: %v", v, job, err)
			}
			counts = c
		}
		below := sums[v]
		for i := range f.Len() {
			t := graph.TypeID(f.Type(i))
			b := below[t]
			n := int64(0)
			if counts != nil {
				n = max(counts[i], 0) // -1: a member reduced away
			}
			if n < b.lo || n > b.hi {
				return fmt.Errorf("match: restore: vertex %d (%s) job %d: filter count %d of %s, but the job books %d to %d of it below", v, g.V(v).Name, job, n, g.Types.Name(int32(t)), b.lo, b.hi)
			}
		}
	}
	return nil
}
