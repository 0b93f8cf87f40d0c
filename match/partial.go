package match

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
)

// rankCounts accumulates, per rank, the released amount of each type.
type rankCounts struct {
	rank   int64
	root   graph.VertexID
	counts tcounts
}

// domPathLen is the length of v's dominant path (the subgraph root of a
// rank is its vertex with the shortest one).
func (m *Matcher) domPathLen(v graph.VertexID) int {
	p, ok := m.g.V(v).PathIn(m.dom)
	if !ok {
		return 1 << 30
	}
	return len(p)
}

// rankRoot returns the vertex of rank r with the shortest dominant path
// (the first among equals in rank-index order).
func (m *Matcher) rankRoot(r int64) graph.VertexID {
	best, bestLen := graph.NoVertex, 0
	for _, v := range m.g.ByRank(r) {
		if l := m.domPathLen(v); best == graph.NoVertex || l < bestLen {
			best, bestLen = v, l
		}
	}
	return best
}

// PartialCancel releases the part of job held by the given ranks (the
// rv1exec form of spec traversal.md §14.2). It reports whether that
// released the whole job. A rank is known when the graph ever had it.
//
// By default it releases everything job holds on the vertices that carry
// one of the ranks and in the subgraphs below them (in graphs where only
// nodes carry a rank, the node's sockets, cores and memory), as
// PartialCancelJGF releases listed vertices (see there for what the job
// keeps and when it is released whole). A rank whose vertices have all
// been removed is skipped. It fails, changing nothing, for an unknown
// rank, when no rank has vertices, and for a rank below whose vertices
// job holds nothing (EINVAL: the R does not describe the job).
//
// With Options.FluxionFailures the amounts are given back as Fluxion does:
// only the vertices carrying a rank are released, rank by rank in
// ascending order, stopping with an error at a rank that gives nothing
// back (its vertices hold the job only shared, as the nodes of a GRUG
// graph do); the ancestors keep the rest of their spans. A release that
// gives the root's filter span back counts as full, though the job's tags
// and exclusivity spans stay on the vertices it did not list (Fluxion's
// leftovers). A failure leaves what was done before it.
func (m *Matcher) PartialCancel(job uint64, ranks []int64) (full bool, err error) {
	m.msg.Reset()
	m.tick()
	m.preTotal, m.postTotal = 0, 0
	if !m.opts.FluxionFailures {
		return m.partialRanks(job, ranks)
	}
	rcs, err := m.releaseRanks(job, ranks)
	if err != nil {
		return false, err
	}
	return m.finishPartial(job, rcs, true)
}

// partialRanks is PartialCancel in library mode.
func (m *Matcher) partialRanks(job uint64, ranks []int64) (bool, error) {
	set := make(map[int64]bool, len(ranks))
	some := false
	for _, r := range ranks {
		if !m.g.HasRank(r) {
			return false, m.rankNotFound(r)
		}
		set[r] = true
		some = some || len(m.g.ByRank(r)) > 0
	}
	if !some {
		return false, m.noRankRoot()
	}
	vs := m.jobSet(job)
	drop := make([]bool, len(vs))
	held := make(map[int64]bool, len(set))
	for i, v := range vs {
		rec, _ := m.jobAt(v, job)
		for u := v; u != graph.NoVertex; u = m.domParentOf(u) {
			if r := m.g.V(u).Rank; set[r] {
				drop[i] = true
				if rec.alloc != 0 || rec.resv != 0 {
					held[r] = true
				}
			}
		}
	}
	for _, r := range ranks {
		if !held[r] && len(m.g.ByRank(r)) > 0 {
			return false, m.nothingBack(r)
		}
	}
	return m.releasePart(job, vs, drop), nil
}

// jobSet returns the distinct vertices where job has a record, ascending.
func (m *Matcher) jobSet(job uint64) []graph.VertexID {
	var vs []graph.VertexID
	for _, v := range m.jobVertices(job) {
		if int(v) < m.g.NumVertices() && m.hasJob(v, job) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

// jobParent returns v's parent in job's allocation: its first dominant
// parent that carries a record of job (in a tree, its parent).
func (m *Matcher) jobParent(v graph.VertexID, job uint64) graph.VertexID {
	for _, h := range m.g.In(v) {
		if h.Subsystem == m.dom && m.hasJob(h.Other, job) {
			return h.Other
		}
	}
	return graph.NoVertex
}

// releasePart is the library's partial cancel (the check done): of the
// vertices vs where job has a record, it releases the allocations on
// those drop marks, then every record of job on a vertex that holds no
// allocation and has none below it any more (tag, exclusivity and filter
// spans), and gives what was released back in the pruning-filter spans of
// the vertices the job keeps. It reports whether the job holds nothing
// any more; then nothing of it is left.
//
// A released allocation gives back its vertex's size, as the update walk
// counted it; a vertex the job held shared counted nothing (the walk
// counts size minus needs, which is 0 for the shared vertices of an
// allocation). Reductions are capped at what a filter span still holds.
func (m *Matcher) releasePart(job uint64, vs []graph.VertexID, drop []bool) bool {
	holds := func(v graph.VertexID) bool {
		rec, _ := m.jobAt(v, job)
		return rec.alloc != 0 || rec.resv != 0
	}
	keep := make(map[graph.VertexID]bool, len(vs))
	for i, v := range vs {
		if drop[i] || !holds(v) {
			continue
		}
		for u := v; u != graph.NoVertex && !keep[u]; u = m.jobParent(u, job) {
			keep[u] = true
		}
	}
	if len(keep) == 0 {
		for _, v := range vs {
			m.releaseRec(v, job)
		}
		m.compactJob(job)
		return true
	}
	back := make(map[graph.VertexID]*tcounts)
	for i, v := range vs {
		if !drop[i] || !holds(v) {
			continue
		}
		vx := m.g.V(v)
		for u := m.jobParent(v, job); u != graph.NoVertex; u = m.jobParent(u, job) {
			if !keep[u] {
				continue
			}
			c := back[u]
			if c == nil {
				c = new(tcounts)
				back[u] = c
			}
			c.add(vx.Type, vx.Size)
		}
	}
	for i, v := range vs {
		switch {
		case !keep[v]:
			m.releaseRec(v, job)
		case drop[i]:
			m.dropSpans(v, job)
		}
		if c := back[v]; c != nil {
			m.reduceFilter(v, job, *c)
		}
	}
	m.compactJob(job)
	return false
}

// reduceFilter takes counts off job's pruning-filter span at v, each
// capped at what the span holds; a span left with nothing goes.
func (m *Matcher) reduceFilter(v graph.VertexID, job uint64, counts tcounts) {
	rec, _ := m.jobAt(v, job)
	fr := m.filter(0, v)
	if !fr.ok() || rec.fspan < 0 || !fr.HasSpan(rec.fspan) {
		return
	}
	var types []int32
	var ns []int64
	for _, tc := range counts {
		k, err := fr.SpanPlanned(rec.fspan, fr.Index(int32(tc.t)))
		if err != nil {
			continue // not a member, or its span is gone
		}
		types, ns = append(types, int32(tc.t)), append(ns, min(tc.n, k))
	}
	if len(types) == 0 {
		return
	}
	if removed, err := m.wfilter(0, v).ReduceSpan(rec.fspan, types, ns); err == nil && removed {
		m.wjob(v, job).fspan = -1
	}
}

// releaseRanks releases what job holds on the vertices of the given ranks
// (Fluxion's partial cancel, FluxionFailures) and returns, per rank that
// has vertices, the rank's root and the amounts, in ascending rank order.
func (m *Matcher) releaseRanks(job uint64, ranks []int64) ([]rankCounts, error) {
	var rcs []rankCounts
	for _, r := range ranks {
		if !m.g.HasRank(r) {
			return nil, m.rankNotFound(r)
		}
		vs := m.g.ByRank(r)
		if len(vs) == 0 {
			continue
		}
		rc := rankCounts{rank: r, root: m.rankRoot(r)}
		for _, v := range vs {
			if rec, ok := m.jobAt(v, job); ok && rec.tagged {
				m.releaseVertex(v, m.wjob(v, job), job, &rc.counts)
			}
		}
		rcs = append(rcs, rc)
	}
	slices.SortFunc(rcs, func(a, b rankCounts) int { return cmp.Compare(a.rank, b.rank) })
	return rcs, nil
}

// finishPartial gives the released amounts back to the ancestors' filters
// and, if that untagged the root, drops the job's allocation spans
// anywhere, leaving its other records (spec §14.2 steps 3-5; Fluxion's
// partial cancel, FluxionFailures). It reports a full cancel.
func (m *Matcher) finishPartial(job uint64, rcs []rankCounts, perRank bool) (bool, error) {
	if len(rcs) == 0 {
		return false, m.noRankRoot()
	}
	if perRank {
		for _, rc := range rcs {
			if len(rc.counts) == 0 {
				return false, m.nothingBack(rc.rank)
			}
			if err := m.reduceAncestors(job, m.ancestorCounts([]rankCounts{rc}), false); err != nil {
				return false, err
			}
		}
	} else if err := m.reduceAncestors(job, m.ancestorCounts(rcs), false); err != nil {
		return false, err
	}
	root := m.g.Root(m.dom)
	if rec, ok := m.jobAt(root, job); ok && rec.tagged {
		return false, nil
	}
	for v := range m.g.NumVertices() {
		m.dropSpans(graph.VertexID(v), job)
	}
	m.compactJob(job)
	return true, nil
}

func (m *Matcher) rankNotFound(r int64) error {
	m.msg.WriteString("remove" + strconv.FormatInt(r, 10) + " not found in by_rank map.\n")
	return &Error{Op: "partial-cancel", Errno: EINVAL, Msg: m.msg.String()}
}

func (m *Matcher) noRankRoot() error {
	m.msg.WriteString("remove: rank_to_root is empty.\n")
	return &Error{Op: "partial-cancel", Errno: EINVAL, Msg: m.msg.String()}
}

func (m *Matcher) nothingBack(r int64) error {
	m.msg.WriteString("partial_cancel: nothing to give back for rank " + strconv.FormatInt(r, 10) + ".\n")
	return &Error{Op: "partial-cancel", Errno: EINVAL, Msg: m.msg.String()}
}

// addPlanned adds what v's allocation or reservation span for the record
// holds to counts.
func (m *Matcher) addPlanned(v graph.VertexID, rec *jobRec, counts *tcounts) {
	span := rec.alloc
	if span == 0 {
		span = rec.resv
	}
	if span != 0 {
		if n, err := m.plan(v).SpanPlanned(span); err == nil {
			counts.add(m.g.V(v).Type, n)
		}
	}
}

// releaseVertex drops every span job holds on v, adding the allocation's
// amount to counts.
func (m *Matcher) releaseVertex(v graph.VertexID, rec *jobRec, job uint64, counts *tcounts) {
	rec.tagged = false
	if rec.xspan != 0 {
		m.wxplan(v).RemSpan(rec.xspan)
		rec.xspan = 0
	}
	if f := m.wfilter(0, v); f != nil && rec.fspan >= 0 {
		f.RemSpan(rec.fspan)
		rec.fspan = -1
	}
	m.addPlanned(v, rec, counts)
	m.dropSpans(v, job)
}

// ancCounts is what the release of some ranks gives back at one ancestor.
type ancCounts struct {
	v      graph.VertexID
	counts tcounts
}

// ancestorCounts sums the released amounts of the rank roots at each of
// their ancestors, in the order the upward walks first meet them (spec
// §14.2 step 4).
func (m *Matcher) ancestorCounts(rcs []rankCounts) []ancCounts {
	root := m.g.Root(m.dom)
	var ancs []ancCounts
	find := func(v graph.VertexID) *ancCounts {
		for i := range ancs {
			if ancs[i].v == v {
				return &ancs[i]
			}
		}
		ancs = append(ancs, ancCounts{v: v})
		return &ancs[len(ancs)-1]
	}
	for _, rc := range rcs {
		if rc.root == graph.NoVertex {
			continue
		}
		for p := m.domParent(rc.root); p != graph.NoVertex; p = m.domParent(p) {
			a := find(p)
			for _, tc := range rc.counts {
				a.counts.add(tc.t, tc.n)
			}
			if p == root {
				break
			}
		}
	}
	return ancs
}

// reduceAncestors gives the released amounts back in the pruning filters of
// every ancestor of the released rank roots (spec §14.2 step 5). A count
// larger than what the job's filter span holds fails (Fluxion's rank
// removal sums the amounts of all jobs, see RemoveRanks); with check set
// nothing changes, the result only tells whether it would fail.
func (m *Matcher) reduceAncestors(job uint64, ancs []ancCounts, check bool) error {
	root := m.g.Root(m.dom)
	if rec, ok := m.jobAt(root, job); !ok || !rec.tagged {
		return nil
	}
	for _, a := range ancs {
		fr := m.filter(0, a.v)
		r, ok := m.jobAt(a.v, job)
		if !fr.ok() || !ok || r.fspan < 0 || !r.tagged {
			continue
		}
		if check {
			for _, tc := range a.counts {
				// Members whose span is gone are skipped, as by ReduceSpan.
				if k, err := fr.SpanPlanned(r.fspan, fr.Index(int32(tc.t))); err == nil && tc.n > k {
					return m.reduceError(job, a.v)
				}
			}
			continue
		}
		f, rec := m.wfilter(0, a.v), m.wjob(a.v, job)
		types := make([]int32, len(a.counts))
		counts := make([]int64, len(a.counts))
		for i, tc := range a.counts {
			types[i], counts[i] = int32(tc.t), tc.n
		}
		removed, err := f.ReduceSpan(rec.fspan, types, counts)
		if err != nil {
			return m.reduceError(job, a.v)
		}
		if removed {
			rec.fspan = -1
			rec.tagged = false
		}
		// Fluxion drops the ancestor's exclusivity-checker span even when
		// the job still holds resources below it.
		if rec.xspan != 0 {
			m.wxplan(a.v).RemSpan(rec.xspan)
			rec.xspan = 0
		}
		m.dropIfEmpty(a.v, job)
	}
	return nil
}

func (m *Matcher) reduceError(job uint64, v graph.VertexID) error {
	m.msg.WriteString("update_ancestors: can't reduce the filter span of job " + strconv.FormatUint(job, 10) + " at " + m.g.V(v).Name + ".\n")
	return &Error{Op: "remove", Errno: EINVAL, Msg: m.msg.String()}
}

// domParent returns v's parent in the dominant subsystem (first in-edge).
func (m *Matcher) domParent(v graph.VertexID) graph.VertexID {
	for _, h := range m.g.In(v) {
		if h.Subsystem == m.dom {
			return h.Other
		}
	}
	return graph.NoVertex
}

// PartialCancelJGF releases the vertices a JGF R lists from job (spec
// traversal.md §14.2, JGF form). It reports whether that released the
// whole job.
//
// By default every listed vertex must exist, be listed once and carry a
// record of job; otherwise it fails, changing nothing. It releases the
// allocations of the listed vertices (the job's exclusive vertices and
// leaves). The job keeps a vertex it holds shared (an ancestor of what it
// took) exactly while it still holds something below it, listed or not:
// there the job keeps its tag and exclusivity span (no other job can take
// that vertex exclusively) and its pruning-filter span, reduced by what
// was released below. A shared vertex left with nothing below is released
// too, listed or not. The job is released whole (full) exactly when it
// holds nothing any more, and then none of its records remain; listing
// only shared vertices releases nothing.
//
// With Options.FluxionFailures it fails as Fluxion does: Fluxion requires
// an allocation span on each listed vertex, so an R that lists a shared
// vertex (any R it wrote itself, unless the job took whole nodes) fails
// there, after the vertices listed before it were released and that one
// lost its filter span, its exclusivity span and its tag; the ancestors
// keep all their spans. A release that gives the root's filter span back
// counts as full, as in the rank form.
func (m *Matcher) PartialCancelJGF(job uint64, doc *jgf.Document) (full bool, err error) {
	m.msg.Reset()
	m.tick()
	m.preTotal, m.postTotal = 0, 0
	if !m.opts.FluxionFailures {
		if len(doc.Nodes) == 0 {
			return false, m.noRankRoot()
		}
		listed := make(map[graph.VertexID]bool, len(doc.Nodes))
		for i := range doc.Nodes {
			v, err := m.cancelVertex(job, &doc.Nodes[i], nil)
			if err != nil {
				return false, err
			}
			if listed[v] {
				m.msg.WriteString("cancel_vtx: " + m.g.V(v).Name + " is listed twice.\n")
				return false, &Error{Op: "partial-cancel", Errno: EINVAL, Msg: m.msg.String()}
			}
			listed[v] = true
		}
		vs := m.jobSet(job)
		drop := make([]bool, len(vs))
		for i, v := range vs {
			drop[i] = listed[v]
		}
		return m.releasePart(job, vs, drop), nil
	}
	var rcs []rankCounts
	rcFor := func(r int64) *rankCounts {
		for i := range rcs {
			if rcs[i].rank == r {
				return &rcs[i]
			}
		}
		rcs = append(rcs, rankCounts{rank: r, root: graph.NoVertex})
		return &rcs[len(rcs)-1]
	}
	for i := range doc.Nodes {
		var counts tcounts
		v, err := m.cancelVertex(job, &doc.Nodes[i], &counts)
		if err != nil {
			return false, err
		}
		rc := rcFor(m.g.V(v).Rank)
		if rc.root == graph.NoVertex || m.domPathLen(v) < m.domPathLen(rc.root) {
			rc.root = v
		}
		for _, tc := range counts {
			rc.counts.add(tc.t, tc.n)
		}
	}
	return m.finishPartial(job, rcs, false)
}

// cancelVertex releases the vertex a JGF node of an R names from job,
// adding what its allocation span held to counts, in Fluxion's order: the
// filter span, the exclusivity span (which must exist), the tag, then the
// allocation span. With counts nil it only checks, changing nothing.
func (m *Matcher) cancelVertex(job uint64, n *jgf.Node, counts *tcounts) (graph.VertexID, error) {
	fail := func(msg string) (graph.VertexID, error) {
		m.msg.WriteString(msg)
		return graph.NoVertex, &Error{Op: "partial-cancel", Errno: EINVAL, Msg: m.msg.String()}
	}
	v, msg := m.findJGFVertex(n)
	if msg != "" {
		return fail(msg)
	}
	apply := counts != nil
	name := m.g.V(v).Name
	var rec *jobRec
	if r, ok := m.jobAt(v, job); ok {
		rec = &r
		if apply {
			rec = m.wjob(v, job)
		}
	}
	if rec != nil && apply {
		if f := m.wfilter(0, v); f != nil && rec.fspan >= 0 {
			f.RemSpan(rec.fspan)
			rec.fspan = -1
		}
	}
	if rec == nil || rec.xspan == 0 {
		if rec != nil && apply {
			m.dropIfEmpty(v, job)
		}
		return fail("cancel_vtx: can't find x_checker span for job " + strconv.FormatUint(job, 10) + " in " + name + ".\n")
	}
	span := rec.alloc
	if span == 0 {
		span = rec.resv
	}
	if apply {
		m.wxplan(v).RemSpan(rec.xspan)
		rec.xspan = 0
		rec.tagged = false
	}
	if span == 0 && m.opts.FluxionFailures {
		if apply {
			m.dropIfEmpty(v, job)
		}
		return fail("cancel_vtx: can't find allocation span for job " + strconv.FormatUint(job, 10) + " in " + name + ".\n")
	}
	if apply {
		if span != 0 {
			if k, err := m.plan(v).SpanPlanned(span); err == nil {
				counts.add(m.g.V(v).Type, k)
			}
		}
		m.dropSpans(v, job)
	}
	return v, nil
}
