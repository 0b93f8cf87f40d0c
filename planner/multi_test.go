package planner

import (
	"errors"
	"testing"
)

// Types used in the tests (caller-chosen ids).
const (
	tCore int32 = 1
	tNode int32 = 4
	tGPU  int32 = 3
)

func mustMulti(t *testing.T, base, horizon int64, totals []int64, types []int32) *Multi {
	t.Helper()
	m, err := NewMulti(base, horizon, totals, types)
	if err != nil {
		t.Fatalf("NewMulti: %v", err)
	}
	return m
}

func TestNewMultiErrors(t *testing.T) {
	for _, c := range []struct {
		horizon int64
		totals  []int64
		types   []int32
		want    error
	}{
		{0, []int64{1}, []int32{1}, ErrInvalid},
		{10, []int64{1, 2}, []int32{1}, ErrInvalid},
		{10, []int64{1, 2}, []int32{1, 1}, ErrInvalid},
		{10, []int64{1, -2}, []int32{1, 2}, ErrRange},
		{10, nil, nil, nil},
		{10, []int64{0, 5}, []int32{7, 2}, nil},
	} {
		_, err := NewMulti(0, c.horizon, c.totals, c.types)
		wantErr(t, "NewMulti", err, c.want)
	}
}

func TestMultiAccessors(t *testing.T) {
	m := mustMulti(t, 5, 100, []int64{36, 1}, []int32{tCore, tNode})
	if m.Len() != 2 || m.Base() != 5 || m.End() != 105 {
		t.Errorf("Len %d Base %d End %d", m.Len(), m.Base(), m.End())
	}
	if m.Type(0) != tCore || m.Type(1) != tNode || m.Type(2) != -1 || m.Type(-1) != -1 {
		t.Errorf("Type")
	}
	if m.Index(tNode) != 1 || m.Index(tGPU) != -1 {
		t.Errorf("Index")
	}
	if m.Total(0) != 36 || m.Total(1) != 1 || m.Total(2) != -1 {
		t.Errorf("Total")
	}
	for _, i := range []int{-1, 2} {
		if _, err := m.AvailAt(5, i); !errors.Is(err, ErrInvalid) {
			t.Errorf("AvailAt(_, %d): %v", i, err)
		}
		if _, err := m.AvailDuring(5, 1, i); !errors.Is(err, ErrInvalid) {
			t.Errorf("AvailDuring(_, _, %d): %v", i, err)
		}
	}
	if _, err := m.AvailAt(4, 0); !errors.Is(err, ErrRange) {
		t.Errorf("AvailAt before base: %v", err)
	}
}

func TestMultiSpans(t *testing.T) {
	m := mustMulti(t, 0, 100, []int64{36, 1}, []int32{tCore, tNode})
	for _, c := range []struct {
		counts []int64
		err    error
	}{
		{[]int64{1}, ErrInvalid},
		{[]int64{1, 1, 1}, ErrInvalid},
		{[]int64{37, 1}, ErrInvalid},
	} {
		if id, err := m.AddSpan(0, 10, c.counts); id != -1 || !errors.Is(err, c.err) {
			t.Errorf("AddSpan(%v) = %d, %v", c.counts, id, err)
		}
	}
	a, err := m.AddSpan(0, 10, []int64{4, 0})
	if err != nil || a != 0 {
		t.Fatalf("first multi-span id %d, %v; want 0", a, err)
	}
	b, _ := m.AddSpan(5, 10, []int64{30, 1})
	if b != 1 {
		t.Errorf("second multi-span id %d, want 1", b)
	}
	if !m.HasSpan(a) || !m.HasSpan(b) || m.HasSpan(2) || m.HasSpan(-1) || m.NumSpans() != 2 {
		t.Errorf("HasSpan/NumSpans")
	}
	if v, _ := m.AvailAt(7, 0); v != 2 {
		t.Errorf("AvailAt(7, core) = %d", v)
	}
	if n, err := m.SpanPlanned(b, 0); n != 30 || err != nil {
		t.Errorf("SpanPlanned(b, 0) = %d, %v", n, err)
	}
	if _, err := m.SpanPlanned(b, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("SpanPlanned(b, 2): %v", err)
	}
	if _, err := m.SpanPlanned(7, 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("SpanPlanned(unknown): %v", err)
	}
	for _, c := range []struct {
		t, d   int64
		counts []int64
		err    error
	}{
		{0, 5, []int64{32, 1}, nil},
		{0, 6, []int64{3, 1}, ErrBusy},   // node busy at 5
		{0, 6, []int64{3, 0}, ErrBusy},   // cores: 2 free at 5
		{0, 6, []int64{37, 0}, ErrRange}, // more than the total
		{0, 0, []int64{1, 0}, ErrInvalid},
		{0, 6, []int64{1}, ErrInvalid},
		{95, 6, []int64{0, 0}, ErrRange},
	} {
		wantErr(t, "Check", m.Check(c.t, c.d, c.counts), c.err)
	}
	wantErr(t, "RemSpan(unknown)", m.RemSpan(9), ErrNotFound)
	wantErr(t, "RemSpan(a)", m.RemSpan(a), nil)
	wantErr(t, "RemSpan(a) again", m.RemSpan(a), ErrNotFound)
	if v, _ := m.AvailAt(0, 0); v != 36 || m.NumSpans() != 1 {
		t.Errorf("after RemSpan: AvailAt %d NumSpans %d", v, m.NumSpans())
	}
	c, _ := m.AddSpan(20, 1, []int64{1, 1})
	if c == a {
		t.Errorf("recycled multi-span id %d reused", c)
	}
}

// A member failure forgets the multi-span but keeps earlier member spans.
func TestMultiAddSpanPartialFailure(t *testing.T) {
	m := mustMulti(t, 0, 100, []int64{4, 1}, []int32{tCore, tNode})
	_, _ = m.AddSpan(0, 10, []int64{0, 1})
	if id, err := m.AddSpan(5, 10, []int64{2, 1}); id != -1 || !errors.Is(err, ErrInvalid) {
		t.Fatalf("AddSpan = %d, %v", id, err)
	}
	if m.NumSpans() != 1 {
		t.Errorf("NumSpans = %d", m.NumSpans())
	}
	if v, _ := m.AvailAt(5, 0); v != 2 || m.Member(0).NumSpans() != 2 {
		t.Errorf("core member: AvailAt %d, %d spans; want the leaked booking", v, m.Member(0).NumSpans())
	}
}

func TestMultiReduceSpan(t *testing.T) {
	m := mustMulti(t, 0, 100, []int64{36, 1, 4}, []int32{tCore, tNode, tGPU})
	id, _ := m.AddSpan(0, 10, []int64{10, 1, 0})
	if _, err := m.ReduceSpan(42, nil, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := m.ReduceSpan(id, []int32{tCore}, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("length mismatch: %v", err)
	}
	// Not naming gpu reduces it by 0, which removes its 0-unit span; the
	// non-member type 99 is ignored.
	removed, err := m.ReduceSpan(id, []int32{tCore, 99}, []int64{4, 7})
	if removed || err != nil {
		t.Fatalf("ReduceSpan = %v, %v", removed, err)
	}
	if n, _ := m.SpanPlanned(id, 0); n != 6 {
		t.Errorf("core planned %d, want 6", n)
	}
	if n, _ := m.SpanPlanned(id, 1); n != 1 {
		t.Errorf("node planned %d, want 1", n)
	}
	if _, err := m.SpanPlanned(id, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("gpu member span should be gone: %v", err)
	}
	if m.Member(2).NumSpans() != 0 {
		t.Errorf("gpu member has %d spans", m.Member(2).NumSpans())
	}
	if _, err := m.ReduceSpan(id, []int32{tCore}, []int64{7}); !errors.Is(err, ErrInvalid) {
		t.Errorf("k > planned: %v", err)
	}
	// Removing the node member span; naming the gone gpu span is ignored.
	removed, err = m.ReduceSpan(id, []int32{tNode, tGPU}, []int64{1, 3})
	if removed || err != nil || !m.HasSpan(id) {
		t.Fatalf("ReduceSpan = %v, %v", removed, err)
	}
	removed, err = m.ReduceSpan(id, []int32{tCore}, []int64{6})
	if !removed || err != nil || m.HasSpan(id) || m.NumSpans() != 0 {
		t.Fatalf("last ReduceSpan = %v, %v", removed, err)
	}
	for i := range m.Len() {
		if v, _ := m.AvailAt(0, i); v != m.Total(i) {
			t.Errorf("member %d not fully free: %d", i, v)
		}
	}
	if _, err := m.ReduceSpan(id, nil, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("removed id: %v", err)
	}
	// A multi-span whose counts are all 0 goes away with an empty reduction.
	z, _ := m.AddSpan(0, 1, []int64{0, 0, 0})
	if removed, err := m.ReduceSpan(z, nil, nil); !removed || err != nil {
		t.Errorf("empty reduction of a zero span = %v, %v", removed, err)
	}
}

func TestMultiAvailTime(t *testing.T) {
	m := mustMulti(t, 0, 100, []int64{4, 2}, []int32{tCore, tNode})
	_, _ = m.AddSpan(0, 10, []int64{4, 0})
	_, _ = m.AddSpan(10, 10, []int64{0, 2})
	_, _ = m.AddSpan(30, 10, []int64{1, 1})
	// Core candidates with 2 free: 10, 20, 30, 40; node needs 1 for 10 units.
	tm, err := m.AvailTimeFirst(1, 10, []int64{2, 1})
	if tm != 20 || err != nil {
		t.Errorf("First = %d, %v; want 20", tm, err)
	}
	for _, want := range []int64{30, 40} {
		if tm, err := m.AvailTimeNext(); tm != want || err != nil {
			t.Errorf("Next = %d, %v; want %d", tm, err, want)
		}
	}
	if tm, err := m.AvailTimeNext(); tm != -1 || !errors.Is(err, ErrNotFound) {
		t.Errorf("Next = %d, %v; want ENOENT", tm, err)
	}
	for _, c := range []struct {
		on, d  int64
		counts []int64
		err    error
	}{
		{1, 10, []int64{2}, ErrInvalid},
		{1, 10, []int64{5, 0}, ErrRange},    // member 0's precondition
		{1, 10, []int64{2, 3}, ErrNotFound}, // other members only reject
		{0, 0, []int64{2, 1}, ErrInvalid},
		{100, 1, []int64{0, 0}, ErrInvalid},
	} {
		tm, err := m.AvailTimeFirst(c.on, c.d, c.counts)
		if tm != -1 {
			t.Errorf("First(%d, %d, %v) = %d", c.on, c.d, c.counts, tm)
		}
		wantErr(t, "AvailTimeFirst", err, c.err)
	}
	if _, err := m.AvailTimeFirst(1, 1, []int64{0, 0}); err != nil {
		t.Fatal(err)
	}
	_, _ = m.AddSpan(50, 1, []int64{0, 0})
	if _, err := m.AvailTimeNext(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Next after AddSpan: %v", err)
	}
	empty := mustMulti(t, 0, 10, nil, nil)
	if _, err := empty.AvailTimeFirst(0, 1, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("First without members: %v", err)
	}
	if _, err := empty.AvailTimeNext(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Next without First: %v", err)
	}
}

func TestMultiUpdate(t *testing.T) {
	m := mustMulti(t, 0, 100, []int64{36, 1}, []int32{tCore, tNode})
	id, _ := m.AddSpan(0, 10, []int64{6, 1})
	// gpu is new and becomes member 0, node is dropped, core gets 40 units.
	m.Update([]int64{2, 40}, []int32{tGPU, tCore})
	if m.Len() != 2 || m.Type(0) != tGPU || m.Type(1) != tCore || m.Total(1) != 40 || m.Index(tNode) != -1 {
		t.Fatalf("members after Update: %d %d %d", m.Len(), m.Type(0), m.Type(1))
	}
	if v, _ := m.AvailAt(5, 1); v != 34 {
		t.Errorf("core AvailAt = %d, want 34 (span kept)", v)
	}
	if n, err := m.SpanPlanned(id, 1); n != 6 || err != nil {
		t.Errorf("core planned %d, %v", n, err)
	}
	if _, err := m.SpanPlanned(id, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("new member has no span: %v", err)
	}
	if v, _ := m.AvailAt(5, 0); v != 2 {
		t.Errorf("gpu AvailAt = %d", v)
	}
	wantErr(t, "RemSpan", m.RemSpan(id), nil)
	if v, _ := m.AvailAt(5, 1); v != 40 {
		t.Errorf("core AvailAt after RemSpan = %d", v)
	}
	// Repeated type: first position, last total.
	m.Update([]int64{1, 2, 3}, []int32{tCore, tNode, tCore})
	if m.Len() != 2 || m.Type(0) != tCore || m.Total(0) != 3 || m.Total(1) != 2 {
		t.Errorf("Update with a repeated type: len %d type %d totals %d %d", m.Len(), m.Type(0), m.Total(0), m.Total(1))
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Update with mismatched lengths did not panic")
		}
	}()
	m.Update([]int64{1}, nil)
}

func TestMultiClone(t *testing.T) {
	m := mustMulti(t, 0, 100, []int64{36, 1}, []int32{tCore, tNode})
	id, _ := m.AddSpan(0, 10, []int64{6, 1})
	c := m.Clone()
	_ = m.RemSpan(id)
	m.Update([]int64{1}, []int32{tGPU})
	if !c.HasSpan(id) || c.Len() != 2 || c.Type(0) != tCore {
		t.Fatalf("clone changed")
	}
	if v, _ := c.AvailAt(0, 0); v != 30 {
		t.Errorf("clone AvailAt = %d", v)
	}
	wantErr(t, "clone RemSpan", c.RemSpan(id), nil)
}
