package match

import (
	"fmt"

	"github.com/gofluxion/gofluxion/graph"
)

// Cancel removes everything job holds: allocation or reservation spans,
// exclusivity-checker spans, pruning-filter spans and tags (spec
// traversal.md §14.1). The visit counts of the walk are reported by Visits.
func (m *Matcher) Cancel(job uint64) error {
	m.msg.Reset()
	m.pre, m.post = 0, 0
	root := m.g.Root(m.dom)
	var rc int
	if rec := m.jobRec(root, job, false); rec != nil && rec.tagged {
		if !m.opts.FluxionFailures {
			// The walk below can only fail on a filter span that is gone,
			// which Fluxion's half-done operations leave; check first.
			m.resetColors()
			if v := m.cancelCheck(root, job); v != graph.NoVertex {
				return &Error{Op: "cancel", Errno: EINVAL, Msg: fmt.Sprintf("cancel: can't find the filter span of job %d at %s.\n", job, m.g.V(v).Name)}
			}
		}
		m.resetColors()
		rc = m.cancelDFV(root, job)
	} else if m.opts.FluxionFailures && m.taggedBelowRoot(job) {
		// A job the root no longer carries but other vertices still do
		// (after a partial release or a rank removal gave the root's
		// share back): Fluxion's cancel fails there (o2000267), while it
		// releases a job that tagged nothing (an R booked under another
		// dominant subsystem, upstream t3023-004).
		return &Error{Op: "cancel", Errno: EINVAL, Msg: fmt.Sprintf("cancel: job %d is tagged below the root only.\n", job)}
	} else {
		for v := range m.jobs {
			m.dropSpans(graph.VertexID(v), job)
		}
	}
	m.preTotal, m.postTotal = m.pre, m.post
	if rc != 0 {
		return &Error{Op: "cancel", Errno: m.errno, Msg: m.msg.String()}
	}
	return nil
}

// dropSpans removes job's allocation or reservation span from v's planner.
func (m *Matcher) dropSpans(v graph.VertexID, job uint64) {
	rec := m.jobRec(v, job, false)
	if rec == nil {
		return
	}
	if rec.alloc != 0 {
		m.plans[v].RemSpan(rec.alloc)
		rec.alloc = 0
	} else if rec.resv != 0 {
		m.plans[v].RemSpan(rec.resv)
		rec.resv = 0
	}
	m.dropIfEmpty(v, job)
}

func (m *Matcher) cancelDFV(u graph.VertexID, job uint64) int {
	m.pre++
	rec := m.jobRec(u, job, false)
	if rec == nil || !rec.tagged {
		return 0
	}
	m.gray(0, u)
	rec.tagged = false
	if rec.xspan != 0 {
		m.xchk[u].RemSpan(rec.xspan)
		rec.xspan = 0
	}
	if f := m.filt[0][u]; f != nil && rec.fspan >= 0 {
		if err := f.RemSpan(rec.fspan); err != nil {
			m.errno = plannerErrno(err)
			m.msg.WriteString(fmt.Sprintf("cancel: can't remove filter span of job %d at %s.\n", job, m.g.V(u).Name))
			return -1
		}
		rec.fspan = -1
	}
	m.dropSpans(u, job)
	for si, sub := range m.subs {
		for _, h := range m.g.Out(u) {
			if h.Subsystem != sub || !m.white(si, h.Other) {
				continue
			}
			if si == 0 {
				if m.cancelDFV(h.Other, job) != 0 {
					return -1
				}
			}
		}
	}
	m.black(0, u)
	m.post++
	return 0
}

// cancelCheck walks what cancelDFV walks without changing anything and
// returns the first vertex whose filter span for job is missing, or
// NoVertex.
func (m *Matcher) cancelCheck(u graph.VertexID, job uint64) graph.VertexID {
	rec := m.jobRec(u, job, false)
	if rec == nil || !rec.tagged {
		return graph.NoVertex
	}
	m.gray(0, u)
	if f := m.filt[0][u]; f != nil && rec.fspan >= 0 {
		if _, _, _, err := f.SpanInfo(rec.fspan); err != nil {
			return u
		}
	}
	for _, h := range m.g.Out(u) {
		if h.Subsystem == m.dom && m.white(0, h.Other) {
			if v := m.cancelCheck(h.Other, job); v != graph.NoVertex {
				return v
			}
		}
	}
	m.black(0, u)
	return graph.NoVertex
}

// taggedBelowRoot reports whether some vertex carries job's tag.
func (m *Matcher) taggedBelowRoot(job uint64) bool {
	for v := range m.jobs {
		if rec := m.jobRec(graph.VertexID(v), job, false); rec != nil && rec.tagged {
			return true
		}
	}
	return false
}
