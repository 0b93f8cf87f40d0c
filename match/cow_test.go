package match_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
)

// Copy-on-write property test: matchers cloned from one another (and
// clones of clones) receive random streams of every graph and schedule
// mutation, interleaved, with read-only queries on views between them.
// Each matcher must then be indistinguishable from an independent replay
// of its own operations on a fresh matcher: the same output for every
// operation and the same final State. A write that leaked into a shared
// chunk, graph or job index shows up in the other matcher's outputs or
// state.
//
//	go test ./match -run CopyOnWrite -roundtrip.n 500 -roundtrip.seed 3

// cowOp is one operation, replayable on any matcher.
type cowOp struct {
	kind       string
	op         match.Op
	yaml       string
	job        uint64
	now        int64
	path       string
	st         graph.Status
	ranks      []int64
	key, value string
	data       []byte // attach document or recorded R
	start, end int64
	view       bool // run a read-only query on a view
}

func (o cowOp) String() string {
	s := fmt.Sprintf("%s job=%d now=%d", o.kind, o.job, o.now)
	switch o.kind {
	case "match":
		s += fmt.Sprintf(" %v %s", o.op, strings.Join(strings.Fields(o.yaml), " "))
	case "status", "remove", "prop", "find":
		s += fmt.Sprintf(" %s %d %s=%s view=%v", o.path, o.st, o.key, o.value, o.view)
	case "rankstatus", "partial", "removeranks":
		s += fmt.Sprintf(" ranks=%v st=%d", o.ranks, o.st)
	case "attach", "update":
		s += fmt.Sprintf(" %s", o.data)
	}
	return s
}

// cowApply runs o on m and returns what it produced, and for a match the
// outcome and the end of the booked window.
func cowApply(t *testing.T, m *match.Matcher, o cowOp) (string, outcome, int64) {
	t.Helper()
	target := m
	if o.view {
		target = m.View()
	}
	switch o.kind {
	case "match":
		out, end := runMatch(target, fmtRV1JGF, o.op, parseFor(t, m.Graph(), o.yaml), o.job, o.now)
		return out.String(), out, end
	case "cancel":
		err := m.Cancel(o.job)
		return fmt.Sprintf("%s %v", errClass(err), err), outcome{}, 0
	case "partial":
		full, err := m.PartialCancel(o.job, o.ranks)
		return fmt.Sprintf("%v %s %v", full, errClass(err), err), outcome{}, 0
	case "update":
		out, err := restore(m, fmtRV1JGF, liveJob{id: o.job, r: string(o.data), start: o.start, end: o.end})
		return fmt.Sprintf("%s %v\n%s", errClass(err), err, out), outcome{}, 0
	case "status":
		err := m.SetStatus(o.path, o.st)
		return fmt.Sprintf("%s %v", errClass(err), err), outcome{}, 0
	case "rankstatus":
		m.SetRankStatus(o.ranks, o.st)
		return "", outcome{}, 0
	case "prop":
		vs := m.Graph().ByPath(o.path)
		for _, v := range vs {
			m.SetProperty(v, o.key, o.value)
		}
		return fmt.Sprint(len(vs)), outcome{}, 0
	case "attach":
		doc, err := jgf.Parse(o.data)
		if err == nil {
			err = m.Attach(doc)
		}
		return fmt.Sprintf("%s %v", errClass(err), err), outcome{}, 0
	case "remove":
		err := m.RemovePath(o.path)
		return fmt.Sprintf("%s %v", errClass(err), err), outcome{}, 0
	case "removeranks":
		err := m.RemoveRanks(o.ranks)
		return fmt.Sprintf("%s %v", errClass(err), err), outcome{}, 0
	case "find":
		return findText(target, o.path), outcome{}, 0
	}
	t.Fatalf("unknown op %q", o.kind)
	return "", outcome{}, 0
}

// cowSide is one matcher of the test and the scheduler's view of it.
type cowSide struct {
	name    string
	m       *match.Matcher
	ops     []cowOp
	outs    []string
	live    []liveJob
	dead    []liveJob // cancelled jobs, whose R an update may re-apply
	roots   []string  // attached subgraph roots
	nextJob uint64
	now     int64
	round   int
	booked  bool
}

func (s *cowSide) clone(name string) *cowSide {
	c := *s
	c.name = name
	c.m = s.m.Clone()
	c.ops = append([]cowOp(nil), s.ops...)
	c.outs = append([]string(nil), s.outs...)
	c.live = append([]liveJob(nil), s.live...)
	c.dead = append([]liveJob(nil), s.dead...)
	c.roots = append([]string(nil), s.roots...)
	return &c
}

// pathOf returns a random vertex path of g of one of the types.
func randomPath(rng *rand.Rand, g *graph.Graph, types ...graph.TypeID) string {
	var vs []graph.VertexID
	for _, t := range types {
		vs = append(vs, g.ByType(t)...)
	}
	if len(vs) == 0 {
		return "/nosuch"
	}
	p, _ := g.V(vs[rng.Intn(len(vs))]).PathIn(graph.Containment)
	return p
}

func randomRanks(rng *rand.Rand, g *graph.Graph) []int64 {
	ranks := g.Ranks()
	var out []int64
	for _, r := range ranks {
		if r >= 0 && rng.Intn(3) == 0 {
			out = append(out, r)
		}
	}
	if len(out) == 0 && len(ranks) > 0 {
		out = append(out, ranks[len(ranks)-1])
	}
	return out
}

// next generates an operation for s and applies it.
func (s *cowSide) next(t *testing.T, rng *rand.Rand) {
	t.Helper()
	g := s.m.Graph()
	if rng.Intn(4) == 0 {
		s.now += int64(rng.Intn(40))
	}
	o := cowOp{now: s.now}
	switch k := rng.Intn(40); {
	case k < 14:
		o.kind = "match"
		o.op = pick(rng, match.Allocate, match.Allocate, match.AllocateOrElseReserve, match.AllocateWithSatisfiability, match.WithoutAllocating)
		o.yaml = randomRequest(rng, true, false, g)
		if o.op == match.WithoutAllocating && rng.Intn(2) == 0 {
			o.view = true
		}
		if o.op == match.Allocate || o.op == match.AllocateOrElseReserve || o.op == match.AllocateWithSatisfiability {
			o.job = s.nextJob
			s.nextJob++
		}
	case k < 18 && len(s.live) > 0:
		o.kind = "cancel"
		i := rng.Intn(len(s.live))
		o.job = s.live[i].id
		s.dead = append(s.dead, s.live[i])
		s.live = append(s.live[:i], s.live[i+1:]...)
	case k < 20 && len(s.live) > 0:
		o.kind = "partial"
		o.job = s.live[rng.Intn(len(s.live))].id
		o.ranks = randomRanks(rng, g)
	case k < 22 && len(s.dead) > 0:
		o.kind = "update"
		d := s.dead[rng.Intn(len(s.dead))]
		o.job, o.data, o.start, o.end = s.nextJob, []byte(d.r), d.start, d.end
		s.nextJob++
	case k < 24:
		o.kind = "status"
		o.path = randomPath(rng, g, graph.TypeNode, graph.TypeSocket, graph.TypeRack)
		o.st = pick(rng, graph.StatusUp, graph.StatusDown)
	case k < 25:
		o.kind = "rankstatus"
		o.ranks = randomRanks(rng, g)
		o.st = pick(rng, graph.StatusUp, graph.StatusDown)
	case k < 27:
		o.kind = "prop"
		o.path = randomPath(rng, g, graph.TypeNode, graph.TypeCore)
		o.key, o.value = pick(rng, "perf_class", "color"), fmt.Sprint(rng.Intn(3))
	case k < 29 && len(g.ByType(graph.TypeRack)) > 0 && len(g.ByType(graph.TypeNode)) > 0:
		o.kind = "attach"
		sg, data := randomSubgraph(rng, g, s.round, !s.booked)
		s.round++
		o.data = data
		s.roots = append(s.roots, sg.roots...)
	case k < 31:
		o.kind = "remove"
		if len(s.roots) > 0 && rng.Intn(2) == 0 {
			i := rng.Intn(len(s.roots))
			o.path = s.roots[i]
			s.roots = append(s.roots[:i], s.roots[i+1:]...)
		} else {
			o.path = randomPath(rng, g, graph.TypeNode, graph.TypeSocket)
		}
	case k < 32:
		o.kind = "removeranks"
		o.ranks = randomRanks(rng, g)
	default:
		o.kind = "find"
		o.path = pick(rng, "status=up", "status=down", "sched-now=allocated", "sched-future=reserved", "sched-now=free", "property=color")
		o.view = rng.Intn(2) == 0
	}
	out, oc, end := cowApply(t, s.m, o)
	s.ops = append(s.ops, o)
	s.outs = append(s.outs, out)
	if o.kind == "match" && oc.class == "ok" && o.job != 0 && o.op != match.AllocateWithSatisfiability || o.kind == "match" && o.op == match.AllocateWithSatisfiability && oc.class == "ok" {
		s.live = append(s.live, liveJob{id: o.job, r: oc.out, start: oc.at, end: end})
		s.booked = true
	}
	if o.kind == "update" && strings.HasPrefix(out, "ok") {
		s.live = append(s.live, liveJob{id: o.job, r: string(o.data), start: o.start, end: o.end})
		s.booked = true
	}
}

func stateJSON(t *testing.T, m *match.Matcher) string {
	t.Helper()
	st, err := m.State()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runCopyOnWrite runs one scenario and returns the number of operations
// and clones.
func runCopyOnWrite(t *testing.T, seed int64) (ops, clones int) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	opts := match.Options{Policy: pick(rng, append(append([]string{}, staticPolicies...), dynamicPolicies...)...), FluxionQuirks: rng.Intn(3) == 0}
	g0 := rackGraph(rng, opts.Policy == "variation")
	m, err := match.New(g0.Clone(), opts)
	if err != nil {
		t.Fatal(err)
	}
	sides := []*cowSide{{name: "a", m: m, nextJob: 1}}
	for range rng.Intn(12) {
		sides[0].next(t, rng)
	}
	n := 20 + rng.Intn(40)
	for i := 0; i < n; i++ {
		if len(sides) < 4 && (i == 0 || rng.Intn(12) == 0) {
			from := sides[rng.Intn(len(sides))]
			sides = append(sides, from.clone(fmt.Sprintf("%s.%d", from.name, len(sides))))
			clones++
			continue
		}
		sides[rng.Intn(len(sides))].next(t, rng)
		ops++
	}
	for _, s := range sides {
		r, err := match.New(g0.Clone(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var trace []string
		for i, o := range s.ops {
			got, _, _ := cowApply(t, r, o)
			trace = append(trace, o.String())
			if got != s.outs[i] {
				t.Fatalf("seed=%d policy=%q quirks=%v matcher %s, op %d differs from its replay:\n%s\nmatcher: %s\nreplay:  %s",
					seed, opts.Policy, opts.FluxionQuirks, s.name, i, strings.Join(trace, "\n"), s.outs[i], got)
			}
		}
		if a, b := stateJSON(t, s.m), stateJSON(t, r); a != b {
			t.Fatalf("seed=%d policy=%q matcher %s: final state differs from its replay:\n%s\nmatcher: %s\nreplay:  %s",
				seed, opts.Policy, s.name, strings.Join(trace, "\n"), a, b)
		}
	}
	return ops, clones
}

func TestCopyOnWrite(t *testing.T) {
	rng := rand.New(rand.NewSource(*roundtripSeed + 300))
	ops, clones := 0, 0
	for range roundtripRuns(200) {
		o, c := runCopyOnWrite(t, rng.Int63())
		ops += o
		clones += c
	}
	t.Logf("%d operations on %d clones compared with their replays", ops, clones)
}

// TestDerivedOrders: a matcher that derives unchanged dynamic child orders
// from the out-edges decides as one that stores every order (what
// matchers did before), on random streams of every operation over graphs
// whose children come in increasing uniq_id order (derived) or not
// (stored).
func TestDerivedOrders(t *testing.T) {
	rng := rand.New(rand.NewSource(*roundtripSeed + 400))
	ops := 0
	for run := range roundtripRuns(150) {
		opts := match.Options{Policy: pick(rng, dynamicPolicies...), FluxionQuirks: rng.Intn(3) == 0}
		g0 := rackGraph(rng, false)
		switch run % 4 {
		case 0: // children in decreasing uniq_id order (stored orders)
			for v := range g0.NumVertices() {
				g0.V(graph.VertexID(v)).UniqID = int64(1000 - v)
			}
		case 1: // attached children come before the others
			for v := range g0.NumVertices() {
				g0.V(graph.VertexID(v)).UniqID = int64(100000 + v)
			}
		case 2: // a node with a second dominant parent: its removal
			// leaves an entry in that parent's order
			nodes := g0.ByType(graph.TypeNode)
			g0.AddEdge(g0.Root(graph.Containment), nodes[rng.Intn(len(nodes))], graph.Containment)
		}
		a, err := match.New(g0.Clone(), opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := match.New(g0.Clone(), opts)
		if err != nil {
			t.Fatal(err)
		}
		match.StoreAllOrders(b)
		side := &cowSide{name: "a", m: a, nextJob: 1}
		for range 20 + rng.Intn(40) {
			side.next(t, rng)
			o := side.ops[len(side.ops)-1]
			got, _, _ := cowApply(t, b, o)
			ops++
			if want := side.outs[len(side.outs)-1]; got != want {
				t.Fatalf("run %d policy %q: %s\nderived: %s\nstored:  %s", run, opts.Policy, o, want, got)
			}
		}
		if x, y := stateJSON(t, a), stateJSON(t, b); x != y {
			t.Fatalf("run %d: states differ:\n%s\n%s", run, x, y)
		}
	}
	t.Logf("%d operations compared", ops)
}
