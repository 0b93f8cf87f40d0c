package match

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Property tests: random op streams on tiny random graphs, checked against
// a brute-force model of what the emitted allocations must have booked.
//
//	go test ./match -run Prop -prop.n 5000 -prop.seed 7
var (
	propN    = flag.Int("prop.n", 0, "random streams per property test (0: a quick default)")
	propSeed = flag.Int64("prop.seed", 1, "seed of the property tests")
)

var propPolicies = []string{"first", "high", "low", "hinode", "lonode", "hinodex", "lonodex", "firstnodex", "locality", "variation"}

func propStreams() int {
	if *propN > 0 {
		return *propN
	}
	if testing.Short() {
		return 40
	}
	return 250
}

// randomGraph builds cluster0 [→ rack0] → 1-3 nodes → 1-2 sockets → 1-4
// cores, 0-2 gpus and 0-1 memory pool of size 1-4 per socket, level by
// level like the GRUG reader.
func randomGraph(rng *rand.Rand, variation bool) *graph.Graph {
	b := graph.NewBuilder()
	top := b.MustAdd(graph.NoVertex, "cluster", 0)
	if rng.Intn(2) == 0 {
		top = b.MustAdd(top, "rack", 0)
	}
	var nodes, sockets []graph.VertexID
	nn := 1 + rng.Intn(3)
	for i := 0; i < nn; i++ {
		nodes = append(nodes, b.MustAdd(top, "node", int64(i)))
	}
	var sockNode []int
	for n, nv := range nodes {
		ns := 1 + rng.Intn(2)
		for i := 0; i < ns; i++ {
			sockets = append(sockets, b.MustAdd(nv, "socket", int64(i)))
			sockNode = append(sockNode, n)
		}
	}
	ncores := make([]int, len(sockets))
	ngpus := make([]int, len(sockets))
	for j := range sockets {
		ncores[j] = 1 + rng.Intn(4)
		ngpus[j] = rng.Intn(3)
	}
	coreID := make([]int, nn)
	for j, s := range sockets {
		for i := 0; i < ncores[j]; i++ {
			b.MustAdd(s, "core", int64(coreID[sockNode[j]]))
			coreID[sockNode[j]]++
		}
	}
	gpuID := make([]int, nn)
	for j, s := range sockets {
		for i := 0; i < ngpus[j]; i++ {
			b.MustAdd(s, "gpu", int64(gpuID[sockNode[j]]))
			gpuID[sockNode[j]]++
		}
	}
	memID := make([]int, nn)
	for j, s := range sockets {
		if rng.Intn(2) == 0 {
			b.MustAdd(s, "memory", int64(memID[sockNode[j]]), graph.WithSize(int64(1+rng.Intn(4))), graph.WithUnit("GB"))
			memID[sockNode[j]]++
		}
	}
	g := b.Graph()
	if variation {
		for v := 0; v < g.NumVertices(); v++ {
			if rng.Intn(2) == 0 {
				g.V(graph.VertexID(v)).SetProp("perf_class", fmt.Sprint(rng.Intn(4)))
			}
		}
	}
	return g
}

// randomTree returns a jobspec in the notation of helpers_test.go.
func randomTree(rng *rand.Rand) string {
	n := func() string {
		switch rng.Intn(10) {
		case 0:
			return fmt.Sprintf("1:%d:+:1", 2+rng.Intn(2))
		case 1, 2:
			return "2"
		case 3:
			return "3"
		}
		return "1"
	}
	x := func() string {
		switch rng.Intn(40) {
		case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9:
			return "x"
		case 10:
			return "!"
		}
		return ""
	}
	leaves := func() string {
		switch rng.Intn(6) {
		case 0:
			return "(core[" + n() + "]" + x() + ",gpu[" + n() + "]" + x() + ")"
		case 1:
			return "gpu[" + n() + "]" + x()
		case 2:
			return "memory[" + fmt.Sprint(1+rng.Intn(4)) + "]" + x()
		case 3:
			return "(core[" + n() + "]" + x() + ",memory[" + n() + "]" + x() + ")"
		}
		return "core[" + n() + "]" + x()
	}
	switch rng.Intn(9) {
	case 0:
		return "slot[" + n() + "]->" + leaves()
	case 1:
		return "node[" + n() + "]" + x() + "->slot[" + n() + "]->core[" + n() + "]"
	case 2:
		return "socket[" + n() + "]" + x() + "->slot[" + n() + "]->" + leaves()
	case 3:
		return "node[" + n() + "]" + x() + "->slot[" + n() + "]->socket[" + n() + "]" + x() + "->" + leaves()
	case 4:
		return "node[" + n() + "]x"
	case 5:
		return "node[" + n() + "]" + x() + "->socket[" + n() + "]" + x() + "->" + leaves()
	case 6:
		return "socket[" + n() + "]" + x() + "->" + leaves()
	case 7:
		// Top-level leaves, no slot.
		l := leaves()
		if strings.HasPrefix(l, "(") {
			l = strings.ReplaceAll(strings.Trim(l, "()"), ",", ";")
		}
		return l
	}
	return "cluster[1]->node[" + n() + "]->slot[" + n() + "]->socket[1]->" + leaves()
}

type propJob struct {
	id         uint64
	tree       string
	op         Op
	start, end int64
	reserved   bool
	recs       []recVertex
}

type propRun struct {
	t       *testing.T
	rng     *rand.Rand
	g       *graph.Graph
	m       *Matcher
	pol     string
	parent  []graph.VertexID
	live    map[uint64]*propJob
	order   []uint64 // live job ids in allocation order
	bounds  map[int64]bool
	now     int64
	nextID  uint64
	log     []string
	failed  bool
	allOK   int
	nFailed int
}

func (r *propRun) fatalf(f string, a ...any) {
	r.t.Helper()
	if r.failed {
		return
	}
	r.failed = true
	r.t.Errorf("policy %s, stream:\n  %s\n%s", r.pol, strings.Join(r.log, "\n  "), fmt.Sprintf(f, a...))
}

func (r *propRun) probes() []int64 { return sortedProbes(r.bounds) }

// checkModel compares the matcher's planners, exclusivity checkers,
// pruning filters and job records with what the live jobs' emitted
// vertices must have booked, and checks that no vertex is oversubscribed.
func (r *propRun) checkModel() {
	g, m := r.g, r.m
	probes := r.probes()
	nv := g.NumVertices()
	type use struct {
		job        *propJob
		needs      int64
		excl       bool
		start, end int64
	}
	uses := make([][]use, nv)
	// filter contributions per (ancestor vertex, type) per job window
	type contrib struct {
		v          graph.VertexID
		t          graph.TypeID
		n          int64
		start, end int64
	}
	var contribs []contrib
	for _, id := range r.order {
		j := r.live[id]
		seen := map[graph.VertexID]bool{}
		for _, rv := range j.recs {
			if seen[rv.id] {
				r.fatalf("job %d emitted %s twice", j.id, g.V(rv.id).Name)
				return
			}
			seen[rv.id] = true
			uses[rv.id] = append(uses[rv.id], use{j, rv.needs, rv.excl, j.start, j.end})
			vx := g.V(rv.id)
			if !m.prune[0].has(vx.Type) {
				continue
			}
			c := vx.Size - rv.needs
			if rv.excl {
				c = vx.Size
			}
			for a := r.parent[rv.id]; a != graph.NoVertex; a = r.parent[a] {
				contribs = append(contribs, contrib{a, vx.Type, c, j.start, j.end})
			}
		}
		// Every emitted vertex's parent is emitted too.
		for _, rv := range j.recs {
			if p := r.parent[rv.id]; p != graph.NoVertex && !seen[p] {
				r.fatalf("job %d emitted %s without its parent %s", j.id, g.V(rv.id).Name, g.V(p).Name)
				return
			}
		}
	}
	for v := 0; v < nv; v++ {
		vid := graph.VertexID(v)
		vx := g.V(vid)
		// Brute-force oversubscription check.
		for a, ua := range uses[v] {
			if ua.excl && ua.needs > vx.Size {
				r.fatalf("job %d takes %d of %s (size %d)", ua.job.id, ua.needs, vx.Name, vx.Size)
				return
			}
			if ua.needs <= 0 {
				r.fatalf("job %d emits %s with needs %d", ua.job.id, vx.Name, ua.needs)
				return
			}
			for b, ub := range uses[v] {
				if a == b || !ua.excl || ub.start >= ua.end || ua.start >= ub.end {
					continue
				}
				r.fatalf("%s: job %d holds it exclusively in [%d,%d) but job %d uses it in [%d,%d)",
					vx.Name, ua.job.id, ua.start, ua.end, ub.job.id, ub.start, ub.end)
				return
			}
		}
		for _, t := range probes {
			wantPlan, wantX := vx.Size, xCheckerTotal
			for _, u := range uses[v] {
				if t >= u.start && t < u.end {
					wantX--
					if u.excl {
						wantPlan -= u.needs
					}
				}
			}
			if got, err := m.plan(graph.VertexID(v)).AvailAt(t); err != nil || got != wantPlan {
				r.fatalf("%s (v%d): planner has %d free at %d (err %v), the live jobs leave %d", vx.Name, v, got, t, err, wantPlan)
				return
			}
			if got, err := m.xplan(graph.VertexID(v)).AvailAt(t); err != nil || got != wantX {
				r.fatalf("%s (v%d): exclusivity checker has %d jobs at %d (err %v), want %d", vx.Name, v, xCheckerTotal-got, t, err, xCheckerTotal-wantX)
				return
			}
			f := m.filter(0, graph.VertexID(v))
			if !f.ok() {
				continue
			}
			for i := 0; i < f.Len(); i++ {
				want := f.Total(i)
				for _, c := range contribs {
					if c.v == vid && int32(c.t) == f.Type(i) && t >= c.start && t < c.end {
						want -= c.n
					}
				}
				if got, err := f.AvailAt(t, i); err != nil || got != want {
					r.fatalf("%s (v%d): filter has %d %s free at %d (err %v), want %d", vx.Name, v, got, g.Types.Name(f.Type(i)), t, err, want)
					return
				}
			}
		}
		// Job records: exactly the live jobs that emitted the vertex.
		for _, rec := range m.jobsOf(graph.VertexID(v)).l {
			j := r.live[rec.job]
			var u *use
			for k := range uses[v] {
				if uses[v][k].job.id == rec.job {
					u = &uses[v][k]
				}
			}
			if j == nil || u == nil {
				r.fatalf("%s (v%d) has a record of job %d, which is not live there: %+v", vx.Name, v, rec.job, rec)
				return
			}
			wantAlloc := u.excl && !j.reserved
			wantResv := u.excl && j.reserved
			if !rec.tagged || rec.xspan == 0 || (rec.alloc != 0) != wantAlloc || (rec.resv != 0) != wantResv ||
				(rec.fspan >= 0 && !m.filter(0, graph.VertexID(v)).ok()) {
				r.fatalf("%s (v%d): record of job %d is %+v (excl %v reserved %v)", vx.Name, v, rec.job, rec, u.excl, j.reserved)
				return
			}
		}
		for _, u := range uses[v] {
			if !m.hasJob(vid, u.job.id) {
				r.fatalf("%s (v%d) has no record of job %d, which emitted it", vx.Name, v, u.job.id)
				return
			}
		}
	}
}

// freshFails reports whether an Allocate of js fails on a new matcher of
// the same graph and policy.
func (r *propRun) freshFails(js *jobspec.Jobspec) bool {
	m, err := New(r.g, Options{Policy: r.pol})
	if err != nil {
		r.fatalf("New: %v", err)
		return true
	}
	_, err = m.Match(Allocate, js, 1, 0, newRecorder())
	return err != nil
}

func (r *propRun) match(op Op) {
	tree := randomTree(r.rng)
	dur := float64(1 + r.rng.Intn(100))
	if r.rng.Intn(10) == 0 {
		dur -= 0.5
	}
	doc, err := jsYAML(tree, dur, "")
	if err != nil {
		r.fatalf("%v", err)
		return
	}
	js, err := jobspec.Parse([]byte(doc), knownTypes(r.g))
	if err != nil {
		if strings.Contains(err.Error(), "known to fluxion") {
			return // memory requested from a graph without memory
		}
		r.fatalf("jobspec.Parse:\n%s\n%v", doc, err)
		return
	}
	id := r.nextID
	r.nextID++
	probes := r.probes()
	before := rawDigest(r.m, probes)
	w := newRecorder()
	at, err := r.m.Match(op, js, id, r.now, w)
	r.log = append(r.log, fmt.Sprintf("now=%d %s job %d %s dur %v → at=%d err=%v", r.now, op, id, tree, dur, at, err))
	if err != nil {
		r.nFailed++
		var me *Error
		// A selection that succeeds but emits nothing (traversal.md §8.5,
		// §9) fails with whatever errno was left: EBUSY, the stale 0 of a
		// new matcher (see TestBugStaleErrnoOnEmptyEmission), or the
		// ENOENT of the exhausted reservation-time iterator.
		if !errors.As(err, &me) || (!errors.Is(err, ErrBusy) && !errors.Is(err, ErrUnsatisfiable) && me.Errno != 0 && me.Errno != ENOENT) {
			r.fatalf("unexpected error %#v", err)
			return
		}
		if !w.empty() {
			r.fatalf("a failed match emitted %d vertices", len(w.verts))
			return
		}
		if after := rawDigest(r.m, probes); after != before {
			r.fatalf("a failed match changed the state:\n%s", diffDigests(before, after))
			return
		}
		if errors.Is(err, ErrUnsatisfiable) && !r.freshFails(js) {
			r.fatalf("%s says unsatisfiable, but Allocate succeeds on a fresh matcher", op)
		}
		return
	}
	switch op {
	case Satisfiability:
		if !w.empty() || rawDigest(r.m, probes) != before {
			r.fatalf("satisfiability emitted or booked something")
		}
		return
	case Allocate, AllocateWithSatisfiability:
		if at != r.now {
			r.fatalf("%s started at %d, now is %d", op, at, r.now)
			return
		}
	}
	if at < r.now {
		r.fatalf("%s started at %d, before now %d", op, at, r.now)
		return
	}
	d, _ := Duration(dur)
	if w.times != 1 || w.start != at || w.end != at+d || len(w.verts) == 0 || len(w.edges) != len(w.verts)-1 {
		r.fatalf("writer got times %d [%d,%d), %d vertices, %d edges; want [%d,%d)", w.times, w.start, w.end, len(w.verts), len(w.edges), at, at+d)
		return
	}
	if w.verts[len(w.verts)-1].id != r.g.Root(graph.Containment) {
		r.fatalf("the root was not emitted last")
		return
	}
	if op == WithoutAllocating || op == WithoutAllocatingFuture {
		if after := stateDigest(r.m, probes, false); after != digestNoOrder(before) {
			r.fatalf("%s booked something:\n%s", op, diffDigests(digestNoOrder(before), after))
		}
		return
	}
	r.allOK++
	j := &propJob{id: id, tree: tree, op: op, start: at, end: at + d, reserved: at > r.now, recs: w.verts}
	r.bounds[j.start] = true
	r.bounds[j.end] = true
	// Sometimes cancel right away: the state must be exactly as before.
	if r.rng.Intn(4) == 0 {
		if err := r.m.Cancel(id); err != nil {
			r.fatalf("Cancel(%d): %v", id, err)
			return
		}
		r.log = append(r.log, fmt.Sprintf("cancel %d at once", id))
		// The dynamic order is not restored by a cancel (Fluxion never
		// restores edge weights), so compare the schedule only. The model
		// check that follows covers the job's own window.
		if after := stateDigest(r.m, probes, false); after != digestNoOrder(before) {
			r.fatalf("allocate then cancel did not restore the state:\n%s", diffDigests(digestNoOrder(before), after))
		}
		return
	}
	r.live[id] = j
	r.order = append(r.order, id)
}

// digestNoOrder strips the order part of a stateDigest(..., true).
func digestNoOrder(d string) string {
	i := strings.Index(d, "weights ")
	if i < 0 {
		return d
	}
	return d[:i]
}

func (r *propRun) cancel() {
	if len(r.order) == 0 {
		return
	}
	k := r.rng.Intn(len(r.order))
	id := r.order[k]
	err := r.m.Cancel(id)
	r.log = append(r.log, fmt.Sprintf("cancel %d → %v", id, err))
	if err != nil {
		r.fatalf("Cancel(%d): %v", id, err)
		return
	}
	delete(r.live, id)
	r.order = append(r.order[:k], r.order[k+1:]...)
	for v := range r.m.g.NumVertices() {
		if rec, ok := r.m.jobAt(graph.VertexID(v), id); ok {
			r.fatalf("%s keeps a record of cancelled job %d: %+v", r.g.V(graph.VertexID(v)).Name, id, rec)
			return
		}
	}
}

func runStream(t *testing.T, seed int64, nops int) (ok, failed int) {
	rng := rand.New(rand.NewSource(seed))
	pol := propPolicies[rng.Intn(len(propPolicies))]
	g := randomGraph(rng, pol == "variation")
	m, err := New(g, Options{Policy: pol})
	if err != nil {
		t.Fatalf("seed %d: New(%s): %v", seed, pol, err)
	}
	r := &propRun{t: t, rng: rng, g: g, m: m, pol: pol, parent: parents(g), live: map[uint64]*propJob{},
		bounds: map[int64]bool{}, nextID: 1}
	r.log = append(r.log, fmt.Sprintf("seed %d: graph of %d vertices", seed, g.NumVertices()))
	for i := 0; i < nops && !r.failed; i++ {
		if r.rng.Intn(8) == 0 {
			r.now += int64(r.rng.Intn(60))
			r.bounds[r.now] = true
		}
		switch k := r.rng.Intn(100); {
		case k < 30:
			r.match(Allocate)
		case k < 55:
			r.match(AllocateOrElseReserve)
		case k < 67:
			r.match(AllocateWithSatisfiability)
		case k < 75:
			r.match(Satisfiability)
		case k < 80:
			r.match([]Op{WithoutAllocating, WithoutAllocatingFuture}[r.rng.Intn(2)])
		default:
			r.cancel()
		}
		if !r.failed {
			r.checkModel()
		}
	}
	return r.allOK, r.nFailed
}

// TestPropStreams runs random op streams and checks, after every
// operation, the schedule against the brute-force model (no
// oversubscription, exact bookings), that failed matches change nothing,
// that an immediate cancel restores the state, and that unsatisfiable
// verdicts agree with a fresh matcher.
func TestPropStreams(t *testing.T) {
	n := propStreams()
	ok, failed := 0, 0
	for i := 0; i < n; i++ {
		a, b := runStream(t, *propSeed*1000003+int64(i), 30)
		ok += a
		failed += b
		if t.Failed() {
			return
		}
	}
	t.Logf("%d streams: %d jobs booked, %d matches failed", n, ok, failed)
	if ok == 0 || failed == 0 {
		t.Errorf("the generator does not exercise both outcomes")
	}
}

// TestPropSatisfiability: whenever Satisfiability says unsatisfiable, an
// Allocate on a fresh matcher fails too; and what a fresh matcher can
// allocate is never called unsatisfiable.
func TestPropSatisfiability(t *testing.T) {
	n := propStreams() * 4
	rng := rand.New(rand.NewSource(*propSeed))
	unsat := 0
	for i := 0; i < n; i++ {
		pol := propPolicies[rng.Intn(len(propPolicies))]
		g := randomGraph(rng, pol == "variation")
		tree := randomTree(rng)
		doc, err := jsYAML(tree, float64(1+rng.Intn(100)), "")
		if err != nil {
			t.Fatal(err)
		}
		js, err := jobspec.Parse([]byte(doc), knownTypes(g))
		if err != nil {
			if strings.Contains(err.Error(), "known to fluxion") {
				continue
			}
			t.Fatal(err)
		}
		m1, _ := New(g, Options{Policy: pol})
		_, serr := m1.Match(Satisfiability, js, 1, 0, newRecorder())
		m2, _ := New(g, Options{Policy: pol})
		_, aerr := m2.Match(Allocate, js, 1, 0, newRecorder())
		m3, _ := New(g, Options{Policy: pol})
		_, werr := m3.Match(AllocateWithSatisfiability, js, 1, 0, newRecorder())
		if errors.Is(serr, ErrUnsatisfiable) {
			unsat++
			if aerr == nil {
				t.Errorf("policy %s, %d vertices, %s: satisfiability says unsatisfiable but allocate succeeds", pol, g.NumVertices(), tree)
			}
		}
		if aerr == nil && (serr != nil || werr != nil) {
			t.Errorf("policy %s, %d vertices, %s: allocate succeeds on a fresh matcher but satisfiability says %v, allocate_with_satisfiability %v",
				pol, g.NumVertices(), tree, serr, werr)
		}
		// On a fresh matcher nothing is busy: the two checks agree.
		if errors.Is(werr, ErrUnsatisfiable) != errors.Is(serr, ErrUnsatisfiable) {
			t.Errorf("policy %s, %s: satisfiability %v but allocate_with_satisfiability %v", pol, tree, serr, werr)
		}
		if t.Failed() {
			return
		}
	}
	if unsat == 0 {
		t.Errorf("no unsatisfiable request was generated")
	}
}
