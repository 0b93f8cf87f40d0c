package jgf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// The reader as it was before the streaming decoder: a jansson-faithful
// JSON tree (json.go) walked by parse, and load building a Document into a
// graph. It is kept as the test oracle of the differential tests
// (differential_test.go): on any input the new reader in Fluxion mode must
// build the same graph or report the same error.

// parse decodes the document. Errors of individual nodes and edges are
// stored in them, so that Load can report them at their place in
// Fluxion's processing order.
func oracleParse(data []byte) (*Document, *Error) {
	root, jerr := decodeJSON(data)
	if jerr != nil {
		return nil, &Error{
			Node: -1, Edge: -1, Line: jerr.line, Column: jerr.column,
			Reason:  "invalid JSON: " + jerr.text,
			fluxion: fluxJSON + jerr.text + ": <string>@" + strconv.Itoa(jerr.line) + ":" + strconv.Itoa(jerr.column) + ".\n",
		}
	}
	gr := root.get("graph")
	if gr == nil {
		return nil, missingKey("graph")
	}
	nodes := gr.get("nodes")
	if nodes == nil {
		return nil, missingKey("nodes")
	}
	edges := gr.get("edges")
	if edges == nil {
		return nil, missingKey("edges")
	}
	doc := &Document{}
	if fr := root.get("free_ranks"); fr != nil && fr.kind == jString {
		doc.FreeRanks, doc.HasFreeRanks = fr.s, true
	}
	// Like jansson's json_array_size, a non-array counts as empty.
	if nodes.kind == jArray {
		doc.Nodes = make([]Node, len(nodes.arr))
		for i, n := range nodes.arr {
			oracleParseNode(&doc.Nodes[i], i, n)
		}
	}
	if edges.kind == jArray {
		doc.Edges = make([]Edge, len(edges.arr))
		for i, e := range edges.arr {
			oracleParseEdge(&doc.Edges[i], i, e)
		}
	}
	return doc, nil
}

// metaReader type-checks metadata members like jansson's json_unpack.
type oracleMetaReader struct {
	md     *jvalue
	reason string // first problem
}

func (r *oracleMetaReader) fail(key, want string, v *jvalue) {
	if r.reason != "" {
		return
	}
	if v == nil {
		r.reason = "missing required key \"" + key + "\""
		return
	}
	r.reason = "key \"" + key + "\": expected " + want + ", got " + v.kind.String()
}

func (r *oracleMetaReader) str(key string, required bool) (string, bool) {
	v := r.md.get(key)
	if v == nil {
		if required {
			r.fail(key, "a string", nil)
		}
		return "", false
	}
	if v.kind != jString {
		r.fail(key, "a string", v)
		return "", false
	}
	return v.s, true
}

func (r *oracleMetaReader) integer(key string) (int64, bool) {
	v := r.md.get(key)
	if v == nil {
		return 0, false
	}
	if v.kind != jInt {
		r.fail(key, "an integer", v)
		return 0, false
	}
	return v.i, true
}

func (r *oracleMetaReader) boolean(key string) bool {
	v := r.md.get(key)
	if v == nil {
		return false
	}
	if v.kind != jTrue && v.kind != jFalse {
		r.fail(key, "a boolean", v)
		return false
	}
	return v.kind == jTrue
}

func oracleParseNode(n *Node, i int, v *jvalue) {
	idv := v.get("id")
	if idv == nil || idv.kind != jString {
		reason := `missing "id"`
		if idv != nil {
			reason = `"id" is a JSON ` + idv.kind.String() + `, not a string`
		}
		n.err = nodeErr(i, "", reason, fluxNoID)
		return
	}
	id := idv.s
	n.ID = id
	mdv := v.get("metadata")
	if mdv == nil {
		n.err = nodeErr(i, id, `missing "metadata"`, "fill_fetcher: key (metadata) is not found in an JGF node for "+id+".\n")
		return
	}
	malformed := func(reason string) {
		n.err = nodeErr(i, id, "malformed metadata: "+reason, "fill_fetcher: malformed metadata in an JGF node for "+id+"\n")
	}
	if mdv.kind != jObject {
		malformed("metadata is a JSON " + mdv.kind.String() + ", not an object")
		return
	}
	r := &oracleMetaReader{md: mdv}
	md := &n.Metadata
	md.Type, _ = r.str("type", true)
	md.Basename, _ = r.str("basename", false)
	md.Name, _ = r.str("name", false)
	lid, hasID := r.integer("id")
	uniq, hasUniq := r.integer("uniq_id")
	rank, hasRank := r.integer("rank")
	status, _ := r.integer("status")
	md.Exclusive = r.boolean("exclusive")
	md.Unit, _ = r.str("unit", false)
	size, hasSize := r.integer("size")
	paths := mdv.get("paths")
	if paths == nil || paths.kind != jObject {
		r.fail("paths", "an object", paths)
	}
	if r.reason != "" {
		malformed(r.reason)
		return
	}
	if props := mdv.get("properties"); props != nil {
		if props.kind != jObject {
			n.err = nodeErr(i, id, `"properties" is a JSON `+props.kind.String()+`, not an object`,
				"fill_fetcher: key (properties) must be an object or null for "+id+".\n")
			return
		}
		for k, key := range props.keys {
			pv := props.vals[k]
			if pv.kind != jString {
				n.err = nodeErr(i, id, "property "+strconv.Quote(key)+" has a "+pv.kind.String()+" value, not a string (Fluxion aborts)",
					"fill_fetcher: value of property ("+key+") is not a string for "+id+".\n")
				n.err.Crash = true
				return
			}
			md.Properties = append(md.Properties, graph.Property{Key: key, Value: pv.s})
		}
		slices.SortFunc(md.Properties, func(a, b graph.Property) int { return strings.Compare(a.Key, b.Key) })
	}
	for k, sub := range paths.keys {
		pv := paths.vals[k]
		if pv.kind != jString {
			malformed("path of subsystem " + strconv.Quote(sub) + " is a " + pv.kind.String() + ", not a string")
			return
		}
		md.Paths = append(md.Paths, Path{Subsystem: sub, Path: pv.s})
	}

	// apply_defaults
	if !hasUniq || uniq == -1 {
		u, ok, overflow := strtoll(id)
		switch {
		case overflow:
			n.err = nodeErr(i, id, "uniq_id inferred from the outer id is out of the 64-bit range (Fluxion aborts)",
				"apply_defaults: value for key (uniq_id) is out of range in outer 'id' field "+id+".\n")
			n.err.Crash = true
			return
		case !ok:
			n.err = nodeErr(i, id, "no uniq_id and the outer id does not start with a decimal number",
				"apply_defaults: value for key (uniq_id) could not be inferred from outer 'id' field "+id+".\n")
			return
		}
		uniq = u
	}
	md.UniqID = uniq
	if !hasID || lid == -2 {
		lid = uniq
		if md.Type == "node" && md.Name != "" {
			if d := trailingDigits(md.Name); d != "" {
				v, err := strconv.ParseInt(d, 10, 64)
				if err != nil {
					n.err = nodeErr(i, id, "the id inferred from the trailing digits of name "+strconv.Quote(md.Name)+" is out of the 64-bit range (Fluxion aborts)",
						"apply_defaults: value for key (id) is out of range in name "+md.Name+".\n")
					n.err.Crash = true
					return
				}
				lid = v
			}
		}
	}
	md.ID = lid
	if md.Basename == "" {
		md.Basename = md.Type
	}
	if md.Name == "" {
		md.Name = md.Basename + strconv.FormatInt(md.ID, 10)
	}
	md.Rank = -1
	if hasRank {
		md.Rank = rank
	}
	md.Status = graph.Status(status)
	md.Size = 1
	if hasSize && size != -1 {
		md.Size = size
	}
}

func oracleParseEdge(e *Edge, i int, v *jvalue) {
	malformed := func(reason string) { e.err = edgeErr(i, "malformed edge: "+reason, fluxMalformedE) }
	if v.kind != jObject {
		malformed("edge is a JSON " + v.kind.String() + ", not an object")
		return
	}
	src, tgt := v.get("source"), v.get("target")
	for _, x := range [...]struct {
		key string
		v   *jvalue
	}{{"source", src}, {"target", tgt}} {
		if x.v == nil {
			malformed("missing " + strconv.Quote(x.key))
			return
		}
		if x.v.kind != jString {
			malformed(strconv.Quote(x.key) + " is a JSON " + x.v.kind.String() + ", not a string")
			return
		}
	}
	e.Source, e.Target, e.Subsystem = src.s, tgt.s, "containment"
	if md := v.get("metadata"); md != nil {
		if md.kind != jObject {
			malformed(`"metadata" is a JSON ` + md.kind.String() + ", not an object")
			return
		}
		if sub := md.get("subsystem"); sub != nil {
			if sub.kind != jString {
				malformed(`"subsystem" is a JSON ` + sub.kind.String() + ", not a string")
				return
			}
			e.Subsystem = sub.s
		}
	}
}

type oracleRef struct {
	v     graph.VertexID
	isNew bool // created by the node this id belongs to
}

type oracleNewVertex struct {
	v    graph.VertexID
	rank int64
}

type oracleOutKey struct {
	src  graph.VertexID
	uniq int64
}

type oraclePlannedEdge struct {
	src, dst graph.VertexID
	sub      string
}

func oracleLoad(g *graph.Graph, doc *Document) *Error {
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
		ids       = make(map[string]oracleRef, len(doc.Nodes))
		newByPath = map[string][]oracleNewVertex{}
		newRoots  = map[string]bool{}
		created   []int // node index of each new vertex
		paths     []oracleKeyedPath
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
			paths = append(paths, oracleKeyedPath{subID(p.Subsystem), p})
		}
		slices.SortStableFunc(paths, func(a, b oracleKeyedPath) int { return int(a.key - b.key) })

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
			ids[n.ID] = oracleRef{v: found}
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
		ids[n.ID] = oracleRef{v: v, isNew: true}
		for _, p := range md.Paths {
			newByPath[p.Path] = append(newByPath[p.Path], oracleNewVertex{v, md.Rank})
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
		edges   []oraclePlannedEdge
		outSeen = map[oracleOutKey]bool{}
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
				outSeen[oracleOutKey{s.v, g.V(h.Other).UniqID}] = true
			}
		}
		k := oracleOutKey{s.v, uniq(t.v)}
		if outSeen[k] {
			return edgeErr(i, "duplicate edge "+name(s.v)+" -> "+name(t.v)+" (same source and target uniq_id)",
				"error inserting an edge to outedge metadata map: "+name(s.v)+" -> "+name(t.v)+"; ")
		}
		outSeen[k] = true
		edges = append(edges, oraclePlannedEdge{s.v, t.v, e.Subsystem})
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
		}
		vx.SetProps(slices.Clone(m.Properties))
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
type oracleKeyedPath struct {
	key int32
	Path
}
