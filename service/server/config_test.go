package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestConfigInState: the graph and the options are in the state (the
// Genesis); a restart with another -policy, -graph or -sessions is
// refused naming the difference, and one that leaves them out takes the
// state's.
func TestConfigInState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr := freePort(t)
	d := startDaemon(t, addr, "-mode", "standalone", "-data", dir, "-graph", "demo", "-policy", "low")
	d.waitServing(time.Minute)
	acknowledge(t, addr, 3)
	d.kill(syscall.SIGTERM)
	file := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(file, []byte(`{"graph": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-policy", "first"}, `-policy "first" (the state has "low")`},
		{[]string{"-graph", "empty"}, `-graph "empty" (the state has "demo")`},
		{[]string{"-graph", file}, `-graph "sha256:`},
		{[]string{"-sessions", "10"}, `-sessions "10" (the state has "4096")`},
	} {
		code, out := runDaemon(t, append([]string{"-mode", "standalone", "-data", dir}, c.flags...)...)
		if code == 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want a refusal naming %s:\n%s", c.flags, code, c.want, out)
		}
	}
	d = startDaemon(t, addr, "-mode", "standalone", "-data", dir, "-graph", "demo")
	d.waitServing(time.Minute)
	if applied, jobs := served(t, addr); applied != 4 || jobs != 3 {
		t.Fatalf("applied %d with %d jobs, want 4 and 3", applied, jobs)
	}
}

// TestJoinWithoutGraph: a replica started with no -graph joins a
// cluster and takes the graph and options from its log, and serves the
// same state; restarted with another -policy it refuses to start.
func TestJoinWithoutGraph(t *testing.T) {
	a := &replica{id: "a", raft: freePort(t), grpc: freePort(t), dir: filepath.Join(t.TempDir(), "a")}
	a.d = startDaemon(t, a.grpc, "-mode", "raft", "-id", a.id, "-raft", a.raft, "-data", a.dir,
		"-graph", "demo", "-policy", "low", "-bootstrap", "-snapshot-every", "4")
	a.d.waitServing(time.Minute)
	leader(t, []*replica{a}, nil)
	acknowledge(t, a.grpc, 10) // past a snapshot: the joiner gets one
	b := &replica{id: "b", raft: freePort(t), grpc: freePort(t), dir: filepath.Join(t.TempDir(), "b")}
	bargs := []string{"-mode", "raft", "-id", b.id, "-raft", b.raft, "-data", b.dir, "-join", a.grpc}
	b.d = startDaemon(t, b.grpc, bargs...)
	b.d.waitServing(time.Minute)
	want := info(a.grpc).GetAppliedIndex()
	deadline := time.Now().Add(time.Minute)
	for info(b.grpc).GetAppliedIndex() < want {
		if time.Now().After(deadline) {
			t.Fatalf("the joiner did not catch up to %d:\n%s", want, b.d.log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	ca, err := client.Dial([]string{a.grpc}, client.Options{StaleReads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close()
	cb, err := client.Dial([]string{b.grpc}, client.Options{StaleReads: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	fa, err := ca.With(context.Background()).FindAt("status=up", "jgf", 0)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := cb.With(context.Background()).FindAt("status=up", "jgf", 0)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := ca.JobTable()
	jb, _ := cb.JobTable()
	if fa != fb || len(ja) != 10 || len(jb) != 10 {
		t.Fatalf("the joiner's state differs: %d and %d jobs", len(ja), len(jb))
	}
	b.d.kill(syscall.SIGTERM)
	code, out := runDaemon(t, append(bargs, "-policy", "first")...)
	if code == 0 || !strings.Contains(out, `-policy "first" (the state has "low")`) {
		t.Fatalf("restart with another -policy: exit %d\n%s", code, out)
	}
}

// TestFoundersDisagree: three founding replicas, one started with
// another -policy. Whichever leads first writes the Genesis; the
// replicas whose command line differs from it refuse to serve, naming
// the difference, and the others serve.
func TestFoundersDisagree(t *testing.T) {
	var rs []*replica
	var peers []string
	for i := range 3 {
		r := &replica{id: fmt.Sprintf("n%d", i+1), raft: freePort(t), grpc: freePort(t), dir: filepath.Join(t.TempDir(), fmt.Sprint("n", i+1))}
		rs = append(rs, r)
		peers = append(peers, r.id+"/"+r.raft+"/"+r.grpc)
	}
	for i, r := range rs {
		policy := "first"
		if i == 2 {
			policy = "low"
		}
		r.d = startDaemon(t, r.grpc, "-mode", "raft", "-id", r.id, "-raft", r.raft, "-data", r.dir, "-graph", "demo",
			"-policy", policy, "-bootstrap", "-peers", strings.Join(peers, ","), "-election-timeout", "500ms")
	}
	for _, r := range rs {
		r.d.waitServing(time.Minute)
	}
	leader(t, rs, nil)
	refusedBy := func(r *replica) string {
		c, err := client.Dial([]string{r.grpc}, client.Options{StaleReads: true, Timeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.JobTable()
		if status.Code(err) == codes.FailedPrecondition {
			return status.Convert(err).Message()
		}
		return ""
	}
	deadline := time.Now().Add(time.Minute)
	for {
		var refused []string
		for _, r := range rs {
			if msg := refusedBy(r); msg != "" {
				if !strings.Contains(msg, "-policy") {
					t.Fatalf("%s refuses without naming -policy: %s", r.id, msg)
				}
				refused = append(refused, r.id)
			}
		}
		if slices.Equal(refused, []string{"n3"}) || slices.Equal(refused, []string{"n1", "n2"}) {
			t.Logf("refused by %v", refused)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("refused by %v, want n3 alone or n1 and n2", refused)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
