package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// workloadSchedulerName is the profile of the second scheduler, the one
// started with the Workload gates on.
const workloadSchedulerName = "gofluxion-workload"

// startWorkloadScheduler starts a second GoFluxion scheduler (own profile
// name, own lease) with GenericWorkload and TopologyAwareWorkloadScheduling
// on, as the shipped ServiceAccount. It is killed when the subtest ends.
func startWorkloadScheduler(t *testing.T, bin string, saCfg *rest.Config) *scheduler {
	t.Helper()
	s := newScheduler(t, bin, writeKubeconfig(t, saCfg))
	cfg := strings.Replace(fmt.Sprintf(schedulerConfig, writeKubeconfig(t, saCfg)), "schedulerName: gofluxion\n", "schedulerName: "+workloadSchedulerName+"\n", 1)
	cfg = strings.Replace(cfg, "resourceName: gofluxion-scheduler", "resourceName: gofluxion-workload-scheduler", 1)
	// the framework asks only the first PlacementGenerate plugin: ours
	// alone (the gate adds the in-tree TopologyPlacementGenerator)
	cfg = strings.Replace(cfg, "      postFilter:\n", "      placementGenerate:\n        enabled:\n          - name: GoFluxion\n        disabled:\n          - name: \"*\"\n      postFilter:\n", 1)
	if err := os.WriteFile(s.cfg, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s.args = []string{"--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true"}
	s.start()
	return s
}

func (k kube) createPodGroup(name string, minCount int32, mutate func(*schedv1beta1.PodGroup)) {
	k.t.Helper()
	pg := &schedv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: schedv1beta1.PodGroupSpec{SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: minCount}}},
	}
	if mutate != nil {
		mutate(pg)
	}
	if _, err := k.cs.SchedulingV1beta1().PodGroups("default").Create(k.ctx(), pg, metav1.CreateOptions{}); err != nil {
		k.t.Fatalf("PodGroup %s: %v", name, err)
	}
}

// createMembers creates pods name-from..name-(to-1) naming PodGroup group
// in spec.schedulingGroup (no gang label), for the workload scheduler.
func (k kube) createMembers(group string, from, to int, cores, gib int64, mutate func(*v1.Pod)) []string {
	k.t.Helper()
	var names []string
	for i := from; i < to; i++ {
		name := fmt.Sprintf("%s-%d", group, i)
		p := podSpec(name, "", 0, cores, gib, 0)
		p.Spec.SchedulerName = workloadSchedulerName
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
		if mutate != nil {
			mutate(p)
		}
		if _, err := k.cs.CoreV1().Pods("default").Create(k.ctx(), p, metav1.CreateOptions{}); err != nil {
			k.t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}

// waitPodGroupCondition waits for the PodGroupInitiallyScheduled condition
// of a PodGroup to have status want, and returns it.
func (k kube) waitPodGroupCondition(name string, want metav1.ConditionStatus, timeout time.Duration) *metav1.Condition {
	k.t.Helper()
	deadline := time.Now().Add(timeout)
	var last []metav1.Condition
	for time.Now().Before(deadline) {
		pg, err := k.cs.SchedulingV1beta1().PodGroups("default").Get(k.ctx(), name, metav1.GetOptions{})
		if err != nil {
			k.t.Fatal(err)
		}
		last = pg.Status.Conditions
		if c := apimeta.FindStatusCondition(pg.Status.Conditions, schedv1beta1.PodGroupInitiallyScheduled); c != nil && c.Status == want {
			return c
		}
		time.Sleep(250 * time.Millisecond)
	}
	k.t.Fatalf("PodGroup %s: no %s=%s condition; conditions: %+v", name, schedv1beta1.PodGroupInitiallyScheduled, want, last)
	return nil
}

// waitObjectEvent waits for an event on the named object of kind whose
// reason is reason, and returns its message.
func (k kube) waitObjectEvent(kind, name, reason string, timeout time.Duration) string {
	k.t.Helper()
	deadline := time.Now().Add(timeout)
	var last []string
	for time.Now().Before(deadline) {
		evs, err := k.cs.CoreV1().Events("default").List(k.ctx(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name + ",involvedObject.kind=" + kind})
		if err != nil {
			k.t.Fatal(err)
		}
		last = last[:0]
		for _, e := range evs.Items {
			last = append(last, e.Reason+": "+e.Message)
			if e.Reason == reason {
				return e.Message
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	k.t.Fatalf("no %s event on %s %s; events: %q", reason, kind, name, last)
	return ""
}

// workloadGang: with GenericWorkload on, a PodGroup of 4 named by the
// pods' spec.schedulingGroup binds all or nothing, under the shipped
// ServiceAccount; the scheduler writes the PodGroup's condition and
// GoFluxion its events.
func workloadGang(t *testing.T, k kube, bin string, saCfg *rest.Config, wait time.Duration) {
	nodes := []string{"w0", "w1", "w2", "w3"}
	defer k.cleanup(append(nodes, "w4"), "wg-", "wbig-")
	for _, n := range nodes {
		k.addNode(n, 2, 8, 0)
	}
	s := startWorkloadScheduler(t, bin, saCfg)

	// (a) 3 of 4 members: nothing binds (the in-tree PreEnqueue holds them)
	k.createPodGroup("wg", 4, nil)
	wg := k.createMembers("wg", 0, 3, 2, 1, nil)
	k.requireNoneBound(wg, 4*time.Second)
	// (b) the 4th arrives: all 4 bind, one per node (2 cores each)
	wg = append(wg, k.createMembers("wg", 3, 4, 2, 1, nil)...)
	pl := k.waitBound(wg, wait)
	t.Logf("(b) PodGroup wg: %v", pl)
	distinctNodes(t, pl)
	k.checkCapacity()
	c := k.waitPodGroupCondition("wg", metav1.ConditionTrue, wait)
	t.Logf("(b) condition %s=%s (%s)", c.Type, c.Status, c.Reason)
	t.Logf("(b) event: %s", k.waitObjectEvent("PodGroup", "wg", "Placed", wait))

	// (c) a PodGroup of 5 on 4 full nodes: none of it binds; the event
	// on the PodGroup explains
	k.deletePods(wg)
	k.createPodGroup("wbig", 5, nil)
	big := k.createMembers("wbig", 0, 5, 2, 1, nil)
	msg := k.waitObjectEvent("PodGroup", "wbig", "FailedPlacement", wait)
	t.Logf("(c) event: %s", msg)
	if !strings.Contains(msg, "gang default/podgroup/wbig (5 pods)") {
		t.Errorf("(c) event: %s", msg)
	}
	k.requireNoneBound(big, 2*time.Second)
	// (d) a fifth node: all 5 bind
	k.addNode("w4", 2, 8, 0)
	plBig := k.waitBound(big, wait)
	t.Logf("(d) PodGroup wbig after adding w4: %v", plBig)
	if nodes := distinctNodes(t, plBig); !slices.Contains(nodes, "w4") {
		t.Fatalf("w4 unused: %v", nodes)
	}
	k.checkCapacity()

	// the shipped ClusterRole itself grants the PodGroup rules (the stock
	// system:kube-scheduler role has them only when the apiserver's gate
	// was on at bootstrap), and the scheduler was refused nothing
	checkWorkloadRBAC(t, k.cs, saCfg)
	b, _ := os.ReadFile(filepath.Join(s.log, fmt.Sprintf("scheduler-%d.log", s.n)))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "forbidden") || strings.Contains(line, "Forbidden") {
			t.Errorf("the workload scheduler was refused something: %s", line)
		}
	}
}

func checkWorkloadRBAC(t *testing.T, admin kubernetes.Interface, saCfg *rest.Config) {
	t.Helper()
	ctx := context.Background()
	cr, err := admin.RbacV1().ClusterRoles().Get(ctx, "gofluxion-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	grants := func(res, verb string) bool {
		for _, r := range cr.Rules {
			if slices.Contains(r.APIGroups, "scheduling.k8s.io") && slices.Contains(r.Resources, res) && slices.Contains(r.Verbs, verb) {
				return true
			}
		}
		return false
	}
	for _, want := range [][2]string{{"podgroups", "watch"}, {"podgroups", "list"}, {"podgroups/status", "patch"}} {
		if !grants(want[0], want[1]) {
			t.Errorf("the gofluxion-scheduler ClusterRole does not grant %s on %s", want[1], want[0])
		}
	}
	ssr, err := kubernetes.NewForConfigOrDie(saCfg).AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	u := ssr.Status.UserInfo
	for _, want := range []authorizationv1.ResourceAttributes{
		{Namespace: "default", Verb: "watch", Group: "scheduling.k8s.io", Resource: "podgroups"},
		{Namespace: "default", Verb: "patch", Group: "scheduling.k8s.io", Resource: "podgroups", Subresource: "status"},
	} {
		sar, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: u.Username, Groups: u.Groups, ResourceAttributes: &want}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !sar.Status.Allowed {
			t.Errorf("%s may not %s %s/%s", u.Username, want.Verb, want.Resource, want.Subresource)
		}
	}
}
