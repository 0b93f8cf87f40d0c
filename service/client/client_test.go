package client_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/picture"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/internal/testserver"
	"github.com/gofluxion/gofluxion/service/internal/wire"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func demo() (*gofluxion.Matcher, error) {
	return gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
}

func startRemote(t *testing.T) *client.Client {
	t.Helper()
	s, err := testserver.Start(t.TempDir(), demo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	c, err := client.Dial([]string{s.Addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func spec(t *testing.T, m gofluxion.Interface, y string) *jobspec.Jobspec {
	t.Helper()
	js, err := m.ParseJobspec([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

const socketJob = `version: 1
resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: %d}]}]}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

// errKind names the sentinel an error wraps.
func errKind(err error) string {
	for _, s := range []error{gofluxion.ErrBusy, gofluxion.ErrUnsatisfiable, gofluxion.ErrInvalid, gofluxion.ErrNotFound, gofluxion.ErrExists} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

// errText is the error's kind and text (errors read the same remotely).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return errKind(err) + ": " + err.Error()
}

// TestInterfaceDifferential runs the same random operations through
// gofluxion.Interface on an in-process Matcher and on the service, and
// requires the same answers: allocations in every match format, errors
// (by sentinel and text), job tables, Find outputs, Explain, Status and
// snapshots that restore to the same state.
func TestInterfaceDifferential(t *testing.T) {
	local, _ := demo()
	remote := startRemote(t)
	impls := []gofluxion.Interface{local, remote}
	r := rand.New(rand.NewPCG(1, 2))
	var ids []uint64
	for step := range 300 {
		cores, dur := 1+r.IntN(20), 10+r.IntN(300)
		at := int64(step * 3)
		k := r.IntN(10)
		var out [2]string
		for i, m := range impls {
			js := spec(t, m, fmt.Sprintf(socketJob, cores, dur))
			switch {
			case k < 5:
				op := []gofluxion.Op{gofluxion.Allocate, gofluxion.AllocateOrElseReserve, gofluxion.AllocateWithSatisfiability, gofluxion.WithoutAllocating}[k%4]
				a, err := m.Match(op, js, at)
				out[i] = errText(err)
				if err == nil {
					for _, f := range gofluxion.MatchFormats() {
						s, _ := a.Render(f)
						out[i] += s
					}
					out[i] += fmt.Sprint(a.JobID, a.Start, a.End, a.Reserved, len(a.Resources))
					if i == 0 && a.JobID != 0 {
						ids = append(ids, a.JobID)
					}
				}
			case k < 7 && len(ids) > 0:
				err := m.Cancel(ids[(step*7)%len(ids)])
				out[i] = errText(err)
			case k < 8:
				e, err := m.Explain(js, at)
				out[i] = errKind(err) + fmt.Sprintf("%+v", e)
			case k < 9:
				err := m.Satisfiable(spec(t, m, fmt.Sprintf(socketJob, 40, 10)))
				s, ferr := m.FindAt("sched-now=allocated", "rv1_nosched", at)
				out[i] = errKind(err) + s + errKind(ferr)
			default:
				j, err := m.Info(uint64(step % 20))
				up, serr := m.Status("/demo0/rack0/node1")
				out[i] = fmt.Sprint(j.ID, j.State, j.Start, j.End, errKind(err), up, errKind(serr))
			}
		}
		if out[0] != out[1] {
			t.Fatalf("step %d: in process:\n%s\nremote:\n%s", step, out[0], out[1])
		}
	}
	lj, _ := local.JobTable()
	rj, err := remote.JobTable()
	if err != nil || len(lj) != len(rj) {
		t.Fatalf("job tables: %d vs %d (%v)", len(lj), len(rj), err)
	}
	for i := range lj {
		lj[i].Overhead, rj[i].Overhead = 0, 0
	}
	if !reflect.DeepEqual(lj, rj) {
		t.Fatal("job tables differ")
	}
	var buf bytes.Buffer
	if err := remote.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := gofluxion.Restore(&buf)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := back.FindAt("status=up", "jgf", 0)
	b, _ := local.FindAt("status=up", "jgf", 0)
	if a != b {
		t.Fatal("the remote snapshot restores to another state")
	}
	// Graph operations (those the Kubernetes plugin uses) agree too.
	type graphOps interface {
		Attach([]byte) error
		Remove(string) error
		RemoveRanks(string) error
		SetRankStatus(string, bool) error
	}
	node6, _ := local.FindAt("names=node6", "jgf", 0)
	for _, m := range []graphOps{local, remote} {
		if err := m.Remove("/demo0/rack1/node6"); err != nil {
			t.Fatal(err)
		}
		if err := m.SetRankStatus("3", false); err != nil {
			t.Fatal(err)
		}
		if err := m.RemoveRanks("5"); err != nil {
			t.Fatal(err)
		}
		if err := m.Attach([]byte(node6)); err != nil {
			t.Fatal(err)
		}
	}
	for _, crit := range []string{"status=up", "status=down", "sched-now=allocated"} {
		a, _ := remote.FindAt(crit, "jgf", 0)
		b, _ := local.FindAt(crit, "jgf", 0)
		if a != b {
			t.Fatalf("after graph operations, find %q differs", crit)
		}
	}
	if st, err := remote.Stats(); err != nil || st.Vertices != local.Stat().Vertices || st.Jobs != local.Stat().Jobs {
		t.Fatalf("stats %+v (%v), local %+v", st, err, local.Stat())
	}
	// Errors keep their sentinel across the wire.
	if err := remote.Cancel(123456); !errors.Is(err, gofluxion.ErrNotFound) {
		t.Fatalf("cancel of an unknown job: %v", err)
	}
}

// TestChildOfRemoteParent nests an in-process child instance in a matcher
// that runs in the service: the hierarchy needs nothing but the interface
// between the levels.
func TestChildOfRemoteParent(t *testing.T) {
	parent := startRemote(t)
	a, err := parent.Match(gofluxion.Allocate, spec(t, parent, fmt.Sprintf(socketJob, 8, 1000)), 0)
	if err != nil {
		t.Fatal(err)
	}
	child, err := gofluxion.NewChild(parent, a, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cj, err := child.Match(gofluxion.Allocate, spec(t, child, fmt.Sprintf(socketJob, 8, 100)), 10)
	if err != nil {
		t.Fatalf("child match: %v", err)
	}
	g, err := child.Grow(spec(t, parent, fmt.Sprintf(socketJob, 4, 0)), 20)
	if err != nil {
		t.Fatalf("grow: %v", err)
	}
	if j, err := parent.Info(g.JobID); err != nil || j.End != a.End {
		t.Fatalf("the parent's grow job: %+v %v (grant ends at %d)", j, err, a.End)
	}
	var sock string
	for _, r := range g.Resources {
		if r.Type == "socket" {
			sock = r.Path
		}
	}
	if err := child.Shrink(sock); err != nil {
		t.Fatalf("shrink %s: %v", sock, err)
	}
	if _, err := parent.Info(g.JobID); err == nil {
		if j, _ := parent.Info(g.JobID); j.State != gofluxion.Canceled {
			t.Fatalf("the grown part is still held: %+v", j)
		}
	}
	if err := child.Release(); !errors.Is(err, gofluxion.ErrBusy) {
		t.Fatalf("release with a live child job: %v, want ErrBusy", err)
	}
	if err := child.Cancel(cj.JobID); err != nil {
		t.Fatal(err)
	}
	if err := child.Release(); err != nil {
		t.Fatal(err)
	}
	if s, _ := parent.FindAt("sched-now=allocated", "simple", 0); strings.TrimSpace(s) != "" {
		t.Fatalf("the parent still holds:\n%s", s)
	}
}

// TestEncodeJobspec checks that every jobspec of the repository's and
// Fluxion's corpora that parses encodes to a document that parses back to
// an equal Jobspec.
func TestEncodeJobspec(t *testing.T) {
	var files []string
	for _, pat := range []string{"../../testdata/jobspecs/*.yaml", "../../../shared/conformance/data/resource/jobspecs/*/*.yaml"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no jobspec corpus")
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, err := jobspec.Parse(data, jobspec.Options{})
		if err != nil {
			continue
		}
		enc, err := wire.EncodeJobspec(js)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		back, err := jobspec.Parse(enc, jobspec.Options{})
		if err != nil {
			t.Fatalf("%s: encoded %s does not parse: %v", f, enc, err)
		}
		if !reflect.DeepEqual(js, back) {
			t.Fatalf("%s: round trip changes the jobspec:\n%+v\n%+v\n%s", f, js, back, enc)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d jobspecs parsed", n)
	}
	t.Logf("%d jobspecs round-trip", n)
}

// retryStub answers the first attempt of an Apply with UNAVAILABLE (an
// answer lost) and the retry as a server whose session was evicted does.
type retryStub struct {
	pb.UnimplementedMatcherServer
	retries []bool
}

func (s *retryStub) Apply(_ context.Context, op *pb.Op) (*pb.Result, error) {
	s.retries = append(s.retries, op.GetRetry())
	if len(s.retries) == 1 {
		return nil, status.Error(codes.Unavailable, "answer lost")
	}
	st, err := status.New(codes.FailedPrecondition, "session evicted").WithDetails(&errdetails.ErrorInfo{Reason: wire.OutcomeUnknownReason, Domain: "gofluxion"})
	if err != nil {
		panic(err)
	}
	return nil, st.Err()
}

// TestOutcomeUnknown: the client marks every attempt after the first as
// a retry, and surfaces the server's refusal of an evicted session's
// retry as ErrOutcomeUnknown.
func TestOutcomeUnknown(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	stub := &retryStub{}
	pb.RegisterMatcherServer(gs, stub)
	go gs.Serve(lis)
	defer gs.Stop()
	c, err := client.Dial([]string{lis.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Cancel(7)
	if !errors.Is(err, client.ErrOutcomeUnknown) || !strings.Contains(err.Error(), "check with Info") {
		t.Fatalf("Cancel: %v, want ErrOutcomeUnknown", err)
	}
	if !reflect.DeepEqual(stub.retries, []bool{false, true}) {
		t.Fatalf("attempts marked retry %v, want [false true]", stub.retries)
	}
}

// TestPipelining: one client with many operations in flight (32
// goroutines sharing it), its sequence numbers arriving in any order:
// every operation is applied once, at its own index, and every match's
// cancel finds its job.
func TestPipelining(t *testing.T) {
	c := startRemote(t)
	js := spec(t, c, `version: 1
resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`)
	const workers, pairs = 32, 10
	idx := make(chan uint64, workers*pairs*2)
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range pairs {
				a, err := c.Match(gofluxion.Allocate, js, int64(w*pairs+i))
				if err != nil {
					errs <- err
					return
				}
				res, err := c.Apply(context.Background(), &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: a.JobID}}})
				if err == nil && res.GetError() != nil {
					err = fmt.Errorf("cancel %d: %s", a.JobID, res.GetError().GetMessage())
				}
				if err != nil {
					errs <- err
					return
				}
				idx <- res.GetIndex()
			}
			errs <- nil
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		t.Fatal(first)
	}
	close(idx)
	seen := map[uint64]bool{}
	for i := range idx {
		if seen[i] {
			t.Fatalf("two cancels answered at index %d", i)
		}
		seen[i] = true
	}
	st, err := c.Stats()
	if err != nil || st.Jobs != 0 || len(seen) != workers*pairs {
		t.Fatalf("%d cancels answered, %d jobs left (%v)", len(seen), st.Jobs, err)
	}
}

// Usage, the picture and the job table's nodes are on gofluxion.Interface:
// the client answers as the in-process matcher does (issue 21, item 4).
func TestUsageAndPictureRemote(t *testing.T) {
	local, _ := demo()
	remote := startRemote(t)
	for i, m := range []gofluxion.Interface{local, remote} {
		for _, y := range []string{fmt.Sprintf(socketJob, 12, 3600), fmt.Sprintf(socketJob, 16, 600), fmt.Sprintf(socketJob, 16, 600)} {
			if _, err := m.Match(gofluxion.AllocateOrElseReserve, spec(t, m, y), 0); err != nil {
				t.Fatalf("impl %d: %v", i, err)
			}
		}
	}
	for _, at := range []int64{0, 3600} {
		lu, _ := local.UsageAt(at)
		ru, err := remote.UsageAt(at)
		if err != nil || fmt.Sprint(lu) != fmt.Sprint(ru) || len(lu) == 0 {
			t.Errorf("UsageAt(%d): local %v, remote %v, %v", at, lu, ru, err)
		}
		for _, o := range []picture.Options{{At: at}, {At: at, Root: "/demo0/rack1", Depth: 1, MaxJobs: 1}, {At: at, Full: true}} {
			var lb, rb bytes.Buffer
			lerr, rerr := local.WriteDOT(&lb, o), remote.WriteDOT(&rb, o)
			if lerr != nil || rerr != nil || lb.String() != rb.String() || !strings.Contains(rb.String(), "digraph") {
				t.Errorf("WriteDOT(%+v): local %v, remote %v\n%s\n%s", o, lerr, rerr, lb.String(), rb.String())
			}
		}
	}
	var b bytes.Buffer
	if err := remote.WriteDOT(&b, picture.Options{Root: "/nope"}); !errors.Is(err, gofluxion.ErrInvalid) {
		t.Errorf("remote WriteDOT of a missing root: %v", err)
	}
	lj, _ := local.JobTable()
	rj, err := remote.JobTable()
	for i := range lj {
		lj[i].Overhead = 0
	}
	for i := range rj {
		rj[i].Overhead = 0
	}
	if err != nil || !slices.Equal(lj, rj) || lj[0].Nodes == "" {
		t.Errorf("job tables: local %+v, remote %+v, %v", lj, rj, err)
	}
}

// TestCallAfterClose: a call on a closed client fails with ErrClosed (it
// divided by zero before).
func TestCallAfterClose(t *testing.T) {
	c, err := client.Dial([]string{"127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.Info(1); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("Info after Close: %v, want ErrClosed", err)
	}
	if err := c.Cancel(1); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("Cancel after Close: %v, want ErrClosed", err)
	}
}
