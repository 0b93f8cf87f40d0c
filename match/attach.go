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
	// (AddEdge appends, so a source's old edges are a prefix of its
	// out-edges.)
	var touched []graph.VertexID
	added := map[graph.VertexID]int{} // touched source → its new edges
	for e := ne; e < g.NumEdges(); e++ {
		src := g.E(graph.EdgeID(e)).Src
		if added[src] == 0 {
			touched = append(touched, src)
		}
		added[src]++
	}
	for _, u := range touched {
		out := g.Out(u)
		if m.derivedOrder(u) && outIncreasing(g, out) {
			continue // still derived: the sorted order is out reversed
		}
		var old []outEntry
		if m.derivedOrder(u) {
			old = rOrder{out: out[:len(out)-added[u]], g: g}.list()
		} else {
			old = m.childOrder(u).list()
		}
		n := len(old)
		l := make([]outEntry, n, n+added[u])
		copy(l, old)
		for _, h := range out[len(out)-added[u]:] {
			l = append(l, outEntry{weight: math.MaxUint64, uniq: g.V(h.Other).UniqID, edge: h.Edge, dst: h.Other, sub: h.Subsystem})
		}
		m.setOrder(u, sortAppended(l, n))
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
