package plugin

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/gofluxion/gofluxion/graph"
)

// The resource graph
//
//	/cluster0                                   cluster, uniq_id 0, rank -1
//	/cluster0/<v1>/…/<vk>                       one vertex per topology level (Args.Topology),
//	                                            named by the node's label value, or
//	                                            "(unlabelled)" (type unlabelled) without it
//	/cluster0/<levels>/<node>                   node, id = rank = sid (a stable id)
//	/cluster0/<levels>/<node>/numa<z>           one per NUMA zone of the node's
//	                                            NodeResourceTopology, else one for the node
//	/cluster0/<levels>/<node>/numa<z>/core<i>   one vertex per allocatable core (cpuChunk:
//	                                            a core, or a part such as 100m)
//	…/gpu<i>, …/memory<i>                       one per gpu, one per memory chunk (1Gi)
//
// Every leaf has size 1, so whatever a pod gets it gets whole: the R
// written on the pod names whole vertices, and Fluxion's update books
// exactly those again after a restart (a partly used pool vertex could
// not be replayed). Leaf ids are numbered per node across its zones
// (core0…core15 in numa0, core16… in numa1), so a pod's leaves keep their
// identity when its node moves in the graph or gains its NUMA zones.
//
// Every node has NUMA vertices, one zone standing for the whole node when
// the node publishes none: Fluxion's jobspec must name every level between
// a matched resource and its slot, so one shape, node → numa → slot,
// works on every node. Vertex ids, ranks and uniq_ids derive from the
// node's stable id, and the level vertices' from a hash of their path, so
// the graph (and the order of a vertex's children, sorted by uniq_id) does
// not depend on the order in which nodes were seen.

const (
	clusterName = "cluster0"
	clusterPath = "/" + clusterName
	// per-type uniq_id blocks below a node's base (sid << 24)
	typeBlock = 1 << 20
	maxLeaves = typeBlock - 1
	// the NUMA vertices' block, after the leaf types'
	numaBlock = 3
	// MaxZones bounds the NUMA zones of a node.
	MaxZones = 64
	// level vertices: uniq_ids from levelBase up (node bases stay below)
	levelBase = int64(1) << 56
	levelMask = int64(1)<<48 - 1

	unlabelledType = "unlabelled"
	unlabelledName = "(unlabelled)"
	// nrtProperty is set on the nodes whose zones come from a
	// NodeResourceTopology: numa: single requests only use those.
	nrtProperty = "gofluxion.io/nrt"
)

// leaf types, in the order of their uniq_id blocks
var leafTypes = []string{"core", "gpu", "memory"}

// units counts whole vertices per leaf type.
type units struct{ Core, GPU, Mem int64 }

func (u units) get(t string) int64 {
	switch t {
	case "core":
		return u.Core
	case "gpu":
		return u.GPU
	}
	return u.Mem
}

func (u *units) addType(t string, n int64) {
	switch t {
	case "core":
		u.Core += n
	case "gpu":
		u.GPU += n
	default:
		u.Mem += n
	}
}

func (u units) plus(o units) units  { return units{u.Core + o.Core, u.GPU + o.GPU, u.Mem + o.Mem} }
func (u units) minus(o units) units { return units{u.Core - o.Core, u.GPU - o.GPU, u.Mem - o.Mem} }

// covers reports whether u holds at least d of every type.
func (u units) covers(d units) bool { return u.Core >= d.Core && u.GPU >= d.GPU && u.Mem >= d.Mem }

// times is how many demands d fit in u.
func (u units) times(d units) int64 {
	n := int64(-1)
	for _, t := range leafTypes {
		if d.get(t) > 0 {
			k := u.get(t) / d.get(t)
			if n < 0 || k < n {
				n = k
			}
		}
	}
	return max(n, 0)
}

func (u units) String() string {
	return fmt.Sprintf("%d core, %d gpu, %d memory", u.Core, u.GPU, u.Mem)
}

// raw is a request in Kubernetes units.
type raw struct{ MilliCPU, Bytes, GPU int64 }

func (r raw) add(o raw) raw { return raw{r.MilliCPU + o.MilliCPU, r.Bytes + o.Bytes, r.GPU + o.GPU} }
func (r raw) sub(o raw) raw { return raw{r.MilliCPU - o.MilliCPU, r.Bytes - o.Bytes, r.GPU - o.GPU} }

// podRaw is what a pod requests (containers, init containers, overhead).
func podRaw(p *v1.Pod, gpuRes v1.ResourceName) raw {
	req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
	r := raw{MilliCPU: req.Cpu().MilliValue(), Bytes: req.Memory().Value()}
	if q, ok := req[gpuRes]; ok {
		r.GPU = q.Value()
	}
	return r
}

// nodeRaw is what a node offers.
func nodeRaw(n *v1.Node, gpuRes v1.ResourceName) raw {
	a := n.Status.Allocatable
	r := raw{MilliCPU: a.Cpu().MilliValue(), Bytes: a.Memory().Value()}
	if q, ok := a[gpuRes]; ok {
		r.GPU = q.Value()
	}
	return r
}

// chunks is what one vertex stands for: a core vertex MilliCPU
// millicores (1000 by default, 100 with cpuChunk 100m), a memory vertex
// Bytes bytes.
type chunks struct{ MilliCPU, Bytes int64 }

// wholeCores are the default chunks with memory chunks of mem bytes.
func wholeCores(mem int64) chunks { return chunks{MilliCPU: 1000, Bytes: mem} }

// capacity is the number of vertices a node offers (rounded down).
func capacity(r raw, ch chunks) units {
	u := units{Core: r.MilliCPU / ch.MilliCPU, GPU: r.GPU, Mem: r.Bytes / ch.Bytes}
	u.Core, u.GPU, u.Mem = min(max(u.Core, 0), maxLeaves), min(max(u.GPU, 0), maxLeaves), min(max(u.Mem, 0), maxLeaves)
	return u
}

// demand is the number of vertices a request takes (rounded up). A pod
// that requests nothing still takes one core, so that every slot holds
// something.
func demand(r raw, ch chunks) units {
	u := units{Core: (r.MilliCPU + ch.MilliCPU - 1) / ch.MilliCPU, GPU: r.GPU, Mem: (r.Bytes + ch.Bytes - 1) / ch.Bytes}
	if u.Core == 0 && u.GPU == 0 && u.Mem == 0 {
		u.Core = 1
	}
	return u
}

// used is the number of vertices others' requests r make unavailable on a
// node offering alloc: what is left is rounded down.
func used(alloc, r raw, ch chunks) units {
	total := capacity(alloc, ch)
	left := capacity(alloc.sub(r), ch)
	return units{max(total.Core-left.Core, 0), max(total.GPU-left.GPU, 0), max(total.Mem-left.Mem, 0)}
}

// fitZones makes a node's zones: the NUMA zones (from its
// NodeResourceTopology) trimmed, last zones first, to what the node
// offers; or, without zones, one zone holding all of it. Zones left empty
// are dropped.
func fitZones(capu units, nrt []units) []units {
	if len(nrt) == 0 {
		return []units{capu}
	}
	left := capu
	var out []units
	for _, z := range nrt {
		z = units{min(z.Core, left.Core), min(z.GPU, left.GPU), min(z.Mem, left.Mem)}
		left = left.minus(z)
		if z != (units{}) {
			out = append(out, z)
		}
	}
	if len(out) == 0 {
		out = []units{{}}
	}
	return out
}

// hashSID is the preferred stable id of a node: 31 bits of FNV-1a.
func hashSID(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	s := int64(h.Sum32() & 0x7fffffff)
	if s == 0 {
		s = 1
	}
	return s
}

func nextSID(s int64) int64 {
	if s >= 0x7fffffff {
		return 1
	}
	return s + 1
}

// hashLevel is the preferred uniq_id of a level vertex.
func hashLevel(path string) int64 {
	h := fnv.New64a()
	h.Write([]byte(path))
	return levelBase + int64(h.Sum64()>>16)&levelMask
}

func nextLevel(u int64) int64 {
	if u >= levelBase+levelMask {
		return levelBase
	}
	return u + 1
}

func leafName(t string, i int64) string { return t + strconv.FormatInt(i, 10) }

func leafUniq(sid int64, t string, i int64) int64 {
	base := sid << 24
	return base + int64(slices.Index(leafTypes, t))*typeBlock + 1 + i
}

func zoneUniq(sid int64, z int) int64 { return sid<<24 + numaBlock*typeBlock + 1 + int64(z) }

// JGF documents, as gofluxion reads them.
type jgfDoc struct {
	Graph jgfGraph `json:"graph"`
}

type jgfGraph struct {
	Nodes []jgfNode `json:"nodes"`
	Edges []jgfEdge `json:"edges"`
}

type jgfNode struct {
	ID       string  `json:"id"`
	Metadata jgfMeta `json:"metadata"`
}

type jgfMeta struct {
	Type       string            `json:"type"`
	Basename   string            `json:"basename,omitempty"`
	Name       string            `json:"name,omitempty"`
	ID         int64             `json:"id"`
	UniqID     int64             `json:"uniq_id"`
	Rank       int64             `json:"rank"`
	Exclusive  bool              `json:"exclusive,omitempty"`
	Size       int64             `json:"size"`
	Unit       string            `json:"unit,omitempty"`
	Status     int               `json:"status,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	Paths      map[string]string `json:"paths"`
}

type jgfEdge struct {
	Source   string            `json:"source"`
	Target   string            `json:"target"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

func (d *jgfDoc) add(m jgfMeta) string {
	id := strconv.FormatInt(m.UniqID, 10)
	d.Graph.Nodes = append(d.Graph.Nodes, jgfNode{ID: id, Metadata: m})
	return id
}

func (d *jgfDoc) edge(src, dst string) {
	d.Graph.Edges = append(d.Graph.Edges, jgfEdge{Source: src, Target: dst, Metadata: map[string]string{"subsystem": "containment"}})
}

func rootMeta() jgfMeta {
	return jgfMeta{Type: "cluster", Name: clusterName, ID: 0, UniqID: 0, Rank: -1, Size: 1, Paths: map[string]string{"containment": clusterPath}}
}

// levelVertex is one vertex of a topology level.
type levelVertex struct {
	typ, name, path string
	uniq            int64
	nodes           int // nodes below it
}

func (lv *levelVertex) meta() jgfMeta {
	return jgfMeta{Type: lv.typ, Name: lv.name, ID: lv.uniq & levelMask, UniqID: lv.uniq, Rank: -1, Size: 1,
		Paths: map[string]string{"containment": lv.path}}
}

// place is where a node sits in the graph: its level vertices (outermost
// first), path and zones.
type place struct {
	name   string
	sid    int64
	levels []*levelVertex
	path   string
	zones  []units
	nrt    bool
}

// zoneOf returns the zone holding leaf i of type t.
func (p *place) zoneOf(t string, i int64) int {
	for z, u := range p.zones {
		if i < u.get(t) {
			return z
		}
		i -= u.get(t)
	}
	return -1
}

func (p *place) cap() units {
	var u units
	for _, z := range p.zones {
		u = u.plus(z)
	}
	return u
}

func (p *place) zonePath(z int) string { return p.path + "/numa" + strconv.Itoa(z) }

func (p *place) nodeMeta() jgfMeta {
	return jgfMeta{Type: "node", Name: p.name, ID: p.sid, UniqID: p.sid << 24, Rank: p.sid, Size: 1, Paths: map[string]string{"containment": p.path}}
}

func (p *place) zoneMeta(z int) jgfMeta {
	return jgfMeta{Type: "numa", Name: "numa" + strconv.Itoa(z), ID: int64(z), UniqID: zoneUniq(p.sid, z), Rank: p.sid, Size: 1,
		Paths: map[string]string{"containment": p.zonePath(z)}}
}

func (p *place) leafMeta(t string, i int64) jgfMeta {
	m := jgfMeta{Type: t, ID: i, UniqID: leafUniq(p.sid, t, i), Rank: p.sid, Size: 1,
		Paths: map[string]string{"containment": p.zonePath(p.zoneOf(t, i)) + "/" + leafName(t, i)}}
	if t == "memory" {
		m.Unit = "chunk"
	}
	return m
}

// spine adds the cluster, level and node vertices and returns the node's
// id. seen, when not nil, holds the vertices the document has already
// (several nodes in one document share their cluster and levels).
func (p *place) spine(d *jgfDoc, nm jgfMeta, seen map[int64]bool) string {
	add := func(m jgfMeta) (string, bool) {
		if seen != nil {
			if seen[m.UniqID] {
				return strconv.FormatInt(m.UniqID, 10), false
			}
			seen[m.UniqID] = true
		}
		return d.add(m), true
	}
	parent, _ := add(rootMeta())
	for _, lv := range p.levels {
		id, fresh := add(lv.meta())
		if fresh {
			d.edge(parent, id)
		}
		parent = id
	}
	n := d.add(nm)
	d.edge(parent, n)
	return n
}

// nodeJGF is the subgraph attached for a node: the cluster and level
// vertices (reused when they exist), the node, down, with its labels as
// properties, its zones and all its leaves. The node is set up after the
// attach (gofluxion, like Fluxion, counts attached nodes as up only
// through a status change).
func (p *place) nodeJGF(labels map[string]string) []byte {
	var d jgfDoc
	p.appendJGF(&d, labels, nil)
	b, _ := json.Marshal(&d)
	return b
}

// appendJGF adds the node's subgraph to a document (see nodeJGF).
func (p *place) appendJGF(d *jgfDoc, labels map[string]string, seen map[int64]bool) {
	nm := p.nodeMeta()
	nm.Status = int(graph.StatusDown)
	if len(labels) > 0 || p.nrt {
		nm.Properties = map[string]string{}
		for k, v := range labels {
			nm.Properties[k] = v
		}
		if p.nrt {
			nm.Properties[nrtProperty] = "true"
		}
	}
	n := p.spine(d, nm, seen)
	next := units{}
	for z, zu := range p.zones {
		zid := d.add(p.zoneMeta(z))
		d.edge(n, zid)
		for _, t := range leafTypes {
			start := next.get(t)
			for i := start; i < start+zu.get(t); i++ {
				d.edge(zid, d.add(p.leafMeta(t, i)))
			}
		}
		next = next.plus(zu)
	}
}

// bookJGF is an R booking the given leaves of the node (exclusively).
func (p *place) bookJGF(leaves []leaf) ([]byte, error) {
	var d jgfDoc
	n := p.spine(&d, p.nodeMeta(), nil)
	zones := map[int]string{}
	capu := p.cap()
	for _, l := range leaves {
		if l.ID < 0 || l.ID >= capu.get(l.Type) {
			return nil, fmt.Errorf("node %s has no %s", p.name, l)
		}
		z := p.zoneOf(l.Type, l.ID)
		zid, ok := zones[z]
		if !ok {
			zid = d.add(p.zoneMeta(z))
			d.edge(n, zid)
			zones[z] = zid
		}
		m := p.leafMeta(l.Type, l.ID)
		m.Exclusive = true
		d.edge(zid, d.add(m))
	}
	b, _ := json.Marshal(&d)
	return b, nil
}

// leaf names one leaf vertex of a node.
type leaf struct {
	Type string
	ID   int64
}

func (l leaf) String() string { return leafName(l.Type, l.ID) }

// rDoc is a JGF R kept generic, so that the vertices' metadata go back to
// gofluxion exactly as it wrote them.
type rDoc struct {
	Graph struct {
		Nodes []rNode `json:"nodes"`
		Edges []rEdge `json:"edges"`
	} `json:"graph"`
}

type rNode struct {
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata"`
}

type rEdge = map[string]any

func (n *rNode) path() string {
	if p, ok := n.Metadata["paths"].(map[string]any); ok {
		s, _ := p["containment"].(string)
		return s
	}
	return ""
}

func (n *rNode) typ() string { s, _ := n.Metadata["type"].(string); return s }

func (n *rNode) name() string {
	if s, _ := n.Metadata["name"].(string); s != "" {
		return s
	}
	p := n.path()
	return p[strings.LastIndexByte(p, '/')+1:]
}

func (n *rNode) num(key string) (int64, bool) {
	f, ok := n.Metadata[key].(float64)
	return int64(f), ok
}

// parseJGFR reads a bare JGF R, or the scheduling key of an RFC 20 R.
func parseJGFR(data []byte) (*rDoc, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("R is not JSON: %w", err)
	}
	if s, ok := top["scheduling"]; ok {
		data = s
	}
	var d rDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("R is not a JGF: %w", err)
	}
	if len(d.Graph.Nodes) == 0 {
		return nil, fmt.Errorf("R has no vertices")
	}
	return &d, nil
}

// rSummary is what the plugin needs to know about a pod's R: its node
// and leaves (the levels and zones above them may have changed since).
type rSummary struct {
	Node   string
	SID    int64
	Leaves []leaf
}

func summarize(d *rDoc) (rSummary, error) {
	var s rSummary
	for i := range d.Graph.Nodes {
		n := &d.Graph.Nodes[i]
		switch t := n.typ(); {
		case t == "node":
			if s.Node != "" {
				return s, fmt.Errorf("R spans nodes %s and %s", s.Node, n.name())
			}
			s.Node = n.name()
			s.SID, _ = n.num("rank")
		case slices.Contains(leafTypes, t):
			id, ok := n.num("id")
			if !ok {
				return s, fmt.Errorf("R vertex %s has no id", n.path())
			}
			s.Leaves = append(s.Leaves, leaf{t, id})
		}
	}
	if s.Node == "" {
		return s, fmt.Errorf("R names no node")
	}
	return s, nil
}

// podPart is one pod's share of a match: its node and leaves.
type podPart struct {
	node   string
	leaves []leaf
}

// splitMatch divides the selection of one shape (n pods of demand dem)
// into one part per pod. Each pod's slot sits in one NUMA vertex (node →
// numa → slot, or a top-level slot, which applies at the zones), so the
// leaves are grouped by zone and each group is cut into pods.
func splitMatch(sel []Selected, dem units, n int) ([]podPart, error) {
	type group struct {
		node   string
		leaves [3][]int64 // by leafTypes index
	}
	nodeOf := map[string]string{} // node path → name
	var order []string
	groups := map[string]*group{}
	for i := range sel {
		if sel[i].Type == "node" {
			nodeOf[sel[i].Path] = sel[i].Name
		}
	}
	for i := range sel {
		v := &sel[i]
		ti := slices.Index(leafTypes, v.Type)
		if ti < 0 {
			continue
		}
		zp := v.Path[:max(strings.LastIndexByte(v.Path, '/'), 0)]
		g := groups[zp]
		if g == nil {
			np := zp[:max(strings.LastIndexByte(zp, '/'), 0)]
			name, ok := nodeOf[np]
			if !ok {
				return nil, fmt.Errorf("selected %s has no selected node", v.Path)
			}
			g = &group{node: name}
			groups[zp] = g
			order = append(order, zp)
		}
		g.leaves[ti] = append(g.leaves[ti], v.ID)
	}
	out := make([]podPart, 0, n)
	for _, zp := range order {
		g := groups[zp]
		k := int64(-1)
		for ti, t := range leafTypes {
			got := int64(len(g.leaves[ti]))
			switch {
			case dem.get(t) == 0 && got > 0:
				return nil, fmt.Errorf("%s: %d %s selected, the pods need none", zp, got, t)
			case dem.get(t) == 0:
			case got%dem.get(t) != 0 || (k >= 0 && got/dem.get(t) != k):
				return nil, fmt.Errorf("%s: %d %s selected, not a multiple of the pods' %d", zp, got, t, dem.get(t))
			default:
				k = got / dem.get(t)
			}
		}
		for j := range k {
			part := podPart{node: g.node}
			for ti, t := range leafTypes {
				q := dem.get(t)
				for _, id := range g.leaves[ti][j*q : (j+1)*q] {
					part.leaves = append(part.leaves, leaf{t, id})
				}
			}
			out = append(out, part)
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("selection of %d pods for %d", len(out), n)
	}
	return out, nil
}
