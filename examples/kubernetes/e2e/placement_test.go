package e2e

import (
	"regexp"
	"testing"
	"time"

	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/client-go/rest"
)

// placementPlugin: with TopologyAwareWorkloadScheduling on, a PodGroup
// that requires one rack (its schedulingConstraints.topology key is our
// rack level's label) lands in one rack, through GoFluxion's
// PlacementGenerate plugin. Racks pr0 (2 nodes, listed first) and pr1 (3
// nodes): the gang of 3 fits only in pr1; spread, it would fit anywhere.
func placementPlugin(t *testing.T, k kube, bin string, saCfg *rest.Config, wait time.Duration) {
	const rack = "topology.gofluxion.io/rack"
	nodes := []string{"pa0", "pa1", "pb0", "pb1", "pb2"}
	defer k.cleanup(nodes, "tas-")
	for _, n := range nodes {
		r := "pr0"
		if n[1] == 'b' {
			r = "pr1"
		}
		k.addNodeL(n, map[string]string{rack: r, "topology.kubernetes.io/zone": "pz"}, 2, 8, 0)
	}
	s := startWorkloadScheduler(t, bin, saCfg)
	k.createPodGroup("tas", 3, func(pg *schedv1beta1.PodGroup) {
		pg.Spec.SchedulingConstraints = &schedv1beta1.PodGroupSchedulingConstraints{Topology: []schedv1beta1.TopologyConstraint{{Key: rack}}}
	})
	pods := k.createMembers("tas", 0, 3, 2, 1, nil)
	pl := k.waitBound(pods, wait)
	t.Logf("PodGroup tas: %v", pl)
	for p, n := range pl {
		if n[1] != 'b' {
			t.Errorf("%s on %s: outside rack pr1", p, n)
		}
	}
	distinctNodes(t, pl)
	if !s.logMatches(regexp.MustCompile(`"placement generated" logger="GoFluxion" podGroup="default/tas" placement="default/podgroup/tas#\d+" nodes=3`)) {
		s.dumpLogs()
		t.Error("the scheduler did not go through GoFluxion's GeneratePlacements")
	}
	t.Logf("event: %s", k.waitObjectEvent("PodGroup", "tas", "Placed", wait))
}
