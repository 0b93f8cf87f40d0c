package graph

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// VertexID is a dense vertex index, in creation order. Readers other than
// JGF also use it as the vertex's uniq_id.
type VertexID int32

// EdgeID is a dense edge index, in creation order.
type EdgeID int32

// TypeID is an interned resource type (see Graph.Types).
type TypeID int32

// SubsystemID is an interned subsystem name (see Graph.Subsystems).
type SubsystemID int32

// NoVertex marks the absence of a vertex.
const NoVertex VertexID = -1

// Status of a vertex. Only StatusUp is matched; JGF may store any integer.
type Status int64

const (
	StatusUp   Status = 0
	StatusDown Status = 1
)

// Property is one key/value tag of a vertex.
type Property struct{ Key, Value string }

// Path is the slash-separated path of a vertex from the root of one
// subsystem, e.g. "/tiny0/rack0/node1".
type Path struct {
	Subsystem SubsystemID
	Path      string
}

// Vertex is one resource pool: Size interchangeable units of one Type.
//
// The unit and the properties, which few vertices have, live in a record
// of their own that copies of a Vertex share: the setters replace it,
// never change it.
type Vertex struct {
	Type     TypeID
	Status   Status
	Rank     int64 // broker rank, -1 when unknown
	ID       int64 // per-type local id, -1 for none
	UniqID   int64
	Size     int64
	Basename string
	Name     string
	// Paths is sorted by subsystem number (interning order). Change it
	// only through Graph.AddPath once the vertex is in a graph (the path
	// index reads it).
	Paths []Path
	ext   *vertexExt
}

// vertexExt is the rarely set part of a vertex; never changed once made.
type vertexExt struct {
	unit  string
	props []Property // sorted by key
}

// Unit returns the unit label ("" for none).
func (v *Vertex) Unit() string {
	if v.ext == nil {
		return ""
	}
	return v.ext.unit
}

// SetUnit sets the unit label.
func (v *Vertex) SetUnit(u string) {
	if u == v.Unit() {
		return
	}
	e := vertexExt{unit: u}
	if v.ext != nil {
		e.props = v.ext.props
	}
	v.setExt(e)
}

// Props returns the properties, sorted by key (byte-wise). Do not modify.
func (v *Vertex) Props() []Property {
	if v.ext == nil {
		return nil
	}
	return v.ext.props
}

// SetProps replaces the properties by l (sorted by key here if it is
// not), which the vertex keeps.
func (v *Vertex) SetProps(l []Property) {
	if !slices.IsSortedFunc(l, cmpProp) {
		l = slices.Clone(l)
		slices.SortStableFunc(l, cmpProp)
	}
	if len(l) == 0 {
		l = nil
	}
	v.setExt(vertexExt{unit: v.Unit(), props: l})
}

func cmpProp(a, b Property) int { return strings.Compare(a.Key, b.Key) }

func (v *Vertex) setExt(e vertexExt) {
	if e.unit == "" && e.props == nil {
		v.ext = nil
		return
	}
	v.ext = &e
}

// Prop returns the value of property key.
func (v *Vertex) Prop(key string) (string, bool) {
	props := v.Props()
	i, ok := slices.BinarySearchFunc(props, key, func(p Property, k string) int { return strings.Compare(p.Key, k) })
	if !ok {
		return "", false
	}
	return props[i].Value, true
}

// SetProp sets (or replaces) property key.
func (v *Vertex) SetProp(key, value string) {
	props := v.Props()
	i, ok := slices.BinarySearchFunc(props, key, func(p Property, k string) int { return strings.Compare(p.Key, k) })
	if ok && props[i].Value == value {
		return
	}
	l := make([]Property, 0, len(props)+1)
	l = append(l, props...)
	if ok {
		l[i].Value = value
	} else {
		l = slices.Insert(l, i, Property{key, value})
	}
	v.setExt(vertexExt{unit: v.Unit(), props: l})
}

// PathIn returns the vertex's path in subsystem s.
func (v *Vertex) PathIn(s SubsystemID) (string, bool) {
	for _, p := range v.Paths {
		if p.Subsystem == s {
			return p.Path, true
		}
	}
	return "", false
}

// Edge is a directed relation tagged with exactly one subsystem.
type Edge struct {
	Src, Dst  VertexID
	Subsystem SubsystemID
	dead      bool
}

// Live reports whether the edge has not been removed.
func (e *Edge) Live() bool { return !e.dead }

// Half is one entry of an adjacency list: the edge, the vertex at its other
// end and its subsystem, kept together so walks need no extra lookups.
type Half struct {
	Edge      EdgeID
	Other     VertexID
	Subsystem SubsystemID
}

// Graph is a resource graph: vertices, subsystem-tagged edges, per-subsystem
// roots and the lookup indexes of spec model.md §4. Vertex and edge ids are
// dense and never reused; removing a subgraph only drops edges and index
// entries.
type Graph struct {
	Types      *Names
	Subsystems *Names

	vertices []Vertex
	edges    []Edge
	out      adjacency  // out-edges, by vertex
	in       adjacency  // in-edges, by vertex
	roots    []VertexID // indexed by SubsystemID

	byType [][]VertexID // indexed by TypeID
	byName map[string][]VertexID
	byRank map[int64][]VertexID
	pidx   pathIndex // the path index (pathindex.go)
	// nodeRank is the next rank given to a node vertex by loaders that
	// number nodes in creation order.
	nodeRank int64
	// gen counts structural changes (vertices, edges, subsystems, vertex
	// properties set through SetProperty), so that derived orders can be
	// cached until the graph changes.
	gen uint64
}

// Gen returns the graph's generation: it changes whenever a vertex or edge
// is added, removed or retagged, or a property is set with SetProperty.
func (g *Graph) Gen() uint64 { return g.gen }

// SetProperty sets property key of v (see Vertex.SetProp) and advances the
// generation, so that matchers see the change.
func (g *Graph) SetProperty(v VertexID, key, value string) {
	g.vertices[v].SetProp(key, value)
	g.gen++
}

// New returns an empty graph with the fixed interning prefixes.
func New() *Graph {
	return &Graph{
		Types:      NewNames(typePrefix...),
		Subsystems: NewNames(subsystemPrefix...),
		byName:     make(map[string][]VertexID),
		byRank:     make(map[int64][]VertexID),
		pidx:       newPathIndex(),
	}
}

// Grow reserves room for n more vertices and edges.
func (g *Graph) Grow(n int) {
	g.vertices = slices.Grow(g.vertices, n)
	g.edges = slices.Grow(g.edges, n)
	g.out.grow(n, n)
	g.in.grow(n, n)
}

// Reserve makes room for at least vertices more vertices and edges more
// edges, for a reader that knows or estimates the size of what it builds
// (Grow reserves the same number of both).
func (g *Graph) Reserve(vertices, edges int) {
	g.vertices = slices.Grow(g.vertices, vertices)
	g.out.grow(vertices, edges)
	g.in.grow(vertices, edges)
	g.edges = slices.Grow(g.edges, edges)
}

// ReservePaths makes room for n more keys in the path index, rebuilding
// it: a reader calls it once, early, with its estimate of the vertices to
// come, which saves the index's growing step by step.
func (g *Graph) ReservePaths(n int) {
	if (g.pidx.live+n)*2 > g.pidx.slots() {
		g.resizePaths(g.pidx.live + n)
	}
}

// NumVertices is the number of vertex slots (including removed ones).
func (g *Graph) NumVertices() int { return len(g.vertices) }

// NumEdges is the number of edge slots (including removed ones).
func (g *Graph) NumEdges() int { return len(g.edges) }

// LiveVertices counts vertices that have not been removed (they are still
// in the type index).
func (g *Graph) LiveVertices() int {
	n := 0
	for _, l := range g.byType {
		n += len(l)
	}
	return n
}

// LiveEdges counts edges that have not been removed.
func (g *Graph) LiveEdges() int {
	n := 0
	for i := range g.edges {
		if !g.edges[i].dead {
			n++
		}
	}
	return n
}

// V returns vertex v. The pointer is valid until the next AddVertex.
func (g *Graph) V(v VertexID) *Vertex { return &g.vertices[v] }

// E returns edge e.
func (g *Graph) E(e EdgeID) *Edge { return &g.edges[e] }

// Out returns v's out-edges in creation order. Do not modify.
func (g *Graph) Out(v VertexID) []Half { return g.out.of(v) }

// In returns v's in-edges in creation order. Do not modify.
func (g *Graph) In(v VertexID) []Half { return g.in.of(v) }

// TypeName is the name of v's type.
func (g *Graph) TypeName(v VertexID) string { return g.Types.Name(int32(g.vertices[v].Type)) }

// SubsystemName returns the name of subsystem s.
func (g *Graph) SubsystemName(s SubsystemID) string { return g.Subsystems.Name(int32(s)) }

// Type interns a type name.
func (g *Graph) Type(name string) TypeID { return TypeID(g.Types.Intern(name)) }

// Subsystem interns a subsystem name.
func (g *Graph) Subsystem(name string) SubsystemID {
	return SubsystemID(g.Subsystems.Intern(name))
}

// Root returns the root of subsystem s, or NoVertex.
func (g *Graph) Root(s SubsystemID) VertexID {
	if s < 0 || int(s) >= len(g.roots) {
		return NoVertex
	}
	return g.roots[s]
}

// SetRoot records v as the root of subsystem s. It fails if s has a root.
func (g *Graph) SetRoot(s SubsystemID, v VertexID) error {
	for int(s) >= len(g.roots) {
		g.roots = append(g.roots, NoVertex)
	}
	if g.roots[s] != NoVertex {
		return fmt.Errorf("add_graph_metadata: failed to add root metadata for %s subsystem. Possible duplicate root.\n", g.SubsystemName(s))
	}
	g.roots[s] = v
	return nil
}

// RootSubsystems lists the subsystems that have a root, in interning order.
func (g *Graph) RootSubsystems() []SubsystemID {
	var r []SubsystemID
	for s, v := range g.roots {
		if v != NoVertex {
			r = append(r, SubsystemID(s))
		}
	}
	return r
}

// AddVertex appends v and indexes it by type, name, rank and every path.
func (g *Graph) AddVertex(v Vertex) VertexID { return g.AddVertexHinted(v, nil) }

// AddVertexHinted is AddVertex for a reader that has just looked up v's
// paths with ByPathHint: hints[i] is the hint of v.Paths[i] (a missing,
// zero or stale hint, or one for another path, is ignored), which saves hashing and searching the
// path index again.
func (g *Graph) AddVertexHinted(v Vertex, hints []PathHint) VertexID {
	id := VertexID(len(g.vertices))
	g.gen++
	g.vertices = append(g.vertices, v)
	g.out.addVertex()
	g.in.addVertex()
	for int(v.Type) >= len(g.byType) {
		g.byType = append(g.byType, nil)
	}
	g.byType[v.Type] = append(g.byType[v.Type], id)
	g.byName[v.Name] = append(g.byName[v.Name], id)
	g.byRank[v.Rank] = append(g.byRank[v.Rank], id)
	for i, p := range v.Paths {
		var h PathHint
		if i < len(hints) {
			h = hints[i]
		}
		g.indexPath(p.Path, id, i == 0, h)
	}
	return id
}

// AddPath gives v a path in subsystem s (replacing an existing one in the
// vertex, but keeping old index entries, as Fluxion does) and indexes it.
func (g *Graph) AddPath(v VertexID, s SubsystemID, path string) {
	g.releaseFirst(v) // the first path may change
	vx := &g.vertices[v]
	i, ok := slices.BinarySearchFunc(vx.Paths, s, func(p Path, s SubsystemID) int { return int(p.Subsystem - s) })
	if ok {
		vx.Paths[i].Path = path
	} else {
		vx.Paths = slices.Insert(vx.Paths, i, Path{s, path})
	}
	g.indexPath(path, v, false, PathHint{})
}

// AddEdge creates a new edge src→dst in subsystem s.
func (g *Graph) AddEdge(src, dst VertexID, s SubsystemID) EdgeID {
	e := EdgeID(len(g.edges))
	g.gen++
	g.edges = append(g.edges, Edge{Src: src, Dst: dst, Subsystem: s})
	g.out.add(src, Half{e, dst, s})
	g.in.add(dst, Half{e, src, s})
	return e
}

// FindEdge returns the first live edge src→dst in any subsystem.
func (g *Graph) FindEdge(src, dst VertexID) (EdgeID, bool) {
	for _, h := range g.out.of(src) {
		if h.Other == dst {
			return h.Edge, true
		}
	}
	return -1, false
}

// SetEdgeSubsystem retags edge e (GRUG reuses an existing edge this way).
func (g *Graph) SetEdgeSubsystem(e EdgeID, s SubsystemID) {
	ed := &g.edges[e]
	g.gen++
	ed.Subsystem = s
	g.out.retag(ed.Src, e, s)
	g.in.retag(ed.Dst, e, s)
}

// RemoveEdge deletes edge e from both adjacency lists.
func (g *Graph) RemoveEdge(e EdgeID) {
	ed := &g.edges[e]
	if ed.dead {
		return
	}
	ed.dead = true
	g.gen++
	g.out.remove(ed.Src, e)
	g.in.remove(ed.Dst, e)
}

// Unindex removes v's edges and index entries (its slot stays allocated):
// all path keys of v are deleted whole, and v's first occurrence in the
// type, name and rank indexes is removed (spec traversal.md §14.4).
func (g *Graph) Unindex(v VertexID) {
	for out := g.Out(v); len(out) > 0; out = g.Out(v) {
		g.RemoveEdge(out[0].Edge)
	}
	for in := g.In(v); len(in) > 0; in = g.In(v) {
		g.RemoveEdge(in[0].Edge)
	}
	g.gen++
	vx := &g.vertices[v]
	for _, p := range vx.Paths {
		g.unindexPath(p.Path)
	}
	removeFirst := func(l []VertexID) []VertexID {
		if i := slices.Index(l, v); i >= 0 {
			return slices.Delete(l, i, i+1)
		}
		return l
	}
	g.byType[vx.Type] = removeFirst(g.byType[vx.Type])
	g.byName[vx.Name] = removeFirst(g.byName[vx.Name])
	g.byRank[vx.Rank] = removeFirst(g.byRank[vx.Rank])
	for s := range g.roots {
		if g.roots[s] == v {
			g.roots[s] = NoVertex
		}
	}
}

// ByType lists vertices of type t in creation order.
func (g *Graph) ByType(t TypeID) []VertexID {
	if t < 0 || int(t) >= len(g.byType) {
		return nil
	}
	return g.byType[t]
}

// ByName lists vertices named name.
func (g *Graph) ByName(name string) []VertexID { return g.byName[name] }

// ByRank lists vertices of rank r.
func (g *Graph) ByRank(r int64) []VertexID { return g.byRank[r] }

// HasRank reports whether the rank index has an entry for r. A rank whose
// vertices were all removed keeps its (empty) entry, as in Fluxion.
func (g *Graph) HasRank(r int64) bool {
	_, ok := g.byRank[r]
	return ok
}

// ByPath lists vertices at path p (in any subsystem).
func (g *Graph) ByPath(p string) []VertexID { return g.lookupPath(p) }

// ByPathHint is ByPath that also sets *h, for a reader that may add a
// vertex with path p right after (AddVertexHinted).
func (g *Graph) ByPathHint(p string, h *PathHint) []VertexID { return g.lookupPathHint(p, h) }

// Ranks returns the rank keys of the rank index in ascending order.
func (g *Graph) Ranks() []int64 {
	r := make([]int64, 0, len(g.byRank))
	for k := range g.byRank {
		r = append(r, k)
	}
	slices.Sort(r)
	return r
}

// IndexSizes returns the number of keys of the type, name and path indexes.
func (g *Graph) IndexSizes() (types, names, paths int) {
	for _, l := range g.byType {
		if l != nil {
			types++
		}
	}
	return types, len(g.byName), g.pathKeys()
}

// NextNodeRank returns the next per-load node rank (GRUG and hwloc number
// node vertices 0, 1, ... in creation order).
func (g *Graph) NextNodeRank() int64 {
	r := g.nodeRank
	g.nodeRank++
	return r
}

// ResetNodeRanks restarts the per-load node rank counter.
func (g *Graph) ResetNodeRanks() { g.nodeRank = 0 }

// DefaultName is basename followed by the decimal id, or the basename alone
// when id is -1.
func DefaultName(basename string, id int64) string {
	if id == -1 {
		return basename
	}
	return basename + strconv.FormatInt(id, 10)
}

// Clone returns a deep copy of the graph. The copies of the many small
// per-vertex slices are carved from a few large arrays (with their
// capacity capped, so later appends reallocate rather than overlap).
func (g *Graph) Clone() *Graph {
	c := &Graph{
		Types:      g.Types.clone(),
		Subsystems: g.Subsystems.clone(),
		vertices:   slices.Clone(g.vertices),
		edges:      slices.Clone(g.edges),
		out:        g.out.clone(),
		in:         g.in.clone(),
		roots:      slices.Clone(g.roots),
		byType:     cloneLists(g.byType),
		byName:     cloneIndex(g.byName),
		byRank:     cloneIndex(g.byRank),
		pidx:       g.pidx.clone(),
		nodeRank:   g.nodeRank,
		gen:        g.gen,
	}
	// Units and properties are shared (never changed in place).
	nq := 0
	for i := range g.vertices {
		nq += len(g.vertices[i].Paths)
	}
	paths := make([]Path, 0, nq)
	for i := range c.vertices {
		v := &c.vertices[i]
		if len(v.Paths) > 0 {
			paths = append(paths, v.Paths...)
			v.Paths = paths[len(paths)-len(v.Paths) : len(paths) : len(paths)]
		}
	}
	return c
}

// cloneLists copies a slice of slices into one backing array.
func cloneLists[T any](l [][]T) [][]T {
	n := 0
	for _, x := range l {
		n += len(x)
	}
	all := make([]T, 0, n)
	out := make([][]T, len(l))
	for i, x := range l {
		if x == nil {
			continue
		}
		all = append(all, x...)
		out[i] = all[len(all)-len(x) : len(all) : len(all)]
	}
	return out
}

// cloneIndex copies an index map, its lists carved from one array.
func cloneIndex[K comparable](m map[K][]VertexID) map[K][]VertexID {
	n := 0
	for _, l := range m {
		n += len(l)
	}
	all := make([]VertexID, 0, n)
	c := make(map[K][]VertexID, len(m))
	for k, l := range m {
		all = append(all, l...)
		c[k] = all[len(all)-len(l) : len(all) : len(all)]
	}
	return c
}

// MaxDepth is the hard ceiling on the depth of a resource graph (edges from
// a subsystem root to its deepest vertex) that the matcher walks: its walks
// recurse once per level, so no graph, however it was built, may make that
// recursion unbounded. Readers refuse deeper inputs much earlier, by
// default at DefaultMaxDepth (ReadLimits.MaxDepth); a reader limit raised
// above MaxDepth still meets this one when the graph is matched.
const MaxDepth = 1 << 14

// Depth returns the length of the longest path from the root of subsystem
// s following edges of s, or -1 if s has no root. It walks iteratively
// and tolerates cycles (a vertex is expanded once).
func (g *Graph) Depth(s SubsystemID) int {
	root := g.Root(s)
	if root == NoVertex {
		return -1
	}
	depth := make([]int32, len(g.vertices))
	for i := range depth {
		depth[i] = -1
	}
	depth[root] = 0
	// Every vertex enters the queue once: one array, read from the front.
	queue := make([]VertexID, 1, len(g.vertices))
	queue[0] = root
	max := 0
	for head := 0; head < len(queue); head++ {
		v := queue[head]
		for _, h := range g.out.of(v) {
			if h.Subsystem != s || depth[h.Other] >= 0 {
				continue
			}
			depth[h.Other] = depth[v] + 1
			if int(depth[h.Other]) > max {
				max = int(depth[h.Other])
			}
			queue = append(queue, h.Other)
		}
	}
	return max
}
