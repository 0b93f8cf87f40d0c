package server

import (
	"context"

	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
)

// Backend commits operations and serves the state: Standalone (a journal
// on local disk) or Replicated (Raft).
type Backend interface {
	// Apply commits op durably, applies it and returns its result. An
	// error means the op was not answered here (not the leader, shut
	// down, I/O failure): the client may retry it with the same client
	// id and seq, which never applies it twice.
	Apply(ctx context.Context, op *pb.Op) (*pb.Result, error)
	// Read returns the state to answer a query from: on the leader after
	// checking that it still leads and has applied everything committed;
	// any replica's own state when stale is set.
	Read(ctx context.Context, stale bool) (*state.State, error)
	Cluster() *pb.ClusterInfo
	Join(ctx context.Context, id, raftAddr, grpcAddr string) error
	Leave(ctx context.Context, id string) error
	// Ready reports whether the backend can serve (state loaded; in Raft,
	// a leader known).
	Ready() bool
	Close() error
}
