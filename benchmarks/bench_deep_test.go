package benchmarks

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// Deep queues (issue 22, item 1): the cost of one match when many jobs
// are live, most of them reservations stacked in layers.

// deepLive are the live-job counts of BenchmarkDeepQueue.
var deepLive = []int{1000, 8000, 64000, 100000}

// deepSizes are the clusters of BenchmarkDeepQueue: 256×32 (64,000 jobs
// are eight layers of reservations) and 4096×64 with
// GOFLUXION_BENCH_HUGE=1.
func deepSizes() []Size {
	s := []Size{{256, 32, 0}}
	if Huge() {
		s = append(s, Size{4096, 64, 0})
	}
	return s
}

// deepMatcher returns a matcher of g under policy holding live
// allocate_orelse_reserve jobs of js (ids 1…live).
func deepMatcher(b *testing.B, g *graph.Graph, policy string, js *jobspec.Jobspec, live int) *match.Matcher {
	b.Helper()
	m, err := match.New(g, match.Options{Policy: policy})
	if err != nil {
		b.Fatal(err)
	}
	for j := 1; j <= live; j++ {
		if _, err := m.Match(match.AllocateOrElseReserve, js, uint64(j), 0, emit.Discard); err != nil {
			b.Fatalf("job %d: %v", j, err)
		}
	}
	return m
}

// cpuTime returns the CPU time the process has used (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportLatency reports the median and p99 of lat as ns-p50 and ns-p99.
func reportLatency(b *testing.B, lat []time.Duration, unit string) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), unit+"-p50")
	b.ReportMetric(float64(lat[(len(lat)-1)*99/100].Nanoseconds()), unit+"-p99")
}

// BenchmarkDeepQueue/<size>/<policy>/<live> measures one
// allocate_orelse_reserve match of jobspec A (one core) on a matcher that
// holds live such jobs (1,000 to 100,000; on 256×32, 8,192 of them
// running and the rest reserved in layers of 8,192). One op is the match,
// rendered to a simple writer, and the cancel of the new job (so the
// number of live jobs stays the same); ns-match-p50/p99 are the median and
// p99 of the match alone, ns-cancel-p50 of the cancel, timed with time.Now
// around each; cpu-ns/op is the process's CPU time per op (steadier than
// wall time on a loaded machine, though it includes the collector's). Policies first, high, lonode and hinodex (whose one-core
// jobs each take a whole node: live jobs are then live/256 layers deep on
// 256×32).
func BenchmarkDeepQueue(b *testing.B) {
	for _, s := range deepSizes() {
		g := loadGraph(b, s)
		js, err := JobspecCore(g)
		if err != nil {
			b.Fatal(err)
		}
		for _, pol := range deepPolicies {
			for _, live := range deepLive {
				if pol == "hinodex" && live > 8000 {
					continue // 64,000 whole-node jobs: 250 layers on 256×32
				}
				b.Run(fmt.Sprintf("%v/%s/%d", s, pol, live), func(b *testing.B) {
					m := deepMatcher(b, g, pol, js, live)
					w := emit.NewSimple()
					id := uint64(live)
					mlat := make([]time.Duration, 0, 1<<16)
					clat := make([]time.Duration, 0, 1<<16)
					b.ReportAllocs()
					b.ResetTimer()
					cpu0 := cpuTime()
					for i := 0; i < b.N; i++ {
						id++
						t0 := time.Now()
						_, err := m.Match(match.AllocateOrElseReserve, js, id, 0, w)
						if err == nil {
							_, err = w.Render()
						}
						t1 := time.Now()
						if err != nil {
							b.Fatal(err)
						}
						if err := m.Cancel(id); err != nil {
							b.Fatal(err)
						}
						t2 := time.Now()
						if len(mlat) < cap(mlat) {
							mlat, clat = append(mlat, t1.Sub(t0)), append(clat, t2.Sub(t1))
						}
					}
					b.StopTimer()
					b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
					reportLatency(b, mlat, "ns-match")
					if len(clat) > 0 {
						slices.Sort(clat)
						b.ReportMetric(float64(clat[len(clat)/2].Nanoseconds()), "ns-cancel-p50")
					}
				})
			}
		}
	}
}

// BenchmarkBackfillReplan measures a conservative-backfill re-plan on
// 256×32 under first: 32,768 one-core allocate_orelse_reserve jobs (8,192
// running, 24,576 reserved in three layers); job 1 finishes early (it is
// cancelled), then every reservation, in id order, is cancelled and
// matched again (allocate_orelse_reserve, same id, at time 0), as a queue
// manager re-plans after an early finish. One op is the whole pass on a
// copy-on-write clone of the schedule (the clone is made outside the
// timer); ns/job is the pass per re-planned job (one cancel and one
// match), to compare with ns-fresh, a plain match + cancel at the same
// depth measured in the same run.
func BenchmarkBackfillReplan(b *testing.B) {
	for _, pol := range []string{"first", "high"} {
		b.Run("256x32/"+pol, func(b *testing.B) {
			const live, cores = 32768, 256 * 32
			g := loadGraph(b, Size{256, 32, 0})
			js, err := JobspecCore(g)
			if err != nil {
				b.Fatal(err)
			}
			base := deepMatcher(b, g, pol, js, live)
			if err := base.Cancel(1); err != nil {
				b.Fatal(err)
			}
			w := emit.NewSimple()
			// ns-fresh: a new job matched and cancelled at this depth.
			fresh := make([]time.Duration, 0, 2000)
			for i := range 2000 {
				t0 := time.Now()
				if _, err := base.Match(match.AllocateOrElseReserve, js, uint64(live+1+i), 0, w); err != nil {
					b.Fatal(err)
				}
				w.Render()
				if err := base.Cancel(uint64(live + 1 + i)); err != nil {
					b.Fatal(err)
				}
				fresh = append(fresh, time.Since(t0))
			}
			slices.Sort(fresh)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := time.Duration(0)
			var moved int
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m := base.Clone()
				b.StartTimer()
				cpu0 := cpuTime()
				moved = 0
				for id := uint64(cores + 1); id <= live; id++ {
					if err := m.Cancel(id); err != nil {
						b.Fatal(err)
					}
					at, err := m.Match(match.AllocateOrElseReserve, js, id, 0, w)
					if err != nil {
						b.Fatal(err)
					}
					w.Render()
					if at == 0 {
						moved++
					}
				}
				cpu += cpuTime() - cpu0
			}
			b.StopTimer()
			if moved != 1 {
				b.Fatalf("%d reservations moved to now, want 1 (the core job 1 freed)", moved)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(live-cores)), "ns/job")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*(live-cores)), "cpu-ns/job")
			b.ReportMetric(float64(fresh[len(fresh)/2].Nanoseconds()), "ns-fresh")
		})
	}
}
