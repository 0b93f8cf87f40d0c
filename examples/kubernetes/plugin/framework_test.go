package plugin

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// harness runs the plugin inside the scheduler framework runtime, against
// a fake clientset, and drives pods through the extension points the way
// the scheduler does (scheduling cycle, then binding cycle).
type harness struct {
	t      testing.TB
	ctx    context.Context
	cancel context.CancelFunc
	cs     *fake.Clientset
	inf    informers.SharedInformerFactory
	fw     framework.Framework
	pl     *Plugin
	snap   *cache.Snapshot
	wg     sync.WaitGroup
}

func newHarness(t testing.TB, cs *fake.Clientset, args string) *harness {
	t.Helper()
	logger, ctx := ktesting.NewTestContext(t)
	if _, ok := t.(*testing.B); ok {
		logger = klog.Background().V(10) // quiet in benchmarks
		ctx = klog.NewContext(context.Background(), logger)
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &harness{t: t, ctx: ctx, cancel: cancel, cs: cs}
	t.Cleanup(func() { h.cancel(); h.wg.Wait() })
	h.inf = informers.NewSharedInformerFactory(cs, 0)
	nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	var ns []*v1.Node
	for i := range nodes.Items {
		ns = append(ns, &nodes.Items[i])
	}
	h.snap = cache.NewSnapshot(nil, ns)
	var obj runtime.Object
	if args != "" {
		obj = &runtime.Unknown{Raw: []byte(args), ContentType: runtime.ContentTypeJSON}
	}
	factory := func(ctx context.Context, _ runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
		p, err := New(ctx, obj, fh)
		if err == nil {
			h.pl = p.(*Plugin)
		}
		return p, err
	}
	fw, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, factory, "PreFilter", "Filter", "PostFilter", "Reserve", "Permit", "PreBind", "PostBind"),
	}, "gofluxion",
		frameworkruntime.WithClientSet(cs),
		frameworkruntime.WithInformerFactory(h.inf),
		frameworkruntime.WithSnapshotSharedLister(h.snap),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodActivator(&activator{}),
	)
	if err != nil {
		t.Fatal(err)
	}
	h.fw = fw
	h.inf.Start(ctx.Done())
	h.inf.WaitForCacheSync(ctx.Done())
	for !h.pl.ready() {
		time.Sleep(time.Millisecond)
	}
	return h
}

// activator counts the pods the plugin asks the queue to activate.
type activator struct {
	mu sync.Mutex
	n  int
}

func (a *activator) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	a.n += len(pods)
	a.mu.Unlock()
}

func fakeCluster(nodes []*v1.Node) *fake.Clientset {
	var objs []runtime.Object
	for _, n := range nodes {
		objs = append(objs, n)
	}
	return fake.NewClientset(objs...)
}

func (h *harness) create(pods ...*v1.Pod) []*v1.Pod {
	var out []*v1.Pod
	for _, p := range pods {
		c, err := h.cs.CoreV1().Pods(p.Namespace).Create(h.ctx, p, metav1.CreateOptions{})
		if err != nil {
			h.t.Fatal(err)
		}
		out = append(out, c)
	}
	// wait for the informer
	for _, p := range out {
		for {
			if _, err := h.pl.pods.Pods(p.Namespace).Get(p.Name); err == nil {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return out
}

// result of one scheduling attempt
type attempt struct {
	node   string
	status *fwk.Status
	bound  chan *fwk.Status // the binding cycle's outcome
}

// schedule runs one scheduling cycle and, on success, starts its binding
// cycle (WaitOnPermit, PreBind, bind, PostBind) in the background.
func (h *harness) schedule(p *v1.Pod, bind bool) attempt {
	ctx := h.ctx
	state := framework.NewCycleState()
	res, st, _ := h.fw.RunPreFilterPlugins(ctx, state, p)
	if !st.IsSuccess() {
		h.fw.RunPostFilterPlugins(ctx, state, p, framework.NewDefaultNodeToStatus())
		return attempt{status: st}
	}
	node := res.NodeNames.UnsortedList()[0]
	ni, err := h.snap.NodeInfos().Get(node)
	if err != nil {
		h.t.Fatalf("pinned to unknown node %s", node)
	}
	if st := h.fw.RunFilterPlugins(ctx, state, p, ni); !st.IsSuccess() {
		h.fw.RunPostFilterPlugins(ctx, state, p, framework.NewDefaultNodeToStatus())
		return attempt{status: st}
	}
	if st := h.fw.RunReservePluginsReserve(ctx, state, p, node); !st.IsSuccess() {
		h.fw.RunReservePluginsUnreserve(ctx, state, p, node)
		return attempt{status: st}
	}
	wait, st := h.fw.RunPermitPlugins(ctx, state, p, node)
	if !st.IsSuccess() && !st.IsWait() {
		h.fw.RunReservePluginsUnreserve(ctx, state, p, node)
		return attempt{status: st}
	}
	if st.IsWait() {
		h.fw.AddWaitingPod(p, wait)
	}
	a := attempt{node: node, bound: make(chan *fwk.Status, 1)}
	if !bind {
		return a
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		st := h.fw.WaitOnPermit(ctx, p)
		if st.IsSuccess() {
			st = h.fw.RunPreBindPlugins(ctx, state, p, node)
		}
		if st.IsSuccess() {
			cur, err := h.cs.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
			if err == nil {
				cur.Spec.NodeName = node
				cur.Status.Phase = v1.PodRunning
				_, err = h.cs.CoreV1().Pods(p.Namespace).Update(ctx, cur, metav1.UpdateOptions{})
			}
			st = fwk.AsStatus(err)
		}
		if st.IsSuccess() {
			h.fw.RunPostBindPlugins(ctx, state, p, node)
		} else {
			h.fw.RunReservePluginsUnreserve(ctx, state, p, node)
		}
		a.bound <- st
	}()
	return a
}

func (h *harness) scheduleAll(pods []*v1.Pod) []attempt {
	var out []attempt
	for _, p := range pods {
		out = append(out, h.schedule(p, true))
	}
	return out
}

func TestFrameworkGangLifecycle(t *testing.T) {
	var nodes []*v1.Node
	for i := range 6 {
		nodes = append(nodes, node(fmt.Sprintf("n%d", i), 4, 16, 2))
	}
	cs := fakeCluster(nodes)
	h := newHarness(t, cs, `{"permitTimeoutSeconds": 5}`)

	// a gang of 4 with min-member 4: the first 3 wait for the 4th
	var g []*v1.Pod
	for i := range 3 {
		g = append(g, h.create(pod(fmt.Sprintf("g-%d", i), "g", 4, 2000, 1024, 2))...)
	}
	for _, p := range g {
		a := h.schedule(p, true)
		if a.status.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(a.status.Message(), "waiting for 1 more") {
			t.Fatalf("%s: %v", p.Name, a.status)
		}
	}
	last := pod("g-3", "g", 4, 2000, 1024, 2)
	g = append(g, h.create(last)...)
	atts := h.scheduleAll(g)
	used := map[string]bool{}
	for i, a := range atts {
		if !a.status.IsSuccess() {
			t.Fatalf("pod %d: %v", i, a.status)
		}
		if used[a.node] {
			t.Fatalf("two gang pods on %s", a.node)
		}
		used[a.node] = true
	}
	for i, a := range atts {
		if st := <-a.bound; !st.IsSuccess() {
			t.Fatalf("pod %d binding: %v", i, st)
		}
	}
	// the pods carry their job id and R
	for _, p := range g {
		cur, _ := cs.CoreV1().Pods("default").Get(h.ctx, p.Name, metav1.GetOptions{})
		if cur.Annotations[AnnotationJobID] == "" || !strings.Contains(cur.Annotations[AnnotationR], `"/cluster0/(unlabelled)/`+cur.Spec.NodeName+`"`) {
			t.Fatalf("%s: annotations %v", p.Name, cur.Annotations)
		}
	}

	// a gang that can never fit: UnschedulableAndUnresolvable, explained
	big := h.create(gangPods("big", 7, 1000, 0, 1)...)
	a := h.schedule(big[0], false)
	if a.status.Code() != fwk.UnschedulableAndUnresolvable ||
		a.status.Message() != "gofluxion: gang default/big (7 pods): needs 7 node (with 1 core, 1 gpu each): 2 found now, only 6 exist" {
		t.Fatalf("big: %v", a.status)
	}
	// a gang that does not fit now: Unschedulable, explained
	busy := h.create(gangPods("busy", 3, 3000, 0, 0)...)
	a = h.schedule(busy[0], false)
	if a.status.Code() != fwk.Unschedulable || !strings.Contains(a.status.Message(), "needs 3 node (with 3 core each): 2 found now, 6 when free") {
		t.Fatalf("busy: %v", a.status)
	}

	// a member failing after placement cancels the gang and rejects the waiting ones
	two := h.create(gangPods("two", 2, 1000, 0, 0)...)
	first := h.schedule(two[0], true)
	if !first.status.IsSuccess() {
		t.Fatal(first.status)
	}
	state := framework.NewCycleState()
	if _, st, _ := h.fw.RunPreFilterPlugins(h.ctx, state, two[1]); !st.IsSuccess() {
		t.Fatal(st)
	}
	h.fw.RunPostFilterPlugins(h.ctx, state, two[1], framework.NewDefaultNodeToStatus())
	if st := <-first.bound; st.IsSuccess() {
		t.Fatal("the waiting sibling was not rejected")
	}
	if _, _, ok := h.pl.c.Assignment(two[0].UID); ok {
		t.Fatal("the rejected sibling still holds its placement")
	}

	// deleting the first gang frees its nodes for the busy gang
	for _, p := range g {
		if err := cs.CoreV1().Pods("default").Delete(h.ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.pl.c.Stats().OurPods != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for _, a := range h.scheduleAll(busy) {
		if !a.status.IsSuccess() {
			t.Fatalf("busy after delete: %v", a.status)
		}
		if st := <-a.bound; !st.IsSuccess() {
			t.Fatal(st)
		}
	}
}

// Fluence #68 through the framework: a second plugin instance (a restart)
// rebuilds its state from the pods' annotations and does not double-book.
func TestFrameworkRestart(t *testing.T) {
	var nodes []*v1.Node
	for i := range 4 {
		nodes = append(nodes, node(fmt.Sprintf("n%d", i), 4, 16, 1))
	}
	cs := fakeCluster(nodes)
	h := newHarness(t, cs, "")
	g := h.create(gangPods("g", 3, 3000, 1024, 1)...)
	for _, a := range h.scheduleAll(g) {
		if !a.status.IsSuccess() {
			t.Fatal(a.status)
		}
		if st := <-a.bound; !st.IsSuccess() {
			t.Fatal(st)
		}
	}
	h.cancel()

	h2 := newHarness(t, cs, "")
	if st := h2.pl.c.Stats(); st.OurPods != 3 || st.Jobs != 3 {
		t.Fatalf("after restart: %+v", st)
	}
	// 3 of the 4 nodes hold a 3-core gang pod: a 2-pod gang of 3 cores cannot fit
	n := h2.create(gangPods("n", 2, 3000, 0, 0)...)
	a := h2.schedule(n[0], false)
	if a.status.Code() != fwk.Unschedulable || !strings.Contains(a.status.Message(), "1 found now") {
		t.Fatalf("restarted scheduler double-booked: %v", a.status)
	}
	// the job ids continue after the replayed ones
	one := h2.create(pod("one", "", 0, 1000, 0, 0))
	if a := h2.schedule(one[0], true); !a.status.IsSuccess() {
		t.Fatal(a.status)
	} else if st := <-a.bound; !st.IsSuccess() {
		t.Fatal(st)
	}
	cur, _ := cs.CoreV1().Pods("default").Get(h2.ctx, "one", metav1.GetOptions{})
	if cur.Annotations[AnnotationJobID] != "4" {
		t.Errorf("job id %s, want 4", cur.Annotations[AnnotationJobID])
	}
}

func TestDecodeArgs(t *testing.T) {
	for _, tc := range []struct {
		raw, ct, bad string
	}{
		{`{"policy": "low", "memoryChunk": "512Mi"}`, runtime.ContentTypeJSON, ""},
		{"policy: high\npermitTimeoutSeconds: 30\n", runtime.ContentTypeYAML, ""},
		{`{"polcy": "low"}`, runtime.ContentTypeJSON, "unknown field"},
		{"polcy: low\n", runtime.ContentTypeYAML, "unknown field"},
		{`{"policy": "sideways"}`, "", "policy"},
	} {
		a, err := DecodeArgs(&runtime.Unknown{Raw: []byte(tc.raw), ContentType: tc.ct})
		if (err != nil) != (tc.bad != "") || (err != nil && !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("%q: %v", tc.raw, err)
		}
		if err == nil && a.GroupLabel != DefaultGroupLabel {
			t.Errorf("%q: not defaulted", tc.raw)
		}
	}
	if a, err := DecodeArgs(nil); err != nil || a.Policy != DefaultPolicy {
		t.Errorf("nil args: %v %v", a, err)
	}
}

// group() reads the informer's index of pods by gang: the same members as
// the label selector it replaces, through pods added, relabeled, moved to
// another gang, in another namespace, and deleted.
func TestGroupIndexFollowsPods(t *testing.T) {
	h := newHarness(t, fakeCluster([]*v1.Node{node("n0", 8, 32, 0)}), "")
	if h.pl.groups == nil {
		t.Fatal("no index of pods by gang")
	}
	members := func(index bool) []string {
		idx := h.pl.groups
		if !index {
			h.pl.groups = nil
		}
		defer func() { h.pl.groups = idx }()
		var out []string
		for _, g := range []string{"a", "b"} {
			for _, ns := range []string{"default", "other"} {
				probe := pod("probe", g, 0, 1, 1, 0)
				probe.Namespace = ns
				key, ms, _ := h.pl.group(probe)
				for _, m := range ms {
					out = append(out, key+" "+m.Namespace+"/"+m.Name)
				}
			}
		}
		slices.Sort(out)
		return out
	}
	check := func(step string, want ...string) {
		t.Helper()
		// the informer's events are asynchronous: wait for the selector
		for i := 0; i < 5000 && !slices.Equal(members(false), want); i++ {
			time.Sleep(time.Millisecond)
		}
		if got := members(false); !slices.Equal(got, want) {
			t.Fatalf("%s: selector %v, want %v", step, got, want)
		}
		if got := members(true); !slices.Equal(got, want) {
			t.Fatalf("%s: index %v, want %v", step, got, want)
		}
	}
	ps := h.create(gangPods("a", 3, 1000, 1024, 0)...)
	o := pod("a-x", "a", 3, 1000, 1024, 0)
	o.Namespace = "other"
	h.create(o, pod("b-0", "b", 1, 1000, 1024, 0), pod("lone", "", 0, 1000, 1024, 0))
	check("created", "default/a default/a-0", "default/a default/a-1", "default/a default/a-2", "default/b default/b-0", "other/a other/a-x")
	moved := ps[1].DeepCopy()
	moved.Labels[DefaultGroupLabel] = "b"
	unlabeled := ps[2].DeepCopy()
	delete(unlabeled.Labels, DefaultGroupLabel)
	for _, p := range []*v1.Pod{moved, unlabeled} {
		if _, err := h.cs.CoreV1().Pods(p.Namespace).Update(h.ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	check("relabeled", "default/a default/a-0", "default/b default/a-1", "default/b default/b-0", "other/a other/a-x")
	if err := h.cs.CoreV1().Pods("default").Delete(h.ctx, ps[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	check("deleted", "default/b default/a-1", "default/b default/b-0", "other/a other/a-x")
}

// TestPreEnqueueHoldsIncompleteGangs: the pods of a gang stay out of the
// active queue until min-member pods exist; others pass.
func TestPreEnqueueHoldsIncompleteGangs(t *testing.T) {
	h := newHarness(t, fakeCluster([]*v1.Node{node("n0", 8, 32, 0)}), "")
	var g []*v1.Pod
	for i := range 3 {
		g = append(g, h.create(pod(fmt.Sprintf("g-%d", i), "g", 4, 1000, 0, 0))...)
	}
	for _, p := range g {
		st := h.pl.PreEnqueue(h.ctx, p)
		if st.Code() != fwk.UnschedulableAndUnresolvable || !strings.Contains(st.Message(), "3 of 4 pods exist, waiting for 1 more") {
			t.Fatalf("%s: %v", p.Name, st)
		}
	}
	// the 4th, before the informer has it, counts itself
	fourth := pod("g-3", "g", 4, 1000, 0, 0)
	if st := h.pl.PreEnqueue(h.ctx, fourth); !st.IsSuccess() {
		t.Fatalf("4th pod: %v", st)
	}
	g = append(g, h.create(fourth)...)
	for _, p := range g {
		if st := h.pl.PreEnqueue(h.ctx, p); !st.IsSuccess() {
			t.Fatalf("%s with the gang complete: %v", p.Name, st)
		}
	}
	for _, p := range []*v1.Pod{pod("lone", "", 0, 1000, 0, 0), pod("one", "one", 1, 1000, 0, 0)} {
		if st := h.pl.PreEnqueue(h.ctx, p); !st.IsSuccess() {
			t.Fatalf("%s: %v", p.Name, st)
		}
	}
}
