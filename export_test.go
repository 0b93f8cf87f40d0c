package gofluxion

import (
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

func TestWriteJGFRoundTrip(t *testing.T) {
	g := DemoGraph()
	x, _ := New(g, Options{})
	if err := x.SetStatus("/demo0/rack1/node5", false); err != nil {
		t.Fatal(err)
	}
	doc, err := WriteJGF(x.Graph())
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadGraph("jgf", []byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	if h.NumVertices() != g.NumVertices() || h.LiveEdges() != g.LiveEdges() {
		t.Fatalf("read back %d vertices, %d edges; want %d, %d", h.NumVertices(), h.LiveEdges(), g.NumVertices(), g.LiveEdges())
	}
	for v := range g.NumVertices() {
		a, b := g.V(vid(v)), h.V(vid(v))
		if a.Name != b.Name || a.UniqID != b.UniqID || a.Size != b.Size || a.Status != b.Status || a.Paths[0] != b.Paths[0] {
			t.Fatalf("vertex %d: %+v != %+v", v, *a, *b)
		}
	}
	// Fluxion's JGF reader drops "unit", so the first round trip loses
	// units; after that the export is stable.
	second, _ := WriteJGF(h)
	k, err := ReadGraph("jgf", []byte(second), "")
	if err != nil {
		t.Fatal(err)
	}
	if third, _ := WriteJGF(k); third != second {
		t.Errorf("export is not stable after a round trip")
	}
}

func vid(v int) graph.VertexID { return graph.VertexID(v) }
