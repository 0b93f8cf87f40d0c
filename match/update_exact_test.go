package match

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/rv1"
)

// nodeGraph builds cluster m0 → node0 (rank 0) → one socket per id in
// sockets → one core of the same id.
func nodeGraph(sockets ...int64) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	for _, id := range sockets {
		s := b.MustAdd(n, "socket", id)
		b.MustAdd(s, "core", id)
	}
	return b.Graph()
}

// rOf matches tree as job 1 on a fresh matcher of g and returns its R.
func rOf(t *testing.T, g *graph.Graph, pol, tree string) *jgf.Document {
	t.Helper()
	return matchR(t, newMatcherOpts(t, g, Options{Policy: pol}), mkjs(t, g, tree, 0), 1)
}

// exclusiveOf returns the names of the recorded vertices emitted
// exclusive.
func exclusiveOf(r *recorder, g *graph.Graph) []string {
	var l []string
	for _, v := range r.verts {
		if v.excl {
			l = append(l, g.V(v.id).Name)
		}
	}
	return l
}

// An update from an R books exactly what it emits (library mode); with
// FluxionQuirks (resource-query, reapi) it gives Fluxion's answers.
func TestUpdateBooksWhatItEmits(t *testing.T) {
	for _, quirks := range []bool{false, true} {
		opts := Options{FluxionQuirks: quirks}
		// An R that took node0 whole, written before socket1 was added
		// under it, while job 2 holds core1: node0 is not free.
		t.Run("stale exclusive/quirks="+boolName(quirks), func(t *testing.T) {
			g := nodeGraph(0, 1)
			opts.Policy = "high"
			m := newMatcherOpts(t, g, opts)
			if err := m.UpdateJGF(rOf(t, nodeGraph(1), "high", "slot[1]->core[1]"), false, 2, 0, GraphEnd, newRecorder()); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, m)
			err := m.UpdateJGF(rOf(t, nodeGraph(0), "high", "node[1]x"), false, 7, 100, 60, newRecorder())
			switch {
			case quirks && err != nil:
				t.Errorf("with FluxionQuirks (Fluxion's answer): %v", err)
			case !quirks && !errors.Is(err, ErrBusy):
				t.Errorf("node0 taken while job 2 holds core1 below it: %v, want ErrBusy", err)
			case !quirks && snapshot(t, m) != before:
				t.Errorf("the failed update changed the state")
			}
		})
		// Under a node-exclusive policy the R of a core lists node0 and
		// socket0; socket1 was added since.
		t.Run("exclusive types/quirks="+boolName(quirks), func(t *testing.T) {
			g := nodeGraph(0, 1)
			opts.Policy = "hinodex"
			m := newMatcherOpts(t, g, opts)
			rec := newRecorder()
			if err := m.UpdateJGF(rOf(t, nodeGraph(0), "hinodex", "slot[1]->core[1]"), false, 7, 0, 60, rec); err != nil {
				t.Fatal(err)
			}
			want := "core0,socket0,node0,m0"
			if quirks {
				want = "core0,socket0,core1,socket1,node0,m0" // Fluxion's: socket1 and core1 not booked
			}
			if got := rec.names(g); got != want {
				t.Errorf("emitted %s, want %s", got, want)
			}
			held := newRecorder()
			if err := m.Find("jobid-alloc=7", 0, held); err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(held.names(g), ","); slices.Contains(got, "core1") || !slices.Contains(got, "core0") {
				t.Errorf("job 7 books %v, want core0 and not core1", got)
			}
		})
		// An rv1exec R lists gpu1 of node0 while job 1 holds gpu0.
		t.Run("rv1exec node/quirks="+boolName(quirks), func(t *testing.T) {
			b := graph.NewBuilder()
			c := b.MustAdd(graph.NoVertex, "cluster", 0)
			n := b.MustAdd(c, "node", 0, graph.WithRank(0))
			b.MustAdd(n, "core", 0, graph.WithRank(0))
			b.MustAdd(n, "gpu", 0, graph.WithRank(0))
			b.MustAdd(n, "gpu", 1, graph.WithRank(0))
			g := b.Graph()
			opts.Policy = "low"
			m := newMatcherOpts(t, g, opts)
			apply := func(job uint64, children string) *recorder {
				t.Helper()
				r, err := rv1.ParseR([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": ` + children +
					`}], "nodelist": ["node0"], "starttime": 0, "expiration": 60}}`))
				if err != nil {
					t.Fatal(err)
				}
				rec := newRecorder()
				if err := m.UpdateRV1Exec(r, job, 0, 60, rec); err != nil {
					t.Fatal(err)
				}
				return rec
			}
			apply(1, `{"gpu": "0"}`)
			rec := apply(5, `{"gpu": "1"}`)
			want := "gpu1"
			if quirks {
				want = "gpu1,node0" // Fluxion's: node0 exclusive, not booked whole
			}
			if got := strings.Join(exclusiveOf(rec, g), ","); got != want {
				t.Errorf("exclusive %s, want %s", got, want)
			}
			// Everything of rank 0 listed: node0 is taken whole.
			m = newMatcherOpts(t, g, opts)
			rec = apply(5, `{"core": "0", "gpu": "0-1"}`)
			if got := strings.Join(exclusiveOf(rec, g), ","); got != "core0,gpu0,gpu1,node0" {
				t.Errorf("R of the whole node: exclusive %s, want core0,gpu0,gpu1,node0", got)
			}
		})
	}
	// A vertex listed twice is an invalid R (Fluxion books it once and
	// fails as unavailable the second time).
	g := nodeGraph(0)
	m := newMatcherOpts(t, g, Options{Policy: "low"})
	r := rOf(t, g, "low", "slot[1]->core[1]")
	r.Nodes = append(r.Nodes, r.Nodes[0])
	r.Nodes[len(r.Nodes)-1].ID = "99"
	before := snapshot(t, m)
	if err := m.UpdateJGF(r, false, 7, 0, 60, newRecorder()); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "twice") {
		t.Errorf("an R listing %s twice: %v, want ErrInvalid", r.Nodes[0].Metadata.Name, err)
	}
	if snapshot(t, m) != before {
		t.Errorf("the failed update changed the state")
	}
}

func boolName(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
