// Package rv1 renders matches as Flux resource sets (RFC 20 "R"), in the
// match formats "rlite", "rv1_nosched", "rv1" and "rv1_shorthand" of
// Fluxion (spec formats.md §5.5-§5.9), and reads R documents into resource
// graphs (the rv1exec load format, §3; see "Reading rv1exec" below).
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
// that writer carries the same attributes, even for jobs without a queue.// Package rv1 renders matches as Flux resource sets (RFC 20 "R"), in the
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
//
// # Reading rv1exec
//
// The package also reads R documents as a resource graph (load formats
// rv1exec and rv1exec_force, spec formats.md §3). ParseR decodes and
// validates one into an R (version, R_lite entries with their rank idset
// and children in JSON object order, node lists, properties, times; Ranks
// and Hosts give the rank set and the concatenated host list); (*R).Graph
// builds it: a cluster0 root, then per R_lite entry and per rank
// ascending the node vertex of the rank's host (the k-th smallest rank is
// the k-th host) and its children, all of size 1, with containment edges;
// properties are set with empty values on node vertices. ReadExec does
// both. Errors are *Error; Fluxion() gives Fluxion's text where known
// ("add_or_update: found duplicate vertex in graph for <name>.\n").
//
// Decisions where the specification is silent: the JSON must be what
// jansson accepts (valid UTF-8, integers within 64 bits, no \u0000; a NUL
// byte ends the input); version must be the integer 1; "execution",
// "R_lite" (objects with "rank" and "children") and "nodelist" (strings)
// are required, "properties" optional, "starttime"/"expiration" are read
// only when they are numbers; the number of distinct ranks must equal the
// number of hosts; property ranks without a node are ignored; a host name
// suffix beyond 64 bits is an error. A child type that is empty, contains
// "/", or is cluster or node is an error naming the entry and the type
// (Fluxion accepts them and builds nonsense: an unnamed vertex, a path
// with an extra component, a second cluster, a node below a node; no
// conformance case uses them).
//
// Limits: ReadExec, Graph and Hosts apply the default graph.ReadLimits
// (ParseR its MaxVertices to the ranks), ReadExecLimited and GraphLimited
// others. The number of ranks, vertices and hosts, and the length of the
// host names and paths are computed from the idsets and host lists, which
// are never expanded for the check, so a 4 KB R naming 10^6 hosts of 4 KB
// each is refused before it costs anything.
package rv1
