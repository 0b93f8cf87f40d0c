package types_test

import (
	"testing"

	"github.com/gofluxion/gofluxion/reapi/types"
)

func TestMatchTypeString(t *testing.T) {
	tests := []struct {
		m     types.MatchType
		want  string
		valid bool
	}{
		{types.MatchUnknown, "unknown", false},
		{types.MatchAllocate, "allocate", true},
		{types.MatchAllocateWithSatisfiability, "allocate with satisfiability", true},
		{types.MatchAllocateOrElseReserve, "allocate or else reserve", true},
		{types.MatchSatisfiability, "satisfiability", true},
		{types.MatchWithoutAllocating, "without allocating", true},
		{types.MatchWithoutAllocatingFuture, "without allocating future", true},
		{types.MatchType(-1), "unknown", false},
		{types.MatchType(7), "unknown", false},
		{types.MatchType(1 << 20), "unknown", false},
	}
	for _, tc := range tests {
		if got := tc.m.String(); got != tc.want {
			t.Errorf("MatchType(%d).String() = %q, want %q", int(tc.m), got, tc.want)
		}
		if got := tc.m.Valid(); got != tc.valid {
			t.Errorf("MatchType(%d).Valid() = %v, want %v", int(tc.m), got, tc.valid)
		}
		if tc.valid {
			back, ok := types.ParseMatchType(tc.want)
			if !ok || back != tc.m {
				t.Errorf("ParseMatchType(%q) = %d, %v; want %d, true", tc.want, int(back), ok, int(tc.m))
			}
		}
	}
}

func TestMatchTypeValues(t *testing.T) {
	// The values of Fluxion's match_op_t.
	want := map[types.MatchType]int{
		types.MatchUnknown:                    0,
		types.MatchAllocate:                   1,
		types.MatchAllocateWithSatisfiability: 2,
		types.MatchAllocateOrElseReserve:      3,
		types.MatchSatisfiability:             4,
		types.MatchWithoutAllocating:          5,
		types.MatchWithoutAllocatingFuture:    6,
	}
	for m, v := range want {
		if int(m) != v {
			t.Errorf("%s = %d, want %d", m, int(m), v)
		}
	}
}

func TestParseMatchTypeRejects(t *testing.T) {
	for _, s := range []string{"", "unknown", "Allocate", "allocate ", "reserve", "match", "allocate_or_else_reserve"} {
		if m, ok := types.ParseMatchType(s); ok || m != types.MatchUnknown {
			t.Errorf("ParseMatchType(%q) = %v, %v; want MatchUnknown, false", s, m, ok)
		}
	}
}

// resource-query's spellings parse too.
func TestParseMatchTypeResourceQuerySpelling(t *testing.T) {
	for s, want := range map[string]types.MatchType{
		"allocate_orelse_reserve":      types.MatchAllocateOrElseReserve,
		"allocate_with_satisfiability": types.MatchAllocateWithSatisfiability,
		"without_allocating_future":    types.MatchWithoutAllocatingFuture,
	} {
		if m, ok := types.ParseMatchType(s); !ok || m != want {
			t.Errorf("ParseMatchType(%q) = %v, %v", s, m, ok)
		}
	}
}
