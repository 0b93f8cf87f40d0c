package match

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/planner"
)

// Copy-on-write storage of a schedule.
//
// The per-vertex state (planners, exclusivity checkers, job records,
// pruning filters, dynamic child order) lives in records held by chunks of
// chunkSize vertices; the per-edge weights of the dynamic order in chunks
// of chunkSize edges; the job index and the graph whole. Each chunk (and
// the job index and the graph) carries the token of the schedule that owns
// it. Clone gives the original and the copy fresh tokens and copies only
// the tables of chunk pointers, so that both share every chunk; the first
// write to a chunk through one of them copies that chunk (the graph:
// copies it whole) and takes ownership of the copy.
//
// Only the w* accessors of this file return writable state, and they are
// what every mutation goes through; the read accessors return values or
// read-only views. TestStoreAccess checks that no other file touches the
// chunks.
//
// A vertex without a record has the state of a vertex that was never
// booked: empty planners of its size, no jobs, no filter and, for a
// dynamic policy, the default child order (its out-edges by uniq_id),
// derived from the graph when that is its out-edges reversed; so records
// exist only for booked vertices, filter anchors and stored orders.

// lastToken numbers ownership tokens (0 is never used: a zero owner is
// owned by no schedule).
var lastToken atomic.Uint64

func newToken() uint64 { return lastToken.Add(1) }

const (
	chunkShift = 8
	chunkSize  = 1 << chunkShift
	chunkMask  = chunkSize - 1
)

// vrec is the schedule state of one vertex.
type vrec struct {
	plan planner.Planner
	xchk planner.Planner
	jobs []jobRec         // sorted by job id; nil when big holds them
	big  *jobBlocks       // a long list (jobs.go), or nil
	filt []*planner.Multi // by matcher subsystem index (shorter: none)
	out  []outEntry       // the stored dynamic child order; nil: derived (childOrder) or in bigOut
	// bigOut is a long stored order in blocks (jobs.go), or nil.
	bigOut *orderBlocks
}

// vchunk holds the records of chunkSize consecutive vertices.
type vchunk struct {
	owner uint64
	slot  [chunkSize]uint16 // 1 + index in recs; 0: no record
	recs  []*vrec
}

// echunk holds the dynamic-order weights of chunkSize consecutive edges.
type echunk struct {
	owner uint64
	w     [chunkSize]uint64
}

// jobIndex lists, per job, the vertices where it got a record (cancel
// visits them instead of walking from the root); lists are recycled.
type jobIndex struct {
	owner uint64
	byJob map[uint64]int32
	// last caches the byJob entry of the last noted job (a booking notes
	// one job on many vertices); lastOK is false when there is none.
	last   uint64
	lastI  int32
	lastOK bool
	lists  [][]graph.VertexID
	free   []int32
	chunk  []graph.VertexID // unused room for lists
}

// store is the copy-on-write part of a schedule.
type store struct {
	token  uint64 // this schedule's ownership token
	gOwner uint64 // the token that owns the graph
	vs     []*vchunk
	es     []*echunk
	jx     *jobIndex
	fresh  *freshState // per-subtree freshness counts (fresh.go)

	// Unused room for new records and job lists; never shared.
	recSlab  []vrec
	jobChunk []jobRec
	plSlab   planner.Slab // storage for planners' first spans
}

// newStore returns an empty store for nv vertices, owning the graph.
func newStore(nv int) store {
	t := newToken()
	return store{token: t, gOwner: t, vs: make([]*vchunk, (nv+chunkMask)>>chunkShift)}
}

// booked reports whether v has a record (was ever booked, filtered or
// ordered).
func (s *schedule) booked(v graph.VertexID) bool { return s.rec(v) != nil }

// cloneStore returns a store sharing every chunk of s, and gives s a fresh
// token so that its next write to a shared chunk copies it too.
func (s *store) cloneStore() store {
	c := store{
		token: newToken(),
		vs:    slices.Clone(s.vs),
		es:    slices.Clone(s.es),
		jx:    s.jx,
		fresh: s.fresh,
	}
	s.token = newToken()
	return c
}

// --- read accessors (usable from views) ---

// rec returns v's record, or nil. The record is shared with clones: read
// it only (store.go's read accessors below wrap it).
func (s *schedule) rec(v graph.VertexID) *vrec {
	ci := int(v) >> chunkShift
	if ci >= len(s.vs) {
		return nil
	}
	c := s.vs[ci]
	if c == nil {
		return nil
	}
	i := c.slot[int(v)&chunkMask]
	if i == 0 {
		return nil
	}
	return c.recs[i-1]
}

// rPlanner is a read-only copy of a planner (it shares the planner's
// storage: never call a mutating method through it).
type rPlanner struct{ p planner.Planner }

func (r rPlanner) AvailDuring(t, d int64) (int64, error) { return r.p.AvailDuring(t, d) }
func (r rPlanner) SpanPlanned(id int64) (int64, error)   { return r.p.SpanPlanned(id) }
func (r rPlanner) SpanInfo(id int64) (start, duration, planned int64, err error) {
	return r.p.SpanInfo(id)
}
func (r rPlanner) AvailAt(t int64) (int64, error) { return r.p.AvailAt(t) }
func (r rPlanner) NumSpans() int                  { return r.p.NumSpans() }
func (r rPlanner) NumPoints() int                 { return r.p.NumPoints() }
func (r rPlanner) Base() int64                    { return r.p.Base() }
func (r rPlanner) Total() int64                   { return r.p.Total() }
func (r rPlanner) FullRun(t int64) (from, until int64, full bool) {
	return r.p.FullRun(t)
}

// pristinePlan is the planner of a vertex of size n that was never booked.
func pristinePlan(n int64) planner.Planner {
	var p planner.Planner
	p.Init(0, math.MaxInt64, n)
	return p
}

// plan returns v's planner.
func (s *schedule) plan(v graph.VertexID) rPlanner {
	if r := s.rec(v); r != nil {
		return rPlanner{r.plan}
	}
	return rPlanner{pristinePlan(s.g.V(v).Size)}
}

// xplan returns v's exclusivity checker.
func (s *schedule) xplan(v graph.VertexID) rPlanner {
	if r := s.rec(v); r != nil {
		return rPlanner{r.xchk}
	}
	return rPlanner{pristinePlan(xCheckerTotal)}
}

// rMulti is a read-only view of a pruning filter (the zero value: none).
type rMulti struct{ f *planner.Multi }

func (r rMulti) ok() bool                                     { return r.f != nil }
func (r rMulti) Len() int                                     { return r.f.Len() }
func (r rMulti) Type(i int) int32                             { return r.f.Type(i) }
func (r rMulti) Index(t int32) int                            { return r.f.Index(t) }
func (r rMulti) Total(i int) int64                            { return r.f.Total(i) }
func (r rMulti) NumSpans() int                                { return r.f.NumSpans() }
func (r rMulti) HasSpan(id int64) bool                        { return r.f.HasSpan(id) }
func (r rMulti) Check(t, d int64, counts []int64) error       { return r.f.Check(t, d, counts) }
func (r rMulti) AvailAt(t int64, i int) (int64, error)        { return r.f.AvailAt(t, i) }
func (r rMulti) AvailDuring(t, d int64, i int) (int64, error) { return r.f.AvailDuring(t, d, i) }
func (r rMulti) SpanPlanned(id int64, i int) (int64, error)   { return r.f.SpanPlanned(id, i) }
func (r rMulti) Member(i int) rPlanner                        { return rPlanner{*r.f.Member(i)} }
func (r rMulti) SpanInfo(id int64) (start, duration int64, planned []int64, err error) {
	return r.f.SpanInfo(id)
}

// filter returns v's pruning filter in matcher subsystem si.
func (s *schedule) filter(si int, v graph.VertexID) rMulti {
	if r := s.rec(v); r != nil && si < len(r.filt) {
		return rMulti{r.filt[si]}
	}
	return rMulti{}
}

// rJobs is a read-only view of a vertex's job records.
type rJobs struct {
	l   []jobRec
	big *jobBlocks
}

func (r rJobs) Len() int {
	if r.big != nil {
		return r.big.n
	}
	return len(r.l)
}

func (r rJobs) At(i int) jobRec {
	if r.big != nil {
		return *r.big.at(i)
	}
	return r.l[i]
}

// jobsOf returns v's job records, sorted by job id.
func (s *schedule) jobsOf(v graph.VertexID) rJobs {
	if r := s.rec(v); r != nil {
		return rJobs{r.jobs, r.big}
	}
	return rJobs{}
}

// jobAt returns v's record for job.
func (s *schedule) jobAt(v graph.VertexID, job uint64) (jobRec, bool) {
	r := s.rec(v)
	if r == nil {
		return jobRec{}, false
	}
	if r.big != nil {
		if p := r.big.find(job); p != nil {
			return *p, true
		}
		return jobRec{}, false
	}
	if i, ok := findJob(r.jobs, job); ok {
		return r.jobs[i], true
	}
	return jobRec{}, false
}

// findJob returns the index of job's record in l, or where it would go.
func findJob(l []jobRec, job uint64) (int, bool) {
	lo, hi := 0, len(l)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l[mid].job < job {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(l) && l[lo].job == job
}

// rOrder is a read-only view of a vertex's dynamic child order: a list
// (materialized), or the reverse of the vertex's out-edges (derived).
type rOrder struct {
	l   []outEntry
	out []graph.Half
	g   *graph.Graph
	big *orderBlocks
}

func (r rOrder) Len() int {
	if r.out != nil {
		return len(r.out)
	}
	if r.big != nil {
		return r.big.n
	}
	return len(r.l)
}

func (r rOrder) At(i int) outEntry {
	if r.big != nil {
		return r.big.at(i)
	}
	if r.out != nil {
		h := r.out[len(r.out)-1-i]
		return outEntry{weight: math.MaxUint64, uniq: r.g.V(h.Other).UniqID, edge: h.Edge, dst: h.Other, sub: h.Subsystem}
	}
	return r.l[i]
}

func (r rOrder) none() bool { return r.l == nil && len(r.out) == 0 && r.big == nil }

// list returns the order as a new list.
func (r rOrder) list() []outEntry {
	if r.big != nil {
		return r.big.flatten()
	}
	if r.out == nil {
		return slices.Clone(r.l)
	}
	l := make([]outEntry, r.Len())
	for i := range l {
		l[i] = r.At(i)
	}
	return l
}

// childOrder returns u's dynamic child order (none unless the policy is
// dynamic). A vertex whose order was never changed, and whose out-edges
// go to strictly increasing uniq_ids, stores none: its order (by weight,
// all equal, then uniq_id, both descending) is its out-edges reversed.
func (s *schedule) childOrder(u graph.VertexID) rOrder {
	if !s.dynamic {
		return rOrder{}
	}
	if r := s.rec(u); r != nil && r.bigOut != nil {
		return rOrder{big: r.bigOut}
	}
	if r := s.rec(u); r != nil && r.out != nil {
		return rOrder{l: r.out}
	}
	return rOrder{out: s.g.Out(u), g: s.g}
}

// derivedOrder reports whether u's order is derived from its out-edges.
func (s *schedule) derivedOrder(u graph.VertexID) bool {
	r := s.rec(u)
	return r == nil || r.out == nil && r.bigOut == nil
}

// outIncreasing reports whether out goes to strictly increasing uniq_ids,
// so that the reverse is the default dynamic order.
func outIncreasing(g *graph.Graph, out []graph.Half) bool {
	for i := 1; i < len(out); i++ {
		if g.V(out[i-1].Other).UniqID >= g.V(out[i].Other).UniqID {
			return false
		}
	}
	return true
}

// weight returns the dynamic-order weight of edge e.
func (s *schedule) weight(e graph.EdgeID) uint64 {
	ci := int(e) >> chunkShift
	if ci >= len(s.es) || s.es[ci] == nil {
		return math.MaxUint64
	}
	return s.es[ci].w[int(e)&chunkMask]
}

// jobVertices lists the vertices where job got a record (possibly
// repeated, possibly dropped since). Do not modify.
func (s *schedule) jobVertices(job uint64) []graph.VertexID {
	if s.jx == nil {
		return nil
	}
	if i, ok := s.jx.byJob[job]; ok {
		return s.jx.lists[i]
	}
	return nil
}

// --- write accessors ---

// wgraph returns the graph for a change, copying it first when it is
// shared with a clone. Every change of the graph goes through it.
func (s *schedule) wgraph() *graph.Graph {
	if s.gOwner != s.token {
		s.g = s.g.Clone()
		s.gOwner = s.token
	}
	return s.g
}

// wrec returns v's record for a change, creating it (with the planners of
// a vertex that was never booked) or copying its chunk as needed.
func (s *schedule) wrec(v graph.VertexID) *vrec {
	ci := int(v) >> chunkShift
	if ci >= len(s.vs) {
		s.vs = append(s.vs, make([]*vchunk, ci+1-len(s.vs))...)
	}
	c := s.vs[ci]
	switch {
	case c == nil:
		c = &vchunk{owner: s.token}
		s.vs[ci] = c
	case c.owner != s.token:
		c = c.copyFor(s.token)
		s.vs[ci] = c
	}
	j := int(v) & chunkMask
	if i := c.slot[j]; i != 0 {
		return c.recs[i-1]
	}
	if len(s.recSlab) == 0 {
		s.recSlab = make([]vrec, 64)
	}
	r := &s.recSlab[0]
	s.recSlab = s.recSlab[1:]
	r.plan.Init(0, math.MaxInt64, s.g.V(v).Size)
	r.xchk.Init(0, math.MaxInt64, xCheckerTotal)
	c.recs = append(c.recs, r)
	c.slot[j] = uint16(len(c.recs))
	return r
}

// copyFor returns a deep copy of c owned by token.
func (c *vchunk) copyFor(token uint64) *vchunk {
	d := &vchunk{owner: token, slot: c.slot, recs: make([]*vrec, len(c.recs))}
	recs := make([]vrec, len(c.recs))
	nj, no := 0, 0
	for _, r := range c.recs {
		nj += len(r.jobs)
		no += len(r.out)
	}
	jobs := make([]jobRec, 0, nj)
	outs := make([]outEntry, 0, no)
	for i, r := range c.recs {
		n := &recs[i]
		r.plan.CopyTo(&n.plan)
		r.xchk.CopyTo(&n.xchk)
		if r.jobs != nil {
			jobs = append(jobs, r.jobs...)
			n.jobs = jobs[len(jobs)-len(r.jobs) : len(jobs) : len(jobs)]
		}
		if r.big != nil {
			n.big = r.big.clone()
		}
		if r.out != nil {
			outs = append(outs, r.out...)
			n.out = outs[len(outs)-len(r.out) : len(outs) : len(outs)]
		}
		if r.bigOut != nil {
			n.bigOut = r.bigOut.clone()
		}
		if r.filt != nil {
			n.filt = make([]*planner.Multi, len(r.filt))
			for si, f := range r.filt {
				if f != nil {
					n.filt[si] = f.Clone()
				}
			}
		}
		d.recs[i] = n
	}
	return d
}

// addSpan books on p, a planner of a record for a change, taking the
// storage of a first span from the store's slab.
func (s *schedule) addSpan(p *planner.Planner, at, d, n int64) (int64, error) {
	return p.AddSpanIn(&s.plSlab, at, d, n)
}

// filterIn returns the pruning filter in matcher subsystem si of r, a
// record for a change (from wrec), or nil when it has none.
func filterIn(r *vrec, si int) *planner.Multi {
	if si < len(r.filt) {
		return r.filt[si]
	}
	return nil
}

// wplan returns v's planner for a change.
func (s *schedule) wplan(v graph.VertexID) *planner.Planner { return &s.wrec(v).plan }

// wxplan returns v's exclusivity checker for a change.
func (s *schedule) wxplan(v graph.VertexID) *planner.Planner { return &s.wrec(v).xchk }

// wfilter returns v's pruning filter in matcher subsystem si for a change,
// or nil when v has none.
func (s *schedule) wfilter(si int, v graph.VertexID) *planner.Multi {
	if !s.filter(si, v).ok() {
		return nil
	}
	return s.wrec(v).filt[si]
}

// setFilter installs f as v's pruning filter in matcher subsystem si.
func (s *schedule) setFilter(si int, v graph.VertexID, f *planner.Multi) {
	r := s.wrec(v)
	for len(r.filt) <= si {
		r.filt = append(r.filt, nil)
	}
	r.filt[si] = f
}

// wjob returns v's record for job for a change, or nil when there is none.
func (s *schedule) wjob(v graph.VertexID, job uint64) *jobRec {
	if _, ok := s.jobAt(v, job); !ok {
		return nil
	}
	r := s.wrec(v)
	if r.big != nil {
		return r.big.find(job)
	}
	i, _ := findJob(r.jobs, job)
	return &r.jobs[i]
}

// newJob returns v's record for job, creating it. The pointer is valid
// until the next record is created on v.
func (s *schedule) newJob(v graph.VertexID, job uint64) *jobRec {
	return s.newJobIn(s.wrec(v), v, job)
}

// newJobIn is newJob on r, v's record for a change (from wrec).
func (s *schedule) newJobIn(r *vrec, v graph.VertexID, job uint64) *jobRec {
	if r.big != nil {
		if p := r.big.find(job); p != nil {
			return p
		}
		p := r.big.insert(jobRec{job: job, fspan: -1})
		s.noteJobVertex(job, v)
		return p
	}
	l := r.jobs
	lo, ok := findJob(l, job)
	if ok {
		return &l[lo]
	}
	if len(l) == cap(l) {
		// Small record lists come from a shared chunk, so booking fresh
		// vertices does not allocate per vertex.
		var nl []jobRec
		if cap(l) < 4 {
			n := 2 * max(cap(l), 1)
			if len(s.jobChunk) < n {
				s.jobChunk = make([]jobRec, 1024)
			}
			nl = s.jobChunk[:0:n]
			s.jobChunk = s.jobChunk[n:]
		} else {
			nl = make([]jobRec, 0, 2*cap(l))
		}
		l = append(nl, l...)
	}
	l = append(l, jobRec{})
	if lo < len(l)-1 { // job ids mostly grow: usually nothing to move
		copy(l[lo+1:], l[lo:])
	}
	l[lo] = jobRec{job: job, fspan: -1}
	r.jobs = l
	s.noteJobVertex(job, v)
	if len(l) == 1 {
		s.refresh(v)
	}
	if len(l) > bigJobs {
		r.big, r.jobs = newJobBlocks(l), nil
		return r.big.find(job)
	}
	return &l[lo]
}

// dropIfEmpty removes v's record for job when it holds nothing any more.
func (s *schedule) dropIfEmpty(v graph.VertexID, job uint64) {
	rec, ok := s.jobAt(v, job)
	if !ok || rec.tagged || rec.alloc != 0 || rec.resv != 0 || rec.xspan != 0 || rec.fspan >= 0 {
		return
	}
	r := s.wrec(v)
	if r.big != nil {
		if r.big.remove(job); r.big.n == 0 {
			r.big = nil
			s.refresh(v)
		}
		return
	}
	i, _ := findJob(r.jobs, job)
	r.jobs = append(r.jobs[:i], r.jobs[i+1:]...)
	if len(r.jobs) == 0 {
		s.refresh(v)
	}
}

// clearJobs drops every job record of v.
func (s *schedule) clearJobs(v graph.VertexID) {
	if s.jobsOf(v).Len() > 0 {
		r := s.wrec(v)
		r.jobs, r.big = nil, nil
		s.refresh(v)
	}
}

// setFresh installs f as the schedule's freshness counts.
func (s *schedule) setFresh(f *freshState) {
	if f != nil {
		f.owner = s.token
	}
	s.fresh = f
}

// wfresh returns the freshness counts for a change (nil: none), copying
// them first when they are shared with a clone.
func (s *schedule) wfresh() *freshState {
	f := s.fresh
	if f != nil && f.owner != s.token {
		f = &freshState{owner: s.token, stale: slices.Clone(f.stale), below: slices.Clone(f.below)}
		s.fresh = f
	}
	return f
}

// setOrder replaces u's dynamic child order by a list; nil makes it
// derived again (u's out-edges must then allow that).
func (s *schedule) setOrder(u graph.VertexID, l []outEntry) {
	if l == nil && s.derivedOrder(u) {
		return
	}
	r := s.wrec(u)
	r.out, r.bigOut = l, nil
}

// worder returns u's order as a list for a change, materializing a
// derived one.
func (s *schedule) worder(u graph.VertexID) []outEntry {
	if r := s.rec(u); r != nil && r.bigOut != nil {
		w := s.wrec(u)
		w.out, w.bigOut = w.bigOut.flatten(), nil
		return w.out
	}
	if s.derivedOrder(u) {
		l := s.childOrder(u).list()
		if l == nil {
			l = []outEntry{}
		}
		s.wrec(u).out = l
	}
	return s.wrec(u).out
}

// wbigOrder returns u's order for a change when it is kept in blocks, or
// nil.
func (s *schedule) wbigOrder(u graph.VertexID) *orderBlocks {
	if r := s.rec(u); r == nil || r.bigOut == nil {
		return nil
	}
	return s.wrec(u).bigOut
}

// blockOrder keeps u's stored order in blocks when it is long and sorted.
func (s *schedule) blockOrder(u graph.VertexID) {
	r := s.rec(u)
	if r == nil || len(r.out) <= bigOrder || !sortedOrder(r.out) {
		return
	}
	w := s.wrec(u)
	w.bigOut, w.out = newOrderBlocks(w.out), nil
}

// wjx returns the job index for a change.
func (s *schedule) wjx() *jobIndex {
	x := s.jx
	switch {
	case x == nil:
		x = &jobIndex{owner: s.token, byJob: map[uint64]int32{}}
	case x.owner != s.token:
		x = x.copyFor(s.token)
	}
	s.jx = x
	return x
}

func (x *jobIndex) copyFor(token uint64) *jobIndex {
	c := &jobIndex{owner: token, byJob: make(map[uint64]int32, len(x.byJob)), lists: make([][]graph.VertexID, len(x.lists)), free: slices.Clone(x.free)}
	n := 0
	for _, l := range x.lists {
		n += len(l)
	}
	all := make([]graph.VertexID, 0, n)
	for i, l := range x.lists {
		if l != nil {
			all = append(all, l...)
			c.lists[i] = all[len(all)-len(l) : len(all) : len(all)]
		}
	}
	for k, v := range x.byJob {
		c.byJob[k] = v
	}
	return c
}

// noteJobVertex records that job got a record on v.
func (s *schedule) noteJobVertex(job uint64, v graph.VertexID) {
	x := s.wjx()
	i, ok := x.lastI, x.lastOK && x.last == job
	if !ok {
		i, ok = x.byJob[job]
	}
	if !ok {
		if n := len(x.free); n > 0 {
			i = x.free[n-1]
			x.free = x.free[:n-1]
		} else {
			i = int32(len(x.lists))
			x.lists = append(x.lists, nil)
		}
		x.byJob[job] = i
	}
	x.last, x.lastI, x.lastOK = job, i, true
	l := x.lists[i]
	if len(l) == cap(l) {
		// Lists grow inside shared chunks: a new job costs no allocation
		// of its own.
		nl := carve(&x.chunk, max(8, 2*cap(l)))
		l = append(nl, l...)
	}
	x.lists[i] = append(l, v)
}

// compactJob drops index entries of vertices where job holds no record,
// and the job's list when none is left.
func (s *schedule) compactJob(job uint64) {
	if s.jobVertices(job) == nil {
		if s.jx == nil {
			return
		}
		if _, ok := s.jx.byJob[job]; !ok {
			return
		}
	}
	x := s.wjx()
	i := x.byJob[job]
	l := x.lists[i][:0]
	for _, v := range x.lists[i] {
		if int(v) < s.g.NumVertices() && !slices.Contains(l, v) {
			if _, ok := s.jobAt(v, job); ok {
				l = append(l, v)
			}
		}
	}
	x.lists[i] = l
	if len(l) == 0 {
		delete(x.byJob, job)
		x.free = append(x.free, i)
		if x.last == job {
			x.lastOK = false
		}
	}
}

// setWeight sets the dynamic-order weight of edge e.
func (s *schedule) setWeight(e graph.EdgeID, w uint64) {
	ci := int(e) >> chunkShift
	if ci >= len(s.es) {
		s.es = append(s.es, make([]*echunk, ci+1-len(s.es))...)
	}
	c := s.es[ci]
	switch {
	case c == nil:
		if w == math.MaxUint64 {
			return
		}
		c = &echunk{owner: s.token}
		for i := range c.w {
			c.w[i] = math.MaxUint64
		}
		s.es[ci] = c
	case c.owner != s.token:
		d := *c
		d.owner = s.token
		c = &d
		s.es[ci] = c
	}
	c.w[int(e)&chunkMask] = w
}

// hasJob reports whether v has a record for job.
func (s *schedule) hasJob(v graph.VertexID, job uint64) bool {
	_, ok := s.jobAt(v, job)
	return ok
}
