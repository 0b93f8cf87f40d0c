package gofluxion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Random graphs, jobspecs and documents for TestModel.

// gnode describes a vertex to create (a graph, or a subtree to attach).
type gnode struct {
	typ, basename  string
	id, rank, size int64
	uniq           int64  // uniq_id (set by buildGraph and attachDoc)
	perf           string // perf_class property, "" for none
	kids           []*gnode
}

func (n *gnode) name() string { return n.basename + strconv.FormatInt(n.id, 10) }

// String prints the tree compactly: m0{node0@0{socket0{core0,memory0:4}}}.
func (n *gnode) String() string {
	var b strings.Builder
	var rec func(*gnode)
	rec = func(n *gnode) {
		b.WriteString(n.name())
		if n.typ == "node" {
			fmt.Fprintf(&b, "@%d", n.rank)
		}
		if n.typ == "memory" {
			fmt.Fprintf(&b, ":%d", n.size)
		}
		if n.perf != "" {
			b.WriteString("%" + n.perf)
		}
		if len(n.kids) > 0 {
			b.WriteByte('{')
			for i, k := range n.kids {
				if i > 0 {
					b.WriteByte(',')
				}
				rec(k)
			}
			b.WriteByte('}')
		}
	}
	rec(n)
	return b.String()
}

// genState numbers the nodes, ranks, sockets and leaves an episode
// creates, so attached ones get fresh names.
type genState struct {
	ranked   bool // ranks on every vertex of a node, not only on the node
	sockets  bool // a socket level
	nextNode int64
	nextRank int64
	nextUniq int64 // for attached vertices
}

// genNode makes a node with its sockets, cores, gpus and memory pools.
func (gs *genState) genNode(r *rand.Rand, rank int64) *gnode {
	n := &gnode{typ: "node", basename: "node", id: gs.nextNode, rank: rank, size: 1}
	gs.nextNode++
	if r.IntN(3) == 0 {
		n.perf = strconv.Itoa(r.IntN(3))
	}
	ids := &[4]int64{}
	if gs.sockets {
		for range 1 + r.IntN(2) {
			n.kids = append(n.kids, gs.genSocket(r, n, ids))
		}
	} else {
		gs.fill(r, n, n, ids)
	}
	return n
}

func (gs *genState) genSocket(r *rand.Rand, node *gnode, ids *[4]int64) *gnode {
	s := &gnode{typ: "socket", basename: "socket", id: ids[0], rank: gs.subRank(node), size: 1}
	ids[0]++
	gs.fill(r, node, s, ids)
	return s
}

func (gs *genState) subRank(node *gnode) int64 {
	if gs.ranked {
		return node.rank
	}
	return -1
}

// fill adds 1-4 cores, 0-2 gpus and 0-1 memory pool under p.
func (gs *genState) fill(r *rand.Rand, node, p *gnode, ids *[4]int64) {
	rk := gs.subRank(node)
	for range 1 + r.IntN(4) {
		p.kids = append(p.kids, &gnode{typ: "core", basename: "core", id: ids[1], rank: rk, size: 1})
		ids[1]++
	}
	for range r.IntN(3) {
		p.kids = append(p.kids, &gnode{typ: "gpu", basename: "gpu", id: ids[2], rank: rk, size: 1})
		ids[2]++
	}
	if r.IntN(2) == 0 {
		p.kids = append(p.kids, &gnode{typ: "memory", basename: "memory", id: ids[3], rank: rk, size: int64(1 + r.IntN(8))})
		ids[3]++
	}
}

// genGraph draws a cluster: 0-2 racks (0: nodes under the cluster), 1-3
// nodes each, an optional socket level, cores, gpus and memory.
func genGraph(r *rand.Rand) (*gnode, *genState) {
	gs := &genState{ranked: r.IntN(4) != 0, sockets: r.IntN(5) != 0, nextUniq: 1 << 20}
	root := &gnode{typ: "cluster", basename: "m", rank: -1, size: 1}
	racks := r.IntN(3)
	if racks == 0 {
		for range 1 + r.IntN(3) {
			root.kids = append(root.kids, gs.genNode(r, gs.nextRank))
			gs.nextRank++
		}
	}
	for ri := range racks {
		rack := &gnode{typ: "rack", basename: "rack", id: int64(ri), rank: -1, size: 1}
		for range 1 + r.IntN(3) {
			rack.kids = append(rack.kids, gs.genNode(r, gs.nextRank))
			gs.nextRank++
		}
		root.kids = append(root.kids, rack)
	}
	return root, gs
}

// buildGraph builds the graph and the model's copy of it.
func buildGraph(root *gnode) (*graph.Graph, *model) {
	b := graph.NewBuilder()
	md := newModel()
	var rec func(n *gnode, pv graph.VertexID, pm int)
	rec = func(n *gnode, pv graph.VertexID, pm int) {
		opts := []graph.Option{graph.WithRank(n.rank), graph.WithBasename(n.basename)}
		if n.typ == "memory" {
			opts = append(opts, graph.WithSize(n.size), graph.WithUnit("GB"))
		}
		if n.perf != "" {
			opts = append(opts, graph.WithProperty("perf_class", n.perf))
		}
		v := b.MustAdd(pv, n.typ, n.id, opts...)
		n.uniq = int64(v) // the builder's uniq_id is the index
		mv := md.add(pm, n.typ, n.basename, n.id, n.rank, n.size, n.uniq)
		for _, k := range n.kids {
			rec(k, v, mv)
		}
	}
	rec(root, graph.NoVertex, -1)
	return b.Graph(), md
}

// toGnode describes the model's live subtree at v (to attach it again).
func (m *model) toGnode(v int) *gnode {
	x := &m.vs[v]
	n := &gnode{typ: x.typ, basename: strings.TrimSuffix(x.name, strconv.FormatInt(x.id, 10)), id: x.id, rank: x.rank, size: x.size, uniq: x.uniq}
	for _, k := range x.kids {
		if m.vs[k].live {
			n.kids = append(n.kids, m.toGnode(k))
		}
	}
	return n
}

// attachDoc writes a JGF that attaches sub under the live vertex parent:
// the chain of existing vertices from the root, then the new subtree, whose
// vertices get fresh uniq_ids from *uniq (set in sub).
func attachDoc(m *model, parent int, sub *gnode, uniq *int64) []byte {
	var chain []int
	for v := parent; v >= 0; v = m.vs[v].parent {
		chain = append(chain, v)
	}
	slices.Reverse(chain)
	var nodes, edges []string
	node := func(id int64, typ, basename, name string, vid, rank, size int64, path string) {
		s := fmt.Sprintf(`{"id": "%d", "metadata": {"type": %q, "basename": %q, "name": %q, "id": %d, "rank": %d`, id, typ, basename, name, vid, rank)
		if typ == "memory" {
			s += fmt.Sprintf(`, "unit": "GB", "size": %d`, size)
		}
		nodes = append(nodes, s+fmt.Sprintf(`, "paths": {"containment": %q}}}`, path))
	}
	edge := func(a, b int64) { edges = append(edges, fmt.Sprintf(`{"source": "%d", "target": "%d"}`, a, b)) }
	for i, v := range chain {
		x := &m.vs[v]
		node(x.uniq, x.typ, strings.TrimSuffix(x.name, strconv.FormatInt(x.id, 10)), x.name, x.id, x.rank, x.size, x.path)
		if i > 0 {
			edge(m.vs[chain[i-1]].uniq, x.uniq)
		}
	}
	var rec func(n *gnode, pid int64, ppath string)
	rec = func(n *gnode, pid int64, ppath string) {
		n.uniq = *uniq
		*uniq++
		path := ppath + "/" + n.name()
		node(n.uniq, n.typ, n.basename, n.name(), n.id, n.rank, n.size, path)
		edge(pid, n.uniq)
		for _, k := range n.kids {
			rec(k, n.uniq, path)
		}
	}
	rec(sub, m.vs[parent].uniq, m.vs[parent].path)
	return []byte(`{"graph": {"nodes": [` + strings.Join(nodes, ", ") + `], "edges": [` + strings.Join(edges, ", ") + `]}}`)
}

// genJobspec draws a canonical jobspec over the types the graph has:
// a chain of levels from cluster, rack, node or socket (each below the first
// kept or skipped), an optional slot, and leaves (cores, gpus, memory), with
// exclusive flags, min/max counts and now and then more than the graph has.
func genJobspec(r *rand.Rand, types map[string]bool) string {
	var levels []string
	for _, t := range []string{"cluster", "rack", "node", "socket"} {
		if types[t] {
			levels = append(levels, t)
		}
	}
	// Counts are mostly small (the graphs are), now and then a min/max
	// range or more than any graph has.
	cnt := func(lo, hi int) string {
		switch k := r.IntN(80); {
		case k == 0:
			return "64"
		case k < 8:
			return fmt.Sprintf("{min: %d, max: %d, operator: \"+\", operand: 1}", lo, lo+1+r.IntN(hi))
		case k < 50:
			return strconv.Itoa(lo)
		}
		return strconv.Itoa(lo + r.IntN(hi-lo+1))
	}
	// The chain of levels.
	var chain []string
	start := len(levels)
	switch k := r.IntN(20); {
	case k < 7:
		start = slices.Index(levels, "node")
	case k < 10:
		start = slices.Index(levels, "socket")
	case k < 12:
		start = 0
	case k < 13:
		start = slices.Index(levels, "rack")
	}
	if start < 0 {
		start = len(levels)
	}
	for i := start; i < len(levels); i++ {
		if i == start || r.IntN(2) == 0 {
			chain = append(chain, levels[i])
		}
	}
	// node[n]x alone, now and then.
	if len(chain) > 0 && chain[0] == "node" && r.IntN(8) == 0 {
		return jobspecYAML(fmt.Sprintf("[{type: node, count: %s, exclusive: true}]", cnt(1, 2)), r)
	}
	var leaves []string
	if r.IntN(5) != 0 || (!types["gpu"] && !types["memory"]) {
		leaves = append(leaves, fmt.Sprintf("{type: core, count: %s%s}", cnt(1, 3), excl(r, 10)))
	}
	if types["gpu"] && r.IntN(3) == 0 {
		leaves = append(leaves, fmt.Sprintf("{type: gpu, count: %s%s}", cnt(1, 2), excl(r, 10)))
	}
	if types["memory"] && (r.IntN(3) == 0 || len(leaves) == 0) {
		leaves = append(leaves, fmt.Sprintf("{type: memory, count: %s%s}", cnt(1, 4), excl(r, 10)))
	}
	if len(leaves) == 0 {
		leaves = append(leaves, "{type: core, count: 1}")
	}
	inner := "[" + strings.Join(leaves, ", ") + "]"
	slot := -1
	if r.IntN(4) != 0 {
		slot = r.IntN(len(chain) + 1) // the slot sits below chain[slot-1]
		if slot == 0 && len(chain) > 0 && (chain[0] == "cluster" || chain[0] == "rack") {
			slot = 1 // a slot above the cluster or a rack never fits
		}
	}
	if slot == len(chain) {
		inner = fmt.Sprintf("[{type: slot, count: %s, label: default, with: %s}]", cnt(1, 2), inner)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		x := ""
		if slot < 0 || i < slot {
			x = excl(r, map[string]int{"node": 3, "socket": 5}[chain[i]])
		}
		hi := map[string]int{"cluster": 1, "rack": 1, "node": 2, "socket": 2}[chain[i]]
		inner = fmt.Sprintf("[{type: %s, count: %s%s, with: %s}]", chain[i], cnt(1, hi), x, inner)
		if i == slot {
			inner = fmt.Sprintf("[{type: slot, count: %s, label: default, with: %s}]", cnt(1, 2), inner)
		}
	}
	return jobspecYAML(inner, r)
}

// excl returns ", exclusive: true" once in n draws (n 0: never).
func excl(r *rand.Rand, n int) string {
	if n > 0 && r.IntN(n) == 0 {
		return ", exclusive: true"
	}
	return ""
}

func jobspecYAML(resources string, r *rand.Rand) string {
	d := 1 + r.IntN(30)
	if r.IntN(50) == 0 {
		d = 0 // until the end of the graph's window
	}
	return "version: 1\nresources: " + resources + "\nattributes: {system: {duration: " + strconv.Itoa(d) + "}}\ntasks: [{command: [app], slot: default, count: {per_slot: 1}}]\n"
}

// jobspecResources returns the resources line of a jobspec (for traces).
func jobspecResources(js string) string {
	res, dur := "", ""
	for _, l := range strings.Split(js, "\n") {
		if s, ok := strings.CutPrefix(l, "resources: "); ok {
			res = s
		}
		if s, ok := strings.CutPrefix(l, "attributes: {system: {duration: "); ok {
			dur = strings.TrimSuffix(s, "}}")
		}
	}
	return res + " duration " + dur
}

// --- R documents ---

// rNode is one JGF vertex of an R, as far as the model needs it.
type rNode struct {
	path  string
	typ   string
	rank  int64
	size  int64
	excl  bool
	start int64
}

// rInfo is what an R says: its JGF vertices (nil without a scheduling
// part), ranks of the execution part, and the window.
type rInfo struct {
	nodes      []rNode
	hasJGF     bool
	ranks      []int64
	start, end int64
	ok         bool // parsed
}

// parseRInfo reads an R the way the model needs it; ok is false for
// anything malformed (the Matcher must then refuse it).
func parseRInfo(data []byte) rInfo {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return rInfo{}
	}
	var info rInfo
	info.end = graphEnd
	g := top["graph"]
	if ex, ok := top["execution"]; ok {
		var e struct {
			RLite []struct {
				Rank string `json:"rank"`
			} `json:"R_lite"`
			Start *float64 `json:"starttime"`
			Exp   *float64 `json:"expiration"`
		}
		if json.Unmarshal(ex, &e) != nil {
			return rInfo{}
		}
		if e.Start != nil {
			info.start = int64(*e.Start)
		}
		if e.Start != nil && e.Exp != nil && *e.Exp > *e.Start {
			info.end = int64(*e.Exp)
		} else {
			info.end = info.start + graphEnd
		}
		for _, rl := range e.RLite {
			for _, part := range strings.Split(rl.Rank, ",") {
				lo, hi, isRange := strings.Cut(part, "-")
				a, err1 := strconv.ParseInt(lo, 10, 64)
				b := a
				var err2 error
				if isRange {
					b, err2 = strconv.ParseInt(hi, 10, 64)
				}
				if err1 != nil || err2 != nil {
					return rInfo{}
				}
				for k := a; k <= b; k++ {
					info.ranks = append(info.ranks, k)
				}
			}
		}
		var s struct {
			Graph json.RawMessage `json:"graph"`
		}
		if sc, ok := top["scheduling"]; ok {
			if json.Unmarshal(sc, &s) != nil {
				return rInfo{}
			}
			g = s.Graph
		}
	}
	if g != nil {
		var doc struct {
			Nodes []struct {
				Metadata struct {
					Type      string `json:"type"`
					Rank      *int64 `json:"rank"`
					Size      *int64 `json:"size"`
					Exclusive bool   `json:"exclusive"`
					Paths     struct {
						Containment string `json:"containment"`
					} `json:"paths"`
				} `json:"metadata"`
			} `json:"nodes"`
		}
		if json.Unmarshal(g, &doc) != nil {
			return rInfo{}
		}
		info.hasJGF = true
		for _, n := range doc.Nodes {
			md := n.Metadata
			rn := rNode{path: md.Paths.Containment, typ: md.Type, rank: -1, size: 1, excl: md.Exclusive}
			if md.Rank != nil {
				rn.rank = *md.Rank
			}
			if md.Size != nil {
				rn.size = *md.Size
			}
			info.nodes = append(info.nodes, rn)
		}
	}
	info.ok = true
	return info
}

const graphEnd = 3153600000 // match.GraphEnd: the end of the graph's window

// filterR returns R (an rv1 with a scheduling part, or a bare JGF) keeping
// the JGF vertices keep accepts and the edges between them; add appends
// the JGF vertices of another R's (foreign vertices).
func filterR(R []byte, keep func(path string, excl bool) bool, add []json.RawMessage) []byte {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(R, &top); err != nil {
		panic(err)
	}
	graphOf := func(g json.RawMessage) json.RawMessage {
		var doc struct {
			Nodes []json.RawMessage `json:"nodes"`
			Edges []struct {
				Source string `json:"source"`
				Target string `json:"target"`
			} `json:"edges"`
		}
		if err := json.Unmarshal(g, &doc); err != nil {
			panic(err)
		}
		kept := map[string]bool{}
		var nodes []json.RawMessage
		for _, n := range doc.Nodes {
			var x struct {
				ID       string `json:"id"`
				Metadata struct {
					Exclusive bool `json:"exclusive"`
					Paths     struct {
						Containment string `json:"containment"`
					} `json:"paths"`
				} `json:"metadata"`
			}
			json.Unmarshal(n, &x)
			if keep(x.Metadata.Paths.Containment, x.Metadata.Exclusive) {
				kept[x.ID] = true
				nodes = append(nodes, n)
			}
		}
		nodes = append(nodes, add...)
		var edges []string
		for _, e := range doc.Edges {
			if kept[e.Source] && kept[e.Target] {
				edges = append(edges, fmt.Sprintf(`{"source": %q, "target": %q}`, e.Source, e.Target))
			}
		}
		var b bytes.Buffer
		b.WriteString(`{"nodes": [`)
		for i, n := range nodes {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(n)
		}
		b.WriteString(`], "edges": [` + strings.Join(edges, ", ") + `]}`)
		return b.Bytes()
	}
	if sc, ok := top["scheduling"]; ok {
		var s map[string]json.RawMessage
		json.Unmarshal(sc, &s)
		s["graph"] = graphOf(s["graph"])
		top["scheduling"], _ = json.Marshal(s)
	} else {
		top["graph"] = graphOf(top["graph"])
	}
	out, err := json.Marshal(top)
	if err != nil {
		panic(err)
	}
	return out
}

// jgfNodes returns the raw JGF vertices of R whose path keep accepts.
func jgfNodes(R []byte, keep func(path string, excl bool) bool) []json.RawMessage {
	var top struct {
		Scheduling struct {
			Graph struct {
				Nodes []json.RawMessage `json:"nodes"`
			} `json:"graph"`
		} `json:"scheduling"`
	}
	json.Unmarshal(R, &top)
	var out []json.RawMessage
	for _, n := range top.Scheduling.Graph.Nodes {
		var x struct {
			Metadata struct {
				Exclusive bool `json:"exclusive"`
				Paths     struct {
					Containment string `json:"containment"`
				} `json:"paths"`
			} `json:"metadata"`
		}
		json.Unmarshal(n, &x)
		if keep(x.Metadata.Paths.Containment, x.Metadata.Exclusive) {
			out = append(out, n)
		}
	}
	return out
}

// rankR writes an execution-only R releasing ranks (the rank form).
func rankR(ranks []int64, names []string, start, end int64) []byte {
	var rl []string
	for _, r := range ranks {
		rl = append(rl, fmt.Sprintf(`{"rank": "%d", "children": {"core": "0"}}`, r))
	}
	nl, _ := json.Marshal(names)
	return []byte(fmt.Sprintf(`{"version": 1, "execution": {"R_lite": [%s], "nodelist": %s, "starttime": %d, "expiration": %d}}`, strings.Join(rl, ", "), nl, start, end))
}

// noSched drops the scheduling part of an rv1 R (the rv1_nosched form).
func noSched(R []byte) []byte {
	var top map[string]json.RawMessage
	json.Unmarshal(R, &top)
	delete(top, "scheduling")
	out, _ := json.Marshal(top)
	return out
}

// bareJGF returns the scheduling part of an rv1 R (the jgf form).
func bareJGF(R []byte) []byte {
	var top map[string]json.RawMessage
	json.Unmarshal(R, &top)
	return top["scheduling"]
}

// illFormedR returns an R the Matcher must refuse, derived from a good one.
func illFormedR(r *rand.Rand, good []byte) []byte {
	switch r.IntN(8) {
	case 0:
		return nil
	case 1:
		return []byte("{")
	case 2:
		return []byte(`{"version": 1}`)
	case 3:
		return []byte(`{"graph": {"nodes": [{"id": "0"}], "edges": []}}`)
	case 4:
		return []byte(`{"version": 2, "execution": {"R_lite": [], "nodelist": [], "starttime": 0, "expiration": 1}}`)
	case 5:
		return []byte(`{"version": 1, "execution": {"R_lite": [{"rank": "x", "children": {}}], "nodelist": [], "starttime": 0, "expiration": 1}}`)
	case 6:
		return []byte(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "core", "id": 0, "rank": 0, "paths": {"containment": "/m0/nowhere0/core0"}}}], "edges": []}}`)
	}
	good = bytes.TrimSpace(good)
	if len(good) < 2 {
		return []byte("[]")
	}
	return good[:1+r.IntN(len(good)-1)] // truncated
}

// cloneGnode deep-copies a subtree description.
func (m *model) cloneGnode(n *gnode) *gnode {
	c := *n
	c.kids = nil
	for _, k := range n.kids {
		c.kids = append(c.kids, m.cloneGnode(k))
	}
	return &c
}
