package jgf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Document is a parsed JGF document (spec formats.md §2): its nodes and
// edges in array order, with Fluxion's defaults applied. Parse returns
// one; Load builds it into a graph.
type Document struct {
	Nodes []Node
	Edges []Edge
	// FreeRanks is the optional top-level "free_ranks" idset string (only
	// meaningful for update; not interpreted here). HasFreeRanks reports
	// whether the document has it as a string.
	FreeRanks    string
	HasFreeRanks bool
}

// Node is one JGF node.
type Node struct {
	// ID is the node's outer "id" string: the key edges refer to it by.
	ID       string
	Metadata Metadata

	err *Error // deferred error (see parse)
}

// Metadata holds a node's metadata with the defaults of formats.md §2
// applied (a sentinel uniq_id -1, id -2 or size -1 counts as absent, and
// so does an empty basename or name).
type Metadata struct {
	Type     string
	Basename string // default: Type
	Name     string // default: Basename + decimal(ID)
	// ID defaults to UniqID, except for type "node" with a name ending in
	// decimal digits: those digits.
	ID int64
	// UniqID defaults to the outer id parsed as a C strtoll decimal prefix.
	UniqID int64
	Rank   int64        // default -1
	Status graph.Status // any integer; default 0 (up)
	// Size is the JGF size (default 1). Load stores it as an unsigned
	// 32-bit pool size, so negative values wrap.
	Size      int64
	Unit      string // type-checked but never stored into a graph
	Exclusive bool
	// Properties are sorted by key (a repeated key keeps its last value).
	Properties []graph.Property
	// Paths are in document order (a repeated subsystem keeps its first
	// position and last value). May be empty.
	Paths []Path
}

// Path is the path of a node in one subsystem.
type Path struct {
	Subsystem string
	Path      string
}

// Edge is one JGF edge.
type Edge struct {
	Source, Target string // outer ids of the endpoints
	Subsystem      string // default "containment"

	err *Error // deferred error (see parse)
}

const (
	fluxJSON       = "fetch_jgf: json_loads returned an error: "
	fluxMissingKey = "fetch_jgf: JGF does not contain a required key ("
	fluxNoID       = "fill_fetcher: JGF vertex id key is not found in a node.\n"
	fluxMalformedE = "unpack_edge: encountered a malformed edge.\n"
)

// Parse decodes a JGF document and checks every node and edge as
// Fluxion's reader does, without building anything. The first problem in
// document order (nodes before edges) is returned as an *Error.
//
// Parse reports only what can be checked on the document alone: errors
// that depend on the graph being built (duplicate node ids, a second
// root, unknown edge endpoints, duplicate edges) are found by Load. Read
// and ReadFile report all errors in the order Fluxion does, which
// interleaves the two kinds (Fluxion reads and inserts one node at a time).
func Parse(data []byte) (*Document, error) {
	doc, err := parse(data)
	if err != nil {
		return nil, err
	}
	for i := range doc.Nodes {
		if doc.Nodes[i].err != nil {
			return nil, doc.Nodes[i].err
		}
	}
	for i := range doc.Edges {
		if doc.Edges[i].err != nil {
			return nil, doc.Edges[i].err
		}
	}
	return doc, nil
}

// parse decodes the document. Errors of individual nodes and edges are
// stored in them, so that Load can report them at their place in
// Fluxion's processing order.
func parse(data []byte) (*Document, *Error) {
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
			parseNode(&doc.Nodes[i], i, n)
		}
	}
	if edges.kind == jArray {
		doc.Edges = make([]Edge, len(edges.arr))
		for i, e := range edges.arr {
			parseEdge(&doc.Edges[i], i, e)
		}
	}
	return doc, nil
}

func missingKey(key string) *Error {
	return docErr("missing required key \""+key+"\"", fluxMissingKey+key+").\n")
}

// metaReader type-checks metadata members like jansson's json_unpack.
type metaReader struct {
	md     *jvalue
	reason string // first problem
}

func (r *metaReader) fail(key, want string, v *jvalue) {
	if r.reason != "" {
		return
	}
	if v == nil {
		r.reason = "missing required key \"" + key + "\""
		return
	}
	r.reason = "key \"" + key + "\": expected " + want + ", got " + v.kind.String()
}

func (r *metaReader) str(key string, required bool) (string, bool) {
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

func (r *metaReader) integer(key string) (int64, bool) {
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

func (r *metaReader) boolean(key string) bool {
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

func parseNode(n *Node, i int, v *jvalue) {
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
	r := &metaReader{md: mdv}
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

// trailingDigits returns the maximal run of decimal digits ending s.
func trailingDigits(s string) string {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	return s[i:]
}

// strtoll parses a decimal prefix of s the way C's strtoll (and
// std::stoll) does: leading white space and a sign are accepted, trailing
// garbage is ignored. ok is false when no digit follows; overflow is true
// when the number does not fit in 64 bits.
func strtoll(s string) (v int64, ok, overflow bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, false, false
	}
	v, err := strconv.ParseInt(s[start:j], 10, 64)
	if err != nil {
		return 0, true, true
	}
	return v, true, false
}

func parseEdge(e *Edge, i int, v *jvalue) {
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
