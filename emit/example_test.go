package emit_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// The matcher emits in post-order: here a core taken exclusively, its
// socket and node shared.
func Example() {
	b := graph.NewBuilder()
	n := b.MustAdd(graph.NoVertex, "node", 0)
	s := b.MustAdd(n, "socket", 1)
	c := b.MustAdd(s, "core", 35)
	g := b.Graph()

	emitAll := func(w emit.Writer) {
		w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Exclusive: true, Level: 3})
		w.Vertex(g, &emit.Vertex{ID: s, Needs: 1, Level: 2})
		w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Level: 1})
		w.Times(0, 3600)
	}
	for _, w := range []emit.Writer{emit.NewSimple(), emit.NewPrettySimple()} {
		emitAll(w)
		out, _ := w.Render()
		fmt.Print(out)
	}
	// Output:
	//       ---------core35[1:x]
	//       ------socket1[1:s]
	//       ---node0[1:s]
	//       ---node0[1:shared]
	//       ------socket1[1:shared]
	//       ---------core35[1:exclusive]
}
