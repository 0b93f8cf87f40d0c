package match

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// holding counts what job holds over the whole graph.
type holding struct {
	recs, tagged, alloc, xspans, fspans int
}

func holdingOf(m *Matcher, job uint64) holding {
	var h holding
	for v := range m.g.NumVertices() {
		r, ok := m.jobAt(graph.VertexID(v), job)
		if !ok {
			continue
		}
		h.recs++
		if r.tagged {
			h.tagged++
		}
		if r.alloc != 0 || r.resv != 0 {
			h.alloc++
		}
		if r.xspan != 0 {
			h.xspans++
		}
		if r.fspan >= 0 {
			h.fspans++
		}
	}
	return h
}

// attachRankedNode grows a rankedGraph by node<id> (rank id) under
// /tiny0/rack0 with one socket of ncores cores, as an attach file of the
// ops corpus does.
func attachRankedNode(t *testing.T, m *Matcher, id, ncores int) {
	t.Helper()
	var nodes, edges []string
	add := func(uniq int64, typ, base string, vid, rank int64, path string) {
		nodes = append(nodes, fmt.Sprintf(`{"id":"%d","metadata":{"type":%q,"basename":%q,"id":%d,"uniq_id":%d,"rank":%d,"size":1,"paths":{"containment":%q}}}`, uniq, typ, base, vid, uniq, rank, path))
	}
	edge := func(a, b int64) { edges = append(edges, fmt.Sprintf(`{"source":"%d","target":"%d"}`, a, b)) }
	// The ancestors as they are (reused by path and rank), then the new
	// vertices.
	root := m.g.Root(m.dom)
	rack := m.g.ByPath("/tiny0/rack0")[0]
	add(m.g.V(root).UniqID, "cluster", "tiny", 0, m.g.V(root).Rank, "/tiny0")
	add(m.g.V(rack).UniqID, "rack", "rack", 0, m.g.V(rack).Rank, "/tiny0/rack0")
	edge(m.g.V(root).UniqID, m.g.V(rack).UniqID)
	uniq := int64(1000)
	np := fmt.Sprintf("/tiny0/rack0/node%d", id)
	add(uniq, "node", "node", int64(id), int64(id), np)
	add(uniq+1, "socket", "socket", 0, int64(id), np+"/socket0")
	edge(m.g.V(rack).UniqID, uniq)
	edge(uniq, uniq+1)
	for j := 0; j < ncores; j++ {
		add(uniq+2+int64(j), "core", "core", int64(j), int64(id), fmt.Sprintf("%s/socket0/core%d", np, j))
		edge(uniq+1, uniq+2+int64(j))
	}
	doc, err := jgf.Parse([]byte(`{"graph":{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(edges, ",") + `]}}`))
	if err != nil {
		t.Fatal(err)
	}
	n := m.g.NumVertices()
	if err := m.Attach(doc); err != nil {
		t.Fatalf("attach node%d: %v", id, err)
	}
	if got := m.g.NumVertices() - n; got != 2+ncores {
		t.Fatalf("attach created %d vertices, want %d", got, 2+ncores)
	}
}

// untagRoot drops job's tag on the root, as a summed rank removal does
// (the only routes there need FluxionFailures).
func untagRoot(t *testing.T, m *Matcher, job uint64) {
	t.Helper()
	rec := m.wjob(m.g.Root(m.dom), job)
	if rec == nil || !rec.tagged {
		t.Fatalf("job %d: the root is not tagged", job)
	}
	rec.tagged = false
}

// removeRankSummed brings job 1 to a state where vertices below the root
// carry it but the root does not, the Fluxion way (o2000267): jobs 1 and 2
// both hold cores on rank 0, and Fluxion's rank removal gives each job the
// amounts of both back. That empties job 1's filter span at the root (and
// untags it there) and fails on job 2's, leaving rank 0 in the graph.
func removeRankSummed(t *testing.T, m *Matcher) {
	t.Helper()
	if err := m.RemoveRanks([]int64{0}); err == nil {
		t.Fatalf("RemoveRanks(0) succeeded; want job 2's span over-reduced")
	}
	if rec, ok := m.jobAt(m.g.Root(m.dom), 1); ok && rec.tagged {
		t.Fatalf("job 1 is still tagged at the root")
	}
	if !m.taggedBelowRoot(1) {
		t.Fatalf("job 1 is tagged nowhere")
	}
}

// Cancel of a job the root does not carry. Fluxion runs its exhaustive
// removal (spec traversal.md §14.1: allocation spans go, tags,
// exclusivity and filter spans stay) and reports failure when vertices
// below the root are still tagged (o2000267); a job that tagged nothing
// is cancelled (t3023-004). The library releases everything and succeeds.
func TestCancelRootUntagged(t *testing.T) {
	type want struct {
		err  bool
		left holding // what job 1 holds after the cancel
	}
	tests := []struct {
		name     string
		failures bool
		// setup books jobs on a rankedGraph(3, 4) under -P low and leaves
		// one untagged at the root; it returns that job and a core the
		// job holds below the root.
		setup func(t *testing.T, m *Matcher) (uint64, graph.VertexID)
		want  want
	}{
		{
			name:     "Fluxion, summed rank removal",
			failures: true,
			setup: func(t *testing.T, m *Matcher) (uint64, graph.VertexID) {
				matchR(t, m, mkjs(t, m.g, "node[2]->socket[1]->slot[1]->core[1]", 3600), 1) // node0, node1
				// Job 1's spans at the root and rack0 hold 2 cores, rank 0
				// gives back 1+1.
				matchR(t, m, mkjs(t, m.g, "node[1]->socket[1]->slot[1]->core[1]", 3600), 2) // node0
				removeRankSummed(t, m)
				return 1, m.g.ByPath("/tiny0/rack0/node1/socket0/core0")[0]
			},
			// node1, its socket and core0: tags and exclusivity spans stay,
			// node1's and the socket's filter spans too.
			want: want{err: true, left: holding{recs: 3, tagged: 3, xspans: 3, fspans: 2}},
		},
		{
			name:     "Fluxion, grown by attach, summed rank removal",
			failures: true,
			setup: func(t *testing.T, m *Matcher) (uint64, graph.VertexID) {
				attachRankedNode(t, m, 3, 4)
				matchR(t, m, mkjs(t, m.g, "node[3]->socket[1]->slot[1]->core[1]", 3600), 1) // node0, node1, node2
				matchR(t, m, mkjs(t, m.g, "node[1]->socket[1]->slot[1]->core[2]", 3600), 2) // node0
				// Job 1's root span holds 3 cores, rank 0 gives back 1+2.
				removeRankSummed(t, m)
				return 1, m.g.ByPath("/tiny0/rack0/node2/socket0/core0")[0]
			},
			want: want{err: true, left: holding{recs: 6, tagged: 6, xspans: 6, fspans: 4}},
		},
		{
			name:     "Fluxion, job on the attached node",
			failures: true,
			setup: func(t *testing.T, m *Matcher) (uint64, graph.VertexID) {
				attachRankedNode(t, m, 3, 4)
				for j := uint64(1); j <= 4; j++ { // whole nodes, lowest first
					matchR(t, m, mkjs(t, m.g, "node[1]->socket[1]->slot[1]->core[4]", 3600), j)
				}
				core := m.g.ByPath("/tiny0/rack0/node3/socket0/core0")[0]
				untagRoot(t, m, 4)
				return 4, core
			},
			want: want{err: true},
		},
		{
			name:     "Fluxion, tagged nowhere",
			failures: true,
			setup: func(t *testing.T, m *Matcher) (uint64, graph.VertexID) {
				matchR(t, m, mkjs(t, m.g, "node[1]->socket[1]->slot[1]->core[2]", 3600), 1)
				for v := range m.g.NumVertices() {
					if r := m.wjob(graph.VertexID(v), 1); r != nil {
						r.tagged = false
					}
				}
				return 1, m.g.ByPath("/tiny0/rack0/node0/socket0/core0")[0]
			},
			// As after an R booked under another dominant subsystem:
			// released, the walk's other state stays.
			want: want{left: holding{recs: 6, xspans: 6, fspans: 4}},
		},
		{
			name:     "library, grown by attach, root untagged",
			failures: false,
			setup: func(t *testing.T, m *Matcher) (uint64, graph.VertexID) {
				attachRankedNode(t, m, 3, 4)
				matchR(t, m, mkjs(t, m.g, "node[3]->socket[1]->slot[1]->core[1]", 3600), 1)
				untagRoot(t, m, 1)
				return 1, m.g.ByPath("/tiny0/rack0/node2/socket0/core0")[0]
			},
		},
		{
			name:     "library, tagged nowhere",
			failures: false,
			setup: func(t *testing.T, m *Matcher) (uint64, graph.VertexID) {
				matchR(t, m, mkjs(t, m.g, "node[1]->socket[1]->slot[1]->core[2]", 3600), 1)
				for v := range m.g.NumVertices() {
					if r := m.wjob(graph.VertexID(v), 1); r != nil {
						r.tagged = false
					}
				}
				return 1, m.g.ByPath("/tiny0/rack0/node0/socket0/core0")[0]
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := rankedGraph(3, 4)
			m := newMatcherOpts(t, g, Options{Policy: "low", FluxionFailures: tc.failures})
			job, core := tc.setup(t, m)
			if r, ok := m.jobAt(core, job); !ok || r.alloc == 0 {
				t.Fatalf("job %d holds no allocation on %s", job, g.V(core).Name)
			}
			err := m.Cancel(job)
			if (err != nil) != tc.want.err {
				t.Fatalf("Cancel(%d) = %v, want error %v", job, err, tc.want.err)
			}
			if err != nil && !strings.Contains(err.Error(), "tagged below the root") {
				t.Errorf("Cancel(%d) = %v", job, err)
			}
			// Every allocation span is gone, in both modes.
			if a, _ := m.plan(core).AvailDuring(0, 3600); a != 1 {
				t.Errorf("%s's planner still booked", g.V(core).Name)
			}
			w := newRecorder()
			if err := m.Find(fmt.Sprintf("jobid-alloc=%d", job), 0, w); err != nil {
				t.Fatal(err)
			}
			if w.names(g) != "" {
				t.Errorf("job %d still allocated on %s", job, w.names(g))
			}
			got := holdingOf(m, job)
			if tc.want.left != (holding{}) && got != tc.want.left {
				t.Errorf("job %d holds %+v after the cancel, want %+v", job, got, tc.want.left)
			}
			// The exclusivity span that Fluxion leaves keeps the core from
			// exclusive use; the library frees it.
			xfree, _ := m.xplan(core).AvailDuring(0, 3600)
			if kept := xfree != xCheckerTotal; kept != tc.failures {
				t.Errorf("%s's exclusivity span kept = %v, want %v", g.V(core).Name, kept, tc.failures)
			}
			if !tc.failures {
				if got != (holding{}) {
					t.Errorf("library: job %d still holds %+v", job, got)
				}
				if n := m.filter(0, g.Root(m.dom)).NumSpans(); n != 0 {
					t.Errorf("library: the root filter still holds %d spans", n)
				}
			}
			if tc.failures && tc.want.err {
				// Cancel keeps failing while the tags stay, releasing
				// nothing more.
				before := snapshot(t, m)
				if err := m.Cancel(job); err == nil {
					t.Errorf("second Cancel(%d) succeeded", job)
				}
				if snapshot(t, m) != before {
					t.Errorf("second Cancel(%d) changed the schedule", job)
				}
			}
		})
	}
}

// Attach re-primes the filters but leaves every job record as it was: a
// job booked before the graph grew is still tagged at the root and
// cancelled by the walk.
func TestCancelAfterAttach(t *testing.T) {
	for _, failures := range []bool{false, true} {
		g := rankedGraph(3, 4)
		m := newMatcherOpts(t, g, Options{Policy: "low", FluxionFailures: failures})
		matchR(t, m, mkjs(t, g, "node[2]->socket[1]->slot[1]->core[2]", 3600), 1)
		before := holdingOf(m, 1)
		attachRankedNode(t, m, 3, 4)
		if got := holdingOf(m, 1); got != before {
			t.Fatalf("failures=%v: attach changed job 1's records: %+v, want %+v", failures, got, before)
		}
		if err := m.Cancel(1); err != nil {
			t.Fatalf("failures=%v: Cancel(1) = %v", failures, err)
		}
		if pre, post := m.Visits(); post != int64(before.recs) || pre <= post {
			t.Errorf("failures=%v: visits %d/%d, want the walk over %d vertices", failures, pre, post, before.recs)
		}
		if got := holdingOf(m, 1); got != (holding{}) {
			t.Errorf("failures=%v: job 1 still holds %+v", failures, got)
		}
		// Under low the next job takes the lowest node again.
		w := newRecorder()
		if _, err := m.Match(Allocate, mkjs(t, g, "node[1]->socket[1]->slot[1]->core[4]", 3600), 2, 0, w); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(w.names(g), "node0") {
			t.Errorf("failures=%v: after the cancel job 2 got %s, want node0", failures, w.names(g))
		}
	}
}
