package server_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"github.com/gofluxion/gofluxion/service/state"
	"google.golang.org/protobuf/proto"
)

// batchStream is a stream of operations from several clients: matches,
// cancels (some of unknown jobs), retries of earlier operations (answered
// from the session table), operations without a session, bad jobspecs.
func batchStream(t *testing.T, n int, seed uint64) [][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	g, err := state.NewGenesis(newDemo(t), &state.Config{})
	if err != nil {
		t.Fatal(err)
	}
	g.Time = 1
	var out [][]byte
	add := func(op *pb.Op) {
		b, err := proto.Marshal(op)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	add(g)
	seqs := map[string]uint64{}
	var sent []*pb.Op
	var id uint64
	for i := range n {
		c := fmt.Sprint("c", r.IntN(5))
		var op *pb.Op
		switch k := r.IntN(10); {
		case k < 5:
			id++
			js := jobspecYAML(1+r.IntN(4), 1+r.IntN(50))
			if r.IntN(20) == 0 {
				js = []byte("version: 1\nresources: [")
			}
			op = &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.AllocateOrElseReserve), Jobspec: js, WithId: true, Id: id, At: int64(r.IntN(100))}}}
		case k < 8:
			op = &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: uint64(r.IntN(int(id) + 2))}}}
		case len(sent) > 0:
			// A retry of an earlier operation (its result comes from the
			// session table, or it is refused as acknowledged already).
			op = proto.Clone(sent[r.IntN(len(sent))]).(*pb.Op)
			op.Retry = true
		default:
			op = &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 1}}}
		}
		if op.GetClient() == "" && r.IntN(10) != 0 { // some have no session
			seqs[c]++
			op.Client, op.Seq = c, seqs[c]
			op.Acked = max(1, seqs[c]-uint64(r.IntN(4)))
		}
		op.Time = int64(i + 2)
		sent = append(sent, op)
		add(op)
	}
	return out
}

// TestBatchedEntriesSameAsOneByOne: a stream applied as batch entries of
// random sizes gives every operation the same result (index, error,
// allocation; a retry answered from the session table keeps its first
// index) and leaves the same state (graph, job table, session table,
// applied index: one per operation) as the same stream applied one entry per
// operation.
func TestBatchedEntriesSameAsOneByOne(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			ops := batchStream(t, 600, seed)
			one := state.New(nil)
			var want []*pb.Result
			for _, op := range ops {
				want = append(want, server.ApplyEntry(one, server.EncodeEntry([][]byte{op}))...)
			}
			r := rand.New(rand.NewPCG(seed, 2))
			batched := state.New(nil)
			var got []*pb.Result
			entries := 0
			for i := 0; i < len(ops); {
				n := min(1+r.IntN(40), len(ops)-i)
				got = append(got, server.ApplyEntry(batched, server.EncodeEntry(ops[i:i+n]))...)
				i += n
				entries++
			}
			if len(got) != len(want) || len(got) != len(ops) {
				t.Fatalf("%d results batched, %d one by one, for %d operations", len(got), len(want), len(ops))
			}
			errs := 0
			for i := range want {
				sameResult(t, want[i], got[i])
				if want[i].GetError() != nil {
					errs++
				}
			}
			if errs == 0 || errs == len(want) {
				t.Fatalf("%d of %d operations failed: the stream does not exercise both", errs, len(want))
			}
			if one.Applied() != uint64(len(ops)) || one.Applied() != batched.Applied() || fmt.Sprint(one.Clients()) != fmt.Sprint(batched.Clients()) {
				t.Fatalf("applied %d vs %d, sessions %v vs %v", one.Applied(), batched.Applied(), one.Clients(), batched.Clients())
			}
			sameState(t, "batched", batched.Matcher(), one)
			t.Logf("%d operations in %d entries, %d failed, %d jobs", len(ops), entries, errs, len(one.Matcher().Jobs()))
		})
	}
}

// TestEntryDecoding: a plain entry is one Op; a batch whose count or
// lengths do not fit its bytes is refused, changes nothing, and fails
// alike everywhere.
func TestEntryDecoding(t *testing.T) {
	a, _ := proto.Marshal(&pb.Op{Client: "a", Seq: 1, Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 7}}})
	b, _ := proto.Marshal(&pb.Op{Client: "b", Seq: 1, Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 8}}})
	if e := server.EncodeEntry([][]byte{a}); string(e) != string(a) {
		t.Fatal("a lone operation is not encoded as itself")
	}
	ops, err := server.EntryOps(server.EncodeEntry([][]byte{a, b}))
	if err != nil || len(ops) != 2 || ops[0].GetClient() != "a" || ops[1].GetClient() != "b" {
		t.Fatalf("batch of two: %v %v", ops, err)
	}
	good := server.EncodeEntry([][]byte{a, b})
	for name, bad := range map[string][]byte{
		"truncated":   good[:len(good)-1],
		"extra bytes": append(append([]byte{}, good...), 0),
		"zero count":  {0, 'B', 0},
		"huge count":  {0, 'B', 0xff, 0xff, 0x03},
		"huge length": {0, 'B', 1, 0xff, 0xff, 0x03},
	} {
		st := state.New(newDemo(t))
		res := server.ApplyEntry(st, bad)
		if _, err := server.EntryOps(bad); err == nil || len(res) != 1 || res[0].GetError().GetKind() != "invalid" || st.Applied() != 0 {
			t.Errorf("%s: decode error %v, results %v, applied %d", name, err, res, st.Applied())
		}
	}
}
