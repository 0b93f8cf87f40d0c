package jgf

import (
	"strconv"

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

	opts Options // what Parse was given; Load applies them
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
	// Size is the JGF size (default 1). The strict reader refuses sizes
	// outside [0, 2^32); in Fluxion mode Load stores it as an unsigned
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
// Fluxion's reader does, without building anything, with the default
// Options (strict). The first problem in document order (nodes before
// edges) is returned as an *Error.
//
// Parse reports only what can be checked on the document alone: errors
// that depend on the graph being built (duplicate node ids, a second
// root, unknown edge endpoints, duplicate edges, and the strict reader's
// edge checks) are found by Load. Read and ReadFile report all errors in
// the order Fluxion does, which interleaves the two kinds (Fluxion reads
// and inserts one node at a time).
func Parse(data []byte) (*Document, error) { return Options{}.Parse(data) }

// Parse is the package-level Parse with the options o, which the
// document keeps for Load.
func (o Options) Parse(data []byte) (*Document, error) {
	doc, err := o.parse(data)
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

func firstNodeErr(doc *Document) *Error {
	for i := range doc.Nodes {
		if doc.Nodes[i].err != nil {
			return doc.Nodes[i].err
		}
	}
	return nil
}

// parse decodes the document. Errors of individual nodes and edges are
// stored in them, so that Load can report them at their place in
// Fluxion's processing order.
func (o Options) parse(data []byte) (*Document, *Error) {
	if int64(len(data)) > o.maxInput() {
		return nil, o.inputLimitErr(int64(len(data)), false)
	}
	doc := &Document{opts: o}
	d := &decoder{sc: newScanner(data), opts: o, strs: &strs{}, doc: doc}
	d.ids = &d.strs.arena
	d.run()
	if d.sc.bad {
		return nil, syntaxError(data)
	}
	if err := d.missing(); err != nil {
		return nil, err
	}
	if d.limit != nil {
		// The nodes kept come before the limit; edges are not read.
		doc.Edges = nil
		if err := firstNodeErr(doc); err != nil {
			return nil, err
		}
		return nil, d.limit
	}
	return doc, nil
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
