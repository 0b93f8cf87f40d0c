package jgf_test

import (
	"errors"
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

func ExampleRead() {
	doc := `{"graph": {
	  "nodes": [
	    {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "paths": {"containment": "/tiny0"}}},
	    {"id": "1", "metadata": {"type": "node", "name": "host7", "rank": 0, "paths": {"containment": "/tiny0/host7"}}},
	    {"id": "2", "metadata": {"type": "core", "id": 0, "paths": {"containment": "/tiny0/host7/core0"}}},
	    {"id": "3", "metadata": {"type": "memory", "size": 16, "paths": {"containment": "/tiny0/host7/memory3"}}}],
	  "edges": [
	    {"source": "0", "target": "1"},
	    {"source": "1", "target": "2"},
	    {"source": "1", "target": "3", "metadata": {"subsystem": "containment"}}]}}`
	g, err := jgf.Read([]byte(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		vx := g.V(v)
		path, _ := vx.PathIn(graph.Containment)
		fmt.Println(g.TypeName(v), vx.Name, vx.ID, vx.UniqID, vx.Rank, vx.Size, path)
	}
	fmt.Println("root:", g.V(g.Root(graph.Containment)).Name)
	// Output:
	// cluster tiny0 0 0 -1 1 /tiny0
	// node host7 7 1 0 1 /tiny0/host7
	// core core0 0 2 -1 1 /tiny0/host7/core0
	// memory memory3 3 3 -1 16 /tiny0/host7/memory3
	// root: tiny0
}

func ExampleError_Fluxion() {
	_, err := jgf.Read([]byte(`{"graph": {"nodes": [{"id": "1", "metadata": {"type": "node"}}], "edges": []}}`))
	fmt.Println(err)
	fmt.Printf("%q\n", err.(*jgf.Error).Fluxion())
	// Output:
	// jgf: node 0 (id "1"): malformed metadata: missing required key "paths"
	// "fill_fetcher: malformed metadata in an JGF node for 1\n"
}

func ExampleLoad() {
	g, _ := jgf.Read([]byte(`{"graph": {"nodes": [
	  {"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
	  {"id": "1", "metadata": {"type": "node", "paths": {"containment": "/c0/node1"}}}],
	  "edges": [{"source": "0", "target": "1"}]}}`))
	// Attach: /c0 exists with the same rank and is reused; node2 is new.
	doc, err := jgf.Parse([]byte(`{"graph": {"nodes": [
	  {"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
	  {"id": "2", "metadata": {"type": "node", "paths": {"containment": "/c0/node2"}}}],
	  "edges": [{"source": "0", "target": "2"}]}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := jgf.Load(g, doc); err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range g.Out(g.Root(graph.Containment)) {
		fmt.Println(g.V(h.Other).Name)
	}
	// Output:
	// node1
	// node2
}

// The default reader is strict; Options{Fluxion: true} reads what Fluxion
// reads (resource-query uses it), here a negative size that wraps to 32
// bits.
func ExampleOptions() {
	doc := []byte(`{"graph": {"nodes": [
		{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
		{"id": "1", "metadata": {"type": "memory", "size": -5, "paths": {"containment": "/c0/memory1"}}}],
	 "edges": [{"source": "0", "target": "1"}]}}`)
	_, err := jgf.Read(doc)
	fmt.Println(err)
	g, err := jgf.Options{Fluxion: true}.Read(doc)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.V(1).Size)
	_, err = jgf.Options{MaxVertices: 1}.Read(doc)
	fmt.Println(errors.Is(err, jgf.ErrLimit))
	// Output:
	// jgf: node 1 (id "1"): field "size": -5 is negative (only the sentinel -1, meaning absent, may be negative)
	// 4294967291
	// true
}
