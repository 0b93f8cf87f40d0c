package grug

import (
	"fmt"
	"testing"
	"time"
)

func BenchmarkReadCluster(b *testing.B) {
	for _, sz := range []struct{ nodes, cores int }{{256, 32}, {1024, 32}, {4096, 64}} {
		b.Run(fmt.Sprintf("%dx%d", sz.nodes, sz.cores), func(b *testing.B) {
			data := Cluster("bench", sz.nodes, sz.cores)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(1+sz.nodes*(1+sz.cores)), "vertices")
		})
	}
}

// TestReadClusterSpeed loads the largest benchmark cluster once and logs the
// time (the target is well under 0.5 s for 266k vertices on an idle
// machine; wall-clock time is not asserted because tests may share a busy
// machine).
func TestReadClusterSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	data := Cluster("bench", 4096, 64)
	start := time.Now()
	g, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	d := time.Since(start)
	if g.NumVertices() != 1+4096*65 {
		t.Fatalf("%d vertices", g.NumVertices())
	}
	t.Logf("Cluster(4096x64): %d vertices in %v", g.NumVertices(), d)
}
