package match

import (
	"math"
	"slices"

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
	// New edges are appended to their sources' orders and each touched
	// source is sorted once at the end: sorting after every edge made
	// attaching k children to a vertex of degree d cost O(k·d·log d).
	var touched []graph.VertexID
	before := map[graph.VertexID]int{} // touched source → its order's old length
	for e := ne; e < g.NumEdges(); e++ {
		m.weight = append(m.weight, math.MaxUint64)
		ed := g.E(graph.EdgeID(e))
		if _, ok := before[ed.Src]; !ok {
			before[ed.Src] = len(m.outOrder[ed.Src])
			touched = append(touched, ed.Src)
		}
		m.outOrder[ed.Src] = append(m.outOrder[ed.Src], outEntry{weight: math.MaxUint64, uniq: g.V(ed.Dst).UniqID, edge: graph.EdgeID(e), dst: ed.Dst, sub: ed.Subsystem})
	}
	for _, u := range touched {
		m.outOrder[u] = sortAppended(m.outOrder[u], before[u])
	}
}

// sortAppended sorts l, whose first n entries are sorted and whose others
// were appended in edge order, into the order that sorting after each
// append gives. With distinct keys that is the one sorted order. Equal
// keys (two edges to one target) end in an order that depends on the
// sequence of sorts, so then the appends are replayed one sort at a time.
func sortAppended(l []outEntry, n int) []outEntry {
	if len(l)-n <= 1 {
		sortOut(l)
		return l
	}
	orig := slices.Clone(l)
	sortOut(l)
	for i := 1; i < len(l); i++ {
		if !outAfter(l[i], l[i-1]) { // equal keys
			r := orig[:n:n]
			for _, x := range orig[n:] {
				r = append(r, x)
				sortOut(r)
			}
			return r
		}
	}
	return l
}
