package graph

import (
	"fmt"
	"math/rand"
	"slices"
	"sync"
	"testing"
)

// TestByNameModel: the name index, brought up to date only when read,
// answers as the index built vertex by vertex (the reference, a map),
// through additions, Unindex (which removes a vertex once), Clone and an
// Export/Import round trip, read at random moments.
func TestByNameModel(t *testing.T) {
	for seed := range int64(200) {
		rng := rand.New(rand.NewSource(seed))
		g := New()
		ref := map[string][]VertexID{}
		name := func() string { return fmt.Sprint("n", rng.Intn(20)) }
		for step := range 150 {
			switch k := rng.Intn(10); {
			case k < 6 || g.NumVertices() == 0:
				n := name()
				v := g.AddVertex(Vertex{Name: n})
				ref[n] = append(ref[n], v)
			case k < 8:
				v := VertexID(rng.Intn(g.NumVertices()))
				n := g.V(v).Name
				if i := slices.Index(ref[n], v); i >= 0 {
					ref[n] = slices.Delete(ref[n], i, i+1)
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
			if rng.Intn(3) > 0 {
				continue // not read at every step
			}
			for i := range 20 {
				n := fmt.Sprint("n", i)
				if got, want := g.ByName(n), ref[n]; !slices.Equal(got, want) {
					t.Fatalf("seed %d step %d: ByName(%s) = %v, want %v", seed, step, n, got, want)
				}
			}
			if _, got, _ := g.IndexSizes(); got != len(ref) {
				t.Fatalf("seed %d step %d: %d names, want %d", seed, step, got, len(ref))
			}
		}
	}
}

// TestByNameConcurrentReaders: readers may bring the name index up to
// date at the same time (run with -race).
func TestByNameConcurrentReaders(t *testing.T) {
	g := New()
	for i := range 1000 {
		g.AddVertex(Vertex{Name: fmt.Sprint("n", i%10)})
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l := g.ByName("n3"); len(l) != 100 || l[0] != 3 {
				t.Errorf("ByName(n3) = %d vertices from %v", len(l), l[:min(len(l), 1)])
			}
		}()
	}
	wg.Wait()
}
