package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func suffrage(i *pb.ClusterInfo) map[string]string {
	out := map[string]string{}
	for _, m := range i.GetMembers() {
		out[m.GetId()] = m.GetSuffrage()
	}
	return out
}

// writable checks that the cluster commits a match within timeout.
func writable(t *testing.T, addrs []string, timeout time.Duration) {
	t.Helper()
	c, err := client.Dial(addrs, withCreds(client.Options{Timeout: timeout, AttemptTimeout: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Apply(context.Background(), &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 10)}}})
	if err != nil || res.GetError() != nil {
		t.Fatalf("the cluster is not writable: %v %v", err, res.GetError())
	}
}

// TestJoinUnreachableKeepsQuorum: three Joins naming addresses where
// nothing listens leave the three voters writable (the joiners are
// non-voters that never catch up, so never promoted), also after every
// replica is killed and restarted; a Join that would move a voter to
// another address is refused; and a real replica that joins is promoted
// to voter once it has caught up. It runs on plaintext loopback and with
// mutual TLS (the joiner then authenticates its Join with its replica
// certificate, and the leader replicates to it over TLS).
func TestJoinUnreachableKeepsQuorum(t *testing.T) {
	if testing.Short() {
		t.Skip("four processes")
	}
	t.Run("plaintext", func(t *testing.T) { testJoin(t, nil) })
	t.Run("mTLS", func(t *testing.T) {
		p := newPKI(t)
		useCreds(t, client.Options{CA: p.ca.File, Cert: p.admin.Cert, Key: p.admin.Key})
		testJoin(t, []string{"-ca", p.ca.File, "-cert", p.server.Cert, "-key", p.server.Key, "-roles", p.roles})
	})
}

func testJoin(t *testing.T, tlsArgs []string) {
	rs := startReplicas(t, 3, tlsArgs...)
	addrs := []string{rs[0].grpc, rs[1].grpc, rs[2].grpc}
	l := leader(t, rs, nil)
	writable(t, addrs, 30*time.Second)
	c, err := client.Dial(addrs, withCreds(client.Options{Timeout: 30 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for i := range 3 {
		id := fmt.Sprint("dead", i+1)
		if _, err := c.Join(ctx, id, freePort(t), freePort(t)); err != nil {
			t.Fatalf("join %s: %v", id, err)
		}
	}
	// A voter cannot be moved to an unreachable address by a Join.
	if _, err := c.Join(ctx, rs[1].id, freePort(t), rs[1].grpc); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("join moving voter %s: %v, want FailedPrecondition", rs[1].id, err)
	}
	writable(t, addrs, 10*time.Second)
	time.Sleep(2 * time.Second) // several promotion rounds
	want := map[string]string{"n1": "Voter", "n2": "Voter", "n3": "Voter", "dead1": "Nonvoter", "dead2": "Nonvoter", "dead3": "Nonvoter"}
	if got := suffrage(info(l.grpc)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("members %v, want %v", got, want)
	}

	// The configuration is in the log: a full restart stays writable.
	for _, r := range rs {
		r.d.kill(syscall.SIGKILL)
	}
	for _, r := range rs {
		r.d.start()
	}
	for _, r := range rs {
		r.d.waitServing(time.Minute)
	}
	writable(t, addrs, 30*time.Second)

	// A real replica joins, catches up and becomes a voter.
	l = leader(t, rs, nil)
	n4 := &replica{id: "n4", raft: freePort(t), grpc: freePort(t), dir: filepath.Join(t.TempDir(), "n4")}
	n4.d = startDaemon(t, n4.grpc, append([]string{"-mode", "raft", "-id", n4.id, "-raft", n4.raft, "-data", n4.dir, "-graph", "demo",
		"-join", l.grpc, "-election-timeout", "500ms"}, tlsArgs...)...)
	n4.d.waitServing(time.Minute)
	deadline := time.Now().Add(time.Minute)
	for suffrage(info(l.grpc))["n4"] != "Voter" {
		if time.Now().After(deadline) {
			t.Fatalf("n4 was not promoted: members %v\n%s", suffrage(info(l.grpc)), n4.d.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	writable(t, append(addrs, n4.grpc), 30*time.Second)
	if i := info(n4.grpc); i.GetState() != "Follower" && i.GetState() != "Leader" {
		t.Fatalf("n4 is %s", i.GetState())
	}
	if got := suffrage(info(l.grpc)); !strings.HasPrefix(got["dead1"], "Nonvoter") {
		t.Fatalf("members %v", got)
	}
}
