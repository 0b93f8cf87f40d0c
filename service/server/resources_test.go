package server_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/internal/testserver"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// peakRSS returns a process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		if _, err := fmt.Sscanf(sc.Text(), "VmHWM: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	t.Skip("no VmHWM")
	return 0
}

// TestBoundedRequests sends 16 concurrent large Attach requests (24 MiB
// each; 60 MiB with GOFLUXION_LONG_TESTS=1) to a stand-alone server as a
// child process whose budget of request bytes in flight holds about one
// of them. The server lives, every request is answered (the client retries
// the RESOURCE_EXHAUSTED refusals), the refused-on-its-face requests
// (not a JGF document) are not journaled, and the server's peak RSS stays
// below what holding all 16 at once takes.
func TestBoundedRequests(t *testing.T) {
	const n = 16
	size, budget := 24<<20, 25<<20
	if os.Getenv("GOFLUXION_LONG_TESTS") == "1" {
		size, budget = 60<<20, 61<<20
	} else if testing.Short() {
		t.Skip("16 concurrent 24 MiB requests")
	}
	dir := filepath.Join(t.TempDir(), "data")
	addr := freePort(t)
	d := startDaemon(t, addr, "-mode", "standalone", "-data", dir, "-graph", "demo", "-max-inflight-bytes", fmt.Sprint(budget))
	d.waitServing(time.Minute)
	base := peakRSS(t, d.cmd.Process.Pid)

	payload := []byte(strings.Repeat("x", size))
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.Dial([]string{addr}, client.Options{Timeout: 4 * time.Minute, AttemptTimeout: time.Minute})
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			errs[i] = c.Attach(payload)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, gofluxion.ErrInvalid) {
			t.Fatalf("request %d: %v, want ErrInvalid (not a JGF document)", i, err)
		}
	}
	peak := peakRSS(t, d.cmd.Process.Pid)
	fi, err := os.Stat(filepath.Join(dir, "journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d concurrent requests of %d MiB, budget %d MiB: peak RSS %d MiB (%d MiB at start); journal %d bytes",
		n, size>>20, budget>>20, peak>>20, base>>20, fi.Size())
	if fi.Size() > 1<<20 {
		t.Fatalf("the journal has %d bytes: refused requests were journaled", fi.Size())
	}
	if limit := int64(n * size); peak > limit {
		t.Fatalf("peak RSS %d MiB, more than the %d MiB of all %d requests at once", peak>>20, limit>>20, n)
	}
	if _, jobs := served(t, addr); jobs != 0 {
		t.Fatalf("%d jobs", jobs)
	}
}

// TestRefusedOnItsFace: operations the state machine would refuse
// whatever the state (a large jobspec that does not parse, the
// satisfiability op, a JGF that does not parse) are answered with the
// state machine's error but take no room in the log (the applied index
// does not move); an operation of no kind, or a Genesis, is
// INVALID_ARGUMENT.
func TestRefusedOnItsFace(t *testing.T) {
	s, err := testserver.Start(t.TempDir(), func() (*gofluxion.Matcher, error) { return newDemo(t), nil })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c, err := client.Dial([]string{s.Addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := s.Backend.State().Applied()
	big := append([]byte("version: 1\nresources: [{type: node, count: 1}]\n# "), bytes.Repeat([]byte("x"), 100<<10)...)
	big = append(big, "\n: : :\n"...)
	for _, op := range []*pb.Op{
		{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: big}}},
		{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Satisfiability), Jobspec: jobspecYAML(1, 10)}}},
		{Kind: &pb.Op_Attach{Attach: &pb.Attach{Jgf: []byte("{not json")}}},
	} {
		res, err := c.Apply(context.Background(), op)
		if err != nil || res.GetError().GetKind() != "invalid" {
			t.Fatalf("%v: %v %v, want an invalid result", op, err, res.GetError())
		}
	}
	for _, op := range []*pb.Op{{}, {Kind: &pb.Op_Genesis{Genesis: &pb.Genesis{}}}} {
		if _, err := c.Apply(context.Background(), op); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("%v: %v, want InvalidArgument", op, err)
		}
	}
	// A client id is a session's key on every replica: a huge one is
	// refused before it takes room in the log and the session table.
	huge, err := client.Dial([]string{s.Addr}, client.Options{ID: strings.Repeat("x", 1<<20)})
	if err != nil {
		t.Fatal(err)
	}
	defer huge.Close()
	if res, err := huge.Apply(context.Background(), &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 1}}}); err != nil || res.GetError().GetKind() != "invalid" {
		t.Fatalf("a 1 MiB client id: %v %v, want an invalid result", res.GetError(), err)
	}
	if after := s.Backend.State().Applied(); after != before {
		t.Fatalf("applied index %d -> %d: refused operations were journaled", before, after)
	}
	// A good operation still is.
	if res, err := c.Apply(context.Background(), &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 10)}}}); err != nil || res.GetError() != nil || res.GetIndex() != before+1 {
		t.Fatalf("good op: %v %v", res, err)
	}
}
