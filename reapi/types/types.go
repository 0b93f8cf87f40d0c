package types

// MatchType is a match operation (Fluxion's match_op_t), the first
// argument of fluxcli.ReapiClient.Match and MatchWithJobID.
type MatchType int

// The match operations. The values follow Fluxion's C enumeration
// match_op_t, with 0 an invalid ("unknown") operation.
const (
	// MatchUnknown is not an operation: Match rejects it (EINVAL,
	// "Invalid Match Option: 0").
	MatchUnknown MatchType = iota
	// MatchAllocate allocates now or fails with EBUSY.
	MatchAllocate
	// MatchAllocateWithSatisfiability allocates now; on failure it tells
	// "busy now" (EBUSY) from "never" (ENODEV).
	MatchAllocateWithSatisfiability
	// MatchAllocateOrElseReserve allocates now, else reserves the
	// resources at the earliest time they are free.
	MatchAllocateOrElseReserve
	// MatchSatisfiability only checks whether the request could ever be
	// met by the graph; nothing is booked and no job id is consumed.
	MatchSatisfiability

	// The two operations below are gofluxion's additions (Fluxion's C API
	// has them; fluxion-go does not).

	// MatchWithoutAllocating selects resources now without booking them;
	// the job id is -1 (2^64-1 unsigned) and no job id is consumed.
	MatchWithoutAllocating
	// MatchWithoutAllocatingFuture selects resources now or at the earliest
	// later time they are free, without booking them.
	MatchWithoutAllocatingFuture
)

var names = [...]string{
	MatchUnknown:                    "unknown",
	MatchAllocate:                   "allocate",
	MatchAllocateWithSatisfiability: "allocate with satisfiability",
	MatchAllocateOrElseReserve:      "allocate or else reserve",
	MatchSatisfiability:             "satisfiability",
	MatchWithoutAllocating:          "without allocating",
	MatchWithoutAllocatingFuture:    "without allocating future",
}

// rqNames are resource-query's spellings, which ParseMatchType accepts too.
var rqNames = [...]string{
	MatchAllocate:                   "allocate",
	MatchAllocateWithSatisfiability: "allocate_with_satisfiability",
	MatchAllocateOrElseReserve:      "allocate_orelse_reserve",
	MatchSatisfiability:             "satisfiability",
	MatchWithoutAllocating:          "without_allocating",
	MatchWithoutAllocatingFuture:    "without_allocating_future",
}

// String returns fluxion-go's name of the operation: "allocate",
// "allocate with satisfiability", "allocate or else reserve",
// "satisfiability" (and "without allocating", "without allocating
// future" for the two operations fluxion-go lacks), or "unknown".
func (m MatchType) String() string {
	if !m.Valid() {
		return "unknown"
	}
	return names[m]
}

// Valid reports whether m is one of the operations.
func (m MatchType) Valid() bool { return m > MatchUnknown && int(m) < len(names) }

// ParseMatchType returns the operation named s, in String's spelling or
// resource-query's ("allocate_orelse_reserve").
func ParseMatchType(s string) (MatchType, bool) {
	for i := range names {
		m := MatchType(i)
		if m.Valid() && (names[i] == s || rqNames[i] == s) {
			return m, true
		}
	}
	return MatchUnknown, false
}
