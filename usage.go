package gofluxion

import (
	"slices"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/match"
)

// Usage is how the units of one resource type are used at one time (see
// Matcher.Usage). A unit is one core, one node…, or one unit of a pool's
// size (memory in the graph's unit, GB in GRUG recipes and the demo graph).
type Usage struct {
	Type string
	// Total counts the units of every vertex of the type in the graph.
	Total int64
	// Allocated and Reserved count the units booked at the time by jobs
	// that were allocated and by reservations. A unit counts only when a
	// job books it itself: a node that runs a job on two of its cores is
	// not allocated, its two cores are.
	Allocated, Reserved int64
	// Down counts the units of vertices that are down or below a down
	// vertex, booked or not.
	Down int64
	// Free counts the units that are up and not booked at the time.
	Free int64
}

// Usage reports, per resource type (sorted by name), how many units are
// allocated, reserved, down and free at time at (in seconds, see Match),
// so that callers need not parse Find's output. Reservations count only
// at the times they cover: Usage(j.Start) shows reservation j.
func (x *Matcher) Usage(at int64) []Usage {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.m.Graph()
	root := g.Root(x.m.Dominant())
	if root == graph.NoVertex {
		return nil
	}
	by := map[graph.TypeID]*Usage{}
	seen := make([]bool, g.NumVertices())
	type item struct {
		v    graph.VertexID
		down bool
	}
	stack := []item{{root, false}}
	seen[root] = true
	var holds []match.Hold
	dom := x.m.Dominant()
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		vx := g.V(it.v)
		down := it.down || vx.Status != graph.StatusUp
		u := by[vx.Type]
		if u == nil {
			u = &Usage{Type: g.TypeName(it.v)}
			by[vx.Type] = u
		}
		u.Total += vx.Size
		booked := int64(0)
		holds = x.m.Holds(it.v, holds[:0])
		for _, h := range holds {
			if !h.Own || at < h.Start || at >= h.End {
				continue
			}
			if h.Reserved {
				u.Reserved += h.Units
			} else {
				u.Allocated += h.Units
			}
			booked += h.Units
		}
		if down {
			u.Down += vx.Size
		} else {
			u.Free += max(vx.Size-booked, 0)
		}
		for _, h := range g.Out(it.v) {
			if h.Subsystem == dom && !seen[h.Other] && g.E(h.Edge).Live() {
				seen[h.Other] = true
				stack = append(stack, item{h.Other, down})
			}
		}
	}
	out := make([]Usage, 0, len(by))
	for _, u := range by {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b Usage) int { return strings.Compare(a.Type, b.Type) })
	return out
}
