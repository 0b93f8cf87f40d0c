// Package plugin is GoFluxion, a kube-scheduler plugin that places pods
// with gofluxion, the pure-Go Fluxion graph matcher: a gang of pods is one
// jobspec, matched once against a resource graph of the cluster's nodes.
//
// Extension points: PreEnqueue (hold the pods of an incomplete gang),
// PreFilter (the gang's match; the pod is pinned to its
// node with a PreFilterResult), Filter (the pin), PostFilter and Unreserve
// (cancel the gang, reject waiting siblings), Permit (wait for the whole
// gang), PreBind (write the pod's job id and R), PostBind, and
// EnqueueExtensions (retry on node and pod changes).
package plugin

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	corelisters "k8s.io/client-go/listers/core/v1"
	schedlisters "k8s.io/client-go/listers/scheduling/v1beta1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/featuregate"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "GoFluxion"

// Plugin is the GoFluxion scheduler plugin.
type Plugin struct {
	h        fwk.Handle
	args     *Args
	c        *Cluster
	pods     corelisters.PodLister
	groups   cache.Indexer // pods by gang (groupIndex), or nil: pods is searched
	synced   []cache.InformerSynced
	log      klog.Logger
	timeout  time.Duration
	nrtRetry time.Duration

	mu     sync.Mutex
	timers map[string]*time.Timer // gang key → activation at its reservation

	// native gangs (workload.go): set only with the GenericWorkload gate on
	podGroups  schedlisters.PodGroupLister
	byPodGroup cache.Indexer
}

// Option configures the plugin made by Factory.
type Option func(*options)

type options struct {
	dynamic  dynamic.Interface
	matcher  func(*Args) (Matcher, error)
	nrtRetry time.Duration
}

// WithDynamicClient gives the client NodeResourceTopology objects are read
// with (default: one made from the scheduler's kubeconfig).
func WithDynamicClient(dc dynamic.Interface) Option { return func(o *options) { o.dynamic = dc } }

// WithMatcher replaces the in-process gofluxion Matcher.
func WithMatcher(f func(*Args) (Matcher, error)) Option { return func(o *options) { o.matcher = f } }

// WithNRTRetry sets how often a missing NodeResourceTopology CRD is
// looked for again (default one minute).
func WithNRTRetry(d time.Duration) Option { return func(o *options) { o.nrtRetry = d } }

var (
	_ fwk.PreEnqueuePlugin  = &Plugin{}
	_ fwk.PreFilterPlugin   = &Plugin{}
	_ fwk.FilterPlugin      = &Plugin{}
	_ fwk.PostFilterPlugin  = &Plugin{}
	_ fwk.ReservePlugin     = &Plugin{}
	_ fwk.PermitPlugin      = &Plugin{}
	_ fwk.PreBindPlugin     = &Plugin{}
	_ fwk.PostBindPlugin    = &Plugin{}
	_ fwk.EnqueueExtensions = &Plugin{}
)

// New is the plugin factory (app.WithPlugin(plugin.Name, plugin.New)).
// It rebuilds the graph from the cluster's Nodes and replays the R of
// every live pod we placed (listed once, directly), then follows Nodes
// and Pods through the scheduler's shared informers.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return Factory()(ctx, obj, h)
}

// Factory returns a plugin factory with options (New is Factory()).
func Factory(opts ...Option) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newPlugin(ctx, obj, h, o)
	}
}

func newPlugin(ctx context.Context, obj runtime.Object, h fwk.Handle, o options) (fwk.Plugin, error) {
	args, err := DecodeArgs(obj)
	if err != nil {
		return nil, err
	}
	RegisterMetrics()
	log := klog.FromContext(ctx).WithName(Name)
	var m Matcher
	switch {
	case o.matcher != nil:
		m, err = o.matcher(args)
	case args.Matcher != nil:
		// the client lives as long as the scheduler (plugins are never
		// closed)
		m, _, err = newRemoteMatcher(ctx, args)
		if err != nil {
			err = fmt.Errorf("%s args: %w", Name, err)
		}
	default:
		m, err = newLocalMatcher(args)
	}
	if err != nil {
		return nil, err
	}
	c := NewClusterWith(args, m, log)
	c.taintCmp = gateOn(taintComparisonGate)
	p := &Plugin{h: h, args: args, c: c, log: log, timeout: args.permitTimeout(), nrtRetry: time.Minute, timers: map[string]*time.Timer{}}
	if o.nrtRetry > 0 {
		p.nrtRetry = o.nrtRetry
	}
	if cs := h.ClientSet(); cs != nil {
		start := time.Now()
		nodes, nerr := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		pods, perr := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
		if nerr == nil && perr == nil {
			var ns []*v1.Node
			for i := range nodes.Items {
				ns = append(ns, &nodes.Items[i])
			}
			var ps []*v1.Pod
			for i := range pods.Items {
				ps = append(ps, &pods.Items[i])
			}
			c.Load(ns, ps)
			st := c.Stats()
			log.Info("state rebuilt", "nodes", st.Nodes, "up", st.Up, "ourPods", st.OurPods, "podsOfOthers", st.Foreign, "took", time.Since(start))
		} else {
			log.Error(fmt.Errorf("nodes: %v, pods: %v", nerr, perr), "start-up listing failed; the informers will fill the state in")
		}
	}
	if inf := h.SharedInformerFactory(); inf != nil {
		nodeInf := inf.Core().V1().Nodes().Informer()
		r1, err := nodeInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { p.onNode(o) },
			UpdateFunc: func(_, o any) { p.onNode(o) },
			DeleteFunc: func(o any) {
				if n, ok := unwrap(o).(*v1.Node); ok {
					c.DeleteNode(n.Name)
				}
			},
		})
		if err != nil {
			return nil, err
		}
		podInf := inf.Core().V1().Pods().Informer()
		r2, err := podInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { p.onPod(o) },
			UpdateFunc: func(_, o any) { p.onPod(o) },
			DeleteFunc: func(o any) {
				if pod, ok := unwrap(o).(*v1.Pod); ok {
					p.podDeleted(pod)
				}
			},
		})
		if err != nil {
			return nil, err
		}
		p.pods = inf.Core().V1().Pods().Lister()
		p.groups = groupIndexer(podInf, args.GroupLabel, log)
		p.synced = []cache.InformerSynced{r1.HasSynced, r2.HasSynced}
		if nativeGangsEnabled() {
			if err := p.watchPodGroups(inf, podInf); err != nil {
				return nil, err
			}
		}
	}
	if args.NUMA == "nrt" {
		dc := o.dynamic
		if dc == nil && h.KubeConfig() != nil {
			if dc, err = dynamic.NewForConfig(h.KubeConfig()); err != nil {
				return nil, fmt.Errorf("%s: a client for NodeResourceTopology objects: %w", Name, err)
			}
		}
		if dc != nil {
			go p.followNRT(ctx, dc)
		}
	}
	return p, nil
}

// taintComparisonGate is the feature gate under which tolerations may
// compare values (Gt, Lt), as the in-tree TaintToleration filter reads it.
const taintComparisonGate = "TaintTolerationComparisonOperators"

// gateOn reports whether a feature gate of the scheduler is on (false
// when the process registered no such gate, as in unit tests).
func gateOn(name string) bool {
	f := featuregate.Feature(name)
	if _, known := utilfeature.DefaultMutableFeatureGate.GetAll()[f]; !known {
		return false
	}
	return utilfeature.DefaultFeatureGate.Enabled(f)
}

// podDeleted releases what a deleted pod held (its gang's, if it was in
// flight) and the reservation of a gang it was the last pending pod of.
func (p *Plugin) podDeleted(pod *v1.Pod) {
	p.reject(p.c.DeletePod(pod.UID), "a member of the gang was deleted")
	p.forgetIfGone(pod)
}

// forgetIfGone drops the reservation of a gang whose last pending pod was
// deleted.
func (p *Plugin) forgetIfGone(pod *v1.Pod) {
	if pod.Spec.NodeName != "" {
		return
	}
	key, members, _ := p.group(pod)
	for _, m := range members {
		if m.UID != pod.UID && m.Spec.NodeName == "" && m.DeletionTimestamp == nil {
			return
		}
	}
	p.c.ForgetGang(key)
	p.mu.Lock()
	if t := p.timers[key]; t != nil {
		t.Stop()
		delete(p.timers, key)
	}
	p.mu.Unlock()
}

// reserved tells about a gang's reservation: an event on its first pod
// when the reservation is new or moved, and a timer that puts the gang's
// pods back in the active queue when it starts.
func (p *Plugin) reserved(key string, pods []*v1.Pod, pe *PlaceError) {
	if pe.Moved {
		if rec := p.h.EventRecorder(); rec != nil {
			rec.Eventf(pods[0], nil, v1.EventTypeNormal, "Reserved", "Scheduling", "gofluxion: gang %s (%d pods): reserved at %s on %s",
				key, len(pods), pe.At.Format("15:04:05 MST"), pe.Where)
		}
		p.log.V(2).Info("gang reserved", "gang", key, "at", pe.At, "where", pe.Where)
	}
	p.activateAt(key, pods, pe.At)
}

// activateAt puts a gang's pods back in the active queue at t (a second
// after), replacing the gang's earlier timer.
func (p *Plugin) activateAt(key string, pods []*v1.Pod, t time.Time) {
	wait := time.Until(t)
	byName := make(map[string]*v1.Pod, len(pods))
	for _, m := range pods {
		byName[m.Namespace+"/"+m.Name] = m
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if t := p.timers[key]; t != nil {
		t.Stop()
	}
	p.timers[key] = time.AfterFunc(max(wait, 0)+time.Second, func() {
		p.h.Activate(p.log, byName)
		p.mu.Lock()
		delete(p.timers, key)
		p.mu.Unlock()
	})
}

func unwrap(o any) any {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		return d.Obj
	}
	return o
}

func (p *Plugin) onNode(o any) {
	if n, ok := o.(*v1.Node); ok {
		p.c.SetNode(n)
	}
}

func (p *Plugin) onPod(o any) {
	if pod, ok := o.(*v1.Pod); ok {
		if terminal(pod) {
			p.reject(p.c.DeletePod(pod.UID), "a member of the gang finished")
			return
		}
		p.c.SetPod(pod)
	}
}

// Name returns the plugin name.
func (p *Plugin) Name() string { return Name }

// Cluster returns the plugin's state (for tests and benchmarks).
func (p *Plugin) Cluster() *Cluster { return p.c }

func (p *Plugin) ready() bool {
	for _, s := range p.synced {
		if !s() {
			return false
		}
	}
	return true
}

func (p *Plugin) reject(uids []types.UID, msg string) {
	for _, uid := range uids {
		if wp := p.h.GetWaitingPod(uid); wp != nil {
			wp.Reject(Name, msg)
		}
	}
}

// group returns the gang key of a pod, its group's pods (from the
// informer cache) and the group's minimum size.
func (p *Plugin) group(pod *v1.Pod) (string, []*v1.Pod, int) {
	if name, ok := p.native(pod); ok {
		key, members, minMember, _ := p.nativeGroup(pod, name)
		return key, members, minMember
	}
	name, ok := pod.Labels[p.args.GroupLabel]
	if !ok || name == "" || p.pods == nil {
		return pod.Namespace + "/" + pod.Name, []*v1.Pod{pod}, 1
	}
	key := pod.Namespace + "/" + name
	var members []*v1.Pod
	if p.groups != nil {
		objs, err := p.groups.ByIndex(p.groupIndex(), key)
		if err == nil {
			members = make([]*v1.Pod, 0, len(objs))
			for _, o := range objs {
				if m, ok := o.(*v1.Pod); ok {
					members = append(members, m)
				}
			}
		}
	} else {
		var err error
		members, err = p.pods.Pods(pod.Namespace).List(labels.SelectorFromSet(labels.Set{p.args.GroupLabel: name}))
		if err != nil {
			members = nil
		}
	}
	minMember := 1
	for _, src := range []map[string]string{pod.Labels, pod.Annotations} {
		if v, ok := src[p.args.MinMemberKey]; ok {
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				minMember = n
			}
		}
	}
	return key, members, minMember
}

// groupIndex names the informer index of pods by gang ("namespace/group",
// the gang's key): the pods whose group label is set, to a non-empty
// value, as the label selector group() would otherwise list them with.
// The informer keeps it up to date with every pod event. Its name has the
// label: profiles with the same label share it.
func (p *Plugin) groupIndex() string { return groupIndexName(p.args.GroupLabel) }

func groupIndexName(label string) string { return Name + "/group:" + label }

// groupIndexer adds the index of pods by gang to the pod informer (or
// finds it there, added by another profile) and returns the informer's
// indexer; nil when it cannot (group() then lists the namespace's pods).
func groupIndexer(inf cache.SharedIndexInformer, label string, log klog.Logger) cache.Indexer {
	name := groupIndexName(label)
	if _, ok := inf.GetIndexer().GetIndexers()[name]; !ok {
		err := inf.AddIndexers(cache.Indexers{name: func(o any) ([]string, error) {
			pod, ok := o.(*v1.Pod)
			if !ok {
				return nil, nil
			}
			if g := pod.Labels[label]; g != "" {
				return []string{pod.Namespace + "/" + g}, nil
			}
			return nil, nil
		}})
		if err != nil {
			if _, ok := inf.GetIndexer().GetIndexers()[name]; !ok {
				log.Error(err, "no index of pods by gang: each gang lists its namespace's pods")
				return nil
			}
		}
	}
	return inf.GetIndexer()
}

// PreEnqueue holds a pod of a gang (the plugin's group label) out of the
// active queue while the gang has fewer live pods than its minimum (bound
// ones included): it would only fail PreFilter again and again. A new pod
// of the gang re-runs it (the UnscheduledPod/Add event, sameGroup).
func (p *Plugin) PreEnqueue(_ context.Context, pod *v1.Pod) *fwk.Status {
	if pod.Labels[p.args.GroupLabel] == "" || p.pods == nil {
		return nil
	}
	key, members, minMember := p.group(pod)
	if minMember <= 1 {
		return nil
	}
	live := 1 // the pod itself, even before the informer has it
	for _, m := range members {
		if m.UID != pod.UID && !terminal(m) && m.DeletionTimestamp == nil && m.Spec.SchedulerName == pod.Spec.SchedulerName {
			live++
		}
	}
	if live < minMember {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("gofluxion: gang %s: %d of %d pods exist, waiting for %d more", key, live, minMember, minMember-live))
	}
	return nil
}

// PreFilter places the pod's gang, once, and pins the pod to its node.
func (p *Plugin) PreFilter(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if !p.ready() {
		return nil, fwk.NewStatus(fwk.Unschedulable, "gofluxion: still loading the cluster state")
	}
	p.reject(p.c.Sweep(2*p.timeout+30*time.Second), "the gang timed out")
	if node, _, ok := p.c.Assignment(pod.UID); ok {
		return &fwk.PreFilterResult{NodeNames: sets.New(node)}, nil
	}
	if st := p.waitForPodGroup(pod); st != nil {
		return nil, st
	}
	key, members, minMember := p.group(pod)
	var pending []*v1.Pod
	var boundOn []string // the nodes of the gang's bound members
	for _, m := range members {
		if m.Spec.NodeName != "" && !terminal(m) && m.DeletionTimestamp == nil {
			boundOn = append(boundOn, m.Spec.NodeName)
		}
		if m.UID == pod.UID || m.Spec.NodeName != "" || terminal(m) || m.DeletionTimestamp != nil ||
			m.Spec.SchedulerName != pod.Spec.SchedulerName || len(m.Spec.SchedulingGates) > 0 {
			continue
		}
		if _, _, placed := p.c.Assignment(m.UID); placed {
			continue
		}
		pending = append(pending, m)
	}
	sort.Slice(pending, func(i, j int) bool {
		a, b := pending[i], pending[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	pending = append([]*v1.Pod{pod}, pending...)
	pending = p.withPodGroupTopology(pending)
	bound, inflight := p.c.GroupCounts(members)
	need := max(minMember-bound-inflight, 1)
	if len(pending) < need {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("gofluxion: gang %s: %d of %d pods present, waiting for %d more", key, len(pending)+bound+inflight, minMember, need-len(pending)))
	}
	hosts := eligibleHosts(pending, nodes)
	pl, err := p.c.PlaceGang(key, pending, hosts, boundOn)
	if err != nil && len(pending) > need {
		pending = pending[:need]
		pl, err = p.c.PlaceGang(key, pending, hosts, boundOn)
	}
	if err != nil {
		code := fwk.Error
		msg := err.Error()
		if pe, ok := err.(*PlaceError); ok {
			code = fwk.Unschedulable
			if pe.Unresolvable {
				code = fwk.UnschedulableAndUnresolvable
				var re *RequestError
				if errors.As(pe.Err, &re) {
					if rec := p.h.EventRecorder(); rec != nil {
						rec.Eventf(pod, nil, v1.EventTypeWarning, "InvalidRequest", "Scheduling", "gofluxion: %s", re.Msg)
					}
				}
			}
			if pe.Reserved {
				p.reserved(key, pending, pe)
			}
			if !pe.RetryAt.IsZero() {
				p.activateAt(key, pending, pe.RetryAt)
			}
			msg = fmt.Sprintf("gofluxion: gang %s (%d pods): %s", key, len(pending), pe.Reason)
		}
		p.podGroupEvent(pod, v1.EventTypeWarning, "FailedPlacement", msg)
		return nil, fwk.NewStatus(code, msg)
	}
	p.log.V(2).Info("gang placed", "gang", pl.GangID, "pods", len(pending), "where", pl.Scope, "match", pl.Took)
	p.podGroupEvent(pod, v1.EventTypeNormal, "Placed", placedMessage(pl, len(pending)))
	// the other members may sit in the unschedulable queue or in backoff
	// (rejected while the gang was incomplete): schedule them now
	if len(pending) > 1 {
		others := make(map[string]*v1.Pod, len(pending)-1)
		for _, m := range pending[1:] {
			others[m.Namespace+"/"+m.Name] = m
		}
		p.h.Activate(p.log, others)
	}
	return &fwk.PreFilterResult{NodeNames: sets.New(pl.Nodes[pod.UID])}, nil
}

// eligibleHosts returns the nodes every pod's required node affinity
// (nodeSelector and requiredDuringScheduling terms) accepts, or nil when
// that is all of them.
func eligibleHosts(pods []*v1.Pod, nodes []fwk.NodeInfo) []string {
	var reqs []nodeaffinity.RequiredNodeAffinity
	for _, p := range pods {
		if len(p.Spec.NodeSelector) > 0 || (p.Spec.Affinity != nil && p.Spec.Affinity.NodeAffinity != nil &&
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil) {
			reqs = append(reqs, nodeaffinity.GetRequiredNodeAffinity(p))
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	hosts := []string{}
	for _, ni := range nodes {
		n := ni.Node()
		ok := true
		for _, r := range reqs {
			if m, err := r.Match(n); err != nil || !m {
				ok = false
				break
			}
		}
		if ok {
			hosts = append(hosts, n.Name)
		}
	}
	if len(hosts) == len(nodes) {
		return nil
	}
	if len(hosts) == 0 {
		// a hostlist constraint cannot be empty: name no existing node
		hosts = []string{"gofluxion-no-eligible-node"}
	}
	return hosts
}

// PreFilterExtensions returns nil: the gang's match does not change when
// the framework adds or removes pods hypothetically (preemption).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Filter accepts only the node the gang's match chose.
func (p *Plugin) Filter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	node, gang, ok := p.c.Assignment(pod.UID)
	if !ok {
		return fwk.NewStatus(fwk.Unschedulable, "gofluxion: the pod has no placement")
	}
	if ni.Node().Name != node {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, fmt.Sprintf("gofluxion: gang %s placed the pod on %s", gang, node))
	}
	return nil
}

// PostFilter cancels the allocation of a pod that could not go where its
// gang's match put it, and with it the gang's (its waiting siblings are
// rejected). The node a later filter rejected is left out of the gang's
// next matches until it changes (Cluster.Rejected). It never makes a pod
// schedulable.
func (p *Plugin) PostFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, statuses fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	if node, _, ok := p.c.Assignment(pod.UID); ok && statuses != nil {
		if st := statuses.Get(node); st != nil && !st.IsSuccess() && st.Plugin() != "" && st.Plugin() != Name {
			key, _, _ := p.group(pod)
			p.c.Rejected(key, node, st.Plugin())
			if rec := p.h.EventRecorder(); rec != nil {
				rec.Eventf(pod, nil, v1.EventTypeWarning, "NodeRejected", "Scheduling", "gofluxion: gang %s: %s rejected node %s (%s); the gang tries other nodes",
					key, st.Plugin(), node, st.Message())
			}
		}
	}
	p.reject(p.c.Cancel(pod.UID), "a member of the gang could not be placed")
	return nil, fwk.NewStatus(fwk.Unschedulable)
}

// Reserve has nothing to do: PreFilter booked the pod's resources.
func (p *Plugin) Reserve(context.Context, fwk.CycleState, *v1.Pod, string) *fwk.Status { return nil }

// Unreserve cancels the allocation (the gang's, before Permit let it go).
func (p *Plugin) Unreserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, _ string) {
	if keepInPodGroupCycle(state) {
		return
	}
	p.reject(p.c.Cancel(pod.UID), "a member of the gang was unreserved")
}

// Permit holds each member until the whole gang has reached Permit.
func (p *Plugin) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	others, allow, err := p.c.Permit(pod.UID)
	if err != nil {
		return fwk.AsStatus(err), 0
	}
	if p.nativePermit(pod) {
		// the in-tree GangScheduling plugin holds native gangs at Permit
		return nil, 0
	}
	if !allow {
		return fwk.NewStatus(fwk.Wait, "gofluxion: waiting for the rest of the gang"), p.timeout
	}
	for _, uid := range others {
		if wp := p.h.GetWaitingPod(uid); wp != nil {
			wp.Allow(Name)
		}
	}
	return nil, 0
}

// PreBindPreFlight says PreBind runs (and may run in parallel with others).
func (p *Plugin) PreBindPreFlight(context.Context, fwk.CycleState, *v1.Pod, string) (*fwk.PreBindPreFlightResult, *fwk.Status) {
	return &fwk.PreBindPreFlightResult{AllowParallel: true}, nil
}

// PreBind writes the pod's job id and R as annotations: the state a
// restarted scheduler (or a standby replica) rebuilds from.
func (p *Plugin) PreBind(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) *fwk.Status {
	patch, err := p.c.AnnotationPatch(pod.UID)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if _, err := p.h.ClientSet().CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fwk.AsStatus(fmt.Errorf("writing the allocation on pod %s/%s: %w", pod.Namespace, pod.Name, err))
	}
	return nil
}

// PostBind records the binding.
func (p *Plugin) PostBind(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	p.c.Bound(pod.UID)
}

// EventsToRegister retries pods we rejected when nodes come or change,
// when assigned pods go away (deleted or finished) and when a new pod of
// the same gang appears.
//
// The scheduler's queue and the plugin's informer handlers receive the
// same event in different goroutines, so a pod re-queued on the queue's
// side could be tried before the handler updated the Cluster, fail on
// the old state, and then wait for the periodic flush (five minutes) as
// no later event comes. So the hints of node and pod events apply the
// event to the Cluster themselves before they answer Queue: the pod is
// re-queued only once the state reflects the change. (Both paths are
// idempotent: whichever runs second changes nothing.)
func (p *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	ev := []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeLabel | fwk.UpdateNodeTaint | fwk.UpdateNodeCondition}, QueueingHintFn: p.nodeChanged},
		{Event: fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, QueueingHintFn: p.podGone},
		{Event: fwk.ClusterEvent{Resource: fwk.UnscheduledPod, ActionType: fwk.Add}, QueueingHintFn: p.sameGroup},
	}
	if p.podGroups != nil {
		ev = append(ev, fwk.ClusterEventWithHint{Event: fwk.ClusterEvent{Resource: fwk.PodGroup, ActionType: fwk.Add | fwk.Update}, QueueingHintFn: p.podGroupHint})
	}
	return ev, nil
}

// nodeChanged applies a node event to the Cluster, then re-queues.
func (p *Plugin) nodeChanged(_ klog.Logger, _ *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	p.onNode(newObj)
	return fwk.Queue, nil
}

// podGone applies the deletion (or end) of an assigned pod to the
// Cluster, then re-queues.
func (p *Plugin) podGone(_ klog.Logger, _ *v1.Pod, oldObj, _ any) (fwk.QueueingHint, error) {
	if pod, ok := unwrap(oldObj).(*v1.Pod); ok {
		p.podDeleted(pod)
	}
	return fwk.Queue, nil
}

func (p *Plugin) sameGroup(_ klog.Logger, pod *v1.Pod, _, newObj any) (fwk.QueueingHint, error) {
	n, ok := newObj.(*v1.Pod)
	if !ok {
		return fwk.Queue, nil
	}
	if p.podGroups != nil && sameNativeGroup(pod, n) {
		return fwk.Queue, nil
	}
	g := pod.Labels[p.args.GroupLabel]
	if g != "" && n.Namespace == pod.Namespace && n.Labels[p.args.GroupLabel] == g {
		return fwk.Queue, nil
	}
	return fwk.QueueSkip, nil
}
