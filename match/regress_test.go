package match

import (
	"errors"
	"testing"
)

// TestEmptyEmissionIsBusy: a request whose selection succeeds
// but in which no vertex is exclusive emits nothing and fails
// (traversal.md §9). Through the library API the failure should be
// recognisable (the spec says the errno is "normally EBUSY"), but on a new
// matcher it carries the initial errno 0: Error() reads "match: Success"
// and errors.Is matches none of ErrBusy, ErrUnsatisfiable, ErrInvalid.
// resource-query hides this by seeding the errno with ENOTTY (SetErrno).
func TestEmptyEmissionIsBusy(t *testing.T) {
	g := tinyGraph()
	for _, tree := range []string{"core[1]", "core[3];gpu[3]"} {
		for _, op := range []Op{Allocate, AllocateOrElseReserve, AllocateWithSatisfiability, WithoutAllocating} {
			m := newMatcher(t, g, "high")
			o := do(m, op, mkjs(t, g, tree, 10), 1)
			var e *Error
			if !errors.As(o.err, &e) || e.Errno == 0 || !(errors.Is(o.err, ErrBusy) || errors.Is(o.err, ErrUnsatisfiable)) {
				t.Errorf("%s %s on tiny: error %#v, want ErrBusy (or ErrUnsatisfiable)", op, tree, o.err)
			}
		}
	}
}

// TestSatisfiabilityReturnsAt: for Satisfiability, `at` is an
// in/out parameter that the operation leaves alone (traversal.md §1: only
// the other ops set it to the chosen start time). Match instead returns
// the internal far-future probe time (math.MaxInt64 - duration - 1).
func TestSatisfiabilityReturnsAt(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	for _, at := range []int64{0, 100} {
		got, err := m.Match(Satisfiability, mkjs(t, g, test001, 10), 1, at, newRecorder())
		if err != nil || got != at {
			t.Errorf("Satisfiability at %d: returned %d, %v; want %d, <nil>", at, got, err, at)
		}
	}
}
