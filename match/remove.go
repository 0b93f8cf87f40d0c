package match

import (
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
)

// RemovePath removes the subgraph rooted at the last vertex listed at path
// (spec traversal.md §14.4). Jobs are not cancelled: their records on the
// removed vertices are simply unreachable afterwards.
func (m *Matcher) RemovePath(path string) error {
	m.msg.Reset()
	vs := m.g.ByPath(path)
	if len(vs) == 0 {
		return &Error{Op: "remove", Errno: ENOENT}
	}
	root := vs[len(vs)-1]
	set := m.collectSubtree(root, nil)
	if err := m.removeSubgraphs([]graph.VertexID{root}, set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

// RemoveRanks cancels what every job holds on the given ranks and removes
// their vertices (spec traversal.md §14.3).
func (m *Matcher) RemoveRanks(ranks []int64) error {
	m.msg.Reset()
	m.tick()
	m.preTotal, m.postTotal = 0, 0
	var roots, set []graph.VertexID
	type jobCounts struct {
		job uint64
		rcs []rankCounts
	}
	var jobs []jobCounts
	jobIdx := func(j uint64) *jobCounts {
		for i := range jobs {
			if jobs[i].job == j {
				return &jobs[i]
			}
		}
		jobs = append(jobs, jobCounts{job: j})
		return &jobs[len(jobs)-1]
	}
	for _, r := range ranks {
		vs := m.g.ByRank(r)
		if len(vs) == 0 {
			m.msg.WriteString("remove: " + strconv.FormatInt(r, 10) + " not found in by_rank map.\n")
			return &Error{Op: "remove", Errno: EINVAL, Msg: m.msg.String()}
		}
		rroot := m.rankRoot(r)
		for _, v := range vs {
			for _, rec := range m.jobs[v] {
				jc := jobIdx(rec.job)
				var rc *rankCounts
				for i := range jc.rcs {
					if jc.rcs[i].rank == r {
						rc = &jc.rcs[i]
					}
				}
				if rc == nil {
					jc.rcs = append(jc.rcs, rankCounts{rank: r, root: rroot})
					rc = &jc.rcs[len(jc.rcs)-1]
				}
				if rec.alloc != 0 {
					if n, err := m.plans[v].SpanPlanned(rec.alloc); err == nil {
						rc.counts.add(m.g.V(v).Type, n)
					}
				}
			}
			m.clearVertex(v)
			set = append(set, v)
		}
		roots = append(roots, rroot)
	}
	for _, jc := range jobs {
		m.reduceAncestors(jc.job, jc.rcs)
	}
	sortVertices(set)
	if err := m.removeSubgraphs(roots, set); err != nil {
		return err
	}
	m.reprime()
	return nil
}

// clearVertex drops every span and job record of v.
func (m *Matcher) clearVertex(v graph.VertexID) {
	m.plans[v].Reset(0, int64(^uint64(0)>>1))
	m.xchk[v].Reset(0, int64(^uint64(0)>>1))
	for si := range m.filt {
		if f := m.filt[si][v]; f != nil {
			for _, rec := range m.jobs[v] {
				if rec.fspan >= 0 {
					f.RemSpan(rec.fspan)
				}
			}
		}
	}
	m.jobs[v] = nil
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
		l := m.outOrder[p]
		out := l[:0]
		for _, e := range l {
			if e.dst != r {
				out = append(out, e)
			}
		}
		m.outOrder[p] = out
	}
	for _, v := range set {
		m.g.Unindex(v)
		m.outOrder[v] = nil
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
