package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"github.com/gofluxion/gofluxion/service/state"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"google.golang.org/protobuf/proto"
)

type replica struct {
	id, raft, grpc string
	dir            string
	d              *daemon
}

func startReplicas(t *testing.T, n int, extra ...string) []*replica {
	t.Helper()
	var rs []*replica
	var peers []string
	for i := range n {
		r := &replica{id: fmt.Sprintf("n%d", i+1), raft: freePort(t), grpc: freePort(t), dir: filepath.Join(t.TempDir(), fmt.Sprint("n", i+1))}
		rs = append(rs, r)
		peers = append(peers, r.id+"/"+r.raft+"/"+r.grpc)
	}
	for _, r := range rs {
		args := append([]string{"-mode", "raft", "-id", r.id, "-raft", r.raft, "-data", r.dir, "-graph", "demo",
			"-bootstrap", "-peers", strings.Join(peers, ","), "-election-timeout", "500ms"}, extra...)
		r.d = startDaemon(t, r.grpc, args...)
	}
	for _, r := range rs {
		r.d.waitServing(time.Minute)
	}
	return rs
}

// info asks one replica about itself (nil when it does not answer).
func info(addr string) *pb.ClusterInfo {
	c, err := client.Dial([]string{addr}, withCreds(client.Options{Timeout: time.Second, AttemptTimeout: time.Second}))
	if err != nil {
		return nil
	}
	defer c.Close()
	i, _ := c.Cluster(context.Background())
	return i
}

// leader waits for a replica that says it leads.
func leader(t *testing.T, rs []*replica, skip *replica) *replica {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		for _, r := range rs {
			if r == skip {
				continue
			}
			if i := info(r.grpc); i != nil && i.GetState() == "Leader" {
				return r
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no leader")
	return nil
}

// committedLog reads the Op entries of a stopped replica's Raft log.
func committedLog(t *testing.T, dir string) []*raft.Log {
	t.Helper()
	bs, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(dir, "raft.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	first, _ := bs.FirstIndex()
	last, _ := bs.LastIndex()
	if first != 1 {
		t.Fatalf("the log starts at %d: it was compacted", first)
	}
	var out []*raft.Log
	for i := first; i <= last; i++ {
		var l raft.Log
		if err := bs.GetLog(i, &l); err != nil {
			t.Fatal(err)
		}
		if l.Type == raft.LogCommand {
			out = append(out, &l)
		}
	}
	return out
}

// TestFailoverNoLostDecisions runs three replicas as processes on
// loopback, kills the leader with SIGKILL in the middle of a
// 10,000-operation stream from 8 clients, and restarts it. A new leader
// takes over and the clients carry on. Afterwards: every acknowledged
// operation is in the committed log at its index with the answer the
// client got; every other log entry is a retry of one of them; no vertex
// is ever booked twice at overlapping times; and all three replicas' Find
// outputs and job tables are byte-identical to an in-process replay of
// the committed log.
//
// It runs with mutual TLS on gRPC and on the Raft transport, with roles:
// the replicas' certificate is admin, the clients' scheduler.
func TestFailoverNoLostDecisions(t *testing.T) {
	const nclients, perClient = 8, 1250
	if testing.Short() {
		t.Skip("three processes and 10,000 operations")
	}
	p := newPKI(t)
	useCreds(t, client.Options{CA: p.ca.File, Cert: p.sched.Cert, Key: p.sched.Key})
	rs := startReplicas(t, 3, "-snapshot-every", "1000000", "-ca", p.ca.File, "-cert", p.server.Cert, "-key", p.server.Key, "-roles", p.roles)
	if l := rs[0].d.log.String(); !strings.Contains(l, "TLS, clients authorised") {
		t.Fatalf("not serving TLS with roles:\n%s", l)
	}
	addrs := []string{rs[0].grpc, rs[1].grpc, rs[2].grpc}
	leader(t, rs, nil)

	var (
		mu       sync.Mutex
		killed   *replica
		killTime time.Time
		killDone = make(chan struct{})
	)
	acks := runClients(t, addrs, nclients, perClient, func(n int64) {
		if n != nclients*perClient/3 {
			return
		}
		go func() {
			l := leader(t, rs, nil)
			mu.Lock()
			killed, killTime = l, time.Now()
			mu.Unlock()
			l.d.kill(syscall.SIGKILL)
			time.Sleep(2 * time.Second)
			l.d.start() // it rejoins as a follower and catches up
			close(killDone)
		}()
	})
	<-killDone
	// Failover time: from the kill to the first answer after it.
	var first time.Time
	for _, a := range acks {
		if a.at.After(killTime) && (first.IsZero() || a.at.Before(first)) {
			first = a.at
		}
	}
	newLeader := leader(t, rs, nil)
	t.Logf("killed leader %s; new leader %s; failover (kill to first commit answered) %v", killed.id, newLeader.id, first.Sub(killTime).Round(time.Millisecond))

	// Wait until every replica has applied everything.
	want := info(newLeader.grpc).GetAppliedIndex()
	for _, r := range rs {
		deadline := time.Now().Add(time.Minute)
		for {
			if i := info(r.grpc); i != nil && i.GetAppliedIndex() >= want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s did not catch up to %d", r.id, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// The committed log, as a survivor's store holds it.
	var survivor *replica
	for _, r := range rs {
		if r != killed {
			survivor = r
			break
		}
	}
	states := map[string]*client.Client{}
	for _, r := range rs {
		c, err := client.Dial([]string{r.grpc}, withCreds(client.Options{StaleReads: true}))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		states[r.id] = c
	}
	// Replay of the acknowledged operations: answers, no double booking.
	replay(t, slices.Clone(acks))

	// Stop the survivor cleanly to read its log, then replay that log.
	ackAt := map[uint64]*acked{}
	for i := range acks {
		ackAt[acks[i].res.GetIndex()] = &acks[i]
	}
	type key struct {
		client string
		seq    uint64
	}
	seen := map[key]bool{}
	compare := map[string]bool{}
	for _, r := range rs {
		if r != survivor {
			compare[r.id] = true
		}
	}
	// Compare the two others now (the survivor answers after its restart).
	survivor.d.kill(syscall.SIGTERM)
	logs := committedLog(t, survivor.dir)
	st := state.New(nil)
	nops := 0
	for _, l := range logs {
		// An entry holds one operation or a batch; each has its own
		// operation index, the next after the last applied.
		ops, err := server.EntryOps(l.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range ops {
			nops++
			idx := st.Applied() + 1
			res := st.Apply(idx, op)
			if op.GetGenesis() != nil { // the initial graph, written by the first leader
				if res.GetError() != nil || !st.HasGraph() {
					t.Fatalf("index %d: genesis: %v", idx, res.GetError())
				}
				continue
			}
			k := key{op.GetClient(), op.GetSeq()}
			if a, ok := ackAt[idx]; ok {
				// The server stamps the log time; the client marks its retries.
				logged := proto.Clone(op).(*pb.Op)
				logged.Time, logged.Retry = 0, a.op.GetRetry()
				if !proto.Equal(a.op, logged) {
					t.Fatalf("index %d: log has %v, the client was answered for %v", idx, op, a.op)
				}
				sameResult(t, a.res, res)
				delete(ackAt, idx)
			} else if !seen[k] {
				t.Fatalf("index %d: log entry %v was never acknowledged, nor is it a retry", idx, op)
			}
			seen[k] = true
		}
	}
	if len(ackAt) != 0 {
		for i := range ackAt {
			t.Fatalf("%d acknowledged operations are not in the committed log (index %d, for one)", len(ackAt), i)
		}
	}
	for id := range compare {
		sameState(t, "replica "+id, states[id], st)
	}
	survivor.d.start()
	survivor.d.waitServing(time.Minute)
	deadline := time.Now().Add(time.Minute)
	for info(survivor.grpc).GetAppliedIndex() < want && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	sameState(t, "replica "+survivor.id, states[survivor.id], st)
	t.Logf("%d operations acknowledged, %d operations in %d log entries, %d jobs", len(acks), nops, len(logs), len(st.Matcher().Jobs()))
}
