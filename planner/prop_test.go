package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// source supplies the choices of a randomized operation sequence; it is
// backed by a PRNG in property tests and by the input bytes when fuzzing.
type source interface {
	intn(n int) int // in [0, n), n >= 1
	done() bool
}

type randSource struct {
	r    *rand.Rand
	left int
}

func (s *randSource) intn(n int) int { return s.r.IntN(n) }
func (s *randSource) done() bool     { s.left--; return s.left < 0 }

type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) intn(n int) int {
	if s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i]) % n
	s.i++
	return v
}
func (s *byteSource) done() bool { return s.i >= len(s.b) }

// between returns a value in [lo, hi].
func between(s source, lo, hi int64) int64 { return lo + int64(s.intn(int(hi-lo+1))) }

// plannerHarness drives a Planner and the brute-force model in lockstep.
type plannerHarness struct {
	p     *Planner
	m     *model
	ids   [][2]int64 // live (planner id, model id)
	stale []int64    // removed planner ids
	log   []string
	n     int64 // query counter
}

func (h *plannerHarness) fail(format string, args ...any) error {
	return fmt.Errorf("%s\nops:\n  %s", fmt.Sprintf(format, args...), joinLog(h.log))
}

func joinLog(l []string) string {
	s := ""
	for i, x := range l {
		if i > 0 {
			s += "\n  "
		}
		s += x
	}
	return s
}

func (h *plannerHarness) logf(format string, args ...any) {
	h.log = append(h.log, fmt.Sprintf(format, args...))
}

func (h *plannerHarness) dropID(k int) {
	h.stale = append(h.stale, h.ids[k][0])
	h.ids = slices.Delete(h.ids, k, k+1)
}

// pickID returns a (planner id, model id) pair: usually a live span,
// sometimes a removed or never valid id (model id 0, unknown to the model).
func (h *plannerHarness) pickID(s source) (int64, int64, int) {
	switch c := s.intn(8); {
	case c < 6 && len(h.ids) > 0:
		k := s.intn(len(h.ids))
		return h.ids[k][0], h.ids[k][1], k
	case c == 6 && len(h.stale) > 0:
		return h.live(h.stale[s.intn(len(h.stale))])
	default:
		return h.live([]int64{0, -1, 1, 2, 1 << 32, 99}[s.intn(6)])
	}
}

// live maps a planner id to its model id and index if it is live (ids of
// removed spans may be handed out again), else to model id 0.
func (h *plannerHarness) live(id int64) (int64, int64, int) {
	for k, x := range h.ids {
		if x[0] == id {
			return id, x[1], k
		}
	}
	return id, 0, -1
}

func (h *plannerHarness) isLive(id int64) bool {
	for _, x := range h.ids {
		if x[0] == id {
			return true
		}
	}
	return false
}

func (h *plannerHarness) step(s source) error {
	p, m := h.p, h.m
	H := m.end - m.base
	switch s.intn(12) {
	case 0, 1, 2:
		start, d, req := between(s, m.base-2, m.end+1), between(s, -1, H+2), between(s, -1, m.total+1)
		h.logf("AddSpan(%d, %d, %d)", start, d, req)
		id, err := p.AddSpan(start, d, req)
		mid, merr := m.addSpan(start, d, req)
		if err != merr {
			return h.fail("AddSpan: err %v, model %v", err, merr)
		}
		if err == nil {
			if id <= 0 || h.isLive(id) {
				return h.fail("AddSpan returned bad or duplicate id %d", id)
			}
			h.ids = append(h.ids, [2]int64{id, mid})
		} else if id != -1 {
			return h.fail("AddSpan failed with id %d", id)
		}
	case 3, 4:
		id, mid, k := h.pickID(s)
		h.logf("RemSpan(%d)", id)
		err, merr := p.RemSpan(id), m.remSpan(mid)
		if err != merr {
			return h.fail("RemSpan: err %v, model %v", err, merr)
		}
		if err == nil {
			h.dropID(k)
		}
	case 5, 6:
		id, mid, k := h.pickID(s)
		planned := int64(0)
		if k >= 0 {
			planned = m.spans[mid].planned
		}
		r := between(s, -1, planned+1)
		if s.intn(3) == 0 {
			r = planned
		}
		h.logf("ReduceSpan(%d, %d)", id, r)
		rm, err := p.ReduceSpan(id, r)
		mrm, merr := m.reduceSpan(mid, r)
		if err != merr || rm != mrm {
			return h.fail("ReduceSpan: (%v, %v), model (%v, %v)", rm, err, mrm, merr)
		}
		if rm {
			h.dropID(k)
		}
	case 7:
		n := between(s, -1, 8)
		h.logf("UpdateTotal(%d)", n)
		p.UpdateTotal(n)
		m.updateTotal(n)
	case 8:
		on, d, req := between(s, m.base-1, m.end), between(s, 0, H+1), between(s, -1, m.total+1)
		h.logf("AvailTimeFirst(%d, %d, %d)", on, d, req)
		t, err := p.AvailTimeFirst(on, d, req)
		mt, merr := m.availTimeFirst(on, d, req)
		for i := 0; ; i++ {
			if t != mt || err != merr {
				return h.fail("AvailTimeFirst/Next #%d: (%d, %v), model (%d, %v)", i, t, err, mt, merr)
			}
			if err != nil && (i > 0 || s.intn(2) == 0) {
				break
			}
			t, err = p.AvailTimeNext()
			mt, merr = m.availTimeNext()
		}
	case 9:
		h.logf("AvailTimeNext()")
		t, err := p.AvailTimeNext()
		mt, merr := m.availTimeNext()
		if t != mt || err != merr {
			return h.fail("AvailTimeNext: (%d, %v), model (%d, %v)", t, err, mt, merr)
		}
	case 10:
		switch s.intn(4) {
		case 0:
			base, hz := between(s, -3, 3), between(s, 0, 12)
			h.logf("Reset(%d, %d)", base, hz)
			p.Reset(base, hz)
			m.reset(base, hz)
			for range h.ids {
				h.dropID(0)
			}
		case 1:
			h.logf("Clone")
			h.p = p.Clone()
			scribble(p)
		case 2:
			h.logf("CopyTo(reused)")
			var q Planner
			_ = q.Init(0, 5, 3)
			_, _ = q.AddSpan(1, 2, 1)
			p.CopyTo(&q)
			h.p = &q
		default:
			h.logf("CopyTo(shallow copy)")
			q := *p
			p.CopyTo(&q)
			scribble(p)
			h.p = &q
		}
	default:
		// Point queries only (compare runs after every step).
	}
	return h.compare(s)
}

// compare checks every query of the planner against the model.
func (h *plannerHarness) compare(s source) error {
	p, m := h.p, h.m
	if err := checkInvariants(p); err != nil {
		return h.fail("invariant: %v", err)
	}
	if p.Base() != m.base || p.End() != m.end || p.Total() != m.total {
		return h.fail("range: %d %d %d, model %d %d %d", p.Base(), p.End(), p.Total(), m.base, m.end, m.total)
	}
	if p.NumSpans() != len(m.spans) || p.NumPoints() != len(m.refs) {
		return h.fail("counts: %d spans %d points, model %d %d", p.NumSpans(), p.NumPoints(), len(m.spans), len(m.refs))
	}
	H := m.end - m.base
	for t := m.base - 1; t <= m.end+1; t++ {
		v, err := p.AvailAt(t)
		mv, merr := m.availAt(t)
		if v != mv || err != merr {
			return h.fail("AvailAt(%d): (%d, %v), model (%d, %v)", t, v, err, mv, merr)
		}
		for d := int64(-1); d <= H+2; d++ {
			v, err := p.AvailDuring(t, d)
			mv, merr := m.availDuring(t, d)
			if v != mv || err != merr {
				return h.fail("AvailDuring(%d, %d): (%d, %v), model (%d, %v)", t, d, v, err, mv, merr)
			}
			h.n++ // vary the request without consuming choices
			req := h.n%(m.total+3) - 1
			if err, merr := p.Check(t, d, req), m.check(t, d, req); err != merr {
				return h.fail("Check(%d, %d, %d): %v, model %v", t, d, req, err, merr)
			}
		}
	}
	for _, x := range h.ids {
		v, err := p.SpanPlanned(x[0])
		mv, merr := m.spanPlanned(x[1])
		if v != mv || err != merr {
			return h.fail("SpanPlanned(%d): (%d, %v), model (%d, %v)", x[0], v, err, mv, merr)
		}
	}
	for _, id := range h.stale {
		if !h.isLive(id) {
			if _, err := p.SpanPlanned(id); err != ErrInvalid {
				return h.fail("SpanPlanned(removed %d): %v", id, err)
			}
		}
	}
	return nil
}

// scribble overwrites p's storage; used to check that copies do not share it.
func scribble(p *Planner) {
	p.Reset(p.base, 4)
	p.UpdateTotal(100)
	for i := range 3 {
		_, _ = p.AddSpan(p.base+int64(i), 1, 100)
	}
}

func newPlannerHarness(s source) *plannerHarness {
	base, hz, total := between(s, -3, 3), between(s, 1, 12), between(s, 0, 6)
	p, err := New(base, hz, total)
	if err != nil {
		panic(err)
	}
	h := &plannerHarness{p: p, m: newModel(base, hz, total)}
	h.logf("New(%d, %d, %d)", base, hz, total)
	return h
}

func TestPlannerMatchesModel(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	for seed := range seeds {
		s := &randSource{r: rand.New(rand.NewPCG(uint64(seed), 7)), left: 120}
		h := newPlannerHarness(s)
		for !s.done() {
			if err := h.step(s); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
}

// multiHarness drives a Multi and the brute-force multi model in lockstep.
type multiHarness struct {
	m   *Multi
	mm  *multiModel
	ids []int64 // live multi ids
	old []int64 // removed multi ids
	log []string
}

func (h *multiHarness) fail(format string, args ...any) error {
	return fmt.Errorf("%s\nops:\n  %s", fmt.Sprintf(format, args...), joinLog(h.log))
}

func (h *multiHarness) logf(format string, args ...any) {
	h.log = append(h.log, fmt.Sprintf(format, args...))
}

func (h *multiHarness) counts(s source) []int64 {
	n := len(h.mm.mem)
	if s.intn(10) == 0 {
		n = s.intn(4)
	}
	c := make([]int64, n)
	for i := range c {
		tot := int64(3)
		if i < len(h.mm.mem) {
			tot = h.mm.mem[i].total
		}
		c[i] = between(s, 0, tot+1)
		if s.intn(10) == 0 {
			c[i] = -1
		}
	}
	return c
}

func (h *multiHarness) pickID(s source) int64 {
	switch c := s.intn(8); {
	case c < 6 && len(h.ids) > 0:
		return h.ids[s.intn(len(h.ids))]
	case c == 6 && len(h.old) > 0:
		return h.old[s.intn(len(h.old))]
	default:
		return []int64{-1, 0, 1, 3, 1 << 32}[s.intn(5)]
	}
}

func (h *multiHarness) forget(id int64) {
	if k := slices.Index(h.ids, id); k >= 0 {
		h.ids = slices.Delete(h.ids, k, k+1)
		h.old = append(h.old, id)
	}
}

func (h *multiHarness) step(s source) error {
	m, mm := h.m, h.mm
	H := mm.horizon
	switch s.intn(11) {
	case 0, 1, 2:
		start, d, c := between(s, mm.base-1, mm.base+H), between(s, 0, H+1), h.counts(s)
		h.logf("AddSpan(%d, %d, %v)", start, d, c)
		id, err := m.AddSpan(start, d, c)
		ids, merr := mm.addSpan(start, d, c)
		if err != merr {
			return h.fail("AddSpan: %v, model %v", err, merr)
		}
		if err == nil {
			if id < 0 || slices.Contains(h.ids, id) {
				return h.fail("AddSpan: bad or duplicate id %d", id)
			}
			mm.spans[id] = ids
			h.ids = append(h.ids, id)
		}
	case 3:
		id := h.pickID(s)
		h.logf("RemSpan(%d)", id)
		if err, merr := m.RemSpan(id), mm.remSpan(id); err != merr {
			return h.fail("RemSpan: %v, model %v", err, merr)
		}
		h.forget(id)
	case 4, 5:
		id := h.pickID(s)
		var types []int32
		var counts []int64
		for range s.intn(4) {
			types = append(types, int32(s.intn(5)))
			counts = append(counts, between(s, -1, 3))
		}
		if s.intn(12) == 0 {
			counts = append(counts, 0)
		}
		h.logf("ReduceSpan(%d, %v, %v)", id, types, counts)
		rm, err := m.ReduceSpan(id, types, counts)
		mrm, merr := mm.reduceSpan(id, types, counts)
		if rm != mrm || err != merr {
			return h.fail("ReduceSpan: (%v, %v), model (%v, %v)", rm, err, mrm, merr)
		}
		if rm {
			h.forget(id)
		}
	case 6:
		on, d, c := between(s, mm.base-1, mm.base+H), between(s, 0, H+1), h.counts(s)
		h.logf("AvailTimeFirst(%d, %d, %v)", on, d, c)
		t, err := m.AvailTimeFirst(on, d, c)
		mt, merr := mm.availTimeFirst(on, d, c)
		for i := 0; ; i++ {
			if t != mt || err != merr {
				return h.fail("AvailTimeFirst/Next #%d: (%d, %v), model (%d, %v)", i, t, err, mt, merr)
			}
			if err != nil && (i > 0 || s.intn(2) == 0) {
				break
			}
			t, err = m.AvailTimeNext()
			mt, merr = mm.availTimeNext()
		}
	case 7:
		h.logf("AvailTimeNext()")
		t, err := m.AvailTimeNext()
		mt, merr := mm.availTimeNext()
		if t != mt || err != merr {
			return h.fail("AvailTimeNext: (%d, %v), model (%d, %v)", t, err, mt, merr)
		}
	case 8:
		var types []int32
		var totals []int64
		for range s.intn(4) {
			types = append(types, int32(s.intn(5)))
			totals = append(totals, between(s, -1, 6))
		}
		h.logf("Update(%v, %v)", totals, types)
		m.Update(totals, types)
		mm.update(totals, types)
	case 9:
		h.logf("Clone")
		h.m = m.Clone()
		m.Update(nil, nil) // must not affect the clone
		for _, id := range h.ids {
			_ = m.RemSpan(id)
		}
	default:
		t, d, c := between(s, mm.base-1, mm.base+H+1), between(s, 0, H+1), h.counts(s)
		if err, merr := m.Check(t, d, c), mm.check(t, d, c); err != merr {
			return h.fail("Check(%d, %d, %v): %v, model %v", t, d, c, err, merr)
		}
	}
	return h.compare()
}

func (h *multiHarness) compare() error {
	m, mm := h.m, h.mm
	if m.Len() != len(mm.mem) || m.NumSpans() != len(mm.spans) {
		return h.fail("Len %d NumSpans %d, model %d %d", m.Len(), m.NumSpans(), len(mm.mem), len(mm.spans))
	}
	if m.Type(-1) != -1 || m.Type(m.Len()) != -1 || m.Total(m.Len()) != -1 || m.Member(m.Len()) != nil {
		return h.fail("out of range accessors")
	}
	for i, pm := range mm.mem {
		if m.Type(i) != mm.types[i] || m.Index(mm.types[i]) != i || m.Total(i) != pm.total {
			return h.fail("member %d: type %d total %d, model %d %d", i, m.Type(i), m.Total(i), mm.types[i], pm.total)
		}
		p := m.Member(i)
		if err := checkInvariants(p); err != nil {
			return h.fail("member %d invariant: %v", i, err)
		}
		if p.NumSpans() != len(pm.spans) || p.NumPoints() != len(pm.refs) {
			return h.fail("member %d: %d spans %d points, model %d %d", i, p.NumSpans(), p.NumPoints(), len(pm.spans), len(pm.refs))
		}
		for t := mm.base - 1; t <= pm.end+1; t++ {
			v, err := m.AvailAt(t, i)
			mv, merr := pm.availAt(t)
			if v != mv || err != merr {
				return h.fail("AvailAt(%d, %d): (%d, %v), model (%d, %v)", t, i, v, err, mv, merr)
			}
			for d := int64(1); d <= 3; d++ {
				v, err := m.AvailDuring(t, d, i)
				mv, merr := pm.availDuring(t, d)
				if v != mv || err != merr {
					return h.fail("AvailDuring(%d, %d, %d): (%d, %v), model (%d, %v)", t, d, i, v, err, mv, merr)
				}
			}
		}
	}
	for _, id := range h.ids {
		if !m.HasSpan(id) {
			return h.fail("HasSpan(%d) false", id)
		}
		for i := -1; i <= m.Len(); i++ {
			v, err := m.SpanPlanned(id, i)
			mv, merr := int64(-1), ErrInvalid
			if i >= 0 && i < m.Len() && mm.spans[id][i] != 0 {
				mv, merr = mm.mem[i].spanPlanned(mm.spans[id][i])
			}
			if v != mv || err != merr {
				return h.fail("SpanPlanned(%d, %d): (%d, %v), model (%d, %v)", id, i, v, err, mv, merr)
			}
		}
	}
	for _, id := range h.old {
		if !slices.Contains(h.ids, id) && m.HasSpan(id) {
			return h.fail("HasSpan(removed %d) true", id)
		}
		if _, err := m.SpanPlanned(id, 0); !slices.Contains(h.ids, id) && err != ErrNotFound {
			return h.fail("SpanPlanned(removed %d): %v", id, err)
		}
	}
	return nil
}

func newMultiHarness(s source) *multiHarness {
	base, hz := between(s, -2, 2), between(s, 1, 10)
	var types []int32
	var totals []int64
	for range 1 + s.intn(3) {
		t := int32(s.intn(5))
		if !slices.Contains(types, t) {
			types = append(types, t)
			totals = append(totals, between(s, 0, 5))
		}
	}
	m, err := NewMulti(base, hz, totals, types)
	if err != nil {
		panic(err)
	}
	h := &multiHarness{m: m, mm: newMultiModel(base, hz, totals, types)}
	h.logf("NewMulti(%d, %d, %v, %v)", base, hz, totals, types)
	return h
}

func TestMultiMatchesModel(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	for seed := range seeds {
		s := &randSource{r: rand.New(rand.NewPCG(uint64(seed), 11)), left: 100}
		h := newMultiHarness(s)
		for !s.done() {
			if err := h.step(s); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
}
