package plugin

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// TestHintsApplyTheEvent: the queueing hints of node and assigned-pod
// events update the Cluster before they answer Queue, so the pod they
// re-queue is tried against the new state even when the plugin's own
// informer handler has not run yet.
func TestHintsApplyTheEvent(t *testing.T) {
	c := newCluster(t, noReservations)
	p := &Plugin{c: c, args: c.args, timers: nil}
	addNodes(c, node("n0", 1, 1, 0))
	first := []*v1.Pod{pod("first", "", 0, 1000, 0, 0)}
	pl, err := c.Place("default/first", first, nil)
	if err != nil {
		t.Fatal(err)
	}
	bound := bindAll(t, c, pl, first)
	waiting := pod("waiting", "", 0, 1000, 0, 0)
	if _, err := c.Place("default/waiting", []*v1.Pod{waiting}, nil); err == nil {
		t.Fatal("a second pod fit on a full node")
	}
	evs, err := p.EventsToRegister(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	hint := func(r fwk.EventResource) fwk.QueueingHintFn {
		for _, e := range evs {
			if e.Event.Resource == r {
				if e.QueueingHintFn == nil {
					t.Fatalf("no hint for %s events", r)
				}
				return e.QueueingHintFn
			}
		}
		t.Fatalf("no %s event", r)
		return nil
	}
	// the bound pod is deleted: the hint alone frees its core
	q, err := hint(fwk.AssignedPod)(klog.Background(), waiting, bound[0], nil)
	if err != nil || q != fwk.Queue {
		t.Fatalf("pod hint: %v %v", q, err)
	}
	if f, _ := c.Free("n0"); f.Core != 1 {
		t.Fatalf("after the pod hint: free %v", f)
	}
	// a node comes: the hint alone attaches it
	q, err = hint(fwk.Node)(klog.Background(), waiting, nil, node("n1", 2, 1, 0))
	if err != nil || q != fwk.Queue {
		t.Fatalf("node hint: %v %v", q, err)
	}
	if st := c.Stats(); st.Nodes != 2 || st.Up != 2 {
		t.Fatalf("after the node hint: %+v", st)
	}
	// the informer's handler running second changes nothing
	p.onNode(node("n1", 2, 1, 0))
	if st := c.Stats(); st.Nodes != 2 || st.Vertices == 0 {
		t.Fatalf("after the handler: %+v", st)
	}
}
