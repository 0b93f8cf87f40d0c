package planner

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

const maxT = math.MaxInt64

func mustNew(t *testing.T, base, horizon, total int64) *Planner {
	t.Helper()
	p, err := New(base, horizon, total)
	if err != nil {
		t.Fatalf("New(%d, %d, %d): %v", base, horizon, total, err)
	}
	return p
}

func mustAdd(t *testing.T, p *Planner, start, d, req int64) int64 {
	t.Helper()
	id, err := p.AddSpan(start, d, req)
	if err != nil {
		t.Fatalf("AddSpan(%d, %d, %d): %v", start, d, req, err)
	}
	return id
}

func wantErr(t *testing.T, what string, got, want error) {
	t.Helper()
	if !errors.Is(got, want) || (want == nil) != (got == nil) {
		t.Errorf("%s: err %v, want %v", what, got, want)
	}
}

func TestPlannerSize(t *testing.T) {
	if s := unsafe.Sizeof(Planner{}); s > 40 {
		t.Errorf("sizeof(Planner) = %d, want <= 40", s)
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct {
		base, horizon, total int64
		want                 error
		end                  int64
	}{
		{0, 0, 1, ErrInvalid, 0},
		{0, -5, 1, ErrInvalid, 0},
		{0, 1, -1, ErrRange, 0}, // "total > INT64_MAX" as unsigned
		{0, 1, 0, nil, 1},
		{0, maxT, 1 << 30, nil, maxT},
		{10, maxT, 1, nil, maxT}, // end saturates
		{-10, 20, 1, nil, 10},
	} {
		p, err := New(c.base, c.horizon, c.total)
		wantErr(t, "New", err, c.want)
		if err == nil && (p.End() != c.end || p.Base() != c.base || p.Total() != c.total) {
			t.Errorf("New(%d, %d, %d): base %d end %d total %d", c.base, c.horizon, c.total, p.Base(), p.End(), p.Total())
		}
		var q Planner
		if err := q.Init(c.base, c.horizon, c.total); !errors.Is(err, c.want) && (err != nil || c.want != nil) {
			t.Errorf("Init: %v, want %v", err, c.want)
		}
	}
}

// fixture: base 10, end 20, total 5, span [12, 15) x 3, span [14, 18) x 1.
// Points: 10:5 12:2 14:1 15:4 18:5.
func fixture(t *testing.T) *Planner {
	p := mustNew(t, 10, 10, 5)
	mustAdd(t, p, 12, 3, 3)
	mustAdd(t, p, 14, 4, 1)
	return p
}

func TestAvailAt(t *testing.T) {
	p := fixture(t)
	for _, c := range []struct {
		t, want int64
		err     error
	}{
		{9, -1, ErrRange}, {21, -1, ErrRange}, {maxT, -1, ErrRange}, {math.MinInt64, -1, ErrRange},
		{10, 5, nil}, {11, 5, nil}, {12, 2, nil}, {14, 1, nil}, {15, 4, nil}, {17, 4, nil}, {18, 5, nil},
		{20, 5, nil}, // t == end is a valid query
	} {
		v, err := p.AvailAt(c.t)
		wantErr(t, "AvailAt", err, c.err)
		if v != c.want {
			t.Errorf("AvailAt(%d) = %d, want %d", c.t, v, c.want)
		}
	}
}

func TestAvailDuring(t *testing.T) {
	p := fixture(t)
	for _, c := range []struct {
		t, d, want int64
		err        error
	}{
		{21, 1, -1, ErrInvalid},               // t > end
		{12, 0, -1, ErrInvalid},               // d < 1
		{12, -1, -1, ErrInvalid},              // d < 1
		{21, 0, -1, ErrInvalid},               // both
		{15, 6, -1, ErrRange},                 // t+d > end
		{19, maxT, -1, ErrRange},              // t+d overflows
		{20, 1, -1, ErrRange},                 // t == end
		{9, 2, -1, ErrInvalid},                // no state at t
		{math.MinInt64, maxT, -1, ErrInvalid}, // no state at t, no overflow
		{10, 2, 5, nil}, {10, 3, 2, nil}, {10, 10, 1, nil}, {11, 1, 5, nil},
		{13, 1, 2, nil}, {13, 2, 1, nil}, {15, 5, 4, nil}, {18, 2, 5, nil}, {17, 1, 4, nil},
	} {
		v, err := p.AvailDuring(c.t, c.d)
		wantErr(t, "AvailDuring", err, c.err)
		if v != c.want {
			t.Errorf("AvailDuring(%d, %d) = %d, want %d", c.t, c.d, v, c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	p := fixture(t)
	for _, c := range []struct {
		t, d, req int64
		err       error
	}{
		{12, 0, 1, ErrInvalid},  // d < 1 comes first
		{12, 0, 9, ErrInvalid},  // ... even before ERANGE
		{12, 1, 6, ErrRange},    // request > total
		{12, 1, -1, ErrRange},   // negative request (huge unsigned)
		{15, 6, 1, ErrRange},    // t+d > end
		{25, 1, 1, ErrRange},    // t > end
		{19, maxT, 1, ErrRange}, // overflow
		{9, 2, 1, ErrInvalid},   // before base: no state
		{12, 1, 3, ErrBusy},     // 2 free
		{10, 5, 2, ErrBusy},     // 1 free at 14
		{10, 4, 2, nil},         // window ends before 14
		{15, 5, 4, nil},         // exactly enough
		{12, 3, 0, nil},         // request 0 always fits
		{10, 10, 1, nil},        // whole range
		{20 - 1, 1, 5, nil},     // last instant
	} {
		wantErr(t, "Check", p.Check(c.t, c.d, c.req), c.err)
	}
}

func TestAddSpanErrors(t *testing.T) {
	p := fixture(t)
	for _, c := range []struct{ start, d, req int64 }{
		{9, 1, 0},     // start < base
		{12, 0, 0},    // d < 1
		{12, -3, 0},   // d < 1
		{18, 3, 0},    // start+d > end (start+d-1 <= end, but avail_during fails)
		{19, 2, 0},    // start+d-1 > end
		{19, maxT, 0}, // overflow
		{21, 1, 0},    // start > end
		{12, 1, -1},   // request < 0
		{12, 1, 6},    // request > total
		{12, 1, 3},    // busy
		{10, 5, 2},    // busy at 14 only
	} {
		n := p.NumSpans()
		id, err := p.AddSpan(c.start, c.d, c.req)
		if id != -1 || !errors.Is(err, ErrInvalid) {
			t.Errorf("AddSpan(%d, %d, %d) = %d, %v; want -1, ErrInvalid", c.start, c.d, c.req, id, err)
		}
		if p.NumSpans() != n || p.NumPoints() != 5 {
			t.Errorf("failed AddSpan changed the planner")
		}
	}
	// Legal edge cases.
	mustAdd(t, p, 19, 1, 5)        // ends exactly at end
	id := mustAdd(t, p, 10, 10, 0) // request 0: still creates points
	if p.NumPoints() != 7 {        // +19 and +20
		t.Errorf("NumPoints = %d, want 7", p.NumPoints())
	}
	if v, _ := p.AvailAt(20); v != 5 {
		t.Errorf("AvailAt(end) = %d, want 5", v)
	}
	if n, err := p.SpanPlanned(id); n != 0 || err != nil {
		t.Errorf("SpanPlanned = %d, %v", n, err)
	}
}

func TestRemSpan(t *testing.T) {
	p := mustNew(t, 0, 100, 4)
	a := mustAdd(t, p, 10, 10, 1)
	b := mustAdd(t, p, 10, 10, 2) // shares both points
	c := mustAdd(t, p, 0, 10, 4)  // shares the base point and 10
	if p.NumPoints() != 3 {
		t.Fatalf("NumPoints = %d, want 3", p.NumPoints())
	}
	for _, id := range []int64{0, -1, 99, 1 << 32, a | 1<<40} {
		wantErr(t, "RemSpan(bogus)", p.RemSpan(id), ErrInvalid)
	}
	wantErr(t, "RemSpan(a)", p.RemSpan(a), nil)
	wantErr(t, "RemSpan(a) again", p.RemSpan(a), ErrInvalid)
	if p.NumPoints() != 3 || p.NumSpans() != 2 {
		t.Errorf("points %d spans %d after removing a shared span", p.NumPoints(), p.NumSpans())
	}
	if v, _ := p.AvailAt(15); v != 2 {
		t.Errorf("AvailAt(15) = %d, want 2", v)
	}
	wantErr(t, "RemSpan(b)", p.RemSpan(b), nil)
	if p.NumPoints() != 2 { // 20 is gone, 10 still used by c
		t.Errorf("NumPoints = %d, want 2", p.NumPoints())
	}
	wantErr(t, "RemSpan(c)", p.RemSpan(c), nil)
	if p.NumPoints() != 1 || p.NumSpans() != 0 {
		t.Errorf("points %d spans %d, want 1 0", p.NumPoints(), p.NumSpans())
	}
	// A recycled slot gets a different id; the old id stays invalid.
	d := mustAdd(t, p, 1, 1, 1)
	if d == a || d == b || d == c {
		t.Errorf("id %d reused", d)
	}
	for _, id := range []int64{a, b, c} {
		if _, err := p.SpanPlanned(id); !errors.Is(err, ErrInvalid) {
			t.Errorf("SpanPlanned(removed %d): %v", id, err)
		}
	}
}

func TestReduceSpan(t *testing.T) {
	p := mustNew(t, 0, 100, 10)
	a := mustAdd(t, p, 10, 10, 6)
	zero := mustAdd(t, p, 30, 5, 0)
	for _, c := range []struct {
		name    string
		id, k   int64
		removed bool
		err     error
		planned int64 // of a afterwards
	}{
		{"unknown id", 99, 1, false, ErrInvalid, 6},
		{"k > planned", a, 7, false, ErrInvalid, 6},
		{"k < 0", a, -1, false, ErrInvalid, 6},
		{"k = 0 no-op", a, 0, false, nil, 6},
		{"partial", a, 4, false, nil, 2},
		{"partial again", a, 1, false, nil, 1},
		{"k > reduced planned", a, 2, false, ErrInvalid, 1},
		{"k = planned removes", a, 1, true, nil, -1},
		{"removed span", a, 0, false, ErrInvalid, -1},
	} {
		removed, err := p.ReduceSpan(c.id, c.k)
		wantErr(t, c.name, err, c.err)
		if removed != c.removed {
			t.Errorf("%s: removed = %v", c.name, removed)
		}
		if n, _ := p.SpanPlanned(a); n != c.planned {
			t.Errorf("%s: planned = %d, want %d", c.name, n, c.planned)
		}
		if c.name == "partial" {
			if v, _ := p.AvailAt(15); v != 8 {
				t.Errorf("AvailAt(15) after partial reduce = %d, want 8", v)
			}
		}
	}
	// k = 0 on a span that planned 0 removes it.
	if removed, err := p.ReduceSpan(zero, 0); !removed || err != nil {
		t.Errorf("ReduceSpan(zero-span, 0) = %v, %v; want true, nil", removed, err)
	}
	if p.NumSpans() != 0 || p.NumPoints() != 1 {
		t.Errorf("spans %d points %d, want 0 1", p.NumSpans(), p.NumPoints())
	}
}

func TestSpanPlanned(t *testing.T) {
	p := mustNew(t, 0, 10, 3)
	if _, err := p.SpanPlanned(1); !errors.Is(err, ErrInvalid) {
		t.Errorf("SpanPlanned on empty planner: %v", err)
	}
	id := mustAdd(t, p, 0, 1, 2)
	if n, err := p.SpanPlanned(id); n != 2 || err != nil {
		t.Errorf("SpanPlanned = %d, %v", n, err)
	}
}

func TestResetAndUpdateTotal(t *testing.T) {
	p := mustNew(t, 0, 10, 10)
	a := mustAdd(t, p, 0, 5, 10)
	mustAdd(t, p, 5, 2, 3)
	p.UpdateTotal(4) // delta -6: 0 -> 0 (clamped), 7 -> 1, 10 -> 4
	if p.Total() != 4 {
		t.Fatalf("Total = %d", p.Total())
	}
	for _, c := range [][2]int64{{0, 0}, {5, 1}, {7, 4}} {
		if v, _ := p.AvailAt(c[0]); v != c[1] {
			t.Errorf("after UpdateTotal: AvailAt(%d) = %d, want %d", c[0], v, c[1])
		}
	}
	// The clamp is not undone: removing a gives its 10 units back.
	wantErr(t, "RemSpan", p.RemSpan(a), nil)
	if v, _ := p.AvailAt(0); v != 10 {
		t.Errorf("AvailAt(0) = %d, want 10 (more than the total)", v)
	}
	p.UpdateTotal(6)
	if v, _ := p.AvailAt(0); v != 12 {
		t.Errorf("AvailAt(0) = %d, want 12", v)
	}
	p.UpdateTotal(-3) // treated as 0
	if p.Total() != 0 {
		t.Errorf("Total = %d, want 0", p.Total())
	}
	p.UpdateTotal(maxT)
	if v, _ := p.AvailAt(0); v != maxT {
		t.Errorf("AvailAt(0) = %d, want saturated %d", v, int64(maxT))
	}
	p.Reset(100, 50)
	if p.Base() != 100 || p.End() != 150 || p.NumSpans() != 0 || p.NumPoints() != 1 {
		t.Errorf("Reset: base %d end %d spans %d points %d", p.Base(), p.End(), p.NumSpans(), p.NumPoints())
	}
	if v, _ := p.AvailAt(100); v != maxT {
		t.Errorf("after Reset AvailAt = %d, want total", v)
	}
	p.Reset(0, 0) // horizon < 1 is treated as 1
	if p.End() != 1 {
		t.Errorf("Reset(0, 0): end %d", p.End())
	}
	// Spanless UpdateTotal.
	q := mustNew(t, 0, 10, 2)
	q.UpdateTotal(7)
	if v, _ := q.AvailAt(3); v != 7 {
		t.Errorf("spanless UpdateTotal: %d", v)
	}
}

func TestAvailTimeErrors(t *testing.T) {
	p := fixture(t) // 10:5 12:2 14:1 15:4 18:5, end 20
	for _, c := range []struct {
		on, d, req int64
		err        error
	}{
		{9, 1, 1, ErrInvalid},  // on < base
		{20, 1, 1, ErrInvalid}, // on == end
		{25, 1, 1, ErrInvalid}, // on > end
		{10, 0, 1, ErrInvalid}, // d < 1
		{9, 1, 9, ErrInvalid},  // EINVAL before ERANGE
		{10, 1, 6, ErrRange},   // request > total
		{10, 1, -1, ErrRange},  // negative request
		{19, 1, 1, ErrNotFound},
	} {
		tm, err := p.AvailTimeFirst(c.on, c.d, c.req)
		wantErr(t, "AvailTimeFirst", err, c.err)
		if tm != -1 {
			t.Errorf("AvailTimeFirst(%d, %d, %d) = %d", c.on, c.d, c.req, tm)
		}
	}
	// A failed precondition leaves no iteration.
	_, _ = p.AvailTimeFirst(9, 1, 1)
	if _, err := p.AvailTimeNext(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Next after failed First: %v", err)
	}
	if _, err := new(Planner).AvailTimeNext(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Next without First: %v", err)
	}
}

func TestAvailTimeSequence(t *testing.T) {
	p := fixture(t) // 10:5 12:2 14:1 15:4 18:5, end 20
	seq := func(on, d, req int64) (ts []int64, last error) {
		tm, err := p.AvailTimeFirst(on, d, req)
		for err == nil {
			ts = append(ts, tm)
			tm, err = p.AvailTimeNext()
		}
		return ts, err
	}
	for _, c := range []struct {
		on, d, req int64
		want       []int64
		last       error
	}{
		// All points with 1 free unit; on_or_after itself (11) is not a candidate.
		{11, 1, 1, []int64{12, 14, 15, 18}, ErrNotFound},
		{10, 1, 1, []int64{10, 12, 14, 15, 18}, ErrNotFound},
		// 10 is skipped: its window [10, 13) contains 12 with only 2 free;
		// 18 fits [18, 21) but 18+3 > end ends the search.
		{10, 3, 3, []int64{15}, ErrRange},
		{10, 2, 4, []int64{10, 15, 18}, ErrNotFound},
		{10, 1, 5, []int64{10, 18}, ErrNotFound},
		{10, 10, 1, []int64{10}, ErrRange},
		{10, 10, 2, nil, ErrRange}, // 15: [15, 25) past end
		{13, 2, 0, []int64{14, 15, 18}, ErrNotFound},
	} {
		got, last := seq(c.on, c.d, c.req)
		if len(got) != len(c.want) || !errors.Is(last, c.last) {
			t.Errorf("seq(%d, %d, %d) = %v, %v; want %v, %v", c.on, c.d, c.req, got, last, c.want, c.last)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("seq(%d, %d, %d) = %v; want %v", c.on, c.d, c.req, got, c.want)
			}
		}
		// The end of a search is sticky.
		if _, err := p.AvailTimeNext(); !errors.Is(err, ErrNotFound) {
			t.Errorf("Next after end: %v", err)
		}
	}
	// Any change invalidates the iteration.
	for _, c := range []struct {
		name   string
		mutate func(id int64)
	}{
		{"AddSpan", func(int64) { mustAdd(t, p, 10, 1, 0) }},
		{"RemSpan", func(id int64) { _ = p.RemSpan(id) }},
		{"ReduceSpan", func(id int64) { _, _ = p.ReduceSpan(id, 1) }},
		{"ReduceSpan(removing)", func(id int64) { _, _ = p.ReduceSpan(id, 2) }},
		{"UpdateTotal", func(int64) { p.UpdateTotal(p.Total()) }},
		{"Reset", func(int64) { p.Reset(10, 10) }},
	} {
		p.Reset(10, 10)
		id := mustAdd(t, p, 16, 1, 2)
		if _, err := p.AvailTimeFirst(10, 1, 0); err != nil {
			t.Fatalf("%s: First: %v", c.name, err)
		}
		c.mutate(id)
		if _, err := p.AvailTimeNext(); !errors.Is(err, ErrInvalid) {
			t.Errorf("Next after %s: %v, want ErrInvalid", c.name, err)
		}
	}
	// Failed or no-op calls do not.
	p.Reset(10, 10)
	id := mustAdd(t, p, 16, 1, 2)
	if _, err := p.AvailTimeFirst(10, 1, 0); err != nil {
		t.Fatal(err)
	}
	_, _ = p.AddSpan(0, 1, 1)
	_ = p.RemSpan(12345)
	_, _ = p.ReduceSpan(id, 0)
	_, _ = p.ReduceSpan(id, 3)
	_ = p.Check(10, 5, 1)
	if tm, err := p.AvailTimeNext(); tm != 16 || err != nil {
		t.Errorf("Next after failed/no-op calls: %d, %v", tm, err)
	}
	// A spanless planner has only the base point as candidate.
	q := mustNew(t, 0, 10, 2)
	if tm, err := q.AvailTimeFirst(0, 10, 2); tm != 0 || err != nil {
		t.Errorf("spanless First = %d, %v", tm, err)
	}
	if _, err := q.AvailTimeNext(); !errors.Is(err, ErrNotFound) {
		t.Errorf("spanless Next: %v", err)
	}
	if _, err := q.AvailTimeFirst(1, 1, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("spanless First(1): %v", err)
	}
	if _, err := q.AvailTimeFirst(0, 11, 1); !errors.Is(err, ErrRange) {
		t.Errorf("spanless First past end: %v", err)
	}
}

func TestZeroAndLargeRanges(t *testing.T) {
	// Vertex planners: base 0, horizon INT64_MAX.
	p := mustNew(t, 0, maxT, 1)
	id := mustAdd(t, p, maxT-10, 10, 1) // ends exactly at end
	if v, _ := p.AvailAt(maxT); v != 1 {
		t.Errorf("AvailAt(max) = %d", v)
	}
	if _, err := p.AddSpan(maxT-5, 10, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("AddSpan overflowing end: %v", err)
	}
	if tm, err := p.AvailTimeFirst(1, maxT-100, 1); tm != -1 || !errors.Is(err, ErrRange) {
		t.Errorf("AvailTimeFirst = %d, %v", tm, err)
	}
	if tm, err := p.AvailTimeFirst(0, maxT-10, 1); tm != 0 || err != nil {
		t.Errorf("AvailTimeFirst = %d, %v", tm, err)
	}
	if tm, err := p.AvailTimeNext(); tm != -1 || !errors.Is(err, ErrRange) {
		t.Errorf("AvailTimeNext = %d, %v (end point: window past end)", tm, err)
	}
	wantErr(t, "RemSpan", p.RemSpan(id), nil)
	// A range wider than 2^62 on both sides of 0.
	base := int64(-1 << 62)
	q := mustNew(t, base, maxT, 3)
	mustAdd(t, q, base, 1<<62, 1)
	mustAdd(t, q, 100, 1000, 2) // points: base:2 0:3 100:1 1100:3
	if v, err := q.AvailDuring(base, maxT); v != 1 || err != nil {
		t.Errorf("AvailDuring = %d, %v", v, err)
	}
	if tm, err := q.AvailTimeFirst(base, maxT, 2); tm != -1 || !errors.Is(err, ErrRange) {
		t.Errorf("AvailTimeFirst = %d, %v", tm, err)
	}
	if tm, err := q.AvailTimeFirst(base, 1<<62+100, 2); tm != base || err != nil {
		t.Errorf("AvailTimeFirst = %d, %v", tm, err)
	}
}

func TestCloneIndependent(t *testing.T) {
	p := fixture(t)
	c := p.Clone()
	mustAdd(t, p, 10, 10, 1)
	_ = p.RemSpan(1)
	if c.NumSpans() != 2 || c.NumPoints() != 5 {
		t.Fatalf("clone changed: %d spans %d points", c.NumSpans(), c.NumPoints())
	}
	if v, _ := c.AvailAt(14); v != 1 {
		t.Errorf("clone AvailAt(14) = %d", v)
	}
	var empty Planner
	if e := empty.Clone(); e.NumSpans() != 0 || e.points() != nil || e.ext != nil {
		t.Errorf("clone of empty planner allocated storage")
	}
	p.CopyTo(p) // no-op
	if err := checkInvariants(p); err != nil {
		t.Error(err)
	}
}

func TestNoAllocs(t *testing.T) {
	p := fixture(t)
	var vp Planner
	if n := testing.AllocsPerRun(100, func() { _ = vp.Init(0, maxT, 16) }); n != 0 {
		t.Errorf("Init allocates %v", n)
	}
	m, _ := NewMulti(0, 100, []int64{10, 4}, []int32{1, 4})
	_, _ = m.AddSpan(5, 10, []int64{3, 1})
	counts := []int64{2, 1}
	var sink int64
	for name, f := range map[string]func(){
		"AvailAt":                  func() { v, _ := p.AvailAt(14); sink += v },
		"AvailDuring":              func() { v, _ := p.AvailDuring(11, 5); sink += v },
		"Check":                    func() { _ = p.Check(11, 5, 1) },
		"Check(spanless)":          func() { _ = vp.Check(11, 5, 1) },
		"AvailTimeFirst(spanless)": func() { v, _ := vp.AvailTimeFirst(0, 5, 1); sink += v },
		"AvailTimeFirst":           func() { v, _ := p.AvailTimeFirst(10, 1, 1); sink += v },
		"Multi.Check":              func() { _ = m.Check(0, 20, counts) },
		"Multi.AvailAt":            func() { v, _ := m.AvailAt(7, 1); sink += v },
		"Multi.AvailTimeFirst":     func() { v, _ := m.AvailTimeFirst(1, 5, counts); sink += v },
		"AddSpan+RemSpan(reuse)": func() {
			id, _ := p.AddSpan(16, 1, 1)
			_ = p.RemSpan(id)
		},
		"Multi.AddSpan+RemSpan(reuse)": func() {
			id, _ := m.AddSpan(30, 2, counts)
			_ = m.RemSpan(id)
		},
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v per run", name, n)
		}
	}
	_ = sink
	// The first span of a planner takes storage from a shared chunk of 64
	// (one allocation per 64 planners); the next spans reuse it.
	if n := testing.AllocsPerRun(640, func() {
		var q Planner
		_ = q.Init(0, maxT, 4)
		_, _ = q.AddSpan(0, 10, 1)
		_, _ = q.AddSpan(5, 10, 1) // 2 spans, 4 points: inline storage
	}); n > 0.1 {
		t.Errorf("first spans cost %v allocations, want at most 1 per 64 planners", n)
	}
	var slab Slab
	if n := testing.AllocsPerRun(640, func() {
		var q Planner
		_ = q.Init(0, maxT, 4)
		_, _ = q.AddSpanIn(&slab, 0, 10, 1)
		_, _ = q.AddSpanIn(&slab, 5, 10, 1)
	}); n > 0.1 {
		t.Errorf("first spans from a Slab cost %v allocations, want at most 1 per 64 planners", n)
	}
}

// TestAddSpanInSlab checks that planners booked from a Slab behave as
// AddSpan's, own their storage (no two share it) and survive CopyTo.
func TestAddSpanInSlab(t *testing.T) {
	var slab Slab
	ps := make([]Planner, 3*slabSize)
	for i := range ps {
		ref, _ := New(5, 100, 8)
		p := &ps[i]
		_ = p.Init(5, 100, 8)
		start, d, n := int64(5+i%7), int64(1+i%5), int64(i%9)
		idA, errA := ref.AddSpan(start, d, n)
		idB, errB := p.AddSpanIn(&slab, start, d, n)
		if idA != idB || (errA == nil) != (errB == nil) {
			t.Fatalf("planner %d: AddSpanIn = %d, %v; AddSpan = %d, %v", i, idB, errB, idA, errA)
		}
		if got, want := dump(p), dump(ref); got != want {
			t.Fatalf("planner %d: AddSpanIn gives %s, AddSpan %s", i, got, want)
		}
	}
	for i := range ps {
		if i > 0 && ps[i].ext != nil && ps[i].ext == ps[i-1].ext {
			t.Fatalf("planners %d and %d share storage", i-1, i)
		}
	}
	var c Planner
	ps[1].CopyTo(&c)
	_, _ = ps[1].AddSpanIn(&slab, 50, 10, 1)
	if dump(&c) == dump(&ps[1]) {
		t.Fatal("a copy changed with its original")
	}
}

// dump renders a planner's points and spans.
func dump(p *Planner) string {
	if p.ext == nil {
		return "empty"
	}
	return fmt.Sprint(p.ext.pts, p.ext.spans[:len(p.ext.spans):len(p.ext.spans)], p.ext.nspans, p.ext.free)
}

// Fluxion's planner indexes the points by remaining units for the
// earliest-time search and does not re-index them when the total changes:
// after UpdateTotalKeepSearch a point that had too few units is still no
// candidate, until a span changes it. UpdateTotal re-indexes.
func TestUpdateTotalKeepSearch(t *testing.T) {
	tests := []struct {
		name    string
		spans   bool // a span takes every unit over [10, 20)
		keep    bool
		request int64
		want    int64
		wantErr error
	}{
		{"re-indexed point is a candidate", true, false, 1, 10, nil},
		{"stale point is skipped", true, true, 1, 20, nil},
		{"stale base point of an empty planner", false, true, 4, -1, ErrNotFound},
		{"re-indexed base point", false, false, 4, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(0, 1000, 3)
			if err != nil {
				t.Fatal(err)
			}
			if tc.spans {
				if _, err := p.AddSpan(10, 10, 3); err != nil {
					t.Fatal(err)
				}
			}
			if tc.keep {
				p.UpdateTotalKeepSearch(5)
			} else {
				p.UpdateTotal(5)
			}
			if a, _ := p.AvailAt(10); tc.spans && a != 2 {
				t.Fatalf("AvailAt(10) = %d after the total grew, want 2", a)
			}
			on := int64(0)
			if tc.spans {
				on = 5
			}
			got, err := p.AvailTimeFirst(on, 5, tc.request)
			if !errors.Is(err, tc.wantErr) || (err == nil && got != tc.want) {
				t.Errorf("AvailTimeFirst = %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
			}
			// A span over the stale point re-indexes it.
			if tc.spans && tc.keep {
				if _, err := p.AddSpan(10, 1, 1); err != nil {
					t.Fatal(err)
				}
				if got, err := p.AvailTimeFirst(5, 5, 1); err != nil || got != 10 {
					t.Errorf("after a new span: AvailTimeFirst = %d, %v; want 10", got, err)
				}
			}
		})
	}
}

// TestFullRun checks FullRun against AvailAt on random span sets.
func TestFullRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for iter := 0; iter < 300; iter++ {
		total := int64(1 + rng.IntN(3))
		p, _ := New(0, 1000, total)
		for i := rng.IntN(8); i > 0; i-- {
			p.AddSpan(int64(rng.IntN(900)), int64(1+rng.IntN(200)), int64(rng.IntN(int(total)+1)))
		}
		for q := 0; q < 30; q++ {
			at := int64(rng.IntN(1000))
			a, _ := p.AvailAt(at)
			from, until, full := p.FullRun(at)
			if full != (a == 0) {
				t.Fatalf("FullRun(%d) = %v, AvailAt %d", at, full, a)
			}
			if !full {
				continue
			}
			if from > at || until <= at {
				t.Fatalf("FullRun(%d) = [%d, %d)", at, from, until)
			}
			for x := from; x < until; x++ {
				if n, _ := p.AvailAt(x); n != 0 {
					t.Fatalf("FullRun(%d) = [%d, %d), but %d free at %d", at, from, until, n, x)
				}
			}
			if until < p.End() {
				if n, _ := p.AvailAt(until); n == 0 {
					t.Fatalf("FullRun(%d) ends at %d, still full there", at, until)
				}
			}
		}
	}
}

// After UpdateTotalKeepSearch, a point that a later span creates is
// indexed by the units it has when it is created (its predecessor's
// current units, planner.md §1.2), not by the predecessor's stale search
// view. The conformance corpora do not decide this (both readings pass
// all three); the test records the reading we chose, so that a change to
// it is deliberate.
func TestKeepSearchNewPoint(t *testing.T) {
	// After the change: 0 (rem 2, indexed 0), 10 (rem 5, indexed 3), then
	// the later span: 20 (rem 4, re-indexed) and 30 (new, rem 5, indexed 5;
	// it would be indexed 3 if it inherited its predecessor's stale view).
	tests := []struct {
		name        string
		on, request int64
		want        int64
		wantErr     error
	}{
		{"new end point is a candidate at its current units", 11, 5, 30, nil},
		{"stale point skipped, new end point found", 5, 5, 30, nil},
		{"stale point found within its old units", 5, 3, 10, nil},
		{"re-indexed point", 11, 4, 20, nil},
		{"nothing after the last point", 31, 1, -1, ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(0, 1000, 3)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.AddSpan(0, 10, 3); err != nil {
				t.Fatal(err)
			}
			p.UpdateTotalKeepSearch(5)
			if _, err := p.AddSpan(20, 10, 1); err != nil {
				t.Fatal(err)
			}
			got, err := p.AvailTimeFirst(tc.on, 5, tc.request)
			if !errors.Is(err, tc.wantErr) || (err == nil && got != tc.want) {
				t.Errorf("AvailTimeFirst(%d, 5, %d) = %d, %v; want %d, %v", tc.on, tc.request, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
