package match

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
)

// refGrowOrder is the dynamic child order as attach built it before it
// sorted each source once: every new edge appended and the source's list
// sorted again. It returns the orders of all vertices given the orders
// before the attach (old) and the graph after it.
func refGrowOrder(old [][]outEntry, g *graph.Graph, ne int) [][]outEntry {
	out := make([][]outEntry, g.NumVertices())
	for v, l := range old {
		out[v] = slices.Clone(l)
	}
	for e := ne; e < g.NumEdges(); e++ {
		ed := g.E(graph.EdgeID(e))
		l := append(out[ed.Src], outEntry{weight: ^uint64(0), uniq: g.V(ed.Dst).UniqID, edge: graph.EdgeID(e), dst: ed.Dst, sub: ed.Subsystem})
		sortOut(l)
		out[ed.Src] = l
	}
	return out
}

// TestAttachOrderCorpus replays the attaches of the conformance-ops corpus
// (after a few allocations, so weights differ) and checks that the child
// order after each attach is exactly the one sorting after every new edge
// gave.
func TestAttachOrderCorpus(t *testing.T) {
	dirs, _ := filepath.Glob("../../shared/conformance-ops/data/ops/*")
	if len(dirs) == 0 {
		t.Skip("no ../shared/conformance-ops corpus")
	}
	cases := 0
	for _, dir := range dirs {
		attaches, _ := filepath.Glob(filepath.Join(dir, "attach*.json"))
		if len(attaches) == 0 {
			continue
		}
		g, err := grug.ReadFile(filepath.Join(dir, "graph.graphml"))
		if err != nil {
			continue
		}
		for _, pol := range []string{"first"} {
			m, err := New(g.Clone(), Options{Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			specs, _ := filepath.Glob(filepath.Join(dir, "js*.yaml"))
			for i, f := range specs {
				data, _ := os.ReadFile(f)
				js, err := jobspec.Parse(data, jobspec.Options{})
				if err == nil {
					m.Match(AllocateOrElseReserve, js, uint64(i+1), 0, emit.Discard)
				}
			}
			for _, f := range attaches {
				data, _ := os.ReadFile(f)
				doc, err := jgf.Parse(data)
				if err != nil {
					continue
				}
				old := make([][]outEntry, m.g.NumVertices())
				for v := range old {
					old[v] = m.childOrder(graph.VertexID(v)).list()
				}
				ne := m.g.NumEdges()
				if err := m.Attach(doc); err != nil {
					continue
				}
				want := refGrowOrder(old, m.g, ne)
				for v := range want {
					got := m.childOrder(graph.VertexID(v)).list()
					if !slices.Equal(got, want[v]) {
						t.Fatalf("%s %s %s: vertex %d: order %v, want %v", filepath.Base(dir), pol, filepath.Base(f), v, got, want[v])
					}
				}
				cases++
			}
		}
	}
	if cases == 0 {
		t.Fatal("no attach of the corpus succeeded")
	}
	t.Logf("%d attaches compared", cases)
}

// TestSortAppendedTies: a list with equal keys (two edges to one target)
// gets the order of one sort per append.
func TestSortAppendedTies(t *testing.T) {
	var l []outEntry
	for i := range 40 {
		l = append(l, outEntry{weight: ^uint64(0), uniq: int64(i % 7), edge: graph.EdgeID(i)})
	}
	for _, n := range []int{0, 1, 5, 20, 39} {
		want := slices.Clone(l[:n])
		sortOut(want)
		base := slices.Clone(want)
		for _, x := range l[n:] {
			want = append(want, x)
			sortOut(want)
		}
		got := sortAppended(append(base, l[n:]...), n)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: %v, want %v", n, got, want)
		}
	}
}
