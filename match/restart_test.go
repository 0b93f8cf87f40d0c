package match_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/policy"
	"github.com/gofluxion/gofluxion/rv1"
)

// Restart-recovery property tests: a scheduler that records every match as
// an R (rv1, or JGF) must be able to rebuild an identical schedule after a
// restart by re-applying the R of every live job to a fresh matcher
// (Matcher.UpdateRV1Exec / Matcher.UpdateJGF, spec traversal.md §15). The
// restored matcher must then take exactly the same decisions as the
// original for every later operation.
//
//	go test ./match -run 'Restart|AttachRemove' -roundtrip.n 2000 -roundtrip.seed 7
var (
	roundtripN    = flag.Int("roundtrip.n", 0, "random streams per restart/attach property test (0: a quick default)")
	roundtripSeed = flag.Int64("roundtrip.seed", 1, "seed of the restart/attach property tests")
)

// roundtripRuns is the number of random streams of one test: def normally,
// def/5 with -short, -roundtrip.n when given.
func roundtripRuns(def int) int {
	if *roundtripN > 0 {
		return *roundtripN
	}
	if testing.Short() {
		return max(def/5, 1)
	}
	return def
}

// staticPolicies are the policies that explore children in the static
// out-edge order (spec traversal.md §5.1). Their decisions depend only on
// the bookings, which an R restores.
//
// The dynamic-order policies (first, firstnodex, and any custom string with
// stop_on_1_matches=true) are left out of the "identical later decisions"
// checks: their child order is the order of edge weights, and a match
// re-keys the weights of the edges it traversed from the free resources
// below them (§5.3). Weights are never restored, not even by cancel, and an
// update walk re-keys only the edges of the job it applies, at the update's
// own time, so a restored matcher generally orders children differently
// from the original. TestRestartDynamicPolicies only checks that their
// Rs re-apply.
var staticPolicies = []string{
	"high", "low", "hinode", "lonode", "hinodex", "lonodex", "locality", "variation",
	"policy=low node_centric=true", "policy=high node_exclusive=true",
}

var dynamicPolicies = []string{"first", "firstnodex", "policy=low node_centric=true stop_on_1_matches=true"}

func pick[T any](rng *rand.Rand, l ...T) T { return l[rng.Intn(len(l))] }

// ---------------------------------------------------------------------------
// Graphs.

// rv1ShapeGraph builds a graph shaped like an rv1exec-loaded one, to which
// rv1exec Rs apply (traversal.md §15): <cluster> → hosts → cores and gpus.
// Hosts have distinct random ranks and ids (the host name's trailing
// digits); their children carry the host's rank. Vertices are created level
// by level (hosts, then cores, then gpus). With perf, perf_class properties
// are set at random (for the variation policy).
func rv1ShapeGraph(rng *rand.Rand, perf bool) *graph.Graph {
	b := graph.NewBuilder()
	root := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename(pick(rng, "cluster", "tiny", "c")))
	nn := 1 + rng.Intn(4)
	base := pick(rng, "node", "fluke", "n")
	ranks := rng.Perm(nn + 2)[:nn]
	ids := rng.Perm(2 * nn)[:nn]
	nodes := make([]graph.VertexID, nn)
	for i := range nodes {
		nodes[i] = b.MustAdd(root, "node", int64(ids[i]), graph.WithBasename(base), graph.WithRank(int64(ranks[i])))
	}
	ncores := make([]int, nn)
	for i, n := range nodes {
		ncores[i] = 1 + rng.Intn(4)
		for c := 0; c < ncores[i]; c++ {
			b.MustAdd(n, "core", int64(c), graph.WithRank(int64(ranks[i])))
		}
	}
	for i, n := range nodes {
		for c := range rng.Intn(3) {
			b.MustAdd(n, "gpu", int64(c), graph.WithRank(int64(ranks[i])))
		}
	}
	g := b.Graph()
	if perf {
		setPerfClasses(rng, g)
	}
	return g
}

// rackGraph builds <cluster> → 1-2 racks → 1-3 nodes → 1-2 sockets → 1-3
// cores, 0-1 gpu and 0-1 memory pool of size 1-4 per socket, level by level
// like the GRUG reader (node ranks 0, 1, …; everything else rank -1).
func rackGraph(rng *rand.Rand, perf bool) *graph.Graph {
	b := graph.NewBuilder()
	root := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename(pick(rng, "cluster", "tiny")))
	var racks, nodes, sockets []graph.VertexID
	for i := range 1 + rng.Intn(2) {
		racks = append(racks, b.MustAdd(root, "rack", int64(i)))
	}
	nid := 0
	for _, r := range racks {
		for range 1 + rng.Intn(3) {
			nodes = append(nodes, b.MustAdd(r, "node", int64(nid)))
			nid++
		}
	}
	for _, n := range nodes {
		for i := range 1 + rng.Intn(2) {
			sockets = append(sockets, b.MustAdd(n, "socket", int64(i)))
		}
	}
	for _, s := range sockets {
		for i := range 1 + rng.Intn(3) {
			b.MustAdd(s, "core", int64(i))
		}
	}
	for _, s := range sockets {
		if rng.Intn(2) == 0 {
			b.MustAdd(s, "gpu", 0)
		}
	}
	for _, s := range sockets {
		if rng.Intn(2) == 0 {
			b.MustAdd(s, "memory", 0, graph.WithSize(int64(1+rng.Intn(4))), graph.WithUnit("GB"))
		}
	}
	g := b.Graph()
	if perf {
		setPerfClasses(rng, g)
	}
	return g
}

func setPerfClasses(rng *rand.Rand, g *graph.Graph) {
	for v := 0; v < g.NumVertices(); v++ {
		if rng.Intn(2) == 0 {
			g.V(graph.VertexID(v)).SetProp("perf_class", fmt.Sprint(rng.Intn(3)))
		}
	}
}

// ---------------------------------------------------------------------------
// Jobspecs, generated as YAML documents.

// jres is one resource of a generated jobspec.
type jres struct {
	typ   string
	count string // YAML value of count
	excl  bool
	with  []*jres
}

func jr(typ, count string, with ...*jres) *jres { return &jres{typ: typ, count: count, with: with} }
func jrx(typ, count string, with ...*jres) *jres {
	return &jres{typ: typ, count: count, excl: true, with: with}
}

func (j *jres) yaml(b *strings.Builder, ind string) {
	fmt.Fprintf(b, "%s- type: %s\n%s  count: %s\n", ind, j.typ, ind, j.count)
	if j.excl {
		fmt.Fprintf(b, "%s  exclusive: true\n", ind)
	}
	if j.typ == "slot" {
		fmt.Fprintf(b, "%s  label: default\n", ind)
	}
	if len(j.with) > 0 {
		fmt.Fprintf(b, "%s  with:\n", ind)
		for _, c := range j.with {
			c.yaml(b, ind+"    ")
		}
	}
}

func jobspecYAML(duration int, res ...*jres) string {
	var b strings.Builder
	b.WriteString("version: 1\nresources:\n")
	for _, x := range res {
		x.yaml(&b, "  ")
	}
	fmt.Fprintf(&b, "attributes:\n  system:\n    duration: %d\n", duration)
	b.WriteString("tasks:\n  - command: [ \"app\" ]\n    slot: default\n    count:\n      per_slot: 1\n")
	return b.String()
}

// count returns a random count: mostly 1, sometimes 2 or 3, sometimes a
// min/max range.
func count(rng *rand.Rand) string {
	switch rng.Intn(10) {
	case 0:
		return fmt.Sprintf("{min: 1, max: %d, operator: \"+\", operand: 1}", 2+rng.Intn(2))
	case 1, 2:
		return "2"
	case 3:
		return "3"
	}
	return "1"
}

// randomRequest returns a random jobspec for a graph of the given shape.
//
// Every request takes whole vertices, so that its R can be re-applied:
// cores and gpus have size 1, and memory pools (rack-level graphs only)
// are only requested below an exclusive socket or node, which takes its
// whole subtree (traversal.md §9.2). A request that took part of a pool
// writes the part as the JGF "size", which update then rejects as not
// equal to the pool size (traversal.md §15).
func randomRequest(rng *rand.Rand, rackLevel, wholeNodes bool, g *graph.Graph) string {
	for {
		var y string
		var types []string
		if wholeNodes {
			y, types = wholeNodeRequest(rng)
		} else {
			y, types = randomRequestTypes(rng, rackLevel)
		}
		known := true
		for _, t := range types {
			if _, ok := g.Types.Lookup(t); !ok {
				known = false
			}
		}
		if known {
			return y
		}
	}
}

// wholeNodeRequest returns a random request for exclusive nodes (each
// takes its node's whole subtree, traversal.md §9.2), for rv1exec Rs.
func wholeNodeRequest(rng *rand.Rand) (string, []string) {
	c := func() string { return count(rng) }
	var res *jres
	types := []string{"node", "slot", "core"}
	switch rng.Intn(4) {
	case 0:
		res = jrx("node", c())
		types = types[:1]
	case 1:
		res = jrx("node", c(), jr("slot", "1", jr("core", "1"), jr("gpu", "1")))
		types = append(types, "gpu")
	default:
		res = jrx("node", c(), jr("slot", c(), jr("core", "1")))
	}
	if rng.Intn(3) == 0 {
		res = jr("cluster", "1", res)
	}
	return jobspecYAML(pick(rng, 10, 20, 50, 100, 3600), res), types
}

// randomRequestTypes returns a random jobspec and the types it names.
func randomRequestTypes(rng *rand.Rand, rackLevel bool) (string, []string) {
	c := func() string { return count(rng) }
	leaves := func() []*jres {
		switch rng.Intn(4) {
		case 0:
			return []*jres{jr("core", c()), jr("gpu", "1")}
		case 1:
			return []*jres{jr("gpu", "1")}
		}
		return []*jres{jr("core", c())}
	}
	var res *jres
	if !rackLevel {
		switch rng.Intn(8) {
		case 0:
			res = jr("slot", c(), leaves()...)
		case 1:
			res = jr("node", c(), jr("slot", c(), leaves()...))
		case 2:
			res = jrx("node", c(), jr("slot", "1", jr("core", "1")))
		case 3:
			res = jrx("node", c())
		case 4:
			res = jrx("core", c())
		case 5:
			res = jr("slot", c(), jr("gpu", "1"))
		case 6:
			res = jr("node", "1", jr("slot", c(), jr("core", c()), jr("gpu", "1")))
		default:
			res = jr("slot", "1", jr("core", c()))
		}
	} else {
		// A slot whose children are not direct children of the vertex
		// it is matched at fails (node→slot→core on node→socket→core,
		// traversal.md §8.5), so requests name the socket level.
		switch rng.Intn(11) {
		case 0:
			res = jr("slot", c(), leaves()...)
		case 1:
			res = jr("node", c(), jr("slot", c(), jr("socket", "1", leaves()...)))
		case 2:
			res = jrx("node", c(), jr("slot", "1", jr("core", "1")))
		case 3:
			res = jrx("node", c())
		case 4:
			res = jrx("socket", c(), jr("core", "1"), jr("memory", "1"))
		case 5:
			res = jr("node", "1", jr("socket", c(), jr("slot", c(), jr("core", c()))))
		case 6:
			res = jr("slot", c(), jr("socket", "1", jr("core", c())))
		case 7:
			res = jr("rack", "1", jr("node", c(), jr("socket", "1", jr("slot", "1", jr("core", c())))))
		case 8:
			res = jrx("socket", "1")
		case 9:
			res = jr("node", "1", jr("slot", c(), jr("socket", "1", leaves()...)))
		default:
			res = jr("slot", "1", jr("core", c()))
		}
	}
	if rng.Intn(3) == 0 {
		res = jr("cluster", "1", res)
	}
	var types []string
	var walk func(j *jres)
	walk = func(j *jres) {
		types = append(types, j.typ)
		for _, c := range j.with {
			walk(c)
		}
	}
	walk(res)
	return jobspecYAML(pick(rng, 10, 20, 50, 100, 3600), res), types
}

func parseFor(tb testing.TB, g *graph.Graph, yaml string) *jobspec.Jobspec {
	tb.Helper()
	js, err := jobspec.Parse([]byte(yaml), jobspec.Options{KnownType: func(t string) bool {
		_, ok := g.Types.Lookup(t)
		return ok
	}})
	if err != nil {
		tb.Fatalf("jobspec.Parse: %v\n%s", err, yaml)
	}
	return js
}

// ---------------------------------------------------------------------------
// Running operations.

// outcome is what an operation produced, as a scheduler sees it.
type outcome struct {
	out   string // rendered output
	at    int64  // start time
	class string // "ok" or the error class
	msg   string // the error text
}

func (o outcome) String() string {
	return fmt.Sprintf("class=%s at=%d msg=%q\n%s", o.class, o.at, o.msg, o.out)
}

func errClass(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, match.ErrBusy):
		return "busy"
	case errors.Is(err, match.ErrUnsatisfiable):
		return "unsatisfiable"
	case errors.Is(err, match.ErrInvalid):
		return "invalid"
	case errors.Is(err, match.ErrNotFound):
		return "notfound"
	}
	return "other"
}

// timesWriter forwards to a writer and keeps the times it was given.
type timesWriter struct {
	emit.Writer
	start, end int64
}

func (w *timesWriter) Times(start, end int64) {
	w.start, w.end = start, end
	w.Writer.Times(start, end)
}

// recFormat is how a scheduler records its matches and re-applies them.
type recFormat int

const (
	fmtRV1Exec   recFormat = iota // rv1 writer; UpdateRV1Exec of the R
	fmtRV1JGF                     // rv1 writer; UpdateJGF of its "scheduling" key
	fmtJGF                        // jgf writer; UpdateJGF
	fmtShorthand                  // jgf_shorthand writer; UpdateJGF(shorthand)
)

func (f recFormat) String() string {
	return [...]string{"rv1exec", "rv1-scheduling", "jgf", "jgf_shorthand"}[f]
}

func (f recFormat) writer() emit.Writer {
	switch f {
	case fmtJGF:
		return jgf.NewWriter()
	case fmtShorthand:
		return jgf.NewShorthandWriter()
	}
	return rv1.NewWriter(rv1.RV1)
}

// liveJob is a job the scheduler knows to hold resources.
type liveJob struct {
	id         uint64
	r          string // its recorded R
	start, end int64
}

// runMatch runs one match with a fresh writer of format f.
func runMatch(m *match.Matcher, f recFormat, op match.Op, js *jobspec.Jobspec, job uint64, now int64) (outcome, int64) {
	w := &timesWriter{Writer: f.writer()}
	at, err := m.Match(op, js, job, now, w)
	out, rerr := w.Render()
	if err == nil && rerr != nil {
		err = rerr
	}
	o := outcome{out: out, at: at, class: errClass(err)}
	if err != nil {
		o.msg = err.Error()
	}
	return o, w.end
}

// scheduling returns the "scheduling" member of an rv1 R.
func scheduling(r string) ([]byte, error) {
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

// restore re-applies the recorded R of job j to m, as a restarted
// scheduler does, and returns what the update emitted.
func restore(m *match.Matcher, f recFormat, j liveJob) (string, error) {
	w := f.writer()
	var err error
	switch f {
	case fmtRV1Exec:
		var r *rv1.R
		if r, err = rv1.ParseR([]byte(j.r)); err == nil {
			// Times come from the R itself.
			start, end := int64(r.Starttime), int64(r.Expiration)
			if start != j.start || end != j.end {
				return "", fmt.Errorf("R times %d-%d, match times %d-%d", start, end, j.start, j.end)
			}
			err = m.UpdateRV1Exec(r, j.id, start, end-start, w)
		}
	case fmtRV1JGF:
		var r *rv1.R
		if r, err = rv1.ParseR([]byte(j.r)); err != nil {
			break
		}
		var data []byte
		if data, err = scheduling(j.r); err != nil {
			break
		}
		var doc *jgf.Document
		if doc, err = jgf.Parse(data); err == nil {
			start, end := int64(r.Starttime), int64(r.Expiration)
			err = m.UpdateJGF(doc, false, j.id, start, end-start, w)
		}
	default:
		var doc *jgf.Document
		if doc, err = jgf.Parse([]byte(j.r)); err == nil {
			err = m.UpdateJGF(doc, f == fmtShorthand, j.id, j.start, j.end-j.start, w)
		}
	}
	if err != nil {
		return "", err
	}
	return w.Render()
}

// streamState is one matcher plus the scheduler's view of its jobs.
type streamState struct {
	m    *match.Matcher
	live map[uint64]liveJob
}

func (s *streamState) liveIDs() []uint64 {
	var ids []uint64
	for id := range s.live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// restartCase is one random restart scenario.
type restartCase struct {
	seed      int64
	policy    string
	rackLevel bool
	format    recFormat
	// lazy selects the scheduler model (see runRestart).
	lazy bool
}

// wholeNodeRequests reports whether the stream must only ask for whole
// nodes. An rv1exec R carries no exclusivity, so its update stamps every
// host of the R exclusive (traversal.md §15) and the pruning filters above
// count the host as used, while the original match, which used the host
// shared (a job that took some of its cores), did not. The restored
// matcher would then prune requests for several nodes that the original
// grants (e.g. node[2] on four hosts, one taken whole and two running a
// one-core job each). With the node-exclusive policies every selected host
// is whole anyway.
func (c restartCase) wholeNodeRequests() bool {
	if c.format != fmtRV1Exec {
		return false
	}
	p, err := policy.New(c.policy)
	return err != nil || !slices.Contains(p.ExclusiveTypes(), "node")
}

func (c restartCase) String() string {
	return fmt.Sprintf("seed=%d policy=%q rack=%v format=%v lazy=%v", c.seed, c.policy, c.rackLevel, c.format, c.lazy)
}

// runRestart runs one scenario: a random stream on a matcher, a restart at
// a random point, and (when compare is set) the rest of the stream on both
// the original and the restored matcher, which must agree on every
// operation. It returns the number of jobs re-applied and of operations
// compared.
//
// An update always books an allocation, never a reservation (traversal.md
// §15), and the two differ in one place: an exclusive request at the
// current time fails on a vertex that holds any allocation, even one that
// ended or has not started yet (§6.4, the guard against jobs overrunning
// their time). So the scheduler is modelled in one of two ways:
//
//   - prompt (default): it cancels every job as soon as the clock reaches
//     its end, and uses allocate and allocate_orelse_reserve. At a restart
//     it drops the reservations that have not started yet (a scheduler
//     re-plans its queue after a restart) and re-applies every other job.
//     A reservation that has started is re-applied as an allocation, which
//     makes no difference as long as the job is cancelled when it ends.
//   - lazy: it cancels jobs at random times only, possibly long after they
//     ended, and only allocates (no reservations). At a restart it
//     re-applies every job it has not cancelled, including jobs that have
//     ended, since their allocations still block exclusive use.
func runRestart(t *testing.T, c restartCase, compare bool) (restored, compared, granted int) {
	t.Helper()
	rng := rand.New(rand.NewSource(c.seed))
	perf := c.policy == "variation"
	var pristine *graph.Graph
	if c.rackLevel {
		pristine = rackGraph(rng, perf)
	} else {
		pristine = rv1ShapeGraph(rng, perf)
	}
	g := pristine.Clone()
	m, err := match.New(g, match.Options{Policy: c.policy})
	if err != nil {
		t.Fatalf("%v: New: %v", c, err)
	}
	orig := &streamState{m: m, live: map[uint64]liveJob{}}

	nops := 10 + rng.Intn(30)
	restartAt := rng.Intn(nops)
	var restoredSt *streamState
	var now int64
	var nextJob uint64 = 1
	var trace []string
	fail := func(f string, a ...any) {
		t.Helper()
		t.Fatalf("%v\ngraph vertices %d\ntrace:\n%s\n%s", c, g.NumVertices(), strings.Join(trace, "\n"), fmt.Sprintf(f, a...))
	}
	states := []*streamState{orig}
	var got []string
	// cancel cancels job id on every matcher.
	cancel := func(id uint64, why string) {
		for _, s := range states {
			err := s.m.Cancel(id)
			got = append(got, fmt.Sprintf("cancel %d (%s): %s %v", id, why, errClass(err), err))
			delete(s.live, id)
		}
		trace = append(trace, got[len(got)-len(states)])
	}
	compareGot := func(i int) {
		if len(states) == 2 {
			for k := 0; k+1 < len(got); k += 2 {
				compared++
				if strings.HasPrefix(got[k], "class=ok") {
					granted++
				}
				if got[k] != got[k+1] {
					fail("op %d differs after the restart:\noriginal: %s\nrestored: %s", i, got[k], got[k+1])
				}
			}
		}
		got = got[:0]
	}
	for i := 0; i < nops; i++ {
		if i == restartAt {
			// Restart: a fresh matcher on a fresh copy of the graph,
			// fed the R of every job the scheduler keeps.
			if !c.lazy {
				for _, id := range orig.liveIDs() {
					if orig.live[id].start > now {
						cancel(id, "reservation dropped at restart")
					}
				}
				got = got[:0]
			}
			rm, err := match.New(pristine.Clone(), match.Options{Policy: c.policy})
			if err != nil {
				t.Fatal(err)
			}
			restoredSt = &streamState{m: rm, live: map[uint64]liveJob{}}
			for _, id := range orig.liveIDs() {
				j := orig.live[id]
				re, err := restore(rm, c.format, j)
				if err != nil {
					fail("restart at op %d (now %d): re-applying job %d failed: %v\nR: %s", i, now, id, err, j.r)
				}
				// The update emits exactly what the match did. For
				// rv1exec this holds because every job of these streams
				// takes whole hosts: rv1exec carries no exclusivity or
				// sizes, so an update stamps every edge below a host
				// exclusive (traversal.md §15) and a host that the match
				// shared would come back exclusive in the scheduling JGF
				// (the execution part would still be the same).
				if re != j.r {
					fail("restart: re-applying job %d emitted\n%s\nbut the match emitted\n%s", id, re, j.r)
				}
				restoredSt.live[id] = j
				restored++
			}
			trace = append(trace, fmt.Sprintf("-- restart at now=%d, %d jobs re-applied", now, len(restoredSt.live)))
			if !compare {
				return restored, 0, 0
			}
			states = append(states, restoredSt)
		}
		if rng.Intn(4) == 0 {
			now += int64(rng.Intn(40))
			trace = append(trace, fmt.Sprintf("-- now=%d", now))
			if !c.lazy {
				for _, id := range orig.liveIDs() {
					if orig.live[id].end <= now {
						cancel(id, "ended")
					}
				}
			}
		}
		switch k := rng.Intn(10); {
		case k < 3 && len(orig.live) > 0:
			ids := orig.liveIDs()
			cancel(ids[rng.Intn(len(ids))], "random")
		default:
			op := match.Allocate
			if k >= 6 && !c.lazy {
				op = match.AllocateOrElseReserve
			}
			yaml := randomRequest(rng, c.rackLevel, c.wholeNodeRequests(), g)
			job := nextJob
			nextJob++
			for _, s := range states {
				js := parseFor(t, s.m.Graph(), yaml)
				o, end := runMatch(s.m, c.format, op, js, job, now)
				if o.class == "ok" {
					s.live[job] = liveJob{id: job, r: o.out, start: o.at, end: end}
				}
				got = append(got, o.String())
			}
			trace = append(trace, fmt.Sprintf("%v job %d now=%d: %s\n  -> %s", op, job, now,
				strings.Join(strings.Fields(yaml), " "), strings.ReplaceAll(got[len(got)-len(states)], "\n", "\n     ")))
		}
		compareGot(i)
	}
	return restored, compared, granted
}

func restartCases(rng *rand.Rand, n int, policies []string, formats []recFormat) []restartCase {
	var l []restartCase
	for i := 0; i < n; i++ {
		f := pick(rng, formats...)
		rack := rng.Intn(2) == 0
		if f == fmtRV1Exec {
			rack = false // rv1exec only applies to cluster → host → leaves graphs
		}
		lazy := rng.Intn(3) == 0
		if f == fmtShorthand {
			// A jgf_shorthand R omits what lies below an exclusive
			// vertex and its update books the whole subtree instead
			// (formats.md §2.1): a slot's socket taken for one of its
			// cores comes back with all its cores, gpus and memory
			// allocated. While the job runs nobody else can enter the
			// socket anyway, but once it has ended and is not
			// cancelled, the extra allocations block exclusive use at
			// the current time (traversal.md §6.4) where the original
			// matcher does not. So shorthand runs with the prompt
			// scheduler only.
			lazy = false
		}
		l = append(l, restartCase{seed: rng.Int63(), policy: pick(rng, policies...), rackLevel: rack, format: f, lazy: lazy})
	}
	return l
}

func TestRestartRecovery(t *testing.T) {
	formats := []recFormat{fmtRV1Exec, fmtRV1JGF, fmtJGF, fmtShorthand}
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			rng := rand.New(rand.NewSource(*roundtripSeed + int64(f)))
			restored, compared, granted := 0, 0, 0
			for _, c := range restartCases(rng, roundtripRuns(300), staticPolicies, []recFormat{f}) {
				r, n, ok := runRestart(t, c, true)
				restored += r
				compared += n
				granted += ok
			}
			if restored == 0 || granted == 0 {
				t.Errorf("nothing tested: %d jobs restored, %d later operations compared, %d of them granted", restored, compared, granted)
			}
			t.Logf("%d jobs re-applied, %d later operations compared (%d matches granted)", restored, compared, granted)
		})
	}
}

// TestRestartDynamicPolicies: with first, firstnodex and stop_on_1_matches
// custom policies only the re-application itself is checked (every live
// job's R applies and re-emits the same selection), not later decisions:
// see staticPolicies.
func TestRestartDynamicPolicies(t *testing.T) {
	rng := rand.New(rand.NewSource(*roundtripSeed + 100))
	restored := 0
	for _, c := range restartCases(rng, roundtripRuns(150), dynamicPolicies, []recFormat{fmtRV1Exec, fmtRV1JGF, fmtJGF}) {
		r, _, _ := runRestart(t, c, false)
		restored += r
	}
	if restored == 0 {
		t.Error("no job was re-applied")
	}
}
