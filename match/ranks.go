package match

import "github.com/gofluxion/gofluxion/internal/idset"

// KnownRanks returns the ranks that have vertices in the graph. Callers
// intersect a rank set from a user with it before expanding the set: the
// set may name 2^63 ranks, the graph has few.
func (m *Matcher) KnownRanks() idset.Set {
	var ids []int64
	for _, r := range m.g.Ranks() {
		if len(m.g.ByRank(r)) > 0 {
			ids = append(ids, r)
		}
	}
	return idset.Of(ids...)
}
