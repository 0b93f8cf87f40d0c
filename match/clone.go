package match

import (
	"maps"
	"slices"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/policy"
)

// Clone returns an independent copy of the matcher and its graph, with
// every allocation, reservation, status and pruning filter, for what-if
// simulation: later operations on either do not affect the other, and the
// clone decides exactly as the original would.
//
// The copy is lazy (copy-on-write, see store.go): Clone copies tables of
// chunk pointers and the small configuration, in O(vertices/256); the
// first change to a chunk of vertex or edge state through either matcher
// copies that chunk, and the first change to the graph (attach, remove,
// status, property) copies the graph. Clone may run on views of one
// matcher concurrently.
func (m *Matcher) Clone() *Matcher {
	s := m.schedule
	s.cloneMu.Lock()
	st := s.store.cloneStore()
	s.cloneMu.Unlock()
	c := &schedule{
		g:        s.g,
		opts:     s.opts,
		subs:     slices.Clone(s.subs),
		dom:      s.dom,
		flexible: s.flexible,
		dynamic:  s.dynamic,
		prune:    make([]pruneConf, len(s.prune)),
		store:    st,
		nodesUp:  s.nodesUp,
		polExcl:  slices.Clone(s.polExcl),
	}
	for i, p := range s.prune {
		c.prune[i] = pruneConf{anchors: make(map[graph.TypeID][]graph.TypeID, len(p.anchors)), isPrune: slices.Clone(p.isPrune)}
		for k, v := range maps.All(p.anchors) {
			c.prune[i].anchors[k] = slices.Clone(v)
		}
	}
	pol, _ := policy.New(s.opts.Policy)
	// The scratch state that carries over from one operation to the next
	// (Fluxion's errno and emission level) comes along.
	return &Matcher{schedule: c, scratch: &scratch{pol: pol, emulate: m.emulate, errno: m.errno, level: m.level}}
}

// SharesSchedule reports whether m and o share one schedule (o is m, or a
// view of it, or the other way round).
func (m *Matcher) SharesSchedule(o *Matcher) bool { return m.schedule == o.schedule }
