package benchmarks

import (
	"runtime"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/match"
)

// BenchmarkMemory reports the live heap per vertex (runtime.MemStats
// HeapAlloc after a GC, not RSS) of a generated cluster: the graph alone
// (graph-B/vertex), with a "first" matcher (matcher-B/vertex, graph
// included), and after the size's job count of 1-core jobs
// (jobs-B/vertex). 16384×64 runs with GOFLUXION_BENCH_HUGE=1.
func BenchmarkMemory(b *testing.B) {
	sizes := []Size{Size4096x64}
	if Huge() {
		sizes = append(sizes, Size16384x64)
	}
	for _, s := range sizes {
		b.Run(s.String(), func(b *testing.B) {
			data := grug.Cluster("cluster", s.Nodes, s.Cores)
			live := func() int64 {
				var ms runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&ms)
				return int64(ms.HeapAlloc)
			}
			for b.Loop() {
				base := live()
				g, err := grug.Read(data)
				if err != nil {
					b.Fatal(err)
				}
				gb := live() - base
				m, err := match.New(g, match.Options{Policy: "first"})
				if err != nil {
					b.Fatal(err)
				}
				mb := live() - base
				js, err := JobspecCore(g)
				if err != nil {
					b.Fatal(err)
				}
				for j := 1; j <= s.Jobs; j++ {
					if _, err := m.Match(match.Allocate, js, uint64(j), 0, emit.Discard); err != nil {
						b.Fatal(err)
					}
				}
				jb := live() - base
				n := float64(g.NumVertices())
				b.ReportMetric(float64(gb)/n, "graph-B/vertex")
				b.ReportMetric(float64(mb)/n, "matcher-B/vertex")
				b.ReportMetric(float64(jb)/n, "jobs-B/vertex")
				runtime.KeepAlive(m)
			}
		})
	}
}
