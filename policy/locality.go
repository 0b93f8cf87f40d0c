package policy

import (
	"math"
	"slices"

	"github.com/gofluxion/gofluxion/graph"
)

// locality prefers blocks of consecutive scores: at the root, candidates are
// grouped into maximal runs of consecutive integer scores and the run with
// the highest bounds wins (spec policies.md §4). Below the root it behaves
// like high without factors.
type locality struct {
	runs []run // accumulated over the top-level requests of one match
	buf  []int64
	tmp  []run
	// order is what GraphOrder returns: a pointer to it, so that the
	// conversion to Order does not allocate a match.
	order runOrder
}

type run struct{ lo, hi int64 }

func newLocality() *locality { return &locality{} }

func (p *locality) Name() string                                { return "locality" }
func (p *locality) StopOnFirstMatch() bool                      { return false }
func (p *locality) ExclusiveTypes() []string                    { return nil }
func (p *locality) Discover(*graph.Graph, graph.VertexID) error { return nil }
func (p *locality) VertexOrder() Order                          { return Greater }
func (p *locality) SlotOrder() Order                            { return Greater }
func (p *locality) FinishGraph()                                { p.runs = p.runs[:0] }

func (p *locality) Finish(g *graph.Graph, v graph.VertexID, met bool) int64 {
	if !met {
		return 0
	}
	return 1 + g.V(v).ID + 1
}

// GraphOrder merges the scores into the run set and compares candidates by
// the run that holds their score.
func (p *locality) GraphOrder(scores []int64) Order {
	// The runs are the maximal ranges of consecutive integers covered by
	// the scores so far (merged when they overlap or touch). The new
	// scores are sorted as plain integers and merged with the runs
	// already there, in order of their lower bounds.
	s := append(p.buf[:0], scores...)
	slices.Sort(s)
	p.buf = s
	old := append(p.tmp[:0], p.runs...)
	p.tmp = old
	merged := p.runs[:0]
	add := func(r run) {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 && merged[n-1].hi < math.MaxInt64 {
			if r.hi > merged[n-1].hi {
				merged[n-1].hi = r.hi
			}
			return
		}
		merged = append(merged, r)
	}
	i := 0
	for _, x := range s {
		for i < len(old) && old[i].lo <= x {
			add(old[i])
			i++
		}
		add(run{x, x})
	}
	for ; i < len(old); i++ {
		add(old[i])
	}
	p.runs = merged
	p.order.runs = p.runs
	return &p.order
}

type runOrder struct{ runs []run }

func (o runOrder) find(s int64) run {
	i, _ := slices.BinarySearchFunc(o.runs, s, func(r run, s int64) int {
		switch {
		case r.hi < s:
			return -1
		case r.lo > s:
			return 1
		}
		return 0
	})
	if i < len(o.runs) {
		return o.runs[i]
	}
	return run{s, s}
}

// Rank implements Ranked: the bounds of the run holding s.
func (o runOrder) Rank(s int64) (int64, int64) {
	r := o.find(s)
	return r.lo, r.hi
}

func (o runOrder) Before(a, b int64) bool {
	ra, rb := o.find(a), o.find(b)
	if ra.lo != rb.lo {
		return ra.lo > rb.lo
	}
	return ra.hi > rb.hi
}

// Key implements Keyed: below the root a vertex scores id + 2.
func (p *locality) Key(g *graph.Graph, v graph.VertexID) (int64, bool) { return idKey(g, v) }

// Offset implements Shifted: locality has no factors.
func (p *locality) Offset() int64 { return 0 }

// Shifts implements Shifted.
func (p *locality) Shifts(*graph.Graph, graph.TypeID) bool { return false }
