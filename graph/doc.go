// Package graph is the resource graph that gofluxion matches jobs against:
// a directed multigraph whose vertices are resource pools and whose edges
// each belong to one subsystem (spec model.md).
//
// # Where it fits
//
// A reader (package grug for GRUG GraphML recipes, or Builder for graphs
// made in code) produces a *Graph; match.New wraps it in a Matcher that
// keeps the schedule (planners, exclusivity checkers, pruning filters) in
// side tables indexed by VertexID and EdgeID, so the graph itself holds
// only the static description plus vertex status and properties. A writer
// (packages emit, jgf, rv1) reads vertex fields from the graph when it
// renders a match:
//
//	reader (grug, Builder) → *graph.Graph → match.Matcher (+ policy) → emit.Writer
//
// # Vertices and edges
//
// A Vertex is Size interchangeable units of one Type: a core (size 1), a
// memory pool (size 2, unit "GB"), a node... It carries a Name (normally
// Basename followed by the decimal ID, see DefaultName), a per-type local
// ID (-1 for none), a broker Rank (-1 when unknown), a UniqID, a Status
// (StatusUp or StatusDown), properties sorted by key (Prop, SetProp) and
// one Path per subsystem it belongs to (PathIn), e.g.
// "/tiny0/rack0/node1/socket0/core3".
//
// Vertices and edges are numbered densely in creation order (VertexID,
// EdgeID) and never renumbered: Unindex and RemoveEdge only drop edges and
// index entries, the vertex slot stays. Out-edges are kept in creation
// order (Out), which is the order every walk of the matcher uses, so the
// order in which a reader creates vertices and edges is observable in match
// results and must follow Fluxion's (spec formats.md §1.5 for GRUG).
//
// # Interned names
//
// Resource types and subsystem names are interned (Names): each distinct
// string gets a small number the first time it is seen, after a fixed
// prefix (cluster, core, socket, gpu, node, rack, slot, xor_slot, ssd,
// storage_node, "*", "" for types; containment for subsystems). Ordered
// containers keyed by type or subsystem iterate in that first-seen order,
// not alphabetically; the constants TypeCore, TypeNode, Containment... are
// valid in every graph. Lookup a type with g.Types.Lookup to learn whether
// a jobspec type is known to the graph (jobspec.Options.KnownType).
//
// # Indexes and roots
//
// ByType, ByName, ByRank and ByPath list vertices in creation order; a
// vertex appears under every one of its paths. Each subsystem has at most
// one root (Root, SetRoot); a second root is an error.
//
// # Building graphs in code
//
// NewBuilder makes a containment tree one vertex at a time: Add(parent,
// type, id, options...) gives the vertex uniq_id = its index, the path
// parent-path + "/" + name, an edge from the parent, and (like the GRUG
// reader) rank 0, 1, ... to node vertices in creation order and -1 to
// everything else, unless WithRank says otherwise. Passing NoVertex as the
// parent makes the subsystem root; a second root is rejected.
//
// A Graph is not safe for concurrent modification. Clone returns an
// independent deep copy.
package graph
