package rv1_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/rv1"
)

// Two nodes with the same cores share an R_lite entry.
func ExampleNewWriter() {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	var nodes []graph.VertexID
	for n := int64(0); n < 2; n++ {
		nodes = append(nodes, b.MustAdd(c, "node", n, graph.WithProperty("arch", "x86")))
	}
	g := b.Graph()
	var cores [][]graph.VertexID
	for _, n := range nodes {
		var l []graph.VertexID
		for i := int64(0); i < 4; i++ {
			l = append(l, b.MustAdd(n, "core", i))
		}
		cores = append(cores, l)
	}

	for _, f := range []rv1.Format{rv1.RLite, rv1.RV1NoSched} {
		w := rv1.NewWriter(f)
		for i, n := range nodes {
			for _, core := range cores[i][1:3] {
				w.Vertex(g, &emit.Vertex{ID: core, Needs: 1, Exclusive: true, Level: 3})
			}
			w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Level: 2})
		}
		w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Level: 1})
		w.Times(0, 3600)
		out, err := w.Render()
		fmt.Print(out, err, "\n")
	}
	// Output:
	// [{"rank": "0-1", "children": {"core": "1-2"}}]
	// <nil>
	// {"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "1-2"}}], "nodelist": ["node[0-1]"], "properties": {"arch=x86": "0-1"}, "starttime": 0, "expiration": 3600}}
	// <nil>
}

func ExampleReadExec() {
	g, err := rv1.ReadExec([]byte(`{"version": 1, "execution": {
	  "R_lite": [{"rank": "0-1", "children": {"core": "0-1", "gpu": "0"}}],
	  "nodelist": ["node[7-8]"], "properties": {"fast": "1"}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		vx := g.V(v)
		path, _ := vx.PathIn(graph.Containment)
		fmt.Println(path, vx.ID, vx.Rank, vx.Props())
	}
	// Output:
	// /cluster0 0 -1 []
	// /cluster0/node7 7 0 []
	// /cluster0/node7/core0 0 0 []
	// /cluster0/node7/core1 1 0 []
	// /cluster0/node7/gpu0 0 0 []
	// /cluster0/node8 8 1 [{fast }]
	// /cluster0/node8/core0 0 1 []
	// /cluster0/node8/core1 1 1 []
	// /cluster0/node8/gpu0 0 1 []
}
