package gofluxion

import (
	"strings"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/rv1"
)

// Allocation is the result of a successful match: which job got what, and
// when. It renders in every match format. Its fields and methods are safe
// to use concurrently with the Matcher's operations.
type Allocation struct {
	JobID uint64 // 0 for WithoutAllocating and WithoutAllocatingFuture
	// Reserved reports a reservation: the job starts later than asked.
	Reserved bool
	// Start and End are the booked window [Start, End), in seconds on the
	// Matcher's timeline (see Matcher.Match).
	Start, End int64
	// Resources lists the selected vertices in emission order (post-order:
	// children before their parent).
	Resources []Resource
	// Overhead is the wall time the match took.
	Overhead time.Duration

	// Rendering replays rec against the graph, which Attach may grow
	// concurrently: it reads it under the Matcher's read lock.
	mu     *sync.RWMutex
	g      *graph.Graph
	rec    *emit.Recorder
	format string
	leaf   []bool // by Resources index: the vertex has no children
}

// Resource is one selected vertex of an Allocation.
type Resource struct {
	Path string // containment (dominant) path, e.g. /demo0/rack0/node3
	Type string
	Name string
	ID   int64 // the vertex's id among its type (core17: 17), -1 for none
	Rank int64 // the broker rank, -1 when the vertex has none
	// Units is the number of the vertex's units taken: 1 for a core or a
	// node, the amount for a pool such as memory (in the graph's unit: GB
	// in GRUG recipes and the demo graph), which may be taken partly.
	Units     int64
	Exclusive bool
}

// newAllocation builds the result of an operation; the caller holds x's
// write lock.
func newAllocation(x *Matcher, rec *emit.Recorder, id uint64, start, at int64) *Allocation {
	g := x.m.Graph()
	a := &Allocation{JobID: id, Reserved: start > at, Start: start, mu: &x.mu, g: g, rec: rec, format: x.opts.Format}
	a.End = start
	for _, v := range rec.Vertices() {
		vx := g.V(v.ID)
		path := ""
		if len(vx.Paths) > 0 {
			path = vx.Paths[0].Path
		}
		a.Resources = append(a.Resources, Resource{
			Path: path, Type: g.TypeName(v.ID), Name: vx.Name, ID: vx.ID, Rank: vx.Rank,
			Units: v.Needs, Exclusive: v.Exclusive,
		})
		a.leaf = append(a.leaf, len(g.Out(v.ID)) == 0)
	}
	if s, e, ok := rec.Window(); ok {
		a.Start, a.End = s, e
	}
	return a
}

// Render renders the allocation in a match format: simple, pretty_simple,
// jgf, jgf_shorthand, rlite, rv1, rv1_nosched or rv1_shorthand (an unknown
// name is ErrInvalid).
//
// An allocation without a core or gpu under a node (memory only, say) has
// no R_lite: rv1 and rv1_shorthand render it as an R whose execution part
// lists no node ("R_lite": [], "nodelist": []) and whose scheduling part
// has the resources, which Update reads back (Fluxion renders nothing);
// rlite and rv1_nosched, which have no scheduling part, fail with
// ErrInvalid.
func (a *Allocation) Render(format string) (string, error) {
	w, err := NewWriter(format)
	if err != nil {
		return "", relabel(err, "render")
	}
	if a.rec == nil || a.g == nil {
		// A literal (a test double of Interface, say): no selection to replay.
		return "", invalidf("render", "the allocation was not made by a matcher or UnmarshalBinary: it has nothing to render")
	}
	if rw, ok := w.(*rv1.Writer); ok {
		rw.EmptyExecution = true
	}
	if a.mu != nil {
		a.mu.RLock()
		defer a.mu.RUnlock()
	}
	a.rec.Replay(a.g, w)
	s, err := w.Render()
	if err != nil {
		return "", fromMatch("render", err)
	}
	return s, nil
}

// String renders the allocation in the Matcher's default format (rv1
// unless Options.Format says otherwise); it returns "" if that fails.
func (a *Allocation) String() string {
	s, _ := a.Render(a.format)
	return s
}

// Nodes returns the names of the nodes the allocation holds resources on
// (vertices of type node), in the order of Resources.
func (a *Allocation) Nodes() []string {
	var out []string
	for _, r := range a.Resources {
		if r.Type == "node" {
			out = append(out, r.Name)
		}
	}
	return out
}

// NodeUse is what an allocation takes on one node (see ByNode).
type NodeUse struct {
	Name, Path string
	Rank       int64
	// Exclusive reports that the node itself is taken whole.
	Exclusive bool
	// Cores and GPUs count the cores and gpus taken; Memory is the memory
	// taken, in the graph's unit (GB in GRUG recipes and the demo graph).
	Cores, GPUs, Memory int64
	// Other holds the units taken of every other leaf type (resources
	// with nothing below them), by type; nil when there are none.
	Other map[string]int64
}

// ByNode returns, per node of Nodes and in the same order, what the
// allocation takes below it: cores, gpus and memory (leaves or not: hwloc
// graphs have PUs below cores), and the other leaves. Resources
// outside any node (a graph without nodes) are not reported. For an
// Allocation built as a literal, which does not know the graph, a leaf is
// a resource with no other resource below it.
func (a *Allocation) ByNode() []NodeUse {
	var out []NodeUse
	byPath := map[string]int{}
	for _, r := range a.Resources {
		if r.Type == "node" {
			byPath[r.Path] = len(out)
			out = append(out, NodeUse{Name: r.Name, Path: r.Path, Rank: r.Rank, Exclusive: r.Exclusive})
		}
	}
	leaf := a.leaf
	if len(leaf) != len(a.Resources) {
		leaf = leavesByPath(a.Resources)
	}
	for i, r := range a.Resources {
		if r.Type == "node" {
			continue
		}
		// Cores, gpus and memory count wherever they are leaves or not
		// (hwloc graphs put PUs below cores); other types only as leaves.
		counted := r.Type == "core" || r.Type == "gpu" || r.Type == "memory"
		if !counted && !leaf[i] {
			continue
		}
		n := nodeOf(out, byPath, r.Path)
		if n == nil {
			continue
		}
		switch r.Type {
		case "core":
			n.Cores += r.Units
		case "gpu":
			n.GPUs += r.Units
		case "memory":
			n.Memory += r.Units
		default:
			if n.Other == nil {
				n.Other = map[string]int64{}
			}
			n.Other[r.Type] += r.Units
		}
	}
	return out
}

// leavesByPath tells the leaves of an Allocation built as a literal, which
// does not know the graph: the resources no other resource lies below.
func leavesByPath(rs []Resource) []bool {
	inner := map[string]bool{}
	for _, r := range rs {
		if i := strings.LastIndexByte(r.Path, '/'); i > 0 {
			inner[r.Path[:i]] = true
		}
	}
	leaf := make([]bool, len(rs))
	for i, r := range rs {
		leaf[i] = !inner[r.Path]
	}
	return leaf
}

// nodeOf returns the node whose path is the longest proper prefix of path.
func nodeOf(nodes []NodeUse, byPath map[string]int, path string) *NodeUse {
	for i := strings.LastIndexByte(path, '/'); i > 0; i = strings.LastIndexByte(path[:i], '/') {
		if k, ok := byPath[path[:i]]; ok {
			return &nodes[k]
		}
	}
	return nil
}
