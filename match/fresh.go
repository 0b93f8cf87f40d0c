package match

import (
	"github.com/gofluxion/gofluxion/graph"
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
// up to date by the operations that change records or statuses (store.go's
// job-record accessors, status and removal); it lives in the schedule's
// copy-on-write store (views share it, a clone shares it until either
// side changes it) and is rebuilt whenever the matcher's per-vertex state
// is (New, Restore, attach, removals).

// freshState counts non-fresh vertices per subtree of the dominant
// subsystem's tree. It is nil when the dominant subsystem is not a tree
// (some vertex has two dominant parents): nothing is replayed then.
type freshState struct {
	owner uint64  // the token of the schedule that may change it (store.go)
	stale []bool  // the vertex itself is not fresh
	below []int32 // non-fresh vertices in the vertex's subtree
}

// buildFresh recomputes the freshness counts from scratch.
func (m *Matcher) buildFresh() {
	if !m.domTree() {
		m.setFresh(nil)
		return
	}
	m.graphClean() // for the best-first walk, off the first match's path
	nv := m.g.NumVertices()
	f := &freshState{stale: make([]bool, nv), below: make([]int32, nv)}
	m.setFresh(f)
	for v := 0; v < nv; v++ {
		if !m.vertexFresh(graph.VertexID(v)) {
			f.stale[v] = true
			m.addBelow(f, graph.VertexID(v), 1)
		}
	}
}

// vertexFresh reports whether v holds no state (see above).
func (s *schedule) vertexFresh(v graph.VertexID) bool {
	if s.g.V(v).Status != graph.StatusUp {
		return false
	}
	if !s.booked(v) {
		return true
	}
	if s.jobsOf(v).Len() > 0 || !plannerFresh(s.plan(v)) || !plannerFresh(s.xplan(v)) {
		return false
	}
	if f := s.filter(0, v); f.ok() {
		for i := 0; i < f.Len(); i++ {
			if !plannerFresh(f.Member(i)) {
				return false
			}
		}
	}
	return true
}

// plannerFresh reports whether every unit of p is free at every time.
func plannerFresh(p rPlanner) bool {
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
func (s *schedule) refresh(v graph.VertexID) {
	if s.fresh == nil || int(v) >= len(s.fresh.stale) {
		return
	}
	stale := !s.vertexFresh(v)
	if stale == s.fresh.stale[v] {
		return
	}
	f := s.wfresh()
	f.stale[v] = stale
	if stale {
		s.addBelow(f, v, 1)
	} else {
		s.addBelow(f, v, -1)
	}
}

// addBelow adds d to f's counts of v and its dominant ancestors.
func (s *schedule) addBelow(f *freshState, v graph.VertexID, d int32) {
	for v != graph.NoVertex {
		f.below[v] += d
		v = s.domParentOf(v)
	}
}

// subtreeFresh reports whether every vertex of v's dominant subtree is
// fresh.
func (s *schedule) subtreeFresh(v graph.VertexID) bool {
	return s.fresh != nil && int(v) < len(s.fresh.below) && s.fresh.below[v] == 0
}
