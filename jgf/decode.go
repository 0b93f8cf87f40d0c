package jgf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// This file decodes JGF documents in one pass over the bytes (scan.go),
// picking out what Fluxion's reader reads and checking it as Fluxion does,
// with no generic JSON tree. It has two sinks:
//
//   - document mode (Parse) collects the nodes and edges into a Document;
//   - direct mode (Read) hands each node and edge to a builder as soon as
//     it is decoded, so that the graph is built while the bytes are read,
//     with no intermediate copy of the document. It needs the common
//     layout — one "graph" object whose "nodes" come before its "edges",
//     each key once — and gives up on anything else (irregular), which
//     Read then reads in document mode. Fluxion's semantics of the other
//     layouts (a repeated key keeps its last value, a non-array "nodes" is
//     empty, ...) are thus the document mode's alone.
//
// A syntax error anywhere wins over everything; then the missing keys
// ("graph", "nodes", "edges"); then the first node or edge error in
// Fluxion's order. Limit errors stop the decoding at once.

// Metadata keys Fluxion's reader looks at.
const (
	mdType = iota
	mdBasename
	mdName
	mdID
	mdUniqID
	mdRank
	mdStatus
	mdExclusive
	mdUnit
	mdSize
	mdPaths
	mdProps
	nMD
)

// The keys each object is read for (the metadata keys in the order of
// the md constants).
var (
	topKeys    = newKeyTable("graph", "free_ranks")
	graphKeys  = newKeyTable("nodes", "edges")
	nodeKeys   = newKeyTable("id", "metadata")
	mdKeys     = newKeyTable("type", "basename", "name", "id", "uniq_id", "rank", "status", "exclusive", "unit", "size", "paths", "properties")
	edgeKeys   = newKeyTable("source", "target", "metadata")
	edgeMDKeys = newKeyTable("subsystem")
)

// defaultName is a name made from a basename and an id.
type defaultName struct {
	base string
	id   int64
	name string
}

// field is one decoded member value: its kind, an integer's value, a
// string's bytes.
type field struct {
	set  bool
	kind jkind
	i    int64
	s    []byte
}

type member struct {
	key  []byte
	kind jkind
	val  []byte
}

// members are an object's members in first-insertion order: a repeated key
// keeps its first position and takes the last value (jansson).
type members struct {
	list []member
	idx  map[string]int // for larger objects
}

func (m *members) reset() {
	m.list = m.list[:0]
	m.idx = nil
}

func (m *members) set(k []byte, kind jkind, v []byte) {
	if m.idx != nil {
		if i, ok := m.idx[string(k)]; ok {
			m.list[i].kind, m.list[i].val = kind, v
			return
		}
	} else {
		for i := range m.list {
			if string(m.list[i].key) == string(k) {
				m.list[i].kind, m.list[i].val = kind, v
				return
			}
		}
	}
	m.list = append(m.list, member{k, kind, v})
	switch {
	case m.idx != nil:
		m.idx[string(k)] = len(m.list) - 1
	case len(m.list) > 8:
		m.idx = make(map[string]int, 16)
		for i, x := range m.list {
			m.idx[string(x.key)] = i
		}
	}
}

// nodeRec is a JGF node as decoded: views of the input (or of the
// scanner's escape buffer), valid until the next node.
type nodeRec struct {
	kind         jkind // of the array element
	id, md       field
	f            [nMD]field
	paths, props members
	// wrong has bit x set when f[x] is present with a kind Fluxion's
	// reader refuses (mdChecks), so that checkNode can skip the checks.
	wrong uint16
}

// mdKind is the kind each metadata value must have (jTrue: a boolean).
var mdKind = [nMD]jkind{jString, jString, jString, jInt, jInt, jInt, jInt, jTrue, jString, jInt, jObject, jObject}

func (r *nodeRec) setMD(x int, f field) {
	r.f[x] = f
	ok := f.kind == mdKind[x] || mdKind[x] == jTrue && f.kind == jFalse
	if ok {
		r.wrong &^= 1 << x
	} else {
		r.wrong |= 1 << x
	}
}

type edgeRec struct {
	kind               jkind
	src, tgt, md, subs field
}

type decoder struct {
	sc   scanner
	opts Options
	strs *strs  // strings the result keeps
	ids  *arena // node ids and edge endpoints

	doc  *Document // document mode
	pipe *pipe     // direct mode: where nodes and edges go

	irregular bool   // direct mode: a layout only the document mode reads
	err       *Error // direct mode: a node or edge error was handed over
	limit     *Error // document mode: the document lists too many nodes

	hasGraph, hasNodes, hasEdges bool
	nodeIdx, edgeIdx             int

	nodesStart, edgesStart int
	cur                    *batch // direct mode: the batch being filled

	rec   nodeRec
	erec  edgeRec
	name  []byte
	names [64]defaultName // recent default names
	chunk struct {
		paths []Path
		props []graph.Property
	}
}

func (d *decoder) stop() bool { return d.irregular }

// halted reports that nodes and edges are no longer decoded, only checked
// for syntax: after a limit error (document mode), or after an error was
// handed to the builder or the builder stopped (direct mode).
func (d *decoder) halted() bool {
	if d.pipe == nil {
		return d.limit != nil
	}
	return d.err != nil || d.pipe.stop.Load()
}

// run decodes the whole input.
func (d *decoder) run() {
	s := &d.sc
	s.ws()
	switch s.peek() {
	case '{':
		d.top()
	case '[':
		s.skip(1)
	default:
		s.fail()
	}
	if s.bad || d.stop() {
		return
	}
	s.ws()
	if s.pos != len(s.data) {
		s.fail()
	}
}

func (d *decoder) top() {
	s := &d.sc
	if !s.openObj() {
		return
	}
	for {
		x := s.knownKey(topKeys)
		if s.bad {
			return
		}
		switch x {
		case 0: // graph
			if d.pipe != nil && d.hasGraph {
				d.irregular = true
				return
			}
			d.graph()
		case 1: // free_ranks
			kind, _, str := s.scalar(2)
			if d.doc != nil {
				d.doc.FreeRanks, d.doc.HasFreeRanks = "", false
				if kind == jString && !s.bad {
					d.doc.FreeRanks, d.doc.HasFreeRanks = string(str), true
				}
			}
		default:
			s.skip(2)
		}
		if s.bad || d.stop() || !s.nextObj() {
			return
		}
	}
}

// graph decodes the value of "graph" (which replaces an earlier one).
func (d *decoder) graph() {
	s := &d.sc
	d.hasGraph, d.hasNodes, d.hasEdges = true, false, false
	if d.doc != nil {
		d.doc.Nodes, d.doc.Edges = nil, nil
	}
	if s.peek() != '{' {
		s.skip(2)
		return
	}
	if !s.openObj() {
		return
	}
	for {
		x := s.knownKey(graphKeys)
		if s.bad {
			return
		}
		switch x {
		case 0: // nodes
			if d.pipe != nil && (d.hasNodes || d.hasEdges) {
				d.irregular = true
				return
			}
			d.hasNodes, d.nodeIdx = true, 0
			if d.doc != nil {
				d.doc.Nodes = nil
			}
			if s.peek() == '[' {
				d.nodes()
			} else {
				s.skip(3)
			}
		case 1: // edges
			if d.pipe != nil && (!d.hasNodes || d.hasEdges) {
				d.irregular = true
				return
			}
			d.hasEdges, d.edgeIdx = true, 0
			if d.doc != nil {
				d.doc.Edges = nil
			}
			if s.peek() == '[' {
				d.edges()
			} else {
				s.skip(3)
			}
		default:
			s.skip(3)
		}
		if s.bad || d.stop() || !s.nextObj() {
			return
		}
	}
}

func (d *decoder) nodes() {
	s := &d.sc
	d.nodesStart = s.pos
	if !s.openArr() {
		return
	}
	for {
		i := d.nodeIdx
		d.nodeIdx++
		switch {
		case d.halted():
			s.skip(4)
		case i >= d.opts.maxVertices():
			// Nothing more is kept; the rest is only checked.
			err := d.opts.nodesLimitErr(i, "")
			if d.pipe != nil {
				d.handNode(i).err = err
				d.err = err
			} else {
				d.limit = err
			}
			s.skip(4)
		default:
			d.decodeNode(&d.rec)
			if s.bad {
				return
			}
			if d.doc != nil {
				d.doc.Nodes = roomFor(d.doc.Nodes, d.nodesStart, s.pos, len(s.data), 40)
				d.doc.Nodes = append(d.doc.Nodes, Node{})
				d.checkNode(i, &d.rec, &d.doc.Nodes[len(d.doc.Nodes)-1])
			} else {
				n := d.handNode(i)
				d.checkNode(i, &d.rec, n)
				if n.err != nil {
					d.err = n.err
				}
			}
			s.esc = s.esc[:0]
		}
		if s.bad || d.stop() || !s.nextArr() {
			return
		}
	}
}

func (d *decoder) edges() {
	s := &d.sc
	d.edgesStart = s.pos
	if !s.openArr() {
		return
	}
	for {
		j := d.edgeIdx
		d.edgeIdx++
		if d.halted() {
			s.skip(4)
		} else {
			d.decodeEdge(&d.erec)
			if s.bad {
				return
			}
			src, tgt, sub, err := d.checkEdge(j, &d.erec)
			if d.doc != nil {
				e := Edge{err: err}
				if err == nil {
					e.Source, e.Target, e.Subsystem = d.ids.make(src), d.ids.make(tgt), sub
				}
				d.doc.Edges = roomFor(d.doc.Edges, d.edgesStart, s.pos, len(s.data), 0)
				d.doc.Edges = append(d.doc.Edges, e)
			} else {
				d.handEdge(j, src, tgt, sub, err)
				if err != nil {
					d.err = err
				}
			}
			s.esc = s.esc[:0]
		}
		if s.bad || d.stop() || !s.nextArr() {
			return
		}
	}
}

// decodeNode decodes the array element at pos (depth 4).
func (d *decoder) decodeNode(r *nodeRec) {
	s := &d.sc
	r.id, r.md = field{}, field{}
	if s.peek() != '{' {
		r.kind, _, _ = s.scalar(4)
		return
	}
	r.kind = jObject
	if !s.openObj() {
		return
	}
	for {
		x := s.knownKey(nodeKeys)
		if s.bad {
			return
		}
		switch x {
		case 0: // id
			r.id = s.value(5)
		case 1: // metadata
			if s.peek() == '{' {
				r.md = field{set: true, kind: jObject}
				d.decodeMetadata(r)
			} else {
				kind, i, str := s.scalar(5)
				r.md = field{true, kind, i, str}
			}
		default:
			s.skip(5)
		}
		if s.bad || !s.nextObj() {
			return
		}
	}
}

// decodeMetadata decodes the metadata object at pos (depth 5).
func (d *decoder) decodeMetadata(r *nodeRec) {
	s := &d.sc
	r.f = [nMD]field{}
	r.wrong = 0
	r.paths.reset()
	r.props.reset()
	if !s.openObj() {
		return
	}
	for {
		x := s.knownKey(mdKeys)
		if s.bad {
			return
		}
		switch x {
		case -1:
			s.skip(6)
		case mdPaths, mdProps:
			m := &r.paths
			if x == mdProps {
				m = &r.props
			}
			if s.peek() != '{' {
				kind, i, str := s.scalar(6)
				r.setMD(x, field{true, kind, i, str})
				break
			}
			r.setMD(x, field{set: true, kind: jObject})
			m.reset()
			if s.openObj() {
				for {
					k := s.key()
					if s.bad {
						return
					}
					kind, _, str := s.scalar(7)
					m.set(k, kind, str)
					if s.bad || !s.nextObj() {
						break
					}
				}
			}
		default:
			r.setMD(x, s.value(6))
		}
		if s.bad || !s.nextObj() {
			return
		}
	}
}

// decodeEdge decodes the array element at pos (depth 4).
func (d *decoder) decodeEdge(r *edgeRec) {
	s := &d.sc
	*r = edgeRec{}
	if s.peek() != '{' {
		r.kind, _, _ = s.scalar(4)
		return
	}
	r.kind = jObject
	if !s.openObj() {
		return
	}
	for {
		x := s.knownKey(edgeKeys)
		if s.bad {
			return
		}
		switch x {
		case 0: // source
			r.src = s.value(5)
		case 1: // target
			r.tgt = s.value(5)
		case 2: // metadata
			if s.peek() != '{' {
				kind, i, str := s.scalar(5)
				r.md = field{true, kind, i, str}
				break
			}
			r.md = field{set: true, kind: jObject}
			r.subs = field{}
			if s.openObj() {
				for {
					x := s.knownKey(edgeMDKeys)
					if s.bad {
						return
					}
					if x == 0 {
						kind, i, str := s.scalar(6)
						r.subs = field{true, kind, i, str}
					} else {
						s.skip(6)
					}
					if s.bad || !s.nextObj() {
						break
					}
				}
			}
		default:
			s.skip(5)
		}
		if s.bad || !s.nextObj() {
			return
		}
	}
}

// fieldFail records the first metadata problem, as json_unpack reports it.
func fieldFail(reason *string, key, want string, f *field) {
	if *reason != "" {
		return
	}
	if !f.set {
		*reason = "missing required key \"" + key + "\""
		return
	}
	*reason = "key \"" + key + "\": expected " + want + ", got " + f.kind.String()
}

// Metadata keys in the order Fluxion's reader unpacks them, with the kind
// each must have.
var mdChecks = [...]struct {
	x        int
	key      string
	kind     jkind // jString, jInt, jTrue (a boolean) or jObject
	required bool
}{
	{mdType, "type", jString, true},
	{mdBasename, "basename", jString, false},
	{mdName, "name", jString, false},
	{mdID, "id", jInt, false},
	{mdUniqID, "uniq_id", jInt, false},
	{mdRank, "rank", jInt, false},
	{mdStatus, "status", jInt, false},
	{mdExclusive, "exclusive", jTrue, false},
	{mdUnit, "unit", jString, false},
	{mdSize, "size", jInt, false},
	{mdPaths, "paths", jObject, true},
}

// checkNode checks the decoded node r as Fluxion's reader does, applies
// the defaults and fills n (whose strings d makes), or sets n.err.
func (d *decoder) checkNode(i int, r *nodeRec, n *Node) {
	*n = Node{}
	if r.kind != jObject || !r.id.set || r.id.kind != jString {
		reason := `missing "id"`
		if r.kind == jObject && r.id.set {
			reason = `"id" is a JSON ` + r.id.kind.String() + `, not a string`
		}
		n.err = nodeErr(i, "", reason, fluxNoID)
		return
	}
	id := d.ids.make(r.id.s)
	n.ID = id
	if !r.md.set {
		n.err = nodeErr(i, id, `missing "metadata"`, "fill_fetcher: key (metadata) is not found in an JGF node for "+id+".\n")
		return
	}
	if r.md.kind != jObject {
		n.err = malformedErr(i, id, "metadata is a JSON "+r.md.kind.String()+", not an object")
		return
	}
	reason := ""
	for _, c := range mdChecks {
		if r.wrong&^(1<<mdProps) == 0 && r.f[mdType].set && r.f[mdPaths].set {
			break // all is well: the common case
		}
		f := &r.f[c.x]
		switch {
		case !f.set:
			if c.required {
				fieldFail(&reason, c.key, "", f)
			}
		case c.kind == jString && f.kind != jString:
			fieldFail(&reason, c.key, "a string", f)
		case c.kind == jInt && f.kind != jInt:
			fieldFail(&reason, c.key, "an integer", f)
		case c.kind == jTrue && f.kind != jTrue && f.kind != jFalse:
			fieldFail(&reason, c.key, "a boolean", f)
		case c.kind == jObject && f.kind != jObject:
			fieldFail(&reason, c.key, "an object", f)
		}
		if reason != "" {
			n.err = malformedErr(i, id, reason)
			return
		}
	}
	f := &r.f
	md := &n.Metadata
	if pf := &f[mdProps]; pf.set {
		if pf.kind != jObject {
			n.err = nodeErr(i, id, `"properties" is a JSON `+pf.kind.String()+`, not an object`,
				"fill_fetcher: key (properties) must be an object or null for "+id+".\n")
			return
		}
		for _, p := range r.props.list {
			if p.kind != jString {
				key := string(p.key)
				n.err = nodeErr(i, id, "property "+strconv.Quote(key)+" has a "+p.kind.String()+" value, not a string (Fluxion aborts)",
					"fill_fetcher: value of property ("+key+") is not a string for "+id+".\n")
				n.err.Crash = true
				return
			}
		}
		if len(r.props.list) > 0 {
			props := d.propSlice(len(r.props.list))
			for _, p := range r.props.list {
				props = append(props, graph.Property{Key: d.strs.intern(p.key), Value: d.strs.intern(p.val)})
			}
			slices.SortFunc(props, func(a, b graph.Property) int { return strings.Compare(a.Key, b.Key) })
			md.Properties = props
		}
	}
	for _, p := range r.paths.list {
		if p.kind != jString {
			n.err = malformedErr(i, id, "path of subsystem "+strconv.Quote(string(p.key))+" is a "+p.kind.String()+", not a string")
			return
		}
	}
	if len(r.paths.list) > 0 {
		paths := d.pathSlice(len(r.paths.list))
		for _, p := range r.paths.list {
			paths = append(paths, Path{Subsystem: d.strs.intern(p.key), Path: d.strs.make(p.val)})
		}
		md.Paths = paths
	}
	md.Type = d.strs.intern(f[mdType].s)
	if f[mdBasename].set {
		md.Basename = d.strs.intern(f[mdBasename].s)
	}
	if f[mdName].set {
		md.Name = d.strs.intern(f[mdName].s)
	}
	if f[mdUnit].set {
		md.Unit = d.strs.intern(f[mdUnit].s)
	}
	md.Exclusive = f[mdExclusive].kind == jTrue

	// apply_defaults
	uniq := f[mdUniqID].i
	if !f[mdUniqID].set || uniq == -1 {
		u, ok := numericID(id) // the common case of strtoll
		overflow := false
		if !ok {
			u, ok, overflow = strtoll(id)
		}
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
	lid := f[mdID].i
	if !f[mdID].set || lid == -2 {
		lid = uniq
		if md.Type == "node" && md.Name != "" {
			if t := trailingDigits(md.Name); t != "" {
				v, err := strconv.ParseInt(t, 10, 64)
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
		c := &d.names[md.ID&63]
		if c.name == "" || c.id != md.ID || c.base != md.Basename {
			d.name = strconv.AppendInt(append(d.name[:0], md.Basename...), md.ID, 10)
			*c = defaultName{md.Basename, md.ID, d.strs.intern(d.name)}
		}
		md.Name = c.name
	}
	md.Rank = -1
	if f[mdRank].set {
		md.Rank = f[mdRank].i
	}
	md.Status = graph.Status(f[mdStatus].i)
	md.Size = 1
	if f[mdSize].set && f[mdSize].i != -1 {
		md.Size = f[mdSize].i
	}
	if !d.opts.Fluxion {
		n.err = checkSize(i, n)
	}
}

func malformedErr(i int, id, reason string) *Error {
	return nodeErr(i, id, "malformed metadata: "+reason, "fill_fetcher: malformed metadata in an JGF node for "+id+"\n")
}

// checkSize is the strict reader's check of a node's size (the sentinel
// -1 is already replaced by the default, 1).
func checkSize(i int, n *Node) *Error {
	size := n.Metadata.Size
	var why string
	switch {
	case size < 0:
		why = " is negative"
	case size >= 1<<32:
		why = " does not fit in 32 bits"
	default:
		return nil
	}
	s := strconv.FormatInt(size, 10)
	return strictNodeErr(i, n.ID, `field "size": `+s+why+" (only the sentinel -1, meaning absent, may be negative)",
		"fill_fetcher: value for key (size) is out of range for "+n.ID+".\n")
}

// pathSlice returns room for n paths, cut from a block: the document's
// (document mode) or the batch's (direct mode: the builder copies what it
// keeps, and the batch is refilled once the builder is done with it).
func (d *decoder) pathSlice(n int) []Path {
	c := &d.chunk.paths
	if d.cur != nil {
		c = &d.cur.paths
	}
	if cap(*c)-len(*c) < n {
		*c = make([]Path, 0, max(n, 1024))
	}
	p := (*c)[len(*c) : len(*c) : len(*c)+n]
	*c = (*c)[:len(*c)+n]
	return p
}

func (d *decoder) propSlice(n int) []graph.Property {
	c := &d.chunk.props
	if d.cur != nil {
		c = &d.cur.props
	}
	if cap(*c)-len(*c) < n {
		*c = make([]graph.Property, 0, max(n, 256))
	}
	p := (*c)[len(*c) : len(*c) : len(*c)+n]
	*c = (*c)[:len(*c)+n]
	return p
}

// checkEdge checks the decoded edge r as Fluxion's reader does.
func (d *decoder) checkEdge(j int, r *edgeRec) (src, tgt []byte, sub string, err *Error) {
	malformed := func(reason string) *Error { return edgeErr(j, "malformed edge: "+reason, fluxMalformedE) }
	if r.kind != jObject {
		return nil, nil, "", malformed("edge is a JSON " + r.kind.String() + ", not an object")
	}
	for _, x := range [...]struct {
		key string
		f   *field
	}{{"source", &r.src}, {"target", &r.tgt}} {
		if !x.f.set {
			return nil, nil, "", malformed("missing " + strconv.Quote(x.key))
		}
		if x.f.kind != jString {
			return nil, nil, "", malformed(strconv.Quote(x.key) + " is a JSON " + x.f.kind.String() + ", not a string")
		}
	}
	sub = containment
	if r.md.set {
		if r.md.kind != jObject {
			return nil, nil, "", malformed(`"metadata" is a JSON ` + r.md.kind.String() + ", not an object")
		}
		if r.subs.set {
			if r.subs.kind != jString {
				return nil, nil, "", malformed(`"subsystem" is a JSON ` + r.subs.kind.String() + ", not a string")
			}
			sub = d.strs.intern(r.subs.s)
		}
	}
	return r.src.s, r.tgt.s, sub, nil
}

const containment = "containment"

// syntaxError returns the error jansson reports for data, which the
// scanner rejected.
func syntaxError(data []byte) *Error {
	jerr := checkJSON(data)
	if jerr == nil { // the scanner and the reference disagree: a bug
		jerr = &jsonError{text: "rejected by the fast decoder but not by the reference decoder (please report)", line: 1}
	}
	return &Error{
		Node: -1, Edge: -1, Line: jerr.line, Column: jerr.column,
		Reason:  "invalid JSON: " + jerr.text,
		fluxion: fluxJSON + jerr.text + ": <string>@" + strconv.Itoa(jerr.line) + ":" + strconv.Itoa(jerr.column) + ".\n",
	}
}

// missing returns the error of a document without "graph", "nodes" or
// "edges", or nil.
func (d *decoder) missing() *Error {
	switch {
	case !d.hasGraph:
		return missingKey("graph")
	case !d.hasNodes:
		return missingKey("nodes")
	case !d.hasEdges:
		return missingKey("edges")
	}
	return nil
}

func missingKey(key string) *Error {
	return docErr("missing required key \""+key+"\"", fluxMissingKey+key+").\n")
}

// roomFor returns list (the nodes or the edges of a Document so far,
// decoded from the bytes start to pos of size) with room for one more:
// when it is full, for as many more as the bytes left hold at the size of
// those so far (plus extra bytes each, for what follows them), but at
// most eight times as many as it has (a first item of a few bytes is no
// measure). Growing by append alone, 1.25 times at a time for a long
// list, copies a list of 66,561 nodes some twenty times, five times its
// size in all.
func roomFor[T any](list []T, start, pos, size, extra int) []T {
	n := len(list)
	if n < cap(list) {
		return list
	}
	per := max((pos-start)/max(n, 1), 1)
	more := min(max((size-pos)/(per+extra), n/8, 16), max(8*n, 1024))
	return slices.Grow(list, more)
}
