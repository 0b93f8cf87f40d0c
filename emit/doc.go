// Package emit is the boundary between the matcher and the match formats:
// the Writer interface that receives a match, the Vertex record it gets for
// each selected vertex, and the two text formats of resource-query,
// "simple" and "pretty_simple" (spec formats.md §5.1, §5.2).
//
// # Where it fits
//
//	*graph.Graph → match.Matcher (policy) ── Vertex / Edge / Times / Attr ──→ Writer → Render()
//
// After a successful selection the matcher's update walk calls Vertex for
// every vertex it booked, in post-order (children before their parent,
// siblings in out-edge creation order, the root last), and Edge for the
// edge to each emitted child right after that child's subtree; then Times
// with the start and end of the allocation and, if the jobspec named a
// queue, Attr("queue", name). Find uses the same calls (with Needs equal to
// the vertex size, Exclusive set, and Times(0, 0)). A failed match calls
// nothing. Render returns the accumulated text and empties the writer.
//
// Vertex.Level is the depth from the root (root = 1), Needs the units
// taken, Exclusive whether the vertex was taken exclusively, ExclParent
// whether its parent was (the shorthand formats leave such vertices out),
// Label the jobspec label that matched it and AgFilter the pruning-filter
// figures of find's agfilter mode.
//
// # Writers
//
// NewSimple renders one line per vertex in emission order: six spaces,
// "---" per level, the name and [needs:x] for exclusive or [needs:s] for
// shared use, e.g. (without the six leading spaces)
//
//	---------------core35[1:x]
//	------------socket1[1:x]
//	---------node1[1:s]
//
// NewPrettySimple writes [needs:exclusive] and [needs:shared] and renders
// the lines in reverse order, root first.
//
// The JSON formats implement the same interface in other packages: jgf
// (jgf, jgf_shorthand) and rv1 (rlite, rv1, rv1_nosched, rv1_shorthand).
// Like Fluxion's writers, those keep content they could not render and
// prepend it to the next rendering; the text writers always render.
package emit
