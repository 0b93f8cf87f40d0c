package emit_test

import (
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

func smallGraph() (*graph.Graph, []graph.VertexID) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("tiny"))
	n := b.MustAdd(c, "node", 1)
	m := b.MustAdd(n, "memory", 7, graph.WithSize(16), graph.WithUnit("GB"))
	h := b.MustAdd(c, "node", 2, graph.WithName("host-x"))
	return b.Graph(), []graph.VertexID{c, n, m, h}
}

func TestSimpleLines(t *testing.T) {
	g, v := smallGraph()
	tests := []struct {
		vx             emit.Vertex
		simple, pretty string
	}{
		{emit.Vertex{ID: v[0], Needs: 1, Level: 1}, "      ---tiny0[1:s]\n", "      ---tiny0[1:shared]\n"},
		{emit.Vertex{ID: v[0], Needs: 1, Exclusive: true, Level: 1}, "      ---tiny0[1:x]\n", "      ---tiny0[1:exclusive]\n"},
		{emit.Vertex{ID: v[2], Needs: 12, Exclusive: true, Level: 3}, "      ---------memory7[12:x]\n", "      ---------memory7[12:exclusive]\n"},
		{emit.Vertex{ID: v[2], Needs: 0, Level: 0}, "      memory7[0:s]\n", "      memory7[0:shared]\n"},
		{emit.Vertex{ID: v[3], Needs: 1, Exclusive: true, ExclParent: true, Level: 2, Label: "l"}, "      ------host-x[1:x]\n", "      ------host-x[1:exclusive]\n"},
		{emit.Vertex{ID: v[1], Needs: -1, Level: 5}, "      ---------------node1[-1:s]\n", "      ---------------node1[-1:shared]\n"},
	}
	for _, tc := range tests {
		for _, p := range []struct {
			w    *emit.Simple
			want string
		}{{emit.NewSimple(), tc.simple}, {emit.NewPrettySimple(), tc.pretty}} {
			p.w.Vertex(g, &tc.vx)
			got, err := p.w.Render()
			if err != nil || got != p.want {
				t.Errorf("%+v: got %q, %v; want %q", tc.vx, got, err, p.want)
			}
		}
	}
}

func TestSimpleOrderAndReset(t *testing.T) {
	g, v := smallGraph()
	seq := []emit.Vertex{
		{ID: v[2], Needs: 16, Exclusive: true, Level: 3},
		{ID: v[1], Needs: 1, Level: 2},
		{ID: v[3], Needs: 1, Exclusive: true, Level: 2},
		{ID: v[0], Needs: 1, Level: 1},
	}
	s, p := emit.NewSimple(), emit.NewPrettySimple()
	for round := 0; round < 2; round++ {
		for i := range seq {
			// The writer must copy what it needs: the matcher reuses the
			// Vertex value.
			vx := seq[i]
			for _, w := range []emit.Writer{s, p} {
				w.Vertex(g, &vx)
				w.Edge(g, 0, false)
			}
			vx.Needs = 99
		}
		s.Times(5, 10)
		s.Attr("queue", "q")
		p.Times(5, 10)
		p.Attr("queue", "q")
		got, err := s.Render()
		want := "      ---------memory7[16:x]\n      ------node1[1:s]\n      ------host-x[1:x]\n      ---tiny0[1:s]\n"
		if err != nil || got != want {
			t.Errorf("round %d simple:\n%s", round, got)
		}
		got, err = p.Render()
		want = "      ---tiny0[1:shared]\n      ------host-x[1:exclusive]\n      ------node1[1:shared]\n      ---------memory7[16:exclusive]\n"
		if err != nil || got != want {
			t.Errorf("round %d pretty:\n%s", round, got)
		}
		// Rendering empties the writers.
		for _, w := range []emit.Writer{s, p} {
			if got, err := w.Render(); got != "" || err != nil {
				t.Errorf("round %d: second Render = %q, %v", round, got, err)
			}
		}
	}
}

func TestSimpleManyLines(t *testing.T) {
	g, v := smallGraph()
	w := emit.NewPrettySimple()
	s := emit.NewSimple()
	for i := 0; i < 1000; i++ {
		vx := emit.Vertex{ID: v[i%4], Needs: int64(i), Level: 1 + i%4}
		w.Vertex(g, &vx)
		s.Vertex(g, &vx)
	}
	pg, _ := w.Render()
	sg, _ := s.Render()
	pl := strings.Split(strings.TrimSuffix(pg, "\n"), "\n")
	sl := strings.Split(strings.TrimSuffix(sg, "\n"), "\n")
	if len(pl) != 1000 || len(sl) != 1000 {
		t.Fatalf("%d / %d lines", len(pl), len(sl))
	}
	for i := range sl {
		p := pl[len(pl)-1-i]
		want := strings.NewReplacer(":s]", ":shared]", ":x]", ":exclusive]").Replace(sl[i])
		if p != want {
			t.Fatalf("line %d: pretty %q, simple %q", i, p, sl[i])
		}
	}
}
