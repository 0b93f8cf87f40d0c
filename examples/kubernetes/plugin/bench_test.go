package plugin

import (
	"fmt"
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// BenchmarkGang64On1000Nodes is the scheduling latency of a 64-pod gang
// (8 cores, 1 gpu, 16 GiB each) on 1,000 nodes (32 cores, 4 gpus,
// 128 GiB each: 167,000 vertices), through the scheduler framework
// runtime. One op is one whole gang, from the first pod's PreFilter to the
// last pod's PreBind: 64 scheduling cycles (PreFilter, Filter on the
// pinned node, Reserve, Permit; the first PreFilter matches the gang, the
// last Permit lets it go), then the 64 pods' PreBind (job id and R
// rendered, the patch answered at once by the fake clientset), one after
// the other (the scheduler runs them in parallel goroutines). The gang is
// then unreserved (not timed). "busy" puts a pod of another scheduler
// using 28 of the 32 cores on every other node.
//
// Metrics: ms/gang (all of it), sched-ms/gang (the scheduling cycles up to
// the Permit that releases the gang), match-ms/gang (the Fluxion match in
// the first PreFilter), cpu-ms/gang (the process's CPU time over the timed
// part, less sensitive to the machine's load than the wall time).
func BenchmarkGang64On1000Nodes(b *testing.B) {
	for _, busy := range []bool{false, true} {
		name := "empty"
		if busy {
			name = "busy"
		}
		b.Run(name, func(b *testing.B) {
			var nodes []*v1.Node
			for i := range 1000 {
				nodes = append(nodes, node(fmt.Sprintf("node-%04d", i), 32, 128, 4))
			}
			cs := fakeCluster(nodes)
			// PreBind's patch: answered at once (the fake clientset's
			// field-managed patch is not the plugin's cost)
			cs.PrependReactor("patch", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				pa := a.(clienttesting.PatchAction)
				return true, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: pa.GetName(), Namespace: pa.GetNamespace()}}, nil
			})
			h := newHarness(b, cs, "")
			if busy {
				for i := 0; i < 1000; i += 2 {
					o := pod(fmt.Sprintf("other-%04d", i), "", 0, 28000, 4096, 0)
					o.Spec.SchedulerName = "default-scheduler"
					o.Spec.NodeName = nodes[i].Name
					h.create(o)
				}
				for h.pl.c.Stats().Foreign != 500 {
					time.Sleep(time.Millisecond)
				}
			}
			pods := h.create(gangPods("bench", 64, 8000, 16384, 1)...)
			var match, sched, cpu time.Duration
			// The setup (the fake clientset's 1,000 nodes above all) leaves
			// hundreds of MiB of garbage: collect it now, not while timing.
			goruntime.GC()
			b.ResetTimer()
			for range b.N {
				cpu0, start := cpuTime(), time.Now()
				atts := make([]attempt, len(pods))
				for i, p := range pods {
					atts[i] = h.schedule(p, false)
					if !atts[i].status.IsSuccess() {
						b.Fatalf("pod %d: %v", i, atts[i].status)
					}
				}
				sched += time.Since(start)
				for i, p := range pods {
					if st := h.fw.RunPreBindPlugins(h.ctx, framework.NewCycleState(), p, atts[i].node); !st.IsSuccess() {
						b.Fatalf("pod %d: PreBind: %v", i, st)
					}
				}
				cpu += cpuTime() - cpu0
				match += h.pl.c.lastMatchTook()
				b.StopTimer()
				for _, p := range pods {
					if wp := h.fw.GetWaitingPod(p.UID); wp != nil {
						wp.Reject(Name, "benchmark reset")
					}
					h.fw.RunReservePluginsUnreserve(h.ctx, framework.NewCycleState(), p, "")
				}
				if h.pl.c.Stats().OurPods != 0 {
					b.Fatal("reset left pods")
				}
				b.StartTimer()
			}
			perGang := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
			b.ReportMetric(perGang(b.Elapsed()), "ms/gang")
			b.ReportMetric(perGang(sched), "sched-ms/gang")
			b.ReportMetric(perGang(match), "match-ms/gang")
			b.ReportMetric(perGang(cpu), "cpu-ms/gang")
		})
	}
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
