package server_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"github.com/hashicorp/raft"
)

type memReplica struct {
	id    string
	trans *raft.InmemTransport
	b     *server.Replicated
}

func matchOp(seq uint64, id uint64, at int64) *pb.Op {
	return &pb.Op{Client: "partition-test", Seq: seq, Kind: &pb.Op_Match{Match: &pb.Match{
		Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 100), WithId: true, Id: id, At: at}}}
}

// applyOnLeader applies op on whichever of rs leads, retrying while the
// leadership moves (elections are quick here and the race detector slow).
func applyOnLeader(t *testing.T, rs []*memReplica, op *pb.Op) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l := waitLeader(t, rs)
		res, err := l.b.Apply(context.Background(), op)
		if err == nil && res.GetError() == nil {
			return
		}
		if err == nil || time.Now().After(deadline) {
			t.Fatalf("apply %v: %v %v", op, err, res.GetError())
		}
	}
}

func waitLeader(t *testing.T, rs []*memReplica) *memReplica {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, r := range rs {
			if r.b.Raft().State() == raft.Leader {
				return r
			}
		}
	}
	t.Fatal("no leader")
	return nil
}

// TestPartitionMinorityLeaderCannotCommit partitions the leader of three
// replicas (raft's in-memory transport) from the other two. The old
// leader, now a minority, cannot commit: its Apply fails and its state
// machine never applies the operation. The majority elects a leader and
// goes on (past a snapshot, so that healing installs it). After healing,
// the operation the minority took is nowhere and all three state machines
// are identical.
func TestPartitionMinorityLeaderCannotCommit(t *testing.T) {
	var rs []*memReplica
	var peers []server.Peer
	for i := range 3 {
		addr, trans := raft.NewInmemTransport("")
		r := &memReplica{id: fmt.Sprint("m", i+1), trans: trans}
		rs = append(rs, r)
		peers = append(peers, server.Peer{ID: r.id, RaftAddr: string(addr)})
	}
	for _, a := range rs {
		for _, b := range rs {
			if a != b {
				a.trans.Connect(b.trans.LocalAddr(), b.trans)
			}
		}
	}
	for _, r := range rs {
		store := raft.NewInmemStore()
		b, err := server.OpenReplicated(server.ReplicatedOptions{ID: r.id, Bootstrap: true, Peers: peers,
			Initial:   func() (*gofluxion.Matcher, error) { return gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{}) },
			Transport: r.trans, Logs: store, Stable: store, Snaps: raft.NewInmemSnapshotStore(),
			HeartbeatTimeout: 200 * time.Millisecond, ElectionTimeout: 200 * time.Millisecond, LeaderLeaseTimeout: 100 * time.Millisecond,
			SnapshotThreshold: 40, TrailingLogs: 5, ApplyTimeout: 2 * time.Second, LogLevel: "off"})
		if err != nil {
			t.Fatal(err)
		}
		r.b = b
		t.Cleanup(func() { b.Close() })
	}
	ctx := context.Background()
	seq := uint64(0)
	for i := range 20 {
		seq++
		applyOnLeader(t, rs, matchOp(seq, uint64(100+i), int64(i)))
	}
	old := waitLeader(t, rs)

	// Partition the leader.
	old.trans.DisconnectAll()
	for _, r := range rs {
		if r != old {
			r.trans.Disconnect(old.trans.LocalAddr())
		}
	}
	before := old.b.State().Applied()
	seq++
	res, err := old.b.Apply(ctx, matchOp(seq, 999, 500))
	if err == nil {
		t.Fatalf("the minority leader committed: %v", res)
	}
	if _, ierr := old.b.State().Matcher().Info(999); !errors.Is(ierr, gofluxion.ErrNotFound) || old.b.State().Applied() != before {
		t.Fatalf("the minority leader applied an uncommitted operation (job 999: %v; applied %d -> %d)", ierr, before, old.b.State().Applied())
	}

	// The majority goes on.
	majority := []*memReplica{}
	for _, r := range rs {
		if r != old {
			majority = append(majority, r)
		}
	}
	for i := range 100 {
		seq++
		applyOnLeader(t, majority, matchOp(seq, uint64(200+i), int64(1000+i)))
	}
	nl := waitLeader(t, majority)

	// A snapshot compacts the majority's log, so healing must send it.
	if err := nl.b.Raft().Snapshot().Error(); err != nil {
		t.Fatal(err)
	}
	// Heal: the old leader steps down and catches up (from the snapshot).
	for _, a := range rs {
		for _, b := range rs {
			if a != b {
				a.trans.Connect(b.trans.LocalAddr(), b.trans)
			}
		}
	}
	want := nl.b.State().Applied()
	for _, r := range rs { // the old leader, and the majority's follower
		for deadline := time.Now().Add(30 * time.Second); r.b.State().Applied() < want || r.b.Raft().AppliedIndex() < want; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s did not catch up (%d < %d)", r.id, r.b.State().Applied(), want)
			}
		}
	}
	if old.b.Raft().Stats()["last_snapshot_index"] == "0" {
		t.Fatalf("the old leader caught up without the snapshot: %v; leader %v", old.b.Raft().Stats(), nl.b.Raft().Stats())
	}
	if old.b.Raft().State() == raft.Leader && old != waitLeader(t, rs) {
		t.Fatal("two leaders")
	}
	ref := nl.b.State().Matcher()
	for _, r := range rs {
		m := r.b.State().Matcher()
		if _, err := m.Info(999); !errors.Is(err, gofluxion.ErrNotFound) {
			t.Fatalf("%s has the minority's job 999", r.id)
		}
		if got := len(m.Jobs()); got != 120 {
			t.Fatalf("%s has %d jobs, want 120", r.id, got)
		}
		for _, crit := range findCriteria {
			a, _ := m.FindAt(crit, "jgf", 0)
			b, _ := ref.FindAt(crit, "jgf", 0)
			if a != b {
				t.Fatalf("%s: find %q differs from the leader's", r.id, crit)
			}
		}
	}
}
