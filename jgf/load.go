package jgf

import (
	"os"
	"slices"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Read parses a JGF document and builds it into a new graph. Errors are
// reported in Fluxion's order (node by node, then edge by edge) as
// *Error.
func Read(data []byte) (*graph.Graph, error) {
	doc, err := parse(data)
	if err != nil {
		return nil, err
	}
	g := graph.New()
	if err := load(g, doc); err != nil {
		return nil, err
	}
	return g, nil
}

// ReadFile is Read on the contents of the named file. A file that cannot
// be read yields an *Error wrapping the file system error; its Fluxion()
// text is the one for an empty document (what Fluxion's reader sees).
func ReadFile(path string) (*graph.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		_, perr := parse(nil)
		return nil, &Error{Node: -1, Edge: -1, Reason: err.Error(), fluxion: perr.fluxion, err: err}
	}
	return Read(data)
}

// Load builds doc into g (spec formats.md §2 "Loading NODEs", traversal.md
// §14.5): used both for the initial load (g empty) and for attach (grow).
//
// Nodes are processed in array order. A node one of whose paths is already
// in g's path index with a vertex of the same rank (including vertices
// created earlier by this load) is mapped to that vertex; otherwise a new
// vertex is appended (index = next index, uniq_id from the JGF), indexed
// by type, name, rank and every path, and made the root of each subsystem
// in which its path has exactly one '/'. Then, in array order, each edge
// with at least one endpoint created by this load is added (out-edge
// order = array order). Types and path subsystems of all nodes are
// interned in node order, edge subsystems when their edge is created.
//
// Load validates the whole document against g before changing anything,
// so a failed Load leaves g exactly as it was (no clone is made). The
// errors are those of Fluxion, in Fluxion's order, as *Error.
func Load(g *graph.Graph, doc *Document) error {
	if err := load(g, doc); err != nil {
		return err
	}
	return nil
}

type ref struct {
	v     graph.VertexID
	isNew bool // created by the node this id belongs to
}

type newVertex struct {
	v    graph.VertexID
	rank int64
}

type outKey struct {
	src  graph.VertexID
	uniq int64
}

type plannedEdge struct {
	src, dst graph.VertexID
	sub      string
}

func load(g *graph.Graph, doc *Document) *Error {
	n0 := graph.VertexID(g.NumVertices())

	// Subsystem numbers as interning all path subsystems in node order
	// would give them, without touching g.
	provisional := map[string]int32{}
	subID := func(name string) int32 {
		if id, ok := g.Subsystems.Lookup(name); ok {
			return id
		}
		id, ok := provisional[name]
		if !ok {
			id = int32(g.Subsystems.Len() + len(provisional))
			provisional[name] = id
		}
		return id
	}

	var (
		ids       = make(map[string]ref, len(doc.Nodes))
		newByPath = map[string][]newVertex{}
		newRoots  = map[string]bool{}
		created   []int // node index of each new vertex
		paths     []keyedPath
	)
	for i := range doc.Nodes {
		n := &doc.Nodes[i]
		if n.err != nil {
			return n.err
		}
		md := &n.Metadata
		// Paths in subsystem interning order (the order of Fluxion's
		// path map).
		paths = paths[:0]
		for _, p := range md.Paths {
			paths = append(paths, keyedPath{subID(p.Subsystem), p})
		}
		slices.SortStableFunc(paths, func(a, b keyedPath) int { return int(a.key - b.key) })

		found := graph.NoVertex
	search:
		for _, kp := range paths {
			p := kp.Path
			for _, v := range g.ByPath(p.Path) {
				if g.V(v).Rank == md.Rank {
					found = v
					break search
				}
			}
			for _, nv := range newByPath[p.Path] {
				if nv.rank == md.Rank {
					found = nv.v
					break search
				}
			}
		}
		if found != graph.NoVertex {
			ids[n.ID] = ref{v: found}
			continue
		}
		if _, dup := ids[n.ID]; dup {
			return nodeErr(i, n.ID, "duplicate node id", "add_vtx: found duplicate JGF node id for "+n.ID+".\n")
		}
		v := n0 + graph.VertexID(len(created))
		for _, kp := range paths {
			p := kp.Path
			if strings.Count(p.Path, "/") != 1 {
				continue
			}
			taken := newRoots[p.Subsystem]
			if s, ok := g.Subsystems.Lookup(p.Subsystem); ok && g.Root(graph.SubsystemID(s)) != graph.NoVertex {
				taken = true
			}
			if taken {
				return nodeErr(i, n.ID, "a second root for subsystem "+p.Subsystem+" (path "+p.Path+")",
					"add_graph_metadata: failed to add root metadata for "+p.Subsystem+" subsystem. Possible duplicate root.\n")
			}
			newRoots[p.Subsystem] = true
		}
		ids[n.ID] = ref{v: v, isNew: true}
		for _, p := range md.Paths {
			newByPath[p.Path] = append(newByPath[p.Path], newVertex{v, md.Rank})
		}
		created = append(created, i)
	}

	md := func(v graph.VertexID) *Metadata { return &doc.Nodes[created[v-n0]].Metadata }
	uniq := func(v graph.VertexID) int64 {
		if v < n0 {
			return g.V(v).UniqID
		}
		return md(v).UniqID
	}
	name := func(v graph.VertexID) string {
		if v < n0 {
			return g.V(v).Name
		}
		return md(v).Name
	}

	var (
		edges   []plannedEdge
		outSeen = map[outKey]bool{}
		oldOuts = map[graph.VertexID]bool{} // existing sources already in outSeen
	)
	for i := range doc.Edges {
		e := &doc.Edges[i]
		if e.err != nil {
			return e.err
		}
		s, ok1 := ids[e.Source]
		t, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			return edgeErr(i, "unknown endpoint in edge "+e.Source+" -> "+e.Target,
				"unpack_edge: source and/or target vertex not found"+e.Source+" -> "+e.Target+".\n")
		}
		if !s.isNew && !t.isNew {
			continue
		}
		if s.v < n0 && !oldOuts[s.v] {
			oldOuts[s.v] = true
			for _, h := range g.Out(s.v) {
				outSeen[outKey{s.v, g.V(h.Other).UniqID}] = true
			}
		}
		k := outKey{s.v, uniq(t.v)}
		if outSeen[k] {
			return edgeErr(i, "duplicate edge "+name(s.v)+" -> "+name(t.v)+" (same source and target uniq_id)",
				"error inserting an edge to outedge metadata map: "+name(s.v)+" -> "+name(t.v)+"; ")
		}
		outSeen[k] = true
		edges = append(edges, plannedEdge{s.v, t.v, e.Subsystem})
	}
	// Everything is valid: apply.
	for i := range doc.Nodes {
		m := &doc.Nodes[i].Metadata
		g.Type(m.Type)
		for _, p := range m.Paths {
			g.Subsystem(p.Subsystem)
		}
	}
	g.Grow(max(len(created), len(edges)))
	for _, i := range created {
		m := &doc.Nodes[i].Metadata
		vx := graph.Vertex{
			Type:     g.Type(m.Type),
			Status:   m.Status,
			Rank:     m.Rank,
			ID:       m.ID,
			UniqID:   m.UniqID,
			Size:     int64(uint32(m.Size)), // pool sizes are unsigned 32-bit
			Basename: m.Basename,
			Name:     m.Name,
			Props:    slices.Clone(m.Properties),
		}
		if len(m.Paths) > 0 {
			vx.Paths = make([]graph.Path, len(m.Paths))
			for k, p := range m.Paths {
				vx.Paths[k] = graph.Path{Subsystem: g.Subsystem(p.Subsystem), Path: p.Path}
			}
			slices.SortStableFunc(vx.Paths, func(a, b graph.Path) int { return int(a.Subsystem - b.Subsystem) })
		}
		v := g.AddVertex(vx)
		for _, p := range vx.Paths {
			if strings.Count(p.Path, "/") == 1 {
				if err := g.SetRoot(p.Subsystem, v); err != nil {
					panic("jgf: root checked before but refused: " + err.Error())
				}
			}
		}
	}
	for _, e := range edges {
		g.AddEdge(e.src, e.dst, g.Subsystem(e.sub))
	}
	return nil
}

// keyedPath is a path with its (provisional) subsystem number.
type keyedPath struct {
	key int32
	Path
}
