// Native gangs: pods that name a PodGroup in spec.schedulingGroup (the
// scheduling.k8s.io/v1beta1 Workload API, feature gate GenericWorkload).
//
// With the gate on in the scheduler, a pod whose spec.schedulingGroup
// names a PodGroup belongs to that group: its members are the pods of the
// namespace that name the same PodGroup, its size is the PodGroup's
// spec.schedulingPolicy.gang.minCount (1 for a basic policy), and the gang
// is matched by Fluxion as one jobspec like a gang of our own labels. The
// PodGroup carries what we need (controllers copy the policy and priority
// from their Workload's template), so the plugin reads PodGroups only.
//
// Division of labour with the in-tree GangScheduling plugin, which the
// gate adds to every profile, ours included: GangScheduling holds pods in
// PreEnqueue until minCount exist and owns the wait at Permit (its quorum
// over the group's assumed pods); GoFluxion places the whole group in
// PreFilter, pins each member, and in Permit only records that the member
// arrived: it never waits on a native gang, so the two plugins never wait
// on each other. The scheduler's pod-group cycle writes the PodGroup's
// PodGroupInitiallyScheduled condition; we add events on the PodGroup.
// Without the gate the field is ignored and the labels rule.

package plugin

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
)

// podGroupIndex names the pod informer's index of pods by PodGroup
// ("namespace/name" of the group they name).
const podGroupIndex = Name + "/podgroup"

// nativeGangsEnabled says whether the scheduler runs with the
// GenericWorkload gate on (its --feature-gates flag).
func nativeGangsEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload)
}

// podGroupOf returns the name of the PodGroup a pod names, if any.
func podGroupOf(pod *v1.Pod) (string, bool) {
	if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil && *g.PodGroupName != "" {
		return *g.PodGroupName, true
	}
	return "", false
}

// nativeKey is the gang key of a PodGroup: a '/' cannot appear in a label
// value, so it never collides with a gang of our labels ("ns/group").
func nativeKey(ns, name string) string { return ns + "/podgroup/" + name }

// watchPodGroups follows PodGroups and indexes pods by the group they name.
func (p *Plugin) watchPodGroups(inf informers.SharedInformerFactory, podInf cache.SharedIndexInformer) error {
	pgInf := inf.Scheduling().V1beta1().PodGroups()
	p.podGroups = pgInf.Lister()
	p.synced = append(p.synced, pgInf.Informer().HasSynced)
	if _, ok := podInf.GetIndexer().GetIndexers()[podGroupIndex]; !ok {
		err := podInf.AddIndexers(cache.Indexers{podGroupIndex: func(o any) ([]string, error) {
			if pod, ok := o.(*v1.Pod); ok {
				if g, ok := podGroupOf(pod); ok {
					return []string{pod.Namespace + "/" + g}, nil
				}
			}
			return nil, nil
		}})
		if err != nil {
			if _, ok := podInf.GetIndexer().GetIndexers()[podGroupIndex]; !ok {
				return fmt.Errorf("%s: an index of pods by PodGroup: %w", Name, err)
			}
		}
	}
	p.byPodGroup = podInf.GetIndexer()
	return nil
}

// native reports whether pod belongs to a native gang this scheduler
// handles (gate on, PodGroups followed, spec.schedulingGroup set).
func (p *Plugin) native(pod *v1.Pod) (string, bool) {
	if p.podGroups == nil {
		return "", false
	}
	return podGroupOf(pod)
}

// nativeGroup is group() for a native gang: its key, the pods naming the
// same PodGroup and minCount; pg is nil while the PodGroup does not exist.
func (p *Plugin) nativeGroup(pod *v1.Pod, name string) (key string, members []*v1.Pod, minMember int, pg *schedv1beta1.PodGroup) {
	key = nativeKey(pod.Namespace, name)
	if objs, err := p.byPodGroup.ByIndex(podGroupIndex, pod.Namespace+"/"+name); err == nil {
		members = make([]*v1.Pod, 0, len(objs))
		for _, o := range objs {
			if m, ok := o.(*v1.Pod); ok {
				members = append(members, m)
			}
		}
	}
	minMember = 1
	pg, err := p.podGroups.PodGroups(pod.Namespace).Get(name)
	if err != nil {
		return key, members, minMember, nil
	}
	return key, members, podGroupMinCount(pg), pg
}

// podGroupMinCount is a PodGroup's gang size: minCount for a gang policy,
// 1 for a basic one (its pods are placed together when they fit, alone
// otherwise).
func podGroupMinCount(pg *schedv1beta1.PodGroup) int {
	if g := pg.Spec.SchedulingPolicy.Gang; g != nil && g.MinCount > 0 {
		return int(g.MinCount)
	}
	return 1
}

// podGroupPriority is a PodGroup's priority, if set.
func podGroupPriority(pg *schedv1beta1.PodGroup) (int32, bool) {
	if pg != nil && pg.Spec.Priority != nil {
		return *pg.Spec.Priority, true
	}
	return 0, false
}

// waitForPodGroup is PreFilter's answer for a pod whose PodGroup does not
// exist yet (the in-tree PreEnqueue normally holds such pods), or nil.
func (p *Plugin) waitForPodGroup(pod *v1.Pod) *fwk.Status {
	name, ok := p.native(pod)
	if !ok {
		return nil
	}
	if _, err := p.podGroups.PodGroups(pod.Namespace).Get(name); err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("gofluxion: waiting for PodGroup %s/%s", pod.Namespace, name))
	}
	return nil
}

// nativePermit says whether Permit leaves the wait of pod's gang to the
// in-tree GangScheduling plugin (a native gang).
func (p *Plugin) nativePermit(pod *v1.Pod) bool {
	_, ok := p.native(pod)
	return ok
}

// podGroupEvent records the outcome of a native gang's match on its
// PodGroup, where `kubectl describe podgroup` shows it (msg starts with
// "gofluxion: ").
func (p *Plugin) podGroupEvent(pod *v1.Pod, typ, reason, msg string) {
	name, ok := p.native(pod)
	if !ok {
		return
	}
	pg, err := p.podGroups.PodGroups(pod.Namespace).Get(name)
	if err != nil {
		return
	}
	if rec := p.h.EventRecorder(); rec != nil {
		rec.Eventf(pg, pod, typ, reason, "Scheduling", "%s", msg)
	}
}

// sameNativeGroup is the queueing hint's test for native gangs: the new
// pod names the same PodGroup as the waiting one.
func sameNativeGroup(pod, n *v1.Pod) bool {
	a, ok1 := podGroupOf(pod)
	b, ok2 := podGroupOf(n)
	return ok1 && ok2 && a == b && pod.Namespace == n.Namespace
}

// podGroupHint queues a pod when its PodGroup appears or changes.
func (p *Plugin) podGroupHint(_ klog.Logger, pod *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	pg, ok := newObj.(*schedv1beta1.PodGroup)
	if !ok {
		return fwk.Queue, nil
	}
	if name, ok := podGroupOf(pod); ok && name == pg.Name && pod.Namespace == pg.Namespace {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}

func placedMessage(pl *Placement, n int) string {
	if pl.Scope != "" {
		return fmt.Sprintf("gofluxion: gang %s: %d pods placed in %s", pl.GangID, n, pl.Scope)
	}
	return fmt.Sprintf("gofluxion: gang %s: %d pods placed", pl.GangID, n)
}

// keepInPodGroupCycle says whether Unreserve must keep a pod's booking:
// the workload cycle (gate GenericWorkload) reserves a group's pods to
// simulate a placement, unreserves them all, then reserves and permits
// the chosen ones again with the pod-group flag cleared. Canceling on
// that first Unreserve would drop the gang's match before Permit, and
// the group would loop. A failure in the binding cycle still cancels.
func keepInPodGroupCycle(state fwk.CycleState) bool {
	return state != nil && state.IsPodGroupSchedulingCycle()
}
