package e2e

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

// taint sets a node's taints.
func (k kube) taint(name string, taints ...v1.Taint) {
	k.t.Helper()
	n, err := k.cs.CoreV1().Nodes().Get(k.ctx(), name, metav1.GetOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	n.Spec.Taints = taints
	if _, err := k.cs.CoreV1().Nodes().Update(k.ctx(), n, metav1.UpdateOptions{}); err != nil {
		k.t.Fatal(err)
	}
}

// label sets labels on a node.
func (k kube) label(name string, kv map[string]string) {
	k.t.Helper()
	n, err := k.cs.CoreV1().Nodes().Get(k.ctx(), name, metav1.GetOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	for key, v := range kv {
		n.Labels[key] = v
	}
	if _, err := k.cs.CoreV1().Nodes().Update(k.ctx(), n, metav1.UpdateOptions{}); err != nil {
		k.t.Fatal(err)
	}
}

func tolerating(tols ...v1.Toleration) func(*v1.Pod) {
	return func(p *v1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, tols...) }
}

func annotated(kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

// TaintToleration: a gang tolerating nvidia.com/gpu=present:NoSchedule
// binds on the tainted GPU nodes (they stay up in the graph), and pods
// without the toleration never land there.
func taintToleration(t *testing.T, k kube, wait time.Duration) {
	nodes := []string{"tt-g0", "tt-g1", "tt-c0"}
	t.Cleanup(func() { k.cleanup(nodes, "tt-") })
	gpuTaint := v1.Taint{Key: gpuResName, Value: "present", Effect: v1.TaintEffectNoSchedule}
	k.addNode("tt-g0", 4, 8, 2)
	k.addNode("tt-g1", 4, 8, 2)
	k.addNode("tt-c0", 4, 8, 0)
	k.taint("tt-g0", gpuTaint)
	k.taint("tt-g1", gpuTaint)

	g := k.createGangWith("tt-gpu", 2, 1, 1, 1, tolerating(v1.Toleration{Key: gpuResName, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}))
	pl := k.waitBound(g, wait)
	if nodes := distinctNodes(t, pl); !slices.Equal(nodes, []string{"tt-g0", "tt-g1"}) {
		t.Fatalf("tolerating gpu gang on %v, want the tainted gpu nodes", nodes)
	}
	t.Logf("tolerating gang: %v", pl)

	// without the toleration: one pod goes to the untainted node, a gang
	// of two cannot fit (one untainted node), named in its event
	one := k.createGangWith("tt-one", 1, 1, 1, 0, nil)
	if pl := k.waitBound(one, wait); pl[one[0]] != "tt-c0" {
		t.Fatalf("untolerating pod on %v", pl)
	}
	two := k.createGangWith("tt-two", 2, 1, 1, 0, nil)
	msg := k.waitEvent(two, "taints the pods do not tolerate left out: "+gpuResName+"=present:NoSchedule", wait)
	t.Logf("untolerating gang of 2: %s", msg)
	k.requireNoneBound(two, 2*time.Second)
	// the taint goes from tt-g1: the gang binds there, next to the gpu pod
	k.taint("tt-g1")
	pl = k.waitBound(two, wait)
	if slices.Contains(distinctNodes(t, pl), "tt-g0") {
		t.Fatalf("untolerating pod on tainted tt-g0: %v", pl)
	}
	t.Logf("after tt-g1 lost its taint: %v", pl)
	k.checkCapacity()
}

// NFDProperties: a gang constrained (gofluxion.io/constraint) to an NFD
// feature label lands only on nodes that carry it; a gang waiting for
// more such nodes binds once a node gains the label; an invalid
// constraint is refused with an event naming it.
func nfdProperties(t *testing.T, k kube, wait time.Duration) {
	const avx = "feature.node.kubernetes.io/cpu-cpuid.AVX512F"
	nodes := []string{"nf-0", "nf-1", "nf-2", "nf-3"}
	t.Cleanup(func() { k.cleanup(nodes, "nf-") })
	for i, n := range nodes {
		l := map[string]string{}
		if i%2 == 1 {
			l[avx] = "true"
		}
		k.addNodeL(n, l, 4, 8, 0)
	}
	cons := annotated(plugin.KeyConstraint, `{"properties": ["`+avx+`"]}`)
	g := k.createGangWith("nf-avx", 2, 1, 1, 0, cons)
	pl := k.waitBound(g, wait)
	if nodes := distinctNodes(t, pl); !slices.Equal(nodes, []string{"nf-1", "nf-3"}) {
		t.Fatalf("AVX-512 gang on %v, want nf-1 and nf-3", nodes)
	}
	t.Logf("AVX-512 gang: %v", pl)
	// by value: kernel major 6 on nf-2 only after its label changes
	kv := annotated(plugin.KeyConstraint, `{"properties": ["feature.node.kubernetes.io/kernel-version.major=6"]}`)
	h := k.createGangWith("nf-k6", 1, 1, 1, 0, kv)
	msg := k.waitEvent(h, "within "+plugin.KeyConstraint, wait)
	t.Logf("kernel 6 gang: %s", msg)
	k.requireNoneBound(h, time.Second)
	k.label("nf-2", map[string]string{"feature.node.kubernetes.io/kernel-version.major": "6"})
	if pl := k.waitBound(h, wait); pl[h[0]] != "nf-2" {
		t.Fatalf("kernel 6 pod on %v", pl)
	}
	bad := k.createGangWith("nf-bad", 1, 1, 1, 0, annotated(plugin.KeyConstraint, `{"xor": []}`))
	msg = k.waitEvent(bad, "invalid constraint", wait)
	t.Logf("invalid constraint: %s", msg)
	k.checkCapacity()
}
