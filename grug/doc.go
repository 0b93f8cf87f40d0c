// Package grug reads GRUG files (GraphML resource generation recipes, spec
// formats.md §1) into resource graphs.
//
// A GRUG document is a GraphML graph whose vertices describe resource pools
// (type, basename, size, unit, subsystem, root flag) and whose edges
// describe how to generate and connect them (gen_method MULTIPLY,
// ASSOCIATE_IN or ASSOCIATE_BY_PATH_IN, multi_scale, id_scope, id_start,
// id_stride, e_subsystem, ...). The recipe is expanded by a depth-first walk
// that visits the recipe vertices in document order and the out-edges of
// each in document order; every tree edge generates vertices (MULTIPLY) or
// links existing ones (ASSOCIATE_*). The result reproduces Fluxion's
// generation exactly: vertex indexes (which are also the uniq_ids), names,
// per-subsystem paths, node ranks (0, 1, ... per load for type "node", -1
// otherwise), edge order and subsystems, and the order in which types and
// subsystems are interned.
//
// Read and ReadFile parse and generate into a new graph. Parse and
// (*Recipe).Generate split the two steps, for example to generate into a
// graph whose interning tables were prepared by the caller. Cluster writes
// a simple recipe for benchmarks.
//
// Read and Generate apply the default graph.ReadLimits; ReadLimited and
// GenerateLimited take others. A recipe is small but can ask for a huge
// graph: every generation step is checked against the limits on vertices
// and path bytes before it allocates, and the walk's depth before
// anything is generated, so a 5 KB recipe asking for 10^8 cores is a
// clear error, not an exhausted machine.
//
// Every error is an *Error carrying a best-effort line number and, through
// (*Error).Fluxion, the text Fluxion reports for the same failure.
//
// Decisions where the specification is silent (documented here because
// Fluxion's behaviour is not known for these inputs):
//
//   - The document must have a <graphml> root element with exactly one
//     <graph edgedefault="directed"> child; nested graphs, undirected edges,
//     duplicate node or key ids, edges to undeclared nodes, <data> with an
//     undeclared key and <data> on the <graph> element are errors. Unknown
//     elements (desc, port, ...) are skipped.
//   - A key's attribute name is its attr.name (its id when attr.name is
//     absent). A key for="all" may be used in <data> of nodes and edges but
//     cannot have a <default> (no attribute exists in both domains). A key
//     whose for does not match the element it is used on is an error.
//     attr.type must be a GraphML type but does not change how values are
//     read: root, id_scope, id_start, id_stride, multi_scale, as_tgt_uplvl
//     and as_src_uplvl are 32-bit decimal integers, size is a 64-bit decimal
//     integer (surrounding whitespace allowed); string values are used
//     verbatim.
//   - size is stored as an unsigned 32-bit number (model.md §2): larger or
//     negative values wrap.
//   - Ids are computed with 64-bit arithmetic; an as_*_uplvl below 0 acts
//     as 0.
//   - Where a path is needed in a subsystem the vertex has no path in, the
//     empty path is used (nothing is inserted into the vertex).
//   - Subsystems are interned in the order: vertex subsystems in document
//     order, then each edge's e_subsystem and as_tgt_subsystem in document
//     order.
//   - A recipe without root vertices is not an error: it generates nothing
//     (callers report the missing containment root).
package grug
