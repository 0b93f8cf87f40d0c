package match

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// The library's partial cancel (no FluxionFailures), checked on random
// streams against invariants that need no model:
//
//   - a failed partial cancel changes nothing;
//   - a successful one releases the allocations of exactly what it lists
//     (the JGF form: the listed vertices; the rank form: the vertices of
//     the ranks and those below them) and reports full exactly when the
//     job holds no allocation any more, and then leaves no record;
//   - the job's records stay a tree without empty branches: each record
//     is tagged, has an exclusivity span, its parent carries one, and it
//     holds an allocation or has a record below it;
//   - every pruning filter counts exactly the units booked below it;
//   - cancelling everything leaves no record and every filter free.
func TestPartialCancelLibraryInvariants(t *testing.T) {
	graphs := []struct {
		name string
		g    func() *graph.Graph
	}{
		{"grug-like (ranks on nodes)", tinyGraph},
		{"ranked", func() *graph.Graph { return rankedGraph(3, 4) }},
	}
	specs := []string{
		"slot[2]->core[2]",
		"slot[1]->(core[2],gpu[1])",
		"slot[1]->(core[1],memory[2])",
		"node[2]->socket[1]->slot[1]->core[1]",
		"node[1]x->socket[1]->core[1]",
	}
	for _, gc := range graphs {
		for seed := uint64(1); seed <= 40; seed++ {
			t.Run(fmt.Sprintf("%s/%d", gc.name, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 7))
				g := gc.g()
				m := newMatcherOpts(t, g, Options{Policy: []string{"low", "high", "first"}[seed%3]})
				rs := map[uint64]*jgf.Document{}
				var jobs []uint64
				for j := uint64(1); j <= 4; j++ {
					spec := specs[rng.IntN(len(specs))]
					if strings.Contains(spec, "gpu") || strings.Contains(spec, "memory") {
						if gc.name == "ranked" {
							spec = "slot[1]->core[3]"
						}
					}
					w := jgf.NewWriter()
					if _, err := m.Match(Allocate, mkjs(t, g, spec, 3600), j, 0, w); err != nil {
						continue
					}
					s, _ := w.JSON()
					doc, err := jgf.Parse([]byte(s))
					if err != nil {
						t.Fatal(err)
					}
					rs[j] = doc
					jobs = append(jobs, j)
				}
				checkPartialInvariants(t, m, jobs)
				for step := 0; step < 12 && len(jobs) > 0; step++ {
					job := jobs[rng.IntN(len(jobs))]
					before := snapshot(t, m)
					var full bool
					var err error
					var drop func(v graph.VertexID) bool
					what := ""
					if rng.IntN(2) == 0 {
						var nodes []jgf.Node
						listed := map[graph.VertexID]bool{}
						for _, n := range rs[job].Nodes {
							if rng.IntN(3) == 0 {
								nodes = append(nodes, n)
								listed[g.ByPath(n.Metadata.Paths[0].Path)[0]] = true
							}
						}
						what = fmt.Sprintf("JGF %d of %d vertices", len(nodes), len(rs[job].Nodes))
						drop = func(v graph.VertexID) bool { return listed[v] }
						full, err = m.PartialCancelJGF(job, &jgf.Document{Nodes: nodes})
					} else {
						r := int64(rng.IntN(3))
						what = fmt.Sprintf("rank %d", r)
						drop = func(v graph.VertexID) bool {
							for u := v; u != graph.NoVertex; u = m.domParentOf(u) {
								if g.V(u).Rank == r {
									return true
								}
							}
							return false
						}
						full, err = m.PartialCancel(job, []int64{r})
					}
					if err != nil {
						if after := snapshot(t, m); after != before {
							t.Fatalf("step %d, job %d, %s: the failed partial cancel (%v) changed the schedule", step, job, what, err)
						}
						continue
					}
					// What the job held before, minus what was listed.
					var kept []string
					for _, v := range m.jobSet(job) {
						if rec, _ := m.jobAt(v, job); rec.alloc != 0 && !drop(v) {
							kept = append(kept, g.V(v).Name)
						}
					}
					if full != (len(kept) == 0) {
						t.Fatalf("step %d, job %d, %s: full=%v while the job still holds %v", step, job, what, full, kept)
					}
					// Nothing listed is held any more.
					for _, v := range m.jobSet(job) {
						if rec, _ := m.jobAt(v, job); rec.alloc != 0 && drop(v) {
							t.Fatalf("step %d, job %d, %s: %s is listed but still held", step, job, what, g.V(v).Name)
						}
					}
					if full {
						if l := m.jobSet(job); len(l) > 0 {
							t.Fatalf("step %d, job %d, %s: released whole but has records on %d vertices", step, job, what, len(l))
						}
						jobs = slices.DeleteFunc(jobs, func(j uint64) bool { return j == job })
					}
					checkPartialInvariants(t, m, jobs)
				}
				for _, j := range jobs {
					if err := m.Cancel(j); err != nil {
						t.Fatalf("cancel %d: %v", j, err)
					}
				}
				checkPartialInvariants(t, m, nil)
				for v := range g.NumVertices() {
					if n := m.jobsOf(graph.VertexID(v)).Len(); n > 0 {
						t.Fatalf("%s has %d job records after every job was cancelled", g.V(graph.VertexID(v)).Name, n)
					}
				}
			})
		}
	}
}

// checkPartialInvariants checks the record trees of jobs and every filter.
func checkPartialInvariants(t *testing.T, m *Matcher, jobs []uint64) {
	t.Helper()
	g := m.g
	root := g.Root(m.dom)
	for _, job := range jobs {
		vs := m.jobSet(job)
		has := map[graph.VertexID]bool{}
		for _, v := range vs {
			has[v] = true
		}
		below := map[graph.VertexID]bool{}
		for _, v := range vs {
			rec, _ := m.jobAt(v, job)
			if !rec.tagged || rec.xspan == 0 {
				t.Fatalf("job %d's record on %s: tagged %v, exclusivity span %d", job, g.V(v).Name, rec.tagged, rec.xspan)
			}
			if v == root {
				continue
			}
			p := m.domParentOf(v)
			if !has[p] {
				t.Fatalf("job %d has a record on %s but none on its parent", job, g.V(v).Name)
			}
			below[p] = true
		}
		for _, v := range vs {
			if rec, _ := m.jobAt(v, job); rec.alloc == 0 && !below[v] {
				t.Fatalf("job %d keeps an empty record on %s (nothing held there or below)", job, g.V(v).Name)
			}
		}
	}
	for v := range g.NumVertices() {
		u := graph.VertexID(v)
		f := m.filter(0, u)
		if !f.ok() {
			continue
		}
		for i := range f.Len() {
			avail, err := f.AvailDuring(0, 1, i)
			if err != nil {
				t.Fatal(err)
			}
			var booked int64
			var walk func(w graph.VertexID)
			walk = func(w graph.VertexID) {
				for _, h := range g.Out(w) {
					if h.Subsystem != m.dom {
						continue
					}
					if int32(g.V(h.Other).Type) == f.Type(i) {
						a, _ := m.plan(h.Other).AvailDuring(0, 1)
						booked += g.V(h.Other).Size - a
					}
					walk(h.Other)
				}
			}
			walk(u)
			if used := f.Total(i) - avail; used != booked {
				t.Fatalf("%s's filter counts %d of type %s, the planners below book %d", g.V(u).Name, used, g.Types.Name(f.Type(i)), booked)
			}
		}
	}
}

// A rank where the job holds nothing is refused, changing nothing, even
// with a rank where it does; listing only the vertices a job holds shared
// releases nothing.
func TestPartialCancelLibraryNothingHeld(t *testing.T) {
	g := rankedGraph(3, 2)
	m := newMatcherOpts(t, g, Options{Policy: "low"})
	r := matchR(t, m, mkjs(t, g, "slot[1]->core[2]", 3600), 1) // node0's cores
	before := snapshot(t, m)
	for _, ranks := range [][]int64{{1}, {0, 1}, {2, 0}} {
		full, err := m.PartialCancel(1, ranks)
		if err == nil || full || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "nothing to give back for rank") {
			t.Errorf("PartialCancel(%v) = %v, %v; want an error naming the rank", ranks, full, err)
		}
		if snapshot(t, m) != before {
			t.Fatalf("PartialCancel(%v) failed but changed the schedule", ranks)
		}
	}
	var shared []jgf.Node
	for _, n := range r.Nodes {
		if n.Metadata.Type != "core" {
			shared = append(shared, n)
		}
	}
	full, err := m.PartialCancelJGF(1, &jgf.Document{Nodes: shared})
	if err != nil || full {
		t.Fatalf("PartialCancelJGF(shared vertices) = %v, %v", full, err)
	}
	if snapshot(t, m) != before {
		t.Errorf("a partial cancel of the shared vertices alone changed the schedule")
	}
	full, err = m.PartialCancel(1, []int64{0})
	if err != nil || !full {
		t.Fatalf("PartialCancel(rank 0) = %v, %v; want the whole job", full, err)
	}
	for v := range g.NumVertices() {
		if m.hasJob(graph.VertexID(v), 1) {
			t.Errorf("%s keeps a record of the released job", g.V(graph.VertexID(v)).Name)
		}
	}
}
