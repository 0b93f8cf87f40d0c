package match

import (
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/randstream"
	"github.com/gofluxion/gofluxion/jobspec"
)

// The differential test of the best-first walk: random mixed streams run
// in lockstep on a matcher using it and on one forced onto the reference
// (exhaustive) walk; every outcome, the rendered selection and the
// schedule must agree, and so must the visit counts resource-query prints
// (CountVisits against the reference's Visits).
//
//	go test ./match -run Differential -diff.long   (≥ 10⁴ matches per policy)
var diffLong = flag.Bool("diff.long", false, "run the long differential test of the best-first walk")

var keyedPolicies = []string{"high", "low", "hinode", "lonode", "hinodex", "lonodex", "locality", "variation"}

// diffTarget runs a stream on a matcher (randstream.Target), recording the
// visit counts of each match.
type diffTarget struct {
	g          *graph.Graph
	m          *Matcher
	w          *emit.Simple
	cache      map[string]*jobspec.Jobspec
	errs       map[string]error
	count      bool // record CountVisits before each match
	pre, post  int64
	matches    int
	fastCounts bool
}

func newDiffTarget(g *graph.Graph, m *Matcher) *diffTarget {
	return &diffTarget{g: g, m: m, w: emit.NewSimple(), cache: map[string]*jobspec.Jobspec{}, errs: map[string]error{}}
}

var diffOps = map[randstream.Kind]Op{
	randstream.Allocate:              Allocate,
	randstream.AllocateOrElseReserve: AllocateOrElseReserve,
	randstream.Satisfiability:        Satisfiability,
}

// parseCached parses doc once per target: later calls return the cached
// jobspec or error.
func parseCached(g *graph.Graph, js map[string]*jobspec.Jobspec, errs map[string]error, doc string) (*jobspec.Jobspec, error) {
	if j, ok := js[doc]; ok {
		return j, errs[doc]
	}
	j, err := jobspec.Parse([]byte(doc), knownTypes(g))
	js[doc], errs[doc] = j, err
	return j, err
}

func (t *diffTarget) Match(kind randstream.Kind, doc string, jobid uint64, now int64) (int64, string, error) {
	js, err := parseCached(t.g, t.cache, t.errs, doc)
	if err != nil {
		return 0, "", err
	}
	t.matches++
	t.m.SetErrno(ENOTTY) // as resource-query does before every command
	if t.count {
		t.pre, t.post = t.m.CountVisits(diffOps[kind], js, jobid, now)
	}
	at, err := t.m.Match(diffOps[kind], js, jobid, now, t.w)
	if !t.count {
		t.pre, t.post = t.m.Visits()
	}
	out, _ := t.w.Render()
	return at, fmt.Sprintf("%s visits %d %d\n", out, t.pre, t.post), err
}

// parseAll parses the jobspecs of ops ahead, so that a benchmark times
// the matcher only.
func (t *diffTarget) parseAll(ops []randstream.Op) {
	for _, op := range ops {
		if op.Jobspec == "" {
			continue
		}
		if _, ok := t.cache[op.Jobspec]; !ok {
			t.cache[op.Jobspec], t.errs[op.Jobspec] = jobspec.Parse([]byte(op.Jobspec), knownTypes(t.g))
		}
	}
}

func (t *diffTarget) Cancel(jobid uint64) error {
	t.m.SetErrno(ENOTTY)
	err := t.m.Cancel(jobid)
	if pre, post := t.m.Visits(); err == nil {
		err = fmt.Errorf("<nil> visits %d %d", pre, post)
	}
	return err
}

func (t *diffTarget) PartialCancel(jobid uint64, ranks []int64) (bool, error) {
	t.m.SetErrno(ENOTTY)
	return t.m.PartialCancel(jobid, ranks)
}

// lineHash is a hash.Hash that keeps the text, to compare two runs line by
// line.
type lineHash struct{ strings.Builder }

func (h *lineHash) Sum(b []byte) []byte { return append(b, h.String()...) }
func (h *lineHash) Size() int           { return 0 }
func (h *lineHash) BlockSize() int      { return 1 }

// diffStream runs one stream on both walks and reports the first
// difference. It returns the number of matches run.
func diffStream(t *testing.T, policy string, seed int64, shape randstream.Shape, nops int) int {
	t.Helper()
	return diffRun(t, diffCase{policy: policy, seed: seed, shape: shape, nops: nops})
}

// diffCase is one differential stream. heavy turns the stream into one
// rich in failures and reservation searches (most allocations become
// allocate-or-else-reserve, requests for most of the graph's nodes or
// cores are added, the clock moves slowly) with node status changes
// between operations; clone continues the best-first side on a clone of
// its matcher half way; fresh checks the matcher's per-subtree freshness
// counts against a recount after every operation.
type diffCase struct {
	policy       string
	seed         int64
	shape        randstream.Shape
	nops         int
	heavy, clone bool
	fresh        bool
	// perf, when set, gives vertices perf_class properties before the
	// stream (perfProps) and changes some between operations, through
	// both matchers (SetProperty).
	perf perfMode
}

func diffRun(t *testing.T, c diffCase) int {
	t.Helper()
	rng := rand.New(rand.NewSource(c.seed))
	g := randstream.Graph(rng, c.shape)
	if c.perf != perfNone {
		perfProps(rand.New(rand.NewSource(c.seed+1)), g, c.perf)
	}
	nodes := g.ByType(graph.TypeNode)
	ops := randstream.Ops(rng, c.nops, len(nodes))
	if c.heavy {
		ops = heavyOps(rng, ops, len(nodes))
	}
	ref := newMatcher(t, g, c.policy)
	ref.exhaustive = true
	fast := newMatcher(t, g, c.policy)
	rt, ft := newDiffTarget(g, ref), newDiffTarget(g, fast)
	ft.count = true
	var rh, fh lineHash
	rr, fr := &randstream.Runner{T: rt, H: &rh}, &randstream.Runner{T: ft, H: &fh}
	srng := rand.New(rand.NewSource(c.seed))
	for i := range ops {
		if c.clone && i == len(ops)/2 {
			fast = fast.Clone()
			ft.m = fast
		}
		if c.heavy && srng.Intn(8) == 0 && len(nodes) > 0 {
			// Mark a node down or up on both sides.
			v := nodes[srng.Intn(len(nodes))]
			p, _ := g.V(v).PathIn(fast.dom)
			st := graph.StatusDown
			if g.V(v).Status == graph.StatusDown {
				st = graph.StatusUp
			}
			// The matchers share the graph until the best-first side
			// changes it after its clone (copy-on-write): set it through
			// each matcher from the same old status, and leave the
			// reference's at the new one.
			e1 := ref.SetStatus(p, st)
			if fast.g == g {
				g.V(v).Status = 1 - st
			}
			e2 := fast.SetStatus(p, st)
			g.V(v).Status = st
			fmt.Fprintf(&rh, "status %s %v %v\n", p, st, e1)
			fmt.Fprintf(&fh, "status %s %v %v\n", p, st, e2)
		}
		if c.perf != perfNone && srng.Intn(10) == 0 {
			v := graph.VertexID(srng.Intn(g.NumVertices()))
			val := perfValue(srng, c.perf)
			ref.SetProperty(v, "perf_class", val)
			fast.SetProperty(v, "perf_class", val)
			fmt.Fprintf(&rh, "perf_class %d %s\n", v, val)
			fmt.Fprintf(&fh, "perf_class %d %s\n", v, val)
		}
		rr.Step(ops[i])
		fr.Step(ops[i])
		if rh.String() != fh.String() {
			t.Fatalf("%s seed %d: op %d (%+v) differs:\nreference:\n%s\nbest-first:\n%s", c.policy, c.seed, i, ops[i],
				lastLines(rh.String(), 30), lastLines(fh.String(), 30))
		}
		if c.fresh {
			checkFresh(t, fast, i)
		}
	}
	if a, b := digest(ref), digest(fast); a != b {
		t.Fatalf("%s seed %d: schedules differ:\n%s", c.policy, c.seed, diffDigests(a, b))
	}
	diffHits += fast.bestHits
	return rt.matches
}

// heavyOps rewrites a stream into a failure- and reservation-heavy one,
// with now and then a cancellation of every job.
func heavyOps(rng *rand.Rand, ops []randstream.Op, nodes int) []randstream.Op {
	var out []randstream.Op
	var last randstream.Op
	for _, op := range ops {
		switch op.Kind {
		case randstream.Allocate:
			if rng.Intn(3) > 0 {
				op.Kind = randstream.AllocateOrElseReserve
			}
		case randstream.Advance:
			op.Delta = 1 + op.Delta/8
		}
		out = append(out, op)
		if rng.Intn(6) == 0 {
			out = append(out, randstream.Op{Kind: randstream.AllocateOrElseReserve, Jobspec: bigJobspec(rng, nodes)})
		}
		if op.Jobspec != "" {
			last = op
		}
		if rng.Intn(25) == 0 {
			// Cancel every job: the graph is untouched again, down to
			// its root; then ask again for what was last asked.
			for i := 0; i < 64; i++ {
				out = append(out, randstream.Op{Kind: randstream.Cancel})
			}
			if last.Jobspec != "" {
				out = append(out, last, last)
			}
		}
	}
	return out
}

// bigJobspec asks for a large share of the graph (or more than it has).
func bigJobspec(rng *rand.Rand, nodes int) string {
	n := max(1, nodes/2+rng.Intn(nodes))
	var res string
	switch rng.Intn(4) {
	case 0:
		res = fmt.Sprintf("  - type: node\n    count: %d\n    exclusive: true\n", n)
	case 1:
		res = fmt.Sprintf("  - type: slot\n    count: %d\n    label: default\n    with:\n      - type: core\n        count: 2\n", 2*n)
	case 2:
		res = fmt.Sprintf("  - type: node\n    count: %d\n    with:\n      - type: socket\n        count: 1\n        with:\n          - type: slot\n            count: 1\n            label: default\n            with:\n              - type: core\n                count: 1\n", n)
	default:
		res = fmt.Sprintf("  - type: socket\n    count: %d\n    with:\n      - type: slot\n        count: 1\n        label: default\n        with:\n          - type: core\n            count: 1\n", n)
	}
	return "version: 9999\nresources:\n" + res + fmt.Sprintf("attributes:\n  system:\n    duration: %d\n", 50+rng.Intn(500)) +
		"tasks:\n  - command: [ \"app\" ]\n    slot: default\n    count:\n      per_slot: 1\n"
}

// checkFresh compares the matcher's freshness counts with a recount.
func checkFresh(t *testing.T, m *Matcher, op int) {
	t.Helper()
	f := m.fresh
	if f == nil {
		return
	}
	stale, below := slices.Clone(f.stale), slices.Clone(f.below)
	m.buildFresh()
	for v := range below {
		if below[v] != m.fresh.below[v] || stale[v] != m.fresh.stale[v] {
			t.Fatalf("after op %d: vertex %s: counted %v/%d, recount %v/%d", op, m.g.V(graph.VertexID(v)).Name, stale[v], below[v], m.fresh.stale[v], m.fresh.below[v])
		}
	}
}

// diffHits counts the selections the best-first walk decided.
var diffHits int64

func lastLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// TestDifferentialBestFirst compares the best-first and reference walks
// on random mixed streams, on small graphs and on graphs of 1,024 nodes
// or more.
func TestDifferentialBestFirst(t *testing.T) {
	small, large, heavy, heavyLarge := 30, 1, 10, 0
	if testing.Short() {
		small, large, heavy, heavyLarge = 10, 0, 4, 0
	}
	if *diffLong {
		small, large, heavy, heavyLarge = 300, 6, 150, 6
	}
	for _, p := range keyedPolicies {
		t.Run(p, func(t *testing.T) {
			n := 0
			// Small graphs link their short candidate lists too, every
			// other stream.
			defer func(n int) { minSkip = n }(minSkip)
			for s := int64(1); s <= int64(small); s++ {
				minSkip = []int{2, 32}[s%2]
				n += diffRun(t, diffCase{policy: p, seed: 1000 + s, shape: randstream.Small, nops: 60, fresh: true, clone: s%5 == 0})
			}
			minSkip = 32
			for s := int64(1); s <= int64(large); s++ {
				n += diffStream(t, p, 5000+s, randstream.Large, 150)
			}
			for s := int64(1); s <= int64(heavy); s++ {
				minSkip = []int{2, 32}[s%2]
				n += diffRun(t, diffCase{policy: p, seed: 3000 + s, shape: randstream.Small, nops: 80, heavy: true, fresh: true, clone: s%3 == 0})
			}
			minSkip = 32
			for s := int64(1); s <= int64(heavyLarge); s++ {
				n += diffRun(t, diffCase{policy: p, seed: 6000 + s, shape: randstream.Large, nops: 150, heavy: true, clone: s%2 == 0})
			}
			t.Logf("%d matches, %d selections decided best-first", n, diffHits)
			diffHits = 0
		})
	}
}

// cpuTime is the process's user+system CPU time: on a shared machine it
// is steadier than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// streamTarget replays a stream for the benchmarks: jobspecs are parsed
// ahead and selections go to emit.Discard, so that only the matcher's
// work is timed.
type streamTarget struct {
	m  *Matcher
	js map[string]*jobspec.Jobspec
}

var errUnknownType = errors.New("jobspec names a type the graph lacks")

func newStreamTarget(tb testing.TB, g *graph.Graph, m *Matcher, ops []randstream.Op) *streamTarget {
	t := &streamTarget{m: m, js: map[string]*jobspec.Jobspec{}}
	for _, op := range ops {
		if op.Jobspec != "" {
			// A parse error is a type the graph lacks: the op fails.
			t.js[op.Jobspec], _ = jobspec.Parse([]byte(op.Jobspec), knownTypes(g))
		}
	}
	return t
}

func (t *streamTarget) Match(kind randstream.Kind, doc string, jobid uint64, now int64) (int64, string, error) {
	js := t.js[doc]
	if js == nil {
		return 0, "", errUnknownType
	}
	at, err := t.m.Match(diffOps[kind], js, jobid, now, emit.Discard)
	return at, "", err
}

func (t *streamTarget) Cancel(jobid uint64) error { return t.m.Cancel(jobid) }

func (t *streamTarget) PartialCancel(jobid uint64, ranks []int64) (bool, error) {
	return t.m.PartialCancel(jobid, ranks)
}

// nopHash is a hash.Hash that keeps nothing.
type nopHash struct{}

func (nopHash) Write(b []byte) (int, error) { return len(b), nil }
func (nopHash) Sum(b []byte) []byte         { return b }
func (nopHash) Reset()                      {}
func (nopHash) Size() int                   { return 0 }
func (nopHash) BlockSize() int              { return 1 }

// BenchmarkRandomStreams replays random mixed streams on graphs of 1,024
// nodes or more, with the best-first walk and with the reference walk:
// one iteration is one whole stream (150 operations) on a fresh matcher,
// whose jobspecs are parsed before the timer starts and whose selections
// are written to emit.Discard (both walks render the same output).
//
//	go test ./match -run '^$' -bench RandomStreams -benchtime 3x
func BenchmarkRandomStreams(b *testing.B) {
	for _, p := range keyedPolicies {
		for _, walk := range []string{"best", "reference"} {
			b.Run(p+"/"+walk, func(b *testing.B) {
				var total time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					seed := int64(7000 + i%4)
					rng := rand.New(rand.NewSource(seed))
					g := randstream.Graph(rng, randstream.Large)
					ops := randstream.Ops(rng, 150, len(g.ByType(graph.TypeNode)))
					m := newMatcher(b, g, p)
					m.exhaustive = walk == "reference"
					r := &randstream.Runner{T: newStreamTarget(b, g, m, ops), H: nopHash{}}
					runtime.GC()
					start := cpuTime()
					b.StartTimer()
					for _, op := range ops {
						r.Step(op)
					}
					total += cpuTime() - start
				}
				b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "cpu-ms/stream")
			})
		}
	}
}

// TestReplayFreshRoot matches every random jobspec on an untouched graph
// twice (the second time the whole walk, from the root, is a replay of
// the first) under every op, with the best-first and the reference walk,
// and compares the outcomes.
func TestReplayFreshRoot(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	ops := []Op{Allocate, AllocateOrElseReserve, AllocateWithSatisfiability, Satisfiability, WithoutAllocating}
	for _, p := range keyedPolicies {
		for s := int64(1); s <= int64(n); s++ {
			rng := rand.New(rand.NewSource(9000 + s))
			g := randstream.Graph(rng, randstream.Small)
			ref, fast := newMatcher(t, g, p), newMatcher(t, g, p)
			ref.exhaustive = true
			rt, ft := newDiffTarget(g, ref), newDiffTarget(g, fast)
			for j := 0; j < 8; j++ {
				doc := randstream.Jobspec(rng)
				js, err := jobspec.Parse([]byte(doc), knownTypes(g))
				if err != nil {
					continue
				}
				op := ops[rng.Intn(len(ops))]
				for rep := 0; rep < 2; rep++ {
					var outs [2]string
					for k, tg := range []*diffTarget{rt, ft} {
						tg.m.SetErrno(ENOTTY)
						at, err := tg.m.Match(op, js, 1, 0, tg.w)
						out, _ := tg.w.Render()
						outs[k] = fmt.Sprintf("%d %v\n%s", at, err, out)
						tg.m.Cancel(1)
					}
					if outs[0] != outs[1] {
						t.Fatalf("%s seed %d jobspec %d (%s) pass %d:\n%s\nreference:\n%s\nbest-first:\n%s", p, s, j, op, rep, doc, outs[0], outs[1])
					}
				}
			}
		}
	}
}

// domDeep answers as graph.Depth does (its reference), on trees in
// creation order (its one pass) and on anything else (Depth itself):
// random forests, parents created after their children, second parents,
// cycles, edges of another subsystem.
func TestDomDeepAsDepth(t *testing.T) {
	rng := rand.New(rand.NewSource(517))
	for i := range 3000 {
		g := graph.New()
		dom, aux := g.Subsystem("containment"), g.Subsystem("power")
		n := 1 + rng.Intn(60)
		for range n {
			g.AddVertex(graph.Vertex{Type: g.Type("v"), ID: -1})
		}
		if rng.Intn(20) > 0 {
			if err := g.SetRoot(dom, graph.VertexID(rng.Intn(n))); err != nil {
				t.Fatal(err)
			}
		}
		ordered := rng.Intn(2) == 0
		for v := 0; v < n; v++ {
			if rng.Intn(8) == 0 {
				continue // no parent
			}
			hi := n
			if ordered {
				hi = v
			}
			if hi == 0 {
				continue
			}
			g.AddEdge(graph.VertexID(rng.Intn(hi)), graph.VertexID(v), dom)
			switch rng.Intn(30) {
			case 0:
				g.AddEdge(graph.VertexID(rng.Intn(n)), graph.VertexID(v), dom) // a second parent
			case 1:
				g.AddEdge(graph.VertexID(rng.Intn(n)), graph.VertexID(v), aux)
			}
		}
		m := &Matcher{schedule: &schedule{g: g, dom: dom}, scratch: &scratch{}}
		want := g.Depth(dom)
		for _, limit := range []int{0, 1, 2, 3, want - 1, want, want + 1, graph.MaxDepth} {
			if got := m.domDeep(limit); got != (want >= limit) {
				t.Fatalf("graph %d (ordered %v, tree %v): domDeep(%d) = %v, Depth = %d", i, ordered, m.domTree(), limit, got, want)
			}
		}
	}
}
