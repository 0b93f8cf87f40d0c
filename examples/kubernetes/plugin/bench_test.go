package plugin

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// BenchmarkGang64On1000Nodes is the scheduling latency of a 64-pod gang
// (8 cores, 1 gpu, 16 GiB each) on 1,000 nodes (32 cores, 4 gpus,
// 128 GiB each: 165,000 vertices), measured through the scheduler
// framework runtime: 64 scheduling cycles (PreFilter, Filter, Reserve,
// Permit; the first PreFilter matches the gang, the last Permit lets it
// go). One op is one whole gang; the gang is then unreserved (not timed).
// "busy" puts a pod of another scheduler using 28 of the 32 cores on every
// other node.
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
			h := newHarness(b, fakeCluster(nodes), "")
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
			var match time.Duration
			b.ResetTimer()
			for range b.N {
				for i, p := range pods {
					a := h.schedule(p, false)
					if !a.status.IsSuccess() {
						b.Fatalf("pod %d: %v", i, a.status)
					}
					if i == 0 {
						match += h.pl.c.Stats().LastMatch
					}
				}
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
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/gang")
			b.ReportMetric(float64(match.Microseconds())/1000/float64(b.N), "match-ms/gang")
		})
	}
}
