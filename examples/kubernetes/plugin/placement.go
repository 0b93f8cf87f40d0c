// Fluxion as the placement plugin of the workload scheduling cycle
// (feature gate TopologyAwareWorkloadScheduling, k8s.io/kube-scheduler/
// framework v0.37.2: PlacementGeneratePlugin and PlacementScorePlugin).
//
// With the gate on, the scheduler schedules a PodGroup in one cycle: a
// PlacementGenerate plugin proposes candidate node sets (Placements), the
// scheduler tries the group's pods in each (PreFilter, Filter, Score per
// pod, then the PlacementFeasible quorum), and PlacementScore plugins rank
// the feasible ones. The framework asks only the FIRST PlacementGenerate
// plugin of a profile, so a GoFluxion profile disables the in-tree
// TopologyPlacementGenerator there (see README).
//
// GeneratePlacements runs the gang's Fluxion match, the same code as the
// PreFilter path (it calls PreFilter for the group's first pod, which
// matches the whole group as one jobspec and pins every member), and
// answers one Placement: the nodes the match chose. Every topology the
// match knows thus reaches the workload cycle: several levels, required or
// preferred with fallback a level up, NUMA-single pods, reservations. The
// PodGroup's own spec.schedulingConstraints.topology key is honoured too:
// a level whose node label is that key becomes the gang's required level.
// ScorePlacement gives 100 to a placement whose proposed assignments are
// Fluxion's pins, less for each pod elsewhere, so Fluxion's choice wins
// over any placement another plugin adds.

package plugin

import (
	"context"
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

var (
	_ fwk.PlacementGeneratePlugin = &Plugin{}
	_ fwk.PlacementScorePlugin    = &Plugin{}
)

// GeneratePlacements matches the pod group with Fluxion within the parent
// placement's nodes and answers the one placement it chose.
func (p *Plugin) GeneratePlacements(ctx context.Context, _ fwk.PodGroupCycleState, pg fwk.PodGroupInfo, parent *fwk.Placement) (*fwk.GeneratePlacementsResult, *fwk.Status) {
	pods := pg.GetUnscheduledPods()
	if len(pods) == 0 || parent == nil {
		return &fwk.GeneratePlacementsResult{Placements: []*fwk.Placement{parent}}, nil
	}
	if _, st := p.PreFilter(ctx, framework.NewCycleState(), pods[0], parent.Nodes); !st.IsSuccess() {
		return nil, st
	}
	want := map[string]bool{}
	gangID := ""
	for _, pod := range pods {
		if node, g, ok := p.c.Assignment(pod.UID); ok {
			want[node] = true
			if gangID == "" {
				gangID = g
			}
		}
	}
	var nodes []fwk.NodeInfo
	for _, ni := range parent.Nodes {
		if want[ni.Node().Name] {
			nodes = append(nodes, ni)
		}
	}
	if len(nodes) < len(want) {
		// the match used a node outside the parent placement: cannot be
		return nil, fwk.AsStatus(fmt.Errorf("gofluxion: gang %s placed on nodes %v outside the parent placement", gangID, slices.Sorted(maps.Keys(want))))
	}
	p.log.V(2).Info("placement generated", "podGroup", pg.GetNamespace()+"/"+pg.GetName(), "placement", gangID, "nodes", len(nodes))
	return &fwk.GeneratePlacementsResult{Placements: []*fwk.Placement{{Name: "gofluxion " + gangID, Nodes: nodes}}}, nil
}

// ScorePlacement scores a placement by how many proposed assignments are
// Fluxion's pins: 100 when all are.
func (p *Plugin) ScorePlacement(_ context.Context, _ fwk.PlacementCycleState, _ fwk.PodGroupInfo, a *fwk.PodGroupAssignments) (int64, *fwk.Status) {
	if a == nil || len(a.ProposedAssignments) == 0 {
		return 0, nil
	}
	same := 0
	for _, pa := range a.ProposedAssignments {
		if node, _, ok := p.c.Assignment(pa.GetPod().UID); ok && node == pa.GetNodeName() {
			same++
		}
	}
	return int64(100 * same / len(a.ProposedAssignments)), nil
}

// PlacementScoreExtensions returns nil: scores are already 0..100.
func (p *Plugin) PlacementScoreExtensions() fwk.PlacementScoreExtensions { return nil }

// withPodGroupTopology gives a native gang what its PodGroup says beyond
// minCount: the topology it requires (spec.schedulingConstraints.
// topology[0].key: the level whose node label is that key, or whose type
// is it, becomes the gang's required level, unless its pods already ask
// for a level) and its priority (spec.priority, which then ranks the
// gang's reservation instead of its pods' own). The pods are shallow
// copies; the informer's stay intact.
func (p *Plugin) withPodGroupTopology(pods []*v1.Pod) []*v1.Pod {
	if len(pods) == 0 {
		return pods
	}
	name, ok := p.native(pods[0])
	if !ok {
		return pods
	}
	pg, err := p.podGroups.PodGroups(pods[0].Namespace).Get(name)
	if err != nil {
		return pods
	}
	level := ""
	if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		level = c.Topology[0].Key
		if p.args.Topology != nil {
			for _, l := range p.args.Topology.Levels {
				if l.Label == c.Topology[0].Key {
					level = l.Type
				}
			}
		}
	}
	prio, hasPrio := podGroupPriority(pg)
	if level == "" && !hasPrio {
		return pods
	}
	out := make([]*v1.Pod, len(pods))
	for i, pod := range pods {
		cp := *pod
		if hasPrio {
			cp.Spec.Priority = &prio
		}
		_, req := podValue(pod, KeyRequired)
		_, pref := podValue(pod, KeyPreferred)
		if level != "" && !req && !pref {
			cp.Annotations = maps.Clone(pod.Annotations)
			if cp.Annotations == nil {
				cp.Annotations = map[string]string{}
			}
			cp.Annotations[KeyRequired] = level
		}
		out[i] = &cp
	}
	return out
}
