package gofluxion

import (
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// WriteJGF renders the whole graph as one JGF document: every vertex in
// index order (so reading it back with ReadGraph("jgf", …) gives the same
// vertex numbering and uniq_ids), its status when not up, and every edge in
// creation order. Removed subgraphs are left out.
func WriteJGF(g *graph.Graph) (string, error) {
	if g == nil {
		return "", invalidf("write jgf", "graph is nil")
	}
	w := jgf.NewWriter()
	w.Status = true
	live := make([]bool, g.NumVertices())
	for _, s := range g.RootSubsystems() {
		markReachable(g, g.Root(s), live)
	}
	for v := range g.NumVertices() {
		if live[v] {
			w.Vertex(g, &emit.Vertex{ID: graph.VertexID(v), Needs: g.V(graph.VertexID(v)).Size})
		}
	}
	for e := range g.NumEdges() {
		ed := g.E(graph.EdgeID(e))
		if ed.Live() && live[ed.Src] && live[ed.Dst] {
			w.Edge(g, graph.EdgeID(e), false)
		}
	}
	s, err := w.Render()
	if err != nil {
		return "", fromMatch("write jgf", err)
	}
	return s, nil
}

func markReachable(g *graph.Graph, v graph.VertexID, seen []bool) {
	if v == graph.NoVertex || seen[v] {
		return
	}
	seen[v] = true
	for _, h := range g.Out(v) {
		markReachable(g, h.Other, seen)
	}
}
