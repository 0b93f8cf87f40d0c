// Package client is the Go client of the gofluxion matcher service. A
// *Client implements gofluxion.Interface, so code written against the
// interface runs on an in-process *gofluxion.Matcher or on the service by
// changing one constructor:
//
//	var m gofluxion.Interface = matcher                            // in process
//	var m gofluxion.Interface, _ = client.Dial([]string{"host:7070"}) // remote
//
// Every call has a deadline (Options.Timeout unless the context has one)
// and takes a context through With(ctx). Mutating calls go to the leader:
// the client follows the leader hints of followers, retries on another
// replica when one is unreachable or loses the leadership, with backoff,
// until the deadline. Each mutating call carries the client's id and a
// sequence number, and the service answers a retried call from its session
// table, so a retry never applies an operation twice.
//
// Options.CA, Cert and Key make the connection TLS (mutual TLS with a
// certificate), Options.Token sends a bearer token; the service
// authorises each call by the role they map to (see the service README,
// "Secure deployment"). A refused certificate is not retried:
// HandshakeFailed tells it apart.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/picture"
	"github.com/gofluxion/gofluxion/service/internal/tlsutil"
	"github.com/gofluxion/gofluxion/service/internal/wire"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Options configure a Client; zero values select the defaults.
type Options struct {
	// Timeout bounds a call whose context has no deadline (default 30s).
	Timeout time.Duration
	// AttemptTimeout bounds one attempt on one replica (default 5s).
	AttemptTimeout time.Duration
	// StaleReads lets any replica answer queries from its own state,
	// which may lag the leader's (default: queries go to the leader and
	// see every acknowledged operation).
	StaleReads bool
	// DialOptions are added to the gRPC dial options, after the transport
	// credentials (plaintext, or TLS with CA, Cert and Key; a
	// grpc.WithTransportCredentials here overrides them).
	DialOptions []grpc.DialOption
	// ID identifies the client for deduplication (default random). Two
	// live clients must not share one.
	ID string
	// CA, Cert and Key are PEM files: with CA (or Cert), the client talks
	// TLS and verifies the server's certificate against CA (the system
	// roots without it); with Cert and Key it presents that certificate
	// (mutual TLS). The files are reloaded when they change. Empty: a
	// plaintext connection (a server on loopback).
	CA, Cert, Key string
	// Token is a bearer token sent with every call (it needs TLS).
	Token string
}

type bearer string

func (t bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

func (bearer) RequireTransportSecurity() bool { return true }

// Client is a connection to a matcher service (one server, or the
// replicas of a replicated one). It is safe for concurrent use.
type Client struct {
	opts   Options
	mu     sync.Mutex
	addrs  []string
	conns  []*grpc.ClientConn
	stubs  []pb.MatcherClient
	leader atomic.Int32
	seq    atomic.Uint64
	types  atomic.Pointer[[]string]
	creds  credentials.TransportCredentials

	flight   sync.Mutex
	inflight map[uint64]bool // seqs sent and not yet answered
}

var _ gofluxion.Interface = (*Client)(nil)

// Dial connects to the replicas at addrs (host:port). Connections are made
// lazily: Dial does not wait for a server.
func Dial(addrs []string, opts ...Options) (*Client, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("client: no address: %w", gofluxion.ErrInvalid)
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = 5 * time.Second
	}
	if o.ID == "" {
		var b [12]byte
		_, _ = rand.Read(b[:])
		o.ID = hex.EncodeToString(b[:])
	}
	c := &Client{opts: o, inflight: map[uint64]bool{}, creds: insecure.NewCredentials()}
	if o.CA != "" || o.Cert != "" || o.Key != "" {
		r, err := tlsutil.NewReloader(tlsutil.Files{CA: o.CA, Cert: o.Cert, Key: o.Key})
		if err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
		c.creds = r.Credentials()
	}
	if o.Token != "" {
		if o.CA == "" && o.Cert == "" {
			return nil, fmt.Errorf("client: a bearer token needs TLS (give a CA): %w", gofluxion.ErrInvalid)
		}
		c.opts.DialOptions = append([]grpc.DialOption{grpc.WithPerRPCCredentials(bearer(o.Token))}, c.opts.DialOptions...)
	}
	for _, a := range addrs {
		if _, err := c.conn(a); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// conn returns the index of the connection to addr, dialling it first.
func (c *Client) conn(addr string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.addrs, addr); i >= 0 {
		return i, nil
	}
	dopts := append([]grpc.DialOption{grpc.WithTransportCredentials(c.creds)}, c.opts.DialOptions...)
	cc, err := grpc.NewClient(addr, dopts...)
	if err != nil {
		return 0, fmt.Errorf("client: %s: %w", addr, err)
	}
	c.addrs = append(c.addrs, addr)
	c.conns = append(c.conns, cc)
	c.stubs = append(c.stubs, pb.NewMatcherClient(cc))
	return len(c.addrs) - 1, nil
}

// stub returns replica i's stub, or nil once the client is closed.
func (c *Client) stub(i int) pb.MatcherClient {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stubs) == 0 {
		return nil
	}
	return c.stubs[i%len(c.stubs)]
}

// n is the number of replicas, at least 1 (a closed client's calls fail
// with ErrClosed before they use it).
func (c *Client) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(len(c.stubs), 1)
}

// ErrClosed is returned by a call on a closed Client.
var ErrClosed = errors.New("client: closed")

// Close closes the connections.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, cc := range c.conns {
		errs = append(errs, cc.Close())
	}
	c.conns, c.stubs, c.addrs = nil, nil, nil
	return errors.Join(errs...)
}

// ID returns the client's id (its operations' Op.client).
func (c *Client) ID() string { return c.opts.ID }

// retryable reports whether an RPC error may be retried on a replica. A
// failed TLS handshake (a certificate the other side refuses) is not:
// retrying will not mend it.
func retryable(err error) bool {
	if HandshakeFailed(err) {
		return false
	}
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Aborted, codes.ResourceExhausted, codes.Canceled:
		return true
	}
	return false
}

// HandshakeFailed reports whether err is a TLS handshake that failed
// because of a certificate: the server refused this client's, or the
// client the server's.
func HandshakeFailed(err error) bool {
	if status.Code(err) != codes.Unavailable {
		return false
	}
	m := status.Convert(err).Message()
	// A certificate refused, by either side; not a connection lost during
	// the handshake (a replica going down), which is retried.
	return strings.Contains(m, "tls: ") || strings.Contains(m, "x509: ")
}

// call runs f on the leader (or any replica for stale reads), retrying as
// the package doc says.
func (c *Client) call(ctx context.Context, anyReplica bool, f func(ctx context.Context, s pb.MatcherClient, opts ...grpc.CallOption) error) error {
	return c.callSized(ctx, -1, f)
}

// callSized is call declaring the request's size (wire.RequestBytesHeader;
// none when size < 0), so the server reserves only that much of its
// budget of request bytes in flight.
func (c *Client) callSized(ctx context.Context, size int, f func(ctx context.Context, s pb.MatcherClient, opts ...grpc.CallOption) error) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	backoff := 10 * time.Millisecond
	var last error
	for attempt := 0; ; attempt++ {
		i := int(c.leader.Load())
		stub := c.stub(i)
		if stub == nil {
			return ErrClosed
		}
		actx, cancel := context.WithTimeout(ctx, c.opts.AttemptTimeout)
		if size >= 0 {
			actx = metadata.AppendToOutgoingContext(actx, wire.RequestBytesHeader, strconv.Itoa(size))
		}
		var tr metadata.MD
		err := f(actx, stub, grpc.Trailer(&tr))
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("client: %w (last error: %v)", ctx.Err(), err)
		}
		if !retryable(err) {
			return err
		}
		last = err
		// Follow the leader hint, else try the next replica.
		next := (i + 1) % c.n()
		if h := tr.Get("gofluxion-leader"); len(h) > 0 && h[0] != "" {
			if j, err := c.conn(h[0]); err == nil {
				next = j
			}
		}
		c.leader.CompareAndSwap(int32(i), int32(next))
		if attempt >= c.n() {
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return fmt.Errorf("client: %w (last error: %v)", ctx.Err(), last)
			}
			backoff = min(2*backoff, 500*time.Millisecond)
		}
	}
}

// Apply commits op (its client and seq are set here) and returns the raw
// result, for tools and tests that need the commit index.
func (c *Client) Apply(ctx context.Context, op *pb.Op) (*pb.Result, error) {
	c.flight.Lock()
	op.Client, op.Seq = c.opts.ID, c.seq.Add(1)
	c.inflight[op.Seq] = true
	op.Acked = op.Seq
	for s := range c.inflight {
		op.Acked = min(op.Acked, s)
	}
	c.flight.Unlock()
	defer func() {
		c.flight.Lock()
		delete(c.inflight, op.Seq)
		c.flight.Unlock()
	}()
	// The caller's deadline, else Options.Timeout, as for every call; and
	// an operation is retried for at most half the server's retry window
	// after its first attempt (wire.RetryWindow), whichever ends first.
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
	}
	ctx, cancel := context.WithTimeout(ctx, wire.RetryWindow/2)
	defer cancel()
	var res *pb.Result
	attempts := 0
	op.Retry = true // the largest the message gets
	size := proto.Size(op)
	err := c.callSized(ctx, size, func(ctx context.Context, s pb.MatcherClient, o ...grpc.CallOption) error {
		var err error
		op.Retry = attempts > 0
		attempts++
		res, err = s.Apply(ctx, op, o...)
		return err
	})
	if isOutcomeUnknown(err) {
		return nil, fmt.Errorf("client: request %d: %w (server: %s)", op.Seq, ErrOutcomeUnknown, status.Convert(err).Message())
	}
	return res, err
}

// ErrOutcomeUnknown is returned for a mutating operation that the client
// retried (after a timeout or a failover) when the server could no longer
// tell whether the first attempt was applied (its session with this
// client was evicted meanwhile). The server did not apply the retry. The
// operation may or may not have happened: check with Info or JobTable.
var ErrOutcomeUnknown = wire.ErrOutcomeUnknown

func isOutcomeUnknown(err error) bool {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.FailedPrecondition {
		return false
	}
	for _, d := range st.Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetReason() == wire.OutcomeUnknownReason {
			return true
		}
	}
	return false
}

func (c *Client) query(ctx context.Context, q *pb.QueryRequest) (*pb.QueryResponse, error) {
	q.Stale = c.opts.StaleReads
	var res *pb.QueryResponse
	err := c.callSized(ctx, proto.Size(q), func(ctx context.Context, s pb.MatcherClient, o ...grpc.CallOption) error {
		var err error
		res, err = s.Query(ctx, q, o...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, wire.FromPB(res.GetError())
}

// Cluster describes the replica that answers (the leader's view unless
// it is unreachable).
func (c *Client) Cluster(ctx context.Context) (*pb.ClusterInfo, error) {
	var res *pb.ClusterInfo
	err := c.callSized(ctx, 0, func(ctx context.Context, s pb.MatcherClient, o ...grpc.CallOption) error {
		var err error
		res, err = s.Cluster(ctx, &pb.ClusterRequest{}, o...)
		return err
	})
	return res, err
}

// Join asks the leader to add the replica id, whose Raft transport is at
// raftAddr and gRPC server at grpcAddr: as a non-voter, which the leader
// promotes to voter once it has caught up (admin role).
func (c *Client) Join(ctx context.Context, id, raftAddr, grpcAddr string) (*pb.ClusterInfo, error) {
	var res *pb.ClusterInfo
	q := &pb.JoinRequest{Id: id, RaftAddress: raftAddr, GrpcAddress: grpcAddr}
	err := c.callSized(ctx, proto.Size(q), func(ctx context.Context, s pb.MatcherClient, o ...grpc.CallOption) error {
		var err error
		res, err = s.Join(ctx, q, o...)
		return err
	})
	return res, err
}

// Leave asks the leader to remove the replica id.
func (c *Client) Leave(ctx context.Context, id string) (*pb.ClusterInfo, error) {
	var res *pb.ClusterInfo
	q := &pb.LeaveRequest{Id: id}
	err := c.callSized(ctx, proto.Size(q), func(ctx context.Context, s pb.MatcherClient, o ...grpc.CallOption) error {
		var err error
		res, err = s.Leave(ctx, q, o...)
		return err
	})
	return res, err
}

// With returns the client's operations bound to ctx (its deadline and
// cancellation), as a gofluxion.Interface.
func (c *Client) With(ctx context.Context) *Bound { return &Bound{c: c, ctx: ctx} }

// Bound is a Client bound to a context.
type Bound struct {
	c   *Client
	ctx context.Context
}

var _ gofluxion.Interface = (*Bound)(nil)

func allocation(res *pb.Result, err error) (*gofluxion.Allocation, error) {
	if err != nil {
		return nil, err
	}
	if err := wire.FromPB(res.GetError()); err != nil {
		return nil, err
	}
	if len(res.GetAllocation()) == 0 {
		return nil, nil
	}
	a := &gofluxion.Allocation{}
	if err := a.UnmarshalBinary(res.GetAllocation()); err != nil {
		return nil, err
	}
	return a, nil
}

func encode(js *jobspec.Jobspec) ([]byte, error) {
	b, err := wire.EncodeJobspec(js)
	if err != nil {
		return nil, fmt.Errorf("client: %v: %w", err, gofluxion.ErrInvalid)
	}
	return b, nil
}

// ParseJobspec parses a jobspec against the service's resource types
// (fetched once, and again when a type is unknown).
func (b *Bound) ParseJobspec(data []byte) (*jobspec.Jobspec, error) {
	for fresh := false; ; fresh = true {
		types := b.c.types.Load()
		if types == nil || fresh {
			res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Types{Types: &pb.Types{}}})
			if err != nil {
				return nil, err
			}
			t := res.GetTypes()
			types = &t
			b.c.types.Store(types)
		}
		js, err := jobspec.Parse(data, jobspec.Options{KnownType: func(t string) bool { return slices.Contains(*types, t) }})
		if err == nil || fresh {
			return js, err
		}
	}
}

// Match implements gofluxion.Interface.
func (b *Bound) Match(op gofluxion.Op, js *jobspec.Jobspec, at int64) (*gofluxion.Allocation, error) {
	return b.match(op, js, 0, false, at)
}

// MatchWithID implements gofluxion.Interface.
func (b *Bound) MatchWithID(op gofluxion.Op, js *jobspec.Jobspec, id uint64, at int64) (*gofluxion.Allocation, error) {
	return b.match(op, js, id, true, at)
}

func (b *Bound) match(op gofluxion.Op, js *jobspec.Jobspec, id uint64, withID bool, at int64) (*gofluxion.Allocation, error) {
	data, err := encode(js)
	if err != nil {
		return nil, err
	}
	if op == gofluxion.Satisfiability {
		_, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Satisfiable{Satisfiable: &pb.Satisfiable{Jobspec: data}}})
		return nil, err
	}
	return allocation(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(op), Jobspec: data, WithId: withID, Id: id, At: at}}}))
}

// Satisfiable implements gofluxion.Interface.
func (b *Bound) Satisfiable(js *jobspec.Jobspec) error {
	_, err := b.match(gofluxion.Satisfiability, js, 0, false, 0)
	return err
}

// Explain implements gofluxion.Interface.
func (b *Bound) Explain(js *jobspec.Jobspec, at int64) (*gofluxion.Explanation, error) {
	data, err := encode(js)
	if err != nil {
		return nil, err
	}
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Explain{Explain: &pb.Explain{Jobspec: data, At: at}}})
	if err != nil {
		return nil, err
	}
	e := &gofluxion.Explanation{}
	if err := json.Unmarshal(res.GetExplanation(), e); err != nil {
		return nil, fmt.Errorf("client: explanation: %w", err)
	}
	return e, nil
}

func resultErr(res *pb.Result, err error) error {
	if err != nil {
		return err
	}
	return wire.FromPB(res.GetError())
}

// Cancel implements gofluxion.Interface.
func (b *Bound) Cancel(id uint64) error {
	return resultErr(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: id}}}))
}

// PartialCancel implements gofluxion.Interface.
func (b *Bound) PartialCancel(id uint64, R []byte) (bool, error) {
	res, err := b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_PartialCancel{PartialCancel: &pb.PartialCancel{Id: id, R: R}}})
	if err := resultErr(res, err); err != nil {
		return false, err
	}
	return res.GetFull(), nil
}

// Update implements gofluxion.Interface.
func (b *Bound) Update(id uint64, R []byte) (*gofluxion.Allocation, error) {
	return allocation(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_Update{Update: &pb.Update{Id: id, R: R}}}))
}

// SetStatus implements gofluxion.Interface.
func (b *Bound) SetStatus(path string, up bool) error {
	return resultErr(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_SetStatus{SetStatus: &pb.SetStatus{Path: path, Up: up}}}))
}

func jobOf(j *pb.Job) gofluxion.Job {
	return gofluxion.Job{ID: j.GetId(), State: gofluxion.JobState(j.GetState()), Start: j.GetStart(), End: j.GetEnd(), Overhead: time.Duration(j.GetOverheadNs()), Nodes: j.GetNodes()}
}

// Attach grows the service's graph with a JGF subgraph (Matcher.Attach).
func (b *Bound) Attach(jgf []byte) error {
	return resultErr(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_Attach{Attach: &pb.Attach{Jgf: jgf}}}))
}

// Remove removes the subgraph at path (Matcher.Remove).
func (b *Bound) Remove(path string) error {
	return resultErr(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_Remove{Remove: &pb.Remove{Path: path}}}))
}

// RemoveRanks releases and removes ranks (Matcher.RemoveRanks).
func (b *Bound) RemoveRanks(ranks string) error {
	return resultErr(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_RemoveRanks{RemoveRanks: &pb.RemoveRanks{Ranks: ranks}}}))
}

// SetRankStatus marks ranks up or down (Matcher.SetRankStatus).
func (b *Bound) SetRankStatus(ranks string, up bool) error {
	return resultErr(b.c.Apply(b.ctx, &pb.Op{Kind: &pb.Op_SetRankStatus{SetRankStatus: &pb.SetRankStatus{Ranks: ranks, Up: up}}}))
}

// Stats returns Matcher.Stat's vertex, edge and live job counts (the
// match timings are the server's own and are not sent).
func (b *Bound) Stats() (gofluxion.Stats, error) {
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Stat{Stat: &pb.Stat{}}})
	if err != nil {
		return gofluxion.Stats{}, err
	}
	s := res.GetStats()
	return gofluxion.Stats{Vertices: int(s.GetVertices()), Edges: int(s.GetEdges()), Jobs: int(s.GetJobs())}, nil
}

// Info implements gofluxion.Interface.
func (b *Bound) Info(id uint64) (gofluxion.Job, error) {
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Info{Info: &pb.Info{Id: id}}})
	if err != nil {
		return gofluxion.Job{}, err
	}
	return jobOf(res.GetJob()), nil
}

// JobTable implements gofluxion.Interface.
func (b *Bound) JobTable() ([]gofluxion.Job, error) {
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Jobs{Jobs: &pb.Jobs{}}})
	if err != nil {
		return nil, err
	}
	out := make([]gofluxion.Job, 0, len(res.GetJobs()))
	for _, j := range res.GetJobs() {
		out = append(out, jobOf(j))
	}
	return out, nil
}

// FindAt implements gofluxion.Interface.
func (b *Bound) FindAt(criteria, format string, now int64) (string, error) {
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Find{Find: &pb.Find{Criteria: criteria, Format: format, Now: now}}})
	if err != nil {
		return "", err
	}
	return res.GetText(), nil
}

// UsageAt implements gofluxion.Interface: Matcher.Usage on the server.
func (b *Bound) UsageAt(at int64) ([]gofluxion.Usage, error) {
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Usage{Usage: &pb.Usage{At: at}}})
	if err != nil {
		return nil, err
	}
	var out []gofluxion.Usage
	if err := json.Unmarshal(res.GetUsage(), &out); err != nil {
		return nil, fmt.Errorf("client: usage: %v: %w", err, gofluxion.ErrInvalid)
	}
	return out, nil
}

// WriteDOT implements gofluxion.Interface: Matcher.WriteDOT on the server,
// with the server's schedule (opts.Schedule is not sent).
func (b *Bound) WriteDOT(w io.Writer, opts picture.Options) error {
	return b.picture(w, opts, "dot")
}

// WriteGraphML is WriteDOT in GraphML (Matcher.WriteGraphML).
func (b *Bound) WriteGraphML(w io.Writer, opts picture.Options) error {
	return b.picture(w, opts, "graphml")
}

func (b *Bound) picture(w io.Writer, opts picture.Options, format string) error {
	o, err := json.Marshal(opts)
	if err != nil {
		return fmt.Errorf("client: picture options: %v: %w", err, gofluxion.ErrInvalid)
	}
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Picture{Picture: &pb.Picture{Options: o, Format: format}}})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, res.GetText())
	return err
}

// Status implements gofluxion.Interface.
func (b *Bound) Status(path string) (bool, error) {
	res, err := b.c.query(b.ctx, &pb.QueryRequest{Kind: &pb.QueryRequest_Status{Status: &pb.Status{Path: path}}})
	if err != nil {
		return false, err
	}
	return res.GetUp(), nil
}

// Snapshot implements gofluxion.Interface: the service's complete state,
// for gofluxion.Restore.
func (b *Bound) Snapshot(w io.Writer) error {
	q := &pb.SnapshotRequest{Stale: b.c.opts.StaleReads}
	return b.c.callSized(b.ctx, proto.Size(q), func(ctx context.Context, s pb.MatcherClient, o ...grpc.CallOption) error {
		stream, err := s.Snapshot(ctx, q, o...)
		if err != nil {
			return err
		}
		var buf bytes.Buffer // whole, so a retry does not write twice to w
		for {
			ch, err := stream.Recv()
			if err == io.EOF {
				_, err = w.Write(buf.Bytes())
				return err
			}
			if err != nil {
				return err
			}
			buf.Write(ch.GetData())
		}
	})
}

// The Client's own methods are those of With(context.Background()).

func (c *Client) bg() *Bound { return c.With(context.Background()) }

// ParseJobspec implements gofluxion.Interface.
func (c *Client) ParseJobspec(data []byte) (*jobspec.Jobspec, error) {
	return c.bg().ParseJobspec(data)
}

// Match implements gofluxion.Interface.
func (c *Client) Match(op gofluxion.Op, js *jobspec.Jobspec, at int64) (*gofluxion.Allocation, error) {
	return c.bg().Match(op, js, at)
}

// MatchWithID implements gofluxion.Interface.
func (c *Client) MatchWithID(op gofluxion.Op, js *jobspec.Jobspec, id uint64, at int64) (*gofluxion.Allocation, error) {
	return c.bg().MatchWithID(op, js, id, at)
}

// Satisfiable implements gofluxion.Interface.
func (c *Client) Satisfiable(js *jobspec.Jobspec) error { return c.bg().Satisfiable(js) }

// Explain implements gofluxion.Interface.
func (c *Client) Explain(js *jobspec.Jobspec, at int64) (*gofluxion.Explanation, error) {
	return c.bg().Explain(js, at)
}

// Cancel implements gofluxion.Interface.
func (c *Client) Cancel(id uint64) error { return c.bg().Cancel(id) }

// PartialCancel implements gofluxion.Interface.
func (c *Client) PartialCancel(id uint64, R []byte) (bool, error) { return c.bg().PartialCancel(id, R) }

// Update implements gofluxion.Interface.
func (c *Client) Update(id uint64, R []byte) (*gofluxion.Allocation, error) {
	return c.bg().Update(id, R)
}

// Info implements gofluxion.Interface.
func (c *Client) Info(id uint64) (gofluxion.Job, error) { return c.bg().Info(id) }

// JobTable implements gofluxion.Interface.
func (c *Client) JobTable() ([]gofluxion.Job, error) { return c.bg().JobTable() }

// FindAt implements gofluxion.Interface.
func (c *Client) FindAt(criteria, format string, now int64) (string, error) {
	return c.bg().FindAt(criteria, format, now)
}

// Status implements gofluxion.Interface.
func (c *Client) Status(path string) (bool, error) { return c.bg().Status(path) }

// UsageAt implements gofluxion.Interface.
func (c *Client) UsageAt(at int64) ([]gofluxion.Usage, error) { return c.bg().UsageAt(at) }

// WriteDOT implements gofluxion.Interface.
func (c *Client) WriteDOT(w io.Writer, opts picture.Options) error { return c.bg().WriteDOT(w, opts) }

// WriteGraphML is WriteDOT in GraphML.
func (c *Client) WriteGraphML(w io.Writer, opts picture.Options) error {
	return c.bg().WriteGraphML(w, opts)
}

// SetStatus implements gofluxion.Interface.
func (c *Client) SetStatus(path string, up bool) error { return c.bg().SetStatus(path, up) }

// Snapshot implements gofluxion.Interface.
func (c *Client) Snapshot(w io.Writer) error { return c.bg().Snapshot(w) }

// Attach grows the service's graph with a JGF subgraph.
func (c *Client) Attach(jgf []byte) error { return c.bg().Attach(jgf) }

// Remove removes the subgraph at path.
func (c *Client) Remove(path string) error { return c.bg().Remove(path) }

// RemoveRanks releases and removes ranks.
func (c *Client) RemoveRanks(ranks string) error { return c.bg().RemoveRanks(ranks) }

// SetRankStatus marks ranks up or down.
func (c *Client) SetRankStatus(ranks string, up bool) error { return c.bg().SetRankStatus(ranks, up) }

// Stats returns the service matcher's vertex, edge and live job counts.
func (c *Client) Stats() (gofluxion.Stats, error) { return c.bg().Stats() }
