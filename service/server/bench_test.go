package server_test

import (
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/internal/testserver"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
)

// benchOps runs b.N operations through m from nclients goroutines, each
// a match of one core for one second at the client's clock followed by
// the cancel of that job (so the graph never fills), and reports ops/s
// and the p50/p99 latency of one operation.
func benchOps(b *testing.B, m gofluxion.Interface, nclients int) {
	js, err := m.ParseJobspec(jobspecYAML(1, 1))
	if err != nil {
		b.Fatal(err)
	}
	var (
		mu   sync.Mutex
		lats []time.Duration
		wg   sync.WaitGroup
	)
	per := max(b.N/nclients, 1)
	b.ResetTimer()
	start := time.Now()
	for k := range nclients {
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
	b.StopTimer()
	slices.Sort(lats)
	if len(lats) == 0 {
		return
	}
	b.ReportMetric(float64(len(lats))/el.Seconds(), "ops/s")
	b.ReportMetric(float64(lats[len(lats)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lats[len(lats)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

func BenchmarkOps(b *testing.B) {
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("inprocess/clients=%d", n), func(b *testing.B) {
			benchOps(b, newDemo(b), n)
		})
	}
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("standalone/clients=%d", n), func(b *testing.B) {
			s, err := testserver.Start(b.TempDir(), func() (*gofluxion.Matcher, error) { return newDemo(b), nil })
			if err != nil {
				b.Fatal(err)
			}
			defer s.Stop()
			c, err := client.Dial([]string{s.Addr})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchOps(b, c, n)
		})
	}
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("replicated3/clients=%d", n), func(b *testing.B) {
			addrs := startRaft3(b)
			c, err := client.Dial(addrs)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			benchOps(b, c, n)
		})
	}
}

// startRaft3 starts three replicas in this process (TCP transports and
// bolt stores on disk, gRPC on loopback) and returns their gRPC addresses
// once one leads.
func startRaft3(b *testing.B) []string {
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
	for _, r := range reps {
		be, err := server.OpenReplicated(server.ReplicatedOptions{ID: r.id, Dir: filepath.Join(b.TempDir(), r.id), RaftAddr: r.raft,
			GRPCAddr: r.lis.Addr().String(), Bootstrap: true, Peers: peers, LogLevel: "off",
			Initial: func() (*gofluxion.Matcher, error) { return newDemo(b), nil }})
		if err != nil {
			b.Fatal(err)
		}
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
				return addrs
			}
		}
		if time.Now().After(deadline) {
			b.Fatal("no leader")
		}
	}
}
