package gofluxion_test

import (
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
)

// wholeNode asks for one node exclusively: its R in rv1_shorthand lists the
// node alone, standing for everything below it.
const wholeNode = `version: 1
resources: [{type: node, count: 1, exclusive: true}]
attributes: {system: {duration: 3600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

// TestUpdateShorthandOnJGFGraph: an R written in rv1_shorthand (its
// scheduling part lists only the exclusive node, standing for its subtree)
// is applied whole, also on a graph loaded from a JGF whose vertex ids are
// not creation indices. Fluxion fails there (update_tgt_edge), keeping the
// socket booked under a job it never records; resource-query reproduces
// that and reapi/fluxcli fails without booking: a deliberate difference.
func TestUpdateShorthandOnJGFGraph(t *testing.T) {
	src, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// find lists the graph in post-order, as Fluxion's JGF writer does.
	doc, err := src.Find("status=up", "jgf")
	if err != nil {
		t.Fatal(err)
	}
	js, err := src.ParseJobspec([]byte(wholeNode))
	if err != nil {
		t.Fatal(err)
	}
	a, err := src.MatchWithID(gofluxion.Allocate, js, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	R, err := a.Render("rv1_shorthand")
	if err != nil || !strings.Contains(R, `"writer": "fluxion:jgf_shorthand"`) || strings.Contains(R, `"type": "socket"`) {
		t.Fatalf("rv1_shorthand R without a left-out subtree: %s (%v)", R, err)
	}
	g, err := gofluxion.ReadGraph("jgf", []byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	shuffled := false
	for v := range g.NumVertices() {
		shuffled = shuffled || g.V(graph.VertexID(v)).UniqID != int64(v)
	}
	if !shuffled {
		t.Fatal("the JGF-loaded graph's unique ids are its creation indices: Fluxion would expand the R")
	}
	after, err := gofluxion.New(g, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := after.Update(7, []byte(R))
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	want, _ := a.Render("rlite")
	if got, _ := b.Render("rlite"); got != want {
		t.Errorf("Update booked %s, want the node's %s", got, want)
	}
	found, _ := after.Find("jobid-alloc=7", "rlite")
	if found != want {
		t.Errorf("jobid-alloc=7 finds %s, want %s", found, want)
	}
}
