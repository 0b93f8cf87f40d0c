package graph

import (
	"math/rand"
	"slices"
	"testing"
)

// TestAdjacencyModel drives the pooled adjacency lists with random adds
// (bursts to one vertex, as readers add children, and scattered ones),
// removals, retags, clones and compactions, and compares every list with
// a slice-of-slices reference.
func TestAdjacencyModel(t *testing.T) {
	for seed := range int64(200) {
		rng := rand.New(rand.NewSource(seed))
		var a adjacency
		var ref [][]Half
		e := EdgeID(0)
		for step := range 400 {
			switch k := rng.Intn(10); {
			case k < 2 || len(ref) == 0:
				a.addVertex()
				ref = append(ref, nil)
			case k < 6:
				v := VertexID(rng.Intn(len(ref)))
				for range 1 + rng.Intn(3)*rng.Intn(20) {
					h := Half{Edge: e, Other: VertexID(rng.Intn(100)), Subsystem: SubsystemID(rng.Intn(2))}
					e++
					a.add(v, h)
					ref[v] = append(ref[v], h)
				}
			case k < 8:
				v := VertexID(rng.Intn(len(ref)))
				if len(ref[v]) > 0 {
					x := ref[v][rng.Intn(len(ref[v]))].Edge
					a.remove(v, x)
					ref[v] = slices.DeleteFunc(ref[v], func(h Half) bool { return h.Edge == x })
				}
			case k < 9:
				v := VertexID(rng.Intn(len(ref)))
				if len(ref[v]) > 0 {
					x := ref[v][rng.Intn(len(ref[v]))].Edge
					a.retag(v, x, 7)
					for i := range ref[v] {
						if ref[v][i].Edge == x {
							ref[v][i].Subsystem = 7
						}
					}
				}
			default:
				if rng.Intn(2) == 0 {
					a = a.clone()
				} else {
					a.compact()
				}
			}
			for v := range ref {
				if got := a.of(VertexID(v)); !slices.Equal(got, ref[v]) {
					t.Fatalf("seed %d step %d: list %d = %v, want %v", seed, step, v, got, ref[v])
				}
			}
			if a.waste > 1024 && 2*a.waste > len(a.pool) {
				t.Fatalf("seed %d step %d: waste %d of %d not reclaimed", seed, step, a.waste, len(a.pool))
			}
		}
	}
}
