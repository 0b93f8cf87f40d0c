package benchmarks

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// sink keeps benchmark results alive.
var sink any

// graphs caches the loaded graphs: a matcher keeps all its state, so
// successive matchers on one *graph.Graph start from a free cluster.
var graphs struct {
	sync.Mutex
	m map[Size]*graph.Graph
}

func loadGraph(b *testing.B, s Size) *graph.Graph {
	b.Helper()
	graphs.Lock()
	defer graphs.Unlock()
	if g := graphs.m[s]; g != nil {
		return g
	}
	g, err := Load(s)
	if err != nil {
		b.Fatal(err)
	}
	if g.NumVertices() != s.Vertices() {
		b.Fatalf("%v: %d vertices, want %d", s, g.NumVertices(), s.Vertices())
	}
	if graphs.m == nil {
		graphs.m = map[Size]*graph.Graph{}
	}
	graphs.m[s] = g
	return g
}

const mib = 1 << 20

// BenchmarkLoad measures grug.Read + match.New (default options) of the
// generated cluster. MiB-heap is the growth of the in-use heap (after a
// GC) caused by the last loaded graph and matcher.
func BenchmarkLoad(b *testing.B) {
	for _, s := range Sizes() {
		b.Run(s.String(), func(b *testing.B) {
			data := grug.Cluster("cluster", s.Nodes, s.Cores)
			sink = nil
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink = nil
				g, err := grug.Read(data)
				if err != nil {
					b.Fatal(err)
				}
				m, err := match.New(g, match.Options{})
				if err != nil {
					b.Fatal(err)
				}
				sink = m
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			if g := sink.(*match.Matcher).Graph(); g.NumVertices() != s.Vertices() {
				b.Fatalf("%d vertices, want %d", g.NumVertices(), s.Vertices())
			}
			sink = nil
			b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/mib, "MiB-heap")
		})
	}
}

// matchSizes returns the sizes BenchmarkMatch runs a policy on: high and
// low visit the whole graph on every match, so 4096×64 and larger only run
// them with GOFLUXION_BENCH_HUGE=1.
func matchSizes(policy string) []Size {
	if policy == "first" || Huge() {
		return Sizes()
	}
	return []Size{Size256x32, Size1024x32}
}

// benchStream times one match allocate per b.N iteration. The stream
// restarts on a fresh matcher (outside the timer) after jobs matches, which
// must not exceed the cluster's capacity: every timed match must succeed.
// With discard, the matches write to emit.Discard (no rendering at all).
func benchStream(b *testing.B, g *graph.Graph, policy string, js *jobspec.Jobspec, jobs int, discard bool) {
	b.Helper()
	opts := match.Options{Policy: policy}
	w := emit.NewSimple()
	m, err := match.New(g, opts)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n == jobs {
			b.StopTimer()
			m = nil
			if m, err = match.New(g, opts); err != nil {
				b.Fatal(err)
			}
			n = 0
			b.StartTimer()
		}
		n++
		if discard {
			_, err = m.Match(match.Allocate, js, uint64(n), 0, emit.Discard)
		} else {
			err = Allocate(m, js, uint64(n), w)
		}
		if err != nil {
			b.Fatalf("%s: job %d of the stream (iteration %d): %v", policy, n, i, err)
		}
	}
}

// BenchmarkMatch: jobspec A (one core), one match allocate per iteration.
func BenchmarkMatch(b *testing.B) {
	for _, pol := range policies {
		b.Run(pol, func(b *testing.B) {
			for _, s := range matchSizes(pol) {
				b.Run(s.String(), func(b *testing.B) {
					g := loadGraph(b, s)
					js, err := JobspecCore(g)
					if err != nil {
						b.Fatal(err)
					}
					benchStream(b, g, pol, js, min(s.Jobs, s.Nodes*s.Cores), false)
				})
			}
		})
	}
}

// BenchmarkMatchNodeExclusive: jobspec B (one whole node) on 1024×32, one
// match allocate per iteration; 1024 jobs fill the cluster.
func BenchmarkMatchNodeExclusive(b *testing.B) {
	s := Size1024x32
	for _, pol := range policies {
		b.Run(pol+"/"+s.String(), func(b *testing.B) {
			g := loadGraph(b, s)
			js, err := JobspecNodeExclusive(g, s.Cores)
			if err != nil {
				b.Fatal(err)
			}
			benchStream(b, g, pol, js, s.Nodes, false)
		})
	}
}

// BenchmarkMatchEarlyLate runs one whole stream per iteration and reports
// the median latency of the first and of the last 10% of its matches (over
// all iterations): jobspec A with first on 1024×32 (8192 jobs), and high
// and low on 256×32 (4096 jobs), whose BenchmarkMatch figures at the
// default benchtime only cover the beginning of a stream; and, with /x,
// whole-node streams (jobspec B) on 4096×64 that fill the cluster: the
// last matches pass over the nodes already taken.
func BenchmarkMatchEarlyLate(b *testing.B) {
	for _, c := range []struct {
		policy string
		size   Size
		excl   bool
	}{{"first", Size1024x32, false}, {"high", Size256x32, false}, {"low", Size256x32, false},
		{"high", Size4096x64, true}, {"lonode", Size4096x64, true}, {"hinodex", Size4096x64, true}} {
		name := c.policy + "/" + c.size.String()
		if c.excl {
			name += "/x"
		}
		b.Run(name, func(b *testing.B) {
			benchEarlyLate(b, c.policy, c.size, c.excl)
		})
	}
}

func benchEarlyLate(b *testing.B, policy string, s Size, excl bool) {
	g := loadGraph(b, s)
	js, err := JobspecCore(g)
	jobs := min(s.Jobs, s.Nodes*s.Cores)
	if excl {
		js, err = JobspecNodeExclusive(g, s.Cores)
		jobs = s.Nodes
	}
	if err != nil {
		b.Fatal(err)
	}
	tenth := jobs / 10
	var early, late []time.Duration
	lat := make([]time.Duration, 0, jobs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m, err := match.New(g, match.Options{Policy: policy})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		lat, err = StreamOn(m, js, jobs, lat[:0])
		if err != nil {
			b.Fatalf("after %d matches: %v", len(lat), err)
		}
		early = append(early, lat[:tenth]...)
		late = append(late, lat[len(lat)-tenth:]...)
	}
	b.StopTimer()
	b.ReportMetric(float64(median(early).Nanoseconds()), "ns-first10%")
	b.ReportMetric(float64(median(late).Nanoseconds()), "ns-last10%")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}
