package jgf_test

import (
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// Round-trip property test: a random graph rendered whole by the jgf writer,
// read back with jgf.Read and rendered again gives the same bytes.
//
//	go test ./jgf -run RoundTrip -roundtrip.n 20000 -roundtrip.seed 7
var (
	roundtripN    = flag.Int("roundtrip.n", 0, "random graphs of the round-trip test (0: a quick default)")
	roundtripSeed = flag.Int64("roundtrip.seed", 1, "seed of the round-trip test")
)

func roundtripGraphs() int {
	if *roundtripN > 0 {
		return *roundtripN
	}
	if testing.Short() {
		return 50
	}
	return 400
}

// renderWhole emits every vertex reachable from the containment root in
// post-order (children in out-edge order, each child's edge right after its
// subtree), each taken exclusively with needs = its size, as the matcher's
// update walk does for a whole-graph selection, and renders the result.
func renderWhole(t *testing.T, g *graph.Graph, w *jgf.Writer) string {
	t.Helper()
	root := g.Root(graph.Containment)
	if root == graph.NoVertex {
		t.Fatal("graph has no containment root")
	}
	var walk func(v graph.VertexID, level int, exclParent bool)
	walk = func(v graph.VertexID, level int, exclParent bool) {
		for _, h := range g.Out(v) {
			if h.Subsystem != graph.Containment {
				continue
			}
			walk(h.Other, level+1, true)
			w.Edge(g, h.Edge, true)
		}
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Exclusive: true, ExclParent: exclParent, Level: level})
	}
	walk(root, 1, false)
	out, err := w.Render()
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return out
}

// rtGen generates random graphs: cluster → 1-3 racks → 1-4 nodes → 0-2
// sockets → 0-4 cores, 0-2 gpus and 0-2 memory pools, with random
// basenames, names, ids, sizes, ranks and properties. Names are unique
// among siblings, so every vertex has its own path (two vertices with the
// same path and rank would be merged by the reader, as in Fluxion).
type rtGen struct {
	rng   *rand.Rand
	units bool // give memory pools a unit
}

// Strings that exercise the JSON escaping of both the writer and the
// reader: quotes, backslashes, control characters, non-ASCII text.
var rtStrings = []string{
	"a", "perf_class", "x y", `q"uote`, `back\slash`, "tab\there", "nl\nx",
	"ctl\x01\x1f", "é", "日本語", "emoji😀", "slash/inside", "=", "0", "-1",
	"</script>", "\u2028sep", "del\x7f",
}

func (r *rtGen) str() string { return rtStrings[r.rng.Intn(len(rtStrings))] }

// id returns a random local id. -2 is avoided: a JGF "id": -2 means
// "absent" (spec formats.md §2) and would be replaced by the uniq_id.
func (r *rtGen) id() int64 {
	switch r.rng.Intn(8) {
	case 0:
		return -1
	case 1:
		return int64(r.rng.Uint64() >> 1) // up to 2^63-1
	case 2:
		return -3 - r.rng.Int63n(1000)
	}
	return r.rng.Int63n(100)
}

// rank returns a random rank (never -2, which the builder takes as
// "default").
func (r *rtGen) rank(def bool) []graph.Option {
	switch r.rng.Intn(6) {
	case 0:
		return []graph.Option{graph.WithRank(-1)}
	case 1:
		return []graph.Option{graph.WithRank(r.rng.Int63n(1 << 40))}
	case 2:
		return []graph.Option{graph.WithRank(-3 - r.rng.Int63n(5))}
	case 3:
		if def {
			return nil // builder default: node ranks 0, 1, ..., others -1
		}
	}
	return []graph.Option{graph.WithRank(r.rng.Int63n(64))}
}

// size returns a random pool size. Sizes are unsigned 32-bit numbers in
// Fluxion, so the largest round-trippable one is 2^32-1.
func (r *rtGen) size() int64 {
	switch r.rng.Intn(6) {
	case 0:
		return 1<<32 - 1
	case 1:
		return 1 + r.rng.Int63n(1<<31)
	}
	return 1 + r.rng.Int63n(64)
}

func (r *rtGen) add(b *graph.Builder, parent graph.VertexID, typ string, used map[string]bool, extra ...graph.Option) graph.VertexID {
	for {
		id := r.id()
		var opts []graph.Option
		basename := typ
		if r.rng.Intn(4) == 0 {
			// A basename other than the type; never empty (an empty
			// basename counts as absent and defaults to the type).
			basename = []string{"b", typ + "x", "rack", "node", "n-", "é"}[r.rng.Intn(6)]
			opts = append(opts, graph.WithBasename(basename))
		}
		name := graph.DefaultName(basename, id)
		if r.rng.Intn(5) == 0 {
			// An explicit name, which need not be basename+id.
			name = []string{"host", "n007", "x", "weird name", "node12", "q\"n"}[r.rng.Intn(6)] + fmt.Sprint(r.rng.Intn(50))
			opts = append(opts, graph.WithName(name))
		}
		if parent == graph.NoVertex && strings.Contains(name, "/") {
			continue
		}
		if used[name] {
			continue
		}
		used[name] = true
		opts = append(opts, r.rank(true)...)
		for range r.rng.Intn(4) {
			opts = append(opts, graph.WithProperty(r.str(), r.str()))
		}
		opts = append(opts, extra...)
		return b.MustAdd(parent, typ, id, opts...)
	}
}

func (r *rtGen) graph() *graph.Graph {
	b := graph.NewBuilder()
	root := r.add(b, graph.NoVertex, "cluster", map[string]bool{})
	racks := map[string]bool{}
	for range 1 + r.rng.Intn(3) {
		rack := r.add(b, root, "rack", racks)
		nodes := map[string]bool{}
		for range 1 + r.rng.Intn(4) {
			node := r.add(b, rack, "node", nodes)
			socks := map[string]bool{}
			for range r.rng.Intn(3) {
				s := r.add(b, node, "socket", socks, graph.WithSize(1+r.rng.Int63n(2)))
				kids := map[string]bool{}
				for range r.rng.Intn(5) {
					r.add(b, s, "core", kids)
				}
				for range r.rng.Intn(3) {
					r.add(b, s, "gpu", kids)
				}
				for range r.rng.Intn(3) {
					opts := []graph.Option{graph.WithSize(r.size())}
					if r.units && r.rng.Intn(2) == 0 {
						opts = append(opts, graph.WithUnit("GB"))
					}
					r.add(b, s, "memory", kids, opts...)
				}
			}
		}
	}
	return b.Graph()
}

func TestJGFRoundTrip(t *testing.T) {
	n := roundtripGraphs()
	gen := &rtGen{rng: rand.New(rand.NewSource(*roundtripSeed))}
	for i := 0; i < n; i++ {
		g := gen.graph()
		first := renderWhole(t, g, jgf.NewWriter())
		g2, err := jgf.Read([]byte(first))
		if err != nil {
			t.Fatalf("graph %d: jgf.Read of the writer's output: %v\n%s", i, err, first)
		}
		if g2.NumVertices() != g.NumVertices() || g2.LiveEdges() != g.LiveEdges() {
			t.Errorf("graph %d: read back %d vertices, %d edges; wrote %d, %d",
				i, g2.NumVertices(), g2.LiveEdges(), g.NumVertices(), g.LiveEdges())
		}
		second := renderWhole(t, g2, jgf.NewWriter())
		if second != first {
			t.Fatalf("graph %d: write → read → write differs:\nfirst:  %s\nsecond: %s", i, first, second)
		}
		// The graph read back has the same vertices (matched by uniq_id:
		// the reader creates them in document order, i.e. post-order).
		byUniq := map[int64]graph.VertexID{}
		for v := 0; v < g2.NumVertices(); v++ {
			byUniq[g2.V(graph.VertexID(v)).UniqID] = graph.VertexID(v)
		}
		for v := 0; v < g.NumVertices(); v++ {
			a := g.V(graph.VertexID(v))
			v2, ok := byUniq[a.UniqID]
			if !ok {
				t.Fatalf("graph %d: uniq_id %d not read back", i, a.UniqID)
			}
			b := g2.V(v2)
			if g.TypeName(graph.VertexID(v)) != g2.TypeName(v2) || a.Basename != b.Basename || a.Name != b.Name ||
				a.ID != b.ID || a.Rank != b.Rank || a.Size != b.Size || a.Status != b.Status ||
				fmt.Sprint(a.Props()) != fmt.Sprint(b.Props()) || fmt.Sprint(a.Paths) != fmt.Sprint(b.Paths) {
				t.Fatalf("graph %d: vertex %d read back as\n%+v\nwant\n%+v", i, v, *b, *a)
			}
		}
		if g2.Root(graph.Containment) == graph.NoVertex || g2.V(g2.Root(graph.Containment)).UniqID != g.V(g.Root(graph.Containment)).UniqID {
			t.Fatalf("graph %d: wrong containment root after reading", i)
		}
	}
}

// Units are parsed but never stored by the JGF reader (spec formats.md §2),
// so a graph with units loses them on the first round trip and is stable
// from then on.
func TestJGFRoundTripUnits(t *testing.T) {
	n := max(roundtripGraphs()/4, 10)
	gen := &rtGen{rng: rand.New(rand.NewSource(*roundtripSeed + 1)), units: true}
	sawUnit := false
	for i := 0; i < n; i++ {
		g := gen.graph()
		first := renderWhole(t, g, jgf.NewWriter())
		sawUnit = sawUnit || strings.Contains(first, `"unit": "GB"`)
		g2, err := jgf.Read([]byte(first))
		if err != nil {
			t.Fatalf("graph %d: jgf.Read: %v\n%s", i, err, first)
		}
		second := renderWhole(t, g2, jgf.NewWriter())
		if want := strings.ReplaceAll(first, `, "unit": "GB"`, ""); second != want {
			t.Fatalf("graph %d: second rendering is not the first without units:\nwant:   %s\nsecond: %s", i, want, second)
		}
		g3, err := jgf.Read([]byte(second))
		if err != nil {
			t.Fatalf("graph %d: second jgf.Read: %v", i, err)
		}
		if third := renderWhole(t, g3, jgf.NewWriter()); third != second {
			t.Fatalf("graph %d: not stable after the first round trip:\nsecond: %s\nthird:  %s", i, second, third)
		}
	}
	if !sawUnit {
		t.Error("no graph had a unit")
	}
}
