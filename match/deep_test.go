package match

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// chainGraph is cluster0 → level0 → level1 → … (depth levels, the types
// alternating between two names) → node0 → core0.
func chainGraph(depth int) *graph.Graph {
	b := graph.NewBuilder()
	v := b.MustAdd(graph.NoVertex, "cluster", 0)
	for i := 0; i < depth; i++ {
		typ := "levela"
		if i%2 == 1 {
			typ = "levelb"
		}
		v = b.MustAdd(v, typ, int64(i))
	}
	n := b.MustAdd(v, "node", 0)
	b.MustAdd(n, "core", 0)
	return b.Graph()
}

// TestDeepChainMemoryLinear matches one core at the bottom of chains of
// 2,500 and 5,000 levels: the walk's memory must grow linearly with the
// depth (it grew with its square: 745 MiB at 5,000), under the reference
// walk as well as best-first. The simple writer's text itself is quadratic
// (it indents by depth), so the walk is measured with a discarding one.
func TestDeepChainMemoryLinear(t *testing.T) {
	alloc := func(depth int, pol string, ref bool) uint64 {
		g := chainGraph(depth)
		m := newMatcher(t, g, pol)
		m.exhaustive = ref
		js := mkjs(t, g, "node[1]->slot[1]->core[1]", 3600)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := m.Match(Allocate, js, 1, 0, emit.Discard); err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, pol := range []string{"first", "high", "lonode"} {
		for _, ref := range []bool{false, true} {
			a, b := alloc(2500, pol, ref), alloc(5000, pol, ref)
			// Twice the depth: about twice the memory (four times when
			// quadratic), and a bound that the quadratic walk exceeded
			// tenfold.
			if b > 3*a || b > 128<<20 {
				t.Errorf("%s (reference %v): one match allocated %d KiB at depth 2,500, %d KiB at 5,000", pol, ref, a>>10, b>>10)
			}
		}
	}
}

// TestTooDeepGraph: New refuses a graph deeper than graph.MaxDepth (the
// walks recurse once per level) with an error naming the bound.
func TestTooDeepGraph(t *testing.T) {
	g := bareChain(graph.MaxDepth + 1)
	_, err := New(g, Options{Policy: "high"})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "graph.MaxDepth") {
		t.Fatalf("New on a %d-level chain: %v, want a ConfigError naming graph.MaxDepth", graph.MaxDepth+1, err)
	}
	if _, err := New(bareChain(graph.MaxDepth), Options{Policy: "high"}); err != nil {
		t.Fatalf("New at the bound: %v", err)
	}
}

// bareChain is a chain of depth edges below a cluster root, without paths
// (whose text grows with the depth).
func bareChain(depth int) *graph.Graph {
	g := graph.New()
	ct := g.Subsystem("containment")
	prev := g.AddVertex(graph.Vertex{Type: g.Type("cluster"), Size: 1, Rank: -1, Name: "c"})
	if err := g.SetRoot(ct, prev); err != nil {
		panic(err)
	}
	for i := 0; i < depth; i++ {
		v := g.AddVertex(graph.Vertex{Type: g.Type("core"), ID: int64(i), Size: 1, Rank: -1, Name: "x"})
		g.AddEdge(prev, v, ct)
		prev = v
	}
	return g
}
