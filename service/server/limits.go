package server

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/service/internal/wire"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"
	"google.golang.org/protobuf/proto"
)

// Bounded resources. gRPC reads a request whole before any handler or
// interceptor runs, so the bound is taken when the stream opens (a tap
// handle, before any byte of the message is read): each RPC reserves the
// size its client declares in the RequestBytesHeader metadata (the Go
// client always does), or the largest message allowed when it declares
// none, from a server-wide budget of request bytes in flight. An RPC that
// does not fit is refused with RESOURCE_EXHAUSTED (the client backs off and
// retries), and the reservation returns when the RPC ends. A request larger
// than it declared is refused once read. Each connection also has a bound
// on its concurrent streams, which bounds what a client lying about sizes
// can hold.

// RequestBytesHeader is the metadata key in which a client declares the
// size of its request message.
const RequestBytesHeader = wire.RequestBytesHeader

// requestOverhead is reserved with every request beside its message (the
// frames, headers and the decoding's slack).
const requestOverhead = 16 << 10

// MaxStreamsPerConn is the default bound on concurrent streams of one
// connection.
const MaxStreamsPerConn = 64

// inflight is the budget of request bytes in flight.
type inflight struct {
	mu       sync.Mutex
	used     int64
	capacity int64
	refused  func()
}

type reservedKey struct{}

// tap reserves the request's bytes when its stream opens.
func (l *inflight) tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	n := int64(maxRecord)
	if v := info.Header.Get(RequestBytesHeader); len(v) == 1 {
		if d, err := strconv.ParseInt(v[0], 10, 64); err == nil && d >= 0 && d < n {
			n = d
		}
	}
	n += requestOverhead
	l.mu.Lock()
	ok := l.used+n <= l.capacity || l.used == 0 // one request always fits
	if ok {
		l.used += n
	}
	used := l.used
	l.mu.Unlock()
	if !ok {
		if l.refused != nil {
			l.refused()
		}
		return nil, status.Errorf(codes.ResourceExhausted, "the server holds %d request bytes, the most it takes (-max-inflight-bytes %d): retry later", used, l.capacity)
	}
	context.AfterFunc(ctx, func() {
		l.mu.Lock()
		l.used -= n
		l.mu.Unlock()
	})
	return context.WithValue(ctx, reservedKey{}, n), nil
}

// check refuses a request larger than the size it declared.
func (l *inflight) check(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if n, ok := ctx.Value(reservedKey{}).(int64); ok {
		if m, ok := req.(proto.Message); ok {
			if sz := int64(proto.Size(m)); sz > n {
				return nil, status.Errorf(codes.InvalidArgument, "the request has %d bytes, more than the %d its %s metadata declared", sz, n-requestOverhead, RequestBytesHeader)
			}
		}
	}
	return h(ctx, req)
}

// limitOptions are the gRPC server options that bound the requests in
// flight to maxBytes (0: DefaultInflightBytes) and each connection's
// concurrent streams to streams (0: MaxStreamsPerConn).
func limitOptions(maxBytes int64, streams int, m *Metrics) []grpc.ServerOption {
	if maxBytes <= 0 {
		maxBytes = DefaultInflightBytes()
	}
	if streams <= 0 {
		streams = MaxStreamsPerConn
	}
	l := &inflight{capacity: maxBytes}
	if m != nil {
		l.refused = func() { m.Ops.WithLabelValues("any", "rpc_ResourceExhausted").Inc() }
	}
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(maxRecord),
		grpc.InTapHandle(l.tap),
		grpc.ChainUnaryInterceptor(l.check),
		grpc.MaxConcurrentStreams(uint32(streams)),
		// A connection that has not finished its TLS and HTTP/2
		// handshakes in 10 s is closed (grpc's default is 120 s, long
		// enough for idle half-open connections to pile up).
		grpc.ConnectionTimeout(HandshakeTimeout),
	}
}

// HandshakeTimeout bounds a new gRPC connection's TLS and HTTP/2
// handshakes.
const HandshakeTimeout = 10 * time.Second

// DefaultInflightBytes is the default budget of request bytes in flight:
// an eighth of the memory the process may use (its cgroup's limit, or
// else the machine's), at least one largest request and at most 4 GiB. A
// request in flight costs about three times its size (the frames read,
// the message assembled, the decoded copy).
func DefaultInflightBytes() int64 {
	mem := memoryLimit()
	return min(max(mem/8, maxRecord+requestOverhead), 4<<30)
}

// applyMemoryLimit gives the Go runtime a soft limit of 7/8 of the
// process's memory limit, unless GOMEMLIMIT sets one: the collector then
// works harder as the heap nears it, instead of letting garbage from
// large requests grow the heap to twice the live data until the kernel
// kills the process.
func applyMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit() / 8 * 7)
	}
}

func memoryLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(p); err == nil {
			if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n < 1<<50 {
				return n
			}
		}
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kb int64
			if _, err := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return 8 << 30
}

// faceParseBytes: a jobspec larger than this is parsed before it is
// journaled. Smaller ones are not: parsing costs more than the record a bad
// one takes (a YAML jobspec takes tens to hundreds of microseconds, which
// the state machine spends again), and they cannot fill the disk faster
// than good ones.
const faceParseBytes = 64 << 10

// maxClientID bounds a client id, the key of a session the state keeps
// on every replica (the Go client's are 32 bytes).
const maxClientID = 256

// refuseOnItsFace answers an operation the state machine would refuse
// whatever the state, without journaling or proposing it: nil when it
// must go to the log. A jobspec of more than faceParseBytes that does not
// parse against the current graph's types is refused too (the same error
// the state machine gives).
func refuseOnItsFace(op *pb.Op, st func() *gofluxion.Matcher) *pb.Result {
	var err error
	if len(op.GetClient()) > maxClientID {
		return &pb.Result{Error: wire.ToPB(fmt.Errorf("client id of %d bytes, more than %d: %w", len(op.GetClient()), maxClientID, gofluxion.ErrInvalid))}
	}
	switch k := op.GetKind().(type) {
	case *pb.Op_Match:
		if gofluxion.Op(k.Match.GetOp()) == gofluxion.Satisfiability {
			err = fmt.Errorf("satisfiability is a query: %w", gofluxion.ErrInvalid)
		} else if len(k.Match.GetJobspec()) > faceParseBytes {
			if m := st(); m != nil {
				_, err = m.ParseJobspec(k.Match.GetJobspec())
			}
		}
	case *pb.Op_Attach:
		if _, perr := jgf.Parse(k.Attach.GetJgf()); perr != nil {
			err = &gofluxion.Error{Op: "attach", Kind: gofluxion.ErrInvalid, Msg: perr.Error()}
		}
	}
	if err == nil {
		return nil
	}
	return &pb.Result{Error: wire.ToPB(err)}
}
