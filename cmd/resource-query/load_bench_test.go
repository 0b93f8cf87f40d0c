package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/grug"
)

// Benchmarks of resource-query's start-up on a JGF file: the benchmark
// cluster (grug.Cluster, N nodes × C cores) written whole by
// gofluxion.WriteJGF, 43.5 MB for 4096×64.
//
//	go test ./cmd/resource-query -run '^$' -bench 'GraphLoad|Startup' -benchmem

// clusterJGFFile writes the JGF of the nodes×cores cluster to a file of
// the benchmark's temporary directory and returns its name.
func clusterJGFFile(b *testing.B, nodes, cores int) string {
	b.Helper()
	g, err := grug.Read(grug.Cluster("cluster", nodes, cores))
	if err != nil {
		b.Fatal(err)
	}
	s, err := gofluxion.WriteJGF(g)
	if err != nil {
		b.Fatal(err)
	}
	name := filepath.Join(b.TempDir(), fmt.Sprintf("cluster%dx%d.jgf", nodes, cores))
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		b.Fatal(err)
	}
	return name
}

var benchSink any

// BenchmarkGraphLoad measures exactly what resource-query prints as
// "INFO: Graph Load Time" for -f jgf: loadGraph of the file's bytes (the
// file already read). MiB-heap is what the graph keeps after a GC.
func BenchmarkGraphLoad(b *testing.B) {
	for _, sz := range []struct{ nodes, cores int }{{1024, 32}, {4096, 64}} {
		b.Run(fmt.Sprintf("jgf/%dx%d", sz.nodes, sz.cores), func(b *testing.B) {
			data, err := readFile(clusterJGFFile(b, sz.nodes, sz.cores))
			if err != nil {
				b.Fatal(err)
			}
			benchSink = nil
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				benchSink = nil
				g, err := loadGraph(gofluxion.FormatJGF, data, "", gofluxion.Limits{})
				if err != nil {
					b.Fatal(err)
				}
				benchSink = g
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(data) // in before, so in after too
			b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "MiB-heap")
			benchSink = nil
		})
	}
}

// BenchmarkStartup measures resource-query's whole start-up on a JGF file
// (`resource-query -L FILE -f jgf`): reading the file, loading the graph,
// creating the matcher and its writer, everything before the first
// command.
func BenchmarkStartup(b *testing.B) {
	b.Run("jgf/4096x64", func(b *testing.B) {
		file := clusterJGFFile(b, 4096, 64)
		o, code := parseArgs([]string{"-L", file, "-f", "jgf"}, io.Discard)
		if code >= 0 {
			b.Fatalf("parseArgs: %d", code)
		}
		benchSink = nil
		runtime.GC()
		b.ReportAllocs()
		for b.Loop() {
			benchSink = nil
			c := &cli{o: o, stdout: io.Discard, stderr: io.Discard}
			if err := c.startup(); err != nil {
				b.Fatal(err)
			}
			benchSink = c
		}
		benchSink = nil
	})
}
