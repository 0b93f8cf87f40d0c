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
//	/cluster0                     cluster, uniq_id 0, rank -1
//	/cluster0/<node name>         node, id = rank = sid (a stable id)
//	/cluster0/<node>/core<i>      one vertex per allocatable core
//	/cluster0/<node>/gpu<i>       one vertex per allocatable gpu
//	/cluster0/<node>/memory<i>    one vertex per memory chunk (1Gi)
//
// Every leaf has size 1, so whatever a pod gets it gets whole: the R
// written on the pod names whole vertices, and Fluxion's update books
// exactly those again after a restart (a partly used pool vertex could
// not be replayed). Vertex ids, ranks and uniq_ids derive from the node's
// stable id, so the graph (and the order of a vertex's children, sorted
// by uniq_id) does not depend on the order in which nodes were seen.

const (
	clusterName = "cluster0"
	clusterPath = "/" + clusterName
	// per-type uniq_id blocks below a node's base (sid << 24)
	typeBlock = 1 << 20
	maxLeaves = typeBlock - 1
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

// capacity is the number of vertices a node offers (rounded down).
func capacity(r raw, chunk int64) units {
	u := units{Core: r.MilliCPU / 1000, GPU: r.GPU, Mem: r.Bytes / chunk}
	u.Core, u.GPU, u.Mem = min(max(u.Core, 0), maxLeaves), min(max(u.GPU, 0), maxLeaves), min(max(u.Mem, 0), maxLeaves)
	return u
}

// demand is the number of vertices a request takes (rounded up). A pod
// that requests nothing still takes one core, so that every slot holds
// something.
func demand(r raw, chunk int64) units {
	u := units{Core: (r.MilliCPU + 999) / 1000, GPU: r.GPU, Mem: (r.Bytes + chunk - 1) / chunk}
	if u.Core == 0 && u.GPU == 0 && u.Mem == 0 {
		u.Core = 1
	}
	return u
}

// used is the number of vertices others' requests r make unavailable on a
// node offering alloc: what is left is rounded down.
func used(alloc, r raw, chunk int64) units {
	total := capacity(alloc, chunk)
	left := capacity(alloc.sub(r), chunk)
	return units{max(total.Core-left.Core, 0), max(total.GPU-left.GPU, 0), max(total.Mem-left.Mem, 0)}
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

func nodePath(name string) string { return clusterPath + "/" + name }

func leafName(t string, i int64) string { return t + strconv.FormatInt(i, 10) }

func leafUniq(sid int64, t string, i int64) int64 {
	base := sid << 24
	return base + int64(slices.Index(leafTypes, t))*typeBlock + 1 + i
}

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

func nodeMeta(name string, sid int64) jgfMeta {
	return jgfMeta{Type: "node", Name: name, ID: sid, UniqID: sid << 24, Rank: sid, Size: 1, Paths: map[string]string{"containment": nodePath(name)}}
}

func leafMeta(node string, sid int64, t string, i int64) jgfMeta {
	return jgfMeta{Type: t, ID: i, UniqID: leafUniq(sid, t, i), Rank: sid, Size: 1,
		Paths: map[string]string{"containment": nodePath(node) + "/" + leafName(t, i)}}
}

// nodeJGF is the subgraph attached for a node: the cluster vertex (which
// exists and is reused), the node, down, with its labels as properties,
// and all its leaves. The node is set up after the attach (gofluxion,
// like Fluxion, counts attached nodes as up only through a status change).
func nodeJGF(name string, sid int64, u units, labels map[string]string) []byte {
	var d jgfDoc
	root := d.add(rootMeta())
	nm := nodeMeta(name, sid)
	nm.Status = int(graph.StatusDown)
	if len(labels) > 0 {
		nm.Properties = labels
	}
	n := d.add(nm)
	d.edge(root, n)
	for _, t := range leafTypes {
		for i := int64(0); i < u.get(t); i++ {
			m := leafMeta(name, sid, t, i)
			if t == "memory" {
				m.Unit = "chunk"
			}
			d.edge(n, d.add(m))
		}
	}
	b, _ := json.Marshal(&d)
	return b
}

// bookJGF is an R booking the given leaves of one node (for the usage of
// pods placed by others).
func bookJGF(name string, sid int64, leaves []leaf) []byte {
	var d jgfDoc
	root := d.add(rootMeta())
	n := d.add(nodeMeta(name, sid))
	d.edge(root, n)
	for _, l := range leaves {
		m := leafMeta(name, sid, l.Type, l.ID)
		m.Exclusive = true
		if l.Type == "memory" {
			m.Unit = "chunk"
		}
		d.edge(n, d.add(m))
	}
	b, _ := json.Marshal(&d)
	return b
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

// rSummary is what the plugin needs to know about a pod's R.
type rSummary struct {
	Node   string
	SID    int64
	Leaves []leaf
}

func summarize(d *rDoc) (rSummary, error) {
	var s rSummary
	for i := range d.Graph.Nodes {
		n := &d.Graph.Nodes[i]
		p := n.path()
		switch t := n.typ(); t {
		case "cluster":
		case "node":
			if s.Node != "" {
				return s, fmt.Errorf("R spans nodes %s and %s", s.Node, strings.TrimPrefix(p, clusterPath+"/"))
			}
			s.Node = strings.TrimPrefix(p, clusterPath+"/")
			s.SID, _ = n.num("rank")
		default:
			id, ok := n.num("id")
			if !ok || !slices.Contains(leafTypes, t) {
				return s, fmt.Errorf("R vertex %s: unexpected type %q", p, t)
			}
			s.Leaves = append(s.Leaves, leaf{t, id})
		}
	}
	if s.Node == "" {
		return s, fmt.Errorf("R names no node")
	}
	return s, nil
}

// splitShape divides the JGF of one shape's selection (n pods of demand
// dem, node[n] → slot[1], so one pod per selected node) into one R per
// pod: the cluster vertex, the pod's node and its leaves.
func splitShape(all []byte, dem units, n int) ([][]byte, []rSummary, error) {
	d, err := parseJGFR(all)
	if err != nil {
		return nil, nil, err
	}
	var root *rNode
	type nodeSel struct {
		n      *rNode
		name   string
		leaves map[string][]int // type → indexes into d.Graph.Nodes
	}
	byPath := map[string]*nodeSel{}
	var order []*nodeSel
	for i := range d.Graph.Nodes {
		v := &d.Graph.Nodes[i]
		switch v.typ() {
		case "cluster":
			root = v
		case "node":
			p := v.path()
			ns := &nodeSel{n: v, name: strings.TrimPrefix(p, clusterPath+"/"), leaves: map[string][]int{}}
			byPath[p] = ns
			order = append(order, ns)
		}
	}
	if root == nil || len(order) != n {
		return nil, nil, fmt.Errorf("selection of %d nodes for %d pods", len(order), n)
	}
	for i := range d.Graph.Nodes {
		v := &d.Graph.Nodes[i]
		t := v.typ()
		if !slices.Contains(leafTypes, t) {
			continue
		}
		p := v.path()
		ns := byPath[p[:strings.LastIndexByte(p, '/')]]
		if ns == nil {
			return nil, nil, fmt.Errorf("selected %s has no selected node", p)
		}
		ns.leaves[t] = append(ns.leaves[t], i)
	}
	out := make([][]byte, n)
	sums := make([]rSummary, n)
	for pi, ns := range order {
		var part rDoc
		part.Graph.Nodes = append(part.Graph.Nodes, *root, *ns.n)
		keep := map[string]bool{root.ID: true, ns.n.ID: true}
		sum := rSummary{Node: ns.name}
		sum.SID, _ = ns.n.num("rank")
		for _, t := range leafTypes {
			idx := ns.leaves[t]
			if int64(len(idx)) != dem.get(t) {
				return nil, nil, fmt.Errorf("node %s: %d %s selected, the pod needs %d", ns.name, len(idx), t, dem.get(t))
			}
			for _, j := range idx {
				v := d.Graph.Nodes[j]
				part.Graph.Nodes = append(part.Graph.Nodes, v)
				keep[v.ID] = true
				id, _ := v.num("id")
				sum.Leaves = append(sum.Leaves, leaf{t, id})
			}
		}
		for _, e := range d.Graph.Edges {
			src, _ := e["source"].(string)
			dst, _ := e["target"].(string)
			if keep[src] && keep[dst] {
				part.Graph.Edges = append(part.Graph.Edges, e)
			}
		}
		b, err := json.Marshal(&part)
		if err != nil {
			return nil, nil, err
		}
		out[pi], sums[pi] = b, sum
	}
	return out, sums, nil
}
