package server_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"google.golang.org/protobuf/proto"
)

// acked is an operation a client got an answer for.
type acked struct {
	op  *pb.Op
	res *pb.Result
	at  time.Time // when the answer arrived
}

func jobspecYAML(cores, duration int) []byte {
	return fmt.Appendf(nil, `version: 1
resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: %d}]}]}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`, cores, duration)
}

// runClients runs nclients clients doing perClient operations each
// against addrs: matches (allocate, or else reserve) of a few cores at
// the client's own clock, and cancels of the client's own jobs. Every
// operation is retried until it is answered. onAck sees the running count
// of answers.
func runClients(t testing.TB, addrs []string, nclients, perClient int, onAck func(n int64)) []acked {
	t.Helper()
	var (
		mu    sync.Mutex
		acks  []acked
		count atomic.Int64
		wg    sync.WaitGroup
		errs  = make(chan error, nclients)
	)
	for k := range nclients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := client.Dial(addrs, withCreds(client.Options{Timeout: 3 * time.Minute, AttemptTimeout: 2 * time.Second}))
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			r := rand.New(rand.NewPCG(uint64(k), 7))
			var live []uint64
			now := int64(0)
			for range perClient {
				now += int64(r.IntN(10))
				var op *pb.Op
				if len(live) > 0 && r.IntN(10) < 3 {
					i := r.IntN(len(live))
					op = &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: live[i]}}}
					live = slices.Delete(live, i, i+1)
				} else {
					mop := gofluxion.Allocate
					if r.IntN(4) == 0 {
						mop = gofluxion.AllocateOrElseReserve
					}
					op = &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(mop), Jobspec: jobspecYAML(1+r.IntN(4), 20+r.IntN(200)), At: now}}}
				}
				res, err := c.Apply(context.Background(), op)
				if err != nil {
					errs <- fmt.Errorf("client %d: %v", k, err)
					return
				}
				if m := op.GetMatch(); m != nil && res.GetError() == nil {
					var a gofluxion.Allocation
					if err := a.UnmarshalBinary(res.GetAllocation()); err != nil {
						errs <- err
						return
					}
					live = append(live, a.JobID)
				}
				mu.Lock()
				acks = append(acks, acked{op: proto.Clone(op).(*pb.Op), res: res, at: time.Now()})
				mu.Unlock()
				if onAck != nil {
					onAck(count.Add(1))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return acks
}

func newDemo(t testing.TB) *gofluxion.Matcher {
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// replay applies acks in commit order to a fresh state machine, checks
// that each gives the answer the client got and that no vertex is ever
// booked by two live jobs at overlapping times, and returns the state.
func replay(t testing.TB, acks []acked) *state.State {
	t.Helper()
	sort.Slice(acks, func(i, j int) bool { return acks[i].res.GetIndex() < acks[j].res.GetIndex() })
	st := state.New(newDemo(t))
	type span struct {
		job        uint64
		start, end int64
	}
	booked := map[string][]span{}
	for i, a := range acks {
		if i > 0 && a.res.GetIndex() == acks[i-1].res.GetIndex() {
			t.Fatalf("two acknowledged operations at index %d", a.res.GetIndex())
		}
		got := st.Apply(a.res.GetIndex(), a.op)
		sameResult(t, a.res, got)
		if c := a.op.GetCancel(); c != nil && got.GetError() == nil {
			for p, l := range booked {
				booked[p] = slices.DeleteFunc(l, func(s span) bool { return s.job == c.GetId() })
			}
		}
		if a.op.GetMatch() != nil && got.GetError() == nil {
			var al gofluxion.Allocation
			if err := al.UnmarshalBinary(got.GetAllocation()); err != nil {
				t.Fatal(err)
			}
			for _, r := range al.Resources {
				if !r.Exclusive {
					continue
				}
				for _, s := range booked[r.Path] {
					if s.start < al.End && al.Start < s.end {
						t.Fatalf("index %d: %s booked by job %d [%d, %d) and job %d [%d, %d)", a.res.GetIndex(), r.Path, s.job, s.start, s.end, al.JobID, al.Start, al.End)
					}
				}
				booked[r.Path] = append(booked[r.Path], span{al.JobID, al.Start, al.End})
			}
		}
	}
	return st
}

// sameResult compares two results of the same operation, apart from the
// wall-time overheads.
func sameResult(t testing.TB, want, got *pb.Result) {
	t.Helper()
	if want.GetIndex() != got.GetIndex() || !proto.Equal(want.GetError(), got.GetError()) || want.GetFull() != got.GetFull() {
		t.Fatalf("index %d: acknowledged %v, replay gives %v", want.GetIndex(), want, got)
	}
	if (len(want.GetAllocation()) == 0) != (len(got.GetAllocation()) == 0) {
		t.Fatalf("index %d: allocation presence differs", want.GetIndex())
	}
	if len(want.GetAllocation()) == 0 {
		return
	}
	var a, b gofluxion.Allocation
	if err := a.UnmarshalBinary(want.GetAllocation()); err != nil {
		t.Fatal(err)
	}
	if err := b.UnmarshalBinary(got.GetAllocation()); err != nil {
		t.Fatal(err)
	}
	ra, _ := a.Render("rv1")
	rb, _ := b.Render("rv1")
	if a.JobID != b.JobID || a.Start != b.Start || a.End != b.End || a.Reserved != b.Reserved || ra != rb {
		t.Fatalf("index %d: acknowledged job %d [%d, %d) %s\nreplay gives job %d [%d, %d) %s", want.GetIndex(), a.JobID, a.Start, a.End, ra, b.JobID, b.Start, b.End, rb)
	}
}

var findCriteria = []string{"status=up", "sched-now=allocated", "sched-future=reserved", "sched-now=free and sched-future=free"}

// sameState compares what remote answers with the replayed state: Find
// outputs (jgf, byte for byte) and the job table (without overheads).
func sameState(t testing.TB, name string, remote gofluxion.Interface, st *state.State) {
	t.Helper()
	m := st.Matcher()
	for _, crit := range findCriteria {
		got, err := remote.FindAt(crit, "jgf", 0)
		if err != nil {
			t.Fatalf("%s: find %q: %v", name, crit, err)
		}
		want, _ := m.FindAt(crit, "jgf", 0)
		if got != want {
			t.Fatalf("%s: find %q differs from the replay (%d vs %d bytes)", name, crit, len(got), len(want))
		}
	}
	got, err := remote.JobTable()
	if err != nil {
		t.Fatalf("%s: jobs: %v", name, err)
	}
	want := m.Jobs()
	strip := func(l []gofluxion.Job) []gofluxion.Job {
		out := slices.Clone(l)
		for i := range out {
			out[i].Overhead = 0
		}
		return out
	}
	if g, w := strip(got), strip(want); !slices.Equal(g, w) {
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("%s: job table differs from the replay (%d vs %d jobs): first at %d: %+v vs %+v", name, len(got), len(want), i, g[i], w[i])
			}
		}
		t.Fatalf("%s: job table differs from the replay (%d vs %d jobs)", name, len(got), len(want))
	}
}
