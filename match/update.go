package match

import (
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// jobRec returns v's record for job, creating it when create is set.
func (m *Matcher) jobRec(v graph.VertexID, job uint64, create bool) *jobRec {
	l := m.jobs[v]
	i := 0
	for i < len(l) && l[i].job < job {
		i++
	}
	if i < len(l) && l[i].job == job {
		return &l[i]
	}
	if !create {
		return nil
	}
	l = append(l, jobRec{})
	copy(l[i+1:], l[i:])
	l[i] = jobRec{job: job, fspan: -1}
	m.jobs[v] = l
	return &l[i]
}

// dropIfEmpty removes v's record for job when it holds nothing any more.
func (m *Matcher) dropIfEmpty(v graph.VertexID, job uint64) {
	l := m.jobs[v]
	for i := range l {
		if l[i].job == job {
			r := l[i]
			if !r.tagged && r.alloc == 0 && r.resv == 0 && r.xspan == 0 && r.fspan < 0 {
				m.jobs[v] = append(l[:i], l[i+1:]...)
			}
			return
		}
	}
}

// updater carries the state of one update walk.
type updater struct {
	w     emit.Writer
	full  bool
	level int
	ev    emit.Vertex
}

// update books the selection and emits it (spec traversal.md §9).
func (m *Matcher) update(w emit.Writer, full bool) int {
	vr := m.virtualEdge(m.dom)
	if vr.seq != m.seq {
		m.msg.WriteString("update: resource state wasn't properly set up for update.\n")
		m.errno = EINVAL
		return -1
	}
	root := m.g.Root(m.dom)
	x, needs := vr.excl, vr.needs
	m.resetColors()
	shadow := m.isExclType(m.g.V(root).Type)
	up := updater{w: w, full: full}
	var top tcounts
	n := m.updDFV(&up, root, needs, x, &top, shadow, false, 0)
	if n > 0 {
		w.Times(m.cur.at, m.cur.at+m.cur.duration)
		if m.cur.queue != "" {
			w.Attr("queue", m.cur.queue)
		}
		return 0
	}
	return -1
}

// aggAt returns the (emptied) aggregate buffer of a walk depth; buffers are
// heap objects so pointers stay valid while deeper levels are added.
func (m *Matcher) aggAt(depth int) *tcounts {
	for len(m.work.aggs) <= depth {
		m.work.aggs = append(m.work.aggs, new(tcounts))
	}
	a := m.work.aggs[depth]
	*a = (*a)[:0]
	return a
}

func (m *Matcher) updDFV(up *updater, u graph.VertexID, needs int64, excl bool, toParent *tcounts, shadow, exclParent bool, depth int) int64 {
	g := m.g
	vx := g.V(u)
	mod := shadow || m.isExclType(vx.Type)
	excl = excl || mod
	up.level++
	m.gray(0, u)
	dfu := m.aggAt(depth)
	var nPlans int64
	for si, sub := range m.subs {
		for _, h := range g.Out(u) {
			if h.Subsystem != sub || !m.white(si, h.Other) {
				continue
			}
			st := m.stamps[h.Edge]
			if st.seq != m.seq && !mod {
				continue
			}
			xc := st.excl || mod
			nc := st.needs
			if mod {
				nc = g.V(h.Other).Size
			}
			var k int64
			if si == 0 {
				k = m.updDFV(up, h.Other, nc, xc, dfu, mod, excl, depth+1)
			}
			if k > 0 {
				if m.dynamic {
					m.rekeyEdge(u, h)
				}
				up.w.Edge(g, h.Edge, excl)
				nPlans += k
			}
		}
	}
	m.black(0, u)
	n := nPlans
	booked := true
	if m.cur.atype == atNone {
		if excl {
			n++
		}
	} else {
		var span int64
		if excl {
			n++
			if up.full {
				s, err := m.plans[u].AddSpan(m.cur.at, m.cur.duration, needs)
				if err != nil {
					booked = false
				} else {
					span = s
				}
			}
		}
		if n > 0 && booked {
			rec := m.jobRec(u, m.cur.jobid, true)
			if span != 0 {
				switch m.cur.atype {
				case atAlloc:
					rec.alloc = span
				case atOrElseReserve:
					rec.resv = span
				}
			}
			rec.tagged = true
			if s, err := m.xchk[u].AddSpan(m.cur.at, m.cur.duration, 1); err == nil {
				rec.xspan = s
			}
			if f := m.filt[0][u]; f != nil && len(*dfu) > 0 {
				counts := m.work.counts[:0]
				for i := 0; i < f.Len(); i++ {
					c, _ := dfu.get(graph.TypeID(f.Type(i)))
					counts = append(counts, c)
				}
				m.work.counts = counts
				if s, err := f.AddSpan(m.cur.at, m.cur.duration, counts); err == nil {
					rec.fspan = s
				}
			}
			conf := &m.prune[0]
			if conf.has(vx.Type) {
				if excl {
					toParent.add(vx.Type, vx.Size)
				} else {
					toParent.add(vx.Type, vx.Size-needs)
				}
			}
			for _, tc := range *dfu {
				if conf.has(tc.t) {
					toParent.add(tc.t, tc.n)
				}
			}
		}
	}
	if !booked {
		// Fluxion counts the vertex but neither emits it nor closes its
		// emission level.
		return n
	}
	if n > 0 {
		up.ev = emit.Vertex{ID: u, Needs: needs, Exclusive: excl, ExclParent: exclParent, Level: up.level}
		if lr := m.labels[u]; lr.seq == m.seq {
			up.ev.Label = lr.label
		}
		up.w.Vertex(g, &up.ev)
	}
	up.level--
	return n
}

// rekeyEdge updates the dynamic-order weight of u→v after a booking (spec
// traversal.md §5.3): the free amount of the last type v's filter tracks.
func (m *Matcher) rekeyEdge(u graph.VertexID, h graph.Half) {
	si := m.subIndex(h.Subsystem)
	if si < 0 {
		return
	}
	f := m.filt[si][h.Other]
	if f == nil || f.Len() == 0 {
		return
	}
	a, err := f.AvailAt(m.cur.now, f.Len()-1)
	if err == nil && a == 0 && f.NumSpans() == 0 {
		return
	}
	w := uint64(0)
	if err == nil && a > 0 {
		w = uint64(a)
	}
	m.rekey(u, h.Edge, w)
}

// virtualEdge returns the selection stamp of the root of subsystem s (the
// root has no real in-edge to carry it).
func (m *Matcher) virtualEdge(s graph.SubsystemID) *stamp {
	for int(s) >= len(m.vroot) {
		m.vroot = append(m.vroot, stamp{})
	}
	return &m.vroot[s]
}
