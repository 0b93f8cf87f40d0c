package planner

import (
	"errors"
	"math"
	"testing"
)

// FuzzPlanner interprets the input as an operation sequence. In model mode
// (first byte even) a small planner is checked against the brute-force
// model after every operation; in wide mode it runs on extreme ranges
// (saturated ends, negative bases, huge durations) where only the internal
// invariants and error classes can be checked. Nothing may panic.
func FuzzPlanner(f *testing.F) {
	f.Add([]byte{0, 2, 5, 3, 0, 4, 3, 2, 8, 1, 1, 1, 9, 3, 0})
	f.Add([]byte{2, 1, 11, 6, 0, 3, 4, 5, 1, 2, 6, 7, 0, 4, 8, 6, 2, 1, 5, 0, 0})
	f.Add([]byte{4, 0, 6, 2, 1, 0, 0, 0, 1, 2, 2, 7, 5, 10, 0, 3, 2, 1, 8, 4, 5, 4})
	f.Add([]byte{1, 0, 0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{3, 5, 1, 0, 2, 2, 2, 9, 9, 9, 4, 4, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 300 { // long inputs make minimization slow without finding more
			return
		}
		s := &byteSource{b: data}
		if s.intn(2) == 0 {
			h := newPlannerHarness(s)
			for !s.done() {
				if err := h.step(s); err != nil {
					t.Fatal(err)
				}
			}
			return
		}
		wide(t, s)
	})
}

var wideValues = []int64{
	math.MinInt64, math.MinInt64 + 1, -1 << 62, -1000, -1, 0, 1, 2, 7, 1000,
	1 << 30, 1 << 62, math.MaxInt64 - 1000, math.MaxInt64 - 1, math.MaxInt64,
}

func wideValue(s source) int64 { return wideValues[s.intn(len(wideValues))] }

func wide(t *testing.T, s source) {
	p, err := New(wideValue(s), wideValue(s), wideValue(s))
	if err != nil {
		return
	}
	var ids []int64
	known := func(err error, ok ...error) {
		if err == nil {
			return
		}
		for _, e := range ok {
			if errors.Is(err, e) {
				return
			}
		}
		t.Fatalf("unexpected error %v", err)
	}
	for !s.done() {
		a, b, c := wideValue(s), wideValue(s), wideValue(s)
		switch s.intn(8) {
		case 0, 1:
			id, err := p.AddSpan(a, b, c)
			known(err, ErrInvalid)
			if err == nil {
				ids = append(ids, id)
				if got, _ := p.AvailDuring(a, b); got < 0 {
					t.Fatalf("negative availability %d after AddSpan", got)
				}
			}
		case 2:
			if len(ids) > 0 {
				k := s.intn(len(ids))
				if err := p.RemSpan(ids[k]); err != nil {
					t.Fatalf("RemSpan(live): %v", err)
				}
				ids = append(ids[:k], ids[k+1:]...)
			}
		case 3:
			if len(ids) > 0 {
				k := s.intn(len(ids))
				rm, err := p.ReduceSpan(ids[k], c)
				known(err, ErrInvalid)
				if rm {
					ids = append(ids[:k], ids[k+1:]...)
				}
			}
		case 4:
			_, err := p.AvailTimeFirst(a, b, c)
			known(err, ErrInvalid, ErrRange, ErrNotFound)
			for i := 0; err == nil && i < 5; i++ {
				_, err = p.AvailTimeNext()
				known(err, ErrRange, ErrNotFound)
			}
		case 5:
			_, err := p.AvailAt(a)
			known(err, ErrRange)
			_, err = p.AvailDuring(a, b)
			known(err, ErrInvalid, ErrRange)
			known(p.Check(a, b, c), ErrInvalid, ErrRange, ErrBusy)
		case 6:
			if s.intn(4) == 0 {
				p.UpdateTotal(c)
			} else {
				p = p.Clone()
			}
		case 7:
			if s.intn(8) == 0 {
				p.Reset(a, b)
				ids = ids[:0]
			}
		}
		if err := checkInvariants(p); err != nil {
			t.Fatal(err)
		}
		if p.NumSpans() != len(ids) {
			t.Fatalf("NumSpans %d, tracked %d", p.NumSpans(), len(ids))
		}
	}
}

// FuzzMulti checks a small multi-planner against the brute-force model.
func FuzzMulti(f *testing.F) {
	f.Add([]byte{3, 4, 2, 1, 3, 2, 0, 1, 2, 1, 1, 6, 0, 3, 1, 1, 4, 0, 1, 2, 8, 2, 1, 0, 3})
	f.Add([]byte{1, 9, 1, 0, 4, 0, 2, 4, 1, 1, 5, 0, 2, 1, 3, 0, 6, 2, 9, 1, 1, 7, 8, 3, 4, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 300 {
			return
		}
		s := &byteSource{b: data}
		h := newMultiHarness(s)
		for !s.done() {
			if err := h.step(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}
