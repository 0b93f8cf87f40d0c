// Package rv1 renders matches as Flux resource sets (RFC 20 "R"), in the
// match formats "rlite", "rv1_nosched", "rv1" and "rv1_shorthand" of
// Fluxion (spec formats.md §5.5-§5.9).
//
// # Where it fits
//
//	*graph.Graph → match.Matcher (policy) → rv1.Writer (an emit.Writer) → Render()
//
// NewWriter(format) returns a writer for one Format. It gathers, from the
// vertices the matcher emits in post-order, the ids of every core and gpu
// until the next node (or storage_node) vertex, which collects them into a
// "children signature" such as {"core": "0-3", "gpu": "0"}; nodes with the
// same signature share one R_lite entry. A node emitted without pending
// cores or gpus records nothing; pending ids with no node after them stay
// pending for the next node.
//
//   - RLite renders only the R_lite array,
//     [{"rank": "<idset>", "children": {...}}, ...], one element per
//     signature in lexicographic order of the signature text, the ranks of
//     each sorted and compressed as an idset ("0-3,7").
//   - RV1NoSched renders {"version": 1, "execution": {"R_lite": [...],
//     "nodelist": ["<hostlist>"], "properties": {...}, "starttime": S,
//     "expiration": E}}: the node names in rank order as a Flux hostlist
//     ("node[0-3]"), the nodes' properties ("key" or "key=value" → idset of
//     ranks; the key is present only if some node has properties), and the
//     times of the last match (0 and 0 for find).
//   - RV1 adds "scheduling": the match in JGF (package jgf), and
//     RV1Shorthand the same in jgf_shorthand form. If the jobspec named a
//     queue they end with "attributes": {"system": {"scheduler":
//     {"queue": ...}}}.
//
// Every form prints one line of JSON and a newline.
//
// # Quirks kept from Fluxion
//
// RLite fails with ErrEmpty when no signature was recorded (nothing is
// printed and the pending content is kept); the R forms then print nothing
// without error, and rv1 keeps its JGF part, which appears first in the
// next rendering. A node with a negative rank cannot be rendered
// (ErrNegativeRank). The queue is sticky: once a job with a queue has been
// rendered by an rv1 or rv1_shorthand writer, every later rendering of
// that writer carries the same attributes, even for jobs without a queue.
package rv1
