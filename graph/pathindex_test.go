package graph

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"
)

// TestPathIndexModel drives the path index with random vertex additions
// (one or two paths, often repeated), AddPath, Unindex, Clone and an
// Export/Import round trip, and compares every lookup and the key count
// with a map from path to vertex list, the index's reference.
func TestPathIndexModel(t *testing.T) {
	for seed := range int64(300) {
		rng := rand.New(rand.NewSource(seed))
		g := New()
		g.Subsystem("power")
		g.Subsystem("ibnet")
		ref := map[string][]VertexID{}
		paths := []string{}
		newPath := func() string {
			if len(paths) > 0 && rng.Intn(4) == 0 {
				return paths[rng.Intn(len(paths))] // a repeat
			}
			p := fmt.Sprintf("/c0/n%d", rng.Intn(1000))
			paths = append(paths, p)
			return p
		}
		check := func(when string) {
			t.Helper()
			for _, p := range append(slices.Clone(paths), "/nosuch") {
				if got, want := g.ByPath(p), ref[p]; !slices.Equal(got, want) {
					t.Fatalf("seed %d %s: ByPath(%s) = %v, want %v", seed, when, p, got, want)
				}
			}
			if _, _, n := g.IndexSizes(); n != len(ref) {
				t.Fatalf("seed %d %s: %d keys, want %d", seed, when, n, len(ref))
			}
		}
		for step := range 200 {
			switch k := rng.Intn(10); {
			case k < 5 || g.NumVertices() == 0:
				v := Vertex{Name: "n", Paths: []Path{{Containment, newPath()}}}
				if rng.Intn(5) == 0 {
					v.Paths = append(v.Paths, Path{1, newPath()})
				}
				var id VertexID
				if rng.Intn(2) == 0 {
					id = g.AddVertex(v)
				} else {
					// Hinted: hints looked up just before, sometimes made
					// stale by a change in between, or taken from a clone.
					from := g
					if rng.Intn(8) == 0 {
						from = g.Clone()
					}
					hints := make([]PathHint, len(v.Paths))
					for i, p := range v.Paths {
						if got := from.ByPathHint(p.Path, &hints[i]); !slices.Equal(got, ref[p.Path]) {
							t.Fatalf("seed %d step %d: ByPathHint(%s) = %v, want %v", seed, step, p.Path, got, ref[p.Path])
						}
					}
					if rng.Intn(4) == 0 {
						u := g.AddVertex(Vertex{Name: "n", Paths: []Path{{Containment, newPath()}}})
						ref[g.V(u).Paths[0].Path] = append(ref[g.V(u).Paths[0].Path], u)
					}
					if from != g && rng.Intn(2) == 0 {
						from.AddVertex(Vertex{Name: "n", Paths: []Path{{Containment, newPath()}}})
					}
					id = g.AddVertexHinted(v, hints)
				}
				for _, p := range v.Paths {
					ref[p.Path] = append(ref[p.Path], id)
				}
			case k < 7:
				v := VertexID(rng.Intn(g.NumVertices()))
				s := SubsystemID(rng.Intn(3))
				p := newPath()
				g.AddPath(v, s, p)
				ref[p] = append(ref[p], v)
			case k < 8:
				v := VertexID(rng.Intn(g.NumVertices()))
				for _, p := range g.V(v).Paths {
					delete(ref, p.Path)
				}
				g.Unindex(v)
			case k < 9:
				g = g.Clone()
			default:
				h, err := Import(g.Export())
				if err != nil {
					t.Fatal(err)
				}
				g = h
			}
			check(fmt.Sprint("step ", step))
		}
		// Export lists every key with its list, sorted.
		d := g.Export()
		got := map[string][]VertexID{}
		for _, e := range d.ByPath {
			got[e.Key] = e.Vertices
		}
		if !maps.EqualFunc(got, ref, slices.Equal) {
			t.Fatalf("seed %d: Export's path index differs from the reference", seed)
		}
	}
}

// TestPathIndexStableSlices: a list ByPath returned does not change when
// its key is deleted and the slot could be reused.
func TestPathIndexStableSlices(t *testing.T) {
	g := New()
	a := g.AddVertex(Vertex{Paths: []Path{{Containment, "/a"}}})
	l := g.ByPath("/a")
	g.Unindex(a)
	for i := range 100 {
		g.AddVertex(Vertex{Paths: []Path{{Containment, fmt.Sprint("/b", i)}}})
	}
	if !slices.Equal(l, []VertexID{a}) {
		t.Errorf("a returned list changed to %v", l)
	}
}
