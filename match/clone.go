package match

import (
	"slices"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/planner"
	"github.com/gofluxion/gofluxion/policy"
)

// Clone returns an independent copy of the matcher and its graph, with
// every allocation, reservation, status and pruning filter, for what-if
// simulation: later operations on either do not affect the other, and the
// clone decides exactly as the original would.
func (m *Matcher) Clone() *Matcher {
	s := m.schedule
	c := &schedule{
		g:        s.g.Clone(),
		opts:     s.opts,
		subs:     slices.Clone(s.subs),
		dom:      s.dom,
		flexible: s.flexible,
		dynamic:  s.dynamic,
		prune:    make([]pruneConf, len(s.prune)),
		plans:    make([]planner.Planner, len(s.plans)),
		xchk:     make([]planner.Planner, len(s.xchk)),
		jobs:     make([][]jobRec, len(s.jobs)),
		filt:     make([][]*planner.Multi, len(s.filt)),
		outOrder: make([][]outEntry, len(s.outOrder)),
		weight:   slices.Clone(s.weight),
		nodesUp:  s.nodesUp,
		polExcl:  slices.Clone(s.polExcl),
		jobIdx:   make(map[uint64]int32, len(s.jobIdx)),
	}
	for job, i := range s.jobIdx {
		c.jobIdx[job] = int32(len(c.vlists))
		c.vlists = append(c.vlists, slices.Clone(s.vlists[i]))
	}
	for i, p := range s.prune {
		c.prune[i] = pruneConf{anchors: make(map[graph.TypeID][]graph.TypeID, len(p.anchors)), isPrune: slices.Clone(p.isPrune)}
		for k, v := range p.anchors {
			c.prune[i].anchors[k] = slices.Clone(v)
		}
	}
	for v := range s.plans {
		s.plans[v].CopyTo(&c.plans[v])
		s.xchk[v].CopyTo(&c.xchk[v])
	}
	// Job records are copied into one block, which later growth leaves.
	n := 0
	for _, l := range s.jobs {
		n += len(l)
	}
	block := make([]jobRec, 0, n)
	for v, l := range s.jobs {
		if len(l) > 0 {
			block = append(block, l...)
			c.jobs[v] = block[len(block)-len(l) : len(block) : len(block)]
		}
	}
	for si, fl := range s.filt {
		c.filt[si] = make([]*planner.Multi, len(fl))
		for v, f := range fl {
			if f != nil {
				c.filt[si][v] = f.Clone()
			}
		}
	}
	for v, l := range s.outOrder {
		if l != nil {
			c.outOrder[v] = slices.Clone(l)
		}
	}
	pol, _ := policy.New(s.opts.Policy)
	// The visit totals carry over too: a failed first attempt leaves them
	// for the reservation search to add to, as in Fluxion.
	cm := &Matcher{schedule: c, scratch: &scratch{pol: pol, emulate: m.emulate, errno: m.errno, preTotal: m.preTotal, postTotal: m.postTotal}}
	cm.fitScratch()
	cm.buildFresh()
	return cm
}

// SharesSchedule reports whether m and o share one schedule (o is m, or a
// view of it, or the other way round).
func (m *Matcher) SharesSchedule(o *Matcher) bool { return m.schedule == o.schedule }
