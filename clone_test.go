package gofluxion

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Copy-on-write Clone of the root Matcher (whose job table is shared with
// the clone too): random operations on an original and its clones,
// interleaved, each compared with an independent replay of its own
// operations on a fresh Matcher.

var cloneSpecs = []string{
	`version: 1
resources: [{type: slot, count: 1, label: default, with: [{type: core, count: 2}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`,
	`version: 1
resources: [{type: node, count: 1, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`,
	`version: 1
resources: [{type: node, count: 3, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 4}]}]}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`,
}

// attachNode is a JGF adding node n (rank n) with one socket of two cores
// under the demo graph's rack0.
func attachNode(n int) []byte {
	return fmt.Appendf(nil, `{"graph": {"nodes": [
 {"id": "0", "metadata": {"type": "cluster", "basename": "demo", "id": 0, "paths": {"containment": "/demo0"}}},
 {"id": "1", "metadata": {"type": "rack", "id": 0, "paths": {"containment": "/demo0/rack0"}}},
 {"id": "%[2]d", "metadata": {"type": "node", "id": %[1]d, "rank": %[1]d, "paths": {"containment": "/demo0/rack0/node%[1]d"}}},
 {"id": "%[3]d", "metadata": {"type": "socket", "id": 0, "rank": %[1]d, "paths": {"containment": "/demo0/rack0/node%[1]d/socket0"}}},
 {"id": "%[4]d", "metadata": {"type": "core", "id": 0, "rank": %[1]d, "paths": {"containment": "/demo0/rack0/node%[1]d/socket0/core0"}}},
 {"id": "%[5]d", "metadata": {"type": "core", "id": 1, "rank": %[1]d, "paths": {"containment": "/demo0/rack0/node%[1]d/socket0/core1"}}}],
 "edges": [{"source": "1", "target": "%[2]d"}, {"source": "%[2]d", "target": "%[3]d"}, {"source": "%[3]d", "target": "%[4]d"}, {"source": "%[3]d", "target": "%[5]d"}]}}`,
		n, 1000*n, 1000*n+1, 1000*n+2, 1000*n+3)
}

type cloneOp struct {
	kind string
	spec int
	dur  int
	op   Op
	at   int64
	id   uint64
	path string
	up   bool
	data []byte
}

type cloneSide struct {
	name     string
	x        *Matcher
	ops      []cloneOp
	outs     []string
	live     []uint64
	rs       map[uint64][]byte // R of every booked job
	nodes    int               // next attached node number
	attached []int
}

func applyCloneOp(t *testing.T, x *Matcher, o cloneOp) (string, *Allocation) {
	t.Helper()
	switch o.kind {
	case "match":
		js, err := x.ParseJobspec(fmt.Appendf(nil, cloneSpecs[o.spec], o.dur))
		if err != nil {
			t.Fatal(err)
		}
		a, err := x.MatchWithID(o.op, js, o.id, o.at)
		if err != nil {
			return "error " + err.Error(), nil
		}
		return a.String(), a
	case "cancel":
		return fmt.Sprint(x.Cancel(o.id)), nil
	case "partial":
		full, err := x.PartialCancel(o.id, o.data)
		return fmt.Sprint(full, err), nil
	case "update":
		a, err := x.Update(o.id, o.data)
		if err != nil {
			return "error " + err.Error(), nil
		}
		return a.String(), a
	case "status":
		return fmt.Sprint(x.SetStatus(o.path, o.up)), nil
	case "rankstatus":
		return fmt.Sprint(x.SetRankStatus(o.path, o.up)), nil
	case "attach":
		return fmt.Sprint(x.Attach(o.data)), nil
	case "remove":
		return fmt.Sprint(x.Remove(o.path)), nil
	case "removeranks":
		return fmt.Sprint(x.RemoveRanks(o.path)), nil
	case "find":
		s, err := x.Find(o.path, "rlite")
		return fmt.Sprint(s, err), nil
	}
	t.Fatalf("unknown op %q", o.kind)
	return "", nil
}

func (s *cloneSide) clone(name string) *cloneSide {
	c := *s
	c.name = name
	c.x = s.x.Clone()
	c.ops = slices.Clone(s.ops)
	c.outs = slices.Clone(s.outs)
	c.live = slices.Clone(s.live)
	c.attached = slices.Clone(s.attached)
	c.rs = map[uint64][]byte{}
	for k, v := range s.rs {
		c.rs[k] = v
	}
	return &c
}

func (s *cloneSide) next(t *testing.T, rng *rand.Rand, nextID *uint64) {
	t.Helper()
	o := cloneOp{at: int64(rng.Intn(3) * 50)}
	node := fmt.Sprintf("/demo0/rack0/node%d", rng.Intn(8))
	switch k := rng.Intn(24); {
	case k < 9:
		o.kind, o.spec, o.dur = "match", rng.Intn(len(cloneSpecs)), 10+rng.Intn(100)
		o.op = []Op{Allocate, Allocate, AllocateOrElseReserve}[rng.Intn(3)]
		o.id = *nextID
		*nextID++
	case k < 12 && len(s.live) > 0:
		i := rng.Intn(len(s.live))
		o.kind, o.id = "cancel", s.live[i]
		s.live = slices.Delete(s.live, i, i+1)
	case k < 13 && len(s.live) > 0:
		o.kind, o.id = "partial", s.live[rng.Intn(len(s.live))]
		o.data = fmt.Appendf(nil, `{"version": 1, "execution": {"R_lite": [{"rank": "%d", "children": {"core": "0-35"}}]}}`, rng.Intn(8))
	case k < 15 && len(s.rs) > 0:
		ids := slices.Sorted(mapKeys(s.rs))
		o.kind, o.data = "update", s.rs[ids[rng.Intn(len(ids))]]
		o.id = *nextID
		*nextID++
	case k < 17:
		o.kind, o.path, o.up = "status", node, rng.Intn(2) == 0
	case k < 18:
		o.kind, o.path, o.up = "rankstatus", fmt.Sprint(rng.Intn(8)), rng.Intn(2) == 0
	case k < 19:
		n := 100 + s.nodes
		s.nodes++
		o.kind, o.data = "attach", attachNode(n)
		s.attached = append(s.attached, n)
	case k < 20:
		o.kind, o.path = "remove", node
		if len(s.attached) > 0 && rng.Intn(2) == 0 {
			o.path = fmt.Sprintf("/demo0/rack0/node%d", s.attached[0])
			s.attached = s.attached[1:]
		}
	case k < 21:
		o.kind, o.path = "removeranks", fmt.Sprint(rng.Intn(8))
	default:
		o.kind = "find"
		o.path = []string{"status=up", "sched-now=allocated", "sched-future=reserved", "status=down"}[rng.Intn(4)]
	}
	out, a := applyCloneOp(t, s.x, o)
	s.ops = append(s.ops, o)
	s.outs = append(s.outs, out)
	if a != nil {
		s.live = append(s.live, a.JobID)
		s.rs[a.JobID] = []byte(a.String())
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// cloneDigest is what a Matcher holds: its schedule's State, its job
// table without the wall times, and its job id counter.
func cloneDigest(t *testing.T, x *Matcher) string {
	t.Helper()
	st, err := x.m.State()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []string
	for _, j := range x.Jobs() {
		jobs = append(jobs, fmt.Sprintf("%d %v %d-%d", j.ID, j.State, j.Start, j.End))
	}
	return fmt.Sprintf("%s\n%s\nnext %d", b, strings.Join(jobs, "\n"), x.next)
}

func TestCloneCopyOnWrite(t *testing.T) {
	runs := 60
	if testing.Short() {
		runs = 12
	}
	total := 0
	for run := range runs {
		rng := rand.New(rand.NewSource(int64(run)))
		pol := []string{"first", "low", "high", "lonode"}[rng.Intn(4)]
		fresh := func() *Matcher {
			x, err := New(DemoGraph(), Options{Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		var nextID uint64 = 1
		sides := []*cloneSide{{name: "a", x: fresh(), rs: map[uint64][]byte{}}}
		for range rng.Intn(10) {
			sides[0].next(t, rng, &nextID)
		}
		for i := range 30 + rng.Intn(30) {
			if len(sides) < 4 && (i == 0 || rng.Intn(10) == 0) {
				from := sides[rng.Intn(len(sides))]
				sides = append(sides, from.clone(fmt.Sprintf("%s.%d", from.name, len(sides))))
				continue
			}
			sides[rng.Intn(len(sides))].next(t, rng, &nextID)
			total++
		}
		for _, s := range sides {
			r := fresh()
			for i, o := range s.ops {
				if got, _ := applyCloneOp(t, r, o); got != s.outs[i] {
					t.Fatalf("run %d (%s) matcher %s op %d (%+v) differs from its replay:\nmatcher: %s\nreplay:  %s", run, pol, s.name, i, o, s.outs[i], got)
				}
			}
			if a, b := cloneDigest(t, s.x), cloneDigest(t, r); a != b {
				t.Fatalf("run %d (%s) matcher %s: state differs from its replay:\n%s\n%s", run, pol, s.name, a, b)
			}
		}
	}
	t.Logf("%d operations compared", total)
}

// TestCloneConcurrent clones a Matcher from several goroutines while
// readers query it and a writer changes it, and changes every clone in
// the goroutine that made it. Run with -race: a write to a shared part
// races with the readers. The original must end as a replay of the
// writer's own operations.
func TestCloneConcurrent(t *testing.T) {
	x, err := New(DemoGraph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	core, err := x.ParseJobspec(fmt.Appendf(nil, cloneSpecs[0], 100))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := x.Match(Allocate, core, 0); err != nil {
			t.Fatal(err)
		}
	}
	var ops []cloneOp
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer
		defer wg.Done()
		rng := rand.New(rand.NewSource(1))
		nextID := uint64(100)
		side := &cloneSide{x: x, rs: map[uint64][]byte{}, nodes: 50}
		for range 40 {
			side.next(t, rng, &nextID)
		}
		ops = side.ops
	}()
	for r := range 2 {
		wg.Add(1)
		go func() { // readers
			defer wg.Done()
			for range 40 {
				if err := x.Satisfiable(core); err != nil && !errors.Is(err, ErrUnsatisfiable) {
					t.Errorf("reader %d: %v", r, err)
				}
				x.Find("sched-now=allocated", "rlite")
				x.Jobs()
			}
		}()
	}
	for c := range 3 {
		wg.Add(1)
		go func() { // cloners
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(10 + c)))
			for range 4 {
				y := x.Clone()
				nextID := uint64(1000 * (c + 1))
				side := &cloneSide{x: y, rs: map[uint64][]byte{}, nodes: 10 * (c + 1)}
				for range 15 {
					side.next(t, rng, &nextID)
				}
			}
		}()
	}
	wg.Wait()
	ref, err := New(DemoGraph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := ref.Match(Allocate, core, 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range ops {
		applyCloneOp(t, ref, o)
	}
	if a, b := cloneDigest(t, x), cloneDigest(t, ref); a != b {
		t.Fatalf("the original differs from a replay of its own operations:\n%s\n%s", a, b)
	}
}
