package match

import "github.com/gofluxion/gofluxion/internal/idset"

// KnownRanks returns the ranks the graph knows: those it ever had, even
// when all their vertices were removed since (graph.HasRank; Fluxion keeps
// such ranks, and PartialCancel and RemoveRanks accept them). Callers
// intersect a rank set from a user with it before expanding the set: the
// set may name 2^63 ranks, the graph has few.
func (m *Matcher) KnownRanks() idset.Set {
	return idset.Of(m.g.Ranks()...)
}
