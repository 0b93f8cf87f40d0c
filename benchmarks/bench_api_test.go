package benchmarks

import (
	"bytes"
	"testing"

	"github.com/gofluxion/gofluxion"
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
