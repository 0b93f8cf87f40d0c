// Package jgf handles Fluxion's JSON Graph Format: it reads JGF graph
// documents into a graph.Graph (spec formats.md §2) and renders matches in
// the "jgf" and "jgf_shorthand" match formats (formats.md §5.3, §5.4).
//
// # Where it fits
//
//	JGF text → jgf.Read → *graph.Graph → match.Matcher (policy) → jgf.Writer (an emit.Writer) → Render()
//
// # Reading
//
// Read (and ReadFile) parse a document and build a new graph; Parse only
// decodes and checks a document into a Document, and Load builds a
// Document into an existing graph (the initial load, or attaching a
// subgraph, where vertices whose paths already exist with the same rank
// are reused). Fluxion's defaults apply (formats.md §2: basename = type,
// name = basename + id, uniq_id from the node's "id" string, ...);
// vertices keep the JGF uniq_id, and out-edges follow the order of the
// "edges" array. Failures are *Error values in Fluxion's order; their
// Fluxion method returns the text Fluxion's reader reports.
//
// The reader walks the bytes once, without a generic JSON tree, and Read
// builds the graph while it decodes (one goroutine decodes, the caller's
// builds; only the latter touches the graph, in document order), keeping
// no copy of the document: the 4096×64 benchmark cluster (44 MB) reads
// about 4× faster and in a quarter of the memory of a tree-based reader.
// It accepts exactly what jansson accepts; when it rejects a document, the
// reference decoder (json.go, jansson 2.14's json_loads, kept for this)
// reads it again for jansson's error text, line and column. Documents
// laid out otherwise than usual (edges before nodes, a repeated "graph",
// "nodes" or "edges") are decoded into a Document first, with the same
// result. The reader it replaced is kept as the oracle of the
// differential tests.
//
// # Strict and Fluxion-faithful reading
//
// The zero Options, used by Read, ReadFile and Parse, is the library's
// strict reader. Options{Fluxion: true} accepts what Fluxion accepts, as
// resource-query must. The strict reader also refuses, with an *Error
// whose Strict field is set, naming the node and field or the edge:
//
//   - a "size" other than the sentinel -1 outside [0, 2^32) (Fluxion
//     stores int64(uint32(size)): -5 becomes 4294967291);
//   - an edge from a vertex to itself, in any subsystem;
//   - a second containment parent (a vertex is in one place of the
//     containment tree; other subsystems, such as a network, may give a
//     vertex several parents);
//   - a cycle in any subsystem, reported at the edge of the document that
//     closes it (the search is iterative: depth does not matter);
//   - a new vertex with a containment path that is neither the
//     containment root (a path with one '/') nor any vertex's containment
//     child (it would be out of reach of every traversal, yet found by path
//     and rank), naming its name and path;
//   - a node that reuses a vertex by path and rank (of the graph, in
//     Load, or listed earlier) but gives it another type, naming the path
//     and both types;
//   - in Load (attach) only, a new node-type vertex with a rank (>= 0)
//     another node-type vertex has, naming the rank and both paths (the
//     vertices below a node share its rank, so only nodes are compared;
//     Read leaves a document's ranks alone).
//
// Older documents that list each containment edge in both directions
// (parent to child, then child to parent with the relation "in"), as
// fluxion-go's own test data does, load in both readers: Fluxion's keeps
// both edges, the strict reader skips each upward edge (one whose target
// path is its source path's parent) once it checked the downward edge is
// there, and builds the tree (see Options.Fluxion).
//
// Before that, it reports the same errors as Fluxion's, in the same order.
// A Document remembers the Options it was parsed with, and Load applies
// them (Options.Load overrides them).
//
// # Limits
//
// Options.MaxInputBytes (default DefaultMaxInputBytes, 1 GiB) bounds the
// document; ReadFile reads no further. Options.MaxVertices (default
// DefaultMaxVertices, 2^23) bounds the nodes a document may list and the
// vertices one read or load may create. Exceeding one gives an *Error
// naming the node, that wraps ErrLimit; the rest of the document is then
// only checked for syntax (a syntax error still wins, as in Fluxion, which
// parses the whole document first). Memory is linear in the input: no
// recursion depends on the input beyond jansson's nesting limit of 2048.
//
// Parse is a pure format layer: it checks every node and edge and applies
// the defaults (uniq_id from the outer id with C strtoll semantics, id from
// the trailing digits of a node's name, name = basename + id, the
// sentinels uniq_id -1, id -2 and size -1 meaning "absent"). Load
// validates the whole document against the graph before it changes
// anything, so a failed Load (e.g. an attach bringing a second root)
// leaves the graph exactly as it was, without cloning it. An edge is
// created only when one of its endpoints was created by this load.
//
// Every reader error is an *Error. Error() names the node (index and id),
// the edge (index) or the JSON position; Fluxion() is the exact text
// Fluxion's reader reports, e.g.
// "fill_fetcher: malformed metadata in an JGF node for 1\n". The JSON
// layer reproduces jansson 2.14's json_loads (what Fluxion parses with):
// the same documents are accepted, with the same error texts, lines and
// columns ("']' expected near end of file: <string>@2:0"), a NUL byte
// ends the input, and a repeated object key keeps its first position and
// its last value.
//
// # Reader decisions where the specification is silent
//
//   - A non-array "nodes" or "edges" counts as empty (jansson's
//     json_array_size); a node whose "id" is not a string gets the "id key
//     is not found" error; a "metadata" that is not an object, a JSON null
//     for any typed metadata key, and a path value that is not a string are
//     "malformed metadata".
//   - An empty "basename" or "name" counts as absent (like the numeric
//     sentinels), so the defaults apply.
//   - Where Fluxion aborts with an uncaught exception (a property value
//     that is not a string; a uniq_id inferred from the outer id, or a node
//     id inferred from its name's digits, beyond 64 bits) an *Error with
//     Crash set is returned; its Fluxion() text is modelled on Fluxion's
//     messages but never printed by Fluxion.
//   - An edge "metadata" that is not an object, or a "subsystem" that is
//     not a string, makes the edge malformed.
//   - Duplicate node ids are checked when a node creates a vertex; a node
//     that reuses a vertex just (re)maps its id. "Newly created" (the edge
//     rule) is a property of the JGF node that created the vertex: a
//     later node mapped to the same vertex does not count as new.
//   - The (source, target uniq_id) key of Fluxion's out-edge map ignores
//     the subsystem, so two edges from one source to targets sharing a
//     uniq_id collide even in different subsystems. Against existing
//     edges (attach) every out-edge of the source counts; edge weights
//     changed by a matcher are not considered.
//   - Pool sizes are unsigned 32-bit numbers: in Fluxion mode Load
//     stores int64(uint32(size)), so negative sizes wrap (the strict
//     reader refuses them).
//   - Types and path subsystems of every node (created or reused) are
//     interned in node order; an edge's subsystem when the edge is created.
//   - "free_ranks" is kept as a raw string (Document.FreeRanks) and not
//     validated.
//
// # Writing
//
// A Writer receives the vertices and edges of one match (or find) from the
// matcher in emission order and Render prints
//
//	{"graph": {"nodes": [V, ...], "edges": [E, ...]}}
//
// on one line, in jansson's compact style (": " and ", " separators, keys
// in insertion order), followed by a newline. Each node is
// {"id": "<uniq_id>", "metadata": {...}} with the metadata keys type,
// basename (only if it differs from the type), name (only if it differs
// from basename+id), id, rank, properties (only if any), unit (only if
// set), exclusive (only if true), size (the units taken, only if not 1),
// paths (subsystem → path, in subsystem interning order, omitted when the
// vertex has none), ephemeral (the jobspec label, only if any) and
// agfilter (find's agfilter figures, only if any); VertexJSON renders one.
// Each edge is {"source": "<uniq_id>", "target": "<uniq_id>"}, plus
// {"metadata": {"subsystem": ...}} for edges outside containment. Edges
// follow the emission order of their child's subtree.
//
// The shorthand writer (NewShorthandWriter) leaves out every vertex and
// edge whose parent was taken exclusively (the exclusive parent stands for
// its whole subtree) and then adds "writer": "fluxion:jgf_shorthand" after
// "graph". As in Fluxion, the key is sticky: once a rendering of the
// writer left something out, every later rendering of the same writer
// carries it, even one that leaves nothing out (use a fresh writer per
// rendering to get the key only where something was left out).
//
// # Rendering quirks kept from Fluxion
//
// Nothing pending renders as "" with no error. Vertices without edges, or
// edges without vertices (a single-vertex find), cannot be rendered:
// Render returns ErrSingleVertex and keeps the content, which is then
// prepended to the next rendering of the same writer. JSON renders without
// the trailing newline, for embedding in the rv1 formats.
package jgf
