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
package state

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/internal/wire"
	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/protobuf/proto"
)

// MaxSessions bounds the session table: past it, the session used least
// recently (by log index, so every replica evicts the same one) goes.
const MaxSessions = 4096

type session struct {
	// Acked: the client has the answers of every seq below it.
	Acked   uint64            `json:"acked"`
	Index   uint64            `json:"index"` // last use
	Results map[uint64][]byte `json:"results"`
}

// State is the state machine. Apply and Restore must be called from one
// goroutine at a time (the journal's committer, or Raft's FSM); reads may
// run concurrently with them.
type State struct {
	mu       sync.RWMutex
	m        *gofluxion.Matcher
	applied  uint64
	sessions map[string]*session
}

// New wraps m, whose state corresponds to index applied (0 for a fresh
// matcher).
func New(m *gofluxion.Matcher) *State {
	return &State{m: m, sessions: map[string]*session{}}
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
	var se *session
	if op.GetSeq() != 0 {
		se = s.sessions[op.GetClient()]
		if se == nil {
			se = &session{Results: map[uint64][]byte{}}
			s.sessions[op.GetClient()] = se
			if len(s.sessions) > MaxSessions {
				s.evict(op.GetClient())
			}
		}
		se.Index = index
		se.ack(op.GetAcked())
		if b, ok := se.Results[op.GetSeq()]; ok {
			s.mu.Unlock()
			var r pb.Result
			if proto.Unmarshal(b, &r) == nil {
				return &r
			}
		} else if op.GetSeq() < se.Acked {
			s.mu.Unlock()
			return &pb.Result{Index: index, Error: &pb.Error{Kind: "invalid",
				Message: fmt.Sprintf("request %d of client %s was answered already (the client acknowledged every request below %d): not applied again", op.GetSeq(), op.GetClient(), se.Acked)}}
		}
	}
	m := s.m
	s.mu.Unlock()
	// Reads go on meanwhile: the matcher has its own lock.
	r := apply(m, op)
	r.Index = index
	if se != nil {
		b, _ := proto.Marshal(r)
		s.mu.Lock()
		se.Results[op.GetSeq()] = b
		s.mu.Unlock()
	}
	return r
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
	delete(s.sessions, oldest)
}

// apply runs one operation on m.
func apply(m *gofluxion.Matcher, op *pb.Op) *pb.Result {
	r := &pb.Result{}
	var err error
	switch k := op.GetKind().(type) {
	case *pb.Op_Match:
		var a *gofluxion.Allocation
		a, err = match(m, k.Match)
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

func match(m *gofluxion.Matcher, q *pb.Match) (*gofluxion.Allocation, error) {
	js, err := m.ParseJobspec(q.GetJobspec())
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
	h := header{Format: snapshotFormat, Version: 1, Applied: s.applied, Sessions: map[string]*session{}}
	for c, se := range s.sessions {
		cp := *se
		cp.Results = make(map[uint64][]byte, len(se.Results))
		for k, v := range se.Results {
			cp.Results[k] = v
		}
		h.Sessions[c] = &cp
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
	m, err := gofluxion.Restore(br)
	if err != nil {
		return fmt.Errorf("state snapshot: %w", err)
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
	s.m, s.applied, s.sessions = m, h.Applied, h.Sessions
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
