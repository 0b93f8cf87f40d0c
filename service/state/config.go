package state

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
)

// Config is everything the state machine's decisions depend on besides
// the operations: the initial graph and the matcher's options, and the
// session table's bounds. It is part of the replicated state (the Genesis
// operation that starts every journal and log, and every snapshot), so a
// replica takes it from the cluster, and one started with other flags is
// refused (Differences).
type Config struct {
	// Graph identifies the initial graph: "demo", "empty", or the
	// sha256 of the graph file's bytes.
	Graph        string `json:"graph"`
	Types        string `json:"types,omitempty"` // with Graph "empty"
	Policy       string `json:"policy"`
	Subsystems   string `json:"subsystems"`
	PruneFilters string `json:"prune_filters"`
	// Format is the matcher's output format (gofluxion.Options.Format).
	Format        string        `json:"format,omitempty"`
	MaxSessions   int           `json:"max_sessions"`
	SessionMaxAge time.Duration `json:"session_max_age"`
}

// ConfigFields are the fields Differences can compare, by the name of the
// gofluxiond flag that sets them.
var ConfigFields = []string{"graph", "types", "policy", "subsystems", "prune-filters", "sessions", "session-max-age"}

func (c *Config) field(name string) string {
	switch name {
	case "graph":
		return c.Graph
	case "types":
		return c.Types
	case "policy":
		return c.Policy
	case "subsystems":
		return c.Subsystems
	case "prune-filters":
		return c.PruneFilters
	case "format":
		return c.Format
	case "sessions":
		return fmt.Sprint(c.MaxSessions)
	case "session-max-age":
		return c.SessionMaxAge.String()
	}
	return ""
}

// Differences lists, for each of the named fields (ConfigFields names),
// how want differs from c, as "-policy low (the state has first)".
func (c *Config) Differences(want *Config, fields []string) []string {
	var out []string
	for _, f := range fields {
		if a, b := want.field(f), c.field(f); a != b {
			out = append(out, fmt.Sprintf("-%s %q (the state has %q)", f, a, b))
		}
	}
	return out
}

// Options returns the session table options of c.
func (c *Config) Options() Options {
	return Options{MaxSessions: c.MaxSessions, MaxAge: c.SessionMaxAge}.withDefaults()
}

// NewGenesis returns the Genesis operation of a state machine that starts
// from m with configuration cfg.
func NewGenesis(m *gofluxion.Matcher, cfg *Config) (*pb.Op, error) {
	var snap bytes.Buffer
	if err := m.Snapshot(&snap); err != nil {
		return nil, err
	}
	cj, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return &pb.Op{Kind: &pb.Op_Genesis{Genesis: &pb.Genesis{Snapshot: snap.Bytes(), Config: cj}}}, nil
}

// ErrNoGenesis is the error of an operation applied before the state
// machine has its initial graph (no Genesis applied yet).
var ErrNoGenesis = errors.New("the service has no graph yet: no replica started with -graph has led the cluster")

// genesis applies a Genesis operation: the first one gives the state its
// matcher and configuration, any later one is refused (alike on every
// replica).
func (s *State) genesis(g *pb.Genesis) error {
	if s.m != nil {
		return fmt.Errorf("the state has its initial graph already: genesis ignored: %w", gofluxion.ErrExists)
	}
	var cfg Config
	if err := json.Unmarshal(g.GetConfig(), &cfg); err != nil {
		return fmt.Errorf("genesis configuration: %v: %w", err, gofluxion.ErrInvalid)
	}
	m, err := gofluxion.Restore(bytes.NewReader(g.GetSnapshot()))
	if err != nil {
		return fmt.Errorf("genesis graph: %w", err)
	}
	s.m, s.cfg, s.opts, s.parsed = m, &cfg, cfg.Options(), nil
	return nil
}

// Init gives an empty state its Genesis without taking a log index, for
// a Genesis too large for one journal record, which the stand-alone
// server keeps in a snapshot at index 0 instead.
func (s *State) Init(g *pb.Genesis) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.genesis(g)
}

// Config returns the state's configuration (nil before its Genesis, or
// for a state made by New with a matcher).
func (s *State) Config() *Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cfg
}

// HasGraph reports whether the state has its matcher (its Genesis was
// applied, or New was given one).
func (s *State) HasGraph() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m != nil
}

// ReadConfig reads the configuration from a snapshot's header without
// loading the rest (nil for a snapshot without one).
func ReadConfig(r io.Reader) (*Config, error) {
	line, err := bufio.NewReader(r).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("state snapshot: %w", err)
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil || h.Format != snapshotFormat {
		return nil, fmt.Errorf("state snapshot: bad header: %w", errors.Join(err, gofluxion.ErrSnapshot))
	}
	return h.Config, nil
}

// GenesisConfig decodes the configuration of a Genesis operation.
func GenesisConfig(g *pb.Genesis) (*Config, error) {
	var cfg Config
	if err := json.Unmarshal(g.GetConfig(), &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}
