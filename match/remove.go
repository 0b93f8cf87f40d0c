package match

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
)

// RemovePath removes the subgraph rooted at the last vertex listed at path
// (spec traversal.md §14.4). The graph's root cannot be removed.
//
// Every job (allocation or reservation) holding something in the subgraph
// loses it first, as in RemoveRanks: its spans there are released and the
// ancestors' pruning filters get the released amounts back. What it holds
// outside the subgraph stays, and so do its tag and exclusivity span on an
// ancestor while it holds something at or below that ancestor; an
// ancestor under which it holds nothing else is released whole. A job left
// holding nothing ends: Ended lists it. On failure nothing changes.
//
// With Options.FluxionQuirks or Options.FluxionFailures, jobs are not
// touched, as in Fluxion (spec §14.4): their records on the removed
// vertices are simply unreachable afterwards, and the ancestors' filters
// keep counting what they held there until they are cancelled.
//
// Fluxion never returns from some socket removals (the ops corpus README:
// "it loops forever on remove <socket path> true"), yet removes the socket
// of an untouched graph (upstream t3035-001). With Options.FluxionFailures
// a socket whose place in its parent's dynamic child order was re-keyed by
// a booking is refused with ENOTSUP instead of hanging; where exactly
// Fluxion hangs is not known beyond that.
func (m *Matcher) RemovePath(path string) error {
	m.msg.Reset()
	m.releases++ // may give units back: the links over full candidates (skip.go) go stale
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
	m.ended = m.ended[:0]
	if !m.opts.FluxionQuirks && !m.opts.FluxionFailures {
		if m.domParent(root) == graph.NoVertex {
			return &Error{Op: "remove", Errno: EINVAL, Msg: "remove: " + m.g.V(root).Name + " is the root of the graph and cannot be removed.\n"}
		}
		slices.Sort(set)
		set = slices.Compact(set)
		m.releaseRemoved(set)
	}
	if err := m.removeSubgraphs([]graph.VertexID{root}, set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

// Ended returns the jobs that the last RemovePath or RemoveRanks ended
// because they held nothing any more, in ascending order. The slice is
// valid until the next removal.
func (m *Matcher) Ended() []uint64 { return m.ended }

// RemoveRanks removes the vertices of the given ranks with the subgraphs
// below them (spec traversal.md §14.3). Every job (allocation or
// reservation) holding something there loses it first, as with RemovePath:
// its spans there are released and the ancestors' pruning filters get the
// released amounts back; what it holds elsewhere stays, and so do its tag
// and exclusivity span on an ancestor while it holds something at or below
// that ancestor. A job left holding nothing ends: Ended lists it.
//
// A rank is known when the graph ever had it; a known rank whose vertices
// are all gone removes nothing. An unknown rank or the graph's root fails.
// On failure nothing changes.
//
// With Options.FluxionFailures it removes and fails as Fluxion does: only
// the vertices carrying the ranks are removed (vertices below them without
// a rank stay findable by path), every job's records on them are dropped,
// and the released amounts go back to the ancestors' filters as in an
// rv1exec partial cancel (spec §14.2 step 5, which drops the exclusivity
// span of an ancestor the job still holds something below). Fluxion sums
// the released amounts per rank over all jobs and gives each job that sum
// back: when a rank held more than one job, or jobs on several of the
// ranks share an ancestor, that exceeds what a job's filter span holds
// and the removal fails. The vertices then stay in the graph with their
// job records dropped but their planner spans kept (phantom bookings
// nobody can cancel), and the ancestors keep their spans.
func (m *Matcher) RemoveRanks(ranks []int64) error {
	m.msg.Reset()
	m.releases++ // may give units back: the links over full candidates (skip.go) go stale
	m.tick()
	m.preTotal, m.postTotal = 0, 0
	m.ended = m.ended[:0]
	if !m.opts.FluxionFailures {
		return m.removeRankSubtrees(ranks)
	}
	plan := m.planRankRemoval(ranks)
	for _, r := range ranks {
		if !m.g.HasRank(r) {
			return m.removeRankNotFound(r)
		}
		for _, v := range m.g.ByRank(r) {
			m.clearVertex(v)
		}
	}
	for _, job := range plan.jobs {
		if err := m.reduceAncestors(job, plan.ancs, false); err != nil {
			return err
		}
	}
	if err := m.removeSubgraphs(plan.roots, plan.set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

// removeRankSubtrees is RemoveRanks without Options.FluxionFailures: it
// checks everything first, then releases and removes the whole subtrees
// below the ranks' vertices.
func (m *Matcher) removeRankSubtrees(ranks []int64) error {
	for _, r := range ranks {
		if !m.g.HasRank(r) {
			return m.removeRankNotFound(r)
		}
	}
	// The roots: the ranks' vertices with no ancestor among them.
	sel := make(map[graph.VertexID]bool)
	for _, r := range ranks {
		for _, v := range m.g.ByRank(r) {
			sel[v] = true
		}
	}
	var roots []graph.VertexID
	for v := range sel {
		top := true
		for p := m.domParent(v); p != graph.NoVertex && top; p = m.domParent(p) {
			top = !sel[p]
		}
		if top {
			roots = append(roots, v)
		}
	}
	slices.Sort(roots)
	var set []graph.VertexID
	for _, r := range roots {
		if m.domParent(r) == graph.NoVertex {
			return &Error{Op: "remove", Errno: EINVAL, Msg: "remove: " + m.g.V(r).Name + " is the root of the graph and cannot be removed.\n"}
		}
		set = m.collectSubtree(r, set)
	}
	if len(set) == 0 {
		return nil
	}
	slices.Sort(set)
	set = slices.Compact(set)
	m.releaseRemoved(set)
	if err := m.removeSubgraphs(roots, set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

// releaseRemoved releases what every job holds on the vertices of set
// (whole subtrees, ascending) before their removal: see RemovePath. The
// jobs left holding nothing go to m.ended, in ascending order.
func (m *Matcher) releaseRemoved(set []graph.VertexID) {
	in := make([]bool, m.g.NumVertices())
	held := map[uint64][]graph.VertexID{} // by job: its vertices in set
	for _, v := range set {
		in[v] = true
		recs := m.jobsOf(v)
		for i := range recs.Len() {
			j := recs.At(i).job
			held[j] = append(held[j], v)
		}
	}
	for _, job := range slices.Sorted(maps.Keys(held)) {
		if !m.releaseJobIn(job, held[job], in) {
			m.ended = append(m.ended, job)
		}
	}
}

// releaseJobIn releases what job holds on vs, its vertices in the removed
// set (in marks the set), gives the amounts back to the filters of the
// ancestors outside the set under which the job still holds something,
// and releases those under which it holds nothing else. It reports
// whether the job still holds something; if not, none of its records is
// left.
func (m *Matcher) releaseJobIn(job uint64, vs []graph.VertexID, in []bool) bool {
	// What the job gives back at each ancestor outside the set, in the
	// order the upward walks meet them.
	var ancs []ancCounts
	at := map[graph.VertexID]int{}
	var c tcounts
	for _, v := range vs {
		rec, _ := m.jobAt(v, job)
		c = c[:0]
		m.addPlanned(v, &rec, &c)
		for p := m.domParent(v); p != graph.NoVertex; p = m.domParent(p) {
			if in[p] {
				continue
			}
			i, ok := at[p]
			if !ok {
				i = len(ancs)
				at[p] = i
				ancs = append(ancs, ancCounts{v: p})
			}
			for _, tc := range c {
				ancs[i].counts.add(tc.t, tc.n)
			}
		}
	}
	// The vertices at or above what the job still books outside the set.
	keep := map[graph.VertexID]bool{}
	nv := m.g.NumVertices()
	for _, v := range m.jobVertices(job) {
		if int(v) >= nv || in[v] {
			continue
		}
		if rec, ok := m.jobAt(v, job); !ok || rec.alloc == 0 && rec.resv == 0 {
			continue
		}
		for u := v; u != graph.NoVertex && !keep[u]; u = m.domParent(u) {
			keep[u] = true
		}
	}
	for _, a := range ancs {
		if !m.hasJob(a.v, job) {
			continue
		}
		if keep[a.v] {
			m.giveBack(a.v, job, a.counts)
		} else {
			m.releaseRec(a.v, job)
		}
	}
	for _, v := range vs {
		m.releaseRec(v, job)
	}
	if len(keep) == 0 {
		// Nothing booked is left: drop whatever record remains.
		for _, v := range m.jobVertices(job) {
			m.releaseRec(v, job)
		}
	}
	m.compactJob(job)
	return len(keep) > 0
}

// giveBack reduces job's filter span at v by counts (by no more than the
// span holds of each type).
func (m *Matcher) giveBack(v graph.VertexID, job uint64, counts tcounts) {
	rec, _ := m.jobAt(v, job)
	fr := m.filter(0, v)
	if !fr.ok() || rec.fspan < 0 {
		return
	}
	var types []int32
	var ns []int64
	for _, tc := range counts {
		k, err := fr.SpanPlanned(rec.fspan, fr.Index(int32(tc.t)))
		if err != nil || k <= 0 || tc.n <= 0 {
			continue // a type the filter does not track, or reduced away
		}
		types = append(types, int32(tc.t))
		ns = append(ns, min(tc.n, k))
	}
	if len(types) == 0 {
		return
	}
	w := m.wjob(v, job)
	if removed, err := m.wfilter(0, v).ReduceSpan(w.fspan, types, ns); err == nil && removed {
		w.fspan = -1
	}
}

// dropFilter removes v's pruning filter in matcher subsystem si with the
// jobs' spans in it.
func (m *Matcher) dropFilter(si int, v graph.VertexID) {
	if si == 0 {
		recs := m.jobsOf(v)
		var jobs []uint64
		for i := range recs.Len() {
			if recs.At(i).fspan >= 0 {
				jobs = append(jobs, recs.At(i).job)
			}
		}
		for _, j := range jobs {
			m.wjob(v, j).fspan = -1
			m.dropIfEmpty(v, j)
		}
	}
	m.setFilter(si, v, nil)
}

func (m *Matcher) removeRankNotFound(r int64) error {
	m.msg.WriteString("remove: " + strconv.FormatInt(r, 10) + " not found in by_rank map.\n")
	return &Error{Op: "remove", Errno: EINVAL, Msg: m.msg.String()}
}

// rankRemoval is what Fluxion's removal of some ranks does: the jobs that
// lose resources (ascending), what each gets back at which ancestor, the
// subgraph roots and the vertices to remove (ascending).
type rankRemoval struct {
	jobs  []uint64
	ancs  []ancCounts
	roots []graph.VertexID
	set   []graph.VertexID
}

// planRankRemoval computes Fluxion's rank removal without changing
// anything; it stops at the first rank the graph does not know. Every job
// gets back the amounts of all jobs (see RemoveRanks).
func (m *Matcher) planRankRemoval(ranks []int64) rankRemoval {
	var p rankRemoval
	var all []rankCounts // per rank, summed over jobs
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
				p.jobs = append(p.jobs, rec.job)
				if rec.alloc != 0 {
					if n, err := m.plan(v).SpanPlanned(rec.alloc); err == nil {
						sum.counts.add(m.g.V(v).Type, n)
					}
				}
			}
			p.set = append(p.set, v)
		}
		all = append(all, sum)
		p.roots = append(p.roots, rroot)
	}
	slices.Sort(p.jobs)
	p.jobs = slices.Compact(p.jobs)
	p.ancs = m.ancestorCounts(all)
	sortVertices(p.set)
	return p
}

// clearVertex drops every job record of v, keeping the spans (Fluxion's
// rank removal, which fails after it left them).
func (m *Matcher) clearVertex(v graph.VertexID) {
	if m.booked(v) {
		m.clearJobs(v) // refreshes v's freshness; no unit is given back
	}
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
