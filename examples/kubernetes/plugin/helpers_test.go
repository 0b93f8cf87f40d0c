package plugin

import (
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2/ktesting"

	"github.com/gofluxion/gofluxion"
)

const gpuName = v1.ResourceName(DefaultGPUResource)

// node makes a Ready node offering cores, GiB of memory and gpus.
func node(name string, cores, gib, gpus int64) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(cores, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(gib<<30, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
	}
	if gpus > 0 {
		alloc[gpuName] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("node-" + name), Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{
			Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// pod makes a pending pod of our scheduler requesting milli-cores, MiB
// and gpus, in gang group (if not "") of at least min members.
func pod(name, group string, min int, milli, mib, gpus int64) *v1.Pod {
	req := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(milli, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(mib<<20, resource.BinarySI),
	}
	if gpus > 0 {
		req[gpuName] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{}},
		Spec: v1.PodSpec{
			SchedulerName: "gofluxion",
			Containers:    []v1.Container{{Name: "c", Image: "x", Resources: v1.ResourceRequirements{Requests: req, Limits: limitsFor(req)}}},
		},
	}
	if group != "" {
		p.Labels[DefaultGroupLabel] = group
		p.Labels[DefaultMinMemberKey] = fmt.Sprint(min)
	}
	return p
}

func limitsFor(req v1.ResourceList) v1.ResourceList {
	if q, ok := req[gpuName]; ok {
		return v1.ResourceList{gpuName: q}
	}
	return nil
}

func gangPods(prefix string, n int, milli, mib, gpus int64) []*v1.Pod {
	var out []*v1.Pod
	for i := range n {
		out = append(out, pod(fmt.Sprintf("%s-%d", prefix, i), prefix, n, milli, mib, gpus))
	}
	return out
}

func newCluster(t testing.TB, mutate ...func(*Args)) *Cluster {
	t.Helper()
	a := &Args{}
	for _, m := range mutate {
		m(a)
	}
	a.SetDefaults()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	logger, _ := ktesting.NewTestContext(t)
	c, err := NewCluster(a, logger)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bindAll simulates PreBind + Bind of placed pods: it returns copies bound
// to their nodes with the annotations, and tells the cluster.
func bindAll(t testing.TB, c *Cluster, pl *Placement, pods []*v1.Pod) []*v1.Pod {
	t.Helper()
	var out []*v1.Pod
	for _, p := range pods {
		n, ok := pl.Nodes[p.UID]
		if !ok {
			continue
		}
		ann, err := c.Annotations(p.UID)
		if err != nil {
			t.Fatal(err)
		}
		if patch, err := c.AnnotationPatch(p.UID); err != nil || string(patch) != string(annotationPatch(ann)) {
			t.Fatalf("AnnotationPatch: %s (%v), want %s", patch, err, annotationPatch(ann))
		}
		b := p.DeepCopy()
		b.Annotations = ann
		b.Spec.NodeName = n
		b.Status.Phase = v1.PodRunning
		c.Bound(p.UID)
		c.SetPod(b)
		out = append(out, b)
	}
	return out
}

// inproc is a Cluster's in-process gofluxion Matcher.
func inproc(c *Cluster) *gofluxion.Matcher { return c.m.(*fluxMatcher).b.(*gofluxion.Matcher) }
