package plugin

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// nativePod is a pod of no label gang that names PodGroup group.
func nativePod(name, group string, milli int64) *v1.Pod {
	p := pod(name, "", 0, milli, 256, 0)
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	return p
}

func gangPodGroup(name string, minCount int32) *schedv1beta1.PodGroup {
	return &schedv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: schedv1beta1.PodGroupSpec{SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: minCount}}},
	}
}

func (h *harness) createPodGroup(pg *schedv1beta1.PodGroup) {
	if _, err := h.cs.SchedulingV1beta1().PodGroups(pg.Namespace).Create(h.ctx, pg, metav1.CreateOptions{}); err != nil {
		h.t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := h.pl.podGroups.PodGroups(pg.Namespace).Get(pg.Name); err == nil {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("PodGroup %s never reached the informer", pg.Name)
		}
		time.Sleep(time.Millisecond)
	}
}

// With GenericWorkload on, spec.schedulingGroup makes the gang: size from
// the PodGroup's minCount, all placed by the first member's match, and
// Permit leaves the wait to the in-tree GangScheduling plugin.
func TestNativeGang(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	var nodes []*v1.Node
	for i := range 4 {
		nodes = append(nodes, node(fmt.Sprintf("n%d", i), 2, 8, 0))
	}
	cs := fakeCluster(nodes)
	h := newHarness(t, cs, `{"permitTimeoutSeconds": 5}`)
	if h.pl.podGroups == nil {
		t.Fatal("the gate is on but the plugin does not follow PodGroups")
	}

	// no PodGroup yet: the member waits for it
	var g []*v1.Pod
	for i := range 3 {
		g = append(g, h.create(nativePod(fmt.Sprintf("w-%d", i), "w", 2000))...)
	}
	a := h.schedule(g[0], false)
	if a.status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(a.status.Message(), "waiting for PodGroup default/w") {
		t.Fatalf("without its PodGroup: %v", a.status)
	}
	// the PodGroup says 4: three members wait for the fourth
	h.createPodGroup(gangPodGroup("w", 4))
	a = h.schedule(g[0], false)
	if a.status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(a.status.Message(), "gang default/podgroup/w: 3 of 4 pods present, waiting for 1 more") {
		t.Fatalf("3 of 4: %v", a.status)
	}
	// a label gang of the same name is another gang
	if key, _, _ := h.pl.group(pod("l", "w", 1, 100, 1, 0)); key != "default/w" {
		t.Fatalf("label gang key %q", key)
	}
	g = append(g, h.create(nativePod("w-3", "w", 2000))...)
	used := map[string]bool{}
	var atts []attempt
	for _, p := range g {
		a := h.schedule(p, true)
		if !a.status.IsSuccess() {
			t.Fatalf("%s: %v (Permit must not wait on a native gang)", p.Name, a.status)
		}
		if used[a.node] {
			t.Fatalf("two members on %s", a.node)
		}
		used[a.node] = true
		atts = append(atts, a)
	}
	for i, a := range atts {
		if st := <-a.bound; !st.IsSuccess() {
			t.Fatalf("member %d binding: %v", i, st)
		}
	}
	// the match was one gang: the second member was pinned by the first's
	if n := len(h.pl.c.gangs); n != 0 {
		t.Fatalf("%d gangs left after all members bound", n)
	}

	// a PodGroup the cluster can never hold: all members unresolvable
	h.createPodGroup(gangPodGroup("big", 5))
	var big []*v1.Pod
	for i := range 5 {
		big = append(big, h.create(nativePod(fmt.Sprintf("big-%d", i), "big", 100))...)
	}
	a = h.schedule(big[0], false)
	if a.status.IsSuccess() || !strings.Contains(a.status.Message(), "gang default/podgroup/big (5 pods)") {
		t.Fatalf("a gang of 5 on 4 busy nodes: %v", a.status)
	}
}

// A basic PodGroup has size 1: members are placed together when they fit.
func TestNativeBasicAndGateOff(t *testing.T) {
	pg := gangPodGroup("b", 0)
	pg.Spec.SchedulingPolicy = schedv1beta1.PodGroupSchedulingPolicy{Basic: &schedv1beta1.BasicSchedulingPolicy{}}
	if n := podGroupMinCount(pg); n != 1 {
		t.Fatalf("basic minCount %d", n)
	}
	if n := podGroupMinCount(gangPodGroup("g", 7)); n != 7 {
		t.Fatalf("gang minCount %d", n)
	}
	prio := int32(9)
	pg.Spec.Priority = &prio
	if p, ok := podGroupPriority(pg); !ok || p != 9 {
		t.Fatalf("priority %d %v", p, ok)
	}

	// gate off: the field is ignored, the pod is a gang of one that waits
	// for nobody, and Permit holds nothing
	h := newHarness(t, fakeCluster([]*v1.Node{node("n0", 2, 8, 0)}), "")
	if h.pl.podGroups != nil {
		t.Fatal("the gate is off but the plugin follows PodGroups")
	}
	p := h.create(nativePod("solo", "nope", 1000))[0]
	if key, members, min := h.pl.group(p); key != "default/solo" || len(members) != 1 || min != 1 {
		t.Fatalf("gate off: %s %d %d", key, len(members), min)
	}
	if a := h.schedule(p, true); !a.status.IsSuccess() {
		t.Fatalf("gate off: %v", a.status)
	} else if st := <-a.bound; !st.IsSuccess() {
		t.Fatal(st)
	}
}

func TestNativeQueueingHints(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	h := newHarness(t, fakeCluster([]*v1.Node{node("n0", 2, 8, 0)}), "")
	a, b, c := nativePod("a", "x", 1), nativePod("b", "x", 1), nativePod("c", "y", 1)
	for _, tc := range []struct {
		waiting, added *v1.Pod
		want           fwk.QueueingHint
	}{{a, b, fwk.Queue}, {a, c, fwk.QueueSkip}, {a, pod("d", "x", 1, 1, 1, 0), fwk.QueueSkip}} {
		if got, _ := h.pl.sameGroup(h.pl.log, tc.waiting, nil, tc.added); got != tc.want {
			t.Errorf("%s after %s: %v, want %v", tc.waiting.Name, tc.added.Name, got, tc.want)
		}
	}
	if got, _ := h.pl.podGroupHint(h.pl.log, a, nil, gangPodGroup("x", 2)); got != fwk.Queue {
		t.Errorf("own PodGroup added: %v", got)
	}
	if got, _ := h.pl.podGroupHint(h.pl.log, a, nil, gangPodGroup("y", 2)); got != fwk.QueueSkip {
		t.Errorf("another PodGroup added: %v", got)
	}
	ev, _ := h.pl.EventsToRegister(h.ctx)
	found := false
	for _, e := range ev {
		found = found || e.Event.Resource == fwk.PodGroup
	}
	if !found {
		t.Error("no PodGroup event registered with the gate on")
	}
}

// The workload cycle reserves, unreserves (its simulation's revert, the
// pod-group flag set) and reserves again before Permit: that Unreserve
// keeps the gang's match; one in the binding cycle (flag cleared) cancels.
func TestNativeUnreserveInPodGroupCycle(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	h := newHarness(t, fakeCluster([]*v1.Node{node("n0", 2, 8, 0), node("n1", 2, 8, 0)}), "")
	h.createPodGroup(gangPodGroup("u", 2))
	pods := h.create(nativePod("u-0", "u", 2000), nativePod("u-1", "u", 2000))
	if _, st, _ := h.fw.RunPreFilterPlugins(h.ctx, framework.NewCycleState(), pods[0]); !st.IsSuccess() {
		t.Fatal(st)
	}
	node0, _, ok := h.pl.c.Assignment(pods[0].UID)
	if !ok {
		t.Fatal("not placed")
	}
	sim := framework.NewCycleState()
	sim.SetPodGroupSchedulingCycle(framework.NewCycleState())
	h.fw.RunReservePluginsUnreserve(h.ctx, sim, pods[0], node0)
	for _, p := range pods {
		if _, _, ok := h.pl.c.Assignment(p.UID); !ok {
			t.Fatalf("%s lost its placement in the workload cycle's revert", p.Name)
		}
	}
	h.fw.RunReservePluginsUnreserve(h.ctx, framework.NewCycleState(), pods[0], node0)
	for _, p := range pods {
		if _, _, ok := h.pl.c.Assignment(p.UID); ok {
			t.Fatalf("%s kept its placement after a real Unreserve", p.Name)
		}
	}
}
