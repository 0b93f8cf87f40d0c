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
// "graph".
//
// # Rendering quirks kept from Fluxion
//
// Nothing pending renders as "" with no error. Vertices without edges, or
// edges without vertices (a single-vertex find), cannot be rendered:
// Render returns ErrSingleVertex and keeps the content, which is then
// prepended to the next rendering of the same writer. JSON renders without
// the trailing newline, for embedding in the rv1 formats.
package jgf
