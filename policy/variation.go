package policy

import (
	"github.com/gofluxion/gofluxion/graph"
)

// variation prefers vertices with the lowest perf_class property; vertices
// without one score as class 9999 (spec policies.md §5).
//
// A walk scores most vertices it visits, and a property lookup per visit
// is a tenth of a walk on large graphs, so the scores are kept by vertex
// (filled lazily) for one graph and generation: properties of a vertex in
// a graph only change through SetProperty, which moves the generation
// (the matcher's replay classes rely on that too). Each matcher view has a
// policy instance of its own, so the cache is never shared.
type variation struct {
	g     *graph.Graph
	gen   uint64
	score []int32 // by vertex: 1 + perf class, 0 not computed yet
}

func newVariation() *variation { return &variation{} }

func (*variation) Name() string                                { return "variation" }
func (*variation) StopOnFirstMatch() bool                      { return false }
func (*variation) ExclusiveTypes() []string                    { return nil }
func (*variation) Discover(*graph.Graph, graph.VertexID) error { return nil }
func (*variation) VertexOrder() Order                          { return Less }
func (*variation) SlotOrder() Order                            { return Greater }
func (*variation) GraphOrder([]int64) Order                    { return Less }
func (*variation) FinishGraph()                                {}

// FixedGraphOrder implements FixedGraphOrder.
func (*variation) FixedGraphOrder() {}

func (p *variation) Finish(g *graph.Graph, v graph.VertexID, met bool) int64 {
	if !met {
		return 0
	}
	return p.scoreOf(g, v)
}

// scoreOf returns 1 + v's perf class, from the cache when it holds it.
func (p *variation) scoreOf(g *graph.Graph, v graph.VertexID) int64 {
	if p.g != g || p.gen != g.Gen() || len(p.score) != g.NumVertices() {
		p.g, p.gen = g, g.Gen()
		if n := g.NumVertices(); cap(p.score) >= n {
			p.score = p.score[:n]
			clear(p.score)
		} else {
			p.score = make([]int32, n)
		}
	}
	if s := p.score[v]; s != 0 {
		return int64(s)
	}
	s, _ := g.V(v).Prop("perf_class")
	k := 1 + PerfClass(s)
	p.score[v] = int32(k)
	return k
}

// Key implements Keyed: a matched vertex scores 1 + its perf class, which
// depends on the vertex alone.
func (p *variation) Key(g *graph.Graph, v graph.VertexID) (int64, bool) {
	return p.scoreOf(g, v) - 1, true
}

// Offset implements Shifted: no ancestor moves a score.
func (*variation) Offset() int64 { return 0 }

// Shifts implements Shifted.
func (*variation) Shifts(*graph.Graph, graph.TypeID) bool { return false }

// PerfClass parses a perf_class value like C's atoi-with-range-check: leading
// blanks, an optional sign and a decimal prefix; anything unparsable, out of
// int range or outside 0..9999 gives 9999.
func PerfClass(s string) int64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var v int64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		v = v*10 + int64(s[i]-'0')
		if v > 1<<31 {
			return 9999
		}
		i++
	}
	if i == start {
		return 9999
	}
	if neg {
		v = -v
	}
	if v < -1<<31 || v > 1<<31-1 || v < 0 || v > 9999 {
		return 9999
	}
	return v
}
