package jgf

import (
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// Older Flux JGF writers (and fluxion-go's pkg/fluxcli/data/tiny.json)
// list every containment edge in both directions: parent -> child
// ("contains") and child -> parent ("in", or no relation). Fluxion loads
// both; the strict reader keeps the tree and skips the upward edge, so
// that every layer loads such files (issue 21, item 2).

// twoWayDoc is a cluster with one node of two cores, every edge listed
// both ways; reverseFirst lists the upward edge of each pair first.
func twoWayDoc(meta func(up bool) string, reverseFirst bool) (twoWay, oneWay string) {
	nodes := `{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/tiny0"}}},
		{"id": "1", "metadata": {"type": "node", "rank": 0, "paths": {"containment": "/tiny0/node0"}}},
		{"id": "2", "metadata": {"type": "core", "rank": 0, "paths": {"containment": "/tiny0/node0/core0"}}},
		{"id": "3", "metadata": {"type": "core", "rank": 0, "paths": {"containment": "/tiny0/node0/core1"}}}`
	var two, one []string
	for _, e := range [][2]string{{"0", "1"}, {"1", "2"}, {"1", "3"}} {
		down := `{"source": "` + e[0] + `", "target": "` + e[1] + `"` + meta(false) + `}`
		up := `{"source": "` + e[1] + `", "target": "` + e[0] + `"` + meta(true) + `}`
		if reverseFirst {
			two = append(two, up, down)
		} else {
			two = append(two, down, up)
		}
		one = append(one, down)
	}
	return nodesDoc(nodes, strings.Join(two, ", ")), nodesDoc(nodes, strings.Join(one, ", "))
}

func TestTwoWayEdgeListsLoadAsTheTree(t *testing.T) {
	metas := map[string]func(bool) string{
		"relation names": func(up bool) string {
			if up {
				return `, "metadata": {"name": {"containment": "in"}}`
			}
			return `, "metadata": {"name": {"containment": "contains"}}`
		},
		"subsystem": func(bool) string { return `, "metadata": {"subsystem": "containment"}` },
		"bare":      func(bool) string { return "" },
	}
	for name, meta := range metas {
		for _, reverseFirst := range []bool{false, true} {
			two, one := twoWayDoc(meta, reverseFirst)
			want, err := Read([]byte(one))
			if err != nil {
				t.Fatal(err)
			}
			g, err := Read([]byte(two))
			if err != nil {
				t.Fatalf("%s (reverse first %v): strict Read: %v", name, reverseFirst, err)
			}
			if graphString(g) != graphString(want) {
				t.Errorf("%s (reverse first %v): strict Read built\n%s\nwant\n%s", name, reverseFirst, graphString(g), graphString(want))
			}
			// Load (deferred mode) too, as an attach under a new root.
			doc, err := Parse([]byte(two))
			if err != nil {
				t.Fatal(err)
			}
			lg := graph.New()
			if err := Load(lg, doc); err != nil {
				t.Fatalf("%s: strict Load: %v", name, err)
			}
			if graphString(lg) != graphString(want) {
				t.Errorf("%s: strict Load built another graph", name)
			}
			// Fluxion mode loads both directions, as Fluxion does.
			fg, err := fluxionMode.Read([]byte(two))
			if err != nil || fg.NumEdges() != 6 {
				t.Errorf("%s: Fluxion mode: %v, %d edges, want 6", name, err, fg.NumEdges())
			}
		}
	}
}

func TestStrictRejectsUpwardEdgeWithoutItsDownwardEdge(t *testing.T) {
	// node0 -> cluster0 alone would turn the tree over.
	e := strictErr(t, nodesDoc(n0+", "+n1, `{"source": "1", "target": "0"}`))
	if e.Edge != 0 || !strings.Contains(e.Error(), "an upward containment edge node1 -> cluster0 (from a vertex to its parent by path) without the edge cluster0 -> node1") {
		t.Errorf("%v", e)
	}
	// An upward edge in another subsystem is an ordinary edge there: a
	// two-way list in it is a cycle.
	sub := `, "metadata": {"subsystem": "net"}`
	doc := nodesDoc(`{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
		{"id": "1", "metadata": {"type": "switch", "paths": {"containment": "/c0/switch1", "net": "/switch1"}}},
		{"id": "2", "metadata": {"type": "node", "paths": {"containment": "/c0/node2", "net": "/switch1/node2"}}}`,
		`{"source": "0", "target": "1"}, {"source": "0", "target": "2"}, {"source": "1", "target": "2"`+sub+`}, {"source": "2", "target": "1"`+sub+`}`)
	if e := strictErr(t, doc); !strings.Contains(e.Error(), "cycle") {
		t.Errorf("%v", e)
	}
}
