// Package benchmarks reproduces flux-sched's resource-bench workload against
// gofluxion, with every input generated in code (nothing is downloaded).
//
// # Graph
//
// One cluster of N nodes × C cores, containment subsystem only, written by
// grug.Cluster: cluster0 → node0…node<N-1> → core0…core<C-1>. The sizes are
// 256×32, 1024×32 and 4096×64; 16384×64 is added when the environment
// variable GOFLUXION_BENCH_HUGE=1 is set.
//
// # Jobspecs
//
// JobspecCore ("jobspec A") asks for cluster[1] → node[1] → slot[1] →
// core[1] for 3600 s: one core somewhere. JobspecNodeExclusive ("jobspec
// B") asks for cluster[1] → node[1] (exclusive) → slot[1] → core[C] for
// 3600 s: one whole node.
//
// # Stream
//
// A stream is what resource-bench measures: a fresh matcher (default
// options apart from the policy) receives "match allocate" for jobs 1, 2, …
// until the cluster is full or the job count reaches the stream length
// (256×32: 4096 jobs, 1024×32 and larger: 8192; the node-exclusive stream on
// 1024×32 is 1024 jobs, which fill it). Each match is emitted to one reused
// emit.NewSimple writer whose Render output is discarded. Stream runs one
// stream and returns the latency of every match.
//
// # Benchmarks (in the _test.go files)
//
//   - BenchmarkLoad/<size>: grug.Read + match.New; the custom metric
//     MiB-heap is the heap in use (after a GC) held by one loaded graph and
//     matcher.
//   - BenchmarkMatch/<policy>/<size>, policies first, high and low with
//     jobspec A: one b.N iteration is one successful match allocate, so
//     ns/op is the per-match latency averaged over whole streams (the
//     matcher is rebuilt, outside the timer, when a stream ends). high and
//     low visit the whole graph on every match, so they run on 4096×64 only
//     with GOFLUXION_BENCH_HUGE=1; first runs on every size.
//   - BenchmarkMatchNodeExclusive/<policy>/1024x32: the same with jobspec B.
//   - BenchmarkMatchEarlyLate/first/1024x32: one b.N iteration is a whole
//     stream; the metrics ns-first10% and ns-last10% are the median latency
//     of the first and last 10% of the matches of the streams, to show that
//     the cost of a match does not grow with the number of allocated jobs.
//   - BenchmarkMatchPolicies/<policy>/256x32: jobspec A under the other
//     policies (hinode, lonode, hinodex, lonodex, firstnodex, locality,
//     variation, and the custom string "policy=low node_centric=true
//     stop_on_1_matches=true"); node-exclusive policies give each job a
//     whole node, so their streams are 256 jobs long. variation runs on a
//     copy of 256×32 whose nodes have perf_class = index mod 4.
//   - BenchmarkLoadJGF/<size> (1024x32, 4096x64): jgf.Read + match.New of
//     the cluster rendered whole by the jgf writer.
//   - BenchmarkWriteRV1/1024nodes, BenchmarkWriteJGF/1024nodes: rendering
//     (emission into a fresh writer, then Render) of one match of 1024
//     exclusive nodes on 1024×32, recorded once and replayed per iteration.
//   - BenchmarkDeepQueue/<size>/<policy>/<live> (issue 22): one
//     allocate_orelse_reserve match, and the cancel of its job, at 1k to
//     100k live jobs (most of them reservations in layers); median and p99
//     per match, CPU time per op.
//   - BenchmarkBackfillReplan/256x32/<policy>: cancel and re-match every
//     reservation after an early finish (conservative backfill).
//   - BenchmarkHugeCluster/<cluster>, BenchmarkSnapshotHuge
//     (GOFLUXION_BENCH_HUGE=1): 16384×64, 65536×64 and a 12,500-node AI
//     cluster (AICluster): load, heap per vertex, per-match costs fresh and
//     at 10,000 live jobs; Snapshot and Restore of 16384×64 with 50,000
//     jobs.
//
// TestStreamGolden pins the decisions of whole streams, deep
// allocate_orelse_reserve queues included; GOFLUXION_DEEP_LONG=1 adds
// 100,000-job queues (TestDeepStreamGoldenLong).
//
// See README.md for the commands and measured figures.
package benchmarks
