package server

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"google.golang.org/grpc"
)

// Main runs gofluxiond with the given arguments (without the program
// name) until SIGINT or SIGTERM; it returns the exit status.
func Main(args []string, stderr io.Writer) int {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return 2
	}
	var (
		mode, listen, httpAddr, dir, graphFile = &c.mode, &c.listen, &c.httpAddr, &c.dir, &c.graphFile
		policy, subs, snapEvery, id, raftAddr  = &c.policy, &c.subs, &c.snapEvery, &c.id, &c.raftAddr
		raftAdv, advertise, bootstrap, peers   = &c.raftAdv, &c.advertise, &c.bootstrap, &c.peers
		join, logLevel, election               = &c.join, &c.logLevel, &c.election
	)
	logger := log.New(stderr, "gofluxiond: ", log.LstdFlags)
	if c.repairAt >= 0 {
		// Offline repair: cut the journal where the operator said, then
		// exit (a restart without the flag serves).
		msg, err := RepairJournal(c.dir, c.repairAt)
		if err != nil {
			logger.Print(err)
			return 1
		}
		logger.Print(msg)
		return 0
	}
	sessions := state.Options{MaxSessions: c.sessions, MaxAge: c.sessionAge}
	cfg, err := c.stateConfig()
	if err != nil {
		logger.Print(err)
		return 2
	}
	sec, err := c.security()
	if err != nil {
		logger.Print(err)
		return 2
	}
	initial := func() (*gofluxion.Matcher, error) {
		var g, err = loadGraph(*graphFile, c.types)
		if err != nil {
			return nil, err
		}
		return gofluxion.New(g, gofluxion.Options{Policy: *policy, Subsystems: *subs, PruneFilters: c.prune})
	}
	if *advertise == "" {
		*advertise = *listen
	}
	var b Backend
	var metrics *Metrics
	info := func() *pb.ClusterInfo {
		if b == nil {
			return &pb.ClusterInfo{}
		}
		return b.Cluster()
	}
	metrics = NewMetrics(info)
	switch *mode {
	case "standalone":
		s, err := OpenStandalone(StandaloneOptions{Dir: *dir, Initial: initial, SnapshotEvery: *snapEvery, Metrics: metrics,
			Sessions: sessions, Logf: logger.Printf, Config: cfg, Given: c.given})
		if err != nil {
			logger.Print(err)
			return 1
		}
		b = s
	case "raft":
		if *id == "" {
			*id = *raftAddr
		}
		ps, err := parsePeers(*peers)
		if err != nil {
			logger.Print(err)
			return 2
		}
		if !slices.Contains(c.given, "graph") && !*bootstrap {
			initial = nil // a joiner takes the cluster's graph
		}
		r, err := OpenReplicated(ReplicatedOptions{ID: *id, Dir: *dir, RaftAddr: *raftAddr, RaftAdvertise: *raftAdv, GRPCAddr: *advertise,
			Bootstrap: *bootstrap, Peers: ps, Initial: initial, SnapshotThreshold: uint64(*snapEvery),
			HeartbeatTimeout: *election, ElectionTimeout: *election, LogLevel: *logLevel, Metrics: metrics, Sessions: sessions, Config: cfg, Given: c.given, Security: sec,
			MaxEntryOps: c.maxEntryOps})
		if err != nil {
			logger.Print(err)
			return 1
		}
		b = r
	default:
		logger.Printf("unknown -mode %q (standalone or raft)", *mode)
		return 2
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		logger.Print(err)
		b.Close()
		return 1
	}
	applyMemoryLimit()
	// Authentication first: a caller without credentials is refused before
	// its request is weighed.
	gs := grpc.NewServer(append(sec.ServerOptions(), limitOptions(c.maxInflight, c.maxStreams, metrics)...)...)
	pb.RegisterMatcherServer(gs, &Service{B: b, Metrics: metrics})
	go gs.Serve(lis)
	var hs *http.Server
	if *httpAddr != "" {
		hs = &http.Server{Addr: *httpAddr, Handler: HTTPHandler(b, metrics), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Print(err)
			}
		}()
	}
	if *join != "" {
		ra := *raftAddr
		if *raftAdv != "" {
			ra = *raftAdv
		}
		go joinCluster(logger, sec, *join, *id, ra, *advertise)
	}
	how := "plaintext, no authentication (loopback only, or -insecure)"
	if sec.TLS != nil {
		how = "TLS"
		if !sec.Auth.Open() {
			how = "TLS, clients authorised by certificate or token"
		}
	}
	logger.Printf("serving %s mode on %s (%s)", *mode, lis.Addr(), how)
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go sec.Watch(logger.Printf, 2*time.Second, stopWatch)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	gs.GracefulStop()
	if hs != nil {
		hs.Close()
	}
	if err := b.Close(); err != nil {
		logger.Print(err)
		return 1
	}
	return 0
}

type config struct {
	mode, listen, httpAddr, dir, graphFile, policy, subs string
	prune, types                                         string
	snapEvery                                            int
	id, raftAddr, raftAdv, advertise, peers, join        string
	bootstrap                                            bool
	logLevel                                             string
	election                                             time.Duration
	repairAt                                             int64
	given                                                []string // state.ConfigFields set on the command line
	sessions                                             int
	sessionAge                                           time.Duration
	maxEntryOps                                          int
	maxInflight                                          int64
	maxStreams                                           int
	ca, cert, key, roles                                 string
	insecure                                             bool
}

// security checks the credentials flags against the addresses: nothing
// listens beyond loopback without credentials unless -insecure is given.
func (c *config) security() (*Security, error) {
	sec, err := NewSecurity(c.ca, c.cert, c.key, c.roles)
	if err != nil {
		return nil, err
	}
	if c.insecure {
		return sec, nil
	}
	if !isLoopback(c.listen) && !sec.Credentialed() {
		return nil, fmt.Errorf("refusing to listen on %s without credentials: give -cert and -key, and -ca (client certificates) or -roles (tokens), or -insecure to serve anyone who can reach it", c.listen)
	}
	if c.mode == "raft" && !isLoopback(c.raftAddr) && (sec.TLS == nil || !sec.TLS.HasCA()) {
		return nil, fmt.Errorf("refusing to bind the Raft transport on %s without mutual TLS: give -cert, -key and -ca, or -insecure", c.raftAddr)
	}
	return sec, nil
}

// parseArgs parses gofluxiond's command line.
func parseArgs(args []string, stderr io.Writer) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("gofluxiond", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.mode, "mode", "standalone", "standalone (journal on local disk) or raft (replicated)")
	fs.StringVar(&c.listen, "listen", "127.0.0.1:7070", "gRPC address")
	fs.StringVar(&c.httpAddr, "http", "", "HTTP address of /healthz, /readyz and /metrics (empty: none)")
	fs.StringVar(&c.dir, "data", "gofluxiond-data", "state directory")
	fs.StringVar(&c.graphFile, "graph", "demo", `resource graph: a GRUG (.graphml), JGF (.json) or hwloc (.xml) file, "demo", or "empty" (a cluster0 vertex that Attach grows, as the Kubernetes plugin's)`)
	fs.StringVar(&c.policy, "policy", "", "match policy (default first)")
	fs.StringVar(&c.subs, "subsystems", "", "matcher subsystems (default CA)")
	fs.StringVar(&c.prune, "prune-filters", "", `pruning filters (default "ALL:core,ALL:node")`)
	fs.StringVar(&c.types, "types", "", `with -graph empty: resource types known before any vertex of them is attached, comma separated (e.g. "node,slot,core,gpu,memory")`)
	fs.IntVar(&c.snapEvery, "snapshot-every", 0, "operations between snapshots (standalone default 10000; raft default 8192)")
	fs.StringVar(&c.id, "id", "", "raft: this replica's id (default: the -raft address)")
	fs.StringVar(&c.raftAddr, "raft", "127.0.0.1:7080", "raft: address the Raft transport binds")
	fs.StringVar(&c.raftAdv, "raft-advertise", "", "raft: address (a host name allowed) other replicas reach this one's Raft transport at (default -raft)")
	fs.StringVar(&c.advertise, "advertise", "", "raft: gRPC address other replicas and clients reach this one at (default -listen)")
	fs.BoolVar(&c.bootstrap, "bootstrap", false, "raft: create the cluster from -peers (on every founding replica; ignored once it has state)")
	fs.StringVar(&c.peers, "peers", "", "raft: founding replicas as id/raft-address/grpc-address,... (this one included)")
	fs.StringVar(&c.join, "join", "", "raft: gRPC address of a member to ask to add this replica")
	fs.StringVar(&c.logLevel, "log-level", "warn", "raft log level")
	fs.DurationVar(&c.election, "election-timeout", 0, "raft: heartbeat and election timeout (default 1s)")
	fs.Int64Var(&c.repairAt, "repair-journal-at", -1, "standalone: offline repair: cut the journal in -data at this byte offset (named by the start error), keeping the cut bytes in journal.cut-OFFSET, and exit")
	fs.IntVar(&c.sessions, "sessions", state.MaxSessions, "session table size: clients whose retries are answered without applying them twice (the same on every replica)")
	fs.IntVar(&c.maxEntryOps, "max-entry-ops", MaxEntryOps, "raft: operations proposed together in one log entry at most (1: each alone)")
	fs.DurationVar(&c.sessionAge, "session-max-age", state.MaxAge, "a session unused for this long (log time) expires; at least 10m, the retry window (the same on every replica)")
	fs.Int64Var(&c.maxInflight, "max-inflight-bytes", 0, "request bytes the server holds at once; past it RPCs are refused with RESOURCE_EXHAUSTED and clients retry (default: an eighth of the memory limit, at most 4 GiB)")
	fs.IntVar(&c.maxStreams, "max-streams", MaxStreamsPerConn, "concurrent RPCs per client connection")
	fs.StringVar(&c.ca, "ca", "", "PEM CA bundle that verifies client and peer certificates (mutual TLS); with -cert and -key, the Raft transport runs over mutual TLS too")
	fs.StringVar(&c.cert, "cert", "", "PEM certificate of this replica (gRPC server, Raft peer, and client when it joins); reloaded when it changes")
	fs.StringVar(&c.key, "key", "", "PEM private key of -cert")
	fs.StringVar(&c.roles, "roles", "", "roles file: which certificate names and bearer tokens are admin, scheduler or reader (see README); without it every certificate -ca verifies is admin")
	fs.BoolVar(&c.insecure, "insecure", false, "allow listening beyond loopback without credentials (anyone who reaches the port may do anything)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(state.ConfigFields, f.Name) {
			c.given = append(c.given, f.Name)
		}
	})
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gofluxiond: unexpected arguments %q\n", fs.Args())
		return nil, fmt.Errorf("unexpected arguments")
	}
	if _, err := parsePeers(c.peers); err != nil {
		fmt.Fprintln(stderr, "gofluxiond:", err)
		return nil, err
	}
	return c, nil
}

func loadGraph(file, types string) (g *graphT, err error) {
	switch file {
	case "demo":
		return gofluxion.DemoGraph(), nil
	case "empty":
		b := graph.NewBuilder()
		b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithRank(-1))
		g := b.Graph()
		for _, t := range strings.Split(types, ",") {
			if t != "" {
				g.Type(t)
			}
		}
		return g, nil
	}
	return gofluxion.ReadGraphFile(file)
}

func parsePeers(s string) ([]Peer, error) {
	var out []Peer
	for _, p := range strings.Split(s, ",") {
		if p == "" {
			continue
		}
		f := strings.Split(p, "/")
		if len(f) != 3 {
			return nil, fmt.Errorf("peer %q is not id/raft-address/grpc-address", p)
		}
		out = append(out, Peer{ID: f[0], RaftAddr: f[1], GRPCAddr: f[2]})
	}
	return out, nil
}

// joinCluster asks the member at addr (or the leader it names) to add this
// replica, until it succeeds.
func joinCluster(logger *log.Logger, sec *Security, addr, id, raftAddr, grpcAddr string) {
	for delay := 100 * time.Millisecond; ; delay = min(2*delay, 5*time.Second) {
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(sec.DialCredentials()))
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var tr trailer
			_, err = pb.NewMatcherClient(cc).Join(ctx, &pb.JoinRequest{Id: id, RaftAddress: raftAddr, GrpcAddress: grpcAddr}, tr.opt())
			cancel()
			cc.Close()
			if err == nil {
				logger.Printf("joined the cluster through %s", addr)
				return
			}
			if l := tr.leader(); l != "" {
				addr = l
			}
		}
		logger.Printf("join through %s: %v (retrying)", addr, err)
		time.Sleep(delay)
	}
}

// stateConfig is the configuration the command line gives the state
// machine (state.Config): the graph's identity (a file by the sha256 of
// its bytes) and the options, defaults filled in.
func (c *config) stateConfig() (*state.Config, error) {
	g := c.graphFile
	if g != "demo" && g != "empty" {
		b, err := os.ReadFile(g)
		if err != nil {
			if !slices.Contains(c.given, "graph") {
				g = "" // the default, absent: the state's is taken
			} else {
				return nil, err
			}
		} else {
			g = fmt.Sprintf("sha256:%x", sha256.Sum256(b))
		}
	}
	types := ""
	if c.graphFile == "empty" {
		types = c.types
	}
	or := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	return &state.Config{Graph: g, Types: types, Policy: or(c.policy, "first"), Subsystems: or(c.subs, "CA"),
		PruneFilters: or(c.prune, "ALL:core,ALL:node"), MaxSessions: c.sessions, SessionMaxAge: c.sessionAge}, nil
}
