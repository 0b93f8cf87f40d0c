package policy

import (
	"slices"

	"github.com/gofluxion/gofluxion/graph"
)

// locality prefers blocks of consecutive scores: at the root, candidates are
// grouped into maximal runs of consecutive integer scores and the run with
// the highest bounds wins (spec policies.md §4). Below the root it behaves
// like high without factors.
type locality struct {
	runs []run // accumulated over the top-level requests of one match
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
	for _, s := range scores {
		p.runs = append(p.runs, run{s, s})
	}
	slices.SortFunc(p.runs, func(a, b run) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	merged := p.runs[:0]
	for _, r := range p.runs {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 {
			if r.hi > merged[n-1].hi {
				merged[n-1].hi = r.hi
			}
			continue
		}
		merged = append(merged, r)
	}
	p.runs = merged
	return runOrder{p.runs}
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
