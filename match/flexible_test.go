package match

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// flexGraph is c0 → nnodes nodes → ncores cores then nmem memory pools of
// memSize units each (ids local to the node).
func flexGraph(nnodes, ncores, nmem int, memSize int64) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("c"))
	var nodes []graph.VertexID
	for i := 0; i < nnodes; i++ {
		nodes = append(nodes, b.MustAdd(c, "node", int64(i)))
	}
	for _, n := range nodes {
		for i := 0; i < ncores; i++ {
			b.MustAdd(n, "core", int64(i))
		}
		for i := 0; i < nmem; i++ {
			b.MustAdd(n, "memory", int64(i), graph.WithSize(memSize), graph.WithUnit("GB"))
		}
	}
	return b.Graph()
}

// buildNodesSockets is <name>0 → nnodes nodes → 2 sockets → ncores cores
// (ids local to the socket).
func buildNodesSockets(nnodes, ncores int, name string) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename(name))
	for i := 0; i < nnodes; i++ {
		n := b.MustAdd(c, "node", int64(i))
		for j := 0; j < 2; j++ {
			s := b.MustAdd(n, "socket", int64(j))
			for k := 0; k < ncores; k++ {
				b.MustAdd(s, "core", int64(k))
			}
		}
	}
	return b.Graph()
}

// TestFlexibleOrSlots pins the flexible traverser's or-slot rules found on
// Fluxion's outputs (conformance-flex):
//
//   - the packing counts units, the slots take whole vertices: when the
//     vertices run out before the counted slots are built, the vertex
//     gets no slot at all (a 1-unit memory request on 4-unit pools);
//   - top-level slot alternatives are checked against the pruning filters
//     in order and the last one decides: an alternative that can never
//     fit prunes every vertex when it is listed last, nothing otherwise;
//   - a single slot whose count has no maximum fits nowhere (its
//     effective maximum, 2^32-1, is -1 as a signed 32-bit bound);
//   - first-fit child exploration keeps one tally per type, the last
//     or-slot sibling's share replacing the earlier ones'.
func TestFlexibleOrSlots(t *testing.T) {
	type step struct {
		op   Op
		js   string
		err  error  // nil: success with text
		text string // simple writer
	}
	cases := []struct {
		name   string
		g      func() *graph.Graph
		policy string
		prune  string
		steps  []step
	}{{
		name: "memory request below the pool size",
		g:    func() *graph.Graph { return flexGraph(2, 4, 1, 4) },
		steps: []step{
			{op: Allocate, js: "node[1]->(slot[1]->core[2], slot[1]->(core[1], memory[1]))", err: ErrBusy},
			{op: Satisfiability, js: "node[1]->(slot[1]->core[2], slot[1]->(core[1], memory[1]))", err: ErrUnsatisfiable},
			// A whole pool: the packing and the vertices agree. The node
			// chooses one slot of each kind among the most slots it can
			// pack (two of 2 cores): cores 0 and 1.
			{op: Allocate, js: "node[1]->(slot[1]->core[2], slot[1]->(core[1], memory[4]))",
				text: sl("3 core0[1:x]", "3 core1[1:x]", "2 node0[1:s]", "1 c0[1:s]")},
		},
	}, {
		name: "an alternative that never fits, listed last",
		g:    func() *graph.Graph { return flexGraph(2, 4, 0, 0) },
		steps: []step{
			{op: Satisfiability, js: "slot[1]->core[1]; slot[1]->core[8]", err: ErrUnsatisfiable},
			{op: Allocate, js: "slot[1]->core[1]; slot[1]->core[8]", err: ErrBusy},
		},
	}, {
		name: "an alternative that never fits, listed first",
		g:    func() *graph.Graph { return flexGraph(2, 4, 0, 0) },
		steps: []step{
			{op: Satisfiability, js: "slot[1]->core[8]; slot[1]->core[1]"},
			{op: Allocate, js: "slot[1]->core[8]; slot[1]->core[1]",
				text: sl("3 core0[1:x]", "2 node0[1:s]", "1 c0[1:s]")},
		},
	}, {
		name:  "never-fitting alternative on a type only the filters know",
		g:     func() *graph.Graph { return flexGraph(2, 4, 0, 0) },
		prune: "ALL:core,ALL:gpu",
		steps: []step{
			{op: Satisfiability, js: "slot[1]->core[1]; slot[1]->(core[1], gpu[1])", err: ErrUnsatisfiable},
			{op: Satisfiability, js: "slot[1]->(core[1], gpu[1]); slot[1]->core[1]"},
		},
	}, {
		name: "a single slot without a maximum",
		g:    func() *graph.Graph { return flexGraph(2, 4, 0, 0) },
		steps: []step{
			{op: Allocate, js: "slot[1+]->core[1]", err: ErrBusy},
			{op: Satisfiability, js: "slot[1+]->core[1]", err: ErrUnsatisfiable},
			{op: Allocate, js: "slot[1:8:+:1]->core[1]",
				text: sl(cat(seq(3, "core", 0, 3, "[1:x]"), "2 node0[1:s]", seq(3, "core", 0, 3, "[1:x]"), "2 node1[1:s]", "1 c0[1:s]")...)},
		},
	}}
	cases = append(cases, struct {
		name   string
		g      func() *graph.Graph
		policy string
		prune  string
		steps  []step
	}{
		// node1 (tried first: untouched, highest id) has one usable
		// socket and offers one slot; the share of the last alternative
		// (2) makes the walk go on to node0.
		name:   "first-fit tally of or-slot siblings",
		g:      func() *graph.Graph { return buildNodesSockets(2, 2, "c") },
		policy: "first",
		steps: []step{
			{op: Allocate, js: "slot[1]->socket[1]->core[2]; slot[2]->socket[1]->core[2]",
				text: sl("4 core0[1:x]", "4 core1[1:x]", "3 socket1[1:x]", "2 node0[1:s]",
					"4 core0[1:x]", "4 core1[1:x]", "3 socket0[1:x]", "2 node1[1:s]", "1 c0[1:s]")},
		},
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g()
			pol := tc.policy
			if pol == "" {
				pol = "low"
			}
			m, err := New(g, Options{Policy: pol, Traverser: "flexible", PruneFilters: tc.prune})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.ByPath("/c0/node1/socket1")) > 0 {
				if err := m.SetStatus("/c0/node1/socket1", graph.StatusDown); err != nil {
					t.Fatal(err)
				}
			}
			for i, s := range tc.steps {
				got := do(m, s.op, mkjs(t, g, s.js, 3600), uint64(i+1))
				t.Logf("%d %v %s: %v", i, s.op, s.js, got)
				if s.err != nil {
					wantErr(t, s.js, got, s.err)
					continue
				}
				if s.op == Satisfiability {
					if got.err != nil {
						t.Errorf("%s: %v, want satisfiable", s.js, got.err)
					}
					continue
				}
				wantOK(t, s.js, got, 0, s.text)
			}
		})
	}
}

// TestFlexibleSatisfiableErrno: with Fluxion's errno (FluxionQuirks), a
// count above a filter's total in an or-slot alternative that does not
// decide leaves ERANGE behind, which allocate_with_satisfiability reports
// when the request is busy now but satisfiable; by default it is ErrBusy.
func TestFlexibleSatisfiableErrno(t *testing.T) {
	for _, quirks := range []bool{false, true} {
		g := flexGraph(1, 4, 0, 0)
		m, err := New(g, Options{Policy: "low", Traverser: "flexible", FluxionQuirks: quirks})
		if err != nil {
			t.Fatal(err)
		}
		if o := do(m, Allocate, mkjs(t, g, "slot[1]->core[4]", 3600), 1); o.err != nil {
			t.Fatal(o)
		}
		o := do(m, AllocateWithSatisfiability, mkjs(t, g, "slot[1]->core[8]; slot[1]->core[1]", 3600), 2)
		var me *Error
		if !errors.As(o.err, &me) {
			t.Fatalf("quirks=%v: %v, want an *Error", quirks, o)
		}
		want := EBUSY
		if quirks {
			want = ERANGE
		}
		if me.Errno != want {
			t.Errorf("quirks=%v: errno %v, want %v", quirks, me.Errno, want)
		}
	}
}

// TestFlexibleOrSlotBound: the or-slot packing search recurses once per
// slot packed and memoises every count vector it meets, so its work grows
// with the units (a memory pool of millions of units). Past maxOrStates
// packings the walk fails with a message instead of a fatal stack
// overflow; a pool of a thousand units is searched.
func TestFlexibleOrSlotBound(t *testing.T) {
	const js = "node[1]->(slot[1]->memory[1], slot[1]->core[1])"
	for _, c := range []struct {
		mem  int64
		fail bool
	}{
		{1000, false},
		{5_000_000, true},
	} {
		g := flexGraph(1, 4, 1, c.mem)
		m, err := New(g, Options{Policy: "low", Traverser: "flexible"})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []Op{Allocate, Satisfiability} {
			got := do(m, op, mkjs(t, g, js, 3600), 1)
			// Either way the 1-unit memory slot cannot take a whole
			// pool ("not enough slots"); only the big pool meets the
			// bound.
			var me *Error
			if !errors.As(got.err, &me) {
				t.Fatalf("memory %d %v: %v, want an *Error", c.mem, op, got)
			}
			if strings.Contains(me.Error(), "too many or-slot packings") != c.fail ||
				errors.Is(me, ErrInvalid) != c.fail {
				t.Errorf("memory %d %v: %v (errno %v; bound expected: %v)", c.mem, op, me, me.Errno, c.fail)
			}
		}
	}
}
