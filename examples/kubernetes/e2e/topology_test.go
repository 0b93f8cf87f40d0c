package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

const (
	zoneKey = "topology.kubernetes.io/zone"
	rackKey = "topology.gofluxion.io/rack"
)

func rackLabels(zone, rack string) map[string]string {
	return map[string]string{zoneKey: zone, rackKey: rack}
}

func labelled(kv ...string) func(*v1.Pod) {
	return func(p *v1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

// topology nodes: zone z1 has rack r1 with 3 nodes; zone z2 has racks r2
// and r3 with 2 nodes each (more nodes in total, fewer per rack).
var topoNodes = []struct{ name, zone, rack string }{
	{"tr-1a", "z1", "r1"}, {"tr-1b", "z1", "r1"}, {"tr-1c", "z1", "r1"},
	{"tr-2a", "z2", "r2"}, {"tr-2b", "z2", "r2"},
	{"tr-3a", "z2", "r3"}, {"tr-3b", "z2", "r3"},
}

func placedOn(t *testing.T, pl map[string]string) []string {
	t.Helper()
	nodes := distinctNodes(t, pl)
	return nodes
}

// TopologyRequired: a rack-required gang lands in one rack while the zone
// with more free nodes in total, but fewer per rack, is skipped.
func topologyRequired(t *testing.T, k kube, wait time.Duration) {
	for _, n := range topoNodes {
		k.addNodeL(n.name, rackLabels(n.zone, n.rack), 4, 8, 0)
	}
	g := k.createGangWith("req", 3, 2, 1, 0, labelled(plugin.KeyRequired, "rack"))
	pl := k.waitBound(g, wait)
	nodes := placedOn(t, pl)
	t.Logf("rack-required gang: %v", nodes)
	t.Cleanup(func() { k.cleanup(nil, "req", "bad-") })
	if !slices.Equal(nodes, []string{"tr-1a", "tr-1b", "tr-1c"}) {
		t.Fatalf("not within rack r1: %v", nodes)
	}
	// 4 pods in one rack: never (no rack has 4 nodes); named in events
	h := k.createGangWith("req4", 4, 2, 1, 0, labelled(plugin.KeyRequired, "rack"))
	msg := k.waitEvent(h, "needs 1 rack (with 4 node", wait)
	t.Logf("4 pods rack-required: %s", msg)
	k.requireNoneBound(h, time.Second)
	// an unknown level is rejected with an event naming it
	bad := k.createGangWith("bad", 1, 1, 1, 0, labelled(plugin.KeyRequired, "rak"))
	msg = k.waitEvent(bad, `unknown level "rak" (levels: zone, rack)`, wait)
	t.Logf("unknown level: %s", msg)
	k.deletePods(slices.Concat(h, bad))
	k.checkCapacity()
}

// TopologyPreferred: a gang that no rack can hold falls back to a zone.
func topologyPreferred(t *testing.T, k kube, wait time.Duration) {
	var names []string
	for _, n := range topoNodes {
		names = append(names, n.name)
	}
	t.Cleanup(func() { k.cleanup(names, "pref-") })
	g := k.createGangWith("pref", 4, 2, 1, 0, labelled(plugin.KeyPreferred, "rack"))
	pl := k.waitBound(g, wait)
	nodes := placedOn(t, pl)
	t.Logf("rack-preferred gang of 4: %v", nodes)
	if !slices.Equal(nodes, []string{"tr-2a", "tr-2b", "tr-3a", "tr-3b"}) {
		t.Fatalf("not within zone z2: %v", nodes)
	}
}

// NUMASingle: each pod's cores and gpus come from one zone of the node's
// NodeResourceTopology.
func numaSingle(t *testing.T, k kube, admin *rest.Config, sched *scheduler, wait time.Duration) {
	k.addNodeL("numa-0", rackLabels("zn", "rn"), 16, 32, 2)
	k.addNodeL("flat-0", rackLabels("zn", "rn"), 16, 32, 2)
	t.Cleanup(func() { k.cleanup([]string{"numa-0", "flat-0"}, "ns-") })
	zone := func(i int) any {
		return map[string]any{"name": fmt.Sprintf("node-%d", i), "type": "Node", "resources": []any{
			map[string]any{"name": "cpu", "capacity": "8", "allocatable": "8", "available": "8"},
			map[string]any{"name": "memory", "capacity": "16Gi", "allocatable": "16Gi", "available": "16Gi"},
			map[string]any{"name": gpuResName, "capacity": "1", "allocatable": "1", "available": "1"},
		}}
	}
	nrt := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology",
		"metadata":          map[string]any{"name": "numa-0"},
		"topologyPolicies":  []any{"SingleNUMANodeContainerLevel"},
		"zones":             []any{zone(0), zone(1)},
		"attributes":        []any{map[string]any{"name": "topologyManagerPolicy", "value": "single-numa-node"}},
		"unusedTopLevelKey": "kept",
	}}
	dc := dynamic.NewForConfigOrDie(admin)
	if _, err := dc.Resource(plugin.NRTResource).Create(context.Background(), nrt, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// the scheduler re-attaches the node with its two zones
	seen := regexp.MustCompile(`"node (re-)?attached".* node="numa-0".* zones=2`)
	deadline := time.Now().Add(wait)
	for !sched.logMatches(seen) {
		if time.Now().After(deadline) {
			t.Fatal("the scheduler never read the NodeResourceTopology")
		}
		time.Sleep(200 * time.Millisecond)
	}
	g := k.createGangWith("ns", 2, 6, 4, 1, labelled(plugin.KeyNUMA, "single", plugin.KeyPodsPerNode, "any"))
	pl := k.waitBound(g, wait)
	zones := map[string]bool{}
	for _, name := range g {
		if pl[name] != "numa-0" {
			t.Fatalf("%s on %s, not on the node with NUMA zones", name, pl[name])
		}
		p, err := k.cs.CoreV1().Pods("default").Get(k.ctx(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := p.Annotations[plugin.AnnotationR]
		var in []string
		for _, z := range []string{"numa0", "numa1"} {
			if strings.Contains(r, "/numa-0/"+z+"/core") && strings.Contains(r, "/numa-0/"+z+"/gpu") {
				in = append(in, z)
			}
			if strings.Contains(r, "/numa-0/"+z+"/") && !slices.Contains(in, z) {
				in = append(in, z+"(partly)")
			}
		}
		if len(in) != 1 || strings.Contains(in[0], "partly") {
			t.Fatalf("%s: cores and gpus not from one zone: %v\n%s", name, in, r)
		}
		zones[in[0]] = true
	}
	t.Logf("numa: single gang on numa-0, zones %v", zones)
	if len(zones) != 2 {
		t.Errorf("two pods of 6 cores and 1 gpu in one zone of 8 cores and 1 gpu: %v", zones)
	}
	k.checkCapacity()
	if err := dc.Resource(plugin.NRTResource).Delete(context.Background(), "numa-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
}

// GangReservation: a 4-node gang waiting behind running pods keeps its
// reservation while a stream of 1-node pods arrives; those ending before
// it backfill, the others wait; when the running pods end it binds before
// the pods that came after it.
func gangReservation(t *testing.T, k kube, wait time.Duration) {
	for i := range 4 {
		k.addNodeL(fmt.Sprintf("rv-%d", i), rackLabels("zr", "rr"), 4, 8, 0)
	}
	t.Cleanup(func() {
		k.cleanup([]string{"rv-0", "rv-1", "rv-2", "rv-3"}, "run", "resv-", "short-", "long-", "forever-")
	})
	deadline := func(secs int64) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Spec.ActiveDeadlineSeconds = &secs }
	}
	walltime := func(w string) func(*v1.Pod) {
		return func(p *v1.Pod) { p.Annotations = map[string]string{plugin.KeyWalltime: w} }
	}
	// three running pods, a whole node each, for 5 minutes
	var running []string
	for i := range 3 {
		running = append(running, k.createGangWith(fmt.Sprintf("run%d", i), 1, 4, 1, 0, deadline(300))...)
	}
	k.waitBound(running, wait)
	big := k.createGangWith("resv", 4, 4, 1, 0, walltime("10m"))
	msg := k.waitEvent(big, "reserved at", wait)
	t.Logf("big: %s", msg)
	k.requireNoneBound(big, time.Second)
	// the stream: one pod ending before the reservation, one after, one without a duration
	short := k.createGangWith("short", 1, 4, 1, 0, walltime("60"))
	plS := k.waitBound(short, wait)
	t.Logf("a pod ending before the reservation backfills: %v", plS)
	long := k.createGangWith("long", 1, 4, 1, 0, walltime("20m"))
	forever := k.createGangWith("forever", 1, 4, 1, 0, nil)
	k.waitEvent(long, "0 found now", wait)
	k.waitEvent(forever, "0 found now", wait)
	k.requireNoneBound(slices.Concat(long, forever), 2*time.Second)
	// the reservation did not move while the stream came
	times := k.reservedTimes(big)
	t.Logf("reservations announced: %v", times)
	if len(times) != 1 {
		t.Errorf("the reservation moved or was never announced: %v", times)
	}
	// the running pods and the backfilled one end: the big gang goes first
	k.deletePods(slices.Concat(running, short))
	plB := k.waitBound(big, wait)
	t.Logf("big after the running pods ended: %v", plB)
	distinctNodes(t, plB)
	k.requireNoneBound(slices.Concat(long, forever), 2*time.Second)
	k.checkCapacity()
}

// reservedTimes returns the distinct reservation messages of the
// Reserved events on the pods.
func (k kube) reservedTimes(pods []string) []string {
	k.t.Helper()
	var out []string
	for _, pod := range pods {
		evs, err := k.cs.CoreV1().Events("default").List(k.ctx(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod})
		if err != nil {
			k.t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Reason == "Reserved" && !slices.Contains(out, e.Message) {
				out = append(out, e.Message)
			}
		}
	}
	// events.k8s.io events land in the core API too
	return out
}

// DeployedRBAC: the scheduler ran everything above as the ServiceAccount
// of deploy/scheduler.yaml, with the roles shipped there and nothing else.
func deployedRBAC(t *testing.T, admin kubernetes.Interface, saCfg *rest.Config, sched *scheduler) {
	ctx := context.Background()
	ssr, err := kubernetes.NewForConfigOrDie(saCfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	user := ssr.Status.UserInfo
	t.Logf("the scheduler authenticates as %s %v", user.Username, user.Groups)
	if user.Username != "system:serviceaccount:kube-system:gofluxion-scheduler" {
		t.Fatalf("the scheduler is not the shipped ServiceAccount: %s", user.Username)
	}
	can := func(u string, groups []string, verb, group, resource string) bool {
		sar, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: u, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: verb, Group: group, Resource: resource},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return sar.Status.Allowed
	}
	if !can(user.Username, user.Groups, "patch", "", "pods") || !can(user.Username, user.Groups, "watch", "topology.node.k8s.io", "noderesourcetopologies") {
		t.Error("the ServiceAccount cannot patch pods or watch NodeResourceTopology objects")
	}
	checkWorkloadRBAC(t, admin, saCfg) // PodGroups (workload_test.go)
	if can("system:kube-scheduler", nil, "patch", "", "pods") {
		t.Log("note: the stock system:kube-scheduler role allows patching pods on this version")
	} else {
		t.Log("the stock system:kube-scheduler role cannot patch pods: the gofluxion-scheduler ClusterRole adds it")
	}
	// and nothing the scheduler did was refused
	for i := 1; i <= sched.n; i++ {
		b, _ := os.ReadFile(filepath.Join(sched.log, fmt.Sprintf("scheduler-%d.log", i)))
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "forbidden") || strings.Contains(line, "Forbidden") {
				t.Errorf("scheduler %d was refused something: %s", i, line)
			}
		}
	}
}

// cleanup deletes the pods whose names start with one of prefixes, then
// the nodes (run at the end of a subtest, failed or not).
func (k kube) cleanup(nodes []string, prefixes ...string) {
	pods, err := k.cs.CoreV1().Pods("default").List(k.ctx(), metav1.ListOptions{})
	if err == nil {
		zero := int64(0)
		for _, p := range pods.Items {
			for _, pre := range prefixes {
				if strings.HasPrefix(p.Name, pre) {
					_ = k.cs.CoreV1().Pods("default").Delete(k.ctx(), p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
				}
			}
		}
	}
	for _, n := range nodes {
		_ = k.cs.CoreV1().Nodes().Delete(k.ctx(), n, metav1.DeleteOptions{})
	}
}
