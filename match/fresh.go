package match

import (
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/planner"
)

// Freshness: which subtrees hold no schedule state at all.
//
// A vertex is fresh when no job holds a record on it, it is up, and its
// planner, exclusivity checker and dominant pruning filter are as New
// made them (no span, every unit free at every time). A walk into a
// subtree of fresh vertices does not depend on the time window or on any
// job, only on the request and on the subtree's shape, so the best-first
// walk replays one recorded walk for every identical fresh subtree
// (memo.go). The count of non-fresh vertices per dominant subtree is kept
// up to date by the operations that change records or statuses; it lives
// with the schedule (views share it) and is rebuilt whenever the
// matcher's per-vertex state is (New, Restore, attach, removals).

// freshState counts non-fresh vertices per subtree of the dominant
// subsystem's tree. It is nil when the dominant subsystem is not a tree
// (some vertex has two dominant parents): nothing is replayed then.
type freshState struct {
	stale []bool  // the vertex itself is not fresh
	below []int32 // non-fresh vertices in the vertex's subtree
}

// buildFresh recomputes the freshness counts from scratch.
func (m *Matcher) buildFresh() {
	m.fresh = nil
	if !m.domTree() {
		return
	}
	nv := m.g.NumVertices()
	f := &freshState{stale: make([]bool, nv), below: make([]int32, nv)}
	m.fresh = f
	for v := 0; v < nv; v++ {
		if !m.vertexFresh(graph.VertexID(v)) {
			f.stale[v] = true
			m.addBelow(graph.VertexID(v), 1)
		}
	}
}

// vertexFresh reports whether v holds no state (see above).
func (m *Matcher) vertexFresh(v graph.VertexID) bool {
	if len(m.jobs[v]) > 0 || m.g.V(v).Status != graph.StatusUp {
		return false
	}
	if !plannerFresh(&m.plans[v]) || !plannerFresh(&m.xchk[v]) {
		return false
	}
	if f := m.filt[0][v]; f != nil {
		for i := 0; i < f.Len(); i++ {
			if !plannerFresh(f.Member(i)) {
				return false
			}
		}
	}
	return true
}

// plannerFresh reports whether every unit of p is free at every time.
func plannerFresh(p *planner.Planner) bool {
	switch {
	case p.NumSpans() > 0 || p.NumPoints() > 1:
		return false
	case p.NumPoints() == 0:
		return true
	}
	n, err := p.AvailAt(p.Base())
	return err == nil && n == p.Total()
}

// refresh re-examines v after an operation changed its records, planners
// or status, and updates the counts of its subtree and ancestors.
func (m *Matcher) refresh(v graph.VertexID) {
	f := m.fresh
	if f == nil || int(v) >= len(f.stale) {
		return
	}
	stale := !m.vertexFresh(v)
	if stale == f.stale[v] {
		return
	}
	f.stale[v] = stale
	if stale {
		m.addBelow(v, 1)
	} else {
		m.addBelow(v, -1)
	}
}

// addBelow adds d to the counts of v and its dominant ancestors.
func (m *Matcher) addBelow(v graph.VertexID, d int32) {
	for v != graph.NoVertex {
		m.fresh.below[v] += d
		v = m.domParentOf(v)
	}
}

// subtreeFresh reports whether every vertex of v's dominant subtree is
// fresh.
func (m *Matcher) subtreeFresh(v graph.VertexID) bool {
	return m.fresh != nil && int(v) < len(m.fresh.below) && m.fresh.below[v] == 0
}
