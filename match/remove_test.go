package match

import (
	"slices"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// rootCores returns what job's filter span at the root counts of cores
// (-1: no span; 0 when its core member was reduced away).
func rootCores(t *testing.T, m *Matcher, job uint64) int64 {
	t.Helper()
	root := m.g.Root(m.dom)
	rec, ok := m.jobAt(root, job)
	if !ok || rec.fspan < 0 {
		return -1
	}
	f := m.filter(0, root)
	if !f.HasSpan(rec.fspan) {
		t.Fatalf("job %d's filter span %d at the root is gone", job, rec.fspan)
	}
	n, err := f.SpanPlanned(rec.fspan, f.Index(int32(m.g.Type("core"))))
	if err != nil {
		return 0
	}
	return n
}

// jobRecords counts the vertices where job has a record.
func jobRecords(m *Matcher, job uint64) int {
	n := 0
	for v := range graph.VertexID(m.g.NumVertices()) {
		if m.hasJob(v, job) {
			n++
		}
	}
	return n
}

// A path removal releases what jobs hold in the removed subgraph and gives
// it back to the ancestors' filters; a job left holding nothing ends. With
// FluxionQuirks (Fluxion, spec §14.4) jobs keep their records.
func TestRemovePathReleasesJobs(t *testing.T) {
	for _, quirks := range []bool{false, true} {
		g := tinyGraph()
		m := newMatcherOpts(t, g, Options{Policy: "low", FluxionQuirks: quirks})
		matchR(t, m, mkjs(t, g, "node[2]->socket[1]->slot[1]->core[1]", 3600), 1) // a core on each node
		matchR(t, m, mkjs(t, g, "node[1]->socket[1]->slot[1]->core[2]", 3600), 2) // node0 (low)
		if got := rootCores(t, m, 1); got != 2 {
			t.Fatalf("job 1 counts %d cores at the root, want 2", got)
		}
		if err := m.RemovePath("/tiny0/rack0/node0"); err != nil {
			t.Fatal(err)
		}
		want1, want2, ended := int64(1), int64(-1), []uint64{2}
		if quirks {
			want1, want2, ended = 2, 2, nil
		}
		if got := rootCores(t, m, 1); got != want1 {
			t.Errorf("quirks %v: job 1 counts %d cores at the root, want %d", quirks, got, want1)
		}
		if got := rootCores(t, m, 2); got != want2 {
			t.Errorf("quirks %v: job 2 counts %d cores at the root, want %d", quirks, got, want2)
		}
		if !slices.Equal(m.Ended(), ended) {
			t.Errorf("quirks %v: Ended() = %v, want %v", quirks, m.Ended(), ended)
		}
		if quirks {
			continue
		}
		if n := jobRecords(m, 2); n != 0 {
			t.Errorf("the ended job 2 keeps records on %d vertices", n)
		}
		// Job 1 keeps node1's core, reached from the root on cancel.
		if err := m.Cancel(1); err != nil {
			t.Fatal(err)
		}
		for v := range graph.VertexID(m.g.NumVertices()) {
			if m.jobsOf(v).Len() > 0 {
				t.Errorf("after cancelling everything %s keeps records", m.g.V(v).Name)
			}
			if f := m.filter(0, v); f.ok() && f.NumSpans() > 0 {
				t.Errorf("after cancelling everything %s's filter keeps %d spans", m.g.V(v).Name, f.NumSpans())
			}
		}
	}
}

// An ancestor that the job holds itself keeps the job's exclusivity span
// after its only child is removed; the job does not end.
func TestRemovePathKeepsHeldAncestor(t *testing.T) {
	g := tinyGraph()
	m := newMatcherOpts(t, g, Options{Policy: "low"})
	matchR(t, m, mkjs(t, g, "node[1]x->socket[1]->slot[1]->core[1]", 3600), 1)
	node := m.g.ByPath("/tiny0/rack0/node0")[0]
	if rec, ok := m.jobAt(node, 1); !ok || rec.alloc == 0 {
		t.Fatalf("job 1 does not hold node0 exclusively: %+v", rec)
	}
	for _, s := range []string{"/tiny0/rack0/node0/socket0", "/tiny0/rack0/node0/socket1"} {
		if err := m.RemovePath(s); err != nil {
			t.Fatal(err)
		}
		if len(m.Ended()) != 0 {
			t.Fatalf("removing %s ended %v", s, m.Ended())
		}
	}
	rec, ok := m.jobAt(node, 1)
	if !ok || rec.alloc == 0 || rec.xspan == 0 || !rec.tagged {
		t.Errorf("job 1 lost node0: %+v", rec)
	}
	if m.filter(0, node).ok() {
		t.Errorf("node0, a leaf now, keeps a pruning filter")
	}
	if got := rootCores(t, m, 1); got > 0 {
		t.Errorf("job 1 still counts %d cores at the root", got)
	}
}

// Removing a socket's only cores makes socket a leaf type: every total of
// the root's socket member counts every socket by default; Fluxion's walk
// (FluxionQuirks) misses the sockets it walked before the leaf.
func TestRemovePrimesEveryVertex(t *testing.T) {
	for _, quirks := range []bool{false, true} {
		b := graph.NewBuilder()
		c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
		for i := range 2 {
			n := b.MustAdd(c, "node", int64(i))
			for s := range 2 {
				k := b.MustAdd(n, "socket", int64(s))
				b.MustAdd(k, "core", 0)
			}
		}
		m := newMatcherOpts(t, b.Graph(), Options{FluxionQuirks: quirks})
		if err := m.RemovePath("/m0/node1/socket1/core0"); err != nil {
			t.Fatal(err)
		}
		root := m.g.Root(m.dom)
		f := m.filter(0, root)
		i := f.Index(int32(m.g.Type("socket")))
		if i < 0 {
			t.Fatalf("quirks %v: socket is not tracked at the root", quirks)
		}
		if got := f.Total(i); (got == 4) == quirks {
			t.Errorf("quirks %v: the root counts %d sockets", quirks, got)
		}
	}
}
