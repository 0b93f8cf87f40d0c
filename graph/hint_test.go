package graph

import (
	"slices"
	"testing"
)

// A hint looked up for another path is ignored, not used to file the
// vertex under that path's hash (found by review).
func TestMismatchedHintIgnored(t *testing.T) {
	g := New()
	var h PathHint
	g.ByPathHint("/a", &h)
	v := g.AddVertexHinted(Vertex{Name: "b0", Paths: []Path{{Containment, "/b"}}}, []PathHint{h})
	if got := g.ByPath("/b"); !slices.Equal(got, []VertexID{v}) {
		t.Fatalf("ByPath(/b) = %v, want [%d]", got, v)
	}
	if got := g.ByPath("/a"); len(got) != 0 {
		t.Fatalf("ByPath(/a) = %v, want none", got)
	}
}
