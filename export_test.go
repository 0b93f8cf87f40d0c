package gofluxion

import (
	"bytes"
	"errors"
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

// TestRestoreBoundsDecompression checks that a snapshot expanding past the
// bound is refused with ErrSnapshot and ErrLimit (a gzip bomb).
func TestRestoreBoundsDecompression(t *testing.T) {
	x, _ := New(DemoGraph(), Options{})
	var b bytes.Buffer
	if err := x.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	defer func(n int64) { restoreMaxBytes = n }(restoreMaxBytes)
	restoreMaxBytes = 1 << 10
	_, err := Restore(bytes.NewReader(b.Bytes()))
	if !errors.Is(err, ErrSnapshot) || !errors.Is(err, ErrLimit) {
		t.Fatalf("Restore of a snapshot above the bound: %v, want ErrSnapshot and ErrLimit", err)
	}
	restoreMaxBytes = 1 << 30
	if _, err := Restore(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("Restore below the bound: %v", err)
	}
}
