package hwloc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// kind is an hwloc object type. Caches are split by level and by
// instruction/data, as hwloc 2 does, so that each kind is one hwloc level
// with its own logical indexes.
type kind int

const (
	kMachine kind = iota
	kSystem       // hwloc 1.x multi-machine root
	kGroup
	kNUMANode
	kMemCache
	kPackage
	kDie
	kL1Cache
	kL2Cache
	kL3Cache
	kL4Cache
	kL5Cache
	kL1iCache
	kL2iCache
	kL3iCache
	kCore
	kPU
	kBridge
	kPCIDev
	kOSDev
	kMisc
	numKinds
)

// kindNames maps the type strings of hwloc v1 and v2 XML to kinds. The
// v1 "Cache" type is resolved with its depth and cache_type attributes.
var kindNames = map[string]kind{
	"machine":  kMachine,
	"system":   kSystem,
	"group":    kGroup,
	"numanode": kNUMANode,
	"memcache": kMemCache,
	"package":  kPackage,
	"socket":   kPackage,
	"die":      kDie,
	"l1cache":  kL1Cache,
	"l2cache":  kL2Cache,
	"l3cache":  kL3Cache,
	"l4cache":  kL4Cache,
	"l5cache":  kL5Cache,
	"l1icache": kL1iCache,
	"l2icache": kL2iCache,
	"l3icache": kL3iCache,
	"core":     kCore,
	"pu":       kPU,
	"bridge":   kBridge,
	"pcidev":   kPCIDev,
	"osdev":    kOSDev,
	"misc":     kMisc,
}

// class says which child list of its parent an object belongs to in hwloc
// 2's tree.
type class int

const (
	classNormal class = iota
	classMemory
	classIO
	classMisc
)

func (k kind) class() class {
	switch k {
	case kNUMANode, kMemCache:
		return classMemory
	case kBridge, kPCIDev, kOSDev:
		return classIO
	case kMisc:
		return classMisc
	}
	return classNormal
}

// hwloc OS device types (the osdev_type attribute of hwloc 1.x/2.x XML).
const (
	osdevBlock  = 0
	osdevGPU    = 1
	osdevDMA    = 4
	osdevCoProc = 5
)

type info struct{ name, value string }

// object is one hwloc object with its children split the way hwloc 2
// stores them.
type object struct {
	kind      kind
	line      int
	name      string // OS device (or Misc) name
	osdevType int64  // -1 when absent
	cacheSize uint64 // bytes
	infos     []info

	cpuset    string  // as written; "" when absent (compare with sameSet)
	normSet   *string // normCpuset(cpuset), computed once (see sameSet)
	nodeset   string  // likewise
	groupKind string  // Group kind and subkind attributes (hwloc 2 XML)

	raw                      []*object // children in document order, until the end tag
	normal, memory, io, misc []*object
	synthetic                bool // a Group made for a v1 NUMA node (hwloc's memory-kind group)
	v1                       bool // read from an hwloc 1.x document

	// Set by shape (topology.go).
	parent *object
	key    int    // level key: the kind, or a group kind's own key
	desc   uint64 // the level keys present strictly below, in normal children
	level  int    // hwloc level (depth) of a normal object
}

func (o *object) info(name string) (string, bool) {
	for _, i := range o.infos {
		if i.name == name {
			return i.value, true
		}
	}
	return "", false
}

// parse reads an hwloc XML document and returns a virtual object whose
// children are the topology's root object(s), classified as usual. It
// fails when the document has more than l.MaxVertices objects or nests
// them more than l.MaxDepth deep.
func parse(data []byte, l graph.ReadLimits) (*object, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	line := func() int { l, _ := d.InputPos(); return l }
	wrap := func(err error) *Error {
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			return &Error{Line: se.Line, Reason: "malformed XML: " + se.Msg, err: err}
		}
		return &Error{Line: line(), Reason: "malformed XML: " + err.Error(), err: err}
	}

	// Find the <topology> root element.
	var top *object
	var v1 bool
	for top == nil {
		tok, err := d.Token()
		if err == io.EOF {
			return nil, errAt(0, "no <topology> element")
		}
		if err != nil {
			return nil, wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "topology" {
				return nil, errAt(line(), "root element is <"+t.Name.Local+">, want <topology>")
			}
			if v1, err = checkVersion(t, line()); err != nil {
				return nil, err
			}
			top = &object{kind: kSystem, line: line(), osdevType: -1}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, errAt(line(), "text before <topology>")
			}
		}
	}

	stack := []*object{top}
	var roots []*object
	objects := 0
	for len(stack) > 0 {
		tok, err := d.Token()
		if err == io.EOF {
			return nil, errAt(line(), "malformed XML: unexpected EOF")
		}
		if err != nil {
			return nil, wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			cur := stack[len(stack)-1]
			switch t.Name.Local {
			case "object":
				if objects++; objects > l.MaxVertices {
					return nil, limitErr(line(), "more than "+strconv.Itoa(l.MaxVertices)+" objects (the limit graph.ReadLimits.MaxVertices)")
				}
				if len(stack) > l.MaxDepth { // stack holds the topology and the open objects
					return nil, limitErr(line(), "objects nested more than "+strconv.Itoa(l.MaxDepth)+" deep (the limit graph.ReadLimits.MaxDepth)")
				}
				o, err := newObject(t, line())
				if err != nil {
					return nil, err
				}
				o.v1 = v1
				stack = append(stack, o)
				continue
			case "info":
				if cur != top {
					name, value, hasName := "", "", false
					for _, a := range t.Attr {
						switch a.Name.Local {
						case "name":
							name, hasName = a.Value, true
						case "value":
							value = a.Value
						}
					}
					if hasName {
						cur.infos = append(cur.infos, info{name, value})
					}
				}
			}
			// info's content, and every other element (page_type,
			// distances, userdata, support, ...), is skipped.
			if err := d.Skip(); err != nil {
				return nil, wrap(err)
			}
		case xml.EndElement:
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			o.classify()
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.raw = append(p.raw, o)
				if p == top {
					roots = append(roots, o)
				}
			}
		}
	}
	if len(roots) == 0 {
		return nil, errAt(top.line, "<topology> has no root object")
	}
	if len(roots) > 1 {
		return nil, errAt(roots[1].line, "<topology> has "+strconv.Itoa(len(roots))+" root objects, want 1")
	}
	// Only comments, processing instructions and white space may follow.
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return nil, errAt(line(), "element <"+t.Name.Local+"> after </topology>")
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, errAt(line(), "text after </topology>")
			}
		}
	}
	return top, nil
}

// checkVersion accepts hwloc 1.x (no version attribute) and 2.x XML and
// reports whether the document is 1.x.
func checkVersion(t xml.StartElement, line int) (v1 bool, err error) {
	v1 = true
	for _, a := range t.Attr {
		if a.Name.Local != "version" {
			continue
		}
		major, _, _ := strings.Cut(strings.TrimSpace(a.Value), ".")
		if major != "1" && major != "2" {
			return false, errAt(line, "unsupported hwloc XML version "+strconv.Quote(a.Value))
		}
		v1 = major == "1"
	}
	return v1, nil
}

func newObject(t xml.StartElement, line int) (*object, error) {
	o := &object{line: line, osdevType: -1}
	var typ string
	hasType := false
	cacheDepth, cacheType := int64(-1), int64(0)
	num := func(a xml.Attr) (uint64, error) {
		n, err := strconv.ParseUint(strings.TrimSpace(a.Value), 10, 64)
		if err != nil {
			return 0, errAt(line, "object attribute "+a.Name.Local+"="+strconv.Quote(a.Value)+" is not a non-negative integer")
		}
		return n, nil
	}
	for _, a := range t.Attr {
		var err error
		var n uint64
		switch a.Name.Local {
		case "type":
			typ, hasType = a.Value, true
		case "name":
			o.name = a.Value
		case "osdev_type":
			n, err = num(a)
			o.osdevType = int64(min(n, 1<<62))
		case "cache_size":
			o.cacheSize, err = num(a)
		case "depth":
			n, err = num(a)
			cacheDepth = int64(min(n, 1<<62))
		case "cache_type":
			n, err = num(a)
			cacheType = int64(min(n, 1<<62))
		case "cpuset":
			o.cpuset = a.Value
		case "nodeset":
			o.nodeset = a.Value
		case "kind", "subkind":
			o.groupKind += a.Name.Local + "=" + a.Value + ";"
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasType {
		return nil, errAt(line, "object without a type attribute")
	}
	lower := strings.ToLower(typ)
	if lower == "cache" {
		// hwloc 1.x: one Cache type; depth is the level, cache_type 2
		// means an instruction cache.
		icache := cacheType == 2
		switch {
		case cacheDepth >= 1 && cacheDepth <= 5 && !icache:
			o.kind = kL1Cache + kind(cacheDepth-1)
		case cacheDepth >= 1 && cacheDepth <= 3 && icache:
			o.kind = kL1iCache + kind(cacheDepth-1)
		case cacheDepth < 0:
			return nil, errAt(line, "Cache object without a depth attribute")
		default:
			return nil, errAt(line, "Cache object with unsupported depth "+strconv.FormatInt(cacheDepth, 10))
		}
		return o, nil
	}
	k, ok := kindNames[lower]
	if !ok {
		return nil, errAt(line, "unknown object type "+strconv.Quote(typ))
	}
	o.kind = k
	return o, nil
}

// classify distributes o's document-order children over its normal,
// memory, I/O and Misc lists, as hwloc 2 stores them. hwloc 1.x XML nests
// normal objects inside NUMA nodes and places NUMA nodes among normal
// objects; hwloc 2 imports such a NUMA node as follows:
//
//   - when its cpuset equals its parent's, it becomes a memory child of
//     the parent and its own children are spliced into the parent's lists
//     in its place;
//   - otherwise a Group object (hwloc's memory kind) with the same cpuset
//     takes its place, holding its children and having it as memory
//     child. Such groups usually add no structure and are merged away
//     later (shape), e.g. when each wraps one Package.
func (o *object) classify() {
	kids := o.raw
	o.raw = nil
	for _, k := range kids {
		switch k.kind.class() {
		case classIO:
			o.io = append(o.io, k)
		case classMisc:
			o.misc = append(o.misc, k)
		case classNormal:
			o.normal = append(o.normal, k)
		case classMemory:
			if k.kind != kNUMANode || !k.v1 {
				o.memory = append(o.memory, k)
				continue
			}
			normal, io, misc := k.normal, k.io, k.misc
			k.normal, k.io, k.misc = nil, nil, nil
			if sameSet(k, o) {
				o.normal = append(o.normal, normal...)
				o.memory = append(o.memory, k)
				o.io = append(o.io, io...)
				o.misc = append(o.misc, misc...)
				continue
			}
			g := &object{kind: kGroup, line: k.line, osdevType: -1, synthetic: true, cpuset: k.cpuset,
				normal: normal, memory: []*object{k}, io: io, misc: misc}
			o.normal = append(o.normal, g)
		}
	}
}

// sameSet reports whether two objects' cpusets name the same set. Each
// object's set is normalized once: a parent with a long cpuset and many
// v1 NUMA children would otherwise be normalized once per child (a 276 KB
// document took minutes).
func sameSet(a, b *object) bool { return a.cpuset == b.cpuset || a.norm() == b.norm() }

func (o *object) norm() string {
	if o.normSet == nil {
		n := normCpuset(o.cpuset)
		o.normSet = &n
	}
	return *o.normSet
}

// zeroSet reports whether a bitmap string is present and has no bit set.
func zeroSet(s string) bool {
	if strings.TrimSpace(s) == "" {
		return false
	}
	for w := range strings.SplitSeq(strings.ToLower(s), ",") {
		if strings.Trim(strings.TrimPrefix(strings.TrimSpace(w), "0x"), "0") != "" {
			return false
		}
	}
	return true
}

// normCpuset normalizes an hwloc bitmap string ("0x000000ff,0x0000ff00":
// 32-bit hexadecimal words, most significant first) so that equal sets
// compare equal: lower case, without leading zero words or leading zeros.
func normCpuset(s string) string {
	words := strings.Split(strings.ToLower(strings.TrimSpace(s)), ",")
	for i, w := range words {
		w = strings.TrimPrefix(strings.TrimSpace(w), "0x")
		if w == "" {
			w = "0" // hwloc 2 writes zero words as empty ones: "0xff,,0x0"
		}
		if n, err := strconv.ParseUint(w, 16, 64); err == nil {
			w = strconv.FormatUint(n, 16)
		}
		words[i] = w
	}
	for len(words) > 1 && words[0] == "0" {
		words = words[1:]
	}
	for i := 1; i < len(words); i++ {
		words[i] = strings.Repeat("0", max(0, 8-len(words[i]))) + words[i]
	}
	return strings.Join(words, ",")
}
