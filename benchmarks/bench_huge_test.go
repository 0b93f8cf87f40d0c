package benchmarks

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// Cluster size (issue 22, item 2): the generated 16,384 and 65,536 ×
// 64-core clusters and a 12,500-node AI cluster, opt-in with
// GOFLUXION_BENCH_HUGE=1 (65,536×64 takes about 1.5 GiB).

// AICluster builds the AI cluster of issue 22: zones → blocks → NVLink
// racks of 18 nodes → node → 2 sockets, each with 48 cores, 4 gpus and 4
// memory pools of 128 GB (8 gpus and 8 memories a node); nodes nodes in
// all, filled rack by rack (the last rack may be partial), racksPerBlock
// racks a block and blocksPerZone blocks a zone. Vertices are created
// level by level, as the GRUG reader creates them.
func AICluster(nodes, racksPerBlock, blocksPerZone int) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("ai"))
	nracks := (nodes + 17) / 18
	nblocks := (nracks + racksPerBlock - 1) / racksPerBlock
	nzones := (nblocks + blocksPerZone - 1) / blocksPerZone
	var zones, blocks, racks, ns, sockets []graph.VertexID
	for z := range nzones {
		zones = append(zones, b.MustAdd(c, "zone", int64(z)))
	}
	for k := range nblocks {
		blocks = append(blocks, b.MustAdd(zones[k/blocksPerZone], "block", int64(k)))
	}
	for r := range nracks {
		racks = append(racks, b.MustAdd(blocks[r/racksPerBlock], "rack", int64(r)))
	}
	for n := range nodes {
		ns = append(ns, b.MustAdd(racks[n/18], "node", int64(n)))
	}
	for _, n := range ns {
		for i := range 2 {
			sockets = append(sockets, b.MustAdd(n, "socket", int64(i)))
		}
	}
	for j, s := range sockets {
		for i := range 48 {
			b.MustAdd(s, "core", int64((j%2)*48+i))
		}
	}
	for j, s := range sockets {
		for i := range 4 {
			b.MustAdd(s, "gpu", int64((j%2)*4+i))
		}
	}
	for j, s := range sockets {
		for i := range 4 {
			b.MustAdd(s, "memory", int64((j%2)*4+i), graph.WithSize(128), graph.WithUnit("GB"))
		}
	}
	return b.Graph()
}

// aiGPUNodeYAML asks for n nodes of 8 gpus each (exclusive nodes), as
// two sockets of 4 gpus: a slot of gpu[8] directly under the node finds
// no match (the gpus sit 4 under each socket).
func aiGPUNodeYAML(n int) string {
	return fmt.Sprintf(`version: 1
resources:
  - type: node
    count: %d
    exclusive: true
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: socket
            count: 2
            with:
              - type: gpu
                count: 4
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`, n)
}

// aiRackGangYAML asks for racks whole NVLink racks of 18 nodes of 8 gpus
// each (a gang placed rack by rack).
func aiRackGangYAML(racks int) string {
	return fmt.Sprintf(`version: 1
resources:
  - type: rack
    count: %d
    with:
      - type: node
        count: 18
        exclusive: true
        with:
          - type: slot
            count: 1
            label: default
            with:
              - type: socket
                count: 2
                with:
                  - type: gpu
                    count: 4
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`, racks)
}

// heapInUse returns the in-use heap after a collection.
func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// matchCost reports the median and p99 wall time of n matches of js on m
// (each cancelled after it, so the state stays the same), the CPU time of
// a match and its cancel, and the median wall time of a cancel, under
// metric names prefix-ns-p50/p99, prefix-cpu-ns and prefix-cancel-ns-p50.
// One match and cancel before them are not counted (the first match on
// a matcher allocates its per-graph buffers).
func matchCost(b *testing.B, m *match.Matcher, js *jobspec.Jobspec, first uint64, n int, prefix string) {
	b.Helper()
	if _, err := m.Match(match.Allocate, js, first, 0, emit.Discard); err != nil {
		b.Fatalf("%s: job %d: %v", prefix, first, err)
	}
	if err := m.Cancel(first); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, n)
	clat := make([]time.Duration, 0, n)
	cpu0 := cpuTime()
	for i := range n {
		id := first + 1 + uint64(i)
		t0 := time.Now()
		if _, err := m.Match(match.Allocate, js, id, 0, emit.Discard); err != nil {
			b.Fatalf("%s: job %d: %v", prefix, id, err)
		}
		t1 := time.Now()
		if err := m.Cancel(id); err != nil {
			b.Fatal(err)
		}
		clat = append(clat, time.Since(t1))
		lat = append(lat, t1.Sub(t0))
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(n), prefix+"-cpu-ns")
	reportLatency(b, lat, prefix+"-ns")
	slices.Sort(clat)
	b.ReportMetric(float64(clat[len(clat)/2].Nanoseconds()), prefix+"-cancel-ns-p50")
}

// BenchmarkHugeCluster/<cluster> (GOFLUXION_BENCH_HUGE=1) loads one huge
// cluster (one op: grug.Read + match.New, or the AI cluster's builder +
// match.New; b.N is 1, use -benchtime 1x) and reports: MiB-heap (the
// in-use heap after a collection), B/vertex (the same per vertex), then
// per-match costs of one-core jobs (core-*) and of whole nodes (node-*)
// under first and high, each on the fresh graph and at 10,000 live
// one-core jobs: <policy>-<req>-<fresh|10k>-ns-p50/p99 (wall time of a
// match), -cpu-ns (CPU time of a match and its cancel), -cancel-ns-p50
// (a cancel). On the AI cluster: a single 8-gpu node (gpu8-*) and a gang
// of 57 NVLink racks (1,026 nodes, 8 gpus each: gang-*); its 10,000 live
// jobs are 8-gpu nodes.
func BenchmarkHugeCluster(b *testing.B) {
	if !Huge() {
		b.Skip("set " + HugeEnv + "=1")
	}
	for _, c := range []struct {
		name  string
		build func() (*graph.Graph, error)
		ai    bool
	}{
		{"16384x64", func() (*graph.Graph, error) { return grug.Read(grug.Cluster("cluster", 16384, 64)) }, false},
		{"65536x64", func() (*graph.Graph, error) { return grug.Read(grug.Cluster("cluster", 65536, 64)) }, false},
		{"ai12500", func() (*graph.Graph, error) { return AICluster(12500, 16, 8), nil }, true},
	} {
		b.Run(c.name, func(b *testing.B) {
			var g *graph.Graph
			h0 := heapInUse()
			for i := 0; i < b.N; i++ {
				g = nil
				var err error
				if g, err = c.build(); err != nil {
					b.Fatal(err)
				}
				if _, err := match.New(g, match.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			h1 := heapInUse()
			b.ReportMetric(float64(h1-h0)/(1<<20), "MiB-heap")
			b.ReportMetric(float64(h1-h0)/float64(g.NumVertices()), "B/vertex")
			b.ReportMetric(float64(g.NumVertices()), "vertices")
			type req struct {
				name, yaml string
				n          int
			}
			var reqs []req
			if c.ai {
				reqs = []req{{"gpu8", aiGPUNodeYAML(1), 200}, {"gang", aiRackGangYAML(57), 5}}
			} else {
				reqs = []req{{"core", JobspecCoreYAML, 2000}, {"node", JobspecNodeExclusiveYAML(64), 500}}
			}
			for _, pol := range []string{"first", "high"} {
				m, err := match.New(g, match.Options{Policy: pol})
				if err != nil {
					b.Fatal(err)
				}
				core, err := ParseJobspec(g, JobspecCoreYAML)
				if c.ai {
					core, err = ParseJobspec(g, aiGPUNodeYAML(1))
				}
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range reqs {
					js, err := ParseJobspec(g, r.yaml)
					if err != nil {
						b.Fatal(err)
					}
					matchCost(b, m, js, 1_000_000, r.n, pol+"-"+r.name+"-fresh")
				}
				// 10,000 live jobs: one-core jobs (single-gpu-node jobs on the
				// AI cluster, 10,000 of its 12,500 nodes).
				for j := 1; j <= 10000; j++ {
					if _, err := m.Match(match.Allocate, core, uint64(j), 0, emit.Discard); err != nil {
						b.Fatalf("live job %d: %v", j, err)
					}
				}
				for _, r := range reqs {
					if c.ai && r.name == "gang" {
						continue // 2,500 nodes left: no 57 whole racks
					}
					js, err := ParseJobspec(g, r.yaml)
					if err != nil {
						b.Fatal(err)
					}
					matchCost(b, m, js, 2_000_000, r.n, pol+"-"+r.name+"-10k")
				}
			}
		})
	}
}

// BenchmarkSnapshotHuge (GOFLUXION_BENCH_HUGE=1; issue 22, item 3):
// gofluxion.Matcher.Snapshot (snapshot) and gofluxion.Restore (restore)
// of 16384×64 holding 50,000 one-core jobs. MiB is the snapshot's size.
func BenchmarkSnapshotHuge(b *testing.B) {
	if !Huge() {
		b.Skip("set " + HugeEnv + "=1")
	}
	x := apiMatcher(b, Size{Nodes: 16384, Cores: 64}, 50000)
	var buf bytes.Buffer
	b.Run("snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := x.Snapshot(&buf); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len())/(1<<20), "MiB")
	})
	b.Run("restore", func(b *testing.B) {
		if buf.Len() == 0 {
			b.Skip("no snapshot")
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gofluxion.Restore(bytes.NewReader(buf.Bytes())); err != nil {
				b.Fatal(err)
			}
		}
	})
}
