// Package server is the gofluxion matcher service: a gRPC front end
// (package pb) over a Backend that commits every mutating operation
// before applying it to the state machine (package state), either to a
// local journal (Standalone) or to a Raft log (Replicated), plus health,
// readiness and Prometheus metrics over HTTP.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/picture"
	"github.com/gofluxion/gofluxion/service/internal/wire"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// LeaderTrailer is the gRPC trailer in which a replica that is not the
// leader names the leader's gRPC address (when it knows it).
const LeaderTrailer = "gofluxion-leader"

// leaderError is the answer of a replica that is not the leader.
type leaderErr struct {
	id, addr string
}

func (e *leaderErr) Error() string {
	if e.id == "" {
		return "not the leader (no leader known)"
	}
	return fmt.Sprintf("not the leader: %s at %s is", e.id, e.addr)
}

func (e *leaderErr) GRPCStatus() *status.Status { return status.New(codes.Unavailable, e.Error()) }

func leaderError(id, addr string) error { return &leaderErr{id, addr} }

// Metrics are the service's Prometheus metrics.
type Metrics struct {
	Registry       *prometheus.Registry
	Ops            *prometheus.CounterVec   // by kind and outcome
	Latency        *prometheus.HistogramVec // by rpc
	Fsync          prometheus.Histogram
	Batch          prometheus.Histogram
	Replayed       prometheus.Counter
	Snapshots      prometheus.Counter
	SnapshotErrors prometheus.Counter
}

// NewMetrics registers the metrics in a new registry (with the Go and
// process collectors) and, through info, the backend's state.
func NewMetrics(info func() *pb.ClusterInfo) *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{
		Registry: r,
		Ops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gofluxion_ops_total",
			Help: "Operations answered, by kind and outcome (ok, or the error kind)."}, []string{"kind", "outcome"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "gofluxion_rpc_seconds",
			Help: "Server-side latency of RPCs.", Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18)}, []string{"rpc"}),
		Fsync: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "gofluxion_journal_fsync_seconds",
			Help: "Stand-alone journal write+fsync time per batch.", Buckets: prometheus.ExponentialBuckets(50e-6, 2, 16)}),
		Batch: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "gofluxion_journal_batch_ops",
			Help: "Operations per journal fsync.", Buckets: prometheus.ExponentialBuckets(1, 2, 10)}),
		Replayed:       prometheus.NewCounter(prometheus.CounterOpts{Name: "gofluxion_journal_replayed_total", Help: "Journal records replayed at start."}),
		Snapshots:      prometheus.NewCounter(prometheus.CounterOpts{Name: "gofluxion_snapshots_total", Help: "Stand-alone snapshots written."}),
		SnapshotErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "gofluxion_snapshot_errors_total", Help: "Stand-alone snapshots that failed."}),
	}
	r.MustRegister(m.Ops, m.Latency, m.Fsync, m.Batch, m.Replayed, m.Snapshots, m.SnapshotErrors,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gofluxion_applied_index", Help: "Index of the last operation applied."},
		func() float64 { return float64(info().GetAppliedIndex()) }))
	r.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "gofluxion_is_leader", Help: "1 on the Raft leader or a stand-alone server."},
		func() float64 {
			if s := info().GetState(); s == "Leader" || s == "Standalone" {
				return 1
			}
			return 0
		}))
	return m
}

// Service implements pb.MatcherServer over a Backend.
type Service struct {
	pb.UnimplementedMatcherServer
	B       Backend
	Metrics *Metrics
}

func opKind(op *pb.Op) string {
	switch op.GetKind().(type) {
	case *pb.Op_Match:
		return "match"
	case *pb.Op_Cancel:
		return "cancel"
	case *pb.Op_PartialCancel:
		return "partial_cancel"
	case *pb.Op_Update:
		return "update"
	case *pb.Op_SetStatus:
		return "set_status"
	case *pb.Op_Attach:
		return "attach"
	case *pb.Op_Remove:
		return "remove"
	case *pb.Op_RemoveRanks:
		return "remove_ranks"
	case *pb.Op_SetRankStatus:
		return "set_rank_status"
	case *pb.Op_Genesis:
		return "genesis"
	}
	return "unknown"
}

func (s *Service) observe(rpc, kind string, t0 time.Time, e *pb.Error, err error) {
	if s.Metrics == nil {
		return
	}
	s.Metrics.Latency.WithLabelValues(rpc).Observe(time.Since(t0).Seconds())
	outcome := "ok"
	switch {
	case err != nil:
		outcome = "rpc_" + status.Code(err).String()
	case e != nil && e.Kind != "":
		outcome = e.Kind
	case e != nil:
		outcome = "error"
	}
	s.Metrics.Ops.WithLabelValues(kind, outcome).Inc()
}

func (s *Service) hint(ctx context.Context, err error) error {
	if le, ok := err.(*leaderErr); ok && le.addr != "" {
		_ = grpc.SetTrailer(ctx, metadata.Pairs(LeaderTrailer, le.addr))
	}
	return err
}

// Apply implements pb.MatcherServer.
func (s *Service) Apply(ctx context.Context, op *pb.Op) (*pb.Result, error) {
	t0 := time.Now()
	if op.GetGenesis() != nil || op.GetKind() == nil {
		err := status.Error(codes.InvalidArgument, "not an operation a client may send (none, or a Genesis)")
		s.observe("Apply", opKind(op), t0, nil, err)
		return nil, err
	}
	// Refused on its face: answered without taking room in the log.
	if res := refuseOnItsFace(op, func() *gofluxion.Matcher {
		if st, err := s.B.Read(ctx, true); err == nil {
			return st.Matcher()
		}
		return nil
	}); res != nil {
		s.observe("Apply", opKind(op), t0, res.GetError(), nil)
		return res, nil
	}
	res, err := s.B.Apply(ctx, op)
	if err == nil && res.GetError().GetKind() == state.KindOutcomeUnknown {
		err = outcomeUnknown(res.GetError().GetMessage())
		res = nil
	}
	s.observe("Apply", opKind(op), t0, res.GetError(), err)
	return res, s.hint(ctx, err)
}

// outcomeUnknown is the status of a retry refused by the session table:
// FAILED_PRECONDITION (never retried by clients) with an ErrorInfo whose
// reason is wire.OutcomeUnknownReason.
func outcomeUnknown(msg string) error {
	st := status.New(codes.FailedPrecondition, msg)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: wire.OutcomeUnknownReason, Domain: "gofluxion"}); err == nil {
		st = d
	}
	return st.Err()
}

// Query implements pb.MatcherServer.
func (s *Service) Query(ctx context.Context, q *pb.QueryRequest) (*pb.QueryResponse, error) {
	t0 := time.Now()
	st, err := s.B.Read(ctx, q.GetStale())
	if err != nil {
		s.observe("Query", "query", t0, nil, err)
		return nil, s.hint(ctx, err)
	}
	m := st.Matcher()
	out := &pb.QueryResponse{Index: st.Applied()}
	var qerr error
	kind := "query"
	switch k := q.GetKind().(type) {
	case *pb.QueryRequest_Info:
		kind = "info"
		var j gofluxion.Job
		if j, qerr = m.Info(k.Info.GetId()); qerr == nil {
			out.Job = jobPB(j)
		}
	case *pb.QueryRequest_Jobs:
		kind = "jobs"
		for _, j := range m.Jobs() {
			out.Jobs = append(out.Jobs, jobPB(j))
		}
	case *pb.QueryRequest_Find:
		kind = "find"
		out.Text, qerr = m.FindAt(k.Find.GetCriteria(), k.Find.GetFormat(), k.Find.GetNow())
	case *pb.QueryRequest_Explain:
		kind = "explain"
		var js *jobspecT
		if js, qerr = parse(m, k.Explain.GetJobspec()); qerr == nil {
			var e *gofluxion.Explanation
			if e, qerr = m.Explain(js, k.Explain.GetAt()); qerr == nil {
				out.Explanation, qerr = json.Marshal(e)
			}
		}
	case *pb.QueryRequest_Satisfiable:
		kind = "satisfiable"
		var js *jobspecT
		if js, qerr = parse(m, k.Satisfiable.GetJobspec()); qerr == nil {
			qerr = m.Satisfiable(js)
		}
	case *pb.QueryRequest_Status:
		kind = "status"
		out.Up, qerr = m.Status(k.Status.GetPath())
	case *pb.QueryRequest_Types:
		kind = "types"
		out.Types = graphTypes(m)
	case *pb.QueryRequest_Stat:
		kind = "stat"
		st := m.Stat()
		out.Stats = &pb.Stats{Vertices: int64(st.Vertices), Edges: int64(st.Edges), Jobs: int64(st.Jobs)}
	case *pb.QueryRequest_Usage:
		kind = "usage"
		out.Usage, qerr = json.Marshal(m.Usage(k.Usage.GetAt()))
	case *pb.QueryRequest_Picture:
		kind = "picture"
		out.Text, qerr = drawPicture(m, k.Picture)
	default:
		qerr = fmt.Errorf("unknown query: %w", gofluxion.ErrInvalid)
	}
	out.Error = wire.ToPB(qerr)
	s.observe("Query", kind, t0, out.Error, nil)
	return out, nil
}

// Snapshot implements pb.MatcherServer.
func (s *Service) Snapshot(q *pb.SnapshotRequest, stream grpc.ServerStreamingServer[pb.Chunk]) error {
	st, err := s.B.Read(stream.Context(), q.GetStale())
	if err != nil {
		return s.hint(stream.Context(), err)
	}
	w := &chunker{send: stream.Send}
	if err := st.Matcher().Snapshot(w); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	return w.flush()
}

type chunker struct {
	buf  []byte
	send func(*pb.Chunk) error
}

func (c *chunker) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for len(c.buf) >= 1<<20 {
		if err := c.send(&pb.Chunk{Data: c.buf[:1<<20]}); err != nil {
			return 0, err
		}
		c.buf = append([]byte(nil), c.buf[1<<20:]...)
	}
	return len(p), nil
}

func (c *chunker) flush() error {
	if len(c.buf) == 0 {
		return nil
	}
	return c.send(&pb.Chunk{Data: c.buf})
}

// Cluster implements pb.MatcherServer.
func (s *Service) Cluster(ctx context.Context, _ *pb.ClusterRequest) (*pb.ClusterInfo, error) {
	return s.B.Cluster(), nil
}

// Join implements pb.MatcherServer.
func (s *Service) Join(ctx context.Context, q *pb.JoinRequest) (*pb.ClusterInfo, error) {
	if err := s.B.Join(ctx, q.GetId(), q.GetRaftAddress(), q.GetGrpcAddress()); err != nil {
		return nil, s.hint(ctx, err)
	}
	return s.B.Cluster(), nil
}

// Leave implements pb.MatcherServer.
func (s *Service) Leave(ctx context.Context, q *pb.LeaveRequest) (*pb.ClusterInfo, error) {
	if err := s.B.Leave(ctx, q.GetId()); err != nil {
		return nil, s.hint(ctx, err)
	}
	return s.B.Cluster(), nil
}

func jobPB(j gofluxion.Job) *pb.Job {
	return &pb.Job{Id: j.ID, State: int32(j.State), Start: j.Start, End: j.End, OverheadNs: int64(j.Overhead), Nodes: j.Nodes}
}

// HTTPHandler serves /healthz (the process runs), /readyz (the backend
// can serve: state loaded, and in Raft a leader known) and /metrics.
func HTTPHandler(b Backend, m *Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !b.Ready() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	if m != nil {
		mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry}))
	}
	return mux
}

// drawPicture draws m as a Picture query asks (its options are the JSON
// of a picture.Options; the matcher's own schedule is used).
func drawPicture(m *gofluxion.Matcher, q *pb.Picture) (string, error) {
	var o picture.Options
	if len(q.GetOptions()) > 0 {
		if err := json.Unmarshal(q.GetOptions(), &o); err != nil {
			return "", fmt.Errorf("picture options: %v: %w", err, gofluxion.ErrInvalid)
		}
	}
	var b strings.Builder
	var err error
	switch q.GetFormat() {
	case "", "dot":
		err = m.WriteDOT(&b, o)
	case "graphml":
		err = m.WriteGraphML(&b, o)
	default:
		err = fmt.Errorf("picture format %q (want dot or graphml): %w", q.GetFormat(), gofluxion.ErrInvalid)
	}
	return b.String(), err
}
