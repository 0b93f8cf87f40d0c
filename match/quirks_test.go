package match

import (
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// Fluxion's decision quirks (Options.FluxionQuirks): off in the library,
// on in resource-query and reapi.

// exclusiveNames lists the recorded vertices of type typ emitted exclusive.
func (r *recorder) exclusiveOf(g *graph.Graph, typ graph.TypeID) (n int) {
	for _, v := range r.verts {
		if g.V(v.id).Type == typ && v.excl {
			n++
		}
	}
	return n
}

// Issue 12 (i): a match rejected for its negative duration leaves its
// exclusive types (here node, from slot->node exclusive) in force: the
// next, non-exclusive match takes its node whole.
func TestNegativeDurationLeavesExclusiveTypes(t *testing.T) {
	tests := []struct {
		name      string
		quirks    bool
		exclNodes int
	}{
		{"library forgets the rejected jobspec", false, 0},
		{"Fluxion keeps its exclusive types", true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tinyGraph()
			m := newMatcherOpts(t, g, Options{Policy: "high", FluxionQuirks: tc.quirks})
			bad := mkjs(t, g, "slot[1]->node[1]x->socket[1]->core[1]", -12)
			if _, err := m.Match(Allocate, bad, 1, 0, newRecorder()); err == nil || !isInvalid(err) {
				t.Fatalf("negative duration: %v, want EINVAL", err)
			}
			w := newRecorder()
			if _, err := m.Match(Allocate, mkjs(t, g, "node[1]->socket[1]->slot[1]->core[1]", 60), 2, 0, w); err != nil {
				t.Fatal(err)
			}
			if got := w.exclusiveOf(g, graph.TypeNode); got != tc.exclNodes {
				t.Errorf("nodes taken exclusively = %d, want %d (%s)", got, tc.exclNodes, w.names(g))
			}
			// The leftover survives State/Restore.
			st, err := m.State()
			if err != nil {
				t.Fatal(err)
			}
			r, err := Restore(st)
			if err != nil {
				t.Fatal(err)
			}
			w = newRecorder()
			if _, err := r.Match(Allocate, mkjs(t, r.Graph(), "node[1]->socket[1]->slot[1]->core[1]", 60), 3, 0, w); err != nil {
				t.Fatal(err)
			}
			if got := w.exclusiveOf(r.Graph(), graph.TypeNode); got != tc.exclNodes {
				t.Errorf("after Restore: nodes taken exclusively = %d, want %d", got, tc.exclNodes)
			}
		})
	}
}

func isInvalid(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Errno == EINVAL
}

// orderOf returns the names of u's children in the dynamic order.
func orderOf(m *Matcher, u graph.VertexID) string {
	s := ""
	for _, e := range m.childOrder(u).list() {
		s += m.g.V(e.dst).Name + " "
	}
	return s
}

// A dry run books nothing; Fluxion still re-keys the dynamic child order,
// which changes what later first-fit matches pick. An update from an R
// re-keys at the R's start in the library, and to weight 0 in Fluxion.
func TestDynamicOrderRekeys(t *testing.T) {
	const untouched = ^uint64(0)
	tests := []struct {
		name   string
		quirks bool
		run    func(t *testing.T, m *Matcher, g *graph.Graph)
		want   uint64 // weight of rack0 -> node1 afterwards
	}{
		{"library dry run leaves the order", false, dry, untouched},
		{"Fluxion dry run re-keys", true, dry, 36},
		{"library update re-keys at its start", false, update, 35},
		{"Fluxion update re-keys to 0", true, update, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tinyGraph()
			m := newMatcherOpts(t, g, Options{Policy: "first", FluxionQuirks: tc.quirks})
			tc.run(t, m, g)
			e, ok := g.FindEdge(g.ByPath("/tiny0/rack0")[0], g.ByPath("/tiny0/rack0/node1")[0])
			if !ok {
				t.Fatal("no rack0 -> node1 edge")
			}
			if got := m.weight(e); got != tc.want {
				t.Errorf("weight = %d, want %d (order %s)", got, tc.want, orderOf(m, g.ByPath("/tiny0/rack0")[0]))
			}
		})
	}
}

// dry runs a dry run that selects on node1 (the first in the initial
// order).
func dry(t *testing.T, m *Matcher, g *graph.Graph) {
	t.Helper()
	if _, err := m.Match(WithoutAllocating, mkjs(t, g, "slot[1]->core[1]", 60), 1, 0, newRecorder()); err != nil {
		t.Fatal(err)
	}
}

// update books on node1 a core taken from an R, as job 7.
func update(t *testing.T, m *Matcher, g *graph.Graph) {
	t.Helper()
	tmp := newMatcherOpts(t, tinyGraph(), Options{Policy: "first"})
	r := matchR(t, tmp, mkjs(t, g, "slot[1]->core[1]", 60), 1)
	if err := m.UpdateJGF(r, false, 7, 0, 60, newRecorder()); err != nil {
		t.Fatal(err)
	}
}

// When a vertex's filter span cannot be booked (only after Fluxion's
// half-done operations left a filter behind its planners), the vertex is
// not emitted and the emission level is not closed; with FluxionQuirks
// the raised level carries over to later operations.
func TestEmissionLevelCarriesOver(t *testing.T) {
	for _, quirks := range []bool{false, true} {
		g := tinyGraph()
		m := newMatcherOpts(t, g, Options{Policy: "high", FluxionQuirks: quirks, FluxionFailures: true})
		// One to three slots: the filters are checked for one, the
		// selection takes three.
		js := mkjs(t, g, "slot[1:3:+:1]->core[1]", 60)
		// Leave two cores in the root's filter, behind the planners' back.
		root := g.Root(m.dom)
		f := m.wfilter(0, root)
		counts := make([]int64, f.Len())
		for i := range counts {
			if graph.TypeID(f.Type(i)) == graph.TypeCore {
				counts[i], _ = f.AvailAt(0, i)
				counts[i] -= 2
			}
		}
		if _, err := f.AddSpan(0, 60, counts); err != nil {
			t.Fatal(err)
		}
		w := newRecorder()
		if _, err := m.Match(Allocate, js, 2, 0, w); err != nil {
			t.Fatal(err)
		}
		for _, v := range w.verts {
			if v.id == root {
				t.Errorf("quirks=%v: the root was emitted although its filter span failed", quirks)
			}
		}
		// A find emits the root at level 1, or one deeper after the
		// unclosed level.
		w = newRecorder()
		if err := m.Find("status=up", 0, w); err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: 1, true: 2}[quirks]
		if got := w.verts[len(w.verts)-1].level; got != want {
			t.Errorf("quirks=%v: root emitted at level %d by the next find, want %d", quirks, got, want)
		}
	}
}
