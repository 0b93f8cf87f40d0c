package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	raftboltdb "github.com/hashicorp/raft-boltdb/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Replicated mode: the state machine behind hashicorp/raft. Mutating
// operations are log entries (an Op's protobuf encoding, or a batch of
// them: batch.go), which the FSM applies to the matcher on every replica
// once they are committed;
// FSM snapshots are the state machine's snapshot (Matcher.Snapshot with
// the applied index and the session table). The log and stable store is
// raft-boltdb (fsync on every append), snapshots go to files.

// Peer is a replica: its Raft id, Raft address and gRPC address.
type Peer struct {
	ID, RaftAddr, GRPCAddr string
}

// ReplicatedOptions configure a Replicated backend.
type ReplicatedOptions struct {
	ID       string
	Dir      string
	RaftAddr string // address to bind for Raft
	// RaftAdvertise is the address other replicas reach this one at, a
	// host name allowed (a StatefulSet pod's DNS name); default RaftAddr.
	RaftAdvertise string
	GRPCAddr      string // this replica's gRPC address, for leader hints
	// Bootstrap, on a replica without state, creates the cluster with
	// Peers as its first configuration (give every founding replica the
	// same list). Replicas added later start without it and are joined.
	Bootstrap bool
	Peers     []Peer
	// Initial builds the initial matcher from the command line's graph;
	// nil for a replica started without one (it takes the cluster's).
	// The first leader that has one writes it, with Config, as the
	// log's first operation (the Genesis); every replica starts from
	// that.
	Initial func() (*gofluxion.Matcher, error)
	// Config is the command line's configuration: the Genesis's, and
	// compared on start, on the fields named in Given, with the one in
	// this replica's snapshot or log (a difference refuses the start).
	Config *state.Config
	Given  []string
	// SnapshotThreshold is the number of log entries between FSM
	// snapshots (raft's default 8192 when 0).
	SnapshotThreshold uint64
	// TrailingLogs is the number of entries kept after a snapshot
	// (raft's default 10240 when 0).
	TrailingLogs uint64
	// Timeouts: heartbeat/election (default 1s, raft's) and lease.
	HeartbeatTimeout, ElectionTimeout, LeaderLeaseTimeout time.Duration
	ApplyTimeout                                          time.Duration // default 10s
	LogLevel                                              string        // hclog level, default "warn"
	Metrics                                               *Metrics
	// Sessions configures the session table (the same on every replica).
	Sessions state.Options
	// MaxEntryOps bounds the operations proposed in one log entry
	// (default MaxEntryOps; 1 proposes every operation alone).
	MaxEntryOps int
	// Security, when its TLS has a CA, runs the Raft transport over
	// mutual TLS: every peer presents a certificate the CA verifies,
	// with the admin role. Without a CA, Raft is plaintext (gofluxiond
	// allows that on loopback only, unless -insecure).
	Security *Security
	// PromoteLag is how many entries behind the leader's last index a
	// joined non-voter may be to be promoted to voter (default 256).
	PromoteLag uint64
	// PromoteInterval is how often the leader looks (default 200ms).
	PromoteInterval time.Duration

	// For tests: an existing transport and stores (in memory).
	Transport raft.Transport
	Logs      raft.LogStore
	Stable    raft.StableStore
	Snaps     raft.SnapshotStore
}

// Replicated is the Raft backend.
type Replicated struct {
	genMu sync.Mutex // one Genesis proposal at a time
	done  chan struct{}
	opts  ReplicatedOptions
	r     *raft.Raft
	st    *state.State
	bolt  *raftboltdb.BoltStore
	trans raft.Transport
	mu    sync.Mutex
	grpc  map[string]string // replica id -> gRPC address (hints only)
	// misconfigured: the command line differs from the Genesis.
	misconfigured error
	prop          *proposer

	progress  *progress     // the leader's view of the peers' match indexes
	stop      chan struct{} // closed by Close
	promoted  chan struct{} // closed when the promoter has stopped
	closeOnce sync.Once
}

type fsm struct{ st *state.State }

// Apply applies an entry's operations (one, or a batch: batch.go) and
// returns their results ([]*pb.Result).
func (f *fsm) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return nil
	}
	return ApplyEntry(f.st, l.Data)
}

func (f *fsm) Snapshot() (raft.FSMSnapshot, error) { return &fsmSnap{f.st.Freeze()}, nil }

func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	return f.st.Restore(rc)
}

type fsmSnap struct{ fr *state.Frozen }

func (s *fsmSnap) Persist(sink raft.SnapshotSink) error {
	if err := s.fr.Write(sink); err != nil {
		sink.Cancel()
		return err
	}
	return sink.Close()
}

func (s *fsmSnap) Release() {}

// OpenReplicated starts a replica.
func OpenReplicated(o ReplicatedOptions) (*Replicated, error) {
	if o.ApplyTimeout == 0 {
		o.ApplyTimeout = 10 * time.Second
	}
	if o.LogLevel == "" {
		o.LogLevel = "warn"
	}
	if o.PromoteLag == 0 {
		o.PromoteLag = 256
	}
	if o.PromoteInterval <= 0 {
		o.PromoteInterval = 200 * time.Millisecond
	}
	b := &Replicated{opts: o, st: state.New(nil, o.Sessions), grpc: map[string]string{}, done: make(chan struct{}),
		progress: &progress{match: map[raft.ServerID]seen{}}, stop: make(chan struct{}), promoted: make(chan struct{})}
	for _, p := range o.Peers {
		b.grpc[p.ID] = p.GRPCAddr
	}
	b.grpc[o.ID] = o.GRPCAddr
	logger := hclog.New(&hclog.LoggerOptions{Name: "raft-" + o.ID, Level: hclog.LevelFromString(o.LogLevel), Output: os.Stderr})
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(o.ID)
	conf.Logger = logger
	if o.SnapshotThreshold > 0 {
		conf.SnapshotThreshold = o.SnapshotThreshold
	}
	if o.TrailingLogs > 0 {
		conf.TrailingLogs = o.TrailingLogs
	}
	if o.HeartbeatTimeout > 0 {
		conf.HeartbeatTimeout = o.HeartbeatTimeout
	}
	if o.ElectionTimeout > 0 {
		conf.ElectionTimeout = o.ElectionTimeout
	}
	if o.LeaderLeaseTimeout > 0 {
		conf.LeaderLeaseTimeout = o.LeaderLeaseTimeout
	}
	logs, stable, snaps, trans := o.Logs, o.Stable, o.Snaps, o.Transport
	if logs == nil {
		if err := os.MkdirAll(o.Dir, 0o755); err != nil {
			return nil, err
		}
		bs, err := raftboltdb.New(raftboltdb.Options{Path: filepath.Join(o.Dir, "raft.db")})
		if err != nil {
			return nil, err
		}
		b.bolt = bs
		logs, stable = bs, bs
		if snaps, err = raft.NewFileSnapshotStoreWithLogger(o.Dir, 2, logger); err != nil {
			return nil, err
		}
		switch {
		case o.Security != nil && o.Security.TLS != nil && o.Security.TLS.HasCA():
			trans, err = tlsTransport(o.RaftAddr, o.RaftAdvertise, o.Security, logger)
		case o.RaftAdvertise == "":
			trans, err = raft.NewTCPTransportWithLogger(o.RaftAddr, nil, 3, 10*time.Second, logger)
		default:
			trans, err = namedTransport(o.RaftAddr, o.RaftAdvertise, logger)
		}
		if err != nil {
			return nil, err
		}
	}
	b.trans = trans
	if err := checkConfig(storedConfig(logs, snaps), o.Config, o.Given); err != nil {
		if c, ok := trans.(io.Closer); ok {
			c.Close()
		}
		if b.bolt != nil {
			b.bolt.Close()
		}
		return nil, err
	}
	if o.Bootstrap {
		has, err := raft.HasExistingState(logs, stable, snaps)
		if err != nil {
			return nil, err
		}
		if !has {
			var cfg raft.Configuration
			for _, p := range o.Peers {
				cfg.Servers = append(cfg.Servers, raft.Server{ID: raft.ServerID(p.ID), Address: raft.ServerAddress(p.RaftAddr)})
			}
			if len(cfg.Servers) == 0 {
				cfg.Servers = []raft.Server{{ID: conf.LocalID, Address: trans.LocalAddr()}}
			}
			if err := raft.BootstrapCluster(conf, logs, stable, snaps, trans, cfg); err != nil {
				return nil, err
			}
		}
	}
	r, err := raft.NewRaft(conf, &fsm{b.st}, logs, stable, snaps, track(trans, b.progress))
	if err != nil {
		return nil, err
	}
	b.r = r
	if o.MaxEntryOps <= 0 {
		o.MaxEntryOps = MaxEntryOps
	}
	b.prop = &proposer{r: r, in: make(chan *proposal, 4096), stop: b.done, timeout: o.ApplyTimeout, maxOps: o.MaxEntryOps}
	go b.prop.run()
	go b.genesisWhenLeader()
	go b.promoter(o.PromoteInterval, logger)
	return b, nil
}

// storedConfig returns the configuration in a replica's newest snapshot,
// or else in the Genesis at the start of its log (nil when neither has
// one).
func storedConfig(logs raft.LogStore, snaps raft.SnapshotStore) *state.Config {
	if list, err := snaps.List(); err == nil && len(list) > 0 {
		if _, rc, err := snaps.Open(list[0].ID); err == nil {
			defer rc.Close()
			if cfg, err := state.ReadConfig(rc); err == nil {
				return cfg
			}
		}
		return nil
	}
	first, err1 := logs.FirstIndex()
	last, err2 := logs.LastIndex()
	if err1 != nil || err2 != nil {
		return nil
	}
	for i := max(first, 1); i <= last; i++ {
		var l raft.Log
		if logs.GetLog(i, &l) != nil {
			return nil
		}
		if l.Type != raft.LogCommand {
			continue
		}
		ops, err := EntryOps(l.Data)
		if err != nil || ops[0].GetGenesis() == nil {
			return nil
		}
		cfg, _ := state.GenesisConfig(ops[0].GetGenesis())
		return cfg
	}
	return nil
}

// genesisWhenLeader writes the Genesis as soon as this replica leads a
// cluster without one, so that followers (joiners without a graph of
// their own) get the graph without waiting for a first operation.
// Once the state has its Genesis, a replica whose command line differs
// from it (a founding replica started with other flags than the one that
// wrote the Genesis) stops serving and says why.
func (b *Replicated) genesisWhenLeader() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for !b.st.HasGraph() {
		select {
		case <-b.done:
			return
		case <-t.C:
		}
		if b.opts.Initial != nil && b.r.State() == raft.Leader {
			_ = b.genesis(b.opts.ApplyTimeout)
		}
	}
	if err := checkConfig(b.st.Config(), b.opts.Config, b.opts.Given); err != nil {
		b.mu.Lock()
		b.misconfigured = err
		b.mu.Unlock()
		fmt.Fprintf(os.Stderr, "gofluxiond: replica %s: %v\n", b.opts.ID, err)
	}
}

// misconfig returns the error of a replica whose flags differ from the
// cluster's configuration (nil when they agree).
func (b *Replicated) misconfig() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.misconfigured != nil {
		return status.Error(codes.FailedPrecondition, b.misconfigured.Error())
	}
	return nil
}

// genesis makes sure the state has its initial graph: after applying
// everything committed (a Genesis may be in the log already), the leader
// proposes one from its own graph and configuration. A second Genesis
// (two leaders in turn proposing one) is ignored by the state machine.
func (b *Replicated) genesis(timeout time.Duration) error {
	if b.st.HasGraph() {
		return nil
	}
	b.genMu.Lock()
	defer b.genMu.Unlock()
	if b.st.HasGraph() {
		return nil
	}
	if err := b.r.Barrier(timeout).Error(); err != nil {
		return b.notLeader()
	}
	if b.st.HasGraph() {
		return nil
	}
	if b.opts.Initial == nil {
		return status.Error(codes.Unavailable, state.ErrNoGenesis.Error()+" (this replica was started without -graph)")
	}
	m, err := b.opts.Initial()
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	cfg := b.opts.Config
	if cfg == nil {
		cfg = &state.Config{}
	}
	op, err := state.NewGenesis(m, cfg)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	op.Time = time.Now().UnixNano()
	data, err := proto.Marshal(op)
	if err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	if err := b.r.Apply(data, timeout).Error(); err != nil {
		return b.notLeader()
	}
	return nil
}

// Raft returns the raft instance (tests, tools).
func (b *Replicated) Raft() *raft.Raft { return b.r }

// State returns the state machine.
func (b *Replicated) State() *state.State { return b.st }

func (b *Replicated) notLeader() error {
	_, id := b.r.LeaderWithID()
	b.mu.Lock()
	addr := b.grpc[string(id)]
	b.mu.Unlock()
	return leaderError(string(id), addr)
}

// Apply implements Backend.
func (b *Replicated) Apply(ctx context.Context, op *pb.Op) (*pb.Result, error) {
	if err := b.misconfig(); err != nil {
		return nil, err
	}
	if b.r.State() != raft.Leader {
		return nil, b.notLeader()
	}
	timeout := b.opts.ApplyTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(d))
	}
	if err := b.genesis(timeout); err != nil {
		return nil, err
	}
	op.Time = time.Now().UnixNano() // the log time, from the leader only
	data, err := proto.Marshal(op)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	// The proposer puts it in the next log entry with whatever else is
	// queued (batch.go).
	p := &proposal{data: data, done: make(chan struct{})}
	select {
	case b.prop.in <- p:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-b.done:
		return nil, status.Error(codes.Unavailable, "shutting down")
	}
	select {
	case <-p.done:
	case <-b.done:
		// The entry may still commit; the client's retry (same seq) gets
		// its result from the session table then.
		return nil, status.Error(codes.Unavailable, "shutting down")
	}
	if err := p.err; err != nil {
		if errors.Is(err, raft.ErrNotLeader) || errors.Is(err, raft.ErrLeadershipLost) || errors.Is(err, raft.ErrLeadershipTransferInProgress) {
			// Lost leadership: the entry may still commit under the next
			// leader; the client's retry (same seq) gets its result then.
			return nil, b.notLeader()
		}
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	if p.res == nil {
		return nil, status.Error(codes.Internal, "no result from the state machine")
	}
	return p.res, nil
}

// Proposed returns the operations and the log entries proposed by this
// replica so far (entries/ops is the batching's figure).
func (b *Replicated) Proposed() (ops, entries uint64) {
	return b.prop.ops.Load(), b.prop.entries.Load()
}

// Read implements Backend. A leader read first confirms leadership with
// a quorum (VerifyLeader) and waits until the FSM has applied everything
// committed, so it sees every acknowledged operation (linearizable). A
// stale read answers from this replica's state as it is.
func (b *Replicated) Read(ctx context.Context, stale bool) (*state.State, error) {
	if err := b.misconfig(); err != nil {
		return nil, err
	}
	if stale {
		if !b.st.HasGraph() {
			return nil, status.Error(codes.Unavailable, state.ErrNoGenesis.Error())
		}
		return b.st, nil
	}
	if b.r.State() != raft.Leader {
		return nil, b.notLeader()
	}
	if err := b.genesis(b.opts.ApplyTimeout); err != nil {
		return nil, err
	}
	if err := b.r.VerifyLeader().Error(); err != nil {
		return nil, b.notLeader()
	}
	commit := b.r.CommitIndex()
	for b.r.AppliedIndex() < commit {
		select {
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-time.After(time.Millisecond):
		}
	}
	return b.st, nil
}

// Cluster implements Backend.
func (b *Replicated) Cluster() *pb.ClusterInfo {
	laddr, lid := b.r.LeaderWithID()
	_ = laddr
	b.mu.Lock()
	info := &pb.ClusterInfo{Id: b.opts.ID, Mode: "raft", State: b.r.State().String(), LeaderId: string(lid),
		LeaderAddress: b.grpc[string(lid)], AppliedIndex: b.st.Applied()}
	b.mu.Unlock()
	if f := b.r.GetConfiguration(); f.Error() == nil {
		for _, s := range f.Configuration().Servers {
			info.Members = append(info.Members, &pb.Member{Id: string(s.ID), RaftAddress: string(s.Address), Suffrage: s.Suffrage.String()})
		}
	}
	slices.SortFunc(info.Members, func(a, b *pb.Member) int {
		switch {
		case a.Id < b.Id:
			return -1
		case a.Id > b.Id:
			return 1
		}
		return 0
	})
	return info
}

// Join implements Backend (leader only): adds the replica as a
// non-voter, which the leader promotes to voter once it has caught up
// (see membership.go). Joining a voter again at its address does
// nothing; moving a voter to another address is refused (an unreachable
// one would take its vote away): Leave it first.
func (b *Replicated) Join(ctx context.Context, id, raftAddr, grpcAddr string) error {
	if b.r.State() != raft.Leader {
		return b.notLeader()
	}
	if id == "" || raftAddr == "" {
		return status.Error(codes.InvalidArgument, "join: the replica's id and Raft address are required")
	}
	f := b.r.GetConfiguration()
	if err := f.Error(); err != nil {
		return status.Error(codes.Unavailable, fmt.Sprintf("join %s: %v", id, err))
	}
	voter := false
	for _, s := range f.Configuration().Servers {
		if string(s.ID) == id && s.Suffrage == raft.Voter {
			if string(s.Address) != raftAddr {
				return status.Error(codes.FailedPrecondition, fmt.Sprintf("join: %s is a voter at %s, not %s: Leave it first", id, s.Address, raftAddr))
			}
			voter = true
		}
	}
	if !voter {
		if err := b.r.AddNonvoter(raft.ServerID(id), raft.ServerAddress(raftAddr), f.Index(), b.opts.ApplyTimeout).Error(); err != nil {
			return status.Error(codes.Unavailable, fmt.Sprintf("add non-voter %s: %v", id, err))
		}
	}
	b.mu.Lock()
	b.grpc[id] = grpcAddr
	b.mu.Unlock()
	return nil
}

// Leave implements Backend: removes a replica (leader only).
func (b *Replicated) Leave(ctx context.Context, id string) error {
	if b.r.State() != raft.Leader {
		return b.notLeader()
	}
	if err := b.leaveKeepsQuorum(raft.ServerID(id)); err != nil {
		return err
	}
	if err := b.r.RemoveServer(raft.ServerID(id), 0, b.opts.ApplyTimeout).Error(); err != nil {
		return status.Error(codes.Unavailable, fmt.Sprintf("remove %s: %v", id, err))
	}
	return nil
}

// Ready implements Backend: a leader is known.
func (b *Replicated) Ready() bool {
	_, id := b.r.LeaderWithID()
	return id != "" && b.st.HasGraph() && b.misconfig() == nil
}

// Close implements Backend.
func (b *Replicated) Close() error {
	b.closeOnce.Do(func() { close(b.done); close(b.stop) })
	<-b.promoted
	err := b.r.Shutdown().Error()
	if c, ok := b.trans.(io.Closer); ok {
		c.Close()
	}
	if b.bolt != nil {
		err = errors.Join(err, b.bolt.Close())
	}
	return err
}

// namedTransport is raft's TCP transport advertising a host name instead
// of an IP address, so a replica keeps its address when it comes back
// with another IP (a Kubernetes pod).
func namedTransport(bind, advertise string, logger hclog.Logger) (raft.Transport, error) {
	l, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	return raft.NewNetworkTransportWithLogger(&namedStream{l, nameAddr(advertise)}, 3, 10*time.Second, logger), nil
}

type nameAddr string

func (a nameAddr) Network() string { return "tcp" }
func (a nameAddr) String() string  { return string(a) }

type namedStream struct {
	net.Listener
	addr nameAddr
}

func (s *namedStream) Addr() net.Addr { return s.addr }

func (s *namedStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return net.DialTimeout("tcp", string(address), timeout)
}
