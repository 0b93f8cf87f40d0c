package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func distinctNodes(t *testing.T, pl map[string]string) []string {
	t.Helper()
	var nodes []string
	for _, n := range pl {
		if slices.Contains(nodes, n) {
			t.Fatalf("two pods of a gang share node %s: %v", n, pl)
		}
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	return nodes
}

func jobIDs(t *testing.T, k kube, names []string) []int {
	t.Helper()
	var ids []int
	for _, n := range names {
		p, err := k.cs.CoreV1().Pods("default").Get(k.ctx(), n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		id, err := strconv.Atoi(p.Annotations["gofluxion.io/jobid"])
		if err != nil || p.Annotations["gofluxion.io/R"] == "" {
			t.Fatalf("%s: no allocation annotations: %v", n, p.Annotations)
		}
		ids = append(ids, id)
	}
	return ids
}

// TestEndToEnd is issue 7's scenario against a real kube-apiserver and
// etcd: (a) a 4-pod gang on 4 distinct nodes, all or nothing; (b) a gang
// too big stays Pending with our explanation in its events; (c) adding a
// node makes it schedulable; (d) deleting pods frees their resources for
// the next gang; (e) after kill -9 and a restart, a new gang does not
// double-book the running gangs' resources; (f) a cordoned node receives
// nothing (and gets pods again once uncordoned); (g) nodes are shared with
// pods placed by others.
func TestEndToEnd(t *testing.T) {
	if os.Getenv("GOFLUXION_E2E") == "0" {
		t.Skip("GOFLUXION_E2E=0")
	}
	start := time.Now()
	etcd := startEtcd(t)
	t.Logf("etcd ready at %s (%v)", etcd, time.Since(start).Round(time.Millisecond))
	cfg := startAPIServer(t, etcd)
	t.Logf("kube-apiserver ready at %s (%v)", cfg.Host, time.Since(start).Round(time.Millisecond))
	cs := kubernetes.NewForConfigOrDie(cfg)
	installNRTCRD(t, cfg)
	saCfg := applyRBAC(t, cfg)
	bin := buildScheduler(t)
	t.Logf("scheduler built (%v)", time.Since(start).Round(time.Millisecond))
	sched := newScheduler(t, bin, writeKubeconfig(t, saCfg))
	sched.start()
	const wait = 90 * time.Second

	t.Run("Gangs", func(t *testing.T) {
		k := kube{t: t, cs: cs}
		for i := range 6 {
			k.addNode(fmt.Sprintf("n%d", i), 8, 32, 2)
		}

		// (a) a 4-pod gang lands on 4 distinct nodes with enough cores and gpus
		a := k.createGang("a", 4, 2, 4, 1)
		plA := k.waitBound(a, wait)
		t.Logf("(a) gang a: %v", plA)
		distinctNodes(t, plA)
		k.checkCapacity()

		// (b) a gang too big to fit stays Pending (all of it) with our explanation
		big := k.createGang("big", 7, 1, 1, 1)
		msg := k.waitEvent(big, "needs 7 node (with 1 core, 1 gpu, 1 memory each): 6 found now, only 6 exist", wait)
		t.Logf("(b) event: %s", msg)
		k.requireNoneBound(big, 3*time.Second)

		// (c) adding a node makes it schedulable
		k.addNode("n6", 8, 32, 2)
		plBig := k.waitBound(big, wait)
		t.Logf("(c) gang big after adding n6: %v", plBig)
		if nodes := distinctNodes(t, plBig); !slices.Contains(nodes, "n6") {
			t.Fatalf("n6 unused: %v", nodes)
		}
		k.checkCapacity()

		// (d) a gang that needs every gpu waits, then runs once the others are deleted
		d := k.createGang("d", 7, 1, 1, 2)
		msg = k.waitEvent(d, "needs 7 node (with 1 core, 2 gpu, 1 memory each): 0 found now, 7 when free", wait)
		t.Logf("(d) event: %s", msg)
		k.requireNoneBound(d, 2*time.Second)
		k.deletePods(append(slices.Clone(a), big...))
		plD := k.waitBound(d, wait)
		t.Logf("(d) gang d after deleting a and big: %v", plD)
		k.checkCapacity()
		idsD := jobIDs(t, k, d)

		// (e) kill -9 the scheduler and start it again: it rebuilds its state
		// from the Nodes and the pods' Rs
		sched.kill()
		sched.start()
		e2 := k.createGang("e2", 2, 2, 1, 0) // cpu only: fits, shows the new scheduler leads
		plE2 := k.waitBound(e2, wait)
		t.Logf("(e) after the restart, gang e2: %v", plE2)
		if !sched.logContains(`"state rebuilt"`) {
			t.Error("the restarted scheduler did not log its rebuilt state")
		}
		e := k.createGang("e", 2, 1, 1, 1) // every gpu is held by gang d
		msg = k.waitEvent(e, "needs 2 node (with 1 core, 1 gpu, 1 memory each): 0 found now, 7 when free", wait)
		t.Logf("(e) event: %s", msg)
		k.requireNoneBound(e, 2*time.Second)
		k.checkCapacity()
		if idsE2 := jobIDs(t, k, e2); slices.Min(idsE2) <= slices.Max(idsD) {
			t.Errorf("job ids after the restart %v do not follow the recovered ones %v", idsE2, idsD)
		}

		// (f) a cordoned node receives nothing
		k.deletePods(slices.Concat(d, e, e2))
		k.cordon("n0", true)
		f := k.createGang("f", 7, 1, 1, 1)
		msg = k.waitEvent(f, "needs 7 node (with 1 core, 1 gpu, 1 memory each): 6 found now, 7 when free", wait)
		t.Logf("(f) event: %s", msg)
		f6 := k.createGang("f6", 6, 1, 1, 0)
		plF6 := k.waitBound(f6, wait)
		t.Logf("(f) gang f6 with n0 cordoned: %v", plF6)
		if slices.Contains(distinctNodes(t, plF6), "n0") {
			t.Fatal("a pod landed on the cordoned node")
		}
		k.requireNoneBound(f, time.Second)
		k.cordon("n0", false)
		plF := k.waitBound(f, wait)
		t.Logf("(f) gang f after uncordoning n0: %v", plF)
		k.checkCapacity()

		// (g) nodes are shared with pods placed by others
		k.deletePods(slices.Concat(f, f6))
		other := podSpec("other", "", 0, 7, 1, 0)
		other.Spec.SchedulerName = "someone-else"
		other.Spec.NodeName = "n1" // bound by someone else
		if _, err := k.cs.CoreV1().Pods("default").Create(k.ctx(), other, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		g := k.createGang("g", 7, 2, 1, 0)
		msg = k.waitEvent(g, "needs 7 node (with 2 core, 1 memory each): 6 found now, 7 when free", wait)
		t.Logf("(g) event: %s", msg)
		k.requireNoneBound(g, time.Second)
		k.deletePods([]string{"other"})
		plG := k.waitBound(g, wait)
		t.Logf("(g) gang g after the other pod left n1: %v", plG)
		k.checkCapacity()
		k.deletePods(g)
		k.deleteNodes("n0", "n1", "n2", "n3", "n4", "n5", "n6")
	})
	t.Run("TopologyRequired", func(t *testing.T) { topologyRequired(t, kube{t: t, cs: cs}, wait) })
	t.Run("TopologyPreferred", func(t *testing.T) { topologyPreferred(t, kube{t: t, cs: cs}, wait) })
	t.Run("NUMASingle", func(t *testing.T) { numaSingle(t, kube{t: t, cs: cs}, cfg, sched, wait) })
	t.Run("GangReservation", func(t *testing.T) { gangReservation(t, kube{t: t, cs: cs}, wait) })
	t.Run("TaintToleration", func(t *testing.T) { taintToleration(t, kube{t: t, cs: cs}, wait) })
	t.Run("NFDProperties", func(t *testing.T) { nfdProperties(t, kube{t: t, cs: cs}, wait) })
	t.Run("ReplacementSameRack", func(t *testing.T) { replacementSameRack(t, kube{t: t, cs: cs}, wait) })
	t.Run("FilterRejectedRetry", func(t *testing.T) { filterRejectedRetry(t, kube{t: t, cs: cs}, wait) })
	t.Run("WorkloadGang", func(t *testing.T) { workloadGang(t, kube{t: t, cs: cs}, bin, saCfg, wait) })
	t.Run("PlacementPlugin", func(t *testing.T) { placementPlugin(t, kube{t: t, cs: cs}, bin, saCfg, wait) })
	t.Run("MillicorePacking", func(t *testing.T) {
		millicorePacking(t, kube{t: t, cs: cs}, sched, newSchedulerWith(t, bin, writeKubeconfig(t, saCfg), milliConfig), wait)
	})
	t.Run("DeployedRBAC", func(t *testing.T) { deployedRBAC(t, cs, saCfg, sched) })
	t.Logf("end to end: %v", time.Since(start).Round(time.Millisecond))
}
