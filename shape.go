package gofluxion

import (
	"math"
	"time"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// NodeRequest is what a job means in a user's words: Nodes nodes, each
// with Cores cores, GPUs gpus and MemoryBytes bytes of memory, for
// Duration (zero: the graph's whole window). Exclusive asks for whole
// nodes (with at least the amounts given, which may then all be zero).
type NodeRequest struct {
	Nodes       int
	Cores, GPUs int
	MemoryBytes uint64
	Exclusive   bool
	Duration    time.Duration
}

// memoryUnits converts a memory vertex's unit label to bytes (binary
// multiples, as hwloc and Flux's GB mean).
var memoryUnits = map[string]uint64{
	"B": 1, "KB": 1 << 10, "KiB": 1 << 10, "MB": 1 << 20, "MiB": 1 << 20,
	"GB": 1 << 30, "GiB": 1 << 30, "TB": 1 << 40, "TiB": 1 << 40,
}

// JobspecFor writes r as a jobspec in the shape this graph can serve.
// Fluxion matches a request's levels only along the graph's containment
// and never books a slot that sits one level below its node (see
// Satisfiable), so "2 nodes with 4 cores each" must be written
// node→slot→socket→core on a graph whose cores sit under sockets, and
// node→slot→core on one whose cores sit under nodes. JobspecFor reads
// where cores, gpus and memory sit below a node and writes the levels in
// between, splitting each amount evenly over as few of them as can hold
// it (socket[2]→core[3] for 6 cores when one socket holds fewer than 6)
// in every node that holds the amounts: on a graph of nodes with 2
// sockets × 8 cores and nodes with 4 × 4, 8 cores are socket[2]→core[4].
// When no one request fits nodes of every shape (16 cores on both kinds
// above), the request fits only some of them, and asking for more nodes
// than those is ErrUnsatisfiable.
// An amount that does not split evenly is rounded up (7 cores over two
// sockets are 4 in each), and memory is counted in the graph's memory
// vertices' unit, rounded up, and taken in whole vertices (spec: slot
// contents are whole vertices).
//
// JobspecFor reads the subtree of every node (a few milliseconds on
// 4,096 nodes of 64 cores): write a request once per kind of job and
// reuse it rather than per match.
//
// The result is checked with Satisfiable: an error matching
// ErrUnsatisfiable says the graph can never hold it, ErrInvalid that r is
// malformed or the graph has no nodes.
func (x *Matcher) JobspecFor(r NodeRequest) (*jobspec.Jobspec, error) {
	const op = "jobspec for"
	if r.Nodes <= 0 || r.Nodes > math.MaxUint32 || r.Cores < 0 || r.GPUs < 0 || r.Cores > math.MaxUint32 || r.GPUs > math.MaxUint32 || r.Duration < 0 ||
		r.Duration/time.Second > time.Duration(match.GraphEnd) {
		return nil, invalidf(op, "nodes %d, cores %d, gpus %d, duration %v: want nodes in 1…%d, counts in 0…%d and a duration of 0…%d seconds",
			r.Nodes, r.Cores, r.GPUs, r.Duration, math.MaxUint32, math.MaxUint32, match.GraphEnd)
	}
	if r.Cores == 0 && r.GPUs == 0 && r.MemoryBytes == 0 && !r.Exclusive {
		return nil, invalidf(op, "nothing asked: give cores, gpus or memory per node, or ask for whole nodes (Exclusive)")
	}
	x.mu.RLock()
	res, err := x.nodeShape(r)
	x.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	js := jobspec.New(r.Duration, res)
	if err := checkRequest(op, js); err != nil {
		return nil, err
	}
	if err := x.feasible(op, js); err != nil {
		return nil, err
	}
	return js, nil
}

// nodeShape builds the node level of r. The caller holds the read lock.
func (x *Matcher) nodeShape(r NodeRequest) (*jobspec.Resource, error) {
	const op = "jobspec for"
	g, dom := x.m.Graph(), x.m.Dominant()
	nodeT, ok := g.Types.Lookup("node")
	var nodes []graph.VertexID
	if ok {
		nodes = g.ByType(graph.TypeID(nodeT))
	}
	if len(nodes) == 0 {
		return nil, invalidf(op, "the graph has no vertices of type node")
	}
	want := map[string]uint64{}
	if r.Cores > 0 {
		want["core"] = uint64(r.Cores)
	}
	if r.GPUs > 0 {
		want["gpu"] = uint64(r.GPUs)
	}
	if r.MemoryBytes > 0 {
		unit, err := memoryUnit(g)
		if err != nil {
			return nil, err
		}
		want["memory"] = r.MemoryBytes / unit
		if r.MemoryBytes%unit != 0 {
			want["memory"]++ // rounded up, without overflowing near 2^64
		}
		if want["memory"] > math.MaxUint32 {
			return nil, invalidf(op, "memory %d bytes is more than %d units of the graph's memory", r.MemoryBytes, math.MaxUint32)
		}
	}
	// The nodes that hold the amounts; the first is the model of the
	// shape, and the split fits all of them where it can (a graph may mix
	// nodes of 2 sockets × 8 cores and 4 × 4: 8 cores are socket[2]→core[4]).
	var fit []graph.VertexID
	best := map[string]uint64{}
	for _, n := range nodes {
		have := subtreeSizes(g, dom, n)
		fits := true
		for t, a := range want {
			best[t] = max(best[t], have[amountIndex(t)])
			if have[amountIndex(t)] < a {
				fits = false
			}
		}
		if fits {
			fit = append(fit, n)
		}
	}
	if len(fit) == 0 {
		for _, t := range []string{"core", "gpu", "memory"} {
			if a, ok := want[t]; ok && best[t] < a {
				what := map[string]string{"core": "cores", "gpu": "gpus", "memory": "units of memory"}[t]
				return nil, newError(op, ErrUnsatisfiable, nil, "no node in this graph has %d %s (the most one has is %d)", a, what, best[t])
			}
		}
	}
	var with []*jobspec.Resource
	for _, t := range []string{"core", "gpu", "memory"} {
		if a, ok := want[t]; ok {
			with = mergeLevel(with, split(g, dom, fit, t, a))
		}
	}
	var node *jobspec.Resource
	if len(with) == 0 {
		node = jobspec.Res("node", uint32(r.Nodes))
	} else {
		node = jobspec.Res("node", uint32(r.Nodes), jobspec.Slot("task", 1, with...))
	}
	if r.Exclusive {
		node.Exclusively()
	}
	return node, nil
}

// memoryUnit returns the bytes in one unit of the graph's memory vertices.
func memoryUnit(g *graph.Graph) (uint64, error) {
	t, ok := g.Types.Lookup("memory")
	if !ok || len(g.ByType(graph.TypeID(t))) == 0 {
		return 0, newError("jobspec for", ErrUnsatisfiable, nil, "the graph has no memory vertices")
	}
	mem := g.ByType(graph.TypeID(t))
	u := g.V(mem[0]).Unit()
	for _, v := range mem[1:] {
		if w := g.V(v).Unit(); w != u {
			return 0, invalidf("jobspec for", "the graph's memory vertices mix units (%s has %q, %s has %q): memory is counted in vertex sizes, so one unit is needed",
				g.V(mem[0]).Name, u, g.V(v).Name, w)
		}
	}
	b, ok := memoryUnits[u]
	if !ok {
		return 0, invalidf("jobspec for", "the graph's memory vertices have unit %q, which is not one of B, KB, MB, GB, TB (or KiB…TiB)", u)
	}
	return b, nil
}

// amounts holds sizes of the types JobspecFor asks for, by amountIndex.
type amounts [3]uint64

func amountIndex(t string) int {
	switch t {
	case "core":
		return 0
	case "gpu":
		return 1
	}
	return 2 // memory
}

// subtreeSizes sums the sizes of cores, gpus and memory below v (dominant
// subsystem), without allocating: JobspecFor reads every node.
func subtreeSizes(g *graph.Graph, dom graph.SubsystemID, v graph.VertexID) amounts {
	var ids [3]graph.TypeID
	for i, t := range [3]string{"core", "gpu", "memory"} {
		ids[i] = -1 // no vertex has it
		if id, ok := g.Types.Lookup(t); ok {
			ids[i] = graph.TypeID(id)
		}
	}
	var out amounts
	sumBelow(g, dom, v, &ids, &out, 0)
	return out
}

func sumBelow(g *graph.Graph, dom graph.SubsystemID, u graph.VertexID, ids *[3]graph.TypeID, out *amounts, depth int) {
	if depth > graph.DefaultMaxDepth {
		return
	}
	for _, h := range g.Out(u) {
		if h.Subsystem != dom {
			continue
		}
		c := g.V(h.Other)
		for i, id := range ids {
			if c.Type == id {
				out[i] += uint64(max(c.Size, 0))
			}
		}
		sumBelow(g, dom, h.Other, ids, out, depth+1)
	}
}

// split writes amount a of type t below the vertices vs (of one type;
// vs[0] is the model): directly when t sits under vs[0], else through the
// child type that leads to t there, over as few of those children as can
// hold their even share in every vertex of vs that has such children.
func split(g *graph.Graph, dom graph.SubsystemID, vs []graph.VertexID, t string, a uint64) *jobspec.Resource {
	// The children of the model that hold t, by type, in creation order.
	ct := ""
	for _, h := range g.Out(vs[0]) {
		if h.Subsystem != dom {
			continue
		}
		if g.TypeName(h.Other) == t {
			return jobspec.Res(t, uint32(a))
		}
		if ct == "" && subtreeSizes(g, dom, h.Other)[amountIndex(t)] > 0 {
			ct = g.TypeName(h.Other)
		}
	}
	if ct == "" {
		return jobspec.Res(t, uint32(a))
	}
	// The children of type ct holding t in every vertex of vs: the fewest
	// per parent bounds the count, the smallest bounds the share.
	var same []graph.VertexID
	perParent, least := uint64(math.MaxUint64), uint64(math.MaxUint64)
	for _, v := range vs {
		n := uint64(0)
		for _, h := range g.Out(v) {
			if h.Subsystem != dom || g.TypeName(h.Other) != ct {
				continue
			}
			if have := subtreeSizes(g, dom, h.Other)[amountIndex(t)]; have > 0 {
				same = append(same, h.Other)
				least = min(least, have)
				n++
			}
		}
		if n > 0 {
			perParent = min(perParent, n)
		}
	}
	k := perParent
	for i := uint64(1); i <= perParent; i++ {
		if (a+i-1)/i <= least {
			k = i
			break
		}
	}
	share := (a + k - 1) / k
	return jobspec.Res(ct, uint32(k), split(g, dom, same, t, share))
}

// mergeLevel adds r to a level, merging it into a sibling of the same type
// and count (cores and gpus both under socket[1] become one socket[1]
// holding both), so siblings never repeat a type, which Fluxion refuses.
func mergeLevel(level []*jobspec.Resource, r *jobspec.Resource) []*jobspec.Resource {
	for _, o := range level {
		if o.Type == r.Type && len(o.With) > 0 && len(r.With) > 0 {
			if o.Count.Min < r.Count.Min {
				// The larger spread wins: re-split o's contents over it.
				for _, w := range o.With {
					w.Count = jobspec.Fixed(uint32(ceilDiv(uint64(w.Count.Min)*uint64(o.Count.Min), uint64(r.Count.Min))))
				}
				o.Count = r.Count
			} else if o.Count.Min > r.Count.Min {
				for _, w := range r.With {
					w.Count = jobspec.Fixed(uint32(ceilDiv(uint64(w.Count.Min)*uint64(r.Count.Min), uint64(o.Count.Min))))
				}
			}
			for _, w := range r.With {
				o.With = mergeLevel(o.With, w)
			}
			return level
		}
	}
	return append(level, r)
}

func ceilDiv(a, b uint64) uint64 { return (a + b - 1) / b }
