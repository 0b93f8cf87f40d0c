// Package e2e runs the GoFluxion scheduler end to end: a real etcd
// (embedded) and a real kube-apiserver (in process) on loopback, and our
// kube-scheduler binary (built from ../cmd/kube-scheduler) as a child
// process that the test can kill -9 and start again. Nodes are fake Node
// objects (no kubelet): pods are bound but never run.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
	"sigs.k8s.io/yaml"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startEtcd runs an embedded etcd on loopback and returns its client URL.
func startEtcd(t *testing.T) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	pu, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", freePort(t)))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		t.Fatal("etcd did not become ready")
	}
	t.Cleanup(e.Close)
	return cu.String()
}

// startAPIServer runs kube-apiserver in process against etcdURL. The
// ServiceAccount admission plugin is off (no controller manager creates
// service accounts) and so is TaintNodesByCondition (it would taint every
// new Node not-ready, and no kubelet will ever clear that).
func startAPIServer(t *testing.T, etcdURL string) *rest.Config {
	t.Helper()
	sc := storagebackend.NewDefaultConfig("/registry", nil)
	sc.Transport.ServerList = []string{etcdURL}
	srv, err := kubeapiservertesting.StartTestServer(t,
		&kubeapiservertesting.TestServerInstanceOptions{EnableCertAuth: true, DisableInvariantChecks: true},
		[]string{"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition", "--endpoint-reconciler-type=none",
			"--authorization-mode=RBAC",
			// native gangs (WorkloadGang, PlacementPlugin): the PodGroup API
			"--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true",
			"--runtime-config=scheduling.k8s.io/v1beta1=true"}, sc)
	if err != nil {
		t.Fatalf("kube-apiserver: %v", err)
	}
	t.Cleanup(srv.TearDownFn)
	cfg := rest.CopyConfig(srv.ClientConfig)
	cfg.QPS, cfg.Burst = 500, 1000
	return cfg
}

// applyRBAC creates the ServiceAccount and the RBAC objects of
// deploy/scheduler.yaml as shipped, and returns a client config that
// authenticates as that ServiceAccount with a token from the TokenRequest
// API: the scheduler runs with exactly the permissions we ship.
func applyRBAC(t *testing.T, admin *rest.Config) *rest.Config {
	t.Helper()
	raw, err := os.ReadFile("../deploy/scheduler.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dc := dynamic.NewForConfigOrDie(admin)
	gvr := map[string]schema.GroupVersionResource{
		"ServiceAccount":     {Version: "v1", Resource: "serviceaccounts"},
		"ClusterRole":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
		"ClusterRoleBinding": {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
		"Role":               {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
		"RoleBinding":        {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	}
	var sa *unstructured.Unstructured
	n := 0
	for _, doc := range strings.Split(string(raw), "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		r, ok := gvr[u.GetKind()]
		if !ok {
			continue
		}
		var ri dynamic.ResourceInterface = dc.Resource(r)
		if ns := u.GetNamespace(); ns != "" {
			ri = dc.Resource(r).Namespace(ns)
		}
		if _, err := ri.Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
		if u.GetKind() == "ServiceAccount" {
			sa = u
		}
		n++
	}
	if sa == nil {
		t.Fatal("deploy/scheduler.yaml has no ServiceAccount")
	}
	t.Logf("applied %d RBAC objects of deploy/scheduler.yaml", n)
	exp := int64(3600)
	tr, err := kubernetes.NewForConfigOrDie(admin).CoreV1().ServiceAccounts(sa.GetNamespace()).CreateToken(context.Background(), sa.GetName(),
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s/%s: %v", sa.GetNamespace(), sa.GetName(), err)
	}
	cfg := rest.AnonymousClientConfig(admin)
	cfg.BearerToken = tr.Status.Token
	return cfg
}

// installNRTCRD installs a NodeResourceTopology CRD (topology.node.k8s.io
// v1alpha2, cluster scoped; the schema keeps every field, as the test only
// needs the zones) and waits until it serves.
func installNRTCRD(t *testing.T, admin *rest.Config) {
	t.Helper()
	dc := dynamic.NewForConfigOrDie(admin)
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "noderesourcetopologies.topology.node.k8s.io",
			// a *.k8s.io group needs it; the upstream CRD carries this one
			"annotations": map[string]any{"api-approved.kubernetes.io": "https://github.com/kubernetes/enhancements/pull/1870"}},
		"spec": map[string]any{
			"group": "topology.node.k8s.io", "scope": "Cluster",
			"names": map[string]any{"plural": "noderesourcetopologies", "singular": "noderesourcetopology", "kind": "NodeResourceTopology", "shortNames": []any{"node-res-topo"}},
			"versions": []any{map[string]any{"name": "v1alpha2", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dc.Resource(crdGVR).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := dc.Resource(plugin.NRTResource).List(context.Background(), metav1.ListOptions{})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the NodeResourceTopology CRD does not serve: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify: cfg.Insecure, TLSServerName: cfg.ServerName}
	kc.AuthInfos["e2e"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken, ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData}
	kc.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "e2e"}
	kc.CurrentContext = "e2e"
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// buildScheduler builds ../cmd/kube-scheduler (the same packages the test
// binary was built from, so this mostly links).
func buildScheduler(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH: cannot build the scheduler binary")
	}
	bin := filepath.Join(t.TempDir(), "kube-scheduler")
	// with E2ERejectNodes, the test Filter plugin (e2e_filter.go)
	cmd := exec.Command(gobin, "build", "-tags", "e2efilter", "-o", bin, "./cmd/kube-scheduler")
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

const schedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
leaderElection:
  leaderElect: true
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 1s
  resourceNamespace: kube-system
  resourceName: gofluxion-scheduler
profiles:
  - schedulerName: gofluxion
    plugins:
      multiPoint:
        enabled:
          - name: GoFluxion
      postFilter:
        disabled:
          - name: DefaultPreemption
      filter:
        enabled:
          - name: E2ERejectNodes
    pluginConfig:
      - name: GoFluxion
        args:
          policy: lonode
          permitTimeoutSeconds: 30
          topology:
            levels:
              - {type: zone, label: topology.kubernetes.io/zone}
              - {type: rack, label: topology.gofluxion.io/rack}
`

// scheduler is our kube-scheduler running as a child process.
type scheduler struct {
	t   *testing.T
	bin string
	cfg string
	log string
	cmd *exec.Cmd
	n   int
	// extra command-line arguments (feature gates)
	args []string
}

func newScheduler(t *testing.T, bin, kubeconfig string) *scheduler {
	return newSchedulerWith(t, bin, kubeconfig, schedulerConfig)
}

// newSchedulerWith runs a scheduler with config (a format taking the
// kubeconfig's path).
func newSchedulerWith(t *testing.T, bin, kubeconfig, config string) *scheduler {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, config, kubeconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &scheduler{t: t, bin: bin, cfg: cfg, log: dir}
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			s.dumpLogs()
		}
	})
	return s
}

func (s *scheduler) start() {
	s.t.Helper()
	s.n++
	f, err := os.Create(filepath.Join(s.log, fmt.Sprintf("scheduler-%d.log", s.n)))
	if err != nil {
		s.t.Fatal(err)
	}
	s.cmd = exec.Command(s.bin, append([]string{"--config", s.cfg, "--secure-port=0", "--v=2"}, s.args...)...)
	s.cmd.Stdout, s.cmd.Stderr = f, f
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Logf("scheduler %d started (pid %d)", s.n, s.cmd.Process.Pid)
}

// kill sends SIGKILL: no graceful shutdown, nothing saved.
func (s *scheduler) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGKILL)
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

func (s *scheduler) dumpLogs() {
	for i := 1; i <= s.n; i++ {
		b, _ := os.ReadFile(filepath.Join(s.log, fmt.Sprintf("scheduler-%d.log", i)))
		lines := strings.Split(string(b), "\n")
		if len(lines) > 150 {
			lines = lines[len(lines)-150:]
		}
		s.t.Logf("--- scheduler %d log (tail) ---\n%s", i, strings.Join(lines, "\n"))
	}
}

func (s *scheduler) logContains(sub string) bool {
	b, _ := os.ReadFile(filepath.Join(s.log, fmt.Sprintf("scheduler-%d.log", s.n)))
	return bytes.Contains(b, []byte(sub))
}

// cluster helpers

type kube struct {
	t  *testing.T
	cs kubernetes.Interface
}

func (k kube) ctx() context.Context { return context.Background() }

func (k kube) addNode(name string, cores, gib, gpus int64) {
	k.t.Helper()
	k.addNodeL(name, nil, cores, gib, gpus)
}

// addNodeL adds a Ready node with extra labels.
func (k kube) addNodeL(name string, labels map[string]string, cores, gib, gpus int64) {
	k.t.Helper()
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "e2e": "true"}}}
	for key, v := range labels {
		n.Labels[key] = v
	}
	n, err := k.cs.CoreV1().Nodes().Create(k.ctx(), n, metav1.CreateOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	alloc := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewQuantity(cores, resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(gib<<30, resource.BinarySI),
		v1.ResourcePods:             *resource.NewQuantity(110, resource.DecimalSI),
		v1.ResourceName(gpuResName): *resource.NewQuantity(gpus, resource.DecimalSI),
	}
	n.Status = v1.NodeStatus{
		Capacity: alloc, Allocatable: alloc,
		Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "KubeletReady",
			LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}},
	}
	if _, err := k.cs.CoreV1().Nodes().UpdateStatus(k.ctx(), n, metav1.UpdateOptions{}); err != nil {
		k.t.Fatal(err)
	}
}

func (k kube) cordon(name string, on bool) {
	k.t.Helper()
	n, err := k.cs.CoreV1().Nodes().Get(k.ctx(), name, metav1.GetOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	n.Spec.Unschedulable = on
	if _, err := k.cs.CoreV1().Nodes().Update(k.ctx(), n, metav1.UpdateOptions{}); err != nil {
		k.t.Fatal(err)
	}
}

const gpuResName = "nvidia.com/gpu"

func podSpec(name, group string, minMember int, cores, gib, gpus int64) *v1.Pod {
	req := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(cores, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(gib<<30, resource.BinarySI),
	}
	lim := v1.ResourceList{}
	if gpus > 0 {
		req[gpuResName] = *resource.NewQuantity(gpus, resource.DecimalSI)
		lim[gpuResName] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{}},
		Spec: v1.PodSpec{
			SchedulerName: "gofluxion",
			Containers:    []v1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10", Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}},
		},
	}
	if group != "" {
		p.Labels["gofluxion.io/group"] = group
		p.Labels["gofluxion.io/min-member"] = fmt.Sprint(minMember)
	}
	return p
}

// createGang creates n pods of a gang (min-member n).
func (k kube) createGang(group string, n int, cores, gib, gpus int64) []string {
	k.t.Helper()
	return k.createGangWith(group, n, cores, gib, gpus, nil)
}

// createGangWith creates n pods of a gang, each changed by mutate.
func (k kube) createGangWith(group string, n int, cores, gib, gpus int64, mutate func(*v1.Pod)) []string {
	k.t.Helper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s-%d", group, i)
		p := podSpec(name, group, n, cores, gib, gpus)
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

func (k kube) deleteNodes(names ...string) {
	k.t.Helper()
	for _, n := range names {
		if err := k.cs.CoreV1().Nodes().Delete(k.ctx(), n, metav1.DeleteOptions{}); err != nil {
			k.t.Fatal(err)
		}
	}
}

func (k kube) deletePods(names []string) {
	k.t.Helper()
	zero := int64(0)
	for _, n := range names {
		if err := k.cs.CoreV1().Pods("default").Delete(k.ctx(), n, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			k.t.Fatal(err)
		}
	}
}

// placement returns pod → node ("" when not bound).
func (k kube) placement(names []string) map[string]string {
	k.t.Helper()
	out := map[string]string{}
	for _, n := range names {
		p, err := k.cs.CoreV1().Pods("default").Get(k.ctx(), n, metav1.GetOptions{})
		if err != nil {
			k.t.Fatal(err)
		}
		out[n] = p.Spec.NodeName
	}
	return out
}

func bound(pl map[string]string) int {
	c := 0
	for _, n := range pl {
		if n != "" {
			c++
		}
	}
	return c
}

// waitBound waits until every pod is bound and returns the placement.
func (k kube) waitBound(names []string, timeout time.Duration) map[string]string {
	k.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		pl := k.placement(names)
		if bound(pl) == len(names) {
			return pl
		}
		if time.Now().After(deadline) {
			k.t.Fatalf("after %v only %d of %d pods are bound: %v", timeout, bound(pl), len(names), pl)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitEvent waits for an event on one of the pods whose message contains
// sub (the members that were tried before the gang was complete say they
// wait for the others).
func (k kube) waitEvent(pods []string, sub string, timeout time.Duration) string {
	k.t.Helper()
	deadline := time.Now().Add(timeout)
	var last []string
	for time.Now().Before(deadline) {
		last = last[:0]
		for _, pod := range pods {
			evs, err := k.cs.CoreV1().Events("default").List(k.ctx(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + pod})
			if err != nil {
				k.t.Fatal(err)
			}
			for _, e := range evs.Items {
				last = append(last, pod+" "+e.Reason+": "+e.Message)
				if strings.Contains(e.Message, sub) {
					return pod + ": " + e.Message
				}
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	k.t.Fatalf("no event containing %q; events: %q", sub, last)
	return ""
}

// requireNoneBound checks for a while that no pod of a gang gets bound.
func (k kube) requireNoneBound(names []string, d time.Duration) {
	k.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if pl := k.placement(names); bound(pl) != 0 {
			k.t.Fatalf("gang partly or wrongly bound: %v", pl)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// checkCapacity checks that the bound pods of our scheduler never exceed
// a node's allocatable cpu and gpus (no double booking).
func (k kube) checkCapacity() {
	k.t.Helper()
	nodes, err := k.cs.CoreV1().Nodes().List(k.ctx(), metav1.ListOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	pods, err := k.cs.CoreV1().Pods("").List(k.ctx(), metav1.ListOptions{})
	if err != nil {
		k.t.Fatal(err)
	}
	for _, n := range nodes.Items {
		var cpu, gpu int64
		for _, p := range pods.Items {
			if p.Spec.NodeName != n.Name {
				continue
			}
			for _, c := range p.Spec.Containers {
				cpu += c.Resources.Requests.Cpu().MilliValue()
				q := c.Resources.Requests[gpuResName]
				gpu += q.Value()
			}
		}
		ac := n.Status.Allocatable.Cpu().MilliValue()
		ag := n.Status.Allocatable[gpuResName]
		if cpu > ac || gpu > ag.Value() {
			k.t.Errorf("node %s is overbooked: %dm cpu of %dm, %d gpu of %d", n.Name, cpu, ac, gpu, ag.Value())
		}
	}
}

func (s *scheduler) logMatches(re *regexp.Regexp) bool {
	b, _ := os.ReadFile(filepath.Join(s.log, fmt.Sprintf("scheduler-%d.log", s.n)))
	return re.Match(b)
}
