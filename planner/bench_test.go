package planner

import (
	"math"
	"testing"
)

// BenchmarkAddRemSpan books and frees one span on a vertex-style planner
// that already holds 64 jobs at distinct times.
func BenchmarkAddRemSpan(b *testing.B) {
	p, _ := New(0, math.MaxInt64, 64)
	for i := range int64(64) {
		_, _ = p.AddSpan(i*100, 3600, 1)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		id, err := p.AddSpan(int64(i%64)*100+50, 3600, 1)
		if err != nil {
			b.Fatal(err)
		}
		if err := p.RemSpan(id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddRemSpanEmpty is the common case: a vertex planner with no
// other job.
func BenchmarkAddRemSpanEmpty(b *testing.B) {
	var p Planner
	_ = p.Init(0, math.MaxInt64, 1)
	b.ReportAllocs()
	for b.Loop() {
		id, _ := p.AddSpan(0, 3600, 1)
		_ = p.RemSpan(id)
	}
}

// BenchmarkAvailDuring queries a window covering 8 of 1000 points.
func BenchmarkAvailDuring(b *testing.B) {
	p, _ := New(0, math.MaxInt64, 1<<30)
	for i := range int64(500) {
		_, _ = p.AddSpan(i*100, 50, 1)
	}
	b.ReportAllocs()
	var sink int64
	for i := 0; b.Loop(); i++ {
		v, _ := p.AvailDuring(int64(i%490)*100+10, 400)
		sink += v
	}
	_ = sink
}

// BenchmarkAvailDuringSpanless is the pruning fast path.
func BenchmarkAvailDuringSpanless(b *testing.B) {
	var p Planner
	_ = p.Init(0, math.MaxInt64, 1)
	b.ReportAllocs()
	var sink int64
	for b.Loop() {
		v, _ := p.AvailDuring(0, 3600)
		sink += v
	}
	_ = sink
}

func BenchmarkMultiCheck(b *testing.B) {
	m, _ := NewMulti(0, math.MaxInt64, []int64{36, 1}, []int32{1, 4})
	for i := range int64(20) {
		_, _ = m.AddSpan(i*100, 50, []int64{1, 0})
	}
	counts := []int64{4, 0}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = m.Check(int64(i%20)*100, 3600, counts)
	}
}

// BenchmarkAvailTimeFirst searches 2000 points where only the last window
// fits.
func BenchmarkAvailTimeFirst(b *testing.B) {
	p, _ := New(0, math.MaxInt64, 4)
	for i := range int64(1000) {
		_, _ = p.AddSpan(i*10, 15, 2)
	}
	b.ReportAllocs()
	for b.Loop() {
		if t, err := p.AvailTimeFirst(0, 100, 3); err != nil || t != 10005 {
			b.Fatal(t, err)
		}
	}
}
