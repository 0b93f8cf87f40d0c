package match

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/randstream"
)

// A hostile differential test of the replays under resource-query's
// options (FluxionQuirks and FluxionFailures): the same best-first matcher
// with replays on and with replays off (memoOff) runs random streams in
// lockstep, each on its own copy of the graph. The streams favour replays
// (a pool of two or three jobspecs over graphs of identical subtrees) and
// mix in every operation resource-query maps onto the matcher: all six
// match ops, cancels of live, cancelled and unknown ids, rank partial
// cancels, the half-failing operations of TestDifferentialFailures (JGF
// partial cancels of subsets of an R, JGF and rv1exec updates under new or
// live ids, rank and path removals), updates over windows past the graph's
// end or with negative bounds, status changes of vertices of every type
// (racks, sockets, cores, gpus, memory, the root) and perf_class property
// changes. Every outcome, rendered R and visit count, the freshness counts
// after every operation and the final schedules must agree. Visit counts
// are compared in the streams that ask CountVisits before every match, as
// resource-query -e does: after an uncounted best-first match, CountVisits
// of a failing request reports counts carried over from that walk (which
// replays change), not Fluxion's.
//
// The CLI-level counterpart (random JGF/rv1exec graphs, attach, multi-match,
// -F formats, -e, prune filters, the corpora's graphs and jobspecs, run on
// two resource-query binaries) is kept outside the repository; it found no
// difference either.
//
//	go test ./match -run HostileReplays -diff.long

// hostileShapes are the graph shapes: randstream's small graphs, and wider
// ones with many identical nodes.
var hostileShapes = []randstream.Shape{randstream.Small, {MinNodes: 8, MaxNodes: 40, MaxCores: 4}}

// hostileMatchOps are the match ops resource-query offers.
var hostileMatchOps = []Op{Allocate, Allocate, Allocate, AllocateOrElseReserve, AllocateOrElseReserve,
	AllocateWithSatisfiability, Satisfiability, WithoutAllocating, WithoutAllocatingFuture}

// hostileMatch runs one match on t, as failTarget.Match does for any op.
// With count it asks for Fluxion's visit counts first, as resource-query
// -e does; the best-first walk's own counts are not Fluxion's.
func hostileMatch(t *failTarget, op Op, doc string, jobid uint64, now int64, count bool) string {
	js, err := parseCached(t.g, t.js, t.errs, doc)
	if err != nil {
		return fmt.Sprintf("jobspec: %v\n", err)
	}
	t.matches++
	t.m.SetErrno(ENOTTY)
	var cpre, cpost int64
	if count {
		cpre, cpost = t.m.CountVisits(op, js, jobid, now)
	}
	at, err := t.m.Match(op, js, jobid, now, t.w)
	pre, post := t.m.Visits()
	if !count {
		pre, post = 0, 0
	}
	out, rerr := t.w.Render()
	if err == nil && rerr == nil && out != "" && op != Satisfiability && op != WithoutAllocating && op != WithoutAllocatingFuture {
		t.rs[jobid] = out
	}
	return fmt.Sprintf("match %d job %d at %d: %v errno %v\n%s\nrender %v visits %d %d (counted %d %d)\n", op, jobid, at, err, t.m.errno, out, rerr, pre, post, cpre, cpost)
}

func hostileStream(t *testing.T, policy string, seed int64, shape randstream.Shape, nops int) (matches int, hits int64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	ga := randstream.Graph(rand.New(rand.NewSource(seed)), shape)
	gb := randstream.Graph(rand.New(rand.NewSource(seed)), shape)
	nodes := len(ga.ByType(graph.TypeNode))
	opts := Options{Policy: policy, FluxionQuirks: true, FluxionFailures: true}
	ma, err := New(ga, opts)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := New(gb, opts)
	if err != nil {
		t.Fatal(err)
	}
	a, b := newFailTarget(ga, ma), newFailTarget(gb, mb)
	pool := []string{randstream.Jobspec(rng), randstream.Jobspec(rng), randstream.Jobspec(rng)}
	// resource-query -e counts before every match, or never.
	count := seed%2 == 0
	var ha, hb strings.Builder
	var now int64
	jobid := uint64(0)
	ida, idb := uint64(1<<24), uint64(1<<24)
	run := func(f func(t *failTarget) string) {
		ha.WriteString(f(a))
		memoOff = true
		hb.WriteString(f(b))
		memoOff = false
	}
	for i := 0; i < nops; i++ {
		k := rng.Intn(100)
		switch {
		case k < 45:
			op := hostileMatchOps[rng.Intn(len(hostileMatchOps))]
			pi := 0
			if rng.Intn(3) == 0 {
				pi = 1 + rng.Intn(2)
			}
			doc := pool[pi]
			jobid++
			id := jobid
			run(func(t *failTarget) string {
				return fmt.Sprintf("jobspec %d ", pi) + hostileMatch(t, op, doc, id, now, count)
			})
		case k < 55:
			id := uint64(1 + rng.Intn(int(jobid)+2))
			run(func(t *failTarget) string {
				t.m.SetErrno(ENOTTY)
				err := t.m.Cancel(id)
				pre, post := t.m.Visits()
				if err == nil {
					delete(t.rs, id)
				}
				return fmt.Sprintf("cancel %d: %v visits %d %d\n", id, err, pre, post)
			})
		case k < 60:
			id := uint64(1 + rng.Intn(int(jobid)+2))
			ranks := []int64{int64(rng.Intn(nodes + 1))}
			if rng.Intn(2) == 0 {
				ranks = append(ranks, int64(rng.Intn(nodes)))
			}
			run(func(t *failTarget) string {
				full, err := t.PartialCancel(id, ranks)
				if full && err == nil {
					delete(t.rs, id)
				}
				return fmt.Sprintf("partial cancel %d %v: %v %v\n", id, ranks, full, err)
			})
		case k < 80:
			o := drawFailOp(rng, nodes)
			if rng.Intn(4) == 0 && (o.kind == foUpdateJGF || o.kind == foUpdateExec) {
				// Windows Fluxion books without checking them.
				o.at = []int64{GraphEnd - 10, GraphEnd, GraphEnd + 1, -5, 1 << 62}[rng.Intn(5)] - now
				o.dur = []int64{0, -1, GraphEnd, 1 << 62, 60}[rng.Intn(5)]
			}
			ha.WriteString(a.apply(o, now, &ida))
			memoOff = true
			hb.WriteString(b.apply(o, now, &idb))
			memoOff = false
		case k < 88:
			typ := []string{"node", "node", "socket", "core", "rack", "gpu", "memory", "cluster"}[rng.Intn(8)]
			pick := rng.Int()
			st := graph.StatusDown
			if rng.Intn(3) == 0 {
				st = graph.StatusUp
			}
			run(func(t *failTarget) string {
				tid, ok := t.g.Types.Lookup(typ)
				if !ok {
					return "no " + typ + "\n"
				}
				vs := t.m.Graph().ByType(graph.TypeID(tid))
				if len(vs) == 0 {
					return "no " + typ + "\n"
				}
				p, ok := t.m.Graph().V(vs[pick%len(vs)]).PathIn(t.m.dom)
				if !ok {
					return "no path\n"
				}
				return fmt.Sprintf("status %s %v: %v\n", p, st, t.m.SetStatus(p, st))
			})
		case k < 92:
			pick, class := rng.Int(), fmt.Sprint(rng.Intn(4))
			run(func(t *failTarget) string {
				n := t.m.Graph().NumVertices()
				v := graph.VertexID(pick % n)
				t.m.SetProperty(v, "perf_class", class)
				return fmt.Sprintf("property %s (vertex %d) perf_class=%s\n", t.m.Graph().V(v).Name, v, class)
			})
		default:
			now += int64(1 + rng.Intn(600))
		}
		if x, y := ha.String(), hb.String(); x != y {
			k := 0
			for k < len(x) && k < len(y) && x[k] == y[k] {
				k++
			}
			k = strings.LastIndexByte(x[:k], '\n') + 1
			t.Fatalf("%s seed %d: op %d differs:\nreplays on:\n%s\nreplays off:\n%s", policy, seed, i,
				lastLines(x[:k], 12)+firstLines(x[k:], 12), lastLines(y[:k], 12)+firstLines(y[k:], 12))
		}
		checkFresh(t, ma, i)
	}
	if x, y := digest(ma), digest(mb); x != y {
		t.Fatalf("%s seed %d: schedules differ:\n%s", policy, seed, diffDigests(x, y))
	}
	return a.matches, ma.bestHits
}

// TestHostileReplays runs the streams above for every best-first policy.
func TestHostileReplays(t *testing.T) {
	n := 3
	if testing.Short() {
		n = 1
	}
	if *diffLong {
		n = 60
	}
	for _, p := range keyedPolicies {
		t.Run(p, func(t *testing.T) {
			matches, hits := 0, int64(0)
			for s := int64(1); s <= int64(n); s++ {
				for si, sh := range hostileShapes {
					m, h := hostileStream(t, p, 31000+10*s+int64(si), sh, 150)
					matches += m
					hits += h
				}
			}
			if hits == 0 {
				t.Errorf("no selection was decided best-first")
			}
			t.Logf("%d matches, %d selections decided best-first", matches, hits)
		})
	}
}
