// Package randstream generates random resource graphs and random mixed
// operation streams (allocate, allocate-or-else-reserve, satisfiability,
// cancel, partial cancel) for tests that pin or compare the matcher's
// decisions: the stream goldens of package benchmarks and the differential
// test of package match. It does not import the matcher; a Target adapts
// one.
package randstream

import (
	"fmt"
	"hash"
	"math/rand"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Shape bounds a random graph: cluster0 [→ racks] → nodes → sockets →
// cores, gpus and memory pools.
type Shape struct {
	MinNodes, MaxNodes int // nodes in the whole graph
	MaxCores           int // cores per socket (at least 1)
}

// Small is the shape of the golden streams: up to 12 nodes.
var Small = Shape{MinNodes: 1, MaxNodes: 12, MaxCores: 6}

// Large is the shape of the speed comparison: 1,024 to 1,280 nodes.
var Large = Shape{MinNodes: 1024, MaxNodes: 1280, MaxCores: 8}

// Graph builds a random graph. Vertices are created level by level as the
// GRUG reader creates them. Node ids are global or restart per rack, core
// and gpu ids are local to the node, a few vertices get a perf_class
// property (for the variation policy).
func Graph(rng *rand.Rand, s Shape) *graph.Graph {
	b := graph.NewBuilder()
	top := b.MustAdd(graph.NoVertex, "cluster", 0)
	nn := s.MinNodes + rng.Intn(s.MaxNodes-s.MinNodes+1)
	var parents []graph.VertexID
	if rng.Intn(3) > 0 {
		nr := 1 + rng.Intn(4)
		for i := 0; i < nr; i++ {
			parents = append(parents, b.MustAdd(top, "rack", int64(i)))
		}
	} else {
		parents = []graph.VertexID{top}
	}
	perRack := rng.Intn(4) == 0 // node ids restart in every rack
	var nodes []graph.VertexID
	count := make([]int, len(parents))
	for i := 0; i < nn; i++ {
		p := (i * len(parents)) / nn
		id := i
		if perRack {
			id = count[p]
		}
		count[p]++
		nodes = append(nodes, b.MustAdd(parents[p], "node", int64(id)))
	}
	nsock := 1 + rng.Intn(2)
	ncores := 1 + rng.Intn(s.MaxCores)
	ngpus := rng.Intn(3)
	memSize := int64(0)
	if rng.Intn(3) > 0 {
		memSize = int64(1 + rng.Intn(16))
	}
	var sockets []graph.VertexID
	for _, n := range nodes {
		for i := 0; i < nsock; i++ {
			sockets = append(sockets, b.MustAdd(n, "socket", int64(i)))
		}
	}
	for j, so := range sockets {
		for i := 0; i < ncores; i++ {
			b.MustAdd(so, "core", int64((j%nsock)*ncores+i))
		}
	}
	for j, so := range sockets {
		for i := 0; i < ngpus; i++ {
			b.MustAdd(so, "gpu", int64((j%nsock)*ngpus+i))
		}
	}
	if memSize > 0 {
		for j, so := range sockets {
			b.MustAdd(so, "memory", int64(j%nsock), graph.WithSize(memSize), graph.WithUnit("GB"))
		}
	}
	g := b.Graph()
	if rng.Intn(4) == 0 {
		for v := 0; v < g.NumVertices(); v++ {
			if rng.Intn(3) == 0 {
				g.V(graph.VertexID(v)).SetProp("perf_class", fmt.Sprint(rng.Intn(5)))
			}
		}
	}
	return g
}

// Kind is an operation of a stream.
type Kind int

const (
	Allocate Kind = iota
	AllocateOrElseReserve
	Satisfiability
	Cancel
	PartialCancel
	Advance // move the clock forward
)

// Op is one operation. Jobspec is a YAML document for the match kinds; Job
// is an index into the stream's successful bookings for the cancel kinds
// (taken modulo their number; nothing happens when there is none); Ranks
// are the ranks a partial cancel releases; Delta is the clock step of
// Advance.
type Op struct {
	Kind    Kind
	Jobspec string
	Job     int
	Ranks   []int64
	Delta   int64
}

// Ops returns n random operations for a graph with nodes node ranks
// (0..nodes-1).
func Ops(rng *rand.Rand, n, nodes int) []Op {
	ops := make([]Op, 0, n)
	for len(ops) < n {
		switch k := rng.Intn(20); {
		case k < 9:
			ops = append(ops, Op{Kind: Allocate, Jobspec: Jobspec(rng)})
		case k < 12:
			ops = append(ops, Op{Kind: AllocateOrElseReserve, Jobspec: Jobspec(rng)})
		case k < 13:
			ops = append(ops, Op{Kind: Satisfiability, Jobspec: Jobspec(rng)})
		case k < 16:
			ops = append(ops, Op{Kind: Cancel, Job: rng.Intn(1 << 20)})
		case k < 18:
			nr := 1 + rng.Intn(2)
			var ranks []int64
			for i := 0; i < nr; i++ {
				ranks = append(ranks, int64(rng.Intn(nodes)))
			}
			ops = append(ops, Op{Kind: PartialCancel, Job: rng.Intn(1 << 20), Ranks: ranks})
		default:
			ops = append(ops, Op{Kind: Advance, Delta: int64(1 + rng.Intn(120))})
		}
	}
	return ops
}

// res is a jobspec resource of the generator.
type res struct {
	typ   string
	count string // YAML count value
	excl  bool
	label string
	with  []*res
}

func count(rng *rand.Rand) string {
	switch rng.Intn(12) {
	case 0:
		return fmt.Sprintf("{min: 1, max: %d, operator: \"+\", operand: 1}", 2+rng.Intn(3))
	case 1:
		return "{min: 1, max: 4, operator: \"*\", operand: 2}"
	case 2, 3:
		return "2"
	case 4:
		return "3"
	}
	return "1"
}

func leaf(rng *rand.Rand, typ string) *res {
	r := &res{typ: typ, count: count(rng), excl: rng.Intn(8) == 0}
	if typ == "memory" {
		r.count = fmt.Sprint(1 + rng.Intn(8))
	}
	return r
}

// leaves returns the innermost requests: cores, gpus or memory.
func leaves(rng *rand.Rand) []*res {
	switch rng.Intn(6) {
	case 0:
		return []*res{leaf(rng, "core"), leaf(rng, "gpu")}
	case 1:
		return []*res{leaf(rng, "gpu")}
	case 2:
		return []*res{leaf(rng, "core"), leaf(rng, "memory")}
	case 3:
		return []*res{leaf(rng, "memory")}
	}
	return []*res{leaf(rng, "core")}
}

func slot(rng *rand.Rand, with []*res) *res {
	return &res{typ: "slot", count: count(rng), label: "default", with: with}
}

func node(rng *rand.Rand, with []*res) *res {
	return &res{typ: "node", count: count(rng), excl: rng.Intn(4) == 0, with: with}
}

// Jobspec returns a random jobspec: rack, node or socket levels, slots,
// exclusive vertices, gpus and memory, fixed and min/max counts.
func Jobspec(rng *rand.Rand) string {
	var top []*res
	switch rng.Intn(10) {
	case 0:
		top = []*res{{typ: "cluster", count: "1", with: []*res{node(rng, []*res{slot(rng, leaves(rng))})}}}
	case 1:
		top = []*res{node(rng, []*res{slot(rng, leaves(rng))})}
	case 2:
		top = []*res{{typ: "rack", count: "1", with: []*res{node(rng, []*res{slot(rng, leaves(rng))})}}}
	case 3:
		top = []*res{node(rng, []*res{{typ: "socket", count: count(rng), excl: rng.Intn(5) == 0, with: []*res{slot(rng, leaves(rng))}}})}
	case 4:
		top = []*res{slot(rng, leaves(rng))}
	case 5:
		top = []*res{{typ: "socket", count: count(rng), with: []*res{slot(rng, leaves(rng))}}}
	case 6:
		top = []*res{node(rng, []*res{slot(rng, []*res{{typ: "socket", count: "1", with: leaves(rng)}})})}
	case 7:
		top = []*res{{typ: "node", count: count(rng), excl: true}}
	case 8:
		top = []*res{{typ: "cluster", count: "1", with: []*res{{typ: "node", count: count(rng), excl: rng.Intn(2) == 0,
			with: []*res{{typ: "socket", count: "1", with: []*res{slot(rng, leaves(rng))}}}}}}}
	default:
		top = []*res{{typ: "cluster", count: "1", with: []*res{node(rng, []*res{slot(rng, leaves(rng))})}}}
	}
	var b strings.Builder
	b.WriteString("version: 9999\nresources:\n")
	writeRes(&b, top, "  ")
	fmt.Fprintf(&b, "attributes:\n  system:\n    duration: %d\n", 1+rng.Intn(300))
	b.WriteString("tasks:\n  - command: [ \"app\" ]\n    slot: default\n    count:\n      per_slot: 1\n")
	return b.String()
}

func writeRes(b *strings.Builder, l []*res, ind string) {
	for _, r := range l {
		fmt.Fprintf(b, "%s- type: %s\n%s  count: %s\n", ind, r.typ, ind, r.count)
		if r.excl {
			fmt.Fprintf(b, "%s  exclusive: true\n", ind)
		}
		if r.label != "" {
			fmt.Fprintf(b, "%s  label: %s\n", ind, r.label)
		}
		if len(r.with) > 0 {
			fmt.Fprintf(b, "%s  with:\n", ind)
			writeRes(b, r.with, ind+"    ")
		}
	}
}

// Target runs operations on a matcher. Match returns the start time, the
// rendered selection and the error; kinds are Allocate,
// AllocateOrElseReserve or Satisfiability. A jobspec the target cannot
// parse (a type the graph lacks) is reported as an error and recorded as
// such.
type Target interface {
	Match(kind Kind, jobspec string, jobid uint64, now int64) (at int64, out string, err error)
	Cancel(jobid uint64) error
	PartialCancel(jobid uint64, ranks []int64) (full bool, err error)
}

// Runner applies operations one at a time, keeping the clock, the job
// counter and the live bookings.
type Runner struct {
	T      Target
	H      hash.Hash
	Booked int // successful bookings so far

	live []uint64
	now  int64
	next uint64
	i    int
}

// Step applies one operation and writes its outcome to r.H.
func (r *Runner) Step(op Op) {
	i := r.i
	r.i++
	if r.next == 0 {
		r.next = 1
	}
	switch op.Kind {
	case Advance:
		r.now += op.Delta
		fmt.Fprintf(r.H, "%d advance %d\n", i, r.now)
	case Allocate, AllocateOrElseReserve, Satisfiability:
		id := r.next
		r.next++
		at, out, err := r.T.Match(op.Kind, op.Jobspec, id, r.now)
		fmt.Fprintf(r.H, "%d match %d %d job %d at %d err %v\n%s", i, op.Kind, r.now, id, at, err, out)
		if err == nil && op.Kind != Satisfiability {
			r.live = append(r.live, id)
			r.Booked++
		}
	case Cancel, PartialCancel:
		if len(r.live) == 0 {
			return
		}
		k := op.Job % len(r.live)
		id := r.live[k]
		full := true
		var err error
		if op.Kind == Cancel {
			err = r.T.Cancel(id)
		} else {
			full, err = r.T.PartialCancel(id, op.Ranks)
		}
		fmt.Fprintf(r.H, "%d cancel %d job %d %v %v\n", i, op.Kind, id, full, err)
		if full && err == nil {
			r.live = append(r.live[:k], r.live[k+1:]...)
		}
	}
}

// Run applies ops to t from time 0 and writes every outcome to h. It
// returns the number of successful bookings.
func Run(t Target, ops []Op, h hash.Hash) int {
	r := &Runner{T: t, H: h}
	for _, op := range ops {
		r.Step(op)
	}
	return r.Booked
}
