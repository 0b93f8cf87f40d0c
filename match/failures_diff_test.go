package match

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/randstream"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/rv1"
)

// The differential test of the best-first walk (with its replays) under
// resource-query's options, FluxionQuirks and FluxionFailures: there
// failed operations leave Fluxion's half-changed state behind (released
// spans whose records stay, records dropped whose spans stay, filters
// behind their planners), and the replays of untouched subtrees must see
// every such vertex as touched. Random mixed streams run in lockstep on a
// best-first matcher and on one forced onto the reference walk, each on
// its own copy of the graph, with operations that fail half-way mixed in:
// partial cancels from a subset of a job's JGF R (in any order, shared
// vertices included), updates from a job's R (JGF and rv1exec, under a new
// id or over a live job), rank and path removals, node status changes and
// cancels of what updates booked. Every outcome, the rendered R, the visit
// counts resource-query prints and the final schedule must agree, and the
// best-first side's freshness counts must match a recount after every
// operation.
//
//	go test ./match -run DifferentialFailures -diff.long

// failTarget is one side of the stream (randstream.Target).
type failTarget struct {
	g         *graph.Graph
	m         *Matcher
	w         *rv1.Writer
	count     bool // CountVisits before each match (the best-first side)
	js        map[string]*jobspec.Jobspec
	errs      map[string]error
	rs        map[uint64]string // the last R rendered for each job
	matches   int
	pre, post int64
}

func newFailTarget(g *graph.Graph, m *Matcher) *failTarget {
	return &failTarget{g: g, m: m, w: rv1.NewWriter(rv1.RV1), js: map[string]*jobspec.Jobspec{}, errs: map[string]error{}, rs: map[uint64]string{}}
}

func (t *failTarget) Match(kind randstream.Kind, doc string, jobid uint64, now int64) (int64, string, error) {
	js, err := parseCached(t.g, t.js, t.errs, doc)
	if err != nil {
		return 0, "", err
	}
	t.matches++
	t.m.SetErrno(ENOTTY)
	if t.count {
		t.pre, t.post = t.m.CountVisits(diffOps[kind], js, jobid, now)
	}
	at, err := t.m.Match(diffOps[kind], js, jobid, now, t.w)
	if !t.count {
		t.pre, t.post = t.m.Visits()
	}
	out, rerr := t.w.Render()
	if err == nil && rerr == nil && out != "" && kind != randstream.Satisfiability {
		t.rs[jobid] = out
	}
	return at, fmt.Sprintf("%s\nrender %v visits %d %d\n", out, rerr, t.pre, t.post), err
}

func (t *failTarget) Cancel(jobid uint64) error {
	t.m.SetErrno(ENOTTY)
	err := t.m.Cancel(jobid)
	pre, post := t.m.Visits()
	return fmt.Errorf("%v visits %d %d", err, pre, post)
}

func (t *failTarget) PartialCancel(jobid uint64, ranks []int64) (bool, error) {
	t.m.SetErrno(ENOTTY)
	return t.m.PartialCancel(jobid, ranks)
}

// failOp is an operation outside randstream's, drawn once and applied to
// both sides. The jobs, vertices and ranks it names are picked on each
// side from indexes into what that side has, which agrees while the
// sides do.
type failOp struct {
	kind     int
	pick     int   // a job or a vertex, modulo their number
	pick2    int   // a second job (updates: whose R)
	seed     int64 // the subset and order of a partial cancel's vertices
	at, dur  int64
	newID    bool
	rank     int64
	typ      string
	shortcut bool
}

const (
	foPartialJGF = iota
	foUpdateJGF
	foUpdateExec
	foStatus
	foCancelUpdated
	foRemoveRank
	foRemovePath
	foKinds
)

func drawFailOp(rng *rand.Rand, nodes int) failOp {
	o := failOp{kind: rng.Intn(foRemoveRank), pick: rng.Int(), pick2: rng.Int(), seed: rng.Int63(),
		at: int64(rng.Intn(4)) * 100, dur: 1 + int64(rng.Intn(3600)), newID: rng.Intn(3) > 0, shortcut: rng.Intn(2) == 0}
	if rng.Intn(12) == 0 {
		o.kind = foRemoveRank + rng.Intn(foKinds-foRemoveRank)
	}
	o.rank = int64(rng.Intn(nodes + 1))
	o.typ = []string{"node", "socket", "core", "rack"}[rng.Intn(4)]
	return o
}

// jobsWithR returns the jobs with a recorded R, ascending.
func (t *failTarget) jobsWithR() []uint64 {
	var l []uint64
	for j := range t.rs {
		l = append(l, j)
	}
	slices.Sort(l)
	return l
}

// apply runs o at time now and describes the outcome.
func (t *failTarget) apply(o failOp, now int64, nextID *uint64) string {
	m := t.m
	m.SetErrno(ENOTTY)
	jobs := t.jobsWithR()
	switch o.kind {
	case foPartialJGF, foUpdateJGF, foUpdateExec:
		if len(jobs) == 0 {
			return "no job\n"
		}
		job := jobs[o.pick%len(jobs)]
		r := t.rs[job]
		parsed, err := rv1.ParseR([]byte(r))
		if err != nil {
			return fmt.Sprintf("R of job %d: %v\n", job, err)
		}
		sched, err := rSchedulingKey(r)
		if err != nil {
			return fmt.Sprintf("R of job %d: %v\n", job, err)
		}
		doc, err := jgf.Parse(sched)
		if err != nil {
			return fmt.Sprintf("JGF of job %d: %v\n", job, err)
		}
		if o.kind == foPartialJGF {
			// A random non-empty subset of the R's vertices, in random
			// order: one listing a vertex the job holds shared fails
			// half-way under FluxionFailures.
			rng := rand.New(rand.NewSource(o.seed))
			nodes := slices.Clone(doc.Nodes)
			rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
			nodes = nodes[:1+rng.Intn(len(nodes))]
			full, err := m.PartialCancelJGF(job, &jgf.Document{Nodes: nodes})
			if full && err == nil {
				delete(t.rs, job)
			}
			return fmt.Sprintf("partial-cancel-jgf job %d %d vertices: %v %v\n", job, len(nodes), full, err)
		}
		id := jobs[o.pick2%len(jobs)]
		if o.newID {
			id = *nextID
			*nextID++
		}
		at := now + o.at
		if o.kind == foUpdateJGF {
			err = m.UpdateJGF(doc, false, id, at, o.dur, t.w)
		} else {
			err = m.UpdateRV1Exec(parsed, id, at, o.dur, t.w)
		}
		out, rerr := t.w.Render()
		if err == nil && rerr == nil && out != "" {
			t.rs[id] = out
		}
		return fmt.Sprintf("update %d from job %d's R as job %d at %d: %v\n%s\nrender %v\n", o.kind, job, id, at, err, out, rerr)
	case foStatus:
		nodes := t.m.Graph().ByType(graph.TypeNode)
		if len(nodes) == 0 {
			return "no node\n"
		}
		v := nodes[o.pick%len(nodes)]
		p, _ := t.m.Graph().V(v).PathIn(m.dom)
		st := graph.StatusDown
		if t.m.Graph().V(v).Status == graph.StatusDown {
			st = graph.StatusUp
		}
		return fmt.Sprintf("status %s %v: %v\n", p, st, m.SetStatus(p, st))
	case foCancelUpdated:
		var upd []uint64
		for _, j := range jobs {
			if j >= 1<<24 {
				upd = append(upd, j)
			}
		}
		if len(upd) == 0 {
			return "no updated job\n"
		}
		job := upd[o.pick%len(upd)]
		err := m.Cancel(job)
		pre, post := m.Visits()
		delete(t.rs, job)
		return fmt.Sprintf("cancel updated job %d: %v visits %d %d\n", job, err, pre, post)
	case foRemoveRank:
		err := m.RemoveRanks([]int64{o.rank})
		return fmt.Sprintf("remove rank %d: %v ended %v\n", o.rank, err, m.Ended())
	case foRemovePath:
		typ, ok := t.m.Graph().Types.Lookup(o.typ)
		var vs []graph.VertexID
		if ok {
			vs = t.m.Graph().ByType(graph.TypeID(typ))
		}
		if len(vs) == 0 {
			return "no " + o.typ + "\n"
		}
		v := vs[o.pick%len(vs)]
		p, ok := t.m.Graph().V(v).PathIn(m.dom)
		if !ok {
			return "no path\n"
		}
		err := m.RemovePath(p)
		return fmt.Sprintf("remove %s: %v ended %v\n", p, err, m.Ended())
	}
	return ""
}

// rSchedulingKey returns the "scheduling" member of an rv1 R.
func rSchedulingKey(r string) ([]byte, error) {
	var doc struct {
		Scheduling json.RawMessage `json:"scheduling"`
	}
	if err := json.Unmarshal([]byte(r), &doc); err != nil {
		return nil, err
	}
	if doc.Scheduling == nil {
		return nil, errors.New("R has no scheduling key")
	}
	return doc.Scheduling, nil
}

func firstLines(s string, n int) string {
	l := strings.Split(s, "\n")
	if len(l) > n {
		l = l[:n]
	}
	return strings.Join(l, "\n")
}

// failCase is one stream of the test.
type failCase struct {
	policy string
	seed   int64
	shape  randstream.Shape
	nops   int
	heavy  bool // heavyOps: reservations, big requests, cancel bursts
	clone  bool // continue the best-first side on a clone half way
	fresh  bool // recount the freshness counts after every operation
}

func diffFailures(t *testing.T, c failCase) int {
	t.Helper()
	rng := rand.New(rand.NewSource(c.seed))
	gr := randstream.Graph(rng, c.shape)
	nodes := len(gr.ByType(graph.TypeNode))
	ops := randstream.Ops(rng, c.nops, nodes)
	if c.heavy {
		ops = heavyOps(rng, ops, nodes)
	}
	gf := randstream.Graph(rand.New(rand.NewSource(c.seed)), c.shape)
	opts := Options{Policy: c.policy, FluxionQuirks: true, FluxionFailures: true}
	ref, err := New(gr, opts)
	if err != nil {
		t.Fatal(err)
	}
	ref.exhaustive = true
	fast, err := New(gf, opts)
	if err != nil {
		t.Fatal(err)
	}
	rt, ft := newFailTarget(gr, ref), newFailTarget(gf, fast)
	ft.count = true
	var rh, fh lineHash
	rr, fr := &randstream.Runner{T: rt, H: &rh}, &randstream.Runner{T: ft, H: &fh}
	xrng := rand.New(rand.NewSource(c.seed + 1))
	var now int64
	rid, fid := uint64(1<<24), uint64(1<<24)
	for i, op := range ops {
		if c.clone && i == len(ops)/2 {
			fast = fast.Clone()
			ft.m = fast
		}
		if op.Kind == randstream.Advance {
			now += op.Delta
		}
		rr.Step(op)
		fr.Step(op)
		if xrng.Intn(3) == 0 {
			o := drawFailOp(xrng, nodes)
			fmt.Fprintf(&rh, "extra %d: %s", i, rt.apply(o, now, &rid))
			fmt.Fprintf(&fh, "extra %d: %s", i, ft.apply(o, now, &fid))
		}
		if a, b := rh.String(), fh.String(); a != b {
			k := 0
			for k < len(a) && k < len(b) && a[k] == b[k] {
				k++
			}
			k = strings.LastIndexByte(a[:k], '\n') + 1
			t.Fatalf("%s seed %d: op %d (%+v) differs:\nreference:\n%s\nbest-first:\n%s", c.policy, c.seed, i, op,
				lastLines(a[:k], 12)+firstLines(a[k:], 12), lastLines(b[:k], 12)+firstLines(b[k:], 12))
		}
		if c.fresh {
			checkFresh(t, fast, i)
		}
	}
	if a, b := digest(ref), digest(fast); a != b {
		t.Fatalf("%s seed %d: schedules differ:\n%s", c.policy, c.seed, diffDigests(a, b))
	}
	if !strings.Contains(rh.String(), "err <nil>") {
		t.Logf("%s seed %d: no match succeeded", c.policy, c.seed)
	}
	diffHits += fast.bestHits
	return rt.matches
}

// TestDifferentialFailures compares the best-first walk with the
// reference under FluxionQuirks and FluxionFailures, with failing
// operations mixed in (see above).
func TestDifferentialFailures(t *testing.T) {
	small, large := 16, 1
	if testing.Short() {
		small, large = 2, 0
	}
	if *diffLong {
		small, large = 200, 4
	}
	for _, p := range keyedPolicies {
		t.Run(p, func(t *testing.T) {
			n := 0
			defer func(n int) { minSkip = n }(minSkip)
			for s := int64(1); s <= int64(small); s++ {
				minSkip = []int{2, 32}[s%2]
				n += diffFailures(t, failCase{policy: p, seed: 11000 + s, shape: randstream.Small, nops: 80, fresh: true, clone: s%4 == 0, heavy: s%4 == 1})
			}
			minSkip = 32
			for s := int64(1); s <= int64(large); s++ {
				n += diffFailures(t, failCase{policy: p, seed: 12000 + s, shape: randstream.Large, nops: 120, clone: s%2 == 0})
			}
			t.Logf("%d matches, %d selections decided best-first", n, diffHits)
			diffHits = 0
		})
	}
}
