package jgf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// builder applies Fluxion's loading rules (spec formats.md §2, traversal.md
// §14.5) node by node, then edge by edge, reporting errors in Fluxion's
// order. It works in one of two modes:
//
//   - direct: every vertex and edge is added to g at once. Read uses it on
//     a new graph, which it drops on error.
//   - deferred: the whole document is checked against g first, and
//     applied only if it is valid, so that a failed Load leaves g exactly
//     as it was (no clone, no rollback).
type builder struct {
	g      *graph.Graph
	opts   Options
	direct bool
	// own: the strings of the nodes are already the graph's (direct
	// decoding made them); otherwise they are interned or copied.
	own  bool
	strs *strs
	doc  *Document // deferred mode: the document being loaded

	n0      graph.VertexID // vertices of g before
	e0      graph.EdgeID   // edges of g before
	created int

	// Node ids. Those written as canonical decimals below maxDense are
	// looked up in a slice, other decimals and other strings in maps.
	dense    []ref
	maxDense int64
	idNum    map[int64]ref
	idStr    map[string]ref

	// deferred mode
	prov     map[string]int32 // subsystem numbers interning would give
	chains   map[string]chain // new vertices by path, in creation order
	entries  []pathEntry
	newRoots map[string]bool
	newNodes []int32 // node index of each new vertex
	planned  []plannedEdge

	// Fluxion's out-edge map: (source, target uniq_id). In direct mode
	// a source whose targets come in increasing uniq_id order (the usual
	// case) needs no map: outMode and outLast per vertex tell.
	outSeen map[outKey]struct{}
	oldOuts map[graph.VertexID]bool // sources whose edges are in outSeen
	outMode []uint8                 // direct mode: outNone, outRising, outMapped
	outLast []int64                 // the largest target uniq_id so far

	// strict checks
	parentNew []graph.VertexID // containment parent of each new vertex
	nodeNew   []int32          // document index of each new vertex
	parentOld map[graph.VertexID]graph.VertexID
	nodeRanks map[int64]graph.VertexID // deferred mode: new node-type vertices by rank
	ups       []upEdge                 // upward containment edges skipped
	edgeDoc   []int32                  // direct mode: document index of each new edge

	paths  []keyedPath
	hints  []graph.PathHint // direct mode: of paths, for AddVertexHinted
	vpaths []graph.Path     // block the vertices' paths are cut from
	vprops []graph.Property

	// the last type and subsystem interned (direct mode), which come
	// again and again
	lastType   string
	lastTypeID graph.TypeID
	lastSub    string
	lastSubID  int32
	haveLast   [2]bool
}

type ref struct {
	v     graph.VertexID
	isNew bool // created by the node this id belongs to
	ok    bool // in use (the dense table)
}

const (
	outNone = iota
	outRising
	outMapped
)

type chain struct{ head, tail int32 }

type pathEntry struct {
	v    int32 // new vertex number (v - n0)
	next int32
	rank int64
}

type outKey struct {
	src  graph.VertexID
	uniq int64
}

// upEdge is a containment edge from a vertex to its parent by path, as
// older JGF writers listed next to each parent-to-child edge: the strict
// reader skips it, and checks at the end that the downward edge is there.
type upEdge struct {
	doc      int32
	src, dst graph.VertexID
}

type plannedEdge struct {
	src, dst graph.VertexID
	sub      string
	subID    int32 // provisional subsystem number
	doc      int32 // index in the document
}

// keyedPath is a path with its (provisional) subsystem number.
type keyedPath struct {
	key  int32
	root bool // the path has one '/'
	Path
}

// newBuilder returns a builder into g. maxDense bounds the dense id table
// (so that its memory is bounded by the document's size).
func newBuilder(g *graph.Graph, opts Options, direct bool, s *strs, maxDense int64) *builder {
	b := &builder{
		g: g, opts: opts, direct: direct, strs: s,
		n0:       graph.VertexID(g.NumVertices()),
		e0:       graph.EdgeID(g.NumEdges()),
		maxDense: maxDense,
		idNum:    map[int64]ref{},
		idStr:    map[string]ref{},
		outSeen:  map[outKey]struct{}{},
		oldOuts:  map[graph.VertexID]bool{},
	}
	if !direct {
		b.prov = map[string]int32{}
		b.chains = map[string]chain{}
		b.newRoots = map[string]bool{}
	}
	if !opts.Fluxion {
		b.parentOld = map[graph.VertexID]graph.VertexID{}
		b.nodeRanks = map[int64]graph.VertexID{}
	}
	return b
}

// numericID reports whether a node id is a canonical decimal number (no
// sign, no leading zero, at most 18 digits), and its value: such ids are
// kept in a map with integer keys.
func numericID[T string | []byte](s T) (int64, bool) {
	if len(s) == 0 || len(s) > 18 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func (b *builder) lookupNum(n int64) (ref, bool) {
	if n < b.maxDense {
		if n < int64(len(b.dense)) {
			return b.dense[n], b.dense[n].ok
		}
		return ref{}, false
	}
	r, ok := b.idNum[n]
	return r, ok
}

func (b *builder) lookup(id string) (ref, bool) {
	if n, ok := numericID(id); ok {
		return b.lookupNum(n)
	}
	r, ok := b.idStr[id]
	return r, ok
}

func (b *builder) lookupBytes(id []byte) (ref, bool) {
	if n, ok := numericID(id); ok {
		return b.lookupNum(n)
	}
	r, ok := b.idStr[string(id)]
	return r, ok
}

func (b *builder) setID(id string, r ref) {
	r.ok = true
	n, ok := numericID(id)
	switch {
	case !ok:
		b.idStr[id] = r
	case n < b.maxDense:
		if n >= int64(len(b.dense)) {
			b.dense = slices.Grow(b.dense, int(min(max(n+1, 2*int64(len(b.dense)), 1024), b.maxDense))-len(b.dense))
			b.dense = b.dense[:cap(b.dense)]
		}
		b.dense[n] = r
	default:
		b.idNum[n] = r
	}
}

// subID returns the number of subsystem name: in direct mode it is
// interned; in deferred mode the number interning would give it.
func (b *builder) subID(name string) int32 {
	if b.direct {
		if !b.haveLast[1] || name != b.lastSub {
			b.lastSub, b.lastSubID, b.haveLast[1] = name, int32(b.g.Subsystem(name)), true
		}
		return b.lastSubID
	}
	if id, ok := b.g.Subsystems.Lookup(name); ok {
		return id
	}
	id, ok := b.prov[name]
	if !ok {
		id = int32(b.g.Subsystems.Len() + len(b.prov))
		b.prov[name] = id
	}
	return id
}

// typeID interns a type name.
func (b *builder) typeID(name string) graph.TypeID {
	if !b.haveLast[0] || name != b.lastType {
		b.lastType, b.lastTypeID, b.haveLast[0] = name, b.g.Type(name), true
	}
	return b.lastTypeID
}

// sortPaths sorts paths by subsystem number, stably (insertion sort: a
// vertex has a path or two).
func sortPaths(p []keyedPath) {
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].key < p[j-1].key; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}

// oneSlash reports whether a path has exactly one '/' (a root's path).
func oneSlash(p string) bool {
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			if n++; n > 1 {
				return false
			}
		}
	}
	return n == 1
}

// node handles JGF node i.
func (b *builder) node(i int, n *Node) *Error {
	if n.err != nil {
		return n.err
	}
	if !b.opts.Fluxion {
		if err := checkSize(i, n); err != nil { // a Document made by hand
			return err
		}
	}
	m := &n.Metadata
	g := b.g
	if b.direct {
		b.typeID(m.Type) // types are interned in node order, reused or not
	}
	// Paths in subsystem interning order (the order of Fluxion's path
	// map).
	b.paths = b.paths[:0]
	for _, p := range m.Paths {
		b.paths = append(b.paths, keyedPath{b.subID(p.Subsystem), oneSlash(p.Path), p})
	}
	sortPaths(b.paths)

	found, at := graph.NoVertex, ""
	if b.direct {
		b.hints = slices.Grow(b.hints[:0], len(b.paths))[:len(b.paths)]
	}
search:
	for k, kp := range b.paths {
		var vs []graph.VertexID
		if b.direct {
			vs = g.ByPathHint(kp.Path.Path, &b.hints[k])
		} else {
			vs = g.ByPath(kp.Path.Path)
		}
		for _, v := range vs {
			if g.V(v).Rank == m.Rank {
				found, at = v, kp.Path.Path
				break search
			}
		}
		if c, ok := b.chains[kp.Path.Path]; ok {
			for k := c.head; k >= 0; k = b.entries[k].next {
				if b.entries[k].rank == m.Rank {
					found, at = b.n0+graph.VertexID(b.entries[k].v), kp.Path.Path
					break search
				}
			}
		}
	}
	if found != graph.NoVertex {
		if !b.opts.Fluxion {
			if t := b.typeOf(found); t != m.Type {
				return strictNodeErr(i, n.ID, "path "+at+" is a "+t+" already, not a "+m.Type,
					"add_vtx: vertex at "+at+" is a "+t+", not a "+m.Type+" for "+n.ID+".\n")
			}
		}
		b.setID(n.ID, ref{v: found})
		return nil
	}
	if _, dup := b.lookup(n.ID); dup {
		return nodeErr(i, n.ID, "duplicate node id", "add_vtx: found duplicate JGF node id for "+n.ID+".\n")
	}
	if b.created >= b.opts.maxVertices() {
		return b.opts.verticesLimitErr(i, n.ID)
	}
	for _, kp := range b.paths {
		if !kp.root {
			continue
		}
		var taken bool
		if b.direct {
			taken = g.Root(graph.SubsystemID(kp.key)) != graph.NoVertex
		} else {
			taken = b.newRoots[kp.Subsystem]
			if s, ok := g.Subsystems.Lookup(kp.Subsystem); ok && g.Root(graph.SubsystemID(s)) != graph.NoVertex {
				taken = true
			}
			b.newRoots[kp.Subsystem] = true
		}
		if taken {
			return nodeErr(i, n.ID, "a second root for subsystem "+kp.Subsystem+" (path "+kp.Path.Path+")",
				"add_graph_metadata: failed to add root metadata for "+kp.Subsystem+" subsystem. Possible duplicate root.\n")
		}
	}
	if !b.opts.Fluxion && !b.direct && m.Rank >= 0 && m.Type == nodeType {
		if err := b.rankTaken(i, n, m); err != nil {
			return err
		}
	}
	k := b.created
	v := b.n0 + graph.VertexID(k)
	b.created++
	b.setID(n.ID, ref{v: v, isNew: true})
	if !b.opts.Fluxion {
		b.parentNew = append(b.parentNew, graph.NoVertex)
		b.nodeNew = append(b.nodeNew, int32(i))
		if !b.direct && m.Rank >= 0 && m.Type == nodeType {
			b.nodeRanks[m.Rank] = v
		}
	}
	if b.direct {
		if got := g.AddVertexHinted(b.vertex(m, b.paths), b.hints); got != v {
			panic("jgf: vertex numbering out of step") // broken invariant
		}
		for _, kp := range b.paths {
			if kp.root {
				_ = g.SetRoot(graph.SubsystemID(kp.key), v) // checked above
			}
		}
		return nil
	}
	for _, p := range m.Paths {
		c, ok := b.chains[p.Path]
		e := int32(len(b.entries))
		switch {
		case !ok:
			b.chains[p.Path] = chain{e, e}
		case b.entries[c.tail].v == int32(k):
			continue // the same path in two subsystems
		default:
			b.entries[c.tail].next = e
			b.chains[p.Path] = chain{c.head, e}
		}
		b.entries = append(b.entries, pathEntry{v: int32(k), next: -1, rank: m.Rank})
	}
	b.newNodes = append(b.newNodes, int32(i))
	return nil
}

const nodeType = "node"

// typeOf returns the type of vertex v, old or new.
func (b *builder) typeOf(v graph.VertexID) string {
	if v < b.n0 || b.direct {
		return b.g.TypeName(v)
	}
	return b.doc.Nodes[b.newNodes[v-b.n0]].Metadata.Type
}

// pathOf returns the containment path of vertex v, old or new, or its
// first path if it has none in containment.
func (b *builder) pathOf(v graph.VertexID) (string, bool) {
	if v < b.n0 || b.direct {
		ps := b.g.V(v).Paths
		for _, p := range ps {
			if p.Subsystem == graph.Containment {
				return p.Path, true
			}
		}
		if len(ps) > 0 {
			return ps[0].Path, false
		}
		return "", false
	}
	ps := b.doc.Nodes[b.newNodes[v-b.n0]].Metadata.Paths
	for _, p := range ps {
		if p.Subsystem == containment {
			return p.Path, true
		}
	}
	if len(ps) > 0 {
		return ps[0].Path, false
	}
	return "", false
}

// rankTaken is the strict Load's check (attach) that a new node-type
// vertex takes a rank no other node-type vertex has: a rank is one node
// (the vertices below a node share its rank, so only nodes are compared).
// Read does not check it: a document's ranks are its own business, and
// the writer's round trips carry any ranks.
func (b *builder) rankTaken(i int, n *Node, m *Metadata) *Error {
	other := graph.NoVertex
	for _, v := range b.g.ByRank(m.Rank) {
		if b.g.V(v).Type == graph.TypeNode {
			other = v
			break
		}
	}
	if other == graph.NoVertex && !b.direct {
		if v, ok := b.nodeRanks[m.Rank]; ok {
			other = v
		}
	}
	if other == graph.NoVertex {
		return nil
	}
	rank := strconv.FormatInt(m.Rank, 10)
	path := ""
	for _, p := range m.Paths {
		if p.Subsystem == containment || path == "" {
			path = p.Path
		}
	}
	op, _ := b.pathOf(other)
	return strictNodeErr(i, n.ID, "node "+path+" has rank "+rank+", which node "+op+" has already",
		"add_vtx: rank "+rank+" of node "+path+" already belongs to node "+op+" for "+n.ID+".\n")
}

// orphans is the strict reader's check that every new vertex with a
// containment path is either the containment root (a path with one '/')
// or some vertex's containment child: any other would be added out of
// reach of every traversal, yet found by path and rank.
func (b *builder) orphans() *Error {
	for k, parent := range b.parentNew {
		if parent != graph.NoVertex {
			continue
		}
		v := b.n0 + graph.VertexID(k)
		path, ok := b.pathOf(v)
		if !ok || oneSlash(path) {
			continue
		}
		return strictNodeErr(int(b.nodeNew[k]), "", "vertex "+b.name(v)+" (path "+path+") is neither the containment root nor any vertex's containment child",
			"unpack_vtx: "+b.name(v)+" ("+path+") has no containment parent.\n")
	}
	return nil
}

// strictEnd runs the strict reader's checks of the whole document.
func (b *builder) strictEnd() *Error {
	if err := b.cycles(); err != nil {
		return err
	}
	if err := b.upwardPairs(); err != nil {
		return err
	}
	return b.orphans()
}

// upward reports whether a containment edge from s to t points from a
// vertex to its parent by their containment paths (t's path is s's path
// without its last element).
func (b *builder) upward(s, t graph.VertexID) bool {
	ps, ok1 := b.pathOf(s)
	pt, ok2 := b.pathOf(t)
	if !ok1 || !ok2 || pt == "" || len(ps) <= len(pt)+1 || ps[len(pt)] != '/' || ps[:len(pt)] != pt {
		return false
	}
	return !strings.Contains(ps[len(pt)+1:], "/")
}

// containmentParent returns v's containment parent as loaded so far.
func (b *builder) containmentParent(v graph.VertexID) graph.VertexID {
	if v >= b.n0 {
		return b.parentNew[v-b.n0]
	}
	if p, ok := b.parentOld[v]; ok {
		return p
	}
	for _, h := range b.g.In(v) {
		if h.Subsystem == graph.Containment {
			return h.Other
		}
	}
	return graph.NoVertex
}

// upwardPairs checks that every upward containment edge skipped has its
// downward edge: a two-way list is one tree; an upward edge alone would
// turn the tree over.
func (b *builder) upwardPairs() *Error {
	for _, u := range b.ups {
		if b.containmentParent(u.src) == u.dst {
			continue
		}
		return strictEdgeErr(int(u.doc), "an upward containment edge "+b.name(u.src)+" -> "+b.name(u.dst)+" (from a vertex to its parent by path) without the edge "+b.name(u.dst)+" -> "+b.name(u.src),
			"unpack_edge: upward containment edge "+b.name(u.src)+" -> "+b.name(u.dst)+" without its downward edge.\n")
	}
	return nil
}

// vertex makes the vertex of a new node; paths are its paths sorted by
// subsystem, with their subsystem numbers.
func (b *builder) vertex(m *Metadata, paths []keyedPath) graph.Vertex {
	vx := graph.Vertex{
		Type:     b.typeID(m.Type),
		Status:   m.Status,
		Rank:     m.Rank,
		ID:       m.ID,
		UniqID:   m.UniqID,
		Size:     int64(uint32(m.Size)), // pool sizes are unsigned 32-bit (the strict reader refused others)
		Basename: m.Basename,
		Name:     m.Name,
	}
	if !b.own {
		vx.Basename = b.strs.internString(m.Basename)
		vx.Name = b.strs.internString(m.Name)
	}
	if n := len(m.Properties); n > 0 {
		if cap(b.vprops)-len(b.vprops) < n {
			b.vprops = make([]graph.Property, 0, max(n, 256))
		}
		l := len(b.vprops)
		b.vprops = append(b.vprops, m.Properties...)
		props := b.vprops[l : l+n : l+n]
		if !b.own {
			for k := range props {
				p := &props[k]
				p.Key, p.Value = b.strs.internString(p.Key), b.strs.internString(p.Value)
			}
		}
		vx.SetProps(props)
	}
	if n := len(paths); n > 0 {
		if cap(b.vpaths)-len(b.vpaths) < n {
			b.vpaths = make([]graph.Path, 0, max(n, 4096))
		}
		l := len(b.vpaths)
		for _, kp := range paths {
			p := kp.Path.Path
			if !b.own {
				p = b.strs.clone(p)
			}
			b.vpaths = append(b.vpaths, graph.Path{Subsystem: graph.SubsystemID(kp.key), Path: p})
		}
		vx.Paths = b.vpaths[l : l+n : l+n]
	}
	return vx
}

func (b *builder) uniq(v graph.VertexID) int64 {
	if v < b.n0 || b.direct {
		return b.g.V(v).UniqID
	}
	return b.doc.Nodes[b.newNodes[v-b.n0]].Metadata.UniqID
}

func (b *builder) name(v graph.VertexID) string {
	if v < b.n0 || b.direct {
		return b.g.V(v).Name
	}
	return b.doc.Nodes[b.newNodes[v-b.n0]].Metadata.Name
}

// edgeOf handles edge j of a Document.
func (b *builder) edgeOf(j int, e *Edge) *Error {
	if e.err != nil {
		return e.err
	}
	s, ok1 := b.lookup(e.Source)
	t, ok2 := b.lookup(e.Target)
	if !ok1 || !ok2 {
		return unknownEndpoint(j, e.Source, e.Target)
	}
	return b.edge(j, s, t, e.Subsystem)
}

// edgeBytes handles edge j as decoded (direct mode).
func (b *builder) edgeBytes(j int, src, tgt []byte, sub string) *Error {
	s, ok1 := b.lookupBytes(src)
	t, ok2 := b.lookupBytes(tgt)
	if !ok1 || !ok2 {
		return unknownEndpoint(j, string(src), string(tgt))
	}
	return b.edge(j, s, t, sub)
}

func unknownEndpoint(j int, src, tgt string) *Error {
	return edgeErr(j, "unknown endpoint in edge "+src+" -> "+tgt,
		"unpack_edge: source and/or target vertex not found"+src+" -> "+tgt+".\n")
}

// edge handles edge j from s to t in subsystem sub: created when one of
// its ends was created by its node.
func (b *builder) edge(j int, s, t ref, sub string) *Error {
	if !s.isNew && !t.isNew {
		return nil
	}
	g := b.g
	if dup := b.outDup(s.v, b.uniq(t.v)); dup {
		return edgeErr(j, "duplicate edge "+b.name(s.v)+" -> "+b.name(t.v)+" (same source and target uniq_id)",
			"error inserting an edge to outedge metadata map: "+b.name(s.v)+" -> "+b.name(t.v)+"; ")
	}
	if !b.opts.Fluxion {
		if sub == containment && b.upward(s.v, t.v) {
			b.ups = append(b.ups, upEdge{int32(j), s.v, t.v})
			return nil
		}
		if err := b.strictEdge(j, s.v, t.v, sub); err != nil {
			return err
		}
	}
	if b.direct {
		g.AddEdge(s.v, t.v, graph.SubsystemID(b.subID(sub)))
		if !b.opts.Fluxion {
			b.edgeDoc = append(b.edgeDoc, int32(j))
		}
		return nil
	}
	b.planned = append(b.planned, plannedEdge{src: s.v, dst: t.v, sub: sub, subID: b.subID(sub), doc: int32(j)})
	return nil
}

// outDup records an edge from s to a target of uniq_id u in Fluxion's
// out-edge map, and reports whether it was there already.
func (b *builder) outDup(s graph.VertexID, u int64) bool {
	if b.direct {
		for int(s) >= len(b.outMode) {
			b.outMode = append(b.outMode, outNone)
			b.outLast = append(b.outLast, 0)
		}
		switch b.outMode[s] {
		case outNone:
			b.outMode[s], b.outLast[s] = outRising, u
			return false
		case outRising:
			if u > b.outLast[s] {
				b.outLast[s] = u
				return false
			}
			b.outMode[s] = outMapped // seed the map with the edges so far
			b.oldOuts[s] = false
		}
	}
	g := b.g
	if !b.oldOuts[s] && int(s) < g.NumVertices() {
		b.oldOuts[s] = true
		for _, h := range g.Out(s) {
			b.outSeen[outKey{s, g.V(h.Other).UniqID}] = struct{}{}
		}
	}
	k := outKey{s, u}
	if _, dup := b.outSeen[k]; dup {
		return true
	}
	b.outSeen[k] = struct{}{}
	return false
}

// strictEdge rejects a self-loop and a second containment parent.
func (b *builder) strictEdge(j int, s, t graph.VertexID, sub string) *Error {
	if s == t {
		return strictEdgeErr(j, "a self-loop on "+b.name(s)+" in subsystem "+sub,
			"unpack_edge: self-loop on "+b.name(s)+" in subsystem "+sub+".\n")
	}
	if sub != containment {
		return nil
	}
	parent := b.containmentParent(t)
	if parent != graph.NoVertex {
		return strictEdgeErr(j, "a second containment parent for "+b.name(t)+": "+b.name(s)+" (it is in "+b.name(parent)+")",
			"unpack_edge: "+b.name(t)+" already has a containment parent ("+b.name(parent)+"); edge from "+b.name(s)+".\n")
	}
	if t >= b.n0 {
		b.parentNew[t-b.n0] = s
	} else {
		b.parentOld[t] = s
	}
	return nil
}

// apply adds the validated document to g (deferred mode).
func (b *builder) apply() {
	g, doc := b.g, b.doc
	for i := range doc.Nodes {
		m := &doc.Nodes[i].Metadata
		g.Type(m.Type)
		for _, p := range m.Paths {
			g.Subsystem(p.Subsystem)
		}
	}
	g.Grow(max(len(b.newNodes), len(b.planned)))
	for _, i := range b.newNodes {
		m := &doc.Nodes[i].Metadata
		b.paths = b.paths[:0]
		for _, p := range m.Paths {
			b.paths = append(b.paths, keyedPath{int32(g.Subsystem(p.Subsystem)), oneSlash(p.Path), p})
		}
		sortPaths(b.paths)
		v := g.AddVertex(b.vertex(m, b.paths))
		for _, kp := range b.paths {
			if kp.root {
				if err := g.SetRoot(graph.SubsystemID(kp.key), v); err != nil {
					panic("jgf: root checked before but refused: " + err.Error()) // broken invariant
				}
			}
		}
	}
	for _, e := range b.planned {
		g.AddEdge(e.src, e.dst, g.Subsystem(b.strs.internString(e.sub)))
	}
}

// cycles is the strict reader's check that the new edges close no cycle
// in any subsystem: a depth-first search (iterative: graphs can be deep)
// from the targets of the new edges, which every such cycle goes through.
func (b *builder) cycles() *Error {
	g := b.g
	nOld := int(b.n0)
	if b.direct {
		nOld = g.NumVertices() // every vertex and edge is in g
	}
	nAll := int(b.n0) + b.created
	// The new edges, as (subsystem, source, target, document index).
	type newEdge struct {
		sub      int32
		src, dst graph.VertexID
		doc      int32
	}
	nNew := len(b.planned)
	if b.direct {
		nNew = g.NumEdges() - int(b.e0)
	}
	if nNew == 0 {
		return nil
	}
	newEdgeAt := func(k int) newEdge {
		if b.direct {
			ed := g.E(b.e0 + graph.EdgeID(k))
			return newEdge{int32(ed.Subsystem), ed.Src, ed.Dst, b.edgeDoc[k]}
		}
		p := &b.planned[k]
		return newEdge{p.subID, p.src, p.dst, p.doc}
	}
	// Planned edges by source (deferred mode): a CSR over all vertices.
	var start []int32
	var adj []int32 // indexes into planned
	if !b.direct {
		start = make([]int32, nAll+1)
		for _, e := range b.planned {
			start[e.src+1]++
		}
		for v := range nAll {
			start[v+1] += start[v]
		}
		adj = make([]int32, nNew)
		fill := make([]int32, nAll)
		for k, e := range b.planned {
			adj[start[e.src]+fill[e.src]] = int32(k)
			fill[e.src]++
		}
	}
	// The subsystems of the new edges.
	var subs []int32
	for k := range nNew {
		if e := newEdgeAt(k); !containsInt32(subs, e.sub) {
			subs = append(subs, e.sub)
		}
	}
	color := make([]uint8, nAll) // 0 white, 1 on the stack, 2 done
	var stack []dfsFrame
	for _, sub := range subs {
		clear(color)
		for k := range nNew {
			root := newEdgeAt(k)
			if root.sub != sub || color[root.dst] != 0 {
				continue
			}
			stack = append(stack[:0], dfsFrame{v: root.dst, via: -1})
			color[root.dst] = 1
			for len(stack) > 0 {
				f := &stack[len(stack)-1]
				w, via := graph.NoVertex, int32(-1)
				if int(f.v) < nOld {
					out := g.Out(f.v)
					for int(f.i) < len(out) && int32(out[f.i].Subsystem) != sub {
						f.i++
					}
					if int(f.i) < len(out) {
						h := out[f.i]
						f.i++
						w = h.Other
						if b.direct && h.Edge >= b.e0 {
							via = b.edgeDoc[h.Edge-b.e0]
						}
					}
				}
				if w == graph.NoVertex && !b.direct {
					for f.j < start[f.v+1]-start[f.v] && b.planned[adj[start[f.v]+f.j]].subID != sub {
						f.j++
					}
					if f.j < start[f.v+1]-start[f.v] {
						e := b.planned[adj[start[f.v]+f.j]]
						f.j++
						w, via = e.dst, e.doc
					}
				}
				switch {
				case w == graph.NoVertex:
					color[f.v] = 2
					stack = stack[:len(stack)-1]
				case color[w] == 0:
					color[w] = 1
					stack = append(stack, dfsFrame{v: w, via: via})
				case color[w] == 1:
					return b.cycleErr(stack, w, via, sub)
				}
			}
		}
	}
	return nil
}

// dfsFrame is a vertex on the search's stack.
type dfsFrame struct {
	v    graph.VertexID
	i, j int32 // next out-edge of g, next planned edge
	via  int32 // document index of the edge into v, or -1
}

func containsInt32(l []int32, x int32) bool {
	for _, y := range l {
		if y == x {
			return true
		}
	}
	return false
}

// cycleErr reports the cycle the search found: from w down the stack and
// back to w by the edge closing (document index). The edge named is the
// latest one of the document on the cycle.
func (b *builder) cycleErr(stack []dfsFrame, w graph.VertexID, closing, sub int32) *Error {
	k := len(stack) - 1
	for stack[k].v != w {
		k--
	}
	last := closing
	var names []string
	for _, f := range stack[k:] {
		if f.v != w {
			last = max(last, f.via)
		}
		if len(names) < 8 {
			names = append(names, b.name(f.v))
		}
	}
	if len(stack)-k > 8 {
		names = append(names, "…")
	}
	names = append(names, b.name(w))
	subName := ""
	if int(sub) < b.g.Subsystems.Len() {
		subName = b.g.SubsystemName(graph.SubsystemID(sub))
	} else {
		for name, id := range b.prov {
			if id == sub {
				subName = name
			}
		}
	}
	cyc := strings.Join(names, " -> ")
	reason := "a cycle in subsystem " + subName + ": " + cyc
	flux := "unpack_edge: cycle in subsystem " + subName + ": " + cyc + ".\n"
	if last < 0 {
		e := docErr(reason+" (already in the graph)", flux)
		e.Strict = true
		return e
	}
	return strictEdgeErr(int(last), reason, flux)
}
