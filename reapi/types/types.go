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
	// MatchWithoutAllocating selects resources now without booking them;
	// the job id is 2^64-1 and no job id is consumed.
	MatchWithoutAllocating
	// MatchWithoutAllocatingFuture selects resources now or at the earliest
	// later time they are free, without booking them.
	MatchWithoutAllocatingFuture
)

var names = [...]string{
	MatchAllocate:                   "allocate",
	MatchAllocateWithSatisfiability: "allocate_with_satisfiability",
	MatchAllocateOrElseReserve:      "allocate_orelse_reserve",
	MatchSatisfiability:             "satisfiability",
	MatchWithoutAllocating:          "without_allocating",
	MatchWithoutAllocatingFuture:    "without_allocating_future",
}

// String returns the operation's name as resource-query spells it
// ("allocate", "allocate_orelse_reserve", ...), or "unknown".
func (m MatchType) String() string {
	if m <= MatchUnknown || int(m) >= len(names) {
		return "unknown"
	}
	return names[m]
}

// Valid reports whether m is one of the operations.
func (m MatchType) Valid() bool { return m > MatchUnknown && int(m) < len(names) }

// ParseMatchType returns the operation named s (String's spelling).
func ParseMatchType(s string) (MatchType, bool) {
	for i, n := range names {
		if n != "" && n == s {
			return MatchType(i), true
		}
	}
	return MatchUnknown, false
}
