package gofluxion_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
)

// TestUpdateRejectsBadWindow: an R whose starttime or expiration is not a
// usable number is refused (Fluxion reads a string starttime as 0 and books
// the job at the wrong time), and nothing is booked.
func TestUpdateRejectsBadWindow(t *testing.T) {
	src := demo(t, "first")
	js, err := src.ParseJobspec([]byte(oneSocket))
	if err != nil {
		t.Fatal(err)
	}
	a, err := src.MatchWithID(gofluxion.Allocate, js, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	good, err := a.Render("rv1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(good, `"starttime": 0`) {
		t.Fatalf("rendered R has no numeric starttime: %s", good)
	}
	for _, tc := range []struct{ name, from, to string }{
		{"string starttime", `"starttime": 0`, `"starttime": "100"`},
		{"string expiration", `"expiration": 3600`, `"expiration": "3600"`},
		{"negative starttime", `"starttime": 0`, `"starttime": -5`},
		{"starttime past the window", `"starttime": 0`, `"starttime": 1e12`},
		{"expiration before starttime", `"starttime": 0`, `"starttime": 4000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := strings.Replace(good, tc.from, tc.to, 1)
			if bad == good {
				t.Fatalf("%q not in %s", tc.from, good)
			}
			m := demo(t, "first")
			before, _ := m.Find("status=up", "simple")
			_, err := m.Update(7, []byte(bad))
			if !errors.Is(err, gofluxion.ErrInvalid) {
				t.Fatalf("Update = %v, want ErrInvalid", err)
			}
			after, _ := m.Find("status=up", "simple")
			if before != after || len(m.Jobs()) != 0 {
				t.Fatalf("a failed Update changed the state")
			}
		})
	}
	m := demo(t, "first")
	if _, err := m.Update(7, []byte(good)); err != nil {
		t.Fatalf("the unchanged R: %v", err)
	}
}
