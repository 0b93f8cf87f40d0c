package gofluxion

import (
	"testing"
)

const gpuNodesYAML = `version: 1
resources:
  - type: node
    count: 4
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: gpu
            count: 2
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

const nodeYAML = `version: 1
resources:
  - type: node
    count: 1
    exclusive: true
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: socket
            count: 2
            with:
              - type: gpu
                count: 1
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

func TestExplain(t *testing.T) {
	x, err := New(DemoGraph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := x.ParseJobspec([]byte(gpuNodesYAML))
	node, _ := x.ParseJobspec([]byte(nodeYAML))
	e, err := x.Explain(want, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The demo nodes carry their two gpus in two sockets, so a slot of two
	// gpus never fits one node: a shape problem at the slot (it is tried
	// at the sockets, and Fluxion never books what a node chooses from
	// there), and a capacity problem at the gpu level (one per socket).
	if e.FitsNow || e.Satisfiable {
		t.Fatalf("explain = %+v, want neither fitting now nor satisfiable", e)
	}
	if got, want := e.Reason(), "node[4]/slot[1]: gpu sits under socket here, not directly under node, so a slot in a node is selected but never allocated: ask node→slot→socket→gpu, or take each node whole (mark it exclusive, or put the slot above it: slot→node→socket→gpu); needs 4 node (with 2 gpu each): 0 found now, none even when free; needs 2 gpu: 1 found now, only 1 exist"; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	// Five of the eight nodes taken: a 4-node request of whole nodes is busy.
	for i := 0; i < 5; i++ {
		if _, err := x.Match(Allocate, node, 0); err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
	}
	four, _ := x.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 4, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	e, err = x.Explain(four, 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.FitsNow || !e.Satisfiable {
		t.Fatalf("explain = %+v, want busy but satisfiable", e)
	}
	l := e.Levels[0]
	if l.Type != "node" || l.Needed != 4 || l.FoundNow != 3 || l.FoundFree != 8 || l.Cause() != "busy" {
		t.Errorf("node level = %+v (cause %q), want needed 4, found 3 now and 8 when free, busy", l, l.Cause())
	}
	if got, want := e.Reason(), "needs 4 node (with 2 socket each): 3 found now, 8 when free"; got != want {
		t.Errorf("reason %q, want %q", got, want)
	}
	// Two fit now: nothing to explain.
	two, _ := x.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 2, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	if e, err = x.Explain(two, 0); err != nil || !e.FitsNow || e.Reason() != "" {
		t.Errorf("explain of a fitting request = %+v, %v", e, err)
	}
}

func TestExplainAgreesWithMatch(t *testing.T) {
	for _, pol := range []string{"first", "low", "high", "lonodex"} {
		x, err := New(DemoGraph(), Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		// node→slot→core never emits on node→socket→core graphs (spec §8.5):
		// Explain must not claim it fits.
		quirk, _ := x.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 2}]}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
		e, err := x.Explain(quirk, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, merr := x.Match(Allocate, quirk, 0)
		if e.FitsNow != (merr == nil) {
			t.Errorf("%s: Explain says fits=%v, Match says %v", pol, e.FitsNow, merr)
		}
		// Counts do not depend on the policy's exploration order.
		whole, _ := x.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 20, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
		e, _ = x.Explain(whole, 0)
		free := int64(8)
		if merr == nil { // node-exclusive policies take a whole node for it
			free--
		}
		if l := e.Levels[0]; l.FoundNow != free || l.FoundFree != 8 {
			t.Errorf("%s: node level %+v, want %d found now and 8 when free", pol, l, free)
		}
	}
}
