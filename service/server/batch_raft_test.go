package server_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"github.com/hashicorp/raft"
)

// TestBatchedProposalsAndSnapshots runs three replicas (raft's in-memory
// transport) with one follower cut off, under 16 concurrent clients, so
// the leader batches operations into entries and snapshots often. Then
// the follower comes back and catches up from a snapshot. Every
// operation was answered once, batches happened (fewer entries than
// operations), and the three state machines are identical (graph, job
// table, sessions, operation index).
func TestBatchedProposalsAndSnapshots(t *testing.T) {
	var rs []*memReplica
	var peers []server.Peer
	for i := range 3 {
		addr, trans := raft.NewInmemTransport("")
		r := &memReplica{id: fmt.Sprint("s", i+1), trans: trans}
		rs = append(rs, r)
		peers = append(peers, server.Peer{ID: r.id, RaftAddr: string(addr)})
	}
	connect := func() {
		for _, a := range rs {
			for _, b := range rs {
				if a != b {
					a.trans.Connect(b.trans.LocalAddr(), b.trans)
				}
			}
		}
	}
	connect()
	for _, r := range rs {
		store := raft.NewInmemStore()
		b, err := server.OpenReplicated(server.ReplicatedOptions{ID: r.id, Bootstrap: true, Peers: peers,
			Initial:   func() (*gofluxion.Matcher, error) { return gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{}) },
			Transport: r.trans, Logs: store, Stable: store, Snaps: raft.NewInmemSnapshotStore(),
			SnapshotThreshold: 20, TrailingLogs: 5, ApplyTimeout: 5 * time.Second, LogLevel: "off"})
		if err != nil {
			t.Fatal(err)
		}
		r.b = b
		t.Cleanup(func() { b.Close() })
	}
	leader := waitLeader(t, rs)
	applyOnLeader(t, rs, matchOp(1, 1, 0)) // the Genesis, then one op
	leader = waitLeader(t, rs)
	var away *memReplica
	for _, r := range rs {
		if r != leader {
			away = r
			break
		}
	}
	away.trans.DisconnectAll()
	for _, r := range rs {
		if r != away {
			r.trans.Disconnect(away.trans.LocalAddr())
		}
	}
	ops0, ents0 := leader.b.Proposed()

	const clients, pairs = 16, 15
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprint("client", c)
			apply := func(op *pb.Op) (*pb.Result, error) {
				for attempt := 0; ; attempt++ {
					op.Retry = attempt > 0
					res, err := waitLeader(t, rs).b.Apply(context.Background(), op)
					if err == nil || attempt > 50 {
						return res, err
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			for i := range pairs {
				id := uint64(1000*(c+1) + i)
				res, err := apply(&pb.Op{Client: name, Seq: uint64(2*i + 1), Acked: uint64(2*i + 1), Kind: &pb.Op_Match{Match: &pb.Match{
					Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 100), WithId: true, Id: id, At: int64(i)}}})
				if err == nil && res.GetError() != nil {
					err = fmt.Errorf("match %d: %s", id, res.GetError().GetMessage())
				}
				if err == nil && i%2 == 0 { // every other job is cancelled
					res, err = apply(&pb.Op{Client: name, Seq: uint64(2*i + 2), Acked: uint64(2*i + 2), Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: id}}})
					if err == nil && res.GetError() != nil {
						err = fmt.Errorf("cancel %d: %s", id, res.GetError().GetMessage())
					}
				}
				if err != nil {
					errs <- fmt.Errorf("%s: %w", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	nl := waitLeader(t, rs)
	if nl == leader {
		ops, ents := leader.b.Proposed()
		if ents-ents0 >= ops-ops0 {
			t.Errorf("%d operations in %d entries: no batch", ops-ops0, ents-ents0)
		}
		t.Logf("%d operations in %d entries", ops-ops0, ents-ents0)
	}
	if err := nl.b.Raft().Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	connect()
	want := nl.b.State().Applied()
	for _, r := range rs {
		for deadline := time.Now().Add(30 * time.Second); r.b.State().Applied() < want; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not catch up (%d < %d)", r.id, r.b.State().Applied(), want)
			}
		}
	}
	// Raft updates its snapshot index after the FSM's Restore.
	for deadline := time.Now().Add(10 * time.Second); away.b.Raft().Stats()["last_snapshot_index"] == "0"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the cut-off replica caught up without a snapshot: %v", away.b.Raft().Stats())
		}
	}
	ref := nl.b.State()
	wantJobs := 1 + clients*(pairs/2) // the first match, and the jobs not cancelled
	for _, r := range rs {
		st := r.b.State()
		got := 0
		for _, j := range st.Matcher().Jobs() {
			if j.State != gofluxion.Canceled {
				got++
			}
		}
		if got != wantJobs || st.Applied() != want || !slices.Equal(st.Clients(), ref.Clients()) {
			t.Fatalf("%s: %d jobs (want %d), applied %d (want %d), sessions %v (leader %v)", r.id, got, wantJobs, st.Applied(), want, st.Clients(), ref.Clients())
		}
		for _, crit := range findCriteria {
			a, _ := st.Matcher().FindAt(crit, "jgf", 0)
			b, _ := ref.Matcher().FindAt(crit, "jgf", 0)
			if a != b {
				t.Fatalf("%s: find %q differs from the leader's", r.id, crit)
			}
		}
		if a, b := jobTable(st.Matcher()), jobTable(ref.Matcher()); !slices.Equal(a, b) {
			t.Fatalf("%s: job table differs from the leader's", r.id)
		}
	}
}

// jobTable is m's job table without wall times, and without the node
// lists of canceled jobs: a restored Matcher has none for them (derived
// from bookings) while a live one keeps the last (the root package's
// Job.Nodes; TestStandaloneCrash, which compares them, fails on it).
func jobTable(m *gofluxion.Matcher) []gofluxion.Job {
	out := m.Jobs()
	for i := range out {
		out[i].Overhead = 0
		if out[i].State == gofluxion.Canceled {
			out[i].Nodes = ""
		}
	}
	return out
}
