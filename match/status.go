package match

import (
	"github.com/gofluxion/gofluxion/graph"
)

// SetStatus marks the vertices at path up or down (spec traversal.md §12).
// Down vertices and everything below them are not matched, except by
// satisfiability probes. Descendants keep their own status.
func (m *Matcher) SetStatus(path string, st graph.Status) error {
	vs := m.g.ByPath(path)
	if len(vs) == 0 {
		return &Error{Op: "set-status", Errno: EINVAL, Msg: "mark: could not find subtree path (" + path + ") in resource graph.\n"}
	}
	var changed []graph.VertexID
	for _, v := range vs {
		if m.g.V(v).Status == st {
			continue
		}
		m.wgraph().V(v).Status = st
		m.refresh(v)
		changed = m.collectSubtree(v, changed)
	}
	for _, v := range changed {
		vx := m.g.V(v)
		if vx.Type != graph.TypeNode {
			continue
		}
		if st == graph.StatusUp {
			m.nodesUp += vx.Size
		} else {
			m.nodesUp -= vx.Size
		}
	}
	return nil
}

// collectSubtree appends v and its dominant descendants.
func (m *Matcher) collectSubtree(v graph.VertexID, acc []graph.VertexID) []graph.VertexID {
	acc = append(acc, v)
	for _, h := range m.g.Out(v) {
		if h.Subsystem == m.dom {
			acc = m.collectSubtree(h.Other, acc)
		}
	}
	return acc
}

// SetRankStatus marks the subgraph root of every given rank (its vertex with
// the shortest dominant path) up or down; unknown ranks are ignored (spec
// traversal.md §12).
func (m *Matcher) SetRankStatus(ranks []int64, st graph.Status) {
	changed := int64(0)
	for _, r := range ranks {
		if len(m.g.ByRank(r)) == 0 {
			continue
		}
		v := m.rankRoot(r)
		if m.g.V(v).Status != st {
			m.wgraph().V(v).Status = st
			m.refresh(v)
			changed++
		}
	}
	if st == graph.StatusUp {
		m.nodesUp += changed
	} else {
		m.nodesUp -= changed
	}
}

// RankStatus returns the status of the first node (or storage_node) vertex
// of rank r; ok is false when the rank has none.
func (m *Matcher) RankStatus(r int64) (st graph.Status, ok bool) {
	for _, v := range m.g.ByRank(r) {
		if t := m.g.V(v).Type; t == graph.TypeNode || t == graph.TypeStorageNode {
			return m.g.V(v).Status, true
		}
	}
	return 0, false
}

// CountUpNodes sets the up-node count used by the feasibility pre-check to
// the number of node vertices that are up with no down ancestor (SetStatus
// of a vertex counts the nodes below it as down). Fluxion instead adds +1
// per up and -1 per down node at load (so one node loaded down hides an up
// one) and never counts attached nodes; resource-query keeps that, while
// the gofluxion package calls this after loads, attaches and removals.
func (m *Matcher) CountUpNodes() {
	n := int64(0)
	nv := m.g.NumVertices()
	for _, v := range m.g.ByType(graph.TypeNode) {
		up := true
		// At most nv steps: a cycle of parents (a graph loaded by
		// Fluxion's rules) must not loop.
		for u, k := v, 0; u != graph.NoVertex && up && k <= nv; u, k = m.domParent(u), k+1 {
			up = m.g.V(u).Status == graph.StatusUp
		}
		if up {
			n += m.g.V(v).Size
		}
	}
	m.nodesUp = n
}

// SetProperty sets property key of vertex v to value (resource-query's
// set-property). Change vertex properties only through it: the graph may
// be shared with a clone until either changes it.
func (m *Matcher) SetProperty(v graph.VertexID, key, value string) {
	m.wgraph().SetProperty(v, key, value)
}
