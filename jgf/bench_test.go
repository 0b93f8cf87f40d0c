package jgf_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
)

// Benchmark inputs, generated in code: the benchmark cluster of
// benchmarks/ (grug.Cluster, N nodes × C cores, containment only) written
// whole by gofluxion.WriteJGF, the output of `find status=up -F jgf` style
// (every vertex in index order, then every edge): 43.5 MB for 4096×64.
//
//	go test ./jgf -run '^$' -bench 'Read|Attach' -benchmem

var benchDocs struct {
	sync.Mutex
	m map[string][]byte
}

func clusterJGF(tb testing.TB, nodes, cores int) []byte {
	tb.Helper()
	key := fmt.Sprintf("%dx%d", nodes, cores)
	benchDocs.Lock()
	defer benchDocs.Unlock()
	if d, ok := benchDocs.m[key]; ok {
		return d
	}
	g, err := grug.Read(grug.Cluster("cluster", nodes, cores))
	if err != nil {
		tb.Fatal(err)
	}
	s, err := gofluxion.WriteJGF(g)
	if err != nil {
		tb.Fatal(err)
	}
	if benchDocs.m == nil {
		benchDocs.m = map[string][]byte{}
	}
	benchDocs.m[key] = []byte(s)
	return benchDocs.m[key]
}

// attachJGF returns a JGF document that attaches nodes new nodes of cores
// cores (node<first>, node<first+1>, …, ranks from first) under the
// /cluster0 root of a grug.Cluster graph: the cluster vertex (reused by its
// path), the new nodes and cores, and an edge to each.
func attachJGF(first, nodes, cores int) []byte {
	var b strings.Builder
	b.WriteString(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "cluster", "basename": "cluster", "id": 0, "rank": -1, "paths": {"containment": "/cluster0"}}}`)
	uniq := 1 << 30 // clear of the base graph's uniq_ids
	type edge struct{ s, t int }
	var edges []edge
	for n := first; n < first+nodes; n++ {
		nid := uniq
		uniq++
		fmt.Fprintf(&b, `, {"id": "%d", "metadata": {"type": "node", "id": %d, "rank": %d, "paths": {"containment": "/cluster0/node%d"}}}`, nid, n, n, n)
		edges = append(edges, edge{0, nid})
		for c := range cores {
			fmt.Fprintf(&b, `, {"id": "%d", "metadata": {"type": "core", "id": %d, "rank": %d, "paths": {"containment": "/cluster0/node%d/core%d"}}}`, uniq, c, n, n, c)
			edges = append(edges, edge{nid, uniq})
			uniq++
		}
	}
	b.WriteString(`], "edges": [`)
	for i, e := range edges {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"source": "%d", "target": "%d"}`, e.s, e.t)
	}
	b.WriteString("]}}\n")
	return []byte(b.String())
}

var benchSink any

func reportHeap(b *testing.B, before *runtime.MemStats) {
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "MiB-heap")
}

// BenchmarkRead is jgf.Read of the whole benchmark cluster, with the
// default (strict) options and with Options{Fluxion: true} (what
// resource-query reads with). MiB-heap is the heap the resulting graph
// keeps (after a GC).
func BenchmarkRead(b *testing.B) {
	for _, sz := range []struct {
		nodes, cores int
		opts         jgf.Options
		mode         string
	}{{1024, 32, jgf.Options{}, ""}, {4096, 64, jgf.Options{}, ""}, {4096, 64, jgf.Options{Fluxion: true}, "/fluxion"}} {
		b.Run(fmt.Sprintf("%dx%d%s", sz.nodes, sz.cores, sz.mode), func(b *testing.B) {
			data := clusterJGF(b, sz.nodes, sz.cores)
			benchSink = nil
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				benchSink = nil
				g, err := sz.opts.Read(data)
				if err != nil {
					b.Fatal(err)
				}
				benchSink = g
			}
			if g := benchSink.(*graph.Graph); g.NumVertices() != 1+sz.nodes*(1+sz.cores) {
				b.Fatalf("%d vertices", g.NumVertices())
			}
			reportHeap(b, &before)
			b.ReportMetric(float64(len(data))/1e6, "MB-jgf")
			benchSink = nil
		})
	}
}

// BenchmarkReadMatcher is jgf.Read + match.New (default options), what
// resource-query -f jgf does before its first command.
func BenchmarkReadMatcher(b *testing.B) {
	data := clusterJGF(b, 4096, 64)
	b.Run("4096x64", func(b *testing.B) {
		benchSink = nil
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			benchSink = nil
			g, err := jgf.Read(data)
			if err != nil {
				b.Fatal(err)
			}
			m, err := match.New(g, match.Options{})
			if err != nil {
				b.Fatal(err)
			}
			benchSink = m
		}
		reportHeap(b, &before)
		benchSink = nil
	})
}

// BenchmarkAttach attaches 1,024 nodes of 64 cores (66,561 JGF nodes, the
// cluster vertex reused) to a matcher on the 4096×64 cluster: jgf.Parse +
// match.Matcher.Attach (Load, then growing the matcher's state and
// recomputing its pruning filters), what gofluxion.Matcher.Attach does.
// Each iteration attaches to a fresh clone of the matcher, made outside the
// timer.
func BenchmarkAttach(b *testing.B) {
	g, err := grug.Read(grug.Cluster("cluster", 4096, 64))
	if err != nil {
		b.Fatal(err)
	}
	base, err := match.New(g, match.Options{})
	if err != nil {
		b.Fatal(err)
	}
	doc := attachJGF(4096, 1024, 64)
	b.Run("1024into4096x64", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			m := base.Clone()
			runtime.GC()
			b.StartTimer()
			d, err := jgf.Parse(doc)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Attach(d); err != nil {
				b.Fatal(err)
			}
			if i == 0 && m.Graph().NumVertices() != g.NumVertices()+1024*65 {
				b.Fatalf("%d vertices after attach", m.Graph().NumVertices())
			}
		}
		b.ReportMetric(float64(len(doc))/1e6, "MB-jgf")
	})
}
