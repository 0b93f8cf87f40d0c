package match

import (
	"errors"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// postOrderJGF is nodeGraph(0) as Fluxion's JGF writer lists it: children
// first, so the vertices' unique ids (from the file) are not their
// creation indices once loaded.
const postOrderJGF = `{"graph": {"nodes": [
 {"id": "3", "metadata": {"type": "core", "id": 0, "rank": -1, "paths": {"containment": "/m0/node0/socket0/core0"}}},
 {"id": "2", "metadata": {"type": "socket", "id": 0, "rank": -1, "paths": {"containment": "/m0/node0/socket0"}}},
 {"id": "1", "metadata": {"type": "node", "id": 0, "rank": 0, "paths": {"containment": "/m0/node0"}}},
 {"id": "0", "metadata": {"type": "cluster", "basename": "m", "id": 0, "rank": -1, "paths": {"containment": "/m0"}}}],
 "edges": [{"source": "2", "target": "3"}, {"source": "1", "target": "2"}, {"source": "0", "target": "1"}]}}`

// shorthandNodeR is the jgf_shorthand R of a job that took node0 whole.
const shorthandNodeR = `{"graph": {"nodes": [
 {"id": "1", "metadata": {"type": "node", "id": 0, "rank": 0, "exclusive": true, "paths": {"containment": "/m0/node0"}}},
 {"id": "0", "metadata": {"type": "cluster", "basename": "m", "id": 0, "rank": -1, "paths": {"containment": "/m0"}}}],
 "edges": [{"source": "0", "target": "1"}]}, "writer": "fluxion:jgf_shorthand"}`

// TestUpdateShorthandExpansion: a jgf_shorthand R's exclusive vertex
// stands for its subtree. Fluxion expands it only on graphs whose unique
// ids are their creation indices (GRUG, hwloc, rv1exec) and fails on a
// JGF-loaded graph after booking the vertex, leaving the job unrecorded
// (FluxionFailures, resource-query); reapi (FluxionQuirks) fails the same
// way but books nothing; the library applies the R whole on any graph.
func TestUpdateShorthandExpansion(t *testing.T) {
	doc, err := jgf.Parse([]byte(shorthandNodeR))
	if err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		name string
		opts Options
	}{{"library", Options{}}, {"quirks", Options{FluxionQuirks: true}}, {"failures", Options{FluxionQuirks: true, FluxionFailures: true}}}
	graphs := []struct {
		name      string
		g         func(t *testing.T) *graph.Graph
		expandsIn map[string]bool // modes that apply the R
		bookedIn  map[string]bool // modes that leave node0 booked after a failure
	}{{
		name:      "grug-like",
		g:         func(*testing.T) *graph.Graph { return nodeGraph(0) },
		expandsIn: map[string]bool{"library": true, "quirks": true, "failures": true},
	}, {
		name: "jgf-loaded",
		g: func(t *testing.T) *graph.Graph {
			g, err := jgf.Read([]byte(postOrderJGF))
			if err != nil {
				t.Fatal(err)
			}
			return g
		},
		expandsIn: map[string]bool{"library": true},
		bookedIn:  map[string]bool{"failures": true},
	}}
	for _, gr := range graphs {
		for _, md := range modes {
			t.Run(gr.name+"/"+md.name, func(t *testing.T) {
				g := gr.g(t)
				m := newMatcherOpts(t, g, md.opts)
				node := g.ByPath("/m0/node0")[0]
				before := snapshot(t, m)
				rec := newRecorder()
				err := m.UpdateJGF(doc, true, 7, 0, 60, rec)
				if gr.expandsIn[md.name] {
					if err != nil {
						t.Fatalf("UpdateJGF: %v", err)
					}
					if got, want := rec.names(g), "core0,socket0,node0,m0"; got != want {
						t.Errorf("emitted %s, want %s", got, want)
					}
					return
				}
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("UpdateJGF: %v, want ErrInvalid", err)
				}
				avail, _ := m.plan(node).AvailDuring(0, 60)
				if booked := avail == 0; booked != gr.bookedIn[md.name] {
					t.Errorf("node0 booked after the failure: %v, want %v", booked, gr.bookedIn[md.name])
				}
				if !gr.bookedIn[md.name] && snapshot(t, m) != before {
					t.Errorf("the failed update changed the state")
				}
			})
		}
	}
}
