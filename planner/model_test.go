package planner

import (
	"fmt"
	"math"
	"slices"
)

// model is a brute-force reference for Planner written directly from the
// spec text: one remaining count per tick of [base, end] plus the set of
// scheduled point times with reference counts. It is only usable with small
// ranges, and it assigns its own span ids 1, 2, 3, ...
type model struct {
	base, end, total int64
	rem              []int64         // rem[t-base] for t in [base, end]
	refs             map[int64]int64 // point time -> reference count
	spans            map[int64]*mspanModel
	nextID           int64

	// avail_time_first/next
	it     uint8
	cands  []int64
	pos    int
	itOn   int64
	itD    int64
	itReq  int64
	itFail bool
}

type mspanModel struct{ start, last, planned int64 }

func newModel(base, horizon, total int64) *model {
	m := &model{total: total}
	m.reset(base, horizon)
	return m
}

func (m *model) reset(base, horizon int64) {
	m.base, m.end = base, base+max(horizon, 1)
	m.rem = make([]int64, m.end-m.base+1)
	for i := range m.rem {
		m.rem[i] = m.total
	}
	m.refs = map[int64]int64{base: 1}
	m.spans = map[int64]*mspanModel{}
	m.it = iterNone
}

func (m *model) points() []int64 {
	var ts []int64
	for t := range m.refs {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

func (m *model) at(t int64) int64 { return m.rem[t-m.base] }

func (m *model) availAt(t int64) (int64, error) {
	if t > m.end || t < m.base {
		return -1, ErrRange
	}
	return m.at(t), nil
}

func (m *model) availDuring(t, d int64) (int64, error) {
	if t > m.end || d < 1 {
		return -1, ErrInvalid
	}
	if t+d > m.end {
		return -1, ErrRange
	}
	if t < m.base {
		return -1, ErrInvalid
	}
	// The state at t and every point with t < at < t+d.
	v := m.at(t)
	for q := range m.refs {
		if t < q && q < t+d {
			v = min(v, m.at(q))
		}
	}
	return v, nil
}

func (m *model) check(t, d, req int64) error {
	if d < 1 {
		return ErrInvalid
	}
	if req < 0 || req > m.total {
		return ErrRange
	}
	if t+d > m.end {
		return ErrRange
	}
	v, err := m.availDuring(t, d)
	if err != nil {
		return err
	}
	if v < req {
		return ErrBusy
	}
	return nil
}

func (m *model) addSpan(start, d, req int64) (int64, error) {
	if m.check(start, d, req) != nil || start < m.base || d < 1 || start+d-1 > m.end || req < 0 || req > m.total {
		return -1, ErrInvalid
	}
	m.refs[start]++
	m.refs[start+d]++
	for t := start; t < start+d; t++ {
		m.rem[t-m.base] -= req
	}
	m.nextID++
	m.spans[m.nextID] = &mspanModel{start, start + d, req}
	m.it = iterNone
	return m.nextID, nil
}

func (m *model) unref(q int64) {
	m.refs[q]--
	if m.refs[q] > 0 {
		return
	}
	delete(m.refs, q)
	// Ticks of the deleted point now belong to the previous point.
	v := m.at(q - 1)
	for t := q; t <= m.end; t++ {
		if _, ok := m.refs[t]; ok {
			break
		}
		m.rem[t-m.base] = v
	}
}

func (m *model) giveBack(s *mspanModel, k int64) {
	for t := s.start; t < s.last; t++ {
		m.rem[t-m.base] += k
	}
}

func (m *model) remSpan(id int64) error {
	s, ok := m.spans[id]
	if !ok {
		return ErrInvalid
	}
	m.giveBack(s, s.planned)
	m.unref(s.last)
	m.unref(s.start)
	delete(m.spans, id)
	m.it = iterNone
	return nil
}

func (m *model) reduceSpan(id, k int64) (bool, error) {
	s, ok := m.spans[id]
	if !ok {
		return false, ErrInvalid
	}
	if k == s.planned {
		return true, m.remSpan(id)
	}
	if k == 0 {
		return false, nil
	}
	if k < 0 || k > s.planned {
		return false, ErrInvalid
	}
	m.giveBack(s, k)
	s.planned -= k
	m.it = iterNone
	return false, nil
}

func (m *model) spanPlanned(id int64) (int64, error) {
	s, ok := m.spans[id]
	if !ok {
		return -1, ErrInvalid
	}
	return s.planned, nil
}

func (m *model) updateTotal(n int64) {
	n = max(n, 0)
	delta := n - m.total
	m.total = n
	for i := range m.rem {
		m.rem[i] = max(m.rem[i]+delta, 0)
	}
	m.it = iterNone
}

func (m *model) availTimeFirst(on, d, req int64) (int64, error) {
	m.it = iterNone
	if on < m.base || on >= m.end || d < 1 {
		return -1, ErrInvalid
	}
	if req < 0 || req > m.total {
		return -1, ErrRange
	}
	m.cands = m.cands[:0]
	for _, t := range m.points() {
		if m.at(t) >= req {
			m.cands = append(m.cands, t)
		}
	}
	m.pos, m.itOn, m.itD, m.itReq = 0, on, d, req
	m.it = iterActive
	return m.availTimeNext()
}

func (m *model) availTimeNext() (int64, error) {
	switch m.it {
	case iterNone:
		return -1, ErrInvalid
	case iterDone:
		return -1, ErrNotFound
	}
	for m.pos < len(m.cands) {
		at := m.cands[m.pos]
		m.pos++
		if at < m.itOn {
			continue
		}
		busy := false
		for q := range m.refs {
			if at <= q && q < at+m.itD && m.at(q) < m.itReq {
				busy = true
			}
		}
		if busy {
			continue
		}
		if at+m.itD > m.end {
			m.it = iterDone
			return -1, ErrRange
		}
		return at, nil
	}
	return -1, ErrNotFound
}

// multiModel is the brute-force reference for Multi, built on model.
type multiModel struct {
	base, horizon int64
	types         []int32
	mem           []*model
	spans         map[int64][]int64 // multi id -> member model span ids, 0 = gone
	itValid       bool
	itD           int64
	itCounts      []int64
}

func newMultiModel(base, horizon int64, totals []int64, types []int32) *multiModel {
	mm := &multiModel{base: base, horizon: horizon, types: slices.Clone(types), spans: map[int64][]int64{}}
	for _, n := range totals {
		mm.mem = append(mm.mem, newModel(base, horizon, n))
	}
	return mm
}

func (mm *multiModel) check(t, d int64, counts []int64) error {
	if len(counts) != len(mm.mem) {
		return ErrInvalid
	}
	for i, m := range mm.mem {
		if err := m.check(t, d, counts[i]); err != nil {
			return err
		}
	}
	return nil
}

// addSpan returns the member span ids, or an error (member spans added
// before the failing one stay booked).
func (mm *multiModel) addSpan(start, d int64, counts []int64) ([]int64, error) {
	if len(counts) != len(mm.mem) {
		return nil, ErrInvalid
	}
	mm.itValid = false
	var ids []int64
	for i, m := range mm.mem {
		id, err := m.addSpan(start, d, counts[i])
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func (mm *multiModel) remSpan(id int64) error {
	ids, ok := mm.spans[id]
	if !ok {
		return ErrNotFound
	}
	for i, sid := range ids {
		if sid != 0 {
			if err := mm.mem[i].remSpan(sid); err != nil {
				panic(err)
			}
		}
	}
	delete(mm.spans, id)
	mm.itValid = false
	return nil
}

func (mm *multiModel) reduceSpan(id int64, types []int32, counts []int64) (bool, error) {
	ids, ok := mm.spans[id]
	if !ok {
		return false, ErrNotFound
	}
	if len(types) != len(counts) {
		return false, ErrInvalid
	}
	mm.itValid = false
	named := map[int32]bool{}
	for j, t := range types {
		named[t] = true
		i := slices.Index(mm.types, t)
		if i < 0 || ids[i] == 0 {
			continue
		}
		gone, err := mm.mem[i].reduceSpan(ids[i], counts[j])
		if err != nil {
			return false, err
		}
		if gone {
			ids[i] = 0
		}
	}
	for i, t := range mm.types {
		if !named[t] && ids[i] != 0 {
			if gone, _ := mm.mem[i].reduceSpan(ids[i], 0); gone {
				ids[i] = 0
			}
		}
	}
	for _, sid := range ids {
		if sid != 0 {
			return false, nil
		}
	}
	delete(mm.spans, id)
	return true, nil
}

func (mm *multiModel) availTimeFirst(on, d int64, counts []int64) (int64, error) {
	mm.itValid = false
	if len(counts) != len(mm.mem) || len(mm.mem) == 0 {
		return -1, ErrInvalid
	}
	t, err := mm.mem[0].availTimeFirst(on, d, counts[0])
	mm.itValid, mm.itD, mm.itCounts = true, d, slices.Clone(counts)
	return mm.accept(t, err)
}

func (mm *multiModel) availTimeNext() (int64, error) {
	if !mm.itValid {
		return -1, ErrInvalid
	}
	t, err := mm.mem[0].availTimeNext()
	return mm.accept(t, err)
}

func (mm *multiModel) accept(t int64, err error) (int64, error) {
	for ; err == nil; t, err = mm.mem[0].availTimeNext() {
		ok := true
		for i := 1; i < len(mm.mem); i++ {
			if mm.mem[i].check(t, mm.itD, mm.itCounts[i]) != nil {
				ok = false
			}
		}
		if ok {
			return t, nil
		}
	}
	return -1, err
}

func (mm *multiModel) update(totals []int64, types []int32) {
	mm.itValid = false
	var mem []*model
	var nt []int32
	var from []int
	for j, t := range types {
		if k := slices.Index(nt, t); k >= 0 {
			mem[k].updateTotal(totals[j])
			continue
		}
		oi := slices.Index(mm.types, t)
		if oi >= 0 {
			mm.mem[oi].updateTotal(totals[j])
			mem = append(mem, mm.mem[oi])
		} else {
			mem = append(mem, newModel(mm.base, mm.horizon, max(totals[j], 0)))
		}
		nt = append(nt, t)
		from = append(from, oi)
	}
	for id, ids := range mm.spans {
		var n []int64
		for _, oi := range from {
			if oi >= 0 {
				n = append(n, ids[oi])
			} else {
				n = append(n, 0)
			}
		}
		mm.spans[id] = n
	}
	mm.mem, mm.types = mem, nt
}

// checkInvariants verifies the internal consistency of p.
func checkInvariants(p *Planner) error {
	// end == base only when base+horizon saturates at math.MaxInt64.
	if p.end < p.base || (p.end == p.base && p.end != math.MaxInt64) {
		return fmt.Errorf("end %d, base %d", p.end, p.base)
	}
	if p.total < 0 {
		return fmt.Errorf("negative total %d", p.total)
	}
	n := p.NumSpans()
	if len(p.points()) == 0 {
		if n != 0 {
			return fmt.Errorf("%d spans without points", n)
		}
		return nil
	}
	if p.points()[0].at != p.base {
		return fmt.Errorf("first point at %d, base %d", p.points()[0].at, p.base)
	}
	var refs int64
	for i, q := range p.points() {
		if i > 0 && q.at <= p.points()[i-1].at {
			return fmt.Errorf("points out of order at %d", i)
		}
		if q.at > p.end {
			return fmt.Errorf("point %d past end %d", q.at, p.end)
		}
		if q.ref < 1 {
			return fmt.Errorf("point %d has ref %d", q.at, q.ref)
		}
		if q.rem < 0 {
			return fmt.Errorf("point %d has negative remaining %d", q.at, q.rem)
		}
		refs += q.ref
	}
	if refs != 1+2*int64(n) {
		return fmt.Errorf("ref sum %d with %d spans", refs, n)
	}
	live, free := 0, 0
	for i, s := range p.ext.spans {
		if s.planned < 0 {
			free++
			continue
		}
		live++
		id := int64(s.gen)<<32 | int64(i+1)
		if p.lookup(id) != int32(i) {
			return fmt.Errorf("slot %d not found by its id", i)
		}
		for _, t := range []int64{s.start, s.last} {
			j := stateIdx(p.points(), t)
			if p.points()[j].at != t {
				return fmt.Errorf("span endpoint %d has no point", t)
			}
		}
	}
	for f := p.ext.free; f >= 0; f = p.ext.spans[f].next {
		free--
		if free < 0 {
			return fmt.Errorf("free list cycle or too long")
		}
	}
	if free != 0 || live != n {
		return fmt.Errorf("slot accounting: live %d/%d, free list off by %d", live, n, free)
	}
	return nil
}
