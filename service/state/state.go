// Package state is the matcher service's replicated state machine: a
// gofluxion.Matcher, the index of the last operation applied, and the
// session table that answers a retried request without applying it twice.
//
// Apply is deterministic: the same operations at the same indexes give
// the same matcher (graph, schedule, job table and job ids) on every
// replica, because an operation carries everything its outcome depends on
// (the time "at" included) and the matcher is deterministic. Failed
// operations change nothing in the matcher (the library's contract) and
// fail the same way everywhere. The only per-replica values are wall-time
// measurements (Job.Overhead, Allocation.Overhead), which no decision
// reads.
//
// The state starts empty: the first operation of every journal and log is
// a Genesis, which carries the initial matcher and the Config every
// decision depends on, so replicas cannot start from different graphs or
// options. Sessions expire by count (LRU by log index) and by age in log
// time (the time the server stamps on each operation, never a replica's
// clock); a retry the table cannot answer because a session used within
// the retry window was evicted is refused as KindOutcomeUnknown instead of
// being applied a second time.
package state

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/service/internal/wire"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/protobuf/proto"
)

// MaxSessions is the default bound of the session table: past it, the
// session used least recently (by log index, so every replica evicts the
// same one) goes.
const MaxSessions = 4096

// Session expiry defaults: a session unused for MaxAge of log time goes.
// RetryWindow is how long after its first attempt a client may retry an
// operation (the client gives up before; see wire.RetryWindow).
const (
	MaxAge      = time.Hour
	RetryWindow = wire.RetryWindow
)

// KindOutcomeUnknown is the pb.Error kind of a retry that the session
// table cannot answer because the client's session was evicted: the first
// attempt may have been applied, and it is not applied again.
const KindOutcomeUnknown = "outcome_unknown"

// Options configure the session table. Every replica must use the same
// (they decide evictions).
type Options struct {
	// MaxSessions bounds the number of sessions (default MaxSessions).
	MaxSessions int
	// MaxAge expires a session unused for that long, in log time (the
	// time the server stamps on each operation it commits); default
	// MaxAge, at least RetryWindow.
	MaxAge time.Duration
}

func (o Options) withDefaults() Options {
	if o.MaxSessions <= 0 {
		o.MaxSessions = MaxSessions
	}
	if o.MaxAge <= 0 {
		o.MaxAge = MaxAge
	}
	o.MaxAge = max(o.MaxAge, RetryWindow)
	return o
}

type session struct {
	// Acked: the client has the answers of every seq below it.
	Acked   uint64            `json:"acked"`
	Index   uint64            `json:"index"`          // last use
	Time    int64             `json:"time,omitempty"` // log time of the last use (UnixNano)
	Results map[uint64][]byte `json:"results"`
	// Dropped: the highest seq whose answer was dropped to keep the
	// session within MaxResults (a client that never acknowledges).
	Dropped uint64 `json:"dropped,omitempty"`
}

// MaxResults bounds the answers one session keeps (the requests a client
// has in flight at once): past it the lowest is dropped, and a retry of
// it is refused as OUTCOME_UNKNOWN, so a client that never acknowledges
// cannot grow the state without bound.
const MaxResults = 1024

// State is the state machine. Apply and Restore must be called from one
// goroutine at a time (the journal's committer, or Raft's FSM); reads may
// run concurrently with them.
type State struct {
	mu       sync.RWMutex
	opts     Options
	m        *gofluxion.Matcher
	applied  uint64
	sessions map[string]*session
	cfg      *Config // from the Genesis (nil: none, or a state made from a matcher)
	clock
	// parsed caches the jobspecs parsed by Apply (by their bytes): a
	// scheduler sends the same few shapes over and over, and parsing
	// the YAML cost more than the match. Used by Apply only; emptied
	// when the graph's types may change (a parse checks them).
	parsed map[string]*jobspec.Jobspec
}

// Bounds of the jobspec cache: entries, and the largest jobspec cached.
const (
	maxParsed      = 64
	maxParsedBytes = 16 << 10
)

// parse parses a Match's jobspec, from the cache when it holds it.
func (s *State) parse(m *gofluxion.Matcher, data []byte) (*jobspec.Jobspec, error) {
	if len(data) > maxParsedBytes {
		return m.ParseJobspec(data)
	}
	if js, ok := s.parsed[string(data)]; ok {
		return js, nil
	}
	js, err := m.ParseJobspec(data)
	if err != nil {
		return nil, err
	}
	if s.parsed == nil || len(s.parsed) >= maxParsed {
		s.parsed = map[string]*jobspec.Jobspec{}
	}
	s.parsed[string(data)] = js
	return js, nil
}

// clock is the state's log time, and what evictions left behind; it is
// part of the snapshot.
type clock struct {
	// Now is the latest operation time seen (UnixNano; never decreases,
	// whatever the clocks of successive leaders).
	Now int64 `json:"now,omitempty"`
	// Swept is when expired sessions were last looked for.
	Swept int64 `json:"swept,omitempty"`
	// EvictedUse is the latest last-use time of any session evicted or
	// expired: a retry of an operation first sent after it cannot belong
	// to a lost session.
	EvictedUse int64 `json:"evicted_use,omitempty"`
	// JumpFrom and JumpTo are the latest step of log time longer than
	// half the retry window (see advance).
	JumpFrom int64 `json:"jump_from,omitempty"`
	JumpTo   int64 `json:"jump_to,omitempty"`
}

// New wraps m, whose state corresponds to index 0 (a fresh matcher),
// with the session table's options (the defaults when none).
func New(m *gofluxion.Matcher, opts ...Options) *State {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	return &State{m: m, opts: o.withDefaults(), sessions: map[string]*session{}}
}

// Matcher returns the current matcher, for reads.
func (s *State) Matcher() *gofluxion.Matcher {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.m
}

// Applied returns the index of the last operation applied.
func (s *State) Applied() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.applied
}

// Apply applies op at index (strictly increasing) and returns its result.
func (s *State) Apply(index uint64, op *pb.Op) *pb.Result {
	s.mu.Lock()
	if index > s.applied {
		s.applied = index
	}
	s.advance(op.GetTime())
	if g := op.GetGenesis(); g != nil || s.m == nil {
		var err error = ErrNoGenesis
		if g != nil {
			err = s.genesis(g)
		}
		s.mu.Unlock()
		return &pb.Result{Index: index, Error: wire.ToPB(err)}
	}
	s.expire()
	var se *session
	if op.GetSeq() != 0 {
		se = s.sessions[op.GetClient()]
		if se != nil {
			se.Index, se.Time = index, s.Now
			se.ack(op.GetAcked())
			if b, ok := se.Results[op.GetSeq()]; ok {
				s.mu.Unlock()
				var r pb.Result
				if proto.Unmarshal(b, &r) == nil {
					return &r
				}
				return &pb.Result{Index: index, Error: &pb.Error{Message: "undecodable result in the session table"}}
			} else if op.GetSeq() <= se.Dropped && op.GetSeq() >= se.Acked {
				s.mu.Unlock()
				return &pb.Result{Index: index, Error: &pb.Error{Kind: KindOutcomeUnknown,
					Message: fmt.Sprintf("request %d of client %s: its answer was dropped (more than %d requests in flight without acknowledgement): not applied; the outcome is unknown, check with Info", op.GetSeq(), op.GetClient(), MaxResults)}}
			} else if op.GetSeq() < se.Acked {
				s.mu.Unlock()
				return &pb.Result{Index: index, Error: &pb.Error{Kind: "invalid",
					Message: fmt.Sprintf("request %d of client %s was answered already (the client acknowledged every request below %d): not applied again", op.GetSeq(), op.GetClient(), se.Acked)}}
			}
		}
		// A retry the table cannot answer: its first attempt was not
		// applied, unless it was applied in a session evicted since. That
		// session was used at or after the first attempt, which the
		// client sent at most RetryWindow ago; so when no evicted session
		// was used that recently, the retry is applied as new.
		if op.GetRetry() && s.EvictedUse != 0 && s.EvictedUse >= s.Now-int64(RetryWindow) {
			s.mu.Unlock()
			return &pb.Result{Index: index, Error: &pb.Error{Kind: KindOutcomeUnknown,
				Message: fmt.Sprintf("request %d of client %s is a retry and the session table no longer knows whether it was applied "+
					"(sessions were evicted within the retry window): not applied; the outcome is unknown, check with Info", op.GetSeq(), op.GetClient())}}
		}
		if se == nil {
			se = &session{Results: map[uint64][]byte{}, Index: index, Time: s.Now, Acked: op.GetAcked()}
			s.sessions[op.GetClient()] = se
			if len(s.sessions) > s.opts.MaxSessions {
				s.evict(op.GetClient())
			}
		}
	}
	m := s.m
	s.mu.Unlock()
	switch op.GetKind().(type) {
	case *pb.Op_Attach, *pb.Op_Remove, *pb.Op_RemoveRanks:
		s.parsed = nil // the graph's types may change
	}
	// Reads go on meanwhile: the matcher has its own lock.
	r := s.apply(m, op)
	r.Index = index
	if se != nil {
		b, _ := proto.Marshal(r)
		s.mu.Lock()
		se.Results[op.GetSeq()] = b
		if len(se.Results) > MaxResults {
			low := op.GetSeq()
			for seq := range se.Results {
				low = min(low, seq)
			}
			delete(se.Results, low)
			se.Dropped = max(se.Dropped, low)
		}
		s.mu.Unlock()
	}
	return r
}

// advance moves the log time to t when it is later. A step longer than
// half the retry window (a leader whose clock is ahead of its
// predecessor's, a clock stepped forward, or an idle log) may be far
// longer than the real time that passed, so it is remembered: a session
// used within half a retry window before it and evicted or expired later
// counts as used at its end (see forget), so that a retry of its client
// is refused as OUTCOME_UNKNOWN rather than applied twice.
func (s *State) advance(t int64) {
	if t <= s.Now {
		return
	}
	if half := int64(RetryWindow / 2); s.Now != 0 && t-s.Now > half {
		s.JumpFrom, s.JumpTo = s.Now, t
	}
	s.Now = t
}

// ack forgets the results the client acknowledged.
func (se *session) ack(acked uint64) {
	if acked <= se.Acked {
		return
	}
	se.Acked = acked
	for seq := range se.Results {
		if seq < acked {
			delete(se.Results, seq)
		}
	}
}

func (s *State) evict(keep string) {
	var oldest string
	var at uint64
	for c, se := range s.sessions {
		if c != keep && (oldest == "" || se.Index < at || se.Index == at && c < oldest) {
			oldest, at = c, se.Index
		}
	}
	s.forget(oldest)
}

// forget drops a session, remembering when it was last used.
func (s *State) forget(c string) {
	se := s.sessions[c]
	if se == nil {
		return
	}
	t := se.Time
	if t == 0 {
		t = s.Now // from a snapshot without times: as if used now
	}
	if s.JumpTo != 0 && t > s.JumpFrom-int64(RetryWindow/2) {
		// Used shortly before the latest jump of log time: its client
		// may have retried since, whatever the log time says.
		t = max(t, s.JumpTo)
	}
	s.EvictedUse = max(s.EvictedUse, t)
	delete(s.sessions, c)
}

// expire drops the sessions unused for MaxAge, looking every MaxAge/8 of
// log time (so the table is scanned rarely, and alike on every replica).
func (s *State) expire() {
	age := int64(s.opts.MaxAge)
	if s.Now-s.Swept < age/8 {
		return
	}
	s.Swept = s.Now
	var old []string
	for c, se := range s.sessions {
		if se.Time != 0 && se.Time < s.Now-age {
			old = append(old, c)
		}
	}
	slices.Sort(old)
	for _, c := range old {
		s.forget(c)
	}
}

// apply runs one operation on m.
func (s *State) apply(m *gofluxion.Matcher, op *pb.Op) *pb.Result {
	r := &pb.Result{}
	var err error
	switch k := op.GetKind().(type) {
	case *pb.Op_Match:
		var a *gofluxion.Allocation
		a, err = s.match(m, k.Match)
		if err == nil && a != nil {
			r.Allocation, err = a.MarshalBinary()
		}
	case *pb.Op_Cancel:
		err = m.Cancel(k.Cancel.GetId())
	case *pb.Op_PartialCancel:
		r.Full, err = m.PartialCancel(k.PartialCancel.GetId(), k.PartialCancel.GetR())
	case *pb.Op_Update:
		var a *gofluxion.Allocation
		a, err = m.Update(k.Update.GetId(), k.Update.GetR())
		if err == nil {
			r.Allocation, err = a.MarshalBinary()
		}
	case *pb.Op_SetStatus:
		err = m.SetStatus(k.SetStatus.GetPath(), k.SetStatus.GetUp())
	case *pb.Op_Attach:
		err = m.Attach(k.Attach.GetJgf())
	case *pb.Op_Remove:
		err = m.Remove(k.Remove.GetPath())
	case *pb.Op_RemoveRanks:
		err = m.RemoveRanks(k.RemoveRanks.GetRanks())
	case *pb.Op_SetRankStatus:
		err = m.SetRankStatus(k.SetRankStatus.GetRanks(), k.SetRankStatus.GetUp())
	default:
		err = fmt.Errorf("unknown operation: %w", gofluxion.ErrInvalid)
	}
	r.Error = wire.ToPB(err)
	return r
}

func (s *State) match(m *gofluxion.Matcher, q *pb.Match) (*gofluxion.Allocation, error) {
	js, err := s.parse(m, q.GetJobspec())
	if err != nil {
		return nil, err
	}
	op := gofluxion.Op(q.GetOp())
	if op == gofluxion.Satisfiability {
		return nil, fmt.Errorf("satisfiability is a query: %w", gofluxion.ErrInvalid)
	}
	if q.GetWithId() {
		return m.MatchWithID(op, js, q.GetId(), q.GetAt())
	}
	return m.Match(op, js, q.GetAt())
}

// The snapshot of the state machine: one JSON line (format, applied index,
// sessions), then the matcher's own snapshot (gofluxion.Matcher.Snapshot).
const snapshotFormat = "gofluxiond-state"

type header struct {
	Format   string              `json:"format"`
	Version  int                 `json:"version"`
	Applied  uint64              `json:"applied"`
	Sessions map[string]*session `json:"sessions"`
	Config   *Config             `json:"config,omitempty"`
	// NoGraph: no Genesis applied yet, no matcher follows.
	NoGraph bool `json:"no_graph,omitempty"`
	clock
}

// Frozen is a copy of the state taken at one index, to be written while
// Apply goes on.
type Frozen struct {
	h header
	m *gofluxion.Matcher
}

// Freeze copies the state (Matcher.Clone: graph, schedule, job table).
func (s *State) Freeze() *Frozen {
	s.mu.RLock()
	defer s.mu.RUnlock()
	h := header{Format: snapshotFormat, Version: 1, Applied: s.applied, Sessions: map[string]*session{}, clock: s.clock,
		Config: s.cfg, NoGraph: s.m == nil}
	for c, se := range s.sessions {
		cp := *se
		cp.Results = make(map[uint64][]byte, len(se.Results))
		for k, v := range se.Results {
			cp.Results[k] = v
		}
		h.Sessions[c] = &cp
	}
	if s.m == nil {
		return &Frozen{h: h}
	}
	return &Frozen{h: h, m: s.m.Clone()}
}

// Applied returns the index the frozen state corresponds to.
func (f *Frozen) Applied() uint64 { return f.h.Applied }

// Write writes the snapshot.
func (f *Frozen) Write(w io.Writer) error {
	b, err := json.Marshal(&f.h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	if f.m == nil {
		return nil
	}
	return f.m.Snapshot(w)
}

// Restore replaces the state with a snapshot written by Frozen.Write;
// on error the state is unchanged.
func (s *State) Restore(r io.Reader) error {
	br := bufio.NewReader(r)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("state snapshot: %w", err)
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil || h.Format != snapshotFormat || h.Version != 1 {
		return fmt.Errorf("state snapshot: bad header: %w", errors.Join(err, gofluxion.ErrSnapshot))
	}
	var m *gofluxion.Matcher
	if !h.NoGraph {
		if m, err = gofluxion.Restore(br); err != nil {
			return fmt.Errorf("state snapshot: %w", err)
		}
	}
	if h.Sessions == nil {
		h.Sessions = map[string]*session{}
	}
	for _, se := range h.Sessions {
		if se.Results == nil {
			se.Results = map[uint64][]byte{}
		}
	}
	s.mu.Lock()
	s.m, s.applied, s.sessions, s.clock, s.cfg = m, h.Applied, h.Sessions, h.clock, h.Config
	s.parsed = nil
	if h.Config != nil {
		s.opts = h.Config.Options()
	}
	s.mu.Unlock()
	return nil
}

// Clients lists the session table's clients (sorted), for tests.
func (s *State) Clients() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.sessions))
	for c := range s.sessions {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}
