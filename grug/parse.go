package grug

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// method is a recipe edge's generation method.
type method uint8

const (
	methodUnknown method = iota
	methodMultiply
	methodAssociateIn
	methodAssociateByPathIn
)

// Recipe attributes (GraphML keys known to the reader), spec formats.md §1.1.
const (
	// vertex (for="node") attributes
	aRoot = iota
	aType
	aBasename
	aSize
	aUnit
	aSubsystem
	// edge (for="edge") attributes
	aESubsystem
	aRelation
	aRRelation
	aIDScope
	aIDStart
	aIDStride
	aGenMethod
	aMultiScale
	aAsTgtSubsystem
	aAsTgtUplvl
	aAsSrcUplvl
	numAttrs
)

const firstEdgeAttr = aESubsystem

var attrNames = [numAttrs]string{
	"root", "type", "basename", "size", "unit", "subsystem",
	"e_subsystem", "relation", "rrelation", "id_scope", "id_start", "id_stride",
	"gen_method", "multi_scale", "as_tgt_subsystem", "as_tgt_uplvl", "as_src_uplvl",
}

// attrBits is the integer width of numeric attributes (0 for strings):
// "int" keys are 32-bit, size ("long") is 64-bit.
var attrBits = [numAttrs]int{
	aRoot: 32, aSize: 64,
	aIDScope: 32, aIDStart: 32, aIDStride: 32, aMultiScale: 32,
	aAsTgtUplvl: 32, aAsSrcUplvl: 32,
}

func lookupAttr(name string) int {
	for i, n := range attrNames {
		if n == name {
			return i
		}
	}
	return -1
}

// pool is a recipe vertex.
type pool struct {
	line                           int
	root                           int64
	size                           int64
	typ, basename, unit, subsystem string
}

// relation is a recipe edge.
type relation struct {
	line                               int
	src, dst                           int
	eSubsystem, relation, rrelation    string
	genMethod, asTgtSubsystem          string
	method                             method
	idScope, idStart, idStride         int64
	multiScale, asTgtUplvl, asSrcUplvl int64
}

func (p *pool) set(a int, v int64, s string) {
	switch a {
	case aRoot:
		p.root = v
	case aType:
		p.typ = s
	case aBasename:
		p.basename = s
	case aSize:
		p.size = v
	case aUnit:
		p.unit = s
	case aSubsystem:
		p.subsystem = s
	}
}

func (r *relation) set(a int, v int64, s string) {
	switch a {
	case aESubsystem:
		r.eSubsystem = s
	case aRelation:
		r.relation = s
	case aRRelation:
		r.rrelation = s
	case aIDScope:
		r.idScope = v
	case aIDStart:
		r.idStart = v
	case aIDStride:
		r.idStride = v
	case aGenMethod:
		r.genMethod = s
		switch s {
		case "MULTIPLY":
			r.method = methodMultiply
		case "ASSOCIATE_IN":
			r.method = methodAssociateIn
		case "ASSOCIATE_BY_PATH_IN":
			r.method = methodAssociateByPathIn
		default:
			r.method = methodUnknown
		}
	case aMultiScale:
		r.multiScale = v
	case aAsTgtSubsystem:
		r.asTgtSubsystem = s
	case aAsTgtUplvl:
		r.asTgtUplvl = v
	case aAsSrcUplvl:
		r.asSrcUplvl = v
	}
}

// event is one step of the recipe's depth-first walk: a tree edge index
// (>= 0) or, for ^v (< 0), the finishing of recipe vertex v.
type event int32

// Recipe is a parsed GRUG document: the recipe graph and its depth-first
// generation walk. A Recipe is immutable and may be generated into any
// number of graphs.
type Recipe struct {
	pools  []pool
	rels   []relation
	events []event
	// unknown counts tree edges with an unknown generation method;
	// unknownLine is the line of the first.
	unknown     int
	unknownLine int
}

// NumVertices returns the number of recipe vertices (<node> elements).
func (r *Recipe) NumVertices() int { return len(r.pools) }

// NumEdges returns the number of recipe edges (<edge> elements).
func (r *Recipe) NumEdges() int { return len(r.rels) }

// ---------------------------------------------------------------------------
// XML layer

type rawData struct {
	key, value string
	line       int
}

type rawKey struct {
	id, domain, name, typ string
	hasID, hasName        bool
	def                   *string
	line                  int
}

type rawElem struct {
	id, source, target    string
	hasID, hasSrc, hasDst bool
	directed              string
	line                  int
	data                  []rawData
}

type parser struct {
	d         *xml.Decoder
	keys      []rawKey
	nodes     []rawElem
	edges     []rawElem
	graphs    int
	graphData []rawData
}

func (p *parser) line() int {
	l, _ := p.d.InputPos()
	return l
}

func (p *parser) token() (xml.Token, error) {
	tok, err := p.d.Token()
	if err != nil {
		return nil, p.convert(err)
	}
	return tok, nil
}

// convert turns a decoder error into an *Error.
func (p *parser) convert(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return readErr(se.Line, "malformed XML: "+se.Msg)
	}
	if err == io.EOF {
		return readErr(p.line(), "malformed XML: unexpected end of document")
	}
	return readErr(p.line(), "malformed XML: "+err.Error())
}

func attr(se xml.StartElement, name string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func isSpace(s []byte) bool { return len(bytes.TrimLeft(s, " \t\r\n")) == 0 }

// Parse reads a GRUG document. All syntax, key and value errors are
// reported here; an unknown generation method is reported by Generate (as
// in Fluxion, only methods of edges the generation walk uses matter).
func Parse(data []byte) (*Recipe, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	p := &parser{d: xml.NewDecoder(bytes.NewReader(data))}
	if err := p.document(); err != nil {
		return nil, err
	}
	return p.resolve()
}

func (p *parser) document() error {
	seenRoot := false
	for {
		tok, err := p.d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return p.convert(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if seenRoot {
				return readErr(p.line(), "more than one root element")
			}
			if t.Name.Local != "graphml" {
				return readErr(p.line(), fmt.Sprintf("root element is <%s>, want <graphml>", t.Name.Local))
			}
			seenRoot = true
			if err := p.graphml(); err != nil {
				return err
			}
		case xml.CharData:
			if !isSpace(t) {
				return readErr(p.line(), "text outside the root element")
			}
		}
	}
	if !seenRoot {
		return readErr(0, "no <graphml> element")
	}
	if p.graphs == 0 {
		return readErr(0, "no <graph> element")
	}
	return nil
}

// skip consumes the rest of the current element.
func (p *parser) skip() error {
	for depth := 1; depth > 0; {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// text returns the character data of the current element, which must not
// contain child elements.
func (p *parser) text(elem string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := p.token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.StartElement:
			return "", readErr(p.line(), fmt.Sprintf("unexpected element <%s> inside <%s>", t.Name.Local, elem))
		case xml.EndElement:
			return sb.String(), nil
		}
	}
}

func (p *parser) graphml() error {
	for {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "key":
				err = p.key(t)
			case "graph":
				if p.graphs > 0 {
					return readErr(p.line(), "more than one <graph> element")
				}
				p.graphs++
				err = p.graph(t)
			default:
				err = p.skip()
			}
			if err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

func (p *parser) key(se xml.StartElement) error {
	k := rawKey{line: p.line(), domain: "all", typ: "string"}
	k.id, k.hasID = attr(se, "id")
	if v, ok := attr(se, "for"); ok {
		k.domain = v
	}
	k.name, k.hasName = attr(se, "attr.name")
	if v, ok := attr(se, "attr.type"); ok {
		k.typ = v
	}
	for {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == "default" {
				v, err := p.text("default")
				if err != nil {
					return err
				}
				if k.def == nil {
					k.def = &v
				}
			} else if err := p.skip(); err != nil {
				return err
			}
		case xml.EndElement:
			p.keys = append(p.keys, k)
			return nil
		}
	}
}

func (p *parser) graph(se xml.StartElement) error {
	line := p.line()
	ed, ok := attr(se, "edgedefault")
	if !ok {
		return readErr(line, "<graph> has no edgedefault attribute")
	}
	if ed != "directed" {
		return readErr(line, fmt.Sprintf("edgedefault=%q, want \"directed\"", ed))
	}
	for {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "node":
				err = p.elem(t, &p.nodes)
			case "edge":
				err = p.elem(t, &p.edges)
			case "data":
				d := rawData{line: p.line()}
				d.key, _ = attr(t, "key")
				d.value, err = p.text("data")
				p.graphData = append(p.graphData, d)
			case "graph":
				err = readErr(p.line(), "nested <graph> elements are not supported")
			default:
				err = p.skip()
			}
			if err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

// elem reads a <node> or <edge> element.
func (p *parser) elem(se xml.StartElement, list *[]rawElem) error {
	e := rawElem{line: p.line()}
	e.id, e.hasID = attr(se, "id")
	e.source, e.hasSrc = attr(se, "source")
	e.target, e.hasDst = attr(se, "target")
	e.directed, _ = attr(se, "directed")
	for {
		tok, err := p.token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "data":
				d := rawData{line: p.line()}
				var ok bool
				if d.key, ok = attr(t, "key"); !ok {
					return readErr(d.line, "<data> has no key attribute")
				}
				if d.value, err = p.text("data"); err != nil {
					return err
				}
				e.data = append(e.data, d)
			case "graph":
				return readErr(p.line(), "nested <graph> elements are not supported")
			default:
				if err := p.skip(); err != nil {
					return err
				}
			}
		case xml.EndElement:
			*list = append(*list, e)
			return nil
		}
	}
}

// ---------------------------------------------------------------------------
// GraphML → recipe

type keyInfo struct {
	attr   int // -1: not a recipe attribute
	domain string
	name   string
}

func parseValue(a int, s string) (int64, error) {
	bits := attrBits[a]
	if bits == 0 {
		return 0, nil
	}
	v, err := strconv.ParseInt(strings.Trim(s, " \t\r\n"), 10, bits)
	if err != nil {
		kind := "int"
		if bits == 64 {
			kind = "long"
		}
		return 0, fmt.Errorf("bad %s value %q for %s", kind, s, attrNames[a])
	}
	return v, nil
}

// usable reports whether key k applies to elements of domain dom
// ("node" or "edge").
func (k *keyInfo) usable(dom string) bool {
	if k.domain != dom && k.domain != "all" {
		return false
	}
	if dom == "node" {
		return k.attr >= 0 && k.attr < firstEdgeAttr
	}
	return k.attr >= firstEdgeAttr
}

var validDomains = map[string]bool{
	"node": true, "edge": true, "graph": true, "all": true,
	"graphml": true, "hyperedge": true, "port": true, "endpoint": true,
}

var validTypes = map[string]bool{
	"boolean": true, "int": true, "long": true, "float": true, "double": true, "string": true,
}

func (p *parser) resolve() (*Recipe, error) {
	keys := make(map[string]*keyInfo, len(p.keys))
	var tmplPool pool
	var tmplRel relation
	for i := range p.keys {
		rk := &p.keys[i]
		if !rk.hasID {
			return nil, readErr(rk.line, "<key> has no id attribute")
		}
		if _, dup := keys[rk.id]; dup {
			return nil, readErr(rk.line, fmt.Sprintf("duplicate key id %q", rk.id))
		}
		if !validDomains[rk.domain] {
			return nil, readErr(rk.line, fmt.Sprintf("key %q: invalid for=%q", rk.id, rk.domain))
		}
		if !validTypes[rk.typ] {
			return nil, readErr(rk.line, fmt.Sprintf("key %q: invalid attr.type=%q", rk.id, rk.typ))
		}
		name := rk.name
		if !rk.hasName {
			name = rk.id
		}
		k := &keyInfo{attr: lookupAttr(name), domain: rk.domain, name: name}
		keys[rk.id] = k
		if rk.def == nil {
			continue
		}
		var dom string
		switch {
		case k.domain == "node" && k.usable("node"):
			dom = "node"
		case k.domain == "edge" && k.usable("edge"):
			dom = "edge"
		default:
			return nil, readErr(rk.line, fmt.Sprintf("key %q (attr.name %q, for %q) is not a GRUG %s attribute and cannot have a default", rk.id, name, rk.domain, domainWord(k.domain)))
		}
		v, err := parseValue(k.attr, *rk.def)
		if err != nil {
			return nil, readErr(rk.line, "default of key "+strconv.Quote(rk.id)+": "+err.Error())
		}
		if dom == "node" {
			tmplPool.set(k.attr, v, *rk.def)
		} else {
			tmplRel.set(k.attr, v, *rk.def)
		}
	}
	if len(p.graphData) > 0 {
		d := p.graphData[0]
		return nil, readErr(d.line, fmt.Sprintf("<data key=%q> on <graph>: no graph attributes are supported", d.key))
	}
	// apply looks up one <data> element's key for domain dom.
	apply := func(d rawData, dom string) (int, int64, error) {
		k, ok := keys[d.key]
		if !ok {
			return 0, 0, readErr(d.line, fmt.Sprintf("<data> refers to undeclared key %q", d.key))
		}
		if !k.usable(dom) {
			return 0, 0, readErr(d.line, fmt.Sprintf("key %q (attr.name %q, for %q) is not a GRUG %s attribute", d.key, k.name, k.domain, domainWord(dom)))
		}
		v, err := parseValue(k.attr, d.value)
		if err != nil {
			return 0, 0, readErr(d.line, err.Error())
		}
		return k.attr, v, nil
	}

	r := &Recipe{pools: make([]pool, len(p.nodes)), rels: make([]relation, len(p.edges))}
	index := make(map[string]int, len(p.nodes))
	for i := range p.nodes {
		n := &p.nodes[i]
		if !n.hasID {
			return nil, readErr(n.line, "<node> has no id attribute")
		}
		if _, dup := index[n.id]; dup {
			return nil, readErr(n.line, fmt.Sprintf("duplicate node id %q", n.id))
		}
		index[n.id] = i
		pl := tmplPool
		pl.line = n.line
		for _, d := range n.data {
			a, v, err := apply(d, "node")
			if err != nil {
				return nil, err
			}
			pl.set(a, v, d.value)
		}
		r.pools[i] = pl
	}
	out := make([][]int, len(p.nodes))
	for i := range p.edges {
		e := &p.edges[i]
		if !e.hasSrc || !e.hasDst {
			return nil, readErr(e.line, "<edge> needs source and target attributes")
		}
		if e.directed != "" && e.directed != "true" {
			return nil, readErr(e.line, fmt.Sprintf("undirected edge (directed=%q)", e.directed))
		}
		src, ok1 := index[e.source]
		dst, ok2 := index[e.target]
		if !ok1 || !ok2 {
			return nil, readErr(e.line, fmt.Sprintf("edge %q -> %q refers to an undeclared node", e.source, e.target))
		}
		rl := tmplRel
		rl.line, rl.src, rl.dst = e.line, src, dst
		for _, d := range e.data {
			a, v, err := apply(d, "edge")
			if err != nil {
				return nil, err
			}
			rl.set(a, v, d.value)
		}
		r.rels[i] = rl
		out[src] = append(out[src], i)
	}
	r.walk(out)
	return r, nil
}

func domainWord(d string) string {
	if d == "node" {
		return "vertex"
	}
	if d == "edge" {
		return "edge"
	}
	return "\"" + d + "\""
}

// walk records the depth-first generation walk of spec formats.md §1.2:
// roots in document order, out-edges in document order, tree edges only.
func (r *Recipe) walk(out [][]int) {
	const (
		white = iota
		gray
		black
	)
	color := make([]uint8, len(r.pools))
	type frame struct{ v, next int }
	var stack []frame
	for s := range r.pools {
		if color[s] != white {
			continue
		}
		color[s] = gray
		stack = append(stack, frame{s, 0})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(out[f.v]) {
				e := out[f.v][f.next]
				f.next++
				t := r.rels[e].dst
				if color[t] != white {
					continue
				}
				r.events = append(r.events, event(e))
				if r.rels[e].method == methodUnknown {
					if r.unknown == 0 {
						r.unknownLine = r.rels[e].line
					}
					r.unknown++
				}
				color[t] = gray
				stack = append(stack, frame{t, 0})
				continue
			}
			color[f.v] = black
			r.events = append(r.events, ^event(f.v))
			stack = stack[:len(stack)-1]
		}
	}
}
