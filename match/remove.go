package match

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
)

// RemovePath removes the subgraph rooted at the last vertex listed at path
// (spec traversal.md §14.4). Jobs are not cancelled: their records on the
// removed vertices are simply unreachable afterwards.
//
// Fluxion never returns from some socket removals (the ops corpus README:
// "it loops forever on remove <socket path> true"), yet removes the socket
// of an untouched graph (upstream t3035-001). With Options.FluxionFailures
// a socket whose place in its parent's dynamic child order was re-keyed by
// a booking is refused with ENOTSUP instead of hanging; where exactly
// Fluxion hangs is not known beyond that.
func (m *Matcher) RemovePath(path string) error {
	m.msg.Reset()
	vs := m.g.ByPath(path)
	if len(vs) == 0 {
		return &Error{Op: "remove", Errno: ENOENT}
	}
	root := vs[len(vs)-1]
	if m.opts.FluxionFailures && m.g.V(root).Type == graph.TypeSocket && m.rekeyed(root) {
		m.msg.WriteString("remove_subgraph: Fluxion does not return from removing this socket (" + path + "); refused.\n")
		return &Error{Op: "remove", Errno: ENOTSUP, Msg: m.msg.String()}
	}
	set := m.collectSubtree(root, nil)
	if err := m.removeSubgraphs([]graph.VertexID{root}, set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

// RemoveRanks cancels what every job holds on the given ranks and removes
// their vertices (spec traversal.md §14.3): every vertex of those ranks is
// cleared, each job gets the released amounts back in the filters of the
// ranks' ancestors, then the vertices are removed and the filters
// re-primed.
//
// A rank is known when the graph ever had it. On failure nothing changes.
//
// With Options.FluxionFailures it fails as Fluxion does. Fluxion sums the
// released amounts per rank over all jobs and gives each job that sum
// back: when a rank held more than one job, or jobs on several of the
// ranks share an ancestor, that exceeds what a job's filter span holds
// and the removal fails. The vertices then stay in the graph with their
// job records dropped but their planner spans kept (phantom bookings
// nobody can cancel), and the ancestors keep their spans.
func (m *Matcher) RemoveRanks(ranks []int64) error {
	m.msg.Reset()
	m.tick()
	m.preTotal, m.postTotal = 0, 0
	if !m.opts.FluxionFailures {
		for _, r := range ranks {
			if !m.g.HasRank(r) {
				return m.removeRankNotFound(r)
			}
		}
	}
	plan := m.planRankRemoval(ranks)
	if !m.opts.FluxionFailures {
		for _, r := range plan.roots {
			if m.domParent(r) == graph.NoVertex {
				return &Error{Op: "remove", Errno: EINVAL, Msg: "remove: " + m.g.V(r).Name + " is the root of the graph and cannot be removed.\n"}
			}
		}
		for _, jc := range plan.jobs {
			if err := m.reduceAncestors(jc.job, jc.ancs, true); err != nil {
				return err
			}
		}
	}
	for _, r := range ranks {
		if !m.g.HasRank(r) {
			return m.removeRankNotFound(r)
		}
		for _, v := range m.g.ByRank(r) {
			m.clearVertex(v)
		}
	}
	for _, jc := range plan.jobs {
		if err := m.reduceAncestors(jc.job, jc.ancs, false); err != nil {
			return err
		}
	}
	if err := m.removeSubgraphs(plan.roots, plan.set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

func (m *Matcher) removeRankNotFound(r int64) error {
	m.msg.WriteString("remove: " + strconv.FormatInt(r, 10) + " not found in by_rank map.\n")
	return &Error{Op: "remove", Errno: EINVAL, Msg: m.msg.String()}
}

// rankRemoval is what removing some ranks does: the jobs that lose
// resources with what each gets back at which ancestor, the subgraph roots
// and the vertices to remove (ascending).
type rankRemoval struct {
	jobs  []jobRelease
	roots []graph.VertexID
	set   []graph.VertexID
}

type jobRelease struct {
	job  uint64
	ancs []ancCounts
}

// planRankRemoval computes a rank removal without changing anything; it
// stops at the first rank the graph does not know. Jobs are listed in
// ascending id order.
func (m *Matcher) planRankRemoval(ranks []int64) rankRemoval {
	var p rankRemoval
	type jobRanks struct {
		job uint64
		rcs []rankCounts
	}
	var jobs []jobRanks
	jobIdx := func(j uint64) *jobRanks {
		for i := range jobs {
			if jobs[i].job == j {
				return &jobs[i]
			}
		}
		jobs = append(jobs, jobRanks{job: j})
		return &jobs[len(jobs)-1]
	}
	var all []rankCounts // per rank, summed over jobs (FluxionFailures)
	for _, r := range ranks {
		if !m.g.HasRank(r) {
			break
		}
		vs := m.g.ByRank(r)
		if len(vs) == 0 {
			continue
		}
		rroot := m.rankRoot(r)
		sum := rankCounts{rank: r, root: rroot}
		for _, v := range vs {
			recs := m.jobsOf(v)
			for i := range recs.Len() {
				rec := recs.At(i)
				jr := jobIdx(rec.job)
				if len(jr.rcs) == 0 || jr.rcs[len(jr.rcs)-1].rank != r {
					jr.rcs = append(jr.rcs, rankCounts{rank: r, root: rroot})
				}
				if rec.alloc != 0 {
					if n, err := m.plan(v).SpanPlanned(rec.alloc); err == nil {
						t := m.g.V(v).Type
						jr.rcs[len(jr.rcs)-1].counts.add(t, n)
						sum.counts.add(t, n)
					}
				}
			}
			p.set = append(p.set, v)
		}
		all = append(all, sum)
		p.roots = append(p.roots, rroot)
	}
	slices.SortFunc(jobs, func(a, b jobRanks) int { return cmp.Compare(a.job, b.job) })
	var shared []ancCounts
	if m.opts.FluxionFailures {
		shared = m.ancestorCounts(all)
	}
	for _, jr := range jobs {
		ancs := shared
		if !m.opts.FluxionFailures {
			ancs = m.ancestorCounts(jr.rcs)
		}
		p.jobs = append(p.jobs, jobRelease{job: jr.job, ancs: ancs})
	}
	sortVertices(p.set)
	return p
}

// clearVertex drops every span and job record of v.
func (m *Matcher) clearVertex(v graph.VertexID) {
	if !m.booked(v) {
		return
	}
	if !m.opts.FluxionFailures {
		r := m.wrec(v)
		r.plan.Reset(0, int64(^uint64(0)>>1))
		r.xchk.Reset(0, int64(^uint64(0)>>1))
		for _, f := range r.filt {
			if f != nil {
				for _, rec := range r.jobs {
					if rec.fspan >= 0 {
						f.RemSpan(rec.fspan)
					}
				}
			}
		}
	}
	m.clearJobs(v)
}

func sortVertices(l []graph.VertexID) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j-1] > l[j]; j-- {
			l[j-1], l[j] = l[j], l[j-1]
		}
	}
}

// removeSubgraphs detaches each root from its parent's dynamic order and
// unindexes every vertex of set (ascending).
func (m *Matcher) removeSubgraphs(roots, set []graph.VertexID) error {
	for _, r := range roots {
		p := m.domParent(r)
		if p == graph.NoVertex {
			return &Error{Op: "remove", Errno: EINVAL}
		}
		if m.childOrder(p).none() {
			continue
		}
		l := m.worder(p)
		out := l[:0]
		for _, e := range l {
			if e.dst != r {
				out = append(out, e)
			}
		}
		m.setOrder(p, out)
	}
	// The orders of vertices outside the set keep their entries of
	// removed children (only the roots' parents drop them, above): a
	// derived order, which would lose them with the edges, is stored
	// first.
	if m.dynamic {
		inSet := make(map[graph.VertexID]bool, len(set))
		for _, v := range set {
			inSet[v] = true
		}
		for _, v := range set {
			for _, h := range m.g.In(v) {
				if !inSet[h.Other] && m.derivedOrder(h.Other) {
					m.worder(h.Other)
				}
			}
		}
	}
	g := m.wgraph()
	for _, v := range set {
		g.Unindex(v)
		m.setOrder(v, nil)
	}
	return nil
}

// reprime recomputes the pruning-filter totals after the graph changed,
// keeping existing spans, and forgets cached request trees (leaf types may
// have become pruning types).
func (m *Matcher) reprime() {
	m.prime()
	m.reqc.js = nil
}

// rekeyed reports whether v's entry in its parent's dynamic child order
// carries a weight set by a booking.
func (m *Matcher) rekeyed(v graph.VertexID) bool {
	for _, h := range m.g.In(v) {
		if h.Subsystem == m.dom {
			return m.weight(h.Edge) != math.MaxUint64
		}
	}
	return false
}
