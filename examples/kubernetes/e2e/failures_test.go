package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

// notReady marks a node NotReady (as the node lifecycle controller would
// see a dead kubelet).
func (k kube) notReady(name string) {
	k.t.Helper()
	n, err := k.cs.CoreV1().Nodes().Get(k.ctx(), name, metav1.GetOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == v1.NodeReady {
			n.Status.Conditions[i].Status = v1.ConditionFalse
		}
	}
	if _, err := k.cs.CoreV1().Nodes().UpdateStatus(k.ctx(), n, metav1.UpdateOptions{}); err != nil {
		k.t.Fatal(err)
	}
}

// ReplacementSameRack: a rack-required gang of 3 lands in rack q1 (the
// only rack with 3 nodes); one of its nodes dies and its pod is deleted;
// the replacement pod lands on q1's spare node, although rack q2's node
// is the tightest fit for one pod on its own.
func replacementSameRack(t *testing.T, k kube, wait time.Duration) {
	q1 := []string{"rs-1a", "rs-1b", "rs-1c", "rs-1d"}
	nodes := append(slices.Clone(q1), "rs-2a")
	t.Cleanup(func() { k.cleanup(nodes, "rs-") })
	for _, n := range q1[:3] {
		k.addNodeL(n, rackLabels("y1", "q1"), 4, 8, 0)
	}
	k.addNodeL("rs-2a", rackLabels("y2", "q2"), 2, 8, 0)
	// rs-1d joins only once the gang is placed, so the gang takes 1a-1c
	// (a node cordoned right after it is created could still be seen
	// schedulable by the scheduler).
	g := k.createGangWith("rs-g", 3, 2, 1, 0, labelled(plugin.KeyRequired, "rack"))
	pl := k.waitBound(g, wait)
	if got := distinctNodes(t, pl); !slices.Equal(got, []string{"rs-1a", "rs-1b", "rs-1c"}) {
		t.Fatalf("gang on %v", got)
	}
	k.addNodeL("rs-1d", rackLabels("y1", "q1"), 4, 8, 0)
	dead := pl[g[0]]
	k.notReady(dead)
	k.deletePods(g[:1])
	// the replacement: same gang, same request
	name := g[0] + "-r"
	p := podSpec(name, "rs-g", 3, 2, 1, 0)
	labelled(plugin.KeyRequired, "rack")(p)
	if _, err := k.cs.CoreV1().Pods("default").Create(k.ctx(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pr := k.waitBound([]string{name}, wait)
	t.Logf("node %s died; replacement on %s", dead, pr[name])
	if pr[name] != "rs-1d" {
		t.Fatalf("replacement on %s, not on q1's spare node rs-1d", pr[name])
	}
	// with q1 full (rs-1d cordoned again), a second replacement waits in
	// q1, named in its event, and never goes to q2
	k.deletePods([]string{name})
	k.cordon("rs-1d", true)
	// Let the scheduler's informers see the cordon before the pod comes
	// (there is no event to wait for: the scheduler's cache is private).
	time.Sleep(2 * time.Second)
	name2 := g[0] + "-r2"
	p = podSpec(name2, "rs-g", 3, 2, 1, 0)
	labelled(plugin.KeyRequired, "rack")(p)
	if _, err := k.cs.CoreV1().Pods("default").Create(k.ctx(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	msg := k.waitEvent([]string{name2}, "the gang's bound members are in rack q1", wait)
	t.Logf("second replacement: %s", msg)
	k.requireNoneBound([]string{name2}, 2*time.Second)
	k.cordon("rs-1d", false)
	if pr := k.waitBound([]string{name2}, wait); pr[name2] != "rs-1d" {
		t.Fatalf("second replacement on %s", pr[name2])
	}
}

// FilterRejectedRetry: the test Filter plugin E2ERejectNodes rejects three
// of five nodes; a gang of two whose match picks a rejected node is
// canceled, the node left out of its next match, and it binds on the two
// nodes the filter accepts, after at most one rejection per rejected node.
func filterRejectedRetry(t *testing.T, k kube, wait time.Duration) {
	var nodes []string
	for i := range 5 {
		nodes = append(nodes, fmt.Sprintf("fr-%d", i))
	}
	t.Cleanup(func() { k.cleanup(nodes, "fr-") })
	rejected := map[string]bool{}
	for i, n := range nodes {
		l := map[string]string{}
		if i < 3 {
			l["e2e.gofluxion.io/reject"] = "true"
			rejected[n] = true
		}
		k.addNodeL(n, l, 4, 8, 0)
	}
	g := k.createGang("fr-g", 2, 1, 1, 0)
	pl := k.waitBound(g, wait)
	for _, n := range pl {
		if rejected[n] {
			t.Fatalf("bound on a rejected node: %v", pl)
		}
	}
	var rejections []string
	for _, pod := range g {
		evs, err := k.cs.CoreV1().Events("default").List(k.ctx(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Reason == "NodeRejected" {
				rejections = append(rejections, e.Message)
				if !strings.Contains(e.Message, "E2ERejectNodes rejected node fr-") {
					t.Errorf("event does not name the plugin and node: %s", e.Message)
				}
			}
		}
	}
	t.Logf("gang bound on %v after %d rejections: %q", pl, len(rejections), rejections)
	if len(rejections) == 0 {
		t.Fatal("no NodeRejected event: the first match avoided the rejected nodes, the test tests nothing")
	}
	if len(rejections) > 3 {
		t.Errorf("%d rejections for 3 rejected nodes: a rejected node was tried again", len(rejections))
	}
}
