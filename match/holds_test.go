package match

import (
	"errors"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// fullDigest is the schedule with the dynamic order, to check that an
// operation changed nothing.
func fullDigest(m *Matcher) string { return stateDigest(m, defaultProbes, true) }

func TestMatchRejectsOutOfRangeOp(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "first")
	js := mkjs(t, g, "node[1]->socket[1]->core[2]x", 60)
	before := fullDigest(m)
	for _, op := range []Op{-1, 6, 99} {
		_, err := m.Match(op, js, 7, 0, emit.Discard)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Match(Op(%d)) = %v, want ErrInvalid", op, err)
		}
	}
	if fullDigest(m) != before {
		t.Error("an out-of-range op changed the schedule")
	}
}

// A hand-built jobspec that contains itself fails cleanly (no stack
// overflow), however it is shaped.
func TestMatchBoundsRequestTree(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "first")
	chain := &jobspec.Resource{Type: "node", Count: jobspec.Fixed(1)}
	chain.With = []*jobspec.Resource{chain}
	fan := &jobspec.Resource{Type: "core", Count: jobspec.Fixed(1)}
	fan.With = []*jobspec.Resource{fan, fan, fan}
	for name, r := range map[string]*jobspec.Resource{"chain": chain, "fan": fan, "nil child": {Type: "node", Count: jobspec.Fixed(1), With: []*jobspec.Resource{nil}}} {
		js := &jobspec.Jobspec{Version: 1, Resources: []*jobspec.Resource{r}}
		if _, err := m.Match(Allocate, js, 1, 0, emit.Discard); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Match = %v, want ErrInvalid", name, err)
		}
		if _, err := m.Explain(js, 0); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Explain = %v, want ErrInvalid", name, err)
		}
	}
	// The matcher still works afterwards.
	if o := do(m, Allocate, mkjs(t, g, "node[1]->socket[1]->core[2]x", 60), 1); o.err != nil {
		t.Fatal(o.err)
	}
}

func TestHolds(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "first")
	if o := do(m, Allocate, mkjs(t, g, "node[1]->socket[1]->core[2]x", 60), 1); o.err != nil {
		t.Fatal(o.err)
	}
	// Everything but one node's cores is busy: the next one reserves.
	if o := do(m, AllocateOrElseReserve, mkjs(t, g, "node[2]x", 100), 2); o.err != nil || o.at != 60 {
		t.Fatalf("reservation: %v", o)
	}
	var own, below, resv int
	for v := range g.NumVertices() {
		for _, h := range m.Holds(graph.VertexID(v), nil) {
			switch {
			case h.Job == 1 && h.Own:
				own++
				if h.Start != 0 || h.End != 60 || h.Reserved || h.Units != g.V(graph.VertexID(v)).Size {
					t.Errorf("job 1 on %s: %+v", g.V(graph.VertexID(v)).Name, h)
				}
			case h.Job == 1:
				below++
				if h.Units != 0 || h.End != 60 {
					t.Errorf("job 1 above its cores on %s: %+v", g.V(graph.VertexID(v)).Name, h)
				}
			case h.Job == 2 && h.Own:
				resv++
				if !h.Reserved || h.Start != 60 || h.End != 160 {
					t.Errorf("job 2 on %s: %+v", g.V(graph.VertexID(v)).Name, h)
				}
			}
		}
	}
	if own != 2 || below != 4 || resv == 0 {
		t.Errorf("job 1 owns %d vertices and is below %d (want 2, and 4: socket, node, rack, cluster), job 2 reserves %d", own, below, resv)
	}
	if h := m.Holds(-1, nil); h != nil {
		t.Errorf("Holds(-1) = %v", h)
	}
}

// A dry run leaves the dynamic child order alone: the next allocation is
// the one it would have been without it (Match with WithoutAllocating
// changes it, as Fluxion's does).
func TestDryRunChangesNothing(t *testing.T) {
	g := smallGraph()
	js := mkjs(t, g, "socket[1]->core[4]x", 60)
	ref := newMatcher(t, g.Clone(), "first")
	want := do(ref, Allocate, js, 1)
	m := newMatcher(t, g.Clone(), "first")
	before := fullDigest(m)
	for i := 0; i < 3; i++ {
		w := emit.NewSimple()
		if _, err := m.DryRun(WithoutAllocating, js, 0, w); err != nil {
			t.Fatal(err)
		}
		if _, err := m.DryRun(WithoutAllocatingFuture, js, 0, emit.Discard); err != nil {
			t.Fatal(err)
		}
	}
	if fullDigest(m) != before {
		t.Error("DryRun changed the schedule")
	}
	if got := do(m, Allocate, js, 1); got.text != want.text {
		t.Errorf("after dry runs got\n%s\nwant\n%s", got.text, want.text)
	}
	if _, err := m.DryRun(Allocate, js, 0, emit.Discard); !errors.Is(err, ErrInvalid) {
		t.Errorf("DryRun(Allocate) = %v, want ErrInvalid", err)
	}
}
