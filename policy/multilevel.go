package policy

import (
	"errors"

	"github.com/gofluxion/gofluxion/graph"
)

// errOverflow reports a factor computation that overflows int64.
var errOverflow = errors.New("policy: score factor overflows")

// factor adds a per-type term to the scores of everything below a vertex of
// that type: node_centric groups candidates by their enclosing node.
type factor struct {
	typ      string
	tid      graph.TypeID
	bound    *graph.Graph
	add, mul int64
	last     int64
}

// multilevel is the id-based policy family (high, low, hinode, lonode,
// hinodex, lonodex, first, firstnodex and custom strings): a vertex scores
// id+2 plus the factors of its factor-typed ancestors (spec policies.md §2).
type multilevel struct {
	name        string
	order       Order
	stopOnFirst bool
	exclusive   []string
	factors     []factor
	sum         int64 // M: the running sum of the factors of the open ancestors
}

func (p *multilevel) Name() string             { return p.name }
func (p *multilevel) StopOnFirstMatch() bool   { return p.stopOnFirst }
func (p *multilevel) ExclusiveTypes() []string { return p.exclusive }
func (p *multilevel) VertexOrder() Order       { return p.order }
func (p *multilevel) SlotOrder() Order         { return p.order }
func (p *multilevel) GraphOrder([]int64) Order { return p.order }
func (p *multilevel) FinishGraph()             { p.sum = 0 }

// FixedGraphOrder implements FixedGraphOrder.
func (p *multilevel) FixedGraphOrder() {}

func (p *multilevel) factorFor(g *graph.Graph, t graph.TypeID) *factor {
	for i := range p.factors {
		f := &p.factors[i]
		if f.bound != g {
			f.bound = g
			id, ok := g.Types.Lookup(f.typ)
			f.tid = graph.TypeID(id)
			if !ok {
				f.tid = -1
			}
		}
		if f.tid == t {
			return f
		}
	}
	return nil
}

func (p *multilevel) Discover(g *graph.Graph, v graph.VertexID) error {
	if len(p.factors) == 0 {
		return nil
	}
	vx := g.V(v)
	f := p.factorFor(g, vx.Type)
	if f == nil {
		return nil
	}
	if vx.ID < -1 {
		return ErrInvalid
	}
	// f = ((id+1)+add)*mul + |uniq_id mod mul - 1|, in checked int64.
	a, ok := addInt(vx.ID+1, f.add)
	if !ok {
		return errOverflow
	}
	a, ok = mulInt(a, f.mul)
	if !ok {
		return errOverflow
	}
	r := vx.UniqID%f.mul - 1
	if r < 0 {
		r = -r
	}
	a, ok = addInt(a, r)
	if !ok {
		return errOverflow
	}
	f.last = a
	p.sum += a
	return nil
}

func (p *multilevel) Finish(g *graph.Graph, v graph.VertexID, met bool) int64 {
	vx := g.V(v)
	if len(p.factors) > 0 {
		if f := p.factorFor(g, vx.Type); f != nil {
			p.sum -= f.last
		}
	}
	if !met {
		return 0
	}
	return 1 + p.sum + vx.ID + 1
}

func addInt(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

func mulInt(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	return c, c/b == a && !(a == -1 && b == -1<<63) && !(b == -1 && a == -1<<63)
}

// Key implements Keyed: among siblings a vertex scores 1 + M + id + 1,
// where M, the factors of the open ancestors, is the same for all of them.
func (p *multilevel) Key(g *graph.Graph, v graph.VertexID) (int64, bool) { return idKey(g, v) }

// Offset implements Shifted: the factors of the open ancestors.
func (p *multilevel) Offset() int64 { return p.sum }

// Shifts implements Shifted: vertices of a factor type (node for the
// node-centric policies) add their factor below them.
func (p *multilevel) Shifts(g *graph.Graph, t graph.TypeID) bool { return p.factorFor(g, t) != nil }
