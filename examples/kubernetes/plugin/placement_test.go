package plugin

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	schedv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// fakeGroup is the fwk.PodGroupInfo the workload cycle passes.
type fakeGroup struct {
	pg   *schedv1beta1.PodGroup
	pods []*v1.Pod
}

func (g fakeGroup) GetUnscheduledPods() []*v1.Pod                          { return g.pods }
func (g fakeGroup) GetName() string                                        { return g.pg.Name }
func (g fakeGroup) GetNamespace() string                                   { return g.pg.Namespace }
func (g fakeGroup) GetType() fwk.EntityKeyType                             { return fwk.PodGroupKeyType }
func (g fakeGroup) GetKey() string                                         { return g.pg.Namespace + "/" + g.pg.Name }
func (g fakeGroup) GetPodGroup() *schedv1beta1.PodGroup                    { return g.pg }
func (g fakeGroup) GetCompositePodGroup() *schedv1alpha3.CompositePodGroup { return nil }
func (g fakeGroup) GetChildren() []fwk.PodGroupInfo                        { return nil }

type fakeAssignment struct {
	pod  *v1.Pod
	node string
}

func (a fakeAssignment) GetPod() *v1.Pod               { return a.pod }
func (a fakeAssignment) GetPodInfo() fwk.PodInfo       { return nil }
func (a fakeAssignment) GetNodeName() string           { return a.node }
func (a fakeAssignment) GetCycleState() fwk.CycleState { return nil }

// The placement plugin answers the one placement Fluxion's match chose,
// honouring the PodGroup's topology constraint (mapped to our level), and
// scores placements by agreement with its pins.
func TestPlacementPlugin(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	const rackLabel = "topology.gofluxion.io/rack"
	var nodes []*v1.Node
	for i, rack := range []string{"r0", "r0", "r1", "r1", "r1"} {
		n := node(fmt.Sprintf("n%d", i), 2, 8, 0)
		n.Labels[rackLabel] = rack
		nodes = append(nodes, n)
	}
	h := newHarness(t, fakeCluster(nodes), `{"topology": {"levels": [{"type": "rack", "label": "`+rackLabel+`"}]}}`)
	parent := &fwk.Placement{}
	infos, _ := h.snap.NodeInfos().List()
	parent.Nodes = infos
	rackOf := map[string]string{}
	for _, n := range nodes {
		rackOf[n.Name] = n.Labels[rackLabel]
	}

	pg := gangPodGroup("tas", 3)
	pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: rackLabel}}}
	h.createPodGroup(pg)
	var pods []*v1.Pod
	for i := range 3 {
		pods = append(pods, h.create(nativePod(fmt.Sprintf("tas-%d", i), "tas", 2000))...)
	}
	res, st := h.pl.GeneratePlacements(h.ctx, framework.NewCycleState(), fakeGroup{pg, pods}, parent)
	if !st.IsSuccess() || len(res.Placements) != 1 {
		t.Fatalf("GeneratePlacements: %v %v", res, st)
	}
	got := res.Placements[0]
	var names []string
	for _, ni := range got.Nodes {
		names = append(names, ni.Node().Name)
		if rackOf[ni.Node().Name] != "r1" {
			t.Errorf("placement %q has %s of rack %s: only r1 has 3 free nodes", got.Name, ni.Node().Name, rackOf[ni.Node().Name])
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"n2", "n3", "n4"}) || !strings.HasPrefix(got.Name, "gofluxion default/podgroup/tas#") {
		t.Fatalf("placement %q on %v", got.Name, names)
	}
	// every member is pinned inside the placement
	var match, moved []fwk.ProposedAssignment
	for i, pod := range pods {
		node, _, ok := h.pl.c.Assignment(pod.UID)
		if !ok || !slices.Contains(names, node) {
			t.Fatalf("%s pinned to %q", pod.Name, node)
		}
		match = append(match, fakeAssignment{pod, node})
		other := node
		if i == 0 {
			other = "n0"
		}
		moved = append(moved, fakeAssignment{pod, other})
	}
	if s, _ := h.pl.ScorePlacement(h.ctx, nil, nil, &fwk.PodGroupAssignments{Placement: got, ProposedAssignments: match}); s != 100 {
		t.Errorf("score of Fluxion's own placement: %d", s)
	}
	if s, _ := h.pl.ScorePlacement(h.ctx, nil, nil, &fwk.PodGroupAssignments{Placement: got, ProposedAssignments: moved}); s != 66 {
		t.Errorf("score with one pod moved: %d", s)
	}

	// a second rack-required group of 3 cannot fit (r0 has 2 nodes): no
	// placement, and the reason
	pg2 := gangPodGroup("tas2", 3)
	pg2.Spec.SchedulingConstraints = pg.Spec.SchedulingConstraints
	h.createPodGroup(pg2)
	var pods2 []*v1.Pod
	for i := range 3 {
		pods2 = append(pods2, h.create(nativePod(fmt.Sprintf("tas2-%d", i), "tas2", 1000))...)
	}
	res, st = h.pl.GeneratePlacements(h.ctx, framework.NewCycleState(), fakeGroup{pg2, pods2}, parent)
	if st.IsSuccess() || res != nil || !strings.Contains(st.Message(), "gang default/podgroup/tas2 (3 pods)") {
		t.Fatalf("an unplaceable group: %v %v", res, st)
	}
}

// A PodGroup's topology key and priority reach the gang's request through
// copies of its pods; the informer's pods stay as they were.
func TestWithPodGroupTopology(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.GenericWorkload, true)
	h := newHarness(t, fakeCluster([]*v1.Node{node("n0", 2, 8, 0)}), `{"topology": {"levels": [{"type": "rack", "label": "example.com/rack"}]}}`)
	pg := gangPodGroup("x", 2)
	prio := int32(7)
	pg.Spec.Priority = &prio
	pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: "example.com/rack"}}}
	h.createPodGroup(pg)
	own := nativePod("x-1", "x", 100)
	own.Annotations = map[string]string{KeyPreferred: "rack"}
	in := h.create(nativePod("x-0", "x", 100), own)
	out := h.pl.withPodGroupTopology(in)
	if out[0].Annotations[KeyRequired] != "rack" || *out[0].Spec.Priority != 7 {
		t.Fatalf("x-0: %v priority %v", out[0].Annotations, out[0].Spec.Priority)
	}
	if _, ok := out[1].Annotations[KeyRequired]; ok || out[1].Annotations[KeyPreferred] != "rack" || *out[1].Spec.Priority != 7 {
		t.Fatalf("x-1 (asks for its own level): %v", out[1].Annotations)
	}
	if in[0].Annotations[KeyRequired] != "" || in[0].Spec.Priority != nil {
		t.Fatal("the informer's pod was changed")
	}
	if prio, _ := gangRank(out); prio != 7 {
		t.Fatalf("reservation rank priority %d", prio)
	}
}
