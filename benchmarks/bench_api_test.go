package benchmarks

import (
	"bytes"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/match"
)

// apiMatcher loads a cluster into a gofluxion.Matcher and allocates jobs
// single-core jobs on it, so copies carry a realistic schedule.
func apiMatcher(b *testing.B, s Size, jobs int) *gofluxion.Matcher {
	b.Helper()
	g, err := Load(s)
	if err != nil {
		b.Fatal(err)
	}
	x, err := gofluxion.New(g, gofluxion.Options{})
	if err != nil {
		b.Fatal(err)
	}
	js, err := x.ParseJobspec([]byte(JobspecCoreYAML))
	if err != nil {
		b.Fatal(err)
	}
	for range jobs {
		if _, err := x.Match(gofluxion.Allocate, js, 0); err != nil {
			b.Fatal(err)
		}
	}
	return x
}

// BenchmarkClone measures Matcher.Clone (graph, schedule and job table) at
// 4096×64 with 8192 jobs allocated.
func BenchmarkClone(b *testing.B) {
	x := apiMatcher(b, Size{Nodes: 4096, Cores: 64}, 8192)
	b.ReportAllocs()
	for b.Loop() {
		_ = x.Clone()
	}
}

// BenchmarkCloneMatch measures a Clone of the same state followed by one
// single-core match on the clone: the clone's first writes copy the
// chunks they touch (Clone is copy-on-write).
func BenchmarkCloneMatch(b *testing.B) {
	x := apiMatcher(b, Size{Nodes: 4096, Cores: 64}, 8192)
	js, err := x.ParseJobspec([]byte(JobspecCoreYAML))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		c := x.Clone()
		if _, err := c.Match(gofluxion.Allocate, js, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatcherClone measures match.Matcher.Clone (no job table) of
// 4096×64 with 8192 jobs allocated.
func BenchmarkMatcherClone(b *testing.B) {
	g := loadGraph(b, Size4096x64).Clone()
	m, err := match.New(g, match.Options{})
	if err != nil {
		b.Fatal(err)
	}
	js, err := JobspecCore(g)
	if err != nil {
		b.Fatal(err)
	}
	for j := uint64(1); j <= 8192; j++ {
		if _, err := m.Match(match.Allocate, js, j, 0, emit.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		sink = m.Clone()
	}
}

// BenchmarkSnapshot measures writing a snapshot of the same state and
// reports its size; BenchmarkRestore reads it back.
func BenchmarkSnapshot(b *testing.B) {
	x := apiMatcher(b, Size{Nodes: 4096, Cores: 64}, 8192)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := x.Snapshot(&buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/(1<<20), "MiB")
}

func BenchmarkRestore(b *testing.B) {
	x := apiMatcher(b, Size{Nodes: 4096, Cores: 64}, 8192)
	var buf bytes.Buffer
	if err := x.Snapshot(&buf); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gofluxion.Restore(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCancel: cancel of a 1-core job (jobspec A) on a cluster whose
// other jobs stay allocated; each iteration allocates the job outside the
// timer and cancels it. Cancel visits only the job's vertices.
func BenchmarkCancel(b *testing.B) {
	sizes := []Size{Size4096x64}
	if Huge() {
		sizes = append(sizes, Size16384x64)
	}
	for _, s := range sizes {
		b.Run(s.String(), func(b *testing.B) {
			g := loadGraph(b, s)
			js, err := JobspecCore(g)
			if err != nil {
				b.Fatal(err)
			}
			m, err := match.New(g, match.Options{Policy: "first"})
			if err != nil {
				b.Fatal(err)
			}
			w := emit.Discard
			for j := uint64(1); j <= 64; j++ { // a partly busy cluster
				if _, err := m.Match(match.Allocate, js, j, 0, w); err != nil {
					b.Fatal(err)
				}
			}
			// A first cancel builds the per-graph caches (dominant
			// degrees) outside the timer.
			if err := m.Cancel(64); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				job := uint64(1000 + i)
				if _, err := m.Match(match.Allocate, js, job, 0, w); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := m.Cancel(job); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
