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
	// Allocated counts the units in use at the time: booked by a job
	// whose window holds the time, an allocation or a reservation that
	// has started by then (it runs). Reserved counts the units booked for
	// later: by jobs whose windows start after the time (on each vertex,
	// the most units one later job books there). A unit in use now and
	// reserved later counts in both. A unit counts only when a job books it
	// itself: a node that runs a job on two of its cores is not
	// allocated, its two cores are.
	Allocated, Reserved int64
	// Down counts the units of vertices that are down or below a down
	// vertex, booked or not.
	Down int64
	// Free counts the units that are up and not in use at the time (they
	// may be reserved later).
	Free int64
}

// NodeUsage is how the resources of one node are used at one time (see
// Matcher.NodeUsage).
type NodeUsage struct {
	Name, Path string
	Rank       int64
	// Down reports that the node or one of its ancestors is down.
	Down bool
	// Usage counts the units of the node and of every resource below it,
	// per type (sorted by name), as Matcher.Usage does for the graph.
	Usage []Usage
	// Running lists the jobs that use the node or something below it at
	// the time; Later those booked on it for later, by id.
	Running, Later []uint64
}

// Usage reports, per resource type (sorted by name), how many units are
// in use at time at (in seconds, see Match), reserved for later, down and
// free, so that callers need not parse Find's output.
func (x *Matcher) Usage(at int64) []Usage {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.m.Graph()
	root := g.Root(x.m.Dominant())
	if root == graph.NoVertex {
		return nil
	}
	u := x.newUsage(at)
	u.walk(root, downAbove(x.m, root), nil)
	return u.sorted()
}

// UsageAt is Usage for Interface, whose remote implementations can fail.
func (x *Matcher) UsageAt(at int64) ([]Usage, error) { return x.Usage(at), nil }

// NodeUsage reports how each node (vertex of type node, in the graph's
// order) is used at time at: its units and those below it per type, and
// the jobs running on it and booked on it for later.
func (x *Matcher) NodeUsage(at int64) []NodeUsage {
	x.mu.RLock()
	defer x.mu.RUnlock()
	g := x.m.Graph()
	var out []NodeUsage
	for _, v := range g.ByType(graph.TypeNode) {
		vx := g.V(v)
		path, ok := vx.PathIn(x.m.Dominant())
		if !ok || !x.live(v) {
			continue
		}
		u := x.newUsage(at)
		jobs := &jobSets{}
		down := downAbove(x.m, v)
		u.walk(v, down, jobs)
		out = append(out, NodeUsage{Name: vx.Name, Path: path, Rank: vx.Rank, Down: down || vx.Status != graph.StatusUp,
			Usage: u.sorted(), Running: jobs.running, Later: jobs.later})
	}
	return out
}

// live reports whether v is still in the dominant tree (not removed).
func (x *Matcher) live(v graph.VertexID) bool {
	g := x.m.Graph()
	if v == g.Root(x.m.Dominant()) {
		return true
	}
	for _, h := range g.In(v) {
		if h.Subsystem == x.m.Dominant() && g.E(h.Edge).Live() {
			return true
		}
	}
	return false
}

// downAbove reports whether an ancestor of v is down.
func downAbove(m *match.Matcher, v graph.VertexID) bool {
	g := m.Graph()
	for n := 0; n < g.NumVertices(); n++ {
		p := graph.NoVertex
		for _, h := range g.In(v) {
			if h.Subsystem == m.Dominant() && g.E(h.Edge).Live() {
				p = h.Other
				break
			}
		}
		if p == graph.NoVertex {
			return false
		}
		if g.V(p).Status != graph.StatusUp {
			return true
		}
		v = p
	}
	return false
}

// usageWalk sums a subtree's units by type at one time.
type usageWalk struct {
	x     *Matcher
	at    int64
	by    map[graph.TypeID]*Usage
	holds []match.Hold
}

// jobSets collects the jobs of a subtree, running and later, sorted.
type jobSets struct{ running, later []uint64 }

func insertID(l []uint64, id uint64) []uint64 {
	i, found := slices.BinarySearch(l, id)
	if found {
		return l
	}
	return slices.Insert(l, i, id)
}

func (x *Matcher) newUsage(at int64) *usageWalk {
	return &usageWalk{x: x, at: at, by: map[graph.TypeID]*Usage{}}
}

func (u *usageWalk) walk(root graph.VertexID, down bool, jobs *jobSets) {
	x := u.x
	g := x.m.Graph()
	dom := x.m.Dominant()
	type item struct {
		v    graph.VertexID
		down bool
	}
	seen := map[graph.VertexID]bool{root: true}
	stack := []item{{root, down}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		vx := g.V(it.v)
		down := it.down || vx.Status != graph.StatusUp
		tu := u.by[vx.Type]
		if tu == nil {
			tu = &Usage{Type: g.TypeName(it.v)}
			u.by[vx.Type] = tu
		}
		tu.Total += vx.Size
		now, later := int64(0), int64(0)
		u.holds = x.m.Holds(it.v, u.holds[:0])
		for _, h := range u.holds {
			if h.End <= u.at {
				continue
			}
			running := h.Start <= u.at
			if jobs != nil {
				if running {
					jobs.running = insertID(jobs.running, h.Job)
				} else {
					jobs.later = insertID(jobs.later, h.Job)
				}
			}
			if !h.Own {
				continue
			}
			if running {
				now += h.Units
			} else {
				later = max(later, h.Units)
			}
		}
		now, later = min(now, vx.Size), min(later, vx.Size)
		tu.Allocated += now
		tu.Reserved += later
		if down {
			tu.Down += vx.Size
		} else {
			tu.Free += vx.Size - now
		}
		for _, h := range g.Out(it.v) {
			if h.Subsystem == dom && !seen[h.Other] && g.E(h.Edge).Live() {
				seen[h.Other] = true
				stack = append(stack, item{h.Other, down})
			}
		}
	}
}

func (u *usageWalk) sorted() []Usage {
	out := make([]Usage, 0, len(u.by))
	for _, tu := range u.by {
		out = append(out, *tu)
	}
	slices.SortFunc(out, func(a, b Usage) int { return strings.Compare(a.Type, b.Type) })
	return out
}

// nodesOf returns, per job that books something on or below a node, the
// nodes' names in the graph's order. The caller holds x.mu.
func (x *Matcher) nodesOf() map[uint64][]string {
	g := x.m.Graph()
	out := map[uint64][]string{}
	var holds []match.Hold
	for _, v := range g.ByType(graph.TypeNode) {
		if !x.live(v) {
			continue
		}
		holds = x.m.Holds(v, holds[:0])
		for _, h := range holds {
			if l := out[h.Job]; len(l) == 0 || l[len(l)-1] != g.V(v).Name {
				out[h.Job] = append(l, g.V(v).Name)
			}
		}
	}
	return out
}
