package gofluxion

import (
	"errors"
	"testing"
)

// TestNodeCountFollowsGraphChanges: unlike Fluxion's CLI, the Matcher
// counts attached nodes as up (so they can be used at once) and forgets
// removed ones.
func TestNodeCountFollowsGraphChanges(t *testing.T) {
	x, err := New(DemoGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	nine, _ := x.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 9, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 1}]}]}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	if _, err := x.Match(Allocate, nine, 0); !errors.Is(err, ErrUnsatisfiable) {
		t.Fatalf("9 nodes on an 8-node graph: %v, want ErrUnsatisfiable", err)
	}
	node8 := `{"graph": {"nodes": [
 {"id": "0", "metadata": {"type": "cluster", "basename": "demo", "id": 0, "paths": {"containment": "/demo0"}}},
 {"id": "1", "metadata": {"type": "rack", "id": 0, "paths": {"containment": "/demo0/rack0"}}},
 {"id": "900", "metadata": {"type": "node", "id": 8, "rank": 8, "paths": {"containment": "/demo0/rack0/node8"}}},
 {"id": "901", "metadata": {"type": "socket", "id": 0, "paths": {"containment": "/demo0/rack0/node8/socket0"}}},
 {"id": "902", "metadata": {"type": "core", "id": 0, "paths": {"containment": "/demo0/rack0/node8/socket0/core0"}}}],
 "edges": [{"source": "1", "target": "900"}, {"source": "900", "target": "901"}, {"source": "901", "target": "902"}]}}`
	before := x.Stat().Vertices
	if err := x.Attach([]byte(node8)); err != nil {
		t.Fatal(err)
	}
	if got := x.Stat().Vertices; got != before+3 {
		t.Errorf("after attach: %d vertices, want %d", got, before+3)
	}
	a, err := x.Match(Allocate, nine, 0)
	if err != nil {
		t.Fatalf("9 nodes after attaching node8: %v", err)
	}
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove("/demo0/rack0/node8"); err != nil {
		t.Fatal(err)
	}
	if got := x.Stat().Vertices; got != before {
		t.Errorf("after remove: %d vertices, want %d", got, before)
	}
	if _, err := x.Match(Allocate, nine, 0); !errors.Is(err, ErrUnsatisfiable) {
		t.Errorf("9 nodes after removing node8: %v, want ErrUnsatisfiable", err)
	}
	if err := x.Remove("/demo0/nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove of a missing path: %v, want ErrNotFound", err)
	}
}
