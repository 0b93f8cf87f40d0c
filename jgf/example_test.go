package jgf_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// A node taken exclusively with its core, in both JGF forms: the shorthand
// leaves out what lies below an exclusive vertex.
func ExampleWriter() {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("tiny"))
	n := b.MustAdd(c, "node", 1, graph.WithProperty("perf", "x"))
	core := b.MustAdd(n, "core", 35)
	g := b.Graph()
	edge := func(src, dst graph.VertexID) graph.EdgeID { e, _ := g.FindEdge(src, dst); return e }

	for _, w := range []*jgf.Writer{jgf.NewWriter(), jgf.NewShorthandWriter()} {
		// Post-order, each edge after its child's subtree.
		w.Vertex(g, &emit.Vertex{ID: core, Needs: 1, Exclusive: true, ExclParent: true, Level: 3})
		w.Edge(g, edge(n, core), true)
		w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Exclusive: true, Level: 2})
		w.Edge(g, edge(c, n), false)
		w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Level: 1})
		out, err := w.Render()
		fmt.Print(out, err, "\n")
	}
	// Output:
	// {"graph": {"nodes": [{"id": "2", "metadata": {"type": "core", "id": 35, "rank": -1, "exclusive": true, "paths": {"containment": "/tiny0/node1/core35"}}}, {"id": "1", "metadata": {"type": "node", "id": 1, "rank": 0, "properties": {"perf": "x"}, "exclusive": true, "paths": {"containment": "/tiny0/node1"}}}, {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "id": 0, "rank": -1, "paths": {"containment": "/tiny0"}}}], "edges": [{"source": "1", "target": "2"}, {"source": "0", "target": "1"}]}}
	// <nil>
	// {"graph": {"nodes": [{"id": "1", "metadata": {"type": "node", "id": 1, "rank": 0, "properties": {"perf": "x"}, "exclusive": true, "paths": {"containment": "/tiny0/node1"}}}, {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "id": 0, "rank": -1, "paths": {"containment": "/tiny0"}}}], "edges": [{"source": "0", "target": "1"}]}, "writer": "fluxion:jgf_shorthand"}
	// <nil>
}
