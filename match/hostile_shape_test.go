package match

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/policy"
)

// hostileGraph mixes node shapes in one graph: socketed, flat, numa under
// socket, gpus under node or socket, memory under node or socket.
func hostileGraph(rng *rand.Rand) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("h"))
	parents := []graph.VertexID{c}
	if rng.Intn(2) == 0 {
		parents = []graph.VertexID{b.MustAdd(c, "rack", 0), b.MustAdd(c, "rack", 1)}
	}
	kinds := []int{rng.Intn(4), rng.Intn(4)}
	for n := 0; n < 6; n++ {
		node := b.MustAdd(parents[n%len(parents)], "node", int64(n))
		kind := kinds[n%2]
		var leaves []graph.VertexID
		switch kind {
		case 0: // flat
			leaves = []graph.VertexID{node}
		case 1, 2: // sockets
			for s := 0; s < 2; s++ {
				leaves = append(leaves, b.MustAdd(node, "socket", int64(s)))
			}
		case 3: // socket -> numanode
			for s := 0; s < 2; s++ {
				so := b.MustAdd(node, "socket", int64(s))
				leaves = append(leaves, b.MustAdd(so, "numanode", int64(s)))
			}
		}
		for j, l := range leaves {
			for i := 0; i < 4; i++ {
				b.MustAdd(l, "core", int64(j*4+i))
			}
			if kind != 2 {
				b.MustAdd(l, "gpu", int64(j))
				b.MustAdd(l, "memory", int64(j), graph.WithSize(16), graph.WithUnit("GB"))
			}
		}
		if kind == 2 {
			b.MustAdd(node, "gpu", 0)
			b.MustAdd(node, "memory", 0, graph.WithSize(32), graph.WithUnit("GB"))
		}
	}
	return b.Graph()
}

func ones(l []*jobspec.Resource) []*jobspec.Resource {
	var out []*jobspec.Resource
	for _, r := range l {
		c := *r
		c.Count = jobspec.Fixed(1)
		c.With = ones(r.With)
		out = append(out, &c)
	}
	return out
}

// Hostile: Feasible (the root's Satisfiable) agrees with an allocation on
// the free graph, and a shape blame never depends on counts (the request
// with every count 1 is still infeasible).
func TestHostileShapeDiagnosis(t *testing.T) {
	types := []string{"cluster", "rack", "node", "socket", "numanode", "core", "gpu", "memory", "slot", "slot", "slot"}
	rng := rand.New(rand.NewSource(2121))
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
	pols := append([]string{"flexible"}, policy.Names()...)
	checked, blamed := 0, 0
	for gi := 0; gi < 6; gi++ {
		grng := rand.New(rand.NewSource(int64(gi)))
		for _, pol := range pols {
			opts := Options{Policy: pol}
			if pol == "flexible" {
				opts = Options{Policy: "low", Traverser: "flexible"}
			}
			m, err := New(hostileGraph(rand.New(rand.NewSource(grng.Int63()))), opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 600; i++ {
				js := jobspec.New(time.Hour, gen(0))
				if jobspec.Validate(js) != nil {
					continue
				}
				checked++
				ferr := m.Feasible(js)
				probs := m.ShapeProblems(js)
				_, aerr := m.Match(Allocate, js, uint64(i+1), 0, emit.Discard)
				if aerr == nil {
					if err := m.Cancel(uint64(i + 1)); err != nil {
						t.Fatal(err)
					}
				}
				if (ferr == nil) != (aerr == nil) {
					t.Errorf("g%d %s: %s: feasible %v, allocate on the free graph %v", gi, pol, tree(js.Resources), ferr, aerr)
				}
				if len(probs) == 0 {
					continue
				}
				blamed++
				one := jobspec.New(time.Hour, ones(js.Resources)...)
				if m.Feasible(one) == nil {
					t.Errorf("g%d %s: %s blamed on shape (%v) but %s is feasible", gi, pol, tree(js.Resources), probs[0].Msg, tree(one.Resources))
				}
			}
		}
	}
	t.Logf("%d checked, %d blamed", checked, blamed)
}

// Under a node-exclusive policy a top-level request below the node (a
// socket) is booked inside a whole node, so a slot a level above its
// contents is booked: no shape blame there, while the same request under
// "low" is never booked and blamed.
func TestShapeTopLevelUnderExclusiveNode(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("n"))
	for n := 0; n < 2; n++ {
		node := b.MustAdd(c, "node", int64(n))
		for s := 0; s < 2; s++ {
			numa := b.MustAdd(b.MustAdd(node, "socket", int64(s)), "numanode", int64(s))
			b.MustAdd(numa, "core", int64(s))
			b.MustAdd(numa, "gpu", int64(s))
		}
	}
	g := b.Graph()
	for _, c := range []struct {
		pol   string
		count uint32
		blame bool
		feas  bool
	}{
		{"lonodex", 1, false, true},
		{"lonodex", 2, false, false}, // too many gpus per socket: capacity, not shape
		{"hinodex", 2, false, false},
		{"low", 1, true, false},
		{"low", 2, true, false},
	} {
		m := newMatcher(t, g, c.pol)
		js := jobspec.New(time.Hour, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("gpu", c.count))))
		probs := m.ShapeProblems(js)
		if (len(probs) > 0) != c.blame {
			t.Errorf("%s gpu[%d]: shape problems %v, want blame %v", c.pol, c.count, probs, c.blame)
		}
		if err := m.Feasible(js); (err == nil) != c.feas {
			t.Errorf("%s gpu[%d]: feasible %v, want %v", c.pol, c.count, err, c.feas)
		}
	}
}

// The same agreement on Fluxion's own graphs (GRUG and JGF, one with a
// power subsystem), when ../shared is checked out.
func TestHostileShapeDiagnosisCorpus(t *testing.T) {
	dir := "../../shared/conformance/data/resource"
	files, _ := filepath.Glob(dir + "/grugs/*.graphml")
	jgfs, _ := filepath.Glob(dir + "/jgfs/*.json")
	if len(files)+len(jgfs) == 0 {
		t.Skip("no ../shared corpus")
	}
	if testing.Short() {
		t.Skip("long: every corpus graph under four policies")
	}
	type gcase struct {
		name string
		g    func() (*graph.Graph, error)
		subs string
	}
	var gs []gcase
	for _, f := range files {
		gs = append(gs, gcase{filepath.Base(f), func() (*graph.Graph, error) { return grug.ReadFile(f) }, ""})
	}
	for _, f := range jgfs {
		gs = append(gs, gcase{filepath.Base(f), func() (*graph.Graph, error) { return jgf.ReadFile(f) }, ""})
	}
	for _, f := range files {
		if strings.Contains(f, "power") {
			gs = append(gs, gcase{"power C+PA", func() (*graph.Graph, error) { return grug.ReadFile(f) }, "C+PA"})
		}
	}
	types := []string{"cluster", "rack", "node", "socket", "core", "gpu", "memory", "pdu", "storage", "slot", "slot", "slot"}
	rng := rand.New(rand.NewSource(21210))
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
			r = jobspec.Slot("s", 1, with...)
		} else {
			r = jobspec.Res(typ, 1, with...)
		}
		if rng.Intn(6) == 0 {
			r.Exclusively()
		}
		return r
	}
	checked, blamed := 0, 0
	for _, gc := range gs {
		for _, pol := range []string{"first", "low", "lonodex", "flexible"} {
			g, err := gc.g()
			if err != nil {
				t.Logf("%s: %v", gc.name, err)
				break
			}
			if g.NumVertices() > 1000 {
				break // the big ones cost minutes and add no shape
			}
			opts := Options{Policy: pol, Subsystems: gc.subs}
			if pol == "flexible" {
				opts = Options{Policy: "low", Traverser: "flexible", Subsystems: gc.subs}
			}
			m, err := New(g, opts)
			if err != nil {
				t.Logf("%s %s: %v", gc.name, pol, err)
				continue
			}
			for i := 0; i < 200; i++ {
				js := jobspec.New(time.Hour, gen(0))
				if jobspec.Validate(js) != nil {
					continue
				}
				checked++
				ferr := m.Feasible(js)
				probs := m.ShapeProblems(js)
				_, aerr := m.Match(Allocate, js, uint64(i+1), 0, emit.Discard)
				if aerr == nil {
					if err := m.Cancel(uint64(i + 1)); err != nil {
						t.Fatal(err)
					}
				}
				if (ferr == nil) != (aerr == nil) {
					t.Errorf("%s %s: %s: feasible %v, allocate on the free graph %v", gc.name, pol, tree(js.Resources), ferr, aerr)
				}
				if len(probs) > 0 {
					blamed++
					if ferr == nil {
						t.Errorf("%s %s: %s is feasible but blamed: %v", gc.name, pol, tree(js.Resources), probs[0].Msg)
					}
				}
			}
		}
	}
	t.Logf("%d checked, %d blamed", checked, blamed)
}

// A request whose levels skip one and that has no slot gets both fixes
// at once: naming the level alone leaves a request that books nothing.
func TestShapeSkippedLevelWithoutSlot(t *testing.T) {
	R, S := jobspec.Res, jobspec.Slot
	for _, c := range []struct {
		pol  string
		res  *jobspec.Resource
		slot bool // the message asks for a slot too
	}{
		{"low", R("node", 2, R("core", 4)), true},
		{"low", R("node", 2, R("core", 4)).Exclusively(), false},
		{"low", R("node", 2, S("s", 1, R("gpu", 1), R("core", 4))), false},
		{"lonodex", R("node", 2, R("core", 4)), false}, // the policy books nodes whole
	} {
		m := newMatcher(t, tinyGraph(), c.pol)
		js := jobspec.New(time.Hour, c.res)
		p := m.ShapeProblems(js)
		if len(p) == 0 {
			t.Errorf("%s %s: no shape problem", c.pol, tree(js.Resources))
			continue
		}
		if got := strings.Contains(p[0].Msg, "put the request in a slot"); got != c.slot {
			t.Errorf("%s %s: %q, want the slot hint %v", c.pol, tree(js.Resources), p[0].Msg, c.slot)
		}
	}
}
