package match

import (
	"math"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/planner"
)

// Attach grows the graph with a JGF subgraph (spec traversal.md §14.5):
// vertices whose paths and rank already exist are reused, the others are
// created, and edges are added when one of their ends is new. The pruning
// filters are then recomputed. New nodes are not counted as up nodes, as in
// Fluxion. On error the graph is unchanged.
func (m *Matcher) Attach(doc *jgf.Document) error {
	m.msg.Reset()
	nv, ne := m.g.NumVertices(), m.g.NumEdges()
	if err := jgf.Load(m.g, doc); err != nil {
		return err
	}
	m.grow(nv, ne)
	m.reprime()
	return nil
}

// grow extends the per-vertex and per-edge state to vertices and edges
// added to the graph since it had nv vertices and ne edges.
func (m *Matcher) grow(nv, ne int) {
	g := m.g
	for v := nv; v < g.NumVertices(); v++ {
		var p, x = m.plans, m.xchk
		p = append(p, planner.Planner{})
		x = append(x, planner.Planner{})
		p[v].Init(0, math.MaxInt64, g.V(graph.VertexID(v)).Size)
		x[v].Init(0, math.MaxInt64, xCheckerTotal)
		m.plans, m.xchk = p, x
		m.jobs = append(m.jobs, nil)
		m.outOrder = append(m.outOrder, nil)
		for si := range m.subs {
			m.filt[si] = append(m.filt[si], nil)
		}
	}
	m.fitScratch()
	for e := ne; e < g.NumEdges(); e++ {
		m.weight = append(m.weight, math.MaxUint64)
		ed := g.E(graph.EdgeID(e))
		l := append(m.outOrder[ed.Src], outEntry{weight: math.MaxUint64, uniq: g.V(ed.Dst).UniqID, edge: graph.EdgeID(e), dst: ed.Dst, sub: ed.Subsystem})
		sortOut(l)
		m.outOrder[ed.Src] = l
	}
}
