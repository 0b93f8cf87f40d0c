package match

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// mixedGraph has cores under sockets but gpus directly under nodes, and
// flatGraph cores, gpus and memory directly under nodes (as Flux's own R
// to JGF conversion writes them).
func mixedGraph() *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("mixed"))
	for n := 0; n < 3; n++ {
		node := b.MustAdd(c, "node", int64(n))
		for s := 0; s < 2; s++ {
			sock := b.MustAdd(node, "socket", int64(s))
			for i := 0; i < 4; i++ {
				b.MustAdd(sock, "core", int64(s*4+i))
			}
		}
		b.MustAdd(node, "gpu", 0)
	}
	return b.Graph()
}

func shapeFlatGraph() *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("flat"))
	for n := 0; n < 3; n++ {
		node := b.MustAdd(c, "node", int64(n))
		for i := 0; i < 8; i++ {
			b.MustAdd(node, "core", int64(i))
		}
		b.MustAdd(node, "gpu", 0)
		b.MustAdd(node, "memory", 0, graph.WithSize(16), graph.WithUnit("GB"))
	}
	return b.Graph()
}

// The shape diagnosis never blames a request the matcher can allocate: for
// random request trees on three graph shapes and under policies with and
// without exclusive node types and the flexible traverser, a feasible request has no shape problem,
// and a request selected on a free graph that books nothing always has an
// explanation.
func TestShapeProblemsSound(t *testing.T) {
	types := []string{"cluster", "rack", "node", "socket", "core", "gpu", "memory", "slot", "slot", "nodee"}
	rng := rand.New(rand.NewSource(21))
	var gen func(depth int) *jobspec.Resource
	gen = func(depth int) *jobspec.Resource {
		typ := types[rng.Intn(len(types))]
		var with []*jobspec.Resource
		if depth < 4 && (typ == "slot" || rng.Intn(3) > 0) {
			for i := 0; i < 1+rng.Intn(2); i++ {
				with = append(with, gen(depth+1))
			}
		}
		var r *jobspec.Resource
		if typ == "slot" {
			r = jobspec.Slot("s", uint32(1+rng.Intn(2)), with...)
		} else {
			r = jobspec.Res(typ, uint32(1+rng.Intn(2)), with...)
		}
		if rng.Intn(6) == 0 {
			r.Exclusively()
		}
		return r
	}
	graphs := map[string]func() *graph.Graph{"tiny": tinyGraph, "mixed": mixedGraph, "flat": shapeFlatGraph}
	feasible, blamed, nothing := 0, 0, 0
	for _, gname := range []string{"tiny", "mixed", "flat"} {
		for _, pol := range []string{"first", "low", "hinodex", "flexible"} {
			opts := Options{Policy: pol}
			if pol == "flexible" {
				opts = Options{Policy: "low", Traverser: "flexible"}
			}
			m, err := New(graphs[gname](), opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 400; i++ {
				js := jobspec.New(time.Hour, gen(0))
				if jobspec.Validate(js) != nil {
					continue
				}
				err := m.Feasible(js)
				probs := m.ShapeProblems(js)
				if err == nil {
					feasible++
					if len(probs) > 0 {
						t.Errorf("%s %s: %s is feasible but blamed: %v", gname, pol, tree(js.Resources), probs)
					}
					continue
				}
				if len(probs) > 0 {
					blamed++
				}
				// Selected on a free graph but nothing booked: the error explains it.
				m.Forget()
				if _, serr := m.Match(Satisfiability, js, 0, 0, emit.Discard); serr == nil {
					nothing++
					if msg := err.(*Error).Msg; msg == "" || strings.Contains(msg, "Fluxion selects it") {
						t.Errorf("%s %s: %s is selected but not booked, unexplained: %v", gname, pol, tree(js.Resources), err)
					}
				}
			}
		}
	}
	t.Logf("%d feasible, %d blamed on shape, %d selected but not booked", feasible, blamed, nothing)
	if feasible < 50 || blamed < 50 || nothing < 20 {
		t.Errorf("the generator covers too little: %d feasible, %d blamed, %d selected but not booked", feasible, blamed, nothing)
	}
}

func tree(l []*jobspec.Resource) string {
	var parts []string
	for _, r := range l {
		s := fmt.Sprintf("%s[%d]", r.Type, r.Count.Min)
		if r.Exclusive == jobspec.ExclusiveTrue {
			s += "!"
		}
		if len(r.With) > 0 {
			s += "->" + tree(r.With)
		}
		parts = append(parts, s)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// The cached type structure follows the graph: a type added after the
// first diagnosis is known to the next one.
func TestShapeCacheFollowsGraph(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "first")
	js := jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Slot("s", 1, jobspec.Res("nic", 1))))
	if p := m.ShapeProblems(js); len(p) != 1 || !strings.Contains(p[0].Msg, `no vertex of type "nic"`) {
		t.Fatalf("before: %v", p)
	}
	node := g.ByType(g.Type("node"))[0]
	nic := g.AddVertex(graph.Vertex{Type: g.Type("nic"), Rank: -1, ID: 0, Size: 1, Basename: "nic", Name: "nic0"})
	g.AddEdge(node, nic, m.Dominant())
	m.Forget() // the request tree was resolved when nic had no type number
	if p := m.ShapeProblems(js); len(p) != 0 {
		t.Errorf("after adding a nic under a node: %v", p)
	}
}
