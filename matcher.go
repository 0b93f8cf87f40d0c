package gofluxion

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// Op is a match operation. Only the constants below are valid: any other
// value is rejected with ErrInvalid.
type Op = match.Op

// The match operations (Fluxion's match ops).
const (
	// Allocate books at the asked time, or fails with ErrBusy (or
	// ErrUnsatisfiable when the request could never fit).
	Allocate = match.Allocate
	// AllocateOrElseReserve books at the asked time, else reserves at the
	// earliest later time the request fits (Allocation.Reserved).
	AllocateOrElseReserve = match.AllocateOrElseReserve
	// AllocateWithSatisfiability is Allocate (kept for Fluxion's op set:
	// every root op tells ErrBusy from ErrUnsatisfiable).
	AllocateWithSatisfiability = match.AllocateWithSatisfiability
	// Satisfiability books nothing and returns no allocation: only whether
	// the request could ever fit (see Matcher.Satisfiable).
	Satisfiability = match.Satisfiability
	// WithoutAllocating is a dry run of Allocate: it returns what would be
	// selected, with JobID 0, and changes nothing, so later decisions are
	// the same as without it. (Fluxion's, and so resource-query's and
	// reapi/fluxcli's, re-orders the candidates of dynamic-order policies
	// such as first, which can change later decisions.)
	WithoutAllocating = match.WithoutAllocating
	// WithoutAllocatingFuture is a dry run of AllocateOrElseReserve.
	WithoutAllocatingFuture = match.WithoutAllocatingFuture
)

func validOp(op Op) bool { return op >= Allocate && op <= WithoutAllocatingFuture }

// The policy names of Options.Policy (Fluxion's). Each picks, among the
// candidates that fit, by vertex ids: "high" prefers the highest ids,
// "low" the lowest; the node variants score whole nodes first; the "x"
// variants take nodes exclusively.
const (
	// PolicyFirst takes the first match in a dynamic candidate order
	// (Fluxion's default): candidates that were never used come first,
	// highest id first, so on the demo graph the first job goes to node7.
	// It stops at the first fit, which makes it the fastest.
	PolicyFirst = "first"
	// PolicyFirstNodeX is first, taking whole nodes.
	PolicyFirstNodeX = "firstnodex"
	// PolicyHigh prefers resources with the highest ids (node7 before node0).
	PolicyHigh = "high"
	// PolicyLow prefers resources with the lowest ids (node0 first).
	PolicyLow = "low"
	// PolicyHiNode is high, scoring by node first.
	PolicyHiNode = "hinode"
	// PolicyLoNode is low, scoring by node first.
	PolicyLoNode = "lonode"
	// PolicyHiNodeX is hinode, taking whole nodes.
	PolicyHiNodeX = "hinodex"
	// PolicyLoNodeX is lonode, taking whole nodes.
	PolicyLoNodeX = "lonodex"
	// PolicyLocality packs a job into as few subtrees as it can.
	PolicyLocality = "locality"
	// PolicyVariation spreads jobs by the nodes' performance class
	// (property perf_class).
	PolicyVariation = "variation"
)

// Policies lists the policy names.
func Policies() []string {
	return []string{PolicyFirst, PolicyFirstNodeX, PolicyHigh, PolicyLow, PolicyHiNode, PolicyLoNode,
		PolicyHiNodeX, PolicyLoNodeX, PolicyLocality, PolicyVariation}
}

// Options configure a Matcher; zero values select Fluxion's defaults.
type Options struct {
	// Policy is one of the Policy constants or a custom policy string
	// such as "policy=high node_centric=true". Default PolicyFirst.
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
	ID    uint64
	State JobState
	// Start and End are the booked window [Start, End), in seconds on the
	// Matcher's timeline (the unit and origin of Match's at).
	Start, End int64
	// Overhead is the wall time the operation that created the job took.
	Overhead time.Duration
	// Nodes names the nodes the job holds resources on, comma-separated
	// ("node0,node3"; a string keeps Job comparable), in Allocation.Nodes'
	// order (after a partial cancel or a restore, in the graph's order); a
	// canceled job keeps its last list. Empty for a graph without nodes.
	Nodes string
}

// Matcher matches jobspecs against a resource graph and keeps its
// schedule and job table. It is the library's main entry point.
//
// A Matcher is safe for concurrent use by multiple goroutines: operations
// that change the schedule or the graph (Match and MatchWithID with any op
// but Satisfiability, Cancel, PartialCancel, Expire, Update, SetStatus,
// SetRankStatus, Attach, Remove, RemoveRanks, RestoreFrom) run one at a
// time, while read-only queries (ParseJobspec, Satisfiable, Match with
// Satisfiability, Find, FindAt, Explain, Info, Jobs, Stat, Status,
// RankStatus, Usage, NodeUsage, WriteDOT, Snapshot, Clone) run
// concurrently with each other and wait for a running writer.
type Matcher struct {
	mu   sync.RWMutex
	m    *match.Matcher
	opts Options
	// jobs is the job table; a Clone shares it (and its entries) until
	// either side changes it: read it directly, change it through wjobs.
	jobs       map[uint64]*Job
	jobsShared atomic.Bool
	// next is the next automatic job id; 0 once id 2^64-1 was used (the
	// automatic ids are exhausted).
	next  uint64
	views sync.Pool

	stats Stats
	// releases counts the operations that may have released a job
	// (ReleaseGeneration).
	releases atomic.Uint64
}

// ReleaseGeneration returns a number that changes whenever an operation
// that can release a job (Cancel, PartialCancel, Remove, RemoveRanks,
// RestoreFrom) has run: while it stays the same, every job allocated or
// reserved before still is. A Child uses it to check its grant without
// asking for each job (see Child); a parent that lacks it (the service
// client) is asked for each job of the grant at every checked operation.
func (x *Matcher) ReleaseGeneration() uint64 { return x.releases.Load() }

// Stats summarises a Matcher (see Matcher.Stat).
type Stats struct {
	Vertices, Edges int // live (not removed) vertices and edges
	Jobs            int // jobs allocated or reserved now
	Matched         int // successful booking matches so far
	// MinMatch, MaxMatch and AvgMatch are the wall times of successful
	// booking matches.
	MinMatch, MaxMatch, AvgMatch time.Duration
}

// New creates a Matcher for g. Options are validated here: an unknown
// policy, subsystem set, traverser, pruning spec or format is an error
// (ErrInvalid). The Matcher owns g from now on: change it only through the
// Matcher.
func New(g *graph.Graph, opts Options) (*Matcher, error) {
	if g == nil {
		return nil, invalidf("new", "graph is nil")
	}
	if opts.Format == "" {
		opts.Format = "rv1"
	}
	if _, err := NewWriter(opts.Format); err != nil {
		return nil, relabel(err, "new")
	}
	m, err := match.New(g, match.Options{
		Policy: opts.Policy, Subsystems: opts.Subsystems, PruneFilters: opts.PruneFilters,
		NoPruneFilters: opts.NoPruneFilters, Traverser: opts.Traverser,
		MaxFindDepth: opts.Limits.withDefaults().MaxDepth,
	})
	if err != nil {
		var ce *match.ConfigError
		if errors.As(err, &ce) {
			return nil, newError("new", ErrInvalid, err, "bad %s option: %v", ce.Stage, ce.Err)
		}
		return nil, newError("new", ErrInvalid, err, "%v", err)
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
// Errors match ErrInvalid; errors.As finds the *jobspec.Error with the
// offending entry's path and position.
func (x *Matcher) ParseJobspec(data []byte) (*jobspec.Jobspec, error) {
	if err := x.opts.Limits.checkInput("the jobspec", len(data)); err != nil {
		return nil, fromMatch("parse jobspec", err)
	}
	x.mu.RLock()
	types := x.m.Graph().Types
	x.mu.RUnlock()
	js, err := jobspec.Parse(data, jobspec.Options{KnownType: func(t string) bool {
		_, ok := types.Lookup(t)
		return ok
	}})
	if err != nil {
		return nil, fromMatch("parse jobspec", err)
	}
	return js, nil
}

// checkRequest validates a jobspec given to Match, MatchWithID, Explain or
// Satisfiable: jobspec.Validate, a non-empty request and a duration the
// graph's window can hold.
func checkRequest(op string, js *jobspec.Jobspec) error {
	if err := jobspec.Validate(js); err != nil {
		return fromMatch(op, err)
	}
	if len(js.Resources) == 0 {
		return invalidf(op, "the jobspec requests no resources")
	}
	if _, ok := match.Duration(js.Duration); !ok {
		return invalidf(op, "jobspec duration %v is not a number of seconds in [0, %d]", js.Duration, match.GraphEnd)
	}
	return nil
}

// Match runs op for js at time at, with an automatic job id (one more
// than the largest id used so far; ids are consumed only by successful
// booking matches and by Update). An automatic id is never one in use:
// once id 2^64-1 was used (by MatchWithID or Update), the automatic ids
// are exhausted and a booking Match fails with an error matching
// ErrInvalid and ErrLimit; MatchWithID still works. (Fluxion's counter
// wraps around.)
//
// at is in seconds, on the Matcher's own timeline: whatever origin the
// caller chooses (0, or Unix time), used consistently. Jobs hold their
// resources for js.Duration seconds from their start (fractions round up);
// a zero duration means until the end of the graph's window, [0,
// 3153600000) seconds, 100 years from 0. at must lie in that window
// (ErrInvalid), and a job that would end after it is cut at its end.
//
// A failed match changes nothing and returns an error matching ErrBusy
// when the request would fit the graph were everything free and up (so
// it may fit later), ErrUnsatisfiable when it would not (retrying is
// pointless), or ErrInvalid for a bad jobspec or op. For Satisfiability
// it returns (nil, nil) when js could ever fit.
func (x *Matcher) Match(op Op, js *jobspec.Jobspec, at int64) (*Allocation, error) {
	if err := x.checkMatch(op, js, at); err != nil {
		return nil, err
	}
	if op == Satisfiability {
		return nil, x.satisfiable(js, at)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.next == 0 && op.Books() {
		return nil, newError("match", ErrInvalid, ErrLimit, "the automatic job ids are exhausted: job id %d was used (choose ids with MatchWithID)", uint64(math.MaxUint64))
	}
	return x.matchLocked(op, js, x.next, at)
}

// MatchWithID is Match with a caller-chosen job id (Fluxion's
// match_with_jobid); the id must not be allocated or reserved already
// (ErrExists), but the id of a canceled job may be used again. Id 0 is
// not a job (Allocation.JobID of a dry run): booking ops refuse it
// (ErrInvalid).
func (x *Matcher) MatchWithID(op Op, js *jobspec.Jobspec, id uint64, at int64) (*Allocation, error) {
	if err := x.checkMatch(op, js, at); err != nil {
		return nil, err
	}
	if op == Satisfiability {
		return nil, x.satisfiable(js, at)
	}
	if id == 0 && op.Books() {
		return nil, errJobZero("match")
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if j, ok := x.jobs[id]; ok && j.State != Canceled {
		return nil, newError("match", ErrExists, nil, "job %d is %s", id, strings.ToLower(j.State.String()))
	}
	return x.matchLocked(op, js, id, at)
}

// errJobZero refuses job id 0, which Allocation.JobID uses for "no job".
func errJobZero(op string) error {
	return invalidf(op, "job id 0 is not a job id (it marks a dry run's allocation)")
}

func (x *Matcher) checkMatch(op Op, js *jobspec.Jobspec, at int64) error {
	if !validOp(op) {
		return invalidf("match", "unknown op %d", int(op))
	}
	if err := checkRequest("match", js); err != nil {
		return err
	}
	// Outside the window no retry can succeed: the match layer would say
	// EBUSY (at the end) or a bare EINVAL.
	if op != Satisfiability && (at < 0 || at >= match.GraphEnd) {
		return invalidf("match", "time %d is outside the graph's window [0, %d) seconds", at, match.GraphEnd)
	}
	return nil
}

func (x *Matcher) matchLocked(op Op, js *jobspec.Jobspec, id uint64, at int64) (*Allocation, error) {
	rec := &emit.Recorder{}
	start := time.Now()
	var got int64
	var err error
	if op.Books() {
		got, err = x.m.Match(op, js, id, at, rec)
	} else {
		got, err = x.m.DryRun(op, js, at, rec)
	}
	took := time.Since(start)
	if err != nil {
		return nil, x.matchError(err, js, at)
	}
	a := newAllocation(x, rec, id, got, at)
	a.Overhead = took
	if op.Books() {
		st := Allocated
		if got > at {
			st = Reserved
		}
		x.wjobs()[id] = &Job{ID: id, State: st, Start: a.Start, End: a.End, Overhead: took, Nodes: strings.Join(a.Nodes(), ",")}
		x.useID(id)
		x.recordStat(took)
	} else {
		a.JobID = 0
	}
	return a, nil
}

// matchError classifies a failed match: ErrUnsatisfiable exactly when the
// request would not be allocated on the graph with everything free and up
// (match.Feasible), ErrBusy otherwise. Fluxion's errno alone differs from
// that: Allocate and AllocateOrElseReserve report EBUSY for requests that
// can never fit (more nodes than the graph has, or a request that takes
// nothing exclusively), and AllocateWithSatisfiability ENODEV for ones
// that only need nodes that are down. The caller holds the write lock.
func (x *Matcher) matchError(err error, js *jobspec.Jobspec, at int64) error {
	if !errors.Is(err, ErrBusy) && !errors.Is(err, ErrUnsatisfiable) {
		return fromMatch("match", err)
	}
	v := x.view()
	defer x.views.Put(v)
	if ferr := v.Feasible(js); ferr != nil {
		return unsatisfiable("match", ferr)
	}
	return newError("match", ErrBusy, err, "the request does not fit at time %d (resources are busy or down)", at)
}

// unsatisfiable converts a failed match.Feasible.
func unsatisfiable(op string, err error) error {
	if !errors.Is(err, ErrUnsatisfiable) {
		return fromMatch(op, err)
	}
	msg := "the request can never be satisfied by this graph, even with everything free and up"
	var me *match.Error
	if errors.As(err, &me) && me.Msg != "" {
		msg = "the request can never be allocated: " + me.Msg
	}
	return newError(op, ErrUnsatisfiable, err, "%s", msg)
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
// (ignoring what is booked and what is down): nil, or an error matching
// ErrUnsatisfiable (or ErrInvalid for a bad request). Unlike Fluxion's
// satisfiability op, it also rejects the requests Fluxion selects but
// never allocates, saying why and which shape works on this graph: those
// that take nothing exclusively (a bare "core: 1", without a slot or
// "exclusive: true"), and those whose slot holds types that sit a level
// below the slot's parent ("node→slot→core" where cores sit under
// sockets: ask node→slot→socket→core). The same message names a type the
// graph lacks or a level that skips one. JobspecFor writes requests in the
// shape a graph serves.
func (x *Matcher) Satisfiable(js *jobspec.Jobspec) error {
	if err := checkRequest("satisfiable", js); err != nil {
		return err
	}
	return x.satisfiable(js, 0)
}

func (x *Matcher) satisfiable(js *jobspec.Jobspec, at int64) error {
	return x.feasible("satisfiable", js)
}

// feasible is Satisfiable for an already checked js, its errors named op.
func (x *Matcher) feasible(op string, js *jobspec.Jobspec) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := x.view()
	defer x.views.Put(v)
	if err := v.Feasible(js); err != nil {
		return unsatisfiable(op, err)
	}
	return nil
}

// Cancel releases everything job id holds. Canceled jobs stay in the job
// table as Canceled.
func (x *Matcher) Cancel(id uint64) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.releases.Add(1) // under the lock, after the change (see ReleaseGeneration)
	j, ok := x.jobs[id]
	if !ok || j.State == Canceled {
		return newError("cancel", ErrNotFound, nil, "no job %d allocated or reserved", id)
	}
	if err := x.m.Cancel(id); err != nil {
		return fromMatch("cancel", err)
	}
	x.wjobs()[j.ID].State = Canceled
	return nil
}

// Info returns the job table entry of id.
func (x *Matcher) Info(id uint64) (Job, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	j, ok := x.jobs[id]
	if !ok {
		return Job{}, newError("info", ErrNotFound, nil, "no job %d", id)
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

// FindAt is Find with the time, in seconds, that agfilter mode reports
// usage at (the only part of find that depends on time). As in Fluxion, a
// filter with nothing in use at now reports its usage at time 0 instead.
func (x *Matcher) FindAt(criteria, format string, now int64) (string, error) {
	w, err := NewWriter(format)
	if err != nil {
		return "", relabel(err, "find")
	}
	if err := x.opts.Limits.checkFind(criteria); err != nil {
		return "", fromMatch("find", err)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := x.view()
	defer x.views.Put(v)
	if err := v.Find(criteria, now, w); err != nil {
		return "", fromMatch("find", err)
	}
	s, err := w.Render()
	if err != nil {
		return "", fromMatch("find", err)
	}
	return s, nil
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
	if len(x.m.Graph().ByPath(path)) == 0 {
		return newError("set status", ErrNotFound, nil, "no resource at path %q", path)
	}
	if err := x.m.SetStatus(path, st); err != nil {
		return fromMatch("set status", err)
	}
	// Fluxion's count adds and takes per change, so a node below two
	// down vertices is taken twice; the Matcher counts the nodes up.
	x.m.CountUpNodes()
	return nil
}

// Status reports whether the first vertex at path is itself marked up. A
// vertex below a down vertex can read up while nothing in it can be
// allocated.
func (x *Matcher) Status(path string) (up bool, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	vs := x.m.Graph().ByPath(path)
	if len(vs) == 0 {
		return false, newError("status", ErrNotFound, nil, "no resource at path %q", path)
	}
	return x.m.Graph().V(vs[0]).Status == graph.StatusUp, nil
}

// Clone returns an independent copy (graph, schedule and job table) for
// what-if simulation. It is copy-on-write: Clone itself takes time in
// proportion to the graph's size divided by 256, and the first change to
// a part of the state through either copy copies that part (the graph, for
// Attach, Remove and the status setters, is copied whole then).
func (x *Matcher) Clone() *Matcher {
	x.mu.RLock()
	defer x.mu.RUnlock()
	c := wrap(x.m.Clone(), x.opts)
	x.jobsShared.Store(true)
	c.jobs = x.jobs
	c.jobsShared.Store(true)
	c.next, c.stats = x.next, x.stats
	return c
}

// useID records that job id id was used: the next automatic id is above
// it, or 0 (exhausted) after 2^64-1.
func (x *Matcher) useID(id uint64) {
	if x.next != 0 && id >= x.next {
		x.next = id + 1 // 0 after 2^64-1
	}
}

// wjobs returns the job table for a change (under the write lock), copying
// it and its entries first when it is shared with a clone.
func (x *Matcher) wjobs() map[uint64]*Job {
	if x.jobsShared.Load() {
		c := make(map[uint64]*Job, len(x.jobs))
		all := make([]Job, 0, len(x.jobs))
		for id, j := range x.jobs {
			all = append(all, *j)
			c[id] = &all[len(all)-1]
		}
		x.jobs = c
		x.jobsShared.Store(false)
	}
	return x.jobs
}
