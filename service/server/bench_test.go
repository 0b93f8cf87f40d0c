package server_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/internal/testserver"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"google.golang.org/grpc"
)

// benchOps runs b.N operations through ms from inflight goroutines per
// element of ms (so each client has up to inflight operations in
// flight), each goroutine a match of one core for one second at the
// client's clock followed by the cancel of that job (so the graph never
// fills), and reports ops/s and the p50/p99 latency of one operation.
// It returns ops/s and the p99.
func benchOps(b *testing.B, ms []gofluxion.Interface, inflight int) (float64, time.Duration) {
	js, err := ms[0].ParseJobspec(jobspecYAML(1, 1))
	if err != nil {
		b.Fatal(err)
	}
	var (
		mu   sync.Mutex
		lats []time.Duration
		wg   sync.WaitGroup
	)
	workers := len(ms) * inflight
	per := max(b.N/workers, 1)
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	for k := range workers {
		m := ms[k/inflight]
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := make([]time.Duration, 0, per)
			at := int64(k) * 1e7
			for i := 0; i < per; i += 2 {
				t0 := time.Now()
				a, err := m.Match(gofluxion.Allocate, js, at)
				own = append(own, time.Since(t0))
				if err != nil {
					b.Error(err)
					return
				}
				t0 = time.Now()
				if err := m.Cancel(a.JobID); err != nil {
					b.Error(err)
					return
				}
				own = append(own, time.Since(t0))
				at++
			}
			mu.Lock()
			lats = append(lats, own...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	slices.Sort(lats)
	if len(lats) == 0 {
		return 0, 0
	}
	opss := float64(len(lats)) / el.Seconds()
	p99 := lats[len(lats)*99/100]
	b.ReportMetric(opss, "ops/s")
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), "p99-µs")
	// The process's CPU time per operation (client, server or all three
	// replicas, and the GC): what a loaded machine changes least.
	b.ReportMetric(float64(cpu.Microseconds())/float64(len(lats)), "cpu-µs/op")
	b.ReportMetric(0, "ns/op")
	return opss, p99
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchCase is one line of BenchmarkOps's table.
type benchCase struct {
	name    string
	clients int // client connections (a shared one when shared)
	shared  bool
	// inflight is the operations each client has in flight (client-side
	// pipelining: that many goroutines share the client).
	inflight int
}

// The cases: 1 and 16 goroutines on one shared client (the figures of
// before batching), then 16 clients (own ids and connections) with 4
// operations in flight each.
var benchCases = []benchCase{
	{"clients=1", 1, true, 1},
	{"clients=16", 1, true, 16},
	{"clients=16x4", 16, false, 4},
}

func (c benchCase) dial(b *testing.B, addrs []string) []gofluxion.Interface {
	var ms []gofluxion.Interface
	for range c.clients {
		cl, err := client.Dial(addrs)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cl.Close() })
		ms = append(ms, cl)
	}
	return ms
}

func (c benchCase) workers() (int, int) {
	if c.shared {
		return 1, c.inflight
	}
	return c.clients, c.inflight
}

// BenchmarkOps measures operations per second and latency in process, on
// a stand-alone server and on three replicas, and prints the table of
// ops/s and p99 per case at the end. Beside ops/s it reports the
// load-independent figures: journal fsyncs per operation (stand-alone),
// log entries and log-store writes (each an fsync) per operation on the
// leader (replicated).
func BenchmarkOps(b *testing.B) {
	type row struct {
		opss float64
		p99  time.Duration
	}
	table := map[string]row{}
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("inprocess/clients=%d", n), func(b *testing.B) {
			o, p := benchOps(b, []gofluxion.Interface{newDemo(b)}, n)
			table[fmt.Sprintf("inprocess/clients=%d", n)] = row{o, p}
		})
	}
	for _, c := range benchCases {
		name := "standalone/" + c.name
		b.Run(name, func(b *testing.B) {
			s, err := testserver.Start(b.TempDir(), func() (*gofluxion.Matcher, error) { return newDemo(b), nil })
			if err != nil {
				b.Fatal(err)
			}
			defer s.Stop()
			ms := c.dial(b, []string{s.Addr})
			ops0, syncs0 := s.Backend.Committed()
			nc, inflight := c.workers()
			o, p := benchOps(b, ms[:nc], inflight)
			ops, syncs := s.Backend.Committed()
			if ops > ops0 {
				b.ReportMetric(float64(syncs-syncs0)/float64(ops-ops0), "fsyncs/op")
			}
			table[name] = row{o, p}
		})
	}
	for _, c := range benchCases {
		name := "replicated3/" + c.name
		b.Run(name, func(b *testing.B) {
			addrs, reps := startRaft3(b)
			ms := c.dial(b, addrs)
			var ops0, ents0, st0 uint64
			for _, r := range reps {
				o, e := r.be.Proposed()
				ops0, ents0, st0 = ops0+o, ents0+e, st0+r.logs.stores.Load()
			}
			nc, inflight := c.workers()
			o, p := benchOps(b, ms[:nc], inflight)
			var ops, ents, st uint64
			for _, r := range reps {
				o, e := r.be.Proposed()
				ops, ents, st = ops+o, ents+e, st+r.logs.stores.Load()
			}
			if ops > ops0 {
				b.ReportMetric(float64(ents-ents0)/float64(ops-ops0), "entries/op")
				// Log-store writes of all three replicas, per operation.
				b.ReportMetric(float64(st-st0)/float64(ops-ops0), "logwrites/op")
			}
			table[name] = row{o, p}
		})
	}
	var names []string
	for n := range table {
		names = append(names, n)
	}
	slices.Sort(names)
	fmt.Printf("\n| case | ops/s | p99 |\n|---|---|---|\n")
	for _, n := range names {
		fmt.Printf("| %s | %.0f | %v |\n", n, table[n].opss, table[n].p99.Round(10*time.Microsecond))
	}
	fmt.Println()
}

// countingLogs counts the log store's writes (each a bolt transaction,
// one fsync).
type countingLogs struct {
	raft.LogStore
	stores atomic.Uint64
}

func (c *countingLogs) StoreLog(l *raft.Log) error {
	c.stores.Add(1)
	return c.LogStore.StoreLog(l)
}

func (c *countingLogs) StoreLogs(ls []*raft.Log) error {
	c.stores.Add(1)
	return c.LogStore.StoreLogs(ls)
}

type benchReplica struct {
	be   *server.Replicated
	logs *countingLogs
}

// startRaft3 starts three replicas in this process (TCP transports and
// bolt stores on disk, gRPC on loopback) and returns their gRPC addresses
// once one leads.
func startRaft3(b *testing.B) ([]string, []benchReplica) {
	b.Helper()
	type rep struct {
		id, raft string
		lis      net.Listener
	}
	var reps []rep
	var peers []server.Peer
	for i := range 3 {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		r := rep{id: fmt.Sprint("b", i+1), raft: freePort(b), lis: lis}
		reps = append(reps, r)
		peers = append(peers, server.Peer{ID: r.id, RaftAddr: r.raft, GRPCAddr: lis.Addr().String()})
	}
	var addrs []string
	var bs []*server.Replicated
	var out []benchReplica
	for _, r := range reps {
		// The stores raft-boltdb and files, as the server makes them, the
		// log store wrapped to count its writes.
		dir := filepath.Join(b.TempDir(), r.id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		bolt, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db")})
		if err != nil {
			b.Fatal(err)
		}
		snaps, err := raft.NewFileSnapshotStore(dir, 2, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		trans, err := raft.NewTCPTransport(r.raft, nil, 3, 10*time.Second, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		logs := &countingLogs{LogStore: bolt}
		be, err := server.OpenReplicated(server.ReplicatedOptions{ID: r.id, Dir: dir, RaftAddr: r.raft,
			GRPCAddr: r.lis.Addr().String(), Bootstrap: true, Peers: peers, LogLevel: "off",
			Transport: trans, Logs: logs, Stable: bolt, Snaps: snaps,
			Initial: func() (*gofluxion.Matcher, error) { return newDemo(b), nil }})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { bolt.Close() })
		out = append(out, benchReplica{be, logs})
		gs := grpc.NewServer()
		pb.RegisterMatcherServer(gs, &server.Service{B: be})
		go gs.Serve(r.lis)
		b.Cleanup(func() { gs.Stop(); be.Close() })
		addrs = append(addrs, r.lis.Addr().String())
		bs = append(bs, be)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		for _, be := range bs {
			if be.Raft().State() == raft.Leader {
				return addrs, out
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("no leader")
		}
	}
}
