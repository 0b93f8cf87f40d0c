package match

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/randstream"
)

// perfMode is how perfProps spreads perf_class properties (the variation
// policy's scores) over a graph.
type perfMode int

const (
	perfNone   perfMode = iota
	perfTies            // every vertex, classes 0 and 1: long runs of ties
	perfSparse          // a third of the vertices, classes 0..4 (randstream's)
	perfWide            // most vertices, classes over the whole 0..9999 range, out of it and unparsable
)

// perfValue draws a perf_class value for mode.
func perfValue(rng *rand.Rand, mode perfMode) string {
	switch mode {
	case perfTies:
		return fmt.Sprint(rng.Intn(2))
	case perfSparse:
		return fmt.Sprint(rng.Intn(5))
	}
	switch rng.Intn(8) {
	case 0:
		return "x"
	case 1:
		return fmt.Sprint(10000 + rng.Intn(100))
	case 2:
		return fmt.Sprint(-1 - rng.Intn(3))
	case 3:
		return " +" + fmt.Sprint(rng.Intn(10))
	}
	return fmt.Sprint(rng.Intn(10000))
}

// perfProps sets the perf_class properties of g for mode, before any
// matcher sees g.
func perfProps(rng *rand.Rand, g *graph.Graph, mode perfMode) {
	for v := 0; v < g.NumVertices(); v++ {
		switch {
		case mode == perfSparse && rng.Intn(3) != 0:
			continue
		case mode == perfWide && rng.Intn(5) == 0:
			continue
		}
		g.V(graph.VertexID(v)).SetProp("perf_class", perfValue(rng, mode))
	}
}

// TestDifferentialVariation compares the best-first and reference walks
// under the variation policy on graphs whose vertices carry perf classes
// with many ties, a sparse spread or a wide one, changed between
// operations (the policy caches scores by vertex until the graph's
// generation moves), on mixed and failure-heavy (partly busy) streams.
func TestDifferentialVariation(t *testing.T) {
	small, large := 12, 1
	if testing.Short() {
		small, large = 4, 0
	}
	if *diffLong {
		small, large = 120, 4
	}
	for _, mode := range []perfMode{perfTies, perfSparse, perfWide} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			defer func(n int) { minSkip = n }(minSkip)
			n := 0
			for s := int64(1); s <= int64(small); s++ {
				minSkip = []int{2, 32}[s%2]
				n += diffRun(t, diffCase{policy: "variation", seed: 7100 + s, shape: randstream.Small, nops: 80, heavy: s%2 == 0, fresh: true, clone: s%4 == 0, perf: mode})
			}
			minSkip = 32
			for s := int64(1); s <= int64(large); s++ {
				n += diffRun(t, diffCase{policy: "variation", seed: 7200 + s, shape: randstream.Large, nops: 100, heavy: s%2 == 0, perf: mode})
			}
			t.Logf("%d matches, %d selections decided best-first", n, diffHits)
			diffHits = 0
		})
	}
}
