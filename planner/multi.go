package planner

import "math"

// mspan is one multi-span: the member span id per member index, 0 once
// that member span is gone (planner span ids are positive). A free slot has
// live == false and links the free list through next.
type mspan struct {
	ids  []int64
	gen  uint32
	next int32
	live bool
}

// Multi is a multi-planner: an ordered list of planners, one per resource
// type, sharing base and horizon. Types are caller-chosen int32 ids (for
// example interned type names). Member order is significant: it is the
// order of counts vectors and member 0 drives AvailTimeFirst.
type Multi struct {
	base, horizon int64
	members       []Planner
	types         []int32

	spans  []mspan
	free   int32 // head of the free slot list, -1 if empty
	nspans int

	// AvailTimeNext state; any mutation clears itValid.
	itValid  bool
	itD      int64
	itCounts []int64

	idChunk []int64 // unused room for member-span ids (see carve)
	span0   [1]mspan
	ids0    [4]int64
}

// NewMulti returns a multi-planner over [base, base+horizon) with one
// member per (totals[i], types[i]). Errors: ErrInvalid if horizon < 1, the
// slices differ in length or a type repeats; ErrRange if a total is
// negative.
func NewMulti(base, horizon int64, totals []int64, types []int32) (*Multi, error) {
	if horizon < 1 || len(totals) != len(types) {
		return nil, ErrInvalid
	}
	for i, t := range types {
		for _, u := range types[:i] {
			if t == u {
				return nil, ErrInvalid
			}
		}
	}
	m := &Multi{
		base:    base,
		horizon: horizon,
		members: make([]Planner, len(types)),
		types:   append([]int32(nil), types...),
		free:    -1,
	}
	for i, n := range totals {
		if err := m.members[i].Init(base, horizon, n); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Len returns the number of members.
func (m *Multi) Len() int { return len(m.members) }

// Base returns the shared base time.
func (m *Multi) Base() int64 { return m.base }

// End returns base+horizon, saturated at math.MaxInt64.
func (m *Multi) End() int64 { return satAdd(m.base, m.horizon) }

// Type returns the type of member i, or -1 if i is out of range.
func (m *Multi) Type(i int) int32 {
	if i < 0 || i >= len(m.types) {
		return -1
	}
	return m.types[i]
}

// Index returns the member index of type t, or -1 if t is not a member.
func (m *Multi) Index(t int32) int {
	return indexOf(m.types, t)
}

// Total returns the total of member i, or -1 if i is out of range.
func (m *Multi) Total(i int) int64 {
	if i < 0 || i >= len(m.members) {
		return -1
	}
	return m.members[i].total
}

// Member returns member planner i (nil if out of range) for read-only
// inspection; it is valid until the next Update. Mutating it directly
// bypasses the multi-span bookkeeping.
func (m *Multi) Member(i int) *Planner {
	if i < 0 || i >= len(m.members) {
		return nil
	}
	return &m.members[i]
}

// AvailAt returns member i's free units at t (avail_resources_at);
// ErrInvalid if i is out of range.
func (m *Multi) AvailAt(t int64, i int) (int64, error) {
	if i < 0 || i >= len(m.members) {
		return -1, ErrInvalid
	}
	return m.members[i].AvailAt(t)
}

// AvailDuring returns member i's minimum free units during [t, t+d);
// ErrInvalid if i is out of range.
func (m *Multi) AvailDuring(t, d int64, i int) (int64, error) {
	if i < 0 || i >= len(m.members) {
		return -1, ErrInvalid
	}
	return m.members[i].AvailDuring(t, d)
}

// Check reports whether every member i has counts[i] units free during
// [t, t+d) (avail_during); otherwise it returns the first failing member's
// error. ErrInvalid if len(counts) != Len().
func (m *Multi) Check(t, d int64, counts []int64) error {
	if len(counts) != len(m.members) {
		return ErrInvalid
	}
	for i := range m.members {
		if err := m.members[i].Check(t, d, counts[i]); err != nil {
			return err
		}
	}
	return nil
}

// AddSpan books counts[i] units of every member i during [start, start+d)
// and returns a multi-span id >= 0. As in the spec, if a member fails the
// multi-span is forgotten but the member spans already added are NOT rolled
// back; the member's error (ErrInvalid) is returned.
func (m *Multi) AddSpan(start, d int64, counts []int64) (int64, error) {
	if len(counts) != len(m.members) {
		return -1, ErrInvalid
	}
	m.itValid = false
	if m.free < 0 {
		if m.spans == nil {
			// The first span of a filter uses inline room (most filters
			// hold few spans), saving an allocation per fresh vertex.
			m.spans = m.span0[:0]
		}
		m.spans = append(m.spans, mspan{next: -1})
		m.free = int32(len(m.spans) - 1)
	}
	// The slot stays on the free list until every member succeeded.
	slot := m.free
	s := &m.spans[slot]
	if cap(s.ids) < len(m.members) {
		s.ids = m.carve(len(m.members))
	}
	s.ids = s.ids[:0]
	for i := range m.members {
		id, err := m.members[i].AddSpan(start, d, counts[i])
		if err != nil {
			return -1, err
		}
		s.ids = append(s.ids, id)
	}
	m.free = s.next
	s.live, s.next = true, -1
	m.nspans++
	return int64(s.gen)<<32 | int64(slot), nil
}

// carve hands out room for n member ids from a shared chunk, so that a
// multi-planner holding thousands of spans does not allocate per span.
func (m *Multi) carve(n int) []int64 {
	if m.idChunk == nil && n <= len(m.ids0) {
		m.idChunk = m.ids0[:]
	}
	if len(m.idChunk) < n {
		size := 64 * n
		if c := cap(m.idChunk); c > size {
			size = c * 2
		}
		m.idChunk = make([]int64, size)
	}
	ids := m.idChunk[:0:n]
	m.idChunk = m.idChunk[n:]
	return ids
}

// lookup returns the live multi-span id, or nil.
func (m *Multi) lookup(id int64) *mspan {
	if id < 0 {
		return nil
	}
	slot := id & math.MaxUint32
	if slot >= int64(len(m.spans)) {
		return nil
	}
	s := &m.spans[slot]
	if !s.live || int64(s.gen) != id>>32 {
		return nil
	}
	return s
}

func (m *Multi) release(s *mspan, slot int32) {
	s.live = false
	s.gen = (s.gen + 1) & math.MaxInt32 // keep ids non-negative
	s.next = m.free
	m.free = slot
	m.nspans--
}

// HasSpan reports whether multi-span id exists.
func (m *Multi) HasSpan(id int64) bool { return m.lookup(id) != nil }

// NumSpans returns the number of live multi-spans.
func (m *Multi) NumSpans() int { return m.nspans }

// RemSpan removes multi-span id and its remaining member spans;
// ErrNotFound if unknown.
func (m *Multi) RemSpan(id int64) error {
	s := m.lookup(id)
	if s == nil {
		return ErrNotFound
	}
	for i, sid := range s.ids {
		if sid != 0 {
			// Cannot fail: the member span is live unless reduced away,
			// in which case sid is 0.
			_ = m.members[i].RemSpan(sid)
		}
	}
	m.release(s, int32(id&math.MaxUint32))
	m.itValid = false
	return nil
}

// ReduceSpan reduces multi-span id (reduce_span by type): each member
// whose type is named in types is reduced by the matching count (member
// spans already gone are skipped), then every member not named is reduced
// by 0, which removes member spans planning 0. Named types that are not
// members are ignored. When no member span is left the multi-span is
// dropped and removed is true. Errors: ErrNotFound if id is unknown;
// ErrInvalid if len(types) != len(counts) or a count is negative or
// exceeds the member span's planned count (reductions already applied
// stay applied).
func (m *Multi) ReduceSpan(id int64, types []int32, counts []int64) (removed bool, err error) {
	s := m.lookup(id)
	if s == nil {
		return false, ErrNotFound
	}
	if len(types) != len(counts) {
		return false, ErrInvalid
	}
	m.itValid = false
	for j, t := range types {
		i := m.Index(t)
		if i < 0 || s.ids[i] == 0 {
			continue
		}
		gone, err := m.members[i].ReduceSpan(s.ids[i], counts[j])
		if err != nil {
			return false, err
		}
		if gone {
			s.ids[i] = 0
		}
	}
	left := false
	for i, sid := range s.ids {
		if sid == 0 {
			continue
		}
		if indexOf(types, m.types[i]) < 0 {
			if gone, _ := m.members[i].ReduceSpan(sid, 0); gone {
				s.ids[i] = 0
				continue
			}
		}
		left = true
	}
	if left {
		return false, nil
	}
	m.release(s, int32(id&math.MaxUint32))
	return true, nil
}

// SpanPlanned returns the units multi-span id planned on member i
// (span_planned_at). Errors: ErrNotFound if id is unknown; ErrInvalid if i
// is out of range or that member span is gone (reduced away).
func (m *Multi) SpanPlanned(id int64, i int) (int64, error) {
	s := m.lookup(id)
	if s == nil {
		return -1, ErrNotFound
	}
	if i < 0 || i >= len(s.ids) || s.ids[i] == 0 {
		return -1, ErrInvalid
	}
	return m.members[i].SpanPlanned(s.ids[i])
}

// SpanInfo returns a multi-span's start and duration and, per member, the
// planned count, or -1 for a member whose span is gone (reduced away).
func (m *Multi) SpanInfo(id int64) (start, duration int64, planned []int64, err error) {
	s := m.lookup(id)
	if s == nil {
		return 0, 0, nil, ErrNotFound
	}
	planned = make([]int64, len(s.ids))
	start, duration = -1, -1
	for i, sid := range s.ids {
		planned[i] = -1
		if sid == 0 {
			continue
		}
		st, d, n, err := m.members[i].SpanInfo(sid)
		if err != nil {
			return 0, 0, nil, err
		}
		start, duration, planned[i] = st, d, n
	}
	return start, duration, planned, nil
}

// AddSpanMembers adds a multi-span whose members with a negative count get
// no span (the state SpanInfo reports after partial reductions). It is
// meant for restoring snapshots.
func (m *Multi) AddSpanMembers(start, d int64, counts []int64) (int64, error) {
	if len(counts) != len(m.members) {
		return -1, ErrInvalid
	}
	zero := make([]int64, len(counts))
	for i, c := range counts {
		zero[i] = max(c, 0)
	}
	id, err := m.AddSpan(start, d, zero)
	if err != nil {
		return -1, err
	}
	s := m.lookup(id)
	for i, c := range counts {
		if c < 0 && s.ids[i] != 0 {
			if err := m.members[i].RemSpan(s.ids[i]); err != nil {
				return -1, err
			}
			s.ids[i] = 0
		}
	}
	return id, nil
}

// AvailTimeFirst returns the earliest candidate of member 0 (request
// counts[0], see Planner.AvailTimeFirst) at which every other member i
// passes Check(t, d, counts[i]). Errors: ErrInvalid if len(counts) !=
// Len() or there are no members; otherwise member 0's errors.
func (m *Multi) AvailTimeFirst(onOrAfter, d int64, counts []int64) (int64, error) {
	m.itValid = false
	if len(counts) != len(m.members) || len(m.members) == 0 {
		return -1, ErrInvalid
	}
	m.itD = d
	m.itCounts = append(m.itCounts[:0], counts...)
	m.itValid = true
	t, err := m.members[0].AvailTimeFirst(onOrAfter, d, counts[0])
	return m.accept(t, err)
}

// AvailTimeNext continues the search of the last AvailTimeFirst with
// member 0's next candidate. ErrInvalid if there is no valid search (none
// started, or the multi-planner changed since); otherwise member 0's
// errors.
func (m *Multi) AvailTimeNext() (int64, error) {
	if !m.itValid {
		return -1, ErrInvalid
	}
	t, err := m.members[0].AvailTimeNext()
	return m.accept(t, err)
}

// accept advances member 0's candidates from (t, err) until every other
// member has room or member 0 fails.
func (m *Multi) accept(t int64, err error) (int64, error) {
	for ; err == nil; t, err = m.members[0].AvailTimeNext() {
		ok := true
		for i := 1; i < len(m.members); i++ {
			if m.members[i].Check(t, m.itD, m.itCounts[i]) != nil {
				ok = false
				break
			}
		}
		if ok {
			return t, nil
		}
	}
	return -1, err
}

// Update re-primes the member list: for each (totals[j], types[j]) in
// order, an existing member of that type gets its total updated (see
// Planner.UpdateTotal) and keeps its spans, a new type gets a fresh member;
// members whose type is not listed are deleted together with their spans.
// Member order becomes the given order; a repeated type keeps its first
// position and its last total. It panics if the slices differ in length.
func (m *Multi) Update(totals []int64, types []int32) { m.update(totals, types, false) }

// UpdateKeepSearch is Update with Planner.UpdateTotalKeepSearch for the
// members that stay (Fluxion's re-priming).
func (m *Multi) UpdateKeepSearch(totals []int64, types []int32) { m.update(totals, types, true) }

func (m *Multi) update(totals []int64, types []int32, keep bool) {
	if len(totals) != len(types) {
		panic("planner: Multi.Update: len(totals) != len(types)")
	}
	m.itValid = false
	members := make([]Planner, 0, len(types))
	newTypes := make([]int32, 0, len(types))
	from := make([]int, 0, len(types)) // old index per new member, -1 if new
	for j, t := range types {
		if k := indexOf(newTypes, t); k >= 0 {
			members[k].setTotal(totals[j], keep)
			continue
		}
		oi := m.Index(t)
		var p Planner
		if oi >= 0 {
			p = m.members[oi] // ownership moves to the new slice
			p.setTotal(totals[j], keep)
		} else {
			_ = p.Init(m.base, m.horizon, max(totals[j], 0)) // horizon was validated
		}
		members = append(members, p)
		newTypes = append(newTypes, t)
		from = append(from, oi)
	}
	var old []int64
	for k := range m.spans {
		s := &m.spans[k]
		if !s.live {
			continue
		}
		old = append(old[:0], s.ids...)
		s.ids = s.ids[:0]
		for _, oi := range from {
			var sid int64
			if oi >= 0 {
				sid = old[oi]
			}
			s.ids = append(s.ids, sid)
		}
	}
	m.members, m.types = members, newTypes
}

func indexOf(types []int32, t int32) int {
	for i, u := range types {
		if u == t {
			return i
		}
	}
	return -1
}

// Clone returns a deep copy of m.
func (m *Multi) Clone() *Multi {
	c := *m
	c.members = make([]Planner, len(m.members))
	for i := range m.members {
		m.members[i].CopyTo(&c.members[i])
	}
	c.types = append([]int32(nil), m.types...)
	c.spans = make([]mspan, len(m.spans))
	n := 0
	for _, s := range m.spans {
		n += len(s.ids)
	}
	ids := make([]int64, 0, n) // one block for every span's member ids
	for i, s := range m.spans {
		if s.ids != nil {
			ids = append(ids, s.ids...)
			s.ids = ids[len(ids)-len(s.ids) : len(ids) : len(ids)]
		}
		c.spans[i] = s
	}
	c.itCounts = append([]int64(nil), m.itCounts...)
	c.idChunk = nil // never share carving room with the original
	if len(m.spans) > 0 && &m.spans[0] == &m.span0[0] {
		c.spans = append(c.span0[:0], c.spans...)
	}
	return &c
}

func (p *Planner) setTotal(n int64, keepSearch bool) {
	if keepSearch {
		p.UpdateTotalKeepSearch(n)
	} else {
		p.UpdateTotal(n)
	}
}
