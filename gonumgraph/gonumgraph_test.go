package gonumgraph_test

import (
	"testing"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/gonumgraph"
	"github.com/gofluxion/gofluxion/match"
)

// The adapter agrees with the resource graph: every vertex reachable from
// the root is a node, every containment edge an edge, both ways, and
// removed subtrees are gone.
func TestAdapterAgreesWithGraph(t *testing.T) {
	g := gofluxion.DemoGraph()
	m, err := match.New(g, match.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RemovePath("/demo0/rack1/node7"); err != nil {
		t.Fatal(err)
	}
	x, err := gonumgraph.New(g, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := x.Nodes().Len(); n != 363-45 {
		t.Errorf("%d nodes, want %d", n, 363-45)
	}
	if x.Node(int64(g.ByPath("/demo0/rack1/node6")[0])) == nil {
		t.Error("node6 missing")
	}
	if x.Node(-1) != nil || x.Node(1<<40) != nil {
		t.Error("nodes out of range")
	}
	edges := 0
	for _, u := range graph.NodesOf(x.Nodes()) {
		for _, v := range graph.NodesOf(x.From(u.ID())) {
			edges++
			if !x.HasEdgeFromTo(u.ID(), v.ID()) || !x.HasEdgeBetween(v.ID(), u.ID()) || x.HasEdgeFromTo(v.ID(), u.ID()) {
				t.Fatalf("edge %d->%d inconsistent", u.ID(), v.ID())
			}
			e := x.Edge(u.ID(), v.ID())
			if e == nil || e.From().ID() != u.ID() || e.ReversedEdge().From().ID() != v.ID() {
				t.Fatalf("Edge(%d, %d) = %v", u.ID(), v.ID(), e)
			}
			found := false
			for _, p := range graph.NodesOf(x.To(v.ID())) {
				found = found || p.ID() == u.ID()
			}
			if !found {
				t.Fatalf("To(%d) lacks %d", v.ID(), u.ID())
			}
		}
	}
	if edges != x.Nodes().Len()-1 {
		t.Errorf("%d edges in a tree of %d nodes", edges, x.Nodes().Len())
	}
	if !topo.IsPathIn(x, []graph.Node{x.Node(0), x.Node(int64(g.ByPath("/demo0/rack0")[0]))}) {
		t.Error("no path cluster -> rack0")
	}
	if _, err := gonumgraph.New(g, "power"); err == nil {
		t.Error("a subsystem without a root")
	}
}
