package match

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Failure semantics (issue 13): by default a failed operation changes
// nothing; with Options.FluxionFailures it leaves Fluxion's half-done
// state. These tests build their graphs in memory.

// snapshot serialises the whole schedule, so that two snapshots are equal
// exactly when nothing changed.
func snapshot(tb testing.TB, m *Matcher) string {
	tb.Helper()
	st, err := m.State()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// matchR books js as job and returns the JGF R of the booking.
func matchR(tb testing.TB, m *Matcher, js *jobspec.Jobspec, job uint64) *jgf.Document {
	tb.Helper()
	w := jgf.NewWriter()
	if _, err := m.Match(Allocate, js, job, 0, w); err != nil {
		tb.Fatalf("match job %d: %v", job, err)
	}
	s, err := w.JSON()
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := jgf.Parse([]byte(s))
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// nodesOfType returns the JGF nodes of the given type.
func nodesOfType(doc *jgf.Document, typ string) []jgf.Node {
	var l []jgf.Node
	for _, n := range doc.Nodes {
		if n.Metadata.Type == typ {
			l = append(l, n)
		}
	}
	return l
}

func newMatcherOpts(tb testing.TB, g *graph.Graph, o Options) *Matcher {
	tb.Helper()
	m, err := New(g, o)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// Issue 13 item 1: job 1's cores plus job 2's gpu. Fluxion released job 1's
// cores, failed on the gpu and left job 1 allocated: a third job was then
// given job 1's cores.
func TestPartialCancelJGFAtomic(t *testing.T) {
	for _, failures := range []bool{false, true} {
		g := tinyGraph()
		m := newMatcherOpts(t, g, Options{Policy: "high", FluxionFailures: failures})
		js := mkjs(t, g, "slot[1]->(core[2],gpu[1])", 3600)
		r1 := matchR(t, m, js, 1)
		r2 := matchR(t, m, js, 2)
		doc := &jgf.Document{Nodes: append(nodesOfType(r1, "core"), nodesOfType(r2, "gpu")...)}
		before := snapshot(t, m)
		full, err := m.PartialCancelJGF(1, doc)
		if err == nil || full || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "x_checker span for job 1") {
			t.Fatalf("failures=%v: PartialCancelJGF = %v, %v; want an error naming job 1's missing span", failures, full, err)
		}
		after := snapshot(t, m)
		if !failures && after != before {
			t.Errorf("failed partial cancel changed the schedule")
		}
		if failures && after == before {
			t.Errorf("FluxionFailures: Fluxion's half-done release (job 1's cores) is not reproduced")
		}
		// Job 1 must still hold its cores (Fluxion's release lets a third
		// job take them while job 1 is allocated: a double booking).
		w := newRecorder()
		if err := m.Find("jobid-alloc=1", 0, w); err != nil {
			t.Fatal(err)
		}
		held := strings.Count(w.names(g), "core")
		if want := map[bool]int{false: 2, true: 0}[failures]; held != want {
			t.Errorf("failures=%v: job 1 holds %d cores after the failed release, want %d", failures, held, want)
		}
	}
}

// Issue 13 item 2: eight whole-node jobs, then ranks 3 and 99 (unknown).
// Fluxion cleared rank 3 and then failed: node3 stayed booked forever.
func TestRemoveRanksAtomic(t *testing.T) {
	g := smallGraph()
	m := newMatcherOpts(t, g, Options{Policy: "first"})
	node := mkjs(t, g, "node[1]x->socket[1]->core[1]", 0)
	for j := uint64(1); j <= 8; j++ {
		if _, err := m.Match(Allocate, node, j, 0, newRecorder()); err != nil {
			t.Fatalf("job %d: %v", j, err)
		}
	}
	before := snapshot(t, m)
	err := m.RemoveRanks([]int64{3, 99})
	if err == nil || !strings.Contains(err.Error(), "99 not found in by_rank map") {
		t.Fatalf("RemoveRanks(3,99) = %v, want rank 99 not found", err)
	}
	if snapshot(t, m) != before {
		t.Fatalf("failed RemoveRanks changed the schedule")
	}
	for j := uint64(1); j <= 8; j++ {
		if err := m.Cancel(j); err != nil {
			t.Fatalf("cancel %d: %v", j, err)
		}
	}
	if _, err := m.Match(Allocate, mkjs(t, g, "node[8]x->socket[1]->core[1]", 0), 9, 0, newRecorder()); err != nil {
		t.Fatalf("8-node job after cancelling everything: %v", err)
	}
}

// Every mutating operation that fails changes nothing by default.
func TestFailedOperationsChangeNothing(t *testing.T) {
	type setup struct {
		m  *Matcher
		g  *graph.Graph
		r1 *jgf.Document
	}
	mk := func(t *testing.T) setup {
		g := tinyGraph()
		m := newMatcherOpts(t, g, Options{Policy: "low"})
		r1 := matchR(t, m, mkjs(t, g, "node[1]->socket[1]->slot[2]->core[2]", 3600), 1)
		matchR(t, m, mkjs(t, g, "node[1]x->socket[1]->core[1]", 3600), 2)
		return setup{m, g, r1}
	}
	tests := []struct {
		name   string
		op     func(t *testing.T, s setup) error
		target error
	}{
		{"match with a job id in use", func(t *testing.T, s setup) error {
			_, err := s.m.Match(Allocate, mkjs(t, s.g, "core[1]", 60), 1, 0, newRecorder())
			return err
		}, ErrInvalid},
		{"match with a negative duration", func(t *testing.T, s setup) error {
			_, err := s.m.Match(Allocate, mkjs(t, s.g, "node[1]x->core[1]", -5), 3, 0, newRecorder())
			return err
		}, ErrInvalid},
		{"partial cancel of an unknown rank", func(t *testing.T, s setup) error {
			_, err := s.m.PartialCancel(1, []int64{0, 7})
			return err
		}, ErrInvalid},
		{"partial cancel of a vertex the job does not hold", func(t *testing.T, s setup) error {
			doc := &jgf.Document{Nodes: append(slices.Clone(s.r1.Nodes), nodesOfType(s.r1, "core")[0])}
			_, err := s.m.PartialCancelJGF(1, doc)
			return err
		}, ErrInvalid},
		{"partial cancel of an unknown vertex", func(t *testing.T, s setup) error {
			doc := &jgf.Document{Nodes: slices.Clone(s.r1.Nodes)}
			doc.Nodes[len(doc.Nodes)-1].Metadata.Paths = []jgf.Path{{Subsystem: "containment", Path: "/tiny0/nosuch"}}
			_, err := s.m.PartialCancelJGF(1, doc)
			return err
		}, ErrInvalid},
		{"update over a job id in use", func(t *testing.T, s setup) error {
			return s.m.UpdateJGF(s.r1, false, 1, 7200, 60, newRecorder())
		}, ErrInvalid},
		{"update past the end of the graph", func(t *testing.T, s setup) error {
			return s.m.UpdateJGF(s.r1, false, 5, GraphEnd-10, 60, newRecorder())
		}, ErrInvalid},
		{"update of busy resources", func(t *testing.T, s setup) error {
			return s.m.UpdateJGF(s.r1, false, 5, 0, 60, newRecorder())
		}, ErrInvalid},
		{"remove of an unknown path", func(t *testing.T, s setup) error {
			return s.m.RemovePath("/tiny0/nosuch")
		}, ErrNotFound},
		{"remove of the root", func(t *testing.T, s setup) error {
			return s.m.RemovePath("/tiny0")
		}, ErrInvalid},
		{"remove of the root's rank", func(t *testing.T, s setup) error {
			return s.m.RemoveRanks([]int64{-1})
		}, ErrInvalid},
		{"remove of an unknown rank", func(t *testing.T, s setup) error {
			return s.m.RemoveRanks([]int64{1, 5})
		}, ErrInvalid},
		{"set-status of an unknown path", func(t *testing.T, s setup) error {
			return s.m.SetStatus("/tiny0/nosuch", graph.StatusDown)
		}, ErrInvalid},
		{"attach of a second root", func(t *testing.T, s setup) error {
			doc, err := jgf.Parse([]byte(`{"graph":{"nodes":[{"id":"0","metadata":{"type":"cluster","basename":"other","id":0,"rank":-1,"paths":{"containment":"/other0"}}}],"edges":[]}}`))
			if err != nil {
				t.Fatal(err)
			}
			return s.m.Attach(doc)
		}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mk(t)
			before := snapshot(t, s.m)
			err := tc.op(t, s)
			if err == nil {
				t.Fatalf("no error")
			}
			if tc.target != nil && !errors.Is(err, tc.target) {
				t.Errorf("error %v is not %v", err, tc.target)
			}
			if snapshot(t, s.m) != before {
				t.Errorf("failed operation (%v) changed the schedule", err)
			}
		})
	}
}

// The JGF R Fluxion writes lists the job's shared vertices too (sockets,
// nodes, the cluster). The library releases them; with FluxionFailures
// the release fails at the first of them, as in Fluxion.
func TestPartialCancelJGFSharedVertices(t *testing.T) {
	tests := []struct {
		name     string
		failures bool
		full     bool
		errText  string
	}{
		{"library releases the whole R", false, true, ""},
		{"Fluxion fails at the first shared vertex", true, false, "can't find allocation span for job 1 in socket"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tinyGraph()
			m := newMatcherOpts(t, g, Options{Policy: "high", FluxionFailures: tc.failures})
			r := matchR(t, m, mkjs(t, g, "slot[1]->core[2]", 3600), 1)
			full, err := m.PartialCancelJGF(1, r)
			if full != tc.full || (tc.errText == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.errText)) {
				t.Fatalf("PartialCancelJGF = %v, %v; want %v, %q", full, err, tc.full, tc.errText)
			}
			// The cores are released either way (Fluxion releases the
			// listed vertices before the failing one); only the library
			// releases the shared vertices too.
			w := newRecorder()
			if err := m.Find("jobid-span=1 or jobid-alloc=1", 0, w); err != nil {
				t.Fatal(err)
			}
			got := w.names(g)
			if strings.Contains(got, "core") || (got == "") != tc.full {
				t.Errorf("vertices still held by job 1: %q", got)
			}
		})
	}
}

// A rank whose vertices were all removed stays known (Fluxion keeps the
// empty rank entry): a later partial cancel of it is not an error.
func TestEmptiedRankStaysKnown(t *testing.T) {
	g := tinyGraph()
	m := newMatcherOpts(t, g, Options{Policy: "high"})
	matchR(t, m, mkjs(t, g, "node[2]->socket[1]->slot[1]->core[1]", 3600), 1)
	if err := m.RemovePath("/tiny0/rack0/node1"); err != nil {
		t.Fatal(err)
	}
	if !g.HasRank(1) || len(g.ByRank(1)) != 0 {
		t.Fatalf("rank 1 after removing node1: known %v, %d vertices", g.HasRank(1), len(g.ByRank(1)))
	}
	if _, err := m.PartialCancel(1, []int64{1, 0}); err != nil {
		t.Errorf("partial cancel of an emptied rank: %v", err)
	}
	if _, err := m.PartialCancel(1, []int64{7}); err == nil {
		t.Errorf("partial cancel of a rank the graph never had succeeded")
	}
}

// Fluxion's rank removal gives each job the amounts of all jobs on the
// ranks back; with two jobs on one rank that fails, and Fluxion keeps the
// cleared vertices with their planner spans. The library gives each job
// its own amounts back and removes the rank.
func TestRemoveRanksSharedRank(t *testing.T) {
	tests := []struct {
		name     string
		failures bool
		removed  bool
	}{
		{"library removes the rank", false, true},
		{"Fluxion fails and keeps the vertices", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := rankedGraph(2, 4)
			m := newMatcherOpts(t, g, Options{Policy: "low", FluxionFailures: tc.failures})
			js := mkjs(t, g, "node[1]->socket[1]->slot[1]->core[2]", 3600)
			matchR(t, m, js, 1)
			matchR(t, m, js, 2)
			err := m.RemoveRanks([]int64{0})
			if (err == nil) != tc.removed {
				t.Fatalf("RemoveRanks(0) = %v", err)
			}
			if got := len(g.ByPath("/tiny0/rack0/node0")) == 0; got != tc.removed {
				t.Errorf("node0 removed = %v, want %v", got, tc.removed)
			}
			if !tc.removed {
				// The job records are gone but the cores stay booked.
				w := newRecorder()
				if err := m.Find("jobid-alloc=1 or jobid-alloc=2", 0, w); err != nil {
					t.Fatal(err)
				}
				if w.names(g) != "" {
					t.Errorf("job records left on rank 0: %s", w.names(g))
				}
				core := g.ByPath("/tiny0/rack0/node0/socket0/core0")[0]
				if a, _ := m.plan(core).AvailDuring(0, 3600); a != 0 {
					t.Errorf("node0's core0 is free again after Fluxion's failed removal")
				}
			}
		})
	}
}

// Fluxion's rv1exec partial cancel gives back rank by rank and stops at a
// rank that gives nothing back (a node held shared): the ancestors keep
// their spans. The library gives everything back.
func TestPartialCancelRanksNothingBack(t *testing.T) {
	tests := []struct {
		name     string
		failures bool
		wantErr  bool
	}{
		{"library", false, false},
		{"Fluxion", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tinyGraph() // only the nodes carry ranks
			m := newMatcherOpts(t, g, Options{Policy: "low", FluxionFailures: tc.failures})
			matchR(t, m, mkjs(t, g, "node[2]->socket[1]->slot[1]->core[1]", 3600), 1)
			full, err := m.PartialCancel(1, []int64{0})
			if (err != nil) != tc.wantErr || full {
				t.Fatalf("PartialCancel(rank 0) = %v, %v", full, err)
			}
			rack := g.ByPath("/tiny0/rack0")[0]
			rec, ok := m.jobAt(rack, 1)
			if tc.failures != (ok && rec.xspan != 0) {
				t.Errorf("rack0's exclusivity span for job 1 kept = %v, want %v", ok && rec.xspan != 0, tc.failures)
			}
		})
	}
}

// Fluxion never returns from removing a socket whose place in the dynamic
// order a booking changed; resource-query refuses it instead.
func TestRemoveSocketWhereFluxionHangs(t *testing.T) {
	for _, failures := range []bool{false, true} {
		g := tinyGraph()
		m := newMatcherOpts(t, g, Options{Policy: "first", FluxionFailures: failures})
		if err := m.RemovePath("/tiny0/rack0/node1/socket1"); err != nil {
			t.Fatalf("failures=%v: untouched socket: %v", failures, err)
		}
		matchR(t, m, mkjs(t, g, "slot[1]->core[1]", 60), 1)
		err := m.RemovePath("/tiny0/rack0/node1/socket0")
		if refused := err != nil && err.(*Error).Errno == ENOTSUP; refused != failures {
			t.Errorf("failures=%v: removing a re-keyed socket: %v", failures, err)
		}
	}
}

// rankedGraph is tiny0 -> rack0 -> nnodes nodes -> one socket -> ncores
// cores, where every vertex below a node carries the node's rank (as in
// rv1exec-loaded or rank-enriched JGF graphs).
func rankedGraph(nnodes, ncores int) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("tiny"))
	r := b.MustAdd(c, "rack", 0)
	for i := 0; i < nnodes; i++ {
		n := b.MustAdd(r, "node", int64(i), graph.WithRank(int64(i)))
		s := b.MustAdd(n, "socket", 0, graph.WithRank(int64(i)))
		for j := 0; j < ncores; j++ {
			b.MustAdd(s, "core", int64(j), graph.WithRank(int64(i)))
		}
	}
	return b.Graph()
}
