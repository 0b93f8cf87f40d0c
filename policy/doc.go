// Package policy holds Fluxion's match policies: the scoring callbacks and
// comparators that decide which of several fitting resources a match takes
// (spec policies.md).
//
// # Where it fits
//
// match.New creates the policy named by match.Options.Policy with New and
// calls it during the depth-first-and-up walk over the graph:
//
//	*graph.Graph → match.Matcher ─ Discover / Finish / orders ─→ Policy
//
// Discover runs pre-order on every vertex that passed pruning, Finish
// post-order once the vertex's children were chosen (it returns the
// vertex's score, > 0 when its requests were met, 0 otherwise). Candidates
// offered to a parent are sorted with VertexOrder (below an ordinary
// vertex), SlotOrder (inside a slot) or GraphOrder (at the root, given all
// the candidates' scores) and the best ones are taken. FinishGraph resets
// per-match state. A Policy is stateful and owned by one matcher.
//
// # Orders and ties
//
// An Order compares scores only: Greater prefers higher scores, Less lower
// ones. Everything else about equal scores is decided by the order in which
// candidates were collected (out-edge creation order) and by the exact
// unstable sort Fluxion uses (package internal/introsort): lists of at most
// 16 candidates keep their order among ties, longer ones are permuted
// deterministically.
//
// # Built-in policies
//
// New accepts these names (Names lists them):
//
//	first       policy=high node_centric=true stop_on_1_matches=true
//	firstnodex  policy=high node_centric=true node_exclusive=true stop_on_1_matches=true
//	high        policy=high
//	low         policy=low
//	lonode      policy=low node_centric=true
//	hinode      policy=high node_centric=true
//	lonodex     policy=low node_centric=true node_exclusive=true
//	hinodex     policy=high node_centric=true node_exclusive=true
//	locality    blocks of consecutive scores (below)
//	variation   lowest perf_class property first (below)
//
// The id-based family (everything but locality and variation) scores a
// vertex id+2, plus, with node_centric, the factor of its enclosing node
// f = (node.id+2)·10000 + |node.uniq_id mod 10000 − 1|, so that candidates
// merged from several nodes are grouped by node. policy=high uses Greater
// (highest ids first), policy=low uses Less. node_exclusive adds "node" to
// ExclusiveTypes: a chosen node is taken whole. stop_on_1_matches makes
// StopOnFirstMatch true: the matcher then explores children in its dynamic
// order and stops at the first ones that satisfy the request.
//
// locality scores like high without factors, but at the root it groups the
// candidates' scores into maximal runs of consecutive integers and prefers
// the candidates of the run with the highest bounds (policies.md §4).
//
// variation scores every vertex 1 + PerfClass(perf_class property) and
// prefers the lowest class; ids play no role (policies.md §5).
//
// # Custom option strings
//
// Any other name is parsed as a custom option string, e.g.
// "policy=low node_centric=true" (ParseOptions, policies.md §3): tokens
// separated by single spaces, keys policy (high|low), node_centric,
// node_exclusive and stop_on_1_matches (true|false). Parsing stops at the
// first invalid token but keeps the keys accepted before it, as Fluxion
// does, so "policy=low foo=bar" is the low policy; a string in which no
// policy= key was accepted creates no policy and New returns an error
// wrapping ErrInvalid.
package policy
