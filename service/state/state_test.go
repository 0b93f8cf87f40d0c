package state_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

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

func clientOp(client string, seq, acked uint64, at time.Duration, retry bool) *pb.Op {
	o := op(seq, acked)
	o.Client, o.Time, o.Retry = client, int64(at), retry
	return o
}

// TestEvictedRetry: a retry whose session was evicted (by count) within
// the retry window is refused as "outcome unknown" and changes nothing;
// without evictions a retry the table does not know (its first attempt
// never committed) is applied; a new request of an evicted client starts
// a new session.
func TestEvictedRetry(t *testing.T) {
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := state.New(m, state.Options{MaxSessions: 4})
	at := time.Hour // log time
	idx := uint64(0)
	apply := func(o *pb.Op) *pb.Result { idx++; return s.Apply(idx, o) }
	// A retry never seen, nothing evicted yet: applied.
	if r := apply(clientOp("lost", 1, 1, at, true)); r.GetError() != nil {
		t.Fatal(r)
	}
	first := apply(clientOp("a", 1, 1, at, false))
	if first.GetError() != nil {
		t.Fatal(first)
	}
	if r := apply(clientOp("a", 1, 1, at+time.Second, true)); !proto.Equal(r, first) {
		t.Fatalf("retry before eviction answered %v, want %v", r, first)
	}
	for i := range 5 { // one-shot clients evict "a" (and "lost")
		if r := apply(clientOp(fmt.Sprint("one-shot", i), 1, 1, at+2*time.Second, false)); r.GetError() != nil {
			t.Fatal(r)
		}
	}
	if slices.Contains(s.Clients(), "a") {
		t.Fatalf("a not evicted: %v", s.Clients())
	}
	jobs := len(s.Matcher().Jobs())
	r := apply(clientOp("a", 1, 1, at+time.Minute, true))
	if r.GetError().GetKind() != state.KindOutcomeUnknown {
		t.Fatalf("retry after eviction answered %v, want %s", r, state.KindOutcomeUnknown)
	}
	if n := len(s.Matcher().Jobs()); n != jobs {
		t.Fatalf("the refused retry changed the jobs: %d, want %d", n, jobs)
	}
	// A new request (not a retry) of the evicted client is applied.
	if r := apply(clientOp("a", 2, 2, at+time.Minute, false)); r.GetError() != nil {
		t.Fatal(r)
	}
	// Past the retry window no retry can belong to the evicted sessions.
	later := at + 2*time.Second + state.RetryWindow + time.Second
	if r := apply(clientOp("b", 1, 1, later, true)); r.GetError() != nil {
		t.Fatalf("retry past the window: %v", r)
	}
}

// TestSessionExpiry: sessions expire after MaxAge of log time (the time
// stamped on operations, so every replica expires the same ones, and a
// replica restored from a snapshot too).
func TestSessionExpiry(t *testing.T) {
	opts := state.Options{MaxAge: time.Hour}
	mk := func() *state.State {
		m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return state.New(m, opts)
	}
	a, b := mk(), mk()
	ops := []*pb.Op{
		clientOp("old", 1, 1, time.Hour, false),
		clientOp("mid", 1, 1, time.Hour+30*time.Minute, false),
		clientOp("new", 1, 1, 2*time.Hour+10*time.Minute, false),
	}
	for i, o := range ops {
		a.Apply(uint64(i+1), o)
	}
	if got := a.Clients(); !slices.Equal(got, []string{"mid", "new"}) {
		t.Fatalf("clients %v, want [mid new] (old expired)", got)
	}
	// b restores a snapshot taken after the first two ops and goes on.
	for i, o := range ops[:2] {
		b.Apply(uint64(i+1), o)
	}
	var buf bytes.Buffer
	if err := b.Freeze().Write(&buf); err != nil {
		t.Fatal(err)
	}
	c := mk()
	if err := c.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	c.Apply(3, ops[2])
	if !slices.Equal(c.Clients(), a.Clients()) {
		t.Fatalf("restored replica has %v, the other %v", c.Clients(), a.Clients())
	}
	// An expired session's retry long after is not refused (it cannot be
	// a retry of an operation the expired session held)...
	if r := a.Apply(4, clientOp("old", 1, 1, 2*time.Hour+11*time.Minute, true)); r.GetError() != nil {
		t.Fatal(r)
	}
	// ...and a clock going back (another leader's) does not move log time back.
	a.Apply(5, clientOp("x", 1, 1, time.Minute, false))
	if got := a.Clients(); !slices.Contains(got, "new") {
		t.Fatalf("clients %v", got)
	}
}

// TestSessionResultsBounded: a client that never acknowledges (Acked
// stays at its first request) cannot grow its session without bound:
// past MaxResults answers the lowest are dropped, the snapshot stops
// growing, and a retry of a dropped request is refused as OUTCOME_UNKNOWN
// without being applied again; a retry of a kept one is still answered.
func TestSessionResultsBounded(t *testing.T) {
	s := newState(t)
	idx := uint64(0)
	apply := func(o *pb.Op) *pb.Result { idx++; return s.Apply(idx, o) }
	first := apply(clientOp("greedy", 1, 1, time.Hour, false))
	if first.GetError() != nil {
		t.Fatal(first)
	}
	jobs := len(s.Matcher().Jobs())
	size := func() int {
		var buf bytes.Buffer
		if err := s.Freeze().Write(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Len()
	}
	var last *pb.Result
	seq := uint64(1)
	send := func(n int) {
		for range n {
			seq++
			last = apply(&pb.Op{Client: "greedy", Seq: seq, Acked: 1, Time: int64(time.Hour),
				Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 1 << 40}}})
		}
	}
	send(2 * state.MaxResults)
	half := size()
	send(2 * state.MaxResults)
	if full := size(); full > half+half/4 {
		t.Fatalf("the snapshot grew from %d to %d bytes with the answers of a client that never acknowledges", half, full)
	}
	r := apply(clientOp("greedy", 1, 1, time.Hour+time.Second, true))
	if r.GetError().GetKind() != state.KindOutcomeUnknown {
		t.Fatalf("retry of a dropped answer: %v, want %s", r, state.KindOutcomeUnknown)
	}
	if n := len(s.Matcher().Jobs()); n != jobs {
		t.Fatalf("the retry of a dropped answer was applied again: %d jobs, want %d", n, jobs)
	}
	again := apply(&pb.Op{Client: "greedy", Seq: seq, Acked: 1, Retry: true, Time: int64(time.Hour + time.Second),
		Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 1 << 40}}})
	if !proto.Equal(again, last) {
		t.Fatalf("retry of a kept answer: %v, want %v", again, last)
	}
}

// TestClockJump: log time that jumps forward (the new leader's clock is
// ahead of the old one's, or a clock was stepped) is no proof that real
// time passed. A client whose answer was lost just before the jump
// retries seconds later; its session, expired by age or evicted by count
// at the jump, must not let the retry be applied a second time: it is
// refused as OUTCOME_UNKNOWN, alike on a replica restored from a
// snapshot taken after the jump.
func TestClockJump(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts state.Options
		jump time.Duration
		// others are the clients whose operations follow the jump.
		others []string
	}{
		{"expiry by age", state.Options{MaxAge: time.Hour}, 2 * time.Hour, []string{"b"}},
		{"eviction by count", state.Options{MaxSessions: 2}, 20 * time.Minute, []string{"b", "c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := state.New(m, tc.opts)
			idx := uint64(0)
			apply := func(s *state.State, o *pb.Op) *pb.Result { idx++; return s.Apply(idx, o) }
			at := 10 * time.Hour
			if r := apply(s, clientOp("a", 1, 1, at, false)); r.GetError() != nil { // its answer is lost
				t.Fatal(r)
			}
			for _, c := range tc.others {
				if r := apply(s, clientOp(c, 1, 1, at+tc.jump, false)); r.GetError() != nil {
					t.Fatal(r)
				}
			}
			if slices.Contains(s.Clients(), "a") {
				t.Fatalf("a's session is still there: %v", s.Clients())
			}
			var buf bytes.Buffer
			if err := s.Freeze().Write(&buf); err != nil {
				t.Fatal(err)
			}
			restored := state.New(nil, tc.opts)
			if err := restored.Restore(&buf); err != nil {
				t.Fatal(err)
			}
			saved := idx
			for name, st := range map[string]*state.State{"leader": s, "restored replica": restored} {
				idx = saved
				jobs := len(st.Matcher().Jobs())
				r := apply(st, clientOp("a", 1, 1, at+tc.jump+time.Second, true))
				if n := len(st.Matcher().Jobs()); n != jobs {
					t.Fatalf("%s: a retry was applied twice after a forward jump of log time: %d jobs, was %d", name, n, jobs)
				}
				if r.GetError().GetKind() != state.KindOutcomeUnknown {
					t.Fatalf("%s: the retry answered %v, want %s", name, r, state.KindOutcomeUnknown)
				}
			}
		})
	}
}

// TestParsedJobspecCache: the state caches parsed jobspecs; a stream of
// matches of a few shapes, cancels and graph changes (which may change
// the types a parse accepts) gives the same results as the library
// parsing every jobspec afresh.
func TestParsedJobspecCache(t *testing.T) {
	st := newState(t)
	ref, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	gpu := `version: 1
resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}, {type: gpu, count: 1}]}]}]}]
attributes: {system: {duration: 10}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`
	specs := []string{job, gpu, "version: 1\nresources: ["}
	var ops []*pb.Op
	for i := range 60 {
		ops = append(ops, &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: []byte(specs[i%len(specs)]), At: int64(i)}}})
		if i%7 == 0 {
			ops = append(ops, &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: uint64(i / 2)}}})
		}
		if i == 30 {
			ops = append(ops, &pb.Op{Kind: &pb.Op_RemoveRanks{RemoveRanks: &pb.RemoveRanks{Ranks: "0-6"}}})
		}
	}
	for i, o := range ops {
		got := st.Apply(uint64(i+1), o)
		var werr error
		switch k := o.GetKind().(type) {
		case *pb.Op_Match:
			js, err := ref.ParseJobspec(k.Match.GetJobspec())
			if werr = err; err == nil {
				_, werr = ref.Match(gofluxion.Allocate, js, k.Match.GetAt())
			}
		case *pb.Op_Cancel:
			werr = ref.Cancel(k.Cancel.GetId())
		case *pb.Op_RemoveRanks:
			werr = ref.RemoveRanks(k.RemoveRanks.GetRanks())
		}
		if (werr == nil) != (got.GetError() == nil) || werr != nil && werr.Error() != got.GetError().GetMessage() {
			t.Fatalf("op %d (%v): state gives %v, the library %v", i+1, o, got.GetError(), werr)
		}
	}
	if fmt.Sprint(ref.Jobs()) == "" || len(ref.Jobs()) != len(st.Matcher().Jobs()) {
		t.Fatalf("%d jobs in the state, %d in the library", len(st.Matcher().Jobs()), len(ref.Jobs()))
	}
}
