package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// TestEvictedSessionRetry: on a real server whose session table holds 8
// clients, a client's answered request is retried (as its client would
// after a lost answer) after 20 one-shot clients evicted its session. The
// retry is refused with FAILED_PRECONDITION and the OUTCOME_UNKNOWN
// reason, and no second job is booked; a retry before the eviction is
// answered from the table.
func TestEvictedSessionRetry(t *testing.T) {
	for _, mode := range []string{"standalone", "raft"} {
		t.Run(mode, func(t *testing.T) {
			addr := freePort(t)
			args := []string{"-mode", mode, "-data", t.TempDir(), "-graph", "demo", "-sessions", "8"}
			if mode == "raft" {
				args = append(args, "-raft", freePort(t), "-bootstrap")
			}
			d := startDaemon(t, addr, args...)
			d.waitServing(time.Minute)
			cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			stub := pb.NewMatcherClient(cc)
			apply := func(op *pb.Op) (*pb.Result, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				for {
					res, err := stub.Apply(ctx, op)
					if status.Code(err) == codes.Unavailable && ctx.Err() == nil { // no leader yet
						time.Sleep(50 * time.Millisecond)
						continue
					}
					return res, err
				}
			}
			match := func(client string) *pb.Op {
				return &pb.Op{Client: client, Seq: 1, Acked: 1, Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 1000)}}}
			}
			first, err := apply(match("A"))
			if err != nil || first.GetError() != nil {
				t.Fatal(err, first.GetError())
			}
			retry := match("A")
			retry.Retry = true
			if again, err := apply(retry); err != nil || !proto.Equal(again, first) {
				t.Fatalf("retry before the eviction: %v %v, want %v", again, err, first)
			}
			for i := range 20 {
				if res, err := apply(match(fmt.Sprint("one-shot-", i))); err != nil || res.GetError() != nil {
					t.Fatal(err, res.GetError())
				}
			}
			_, jobs := served(t, addr)
			res, err := apply(retry)
			st := status.Convert(err)
			reason := ""
			for _, d := range st.Details() {
				if ei, ok := d.(*errdetails.ErrorInfo); ok {
					reason = ei.GetReason()
				}
			}
			if st.Code() != codes.FailedPrecondition || reason != "OUTCOME_UNKNOWN" {
				t.Fatalf("retry after the eviction: %v, %v (reason %q), want FailedPrecondition OUTCOME_UNKNOWN", res, err, reason)
			}
			if _, after := served(t, addr); after != jobs {
				t.Fatalf("the refused retry booked a job: %d jobs, was %d", after, jobs)
			}
		})
	}
}
