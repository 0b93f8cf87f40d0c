// Package throughput compares the real kube-scheduler
// (k8s.io/kubernetes/pkg/scheduler, in process, fake clientset and
// informers) with its default profile and with a GoFluxion profile, on the
// same fake nodes:
//
//	(a) 5,000 single pods on 5,000 nodes: pods/s
//	(b) a 256-pod gang on 5,000 nodes: latency
//	(c) a rack-required 64-pod gang on 5,000 nodes in 100 racks: latency
//
// Each case builds a fresh cluster holding the pending pods, waits until
// the scheduler's informers have delivered them (and the nodes) to its
// handlers, as the kube-scheduler does before it schedules, then starts
// the scheduler and measures from then until the last pod's binding is
// written (as scheduler_perf measures the pods it creates before it
// starts): every scheduling cycle, the gang's Permit, every binding cycle
// (PreBind included). Besides the wall time it reports the process's CPU
// time over the same window, which depends less on the machine's load.
//
// A third profile, floor, replaces GoFluxion by a trivial gang plugin
// (floor_test.go: each pod pinned to a node it carries, Permit until the
// gang is complete): what the framework itself costs per gang.
//
// Nodes are scheduler_perf's default node (4 cores, 32 GiB, 110 pods) and
// pods its default pod (100m cpu, 500Mi); GOFLUXION_BENCH_NODES (at least
// 300) scales the cluster down, with case (a)'s pods and one rack per 50
// nodes, for a quick run.
package throughput

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

const rackLabel = "topology.gofluxion.io/rack"

// profiles: the stock default profile, and GoFluxion as deployed.
var profiles = map[string]string{
	"default": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
`,
	"gofluxion": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
profiles:
  - schedulerName: gofluxion
    plugins:
      multiPoint:
        enabled:
          - name: GoFluxion
      postFilter:
        disabled:
          - name: DefaultPreemption
    pluginConfig:
      - name: GoFluxion
        args:
          policy: lonode
          numa: none
          topology:
            levels:
              - {type: rack, label: topology.gofluxion.io/rack}
`,
	// a trivial gang plugin in GoFluxion's place (see floor_test.go)
	"floor": `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
profiles:
  - schedulerName: floor
    plugins:
      multiPoint:
        enabled:
          - name: Floor
      postFilter:
        disabled:
          - name: DefaultPreemption
`,
}

// profileOrder is the order of the runs and of the table's rows.
var profileOrder = []string{"default", "gofluxion", "floor"}

func nodeName(i int) string { return fmt.Sprintf("node-%05d", i) }

func benchNodes() int {
	if s := os.Getenv("GOFLUXION_BENCH_NODES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 300 {
			return n
		}
	}
	return 5000
}

func makeNode(i, racks, n int) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	name := nodeName(i)
	labels := map[string]string{"kubernetes.io/hostname": name}
	if racks > 0 {
		labels[rackLabel] = fmt.Sprintf("rack-%03d", i*racks/n)
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels},
		Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
}

func makePod(name, sched string) *v1.Pod {
	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("500Mi")}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: sched,
			Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: v1.ResourceRequirements{Requests: req}}}},
	}
}

// env is one scheduler over a fresh fake cluster.
type env struct {
	cs     *fake.Clientset
	bound  atomic.Int64
	done   chan struct{}
	want   atomic.Int64
	cancel context.CancelFunc
	ctx    context.Context
	sched  *scheduler.Scheduler
	wg     sync.WaitGroup
	heap   uint64 // live heap once the scheduler is up, bytes
}

// newEnv makes a fake cluster of n nodes (in racks, when racks > 0)
// holding the pending pods, and a scheduler with a profile over it, ready
// to run. Bindings are counted, not written back: the scheduler keeps a
// bound pod in its cache as assumed, so its accounting is the same, and
// the fake clientset's watch (a few ms an event on this machine) stays
// out of the measure. The plugin's PreBind patches still go through it.
func newEnv(b *testing.B, prof string, n, racks int, pods []*v1.Pod) *env {
	b.Helper()
	var objs []apiruntime.Object
	for i := range n {
		objs = append(objs, makeNode(i, racks, n))
	}
	for _, p := range pods {
		objs = append(objs, p)
	}
	e := &env{cs: fake.NewClientset(objs...), done: make(chan struct{}, 1)}
	e.want.Store(int64(len(pods)))
	e.cs.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, apiruntime.Object, error) {
		ca, ok := a.(clienttesting.CreateAction)
		if !ok || a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		if e.bound.Add(1) == e.want.Load() {
			e.done <- struct{}{}
		}
		return true, ca.GetObject(), nil
	})
	// the plugin's PreBind patch: answered at once (the fake clientset's
	// field-managed patch costs more than the scheduling)
	e.cs.PrependReactor("patch", "pods", func(a clienttesting.Action) (bool, apiruntime.Object, error) {
		pa := a.(clienttesting.PatchAction)
		return true, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pa.GetName(), Namespace: pa.GetNamespace()}}, nil
	})
	cfgFile := filepath.Join(b.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgFile, []byte(profiles[prof]), 0o644); err != nil {
		b.Fatal(err)
	}
	logger := klog.Background()
	if os.Getenv("GOFLUXION_BENCH_V") == "" {
		logger = logger.V(10) // quiet
	}
	cfg, err := options.LoadConfigFromFile(logger, cfgFile)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	e.cancel = cancel
	inf := informers.NewSharedInformerFactory(e.cs, 0)
	rec := profile.RecorderFactory(func(string) events.EventRecorderLogger { return &events.FakeRecorder{} })
	s, err := scheduler.New(ctx, e.cs, inf, nil, rec,
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithPodInitialBackoffSeconds(1), scheduler.WithPodMaxBackoffSeconds(1),
		scheduler.WithFrameworkOutOfTreeRegistry(frameworkruntime.Registry{plugin.Name: plugin.New, floorName: newFloor}))
	if err != nil {
		b.Fatal(err)
	}
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	// as the kube-scheduler does before it runs: every informer event of
	// the initial listing delivered to the scheduler's handlers
	if err := s.WaitForHandlersSync(ctx); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	e.heap = ms.HeapAlloc
	e.sched, e.ctx = s, ctx
	return e
}

func (e *env) stop() {
	e.cancel()
	e.wg.Wait()
}

// run starts the scheduler and returns the time until every pod is bound,
// and the CPU time the process spent meanwhile (all goroutines: the
// scheduler, the plugin, the fake clientset, the garbage collector).
// The CPU time depends less on what else the machine runs.
func (e *env) run(b *testing.B, timeout time.Duration) (wall, cpu time.Duration) {
	b.Helper()
	stopProfile := e.profile(b)
	cpu0 := cpuTime()
	start := time.Now()
	e.wg.Add(1)
	go func() { defer e.wg.Done(); e.sched.Run(e.ctx) }()
	select {
	case <-e.done:
	case <-time.After(timeout):
		b.Fatalf("after %v only %d of %d pods are bound", timeout, e.bound.Load(), e.want.Load())
	}
	wall, cpu = time.Since(start), cpuTime()-cpu0
	stopProfile()
	return wall, cpu
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profile starts a CPU profile of the measured window only (not the
// cluster's set-up) when GOFLUXION_BENCH_CPUPROFILE names a directory:
// one file per benchmark, named after it.
func (e *env) profile(b *testing.B) func() {
	dir := os.Getenv("GOFLUXION_BENCH_CPUPROFILE")
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, strings.NewReplacer("/", "_").Replace(b.Name())+".pprof"))
	if err != nil {
		b.Fatal(err)
	}
	if os.Getenv("GOFLUXION_BENCH_TRACE") != "" {
		if err := trace.Start(f); err != nil {
			b.Fatal(err)
		}
		return func() { trace.Stop(); f.Close() }
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}

type row struct {
	podsPerSec           float64
	gangMS, rackMS       float64
	gangCPUMS, rackCPUMS float64
	heapMiB              float64
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkThroughput prints one table, default vs gofluxion. Run it with
// -benchtime 1x (each case builds its own cluster).
func BenchmarkThroughput(b *testing.B) {
	n := benchNodes()
	rows := map[string]*row{}
	for _, prof := range profileOrder {
		sched := "default-scheduler"
		if prof != "default" {
			sched = prof
		}
		// the floor profile's pods carry their node: pod i → node i
		pin := func(p *v1.Pod, node int) {
			if prof == "floor" {
				p.Labels[floorNode] = nodeName(node)
			}
		}
		r := &row{}
		rows[prof] = r
		b.Run(prof+"/a-singles", func(b *testing.B) {
			for range b.N {
				var pods []*v1.Pod
				for i := range n {
					p := makePod(fmt.Sprintf("p-%05d", i), sched)
					pin(p, i)
					pods = append(pods, p)
				}
				e := newEnv(b, prof, n, 0, pods)
				d, _ := e.run(b, runTimeout(2*time.Hour))
				r.podsPerSec = float64(n) / d.Seconds()
				r.heapMiB = float64(e.heap) / (1 << 20)
				e.stop()
			}
			b.ReportMetric(r.podsPerSec, "pods/s")
			b.ReportMetric(r.heapMiB, "heap-MiB")
		})
		b.Run(prof+"/b-gang256", func(b *testing.B) {
			for range b.N {
				var pods []*v1.Pod
				for i := range 256 {
					p := makePod(fmt.Sprintf("g-%03d", i), sched)
					p.Labels[plugin.DefaultGroupLabel] = "g"
					p.Labels[plugin.DefaultMinMemberKey] = "256"
					pin(p, i)
					pods = append(pods, p)
				}
				e := newEnv(b, prof, n, 0, pods)
				wall, cpu := e.run(b, runTimeout(30*time.Minute))
				r.gangMS, r.gangCPUMS = ms(wall), ms(cpu)
				e.stop()
			}
			b.ReportMetric(r.gangMS, "ms/gang")
			b.ReportMetric(r.gangCPUMS, "cpu-ms/gang")
		})
		b.Run(prof+"/c-rack64", func(b *testing.B) {
			for range b.N {
				var pods []*v1.Pod
				for i := range 64 {
					p := makePod(fmt.Sprintf("r-%02d", i), sched)
					p.Labels[plugin.DefaultGroupLabel] = "r"
					p.Labels[plugin.DefaultMinMemberKey] = "64"
					pin(p, i%50) // rack 0
					switch prof {
					case "gofluxion":
						p.Labels[plugin.KeyRequired] = "rack"
						p.Labels[plugin.KeyPodsPerNode] = "any"
					case "default":
						// the default scheduler's way: required pod affinity
						// to the gang on the rack label
						p.Spec.Affinity = &v1.Affinity{PodAffinity: &v1.PodAffinity{
							RequiredDuringSchedulingIgnoredDuringExecution: []v1.PodAffinityTerm{{
								TopologyKey:   rackLabel,
								LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{plugin.DefaultGroupLabel: "r"}},
							}},
						}}
					}
					pods = append(pods, p)
				}
				e := newEnv(b, prof, n, max(n/50, 1), pods)
				wall, cpu := e.run(b, runTimeout(30*time.Minute))
				r.rackMS, r.rackCPUMS = ms(wall), ms(cpu)
				e.stop()
			}
			b.ReportMetric(r.rackMS, "ms/gang")
			b.ReportMetric(r.rackCPUMS, "cpu-ms/gang")
		})
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nBenchmarkThroughput: %d nodes (4 cores, 32 GiB), pods of 100m cpu and 500Mi, GOMAXPROCS=%d\n", n, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&sb, "| profile | (a) %d single pods, pods/s | (b) 256-pod gang, ms (CPU ms) | (c) rack-required 64-pod gang (%d racks), ms (CPU ms) | live heap after start-up, MiB |\n", n, max(n/50, 1))
	fmt.Fprintf(&sb, "|---|---:|---:|---:|---:|\n")
	for _, prof := range profileOrder {
		r := rows[prof]
		fmt.Fprintf(&sb, "| %s | %.0f | %.0f (%.0f) | %.0f (%.0f) | %.0f |\n", prof, r.podsPerSec, r.gangMS, r.gangCPUMS, r.rackMS, r.rackCPUMS, r.heapMiB)
	}
	fmt.Print(sb.String())
}

// runTimeout is d, or GOFLUXION_BENCH_TIMEOUT when set (a Go duration).
func runTimeout(d time.Duration) time.Duration {
	if t, err := time.ParseDuration(os.Getenv("GOFLUXION_BENCH_TIMEOUT")); err == nil {
		return t
	}
	return d
}
