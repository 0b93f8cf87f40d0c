package planner

import (
	"errors"
	"math"
	"slices"
	"sync"
)

// Errors mirror the errno values of the specification so that callers can
// classify failures with errors.Is exactly as the spec classifies errnos.
var (
	ErrInvalid  = errors.New("planner: invalid argument (EINVAL)")
	ErrRange    = errors.New("planner: out of range (ERANGE)")
	ErrBusy     = errors.New("planner: resources busy (EBUSY)")
	ErrNotFound = errors.New("planner: not found (ENOENT)")
)

// point is a scheduled point: rem units are free from at until the next
// point. ref counts the span endpoints (plus 1 for the base point) that keep
// the point alive.
type point struct {
	at  int64
	rem int64
	ref int64
	// key is rem as the earliest-time search sees it: rem, except after
	// UpdateTotalKeepSearch, until a span changes the point again.
	key int64
}

// span is one booking. A free slot has planned < 0 and links the free list
// through next. gen distinguishes successive occupants of a slot so that
// stale ids are rejected.
type span struct {
	start, last, planned int64
	gen                  uint32
	next                 int32
}

// Iteration states of avail_time_first/next.
const (
	iterNone   uint8 = iota // no valid iteration: Next fails with ErrInvalid
	iterActive              // candidates remain to be examined
	iterDone                // search ended: Next fails with ErrNotFound
)

// extra holds everything a planner needs only once it has had a span, so
// that the Planner value itself stays small.
type extra struct {
	spans  []span
	free   int32 // head of the free slot list, -1 if empty
	nspans int32 // live spans

	// avail_time_first/next parameters and cursor (index of the next point
	// to examine; points cannot move while the iteration is valid because
	// every mutation invalidates it).
	itOn, itD, itReq int64
	itIdx            int

	// pts is sorted by at. When empty, the planner has only the implicit
	// base point with rem == total.
	pts []point

	// Initial backing arrays for pts and spans, so that the first
	// AddSpan of a planner makes a single allocation.
	ptsBuf  [4]point
	spanBuf [2]span
}

// newExtra returns storage using its inline arrays, from slab (nil: the
// shared pool).
func newExtra(slab *Slab) *extra {
	var e *extra
	if slab != nil {
		e = slab.alloc()
	} else {
		e = allocExtra()
	}
	e.free = -1
	e.spans = e.spanBuf[:0]
	return e
}

// extraChunk hands out span storage 64 planners at a time: a scheduler
// booking fresh vertices then allocates once per 64 of them, not per vertex.
type extraChunk struct {
	buf  [slabSize]extra
	next int
}

const slabSize = 64

var extraChunks = sync.Pool{New: func() any { return new(extraChunk) }}

func allocExtra() *extra {
	c := extraChunks.Get().(*extraChunk)
	if c.next == len(c.buf) {
		c = new(extraChunk)
	}
	e := &c.buf[c.next]
	c.next++
	extraChunks.Put(c)
	return e
}

// Slab hands out the storage planners get on their first span, a block of
// 64 planners' worth at a time, without the synchronisation of the shared
// pool that AddSpan uses. Storage never returns to the slab: it belongs to
// the planner (and is freed with it). The zero value is ready to use; a
// Slab is not safe for concurrent use.
type Slab struct{ buf []extra }

func (s *Slab) alloc() *extra {
	if len(s.buf) == 0 {
		s.buf = make([]extra, slabSize)
	}
	e := &s.buf[0]
	s.buf = s.buf[1:]
	return e
}

// Planner is the time-indexed availability of total units of one resource
// over [Base(), End()).
//
// A Planner is meant to live by value in large slices (one per graph
// vertex): it is 40 bytes, and one without spans owns no heap memory. Its
// zero value is an empty planner with base = end = total = 0; call Init to
// give it a real range. Do not copy a Planner that has had spans by plain
// assignment (the copies would share storage); use Clone or CopyTo.
type Planner struct {
	base, end, total int64
	// ext holds the points and spans; it is created by the first AddSpan
	// (its points live there too, which keeps a Planner at 40 bytes).
	ext  *extra
	iter uint8
}

// New returns a planner for total units over [base, base+horizon).
func New(base, horizon, total int64) (*Planner, error) {
	p := new(Planner)
	if err := p.Init(base, horizon, total); err != nil {
		return nil, err
	}
	return p, nil
}

// Init (re)initialises p in place with no spans and without allocating. It
// fails with ErrInvalid if horizon < 1 and ErrRange if total < 0 (the
// unsigned "total > INT64_MAX" case of the spec), leaving p unchanged.
func (p *Planner) Init(base, horizon, total int64) error {
	if horizon < 1 {
		return ErrInvalid
	}
	if total < 0 {
		return ErrRange
	}
	// Storage is dropped rather than reused: p may be a shallow copy that
	// shares it with another planner.
	*p = Planner{base: base, end: satAdd(base, horizon), total: total}
	return nil
}

// satAdd returns a+b for b >= 0, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	s := a + b
	if s < a {
		return math.MaxInt64
	}
	return s
}

// exceeds reports whether t+d > end, for d >= 1, without overflowing.
func exceeds(t, d, end int64) bool {
	s := t + d
	return s < t || s > end
}

// before reports whether a < b+d, for d >= 1, without overflowing.
func before(a, b, d int64) bool {
	s := b + d
	return s < b || a < s
}

// Total returns the number of units planned over.
func (p *Planner) Total() int64 { return p.total }

// Base returns the first instant of the planner.
func (p *Planner) Base() int64 { return p.base }

// End returns base+horizon, saturated at math.MaxInt64.
func (p *Planner) End() int64 { return p.end }

// NumSpans returns the number of live spans.
func (p *Planner) NumSpans() int {
	if p.ext == nil {
		return 0
	}
	return int(p.ext.nspans)
}

// NumPoints returns the number of scheduled points, including the base
// point.
func (p *Planner) NumPoints() int {
	pts := p.points()
	if len(pts) == 0 {
		return 1
	}
	return len(pts)
}

// stateIdx returns the index of the point with the greatest at <= t.
// Requires len(pts) > 0 and t >= pts[0].at.
func stateIdx(pts []point, t int64) int {
	lo, hi := 1, len(pts) // pts[0].at <= t by precondition
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if pts[m].at <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// AvailAt returns the units free at t (avail_resources_at). It fails with
// ErrRange if t < Base() or t > End().
func (p *Planner) AvailAt(t int64) (int64, error) {
	if t > p.end || t < p.base {
		return -1, ErrRange
	}
	pts := p.points()
	if len(pts) == 0 {
		return p.total, nil
	}
	return pts[stateIdx(pts, t)].rem, nil
}

// AvailDuring returns the minimum number of units free during [t, t+d)
// (avail_resources_during). Errors: ErrInvalid if t > End() or d < 1,
// ErrRange if t+d > End(), ErrInvalid if t < Base().
func (p *Planner) AvailDuring(t, d int64) (int64, error) {
	if t > p.end || d < 1 {
		return -1, ErrInvalid
	}
	if exceeds(t, d, p.end) {
		return -1, ErrRange
	}
	if t < p.base {
		return -1, ErrInvalid
	}
	return p.minDuring(t, d), nil
}

// minDuring is AvailDuring without argument checks; t+d does not overflow.
func (p *Planner) minDuring(t, d int64) int64 {
	pts := p.points()
	if len(pts) == 0 {
		return p.total
	}
	i := stateIdx(pts, t)
	m := pts[i].rem
	e := t + d
	for i++; i < len(pts) && pts[i].at < e; i++ {
		m = min(m, pts[i].rem)
	}
	return m
}

// FullRun reports whether no unit is free at t and, if so, an interval
// [from, until) holding t during which none is free (from is the time of
// the last scheduled point at or before t; until is the first later point
// at which some unit is free, or End()). Bookings only make such an
// interval longer; removing a span can end it.
func (p *Planner) FullRun(t int64) (from, until int64, full bool) {
	if t < p.base || t >= p.end {
		return 0, 0, false
	}
	pts := p.points()
	if len(pts) == 0 {
		if p.total != 0 {
			return 0, 0, false
		}
		return p.base, p.end, true
	}
	i := stateIdx(pts, t)
	if pts[i].rem != 0 {
		return 0, 0, false
	}
	from, until = pts[i].at, p.end
	for i++; i < len(pts); i++ {
		if pts[i].rem != 0 {
			until = pts[i].at
			break
		}
	}
	return from, until, true
}

// Check reports whether request units are free during all of [t, t+d)
// (avail_during). Errors, in order: ErrInvalid if d < 1; ErrRange if
// request is negative or exceeds Total(); ErrRange if t+d > End();
// ErrInvalid if t < Base(); ErrBusy if fewer than request units are free at
// some instant of the window.
func (p *Planner) Check(t, d, request int64) error {
	if d < 1 {
		return ErrInvalid
	}
	if request < 0 || request > p.total {
		return ErrRange
	}
	if exceeds(t, d, p.end) {
		return ErrRange
	}
	if t < p.base {
		return ErrInvalid
	}
	if p.minDuring(t, d) < request {
		return ErrBusy
	}
	return nil
}

// AddSpan books request units during [start, start+d) and returns a
// positive span id. Every failure (bad arguments, window past End(), not
// enough free units) is ErrInvalid, as in the spec. A request of 0 is legal
// and still creates scheduled points.
func (p *Planner) AddSpan(start, d, request int64) (int64, error) {
	return p.AddSpanIn(nil, start, d, request)
}

// AddSpanIn is AddSpan taking the storage a planner needs on its first
// span from slab (nil: the shared pool).
func (p *Planner) AddSpanIn(slab *Slab, start, d, request int64) (int64, error) {
	// Check covers every condition of add_span: d >= 1, 0 <= request <=
	// total, start >= base and start+d <= end (stricter than the spec's
	// start+d-1 <= end, which therefore never matters).
	if p.Check(start, d, request) != nil {
		return -1, ErrInvalid
	}
	if p.ext == nil {
		p.ext = newExtra(slab)
	}
	e := p.ext
	last := start + d
	p.iter = iterNone
	if len(e.pts) == 0 {
		// No points yet (a fresh planner, or one emptied by RemSpan or
		// Reset): the base point, start unless it is the base, and last
		// (> start, so never the base), as refPoint below would make them.
		if cap(e.pts) == 0 {
			e.pts = e.ptsBuf[:0]
		}
		pts := e.pts
		if start == p.base {
			pts = append(pts, point{at: p.base, rem: p.total - request, ref: 2, key: p.total - request})
		} else {
			pts = append(pts,
				point{at: p.base, rem: p.total, ref: 1, key: p.total},
				point{at: start, rem: p.total - request, ref: 1, key: p.total - request})
		}
		e.pts = append(pts, point{at: last, rem: p.total, ref: 1, key: p.total})
		return e.alloc(start, last, request), nil
	}
	i := p.refPoint(start)
	j := p.refPoint(last)
	for k := i; k < j; k++ {
		e.pts[k].rem -= request
		e.pts[k].key = e.pts[k].rem
	}
	return e.alloc(start, last, request), nil
}

// refPoint returns the index of the point at t, creating it from the state
// at t if needed, and takes a reference on it. Requires t >= base.
func (p *Planner) refPoint(t int64) int {
	e := p.ext
	i := stateIdx(e.pts, t)
	if e.pts[i].at == t {
		e.pts[i].ref++
		return i
	}
	e.pts = slices.Insert(e.pts, i+1, point{at: t, rem: e.pts[i].rem, ref: 1, key: e.pts[i].rem})
	return i + 1
}

// unrefPoint drops a reference on the point at index i, deleting it when
// unreferenced.
func (p *Planner) unrefPoint(i int) {
	e := p.ext
	e.pts[i].ref--
	if e.pts[i].ref == 0 {
		e.pts = slices.Delete(e.pts, i, i+1)
	}
}

// pointIdx returns the index of the existing point at t.
func (p *Planner) pointIdx(t int64) int {
	i := stateIdx(p.ext.pts, t)
	if p.ext.pts[i].at != t {
		panic("planner: internal error: span endpoint without point")
	}
	return i
}

func (e *extra) alloc(start, last, planned int64) int64 {
	var slot int32
	if e.free >= 0 {
		slot = e.free
		e.free = e.spans[slot].next
	} else {
		slot = int32(len(e.spans))
		e.spans = append(e.spans, span{})
	}
	s := &e.spans[slot]
	s.start, s.last, s.planned, s.next = start, last, planned, -1
	e.nspans++
	return int64(s.gen)<<32 | int64(slot+1)
}

func (e *extra) release(slot int32) {
	s := &e.spans[slot]
	s.planned = -1
	s.gen = (s.gen + 1) & math.MaxInt32 // keep ids positive
	s.next = e.free
	e.free = slot
	e.nspans--
}

// lookup returns the slot of live span id, or -1.
func (p *Planner) lookup(id int64) int32 {
	if p.ext == nil || id <= 0 {
		return -1
	}
	slot := id&math.MaxUint32 - 1
	if slot < 0 || slot >= int64(len(p.ext.spans)) {
		return -1
	}
	s := &p.ext.spans[slot]
	if s.planned < 0 || int64(s.gen) != id>>32 {
		return -1
	}
	return int32(slot)
}

// adjust adds delta to the remaining units of every point in [start, last).
// Units given back saturate at math.MaxInt64: after UpdateTotal's clamp a
// point can hold more than the total, and a huge total must not overflow.
func (p *Planner) adjust(start, last, delta int64) (i, j int) {
	i, j = p.pointIdx(start), p.pointIdx(last)
	pts := p.ext.pts
	for k := i; k < j; k++ {
		if delta > 0 {
			pts[k].rem = satAdd(pts[k].rem, delta)
		} else {
			pts[k].rem += delta
		}
		pts[k].key = pts[k].rem
	}
	return i, j
}

// RemSpan removes span id, undoing its booking and deleting scheduled points
// no longer referenced. Unknown ids fail with ErrInvalid.
func (p *Planner) RemSpan(id int64) error {
	slot := p.lookup(id)
	if slot < 0 {
		return ErrInvalid
	}
	p.remSlot(slot)
	return nil
}

func (p *Planner) remSlot(slot int32) {
	s := &p.ext.spans[slot]
	i, j := p.adjust(s.start, s.last, s.planned)
	p.unrefPoint(j) // j > i: delete it first so that i stays valid
	p.unrefPoint(i)
	p.ext.release(slot)
	p.iter = iterNone
}

// ReduceSpan gives k of span id's planned units back (reduce_span). If k
// equals the planned count (including k = 0 on a span planning 0) the span
// is removed and removed is true; otherwise k = 0 does nothing. k < 0,
// k > planned or an unknown id fail with ErrInvalid.
func (p *Planner) ReduceSpan(id, k int64) (removed bool, err error) {
	slot := p.lookup(id)
	if slot < 0 {
		return false, ErrInvalid
	}
	s := &p.ext.spans[slot]
	switch {
	case k == s.planned:
		p.remSlot(slot)
		return true, nil
	case k == 0:
		return false, nil
	case k < 0 || k > s.planned:
		return false, ErrInvalid
	}
	p.adjust(s.start, s.last, k)
	s.planned -= k
	p.iter = iterNone
	return false, nil
}

// SpanPlanned returns the units planned by span id (span_resource_count);
// ErrInvalid if unknown.
func (p *Planner) SpanPlanned(id int64) (int64, error) {
	slot := p.lookup(id)
	if slot < 0 {
		return -1, ErrInvalid
	}
	return p.ext.spans[slot].planned, nil
}

// SpanInfo returns a span's start, duration and planned count (snapshots
// replay spans from it).
func (p *Planner) SpanInfo(id int64) (start, duration, planned int64, err error) {
	slot := p.lookup(id)
	if slot < 0 {
		return 0, 0, 0, ErrInvalid
	}
	sp := &p.ext.spans[slot]
	return sp.start, sp.last - sp.start, sp.planned, nil
}

// Reset drops every span and point and restarts over [base, base+horizon)
// with the same total. Storage is kept for reuse, and ids of dropped spans
// stay invalid. A horizon < 1 is treated as 1.
func (p *Planner) Reset(base, horizon int64) {
	p.base, p.end = base, satAdd(base, max(horizon, 1))
	p.iter = iterNone
	if e := p.ext; e != nil {
		e.pts = e.pts[:0]
		e.free = -1
		for i := len(e.spans) - 1; i >= 0; i-- {
			s := &e.spans[i]
			if s.planned >= 0 {
				s.planned = -1
				s.gen = (s.gen + 1) & math.MaxInt32
			}
			s.next = e.free
			e.free = int32(i)
		}
		e.nspans = 0
	}
}

// UpdateTotal changes the total to n, shifting every point's remaining
// units by n - Total(), clamped at 0 (so a later RemSpan can leave more
// units free than the new total, as in the spec). A negative n is treated
// as 0.
func (p *Planner) UpdateTotal(n int64) { p.updateTotal(n, false) }

// UpdateTotalKeepSearch is UpdateTotal as Fluxion's planner does it: the
// earliest-time search (AvailTimeFirst) keeps seeing each existing point's
// remaining units from before the change, until a span changes the point
// again (Fluxion indexes the points by remaining units for that search and
// does not re-index them here). After a total grew, a point that had too
// few units is therefore still skipped as a candidate.
func (p *Planner) UpdateTotalKeepSearch(n int64) {
	if len(p.points()) == 0 && max(n, 0) != p.total {
		// Materialise the base point so that it keeps its old key.
		if p.ext == nil {
			p.ext = newExtra(nil)
		}
		e := p.ext
		if cap(e.pts) == 0 {
			e.pts = e.ptsBuf[:0]
		}
		e.pts = append(e.pts, point{at: p.base, rem: p.total, ref: 1, key: p.total})
	}
	p.updateTotal(n, true)
}

func (p *Planner) updateTotal(n int64, keepKeys bool) {
	n = max(n, 0)
	delta := n - p.total
	p.total = n
	pts := p.points()
	for i := range pts {
		r := pts[i].rem + delta
		if delta < 0 && r > pts[i].rem { // underflow
			r = 0
		} else if delta > 0 && r < pts[i].rem { // overflow
			r = math.MaxInt64
		}
		pts[i].rem = max(r, 0)
		if !keepKeys {
			pts[i].key = pts[i].rem
		}
	}
	p.iter = iterNone
}

// AvailTimeFirst returns the earliest candidate start time t >= onOrAfter
// at which request units stay free during [t, t+d) (avail_time_first).
// Candidates are only scheduled point times (the base and span endpoints),
// see the package documentation. Errors: ErrInvalid unless Base() <=
// onOrAfter < End() and d >= 1; ErrRange if request < 0 or > Total();
// ErrRange if the first acceptable candidate ends past End() (the search
// then ends); ErrNotFound when no candidate remains.
func (p *Planner) AvailTimeFirst(onOrAfter, d, request int64) (int64, error) {
	p.iter = iterNone
	if onOrAfter < p.base || onOrAfter >= p.end || d < 1 {
		return -1, ErrInvalid
	}
	if request < 0 || request > p.total {
		return -1, ErrRange
	}
	if len(p.points()) == 0 {
		// The only candidate is the base point, which has total units free.
		p.iter = iterDone
		if onOrAfter > p.base {
			return -1, ErrNotFound
		}
		if exceeds(p.base, d, p.end) {
			return -1, ErrRange
		}
		return p.base, nil
	}
	e := p.ext
	e.itOn, e.itD, e.itReq, e.itIdx = onOrAfter, d, request, 0
	p.iter = iterActive
	return p.nextCandidate()
}

// AvailTimeNext continues the search of the last AvailTimeFirst after the
// last examined candidate. It fails with ErrInvalid if there was no
// AvailTimeFirst or a span was added, removed or reduced (or the total or
// range changed) since; otherwise as AvailTimeFirst.
func (p *Planner) AvailTimeNext() (int64, error) {
	switch p.iter {
	case iterNone:
		return -1, ErrInvalid
	case iterDone:
		return -1, ErrNotFound
	}
	return p.nextCandidate()
}

// nextCandidate examines candidates from the cursor on. When a candidate's
// window contains a point b with too few units, every candidate before b
// has b in its window too, so the scan resumes after b; this keeps a whole
// search linear in the number of points.
func (p *Planner) nextCandidate() (int64, error) {
	e, pts := p.ext, p.ext.pts
	on, d, req := e.itOn, e.itD, e.itReq
	i := e.itIdx
	if i < len(pts) && pts[i].at < on {
		// Candidates before onOrAfter are consumed without effect; on >= base,
		// so the first point at or after it follows the state at on.
		i = stateIdx(pts, on)
		if pts[i].at < on {
			i++
		}
	}
	for i < len(pts) {
		c := pts[i]
		if c.rem < req || c.key < req {
			i++
			continue
		}
		busy := -1
		for k := i + 1; k < len(pts) && before(pts[k].at, c.at, d); k++ {
			if pts[k].rem < req {
				busy = k
				break
			}
		}
		if busy >= 0 {
			i = busy + 1
			continue
		}
		e.itIdx = i + 1
		if exceeds(c.at, d, p.end) {
			p.iter = iterDone
			return -1, ErrRange
		}
		return c.at, nil
	}
	e.itIdx = len(pts)
	return -1, ErrNotFound
}

// Clone returns a deep copy of p.
func (p *Planner) Clone() *Planner {
	c := new(Planner)
	p.CopyTo(c)
	return c
}

// CopyTo makes dst a deep copy of p, reusing dst's storage when it is not
// shared with p.
func (p *Planner) CopyTo(dst *Planner) {
	if dst == p {
		return
	}
	if p.ext == nil { // p never had a span, so it has no storage either
		*dst = *p
		return
	}
	e := dst.ext
	if e == nil || e == p.ext {
		// No storage, or dst is a shallow copy of p sharing p's storage.
		e = newExtra(nil)
	}
	src := p.ext
	pts := e.pts[:0]
	if len(src.pts) > 0 {
		if cap(pts) == 0 {
			pts = e.ptsBuf[:0]
		}
		pts = append(pts, src.pts...)
	}
	e.spans = append(e.spans[:0], src.spans...)
	e.free, e.nspans = src.free, src.nspans
	e.itOn, e.itD, e.itReq, e.itIdx = src.itOn, src.itD, src.itReq, src.itIdx
	e.pts = pts
	*dst = *p
	dst.ext = e
}

// points returns the scheduled points (none for a planner that never had
// a span).
func (p *Planner) points() []point {
	if p.ext == nil {
		return nil
	}
	return p.ext.pts
}
