package state_test

import (
	"bytes"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"google.golang.org/protobuf/proto"
)

const job = `version: 1
resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]}]}]
attributes: {system: {duration: 10}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

func newState(t *testing.T) *state.State {
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return state.New(m)
}

func op(seq, acked uint64) *pb.Op {
	return &pb.Op{Client: "c", Seq: seq, Acked: acked, Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: []byte(job)}}}
}

// TestSessions: a retried request is answered from the session table and
// not applied again, also when requests of one client arrive out of
// order; answers the client acknowledged are forgotten and their retries
// refused; the table survives a snapshot.
func TestSessions(t *testing.T) {
	s := newState(t)
	r2 := s.Apply(1, op(2, 1))
	r1 := s.Apply(2, op(1, 1))
	if r1.GetError() != nil || r2.GetError() != nil {
		t.Fatal(r1, r2)
	}
	again := s.Apply(3, op(2, 1))
	if !proto.Equal(again, r2) {
		t.Fatalf("retry answered %v, want the first answer %v", again, r2)
	}
	if n := len(s.Matcher().Jobs()); n != 2 {
		t.Fatalf("%d jobs after a retry, want 2", n)
	}
	var buf bytes.Buffer
	if err := s.Freeze().Write(&buf); err != nil {
		t.Fatal(err)
	}
	c := newState(t)
	if err := c.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	if got := c.Apply(4, op(1, 1)); !proto.Equal(got, r1) || c.Applied() != 4 {
		t.Fatalf("restored session answered %v, want %v", got, r1)
	}
	// The client acknowledges everything below 3: seq 1 is forgotten.
	if r := c.Apply(5, op(3, 3)); r.GetError() != nil {
		t.Fatal(r)
	}
	if r := c.Apply(6, op(1, 3)); r.GetError().GetKind() != "invalid" {
		t.Fatalf("a forgotten request was answered: %v", r)
	}
	if n := len(c.Matcher().Jobs()); n != 3 {
		t.Fatalf("%d jobs, want 3", n)
	}
}

// TestFailedOpsAreDeterministic: a failing operation fails the same way
// on two replicas and leaves both equal.
func TestFailedOpsAreDeterministic(t *testing.T) {
	a, b := newState(t), newState(t)
	bad := []*pb.Op{
		{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 42}}},
		{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: []byte("nope")}}},
		{Kind: &pb.Op_PartialCancel{PartialCancel: &pb.PartialCancel{Id: 1, R: []byte("{}")}}},
		{Kind: &pb.Op_SetStatus{SetStatus: &pb.SetStatus{Path: "/nope"}}},
		{},
	}
	for i, o := range bad {
		ra, rb := a.Apply(uint64(i+1), o), b.Apply(uint64(i+1), o)
		if ra.GetError() == nil || !proto.Equal(ra, rb) {
			t.Fatalf("op %d: %v / %v", i, ra, rb)
		}
	}
	fa, _ := a.Matcher().FindAt("status=up", "jgf", 0)
	fb, _ := b.Matcher().FindAt("status=up", "jgf", 0)
	if fa != fb {
		t.Fatal("replicas differ after failed operations")
	}
}
