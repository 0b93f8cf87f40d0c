package gofluxion

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// Errors, for errors.Is. A failed Match wraps one of the first three.
var (
	// ErrBusy: the request fits the graph but not at the requested time.
	ErrBusy = match.ErrBusy
	// ErrUnsatisfiable: the request can never be met by this graph. As in
	// Fluxion, AllocateWithSatisfiability also reports it when the request
	// needs more nodes than are up at the time (Satisfiable ignores status).
	ErrUnsatisfiable = match.ErrUnsatisfiable
	// ErrInvalid: a bad argument (duration, empty request, bad R…).
	ErrInvalid = match.ErrInvalid
	// ErrNotFound: an unknown job, path or rank.
	ErrNotFound = match.ErrNotFound
	// ErrExists: a job id that is already allocated or reserved.
	ErrExists = errors.New("job id already in use")
)

// Op is a match operation.
type Op = match.Op

// The match operations (Fluxion's match ops).
const (
	// Allocate books at the asked time, or fails with ErrBusy.
	Allocate = match.Allocate
	// AllocateOrElseReserve books at the asked time, else reserves at the
	// earliest later time the request fits (Allocation.Reserved).
	AllocateOrElseReserve = match.AllocateOrElseReserve
	// AllocateWithSatisfiability books at the asked time; on failure it
	// tells ErrBusy (fits later) from ErrUnsatisfiable (never fits).
	AllocateWithSatisfiability = match.AllocateWithSatisfiability
	// Satisfiability books nothing and returns no allocation: only whether
	// the request could ever fit (see Matcher.Satisfiable).
	Satisfiability = match.Satisfiability
	// WithoutAllocating is Allocate without booking: it returns what would
	// be selected, with JobID 0, and consumes no job id.
	WithoutAllocating = match.WithoutAllocating
	// WithoutAllocatingFuture is AllocateOrElseReserve without booking.
	WithoutAllocatingFuture = match.WithoutAllocatingFuture
)

// Options configure a Matcher; zero values select Fluxion's defaults.
type Options struct {
	// Policy is a policy name (first, high, low, hinode, lonode, hinodex,
	// lonodex, firstnodex, locality, variation) or a custom policy string
	// such as "policy=high node_centric=true". Default "first".
	Policy string
	// Subsystems names the subsystems to match: "CA" (containment, the
	// default), "C+PA" (containment and power), … (see match.SubsystemNames).
	Subsystems string
	// PruneFilters replaces the default pruning filters "ALL:core,ALL:node".
	PruneFilters string
	// NoPruneFilters installs no pruning filters (faster loads, slower
	// matches).
	NoPruneFilters bool
	// Traverser is "simple" (default) or "flexible" (or-slots, xor-slots).
	Traverser string
	// Format is the match format of Allocation.String (default "rv1").
	Format string
	// Limits bound the inputs of the Matcher's methods (zero: defaults).
	Limits Limits
}

// JobState is the state of a job in the job table.
type JobState int

// The job states.
const (
	// Allocated: the job holds its resources from the time it asked for.
	Allocated JobState = iota
	// Reserved: the job holds its resources from a later time.
	Reserved
	// Canceled: Cancel, or a PartialCancel that released everything,
	// ended the job; it holds nothing and its id may be used again.
	Canceled
)

// String returns the state as Fluxion prints it: ALLOCATED, RESERVED or
// CANCELED.
func (s JobState) String() string {
	return [...]string{"ALLOCATED", "RESERVED", "CANCELED"}[s]
}

// Job is one entry of the job table.
type Job struct {
	ID         uint64
	State      JobState
	Start, End int64 // the booked window [Start, End)
	// Overhead is the wall time the operation that created the job took.
	Overhead time.Duration
}

// Matcher matches jobspecs against a resource graph and keeps its
// schedule and job table. It is the library's main entry point.
//
// A Matcher is safe for concurrent use by multiple goroutines: operations
// that change the schedule or the graph (Match and MatchWithID with any op
// but Satisfiability, Cancel, PartialCancel, Update, SetStatus,
// SetRankStatus, Attach, Remove, RemoveRanks, RestoreFrom) run one at a
// time, while read-only queries (ParseJobspec, Satisfiable, Match with
// Satisfiability, Find, FindAt, Explain, Info, Jobs, Stat, Status,
// RankStatus, Snapshot, Clone) run concurrently with each other and wait
// for a running writer.
type Matcher struct {
	mu    sync.RWMutex
	m     *match.Matcher
	opts  Options
	jobs  map[uint64]*Job
	next  uint64 // the next automatic job id
	views sync.Pool

	stats Stats
}

// Stats summarises a Matcher (see Matcher.Stat).
type Stats struct {
	Vertices, Edges int
	Jobs            int // jobs allocated or reserved now
	Matched         int // successful booking matches so far
	// MinMatch, MaxMatch and AvgMatch are the wall times of successful
	// booking matches.
	MinMatch, MaxMatch, AvgMatch time.Duration
}

// New creates a Matcher for g. Options are validated here: an unknown
// policy, subsystem set, traverser, pruning spec or format is an error.
// The Matcher owns g from now on: change it only through the Matcher.
func New(g *graph.Graph, opts Options) (*Matcher, error) {
	if opts.Format == "" {
		opts.Format = "rv1"
	}
	if _, err := NewWriter(opts.Format); err != nil {
		return nil, err
	}
	m, err := match.New(g, match.Options{
		Policy: opts.Policy, Subsystems: opts.Subsystems, PruneFilters: opts.PruneFilters,
		NoPruneFilters: opts.NoPruneFilters, Traverser: opts.Traverser,
		MaxFindDepth: opts.Limits.withDefaults().MaxDepth,
	})
	if err != nil {
		return nil, fmt.Errorf("gofluxion: %w", err)
	}
	m.CountUpNodes()
	return wrap(m, opts), nil
}

func wrap(m *match.Matcher, opts Options) *Matcher {
	return &Matcher{m: m, opts: opts, jobs: map[uint64]*Job{}, next: 1}
}

// Graph returns the graph. Read it only while no writer runs (for example
// before starting goroutines, or from code that serialises access).
func (x *Matcher) Graph() *graph.Graph { return x.m.Graph() }

// view returns a matcher that shares the schedule, for a read-only query
// under the read lock.
func (x *Matcher) view() *match.Matcher {
	if v, ok := x.views.Get().(*match.Matcher); ok && v.SharesSchedule(x.m) {
		return v
	}
	return x.m.View()
}

// ParseJobspec parses a canonical jobspec (YAML or JSON) against this
// Matcher's graph: resource types the graph does not know are rejected.
func (x *Matcher) ParseJobspec(data []byte) (*jobspec.Jobspec, error) {
	x.mu.RLock()
	types := x.m.Graph().Types
	x.mu.RUnlock()
	return jobspec.Parse(data, jobspec.Options{KnownType: func(t string) bool { _, ok := types.Lookup(t); return ok }})
}

// Match runs op for js at time at with an automatic job id (one more than
// the largest id used so far; ids are consumed only by successful booking
// matches). For Satisfiability it returns (nil, nil) when js could ever
// fit, and an error wrapping ErrUnsatisfiable otherwise.
func (x *Matcher) Match(op Op, js *jobspec.Jobspec, at int64) (*Allocation, error) {
	if op == Satisfiability {
		return nil, x.satisfiable(js, at)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.matchLocked(op, js, x.next, at)
}

// MatchWithID is Match with a caller-chosen job id (Fluxion's
// match_with_jobid); the id must not be allocated or reserved already
// (ErrExists), but the id of a canceled job may be used again.
func (x *Matcher) MatchWithID(op Op, js *jobspec.Jobspec, id uint64, at int64) (*Allocation, error) {
	if op == Satisfiability {
		return nil, x.satisfiable(js, at)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if j, ok := x.jobs[id]; ok && j.State != Canceled {
		return nil, fmt.Errorf("gofluxion: job %d: %w", id, ErrExists)
	}
	return x.matchLocked(op, js, id, at)
}

func (x *Matcher) matchLocked(op Op, js *jobspec.Jobspec, id uint64, at int64) (*Allocation, error) {
	rec := &emit.Recorder{}
	start := time.Now()
	got, err := x.m.Match(op, js, id, at, rec)
	took := time.Since(start)
	if err != nil {
		return nil, err
	}
	a := newAllocation(x.m.Graph(), rec, id, got, at, x.opts.Format)
	a.Overhead = took
	if op.Books() {
		st := Allocated
		if got > at {
			st = Reserved
		}
		x.jobs[id] = &Job{ID: id, State: st, Start: a.Start, End: a.End, Overhead: took}
		x.next = max(x.next, id+1)
		x.recordStat(took)
	} else {
		a.JobID = 0
	}
	return a, nil
}

func (x *Matcher) recordStat(d time.Duration) {
	s := &x.stats
	if s.Matched == 0 || d < s.MinMatch {
		s.MinMatch = d
	}
	s.MaxMatch = max(s.MaxMatch, d)
	s.AvgMatch = (s.AvgMatch*time.Duration(s.Matched) + d) / time.Duration(s.Matched+1)
	s.Matched++
}

// Satisfiable reports whether js could ever be allocated on this graph
// (ignoring what is booked and what is down): nil, or an error wrapping
// ErrUnsatisfiable (or ErrInvalid for a bad request).
func (x *Matcher) Satisfiable(js *jobspec.Jobspec) error { return x.satisfiable(js, 0) }

func (x *Matcher) satisfiable(js *jobspec.Jobspec, at int64) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := x.view()
	defer x.views.Put(v)
	_, err := v.Match(match.Satisfiability, js, 0, at, emit.Discard)
	return err
}

// Cancel releases everything job id holds. Canceled jobs stay in the job
// table as Canceled.
func (x *Matcher) Cancel(id uint64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	j, ok := x.jobs[id]
	if !ok || j.State == Canceled {
		return fmt.Errorf("gofluxion: cancel job %d: %w", id, ErrNotFound)
	}
	if err := x.m.Cancel(id); err != nil {
		return err
	}
	j.State = Canceled
	return nil
}

// Info returns the job table entry of id.
func (x *Matcher) Info(id uint64) (Job, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	j, ok := x.jobs[id]
	if !ok {
		return Job{}, fmt.Errorf("gofluxion: job %d: %w", id, ErrNotFound)
	}
	return *j, nil
}

// Jobs returns the job table in ascending id order.
func (x *Matcher) Jobs() []Job {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.jobsLocked()
}

func (x *Matcher) jobsLocked() []Job {
	out := make([]Job, 0, len(x.jobs))
	for _, j := range x.jobs {
		out = append(out, *j)
	}
	slices.SortFunc(out, func(a, b Job) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// Stat summarises the graph and the job table. Matched and the match
// timings cover this Matcher's own matches: Snapshot does not save them.
func (x *Matcher) Stat() Stats {
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.stats
	g := x.m.Graph()
	s.Vertices, s.Edges = g.LiveVertices(), g.LiveEdges()
	for _, j := range x.jobs {
		if j.State != Canceled {
			s.Jobs++
		}
	}
	return s
}

// Find renders, in the given match format, every vertex that satisfies the
// criteria expression (for example "status=down or sched-now=allocated",
// "names=node[0-3] and jobid-alloc=42"), with its ancestors. It returns ""
// when nothing matches. Predicates are status, sched-now, sched-future,
// jobid-alloc, jobid-reserved, jobid-span, jobid-tag, names, property and
// agfilter, combined with and, or and parentheses strictly left to right
// (Fluxion's find language). In agfilter mode usage is reported at the
// current time: use FindAt for reproducible output.
func (x *Matcher) Find(criteria, format string) (string, error) {
	return x.FindAt(criteria, format, time.Now().Unix())
}

// FindAt is Find with the time that agfilter mode reports usage at (the
// only part of find that depends on time). As in Fluxion, a filter with
// nothing in use at now reports its usage at time 0 instead.
func (x *Matcher) FindAt(criteria, format string, now int64) (string, error) {
	w, err := NewWriter(format)
	if err != nil {
		return "", err
	}
	if err := x.opts.Limits.checkFind(criteria); err != nil {
		return "", err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := x.view()
	defer x.views.Put(v)
	if err := v.Find(criteria, now, w); err != nil {
		return "", err
	}
	return w.Render()
}

// SetStatus marks the vertices at path up or down. Down vertices (and
// everything below them) are not allocated; the status of the vertices
// below is left as it is.
func (x *Matcher) SetStatus(path string, up bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	st := graph.StatusDown
	if up {
		st = graph.StatusUp
	}
	return x.m.SetStatus(path, st)
}

// Status reports whether the first vertex at path is itself marked up. A
// vertex below a down vertex can read up while nothing in it can be
// allocated.
func (x *Matcher) Status(path string) (up bool, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	vs := x.m.Graph().ByPath(path)
	if len(vs) == 0 {
		return false, fmt.Errorf("gofluxion: resource path %s: %w", path, ErrNotFound)
	}
	return x.m.Graph().V(vs[0]).Status == graph.StatusUp, nil
}

// Clone returns an independent copy (graph, schedule and job table) for
// what-if simulation.
func (x *Matcher) Clone() *Matcher {
	x.mu.RLock()
	defer x.mu.RUnlock()
	c := wrap(x.m.Clone(), x.opts)
	for id, j := range x.jobs {
		cj := *j
		c.jobs[id] = &cj
	}
	c.next, c.stats = x.next, x.stats
	return c
}
