package match

import (
	"math"
	"slices"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// Attach grows the graph with a JGF subgraph (spec traversal.md §14.5):
// vertices whose paths and rank already exist are reused, the others are
// created, and edges are added when one of their ends is new. The pruning
// filters are then recomputed. New nodes are not counted as up nodes, as in
// Fluxion. On error the graph is unchanged.
func (m *Matcher) Attach(doc *jgf.Document) error {
	m.msg.Reset()
	nv, ne := m.g.NumVertices(), m.g.NumEdges()
	if err := jgf.Load(m.wgraph(), doc); err != nil {
		return err
	}
	m.grow(nv, ne)
	m.reprime()
	return nil
}

// grow extends the per-vertex and per-edge state to vertices and edges
// added to the graph since it had nv vertices and ne edges: new vertices
// get records lazily, new edges join their sources' dynamic order.
func (m *Matcher) grow(nv, ne int) {
	g := m.g
	m.fitScratch()
	if !m.dynamic {
		return
	}
	// New edges are appended to their sources' orders and each touched
	// source is sorted once at the end: sorting after every edge made
	// attaching k children to a vertex of degree d cost O(k·d·log d).
	var touched []graph.VertexID
	before := map[graph.VertexID]int{} // touched source → its order's old length
	lists := map[graph.VertexID][]outEntry{}
	for e := ne; e < g.NumEdges(); e++ {
		ed := g.E(graph.EdgeID(e))
		if _, ok := before[ed.Src]; !ok {
			old := m.childOrder(ed.Src).l
			before[ed.Src] = len(old)
			lists[ed.Src] = old[:len(old):len(old)] // appends copy
			touched = append(touched, ed.Src)
		}
		lists[ed.Src] = append(lists[ed.Src], outEntry{weight: math.MaxUint64, uniq: g.V(ed.Dst).UniqID, edge: graph.EdgeID(e), dst: ed.Dst, sub: ed.Subsystem})
	}
	for _, u := range touched {
		m.setOrder(u, sortAppended(lists[u], before[u]))
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
