package hwloc

import (
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Read builds a resource graph from an hwloc XML topology (hwloc 1.x or
// 2.x format). allowlist is a comma-separated list of the resource types to
// keep (resource-query passes "cluster," followed by its -W value); when it
// names no type at all every supported object is kept. On failure Read
// returns (nil, err) with err of type *Error. Read applies the default
// graph.ReadLimits.
func Read(data []byte, allowlist string) (*graph.Graph, error) {
	return ReadLimited(data, allowlist, graph.ReadLimits{})
}

// ReadLimited is Read under the limits l (zero fields take the defaults):
// a document of more than l.MaxInputBytes bytes, more than l.MaxVertices
// objects or objects nested more than l.MaxDepth deep is rejected before
// any vertex is made, and the vertex paths may total l.MaxPathBytes bytes
// (each path repeats its ancestors' names, so deep or long-named
// topologies cost memory quadratic in their size).
func ReadLimited(data []byte, allowlist string, l graph.ReadLimits) (*graph.Graph, error) {
	l = l.WithDefaults()
	if int64(len(data)) > l.MaxInputBytes {
		return nil, limitErr(0, "the document is "+strconv.Itoa(len(data))+" bytes, more than the limit of "+strconv.FormatInt(l.MaxInputBytes, 10)+" (graph.ReadLimits.MaxInputBytes)")
	}
	top, err := parse(data, l)
	if err != nil {
		return nil, err
	}
	if err := shape(top); err != nil {
		return nil, err
	}
	g := graph.New()
	w := &walker{g: g, allow: parseAllowlist(allowlist), pathBytes: l.MaxPathBytes, maxPathBytes: l.MaxPathBytes}
	root := g.AddVertex(graph.Vertex{
		Type:     graph.TypeCluster,
		Rank:     -1,
		ID:       0,
		UniqID:   0,
		Size:     1,
		Basename: "cluster",
		Name:     "cluster0",
		Paths:    []graph.Path{{Subsystem: graph.Containment, Path: "/cluster0"}},
	})
	if err := g.SetRoot(graph.Containment, root); err != nil {
		return nil, &Error{Reason: strings.TrimSpace(err.Error()), err: err}
	}
	if err := w.walk(top, root); err != nil {
		return nil, err
	}
	return g, nil
}

// parseAllowlist returns the set of allowed types, or nil (everything is
// allowed) when the list names none. Tokens are used verbatim.
func parseAllowlist(s string) map[string]bool {
	var m map[string]bool
	for tok := range strings.SplitSeq(s, ",") {
		if tok == "" {
			continue
		}
		if m == nil {
			m = make(map[string]bool)
		}
		m[tok] = true
	}
	return m
}

type walker struct {
	g            *graph.Graph
	allow        map[string]bool
	logical      [numKinds]int64 // next logical index per hwloc type (objects outside the normal levels)
	levelNext    []int64         // next logical index per level of normal objects
	pathBytes    int64           // what graph.ReadLimits.MaxPathBytes still allows
	maxPathBytes int64
}

type frame struct {
	o      *object
	parent graph.VertexID
}

// walk visits the children of top depth first (normal, memory, I/O, then
// Misc children, each in order), creating a vertex and its edge from the
// nearest kept ancestor for every kept object when it is reached.
func (w *walker) walk(top *object, root graph.VertexID) error {
	var stack []frame
	push := func(o *object, parent graph.VertexID) {
		lists := [4][]*object{o.normal, o.memory, o.io, o.misc}
		for l := 3; l >= 0; l-- {
			for i := len(lists[l]) - 1; i >= 0; i-- {
				stack = append(stack, frame{lists[l][i], parent})
			}
		}
	}
	push(top, root)
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var logical int64
		if f.o.kind.class() == classNormal {
			for len(w.levelNext) <= f.o.level {
				w.levelNext = append(w.levelNext, 0)
			}
			logical = w.levelNext[f.o.level]
			w.levelNext[f.o.level]++
		} else {
			logical = w.logical[f.o.kind]
			w.logical[f.o.kind]++
		}
		v, keep, err := w.vertex(f.o, logical)
		if err != nil {
			return err
		}
		parent := f.parent
		if keep && (w.allow == nil || w.allow[v.allowName()]) {
			if parent, err = w.add(f.parent, v, f.o.line); err != nil {
				return err
			}
		}
		push(f.o, parent)
	}
	return nil
}

// vtx is the Fluxion view of one hwloc object.
type vtx struct {
	typ, basename, name string
	id, size            int64
	props               []graph.Property
}

// allowName is the allowlist token that keeps v: its type, except for
// caches, which are named by level (L1cache, L2cache, L3cache).
func (v *vtx) allowName() string {
	if v.typ == "cache" {
		return v.basename
	}
	return v.typ
}

// vertex maps object o with hwloc logical index logical; keep is false for
// object types Fluxion does not represent.
func (w *walker) vertex(o *object, logical int64) (v vtx, keep bool, err error) {
	v = vtx{id: logical, size: 1}
	switch o.kind {
	case kMachine:
		v.typ = "node"
		host, _ := o.info("HostName")
		if host == "" {
			return v, false, nil
		}
		v.basename, v.id = splitHost(host)
		v.name = host
	case kGroup:
		v.typ, v.basename = "group", "group"
	case kNUMANode:
		v.typ, v.basename = "numanode", "numanode"
	case kPackage:
		v.typ, v.basename = "socket", "socket"
	case kL1Cache, kL2Cache, kL3Cache:
		v.typ = "cache"
		v.basename = "L" + strconv.Itoa(int(o.kind-kL1Cache)+1) + "cache"
		v.size = int64(uint32(o.cacheSize / 1024))
	case kCore:
		v.typ, v.basename = "core", "core"
	case kPU:
		v.typ, v.basename = "pu", "pu"
	case kOSDev:
		switch {
		case o.osdevType == osdevCoProc || o.osdevType == osdevGPU && strings.HasPrefix(o.name, "rsmi"):
			v.typ, v.basename = "gpu", "gpu"
			v.id = gpuID(o.name, logical)
		case o.osdevType == osdevBlock:
			v.typ, v.basename = "storage", "storage"
			v.size = 0
			if s, ok := o.info("Size"); ok {
				kb, perr := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
				if perr != nil {
					return v, false, errAt(o.line, "block device "+strconv.Quote(o.name)+" has an invalid Size "+strconv.Quote(s))
				}
				v.size = int64(uint32(kb / 1000000))
			}
			if id, ok := o.info("LinuxDeviceID"); ok {
				v.props = []graph.Property{{Key: "LinuxDeviceID", Value: id}}
			}
		default:
			return v, false, nil
		}
	default:
		return v, false, nil
	}
	if v.name == "" {
		v.name = graph.DefaultName(v.basename, v.id)
	}
	return v, true, nil
}

// add creates vertex v with its containment edge from parent.
func (w *walker) add(parent graph.VertexID, v vtx, line int) (graph.VertexID, error) {
	g := w.g
	pp, _ := g.V(parent).PathIn(graph.Containment)
	if w.pathBytes -= int64(len(pp) + 1 + len(v.name)); w.pathBytes < 0 {
		return graph.NoVertex, limitErr(line, "the vertex paths exceed the limit of "+strconv.FormatInt(w.maxPathBytes, 10)+" bytes (graph.ReadLimits.MaxPathBytes)")
	}
	t := g.Type(v.typ)
	rank := int64(-1)
	if t == graph.TypeNode {
		rank = g.NextNodeRank()
	}
	vx := graph.Vertex{
		Type:     t,
		Rank:     rank,
		ID:       v.id,
		UniqID:   int64(g.NumVertices()),
		Size:     v.size,
		Basename: v.basename,
		Name:     v.name,
		Paths:    []graph.Path{{Subsystem: graph.Containment, Path: pp + "/" + v.name}},
	}
	vx.SetProps(v.props)
	id := g.AddVertex(vx)
	g.AddEdge(parent, id, graph.Containment)
	return id, nil
}

// splitHost splits a hostname into its stem and the number its trailing
// digits spell (-1 when there are none, or too many to fit in an int64).
func splitHost(host string) (string, int64) {
	i := len(host)
	for i > 0 && host[i-1] >= '0' && host[i-1] <= '9' {
		i--
	}
	if i == len(host) {
		return host, -1
	}
	n, err := strconv.ParseInt(host[i:], 10, 64)
	if err != nil {
		return host, -1
	}
	return host[:i], n
}

// gpuID parses the device number from an OS device name: cuda<N>,
// rsmi<N>, opencl<P>d<N>; otherwise the name's trailing number, or the
// hwloc logical index when there is none.
func gpuID(name string, logical int64) int64 {
	digits := func(s string) (int64, bool) {
		if s == "" || strings.TrimLeft(s, "0123456789") != "" {
			return 0, false
		}
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	}
	for _, p := range []string{"cuda", "rsmi"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			if n, ok := digits(rest); ok {
				return n
			}
		}
	}
	if rest, ok := strings.CutPrefix(name, "opencl"); ok {
		if p, n, ok := strings.Cut(rest, "d"); ok {
			if _, ok := digits(p); ok {
				if n, ok := digits(n); ok {
					return n
				}
			}
		}
	}
	if _, n := splitHost(name); n >= 0 {
		return n
	}
	return logical
}
