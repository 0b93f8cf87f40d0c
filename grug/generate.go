package grug

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Generate expands the recipe into g (spec formats.md §1.2–§1.4), after
// interning the types and subsystems of the recipe in document order and
// restarting g's node-rank counter. Vertices are appended after any that g
// already has; a subsystem that already has a root in g keeps it (recipe
// roots of that subsystem reuse it).
//
// An unknown generation method on a tree edge of the walk, and a walk
// nested deeper than the default graph.ReadLimits allow, are detected
// before g is touched. The failures found during generation (exceeding
// the default limits on vertices and path bytes, which is checked before
// each step allocates; an id computation that would divide by zero) leave
// g partially generated (Fluxion itself would crash or exhaust memory).
// Read never exposes such a graph.
func (r *Recipe) Generate(g *graph.Graph) error { return r.GenerateLimited(g, graph.ReadLimits{}) }

// GenerateLimited is Generate under the limits l (zero fields take the
// defaults; MaxInputBytes is not used): at most l.MaxVertices vertices
// (and as many vertex pairs examined by ASSOCIATE edges), a generation
// walk at most l.MaxDepth deep and at most l.MaxPathBytes bytes of paths.
// Each step is checked before it allocates, so a recipe asking for 10^8
// cores fails at once.
func (r *Recipe) GenerateLimited(g *graph.Graph, l graph.ReadLimits) error {
	if r.unknown > 0 {
		return &Error{
			Line:    r.unknownLine,
			Reason:  fmt.Sprintf("unknown generation method on %d tree edge(s)", r.unknown),
			fluxion: strings.Repeat(fluxionUnknownMethod, r.unknown),
		}
	}
	l = l.WithDefaults()
	if err := r.checkDepth(l.MaxDepth); err != nil {
		return err
	}
	gn := generator{r: r, g: g, vertices: int64(l.MaxVertices), pathBytes: l.MaxPathBytes,
		maxVertices: int64(l.MaxVertices), maxPathBytes: l.MaxPathBytes}
	gn.intern()
	g.ResetNodeRanks()
	return gn.run()
}

// checkDepth rejects a generation walk nested more than max edges deep
// (the depth of the generated graph below its roots).
func (r *Recipe) checkDepth(limit int) error {
	depth := 0
	for _, ev := range r.events {
		if ev < 0 {
			depth = max(depth-1, 0)
			continue
		}
		if depth++; depth > limit {
			return limitErr(r.rels[ev].line, fmt.Sprintf("the recipe nests deeper than %d levels (the depth limit graph.ReadLimits.MaxDepth)", limit))
		}
	}
	return nil
}

type generator struct {
	r *Recipe
	g *graph.Graph

	types  []graph.TypeID      // per recipe vertex
	subs   []graph.SubsystemID // per recipe vertex
	eSubs  []graph.SubsystemID // per recipe edge
	asSubs []graph.SubsystemID // per recipe edge

	gen    [][]graph.VertexID // generated vertices per recipe vertex
	scales []int64            // the scales deque; its front is the slice end

	// what the limits still allow: vertices (and ASSOCIATE pairs), and
	// bytes of paths
	vertices, pathBytes       int64
	maxVertices, maxPathBytes int64

	// scratch space of one MULTIPLY step
	buf   []byte
	spans []span
}

// span locates one generated path (and its name suffix) in the batch buffer.
type span struct {
	start, name, end int
	id               int64
}

// intern interns types then subsystems in document order: every recipe
// vertex's type and subsystem, then every recipe edge's e_subsystem and
// as_tgt_subsystem.
func (gn *generator) intern() {
	r, g := gn.r, gn.g
	gn.types = make([]graph.TypeID, len(r.pools))
	gn.subs = make([]graph.SubsystemID, len(r.pools))
	gn.eSubs = make([]graph.SubsystemID, len(r.rels))
	gn.asSubs = make([]graph.SubsystemID, len(r.rels))
	for i := range r.pools {
		gn.types[i] = g.Type(r.pools[i].typ)
	}
	for i := range r.pools {
		gn.subs[i] = g.Subsystem(r.pools[i].subsystem)
	}
	for i := range r.rels {
		gn.eSubs[i] = g.Subsystem(r.rels[i].eSubsystem)
		gn.asSubs[i] = g.Subsystem(r.rels[i].asTgtSubsystem)
	}
	gn.gen = make([][]graph.VertexID, len(r.pools))
}

func (gn *generator) run() error {
	r := gn.r
	for _, ev := range r.events {
		if ev < 0 {
			// finish vertex: pop the front of scales
			if n := len(gn.scales); n > 0 {
				gn.scales = gn.scales[:n-1]
			}
			continue
		}
		e := &r.rels[ev]
		if r.pools[e.src].root != 0 && len(gn.gen[e.src]) == 0 {
			v, err := gn.root(e.src)
			if err != nil {
				return err
			}
			gn.gen[e.src] = []graph.VertexID{v}
		}
		gn.gen[e.dst] = nil
		var err error
		switch e.method {
		case methodMultiply:
			err = gn.multiply(int(ev))
			gn.scales = append(gn.scales, e.multiScale)
		case methodAssociateIn:
			err = gn.associate(int(ev), false)
		case methodAssociateByPathIn:
			err = gn.associate(int(ev), true)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// spend takes n vertices (or ASSOCIATE pairs) and b path bytes from what
// the limits allow. When that is more than is left it returns the limit
// exceeded, for an error message, and takes nothing.
func (gn *generator) spend(n, b int64) (exceeded string) {
	switch {
	case n > gn.vertices:
		return fmt.Sprintf("exceeds the reader's limit of %d vertices (graph.ReadLimits.MaxVertices)", gn.maxVertices)
	case b > gn.pathBytes:
		return fmt.Sprintf("exceeds the reader's limit of %d bytes of paths (graph.ReadLimits.MaxPathBytes)", gn.maxPathBytes)
	}
	gn.vertices -= n
	gn.pathBytes -= b
	return ""
}

// root returns the root of recipe vertex s's subsystem, creating it from s
// if the subsystem has none.
func (gn *generator) root(s int) (graph.VertexID, error) {
	g, p := gn.g, &gn.r.pools[s]
	sub := gn.subs[s]
	if v := g.Root(sub); v != graph.NoVertex {
		return v, nil
	}
	name := graph.DefaultName(p.basename, 0)
	if ex := gn.spend(1, int64(len(name))+1); ex != "" {
		return graph.NoVertex, limitErr(p.line, "the root vertex "+ex)
	}
	v := g.AddVertex(gn.vertex(s, 0, name, []graph.Path{{Subsystem: sub, Path: "/" + name}}))
	_ = g.SetRoot(sub, v) // cannot fail: the subsystem has no root
	return v, nil
}

// vertex makes the vertex record for a vertex generated from recipe vertex
// s. It draws a node rank, so call it only for vertices that are added.
func (gn *generator) vertex(s int, id int64, name string, paths []graph.Path) graph.Vertex {
	p := &gn.r.pools[s]
	rank := int64(-1)
	if gn.types[s] == graph.TypeNode {
		rank = gn.g.NextNodeRank()
	}
	vx := graph.Vertex{
		Type:     gn.types[s],
		Status:   graph.StatusUp,
		Rank:     rank,
		ID:       id,
		UniqID:   int64(gn.g.NumVertices()),
		Size:     int64(uint32(p.size)), // vertex sizes are unsigned 32-bit
		Basename: p.basename,
		Name:     name,
		Paths:    paths,
	}
	vx.SetUnit(p.unit)
	return vx
}

// multiply runs a MULTIPLY tree edge: multi_scale new children of every
// vertex generated for the source.
func (gn *generator) multiply(ei int) error {
	g, e := gn.g, &gn.r.rels[ei]
	srcs := gn.gen[e.src]
	scale := e.multiScale
	if scale <= 0 || len(srcs) == 0 {
		return nil
	}
	total := int64(len(srcs)) * scale
	if total > math.MaxInt32-int64(g.NumVertices()) {
		return readErr(e.line, fmt.Sprintf("edge generates too many vertices (%d x %d)", len(srcs), scale))
	}
	n := int(total)
	// W: product of the first min(id_scope, len(scales)) scales.
	w := int64(1)
	if e.idScope > 0 {
		k := min(e.idScope, int64(len(gn.scales)))
		for i := int64(0); i < k; i++ {
			w *= gn.scales[len(gn.scales)-1-int(i)]
		}
		if w == 0 {
			return readErr(e.line, "id generation divides by zero (a multi_scale of 0 is within id_scope)")
		}
	}
	t := e.dst
	tp := &gn.r.pools[t]
	sub, esub := gn.subs[t], gn.eSubs[ei]

	// Path bytes: each child's path is its parent's, "/", the basename
	// and at most 20 digits of id.
	bytes := int64(0)
	for _, src := range srcs {
		prefix, _ := g.V(src).PathIn(sub)
		bytes += scale * int64(len(prefix)+1+len(tp.basename)+20)
		if bytes > gn.pathBytes {
			break
		}
	}
	if ex := gn.spend(total, bytes); ex != "" {
		return limitErr(e.line, fmt.Sprintf("generating %d x %d vertices %s", len(srcs), scale, ex))
	}
	g.Grow(n)
	paths := make([]graph.Path, n) // one backing array for all new vertices
	out := make([]graph.VertexID, 0, n)
	for j, src := range srcs {
		prefix, _ := g.V(src).PathIn(sub)
		jw := int64(j)
		if e.idScope > 0 {
			jw %= w
		}
		// Build the paths of src's children into one buffer so that they
		// (and their names, which are suffixes of the paths) share a
		// single string allocation.
		buf, spans := gn.buf[:0], gn.spans[:0]
		for i := int64(0); i < scale; i++ {
			var id int64
			switch {
			case e.idScope < 0:
				id = -1
			case e.idScope == 0:
				id = e.idStart + i
			default:
				id = e.idStart + jw*scale*e.idStride + i*e.idStride
			}
			start := len(buf)
			buf = append(buf, prefix...)
			buf = append(buf, '/')
			name := len(buf)
			buf = append(buf, tp.basename...)
			if id != -1 {
				buf = strconv.AppendInt(buf, id, 10)
			}
			spans = append(spans, span{start, name, len(buf), id})
		}
		gn.buf, gn.spans = buf, spans
		all := string(buf)
		for _, sp := range spans {
			k := len(out)
			paths[k] = graph.Path{Subsystem: sub, Path: all[sp.start:sp.end]}
			v := g.AddVertex(gn.vertex(t, sp.id, all[sp.name:sp.end], paths[k:k+1:k+1]))
			g.AddEdge(src, v, esub)
			out = append(out, v)
		}
	}
	gn.gen[t] = out
	return nil
}

// associate runs an ASSOCIATE_IN (byPath false) or ASSOCIATE_BY_PATH_IN tree
// edge: existing vertices of the target's type are linked below every
// vertex generated for the source.
func (gn *generator) associate(ei int, byPath bool) error {
	g, e := gn.g, &gn.r.rels[ei]
	esub, asub := gn.eSubs[ei], gn.asSubs[ei]
	cands := g.ByType(gn.types[e.dst])
	srcs := gn.gen[e.src]
	if ex := gn.spend(int64(len(srcs))*int64(len(cands)), 0); ex != "" {
		return limitErr(e.line, fmt.Sprintf("associating %d x %d vertices %s", len(srcs), len(cands), ex))
	}
	var out []graph.VertexID
	for _, src := range srcs {
		for _, t := range cands {
			// Paths are read per pair: an earlier pair may have changed
			// them (when src is itself a candidate, or when
			// as_tgt_subsystem is e_subsystem).
			if byPath {
				sp, _ := g.V(src).PathIn(asub)
				tp, _ := g.V(t).PathIn(asub)
				if !prefixOf(tp, e.asTgtUplvl).equal(prefixOf(sp, e.asSrcUplvl)) {
					continue
				}
			}
			srcPath, _ := g.V(src).PathIn(esub)
			if ex := gn.spend(0, int64(len(srcPath)+1+len(g.V(t).Name))); ex != "" {
				return limitErr(e.line, "associating "+ex)
			}
			g.AddPath(t, esub, srcPath+"/"+g.V(t).Name)
			if eid, ok := g.FindEdge(src, t); ok {
				g.SetEdgeSubsystem(eid, esub)
			} else {
				g.AddEdge(src, t, esub)
			}
			out = append(out, t)
		}
	}
	gn.gen[e.dst] = out
	return nil
}

// prefix is the comparison string of ASSOCIATE_BY_PATH_IN: s, followed by a
// "/" when slash is set.
type prefix struct {
	s     string
	slash bool
}

// prefixOf implements prefix(path, up) of spec formats.md §1.2: with n the
// number of "/" in path, the empty string if up >= n, else path without its
// last up components and ending in "/" (the whole path plus "/" for up = 0;
// a negative up is treated as 0).
func prefixOf(path string, up int64) prefix {
	n := int64(strings.Count(path, "/"))
	if up >= n {
		return prefix{}
	}
	if up <= 0 {
		return prefix{path, true}
	}
	end := len(path)
	for ; up > 0; up-- {
		end = strings.LastIndexByte(path[:end], '/')
	}
	return prefix{path[:end+1], false}
}

func (a prefix) equal(b prefix) bool {
	if a.slash == b.slash {
		return a.s == b.s
	}
	if b.slash {
		a, b = b, a
	}
	// a.s + "/" == b.s
	return len(b.s) == len(a.s)+1 && b.s[len(a.s)] == '/' && b.s[:len(a.s)] == a.s
}

// Read parses a GRUG document and generates it into a new graph, under
// the default graph.ReadLimits. On failure it returns (nil, err) with err
// of type *Error.
func Read(data []byte) (*graph.Graph, error) { return ReadLimited(data, graph.ReadLimits{}) }

// ReadLimited is Read under the limits l (zero fields take the defaults):
// a document longer than l.MaxInputBytes is rejected unread, and the
// recipe is generated by GenerateLimited.
func ReadLimited(data []byte, l graph.ReadLimits) (*graph.Graph, error) {
	l = l.WithDefaults()
	if int64(len(data)) > l.MaxInputBytes {
		return nil, limitErr(0, fmt.Sprintf("the document is %d bytes, more than the limit of %d (graph.ReadLimits.MaxInputBytes)", len(data), l.MaxInputBytes))
	}
	r, err := Parse(data)
	if err != nil {
		return nil, err
	}
	g := graph.New()
	if err := r.GenerateLimited(g, l); err != nil {
		return nil, err
	}
	return g, nil
}
