package match

import (
	"slices"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

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
	m.sortStamped()
	shadow := m.isExclType(m.g.V(root).Type)
	up := &m.work.up
	*up = updater{w: w, full: full, level: m.baseLevel()}
	m.work.top = m.work.top[:0]
	n := m.updDFV(up, root, needs, x, &m.work.top, shadow, false, 0)
	m.keepLevel(up.level)
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
	if depth > graph.MaxDepth {
		return 0 // the selection walk stops at the same depth
	}
	g := m.g
	vx := g.V(u)
	mod := shadow || m.isExclType(vx.Type)
	excl = excl || mod
	up.level++
	m.gray(0, u)
	dfu := m.aggAt(depth)
	var nPlans int64
	child := func(h graph.Half, st stamp) {
		xc := st.excl || mod
		nc := st.needs
		if mod {
			nc = g.V(h.Other).Size
		}
		if k := m.updDFV(up, h.Other, nc, xc, dfu, mod, excl, depth+1); k > 0 {
			if m.rekeys() {
				m.rekeyEdge(u, h)
			}
			up.w.Edge(g, h.Edge, excl)
			nPlans += k
		}
	}
	if mod {
		// The whole subtree is taken: every dominant child, stamped or
		// not (auxiliary subsystems contribute nothing to the walk).
		for _, h := range g.Out(u) {
			if h.Subsystem == m.dom && m.white(0, h.Other) {
				child(h, m.stamps[h.Edge])
			}
		}
	} else {
		// Only selected edges, in creation (edge id) order.
		sl := m.work.stamped
		for i := m.firstStamped(u); i < len(sl) && sl[i].src == u; i++ {
			ed := g.E(sl[i].e)
			if ed.Subsystem == m.dom && m.white(0, ed.Dst) {
				child(graph.Half{Edge: sl[i].e, Other: ed.Dst, Subsystem: ed.Subsystem}, m.stamps[sl[i].e])
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
		var r *vrec // u's record for a change, once something is booked on u
		if excl {
			n++
			if up.full {
				r = m.wrec(u)
				s, err := m.addSpan(&r.plan, m.cur.at, m.cur.duration, needs)
				if err != nil {
					booked = false
				} else {
					span = s
				}
			}
		}
		if n > 0 && booked {
			if r == nil {
				r = m.wrec(u)
			}
			rec := m.newJobIn(r, u, m.cur.jobid)
			if span != 0 {
				switch m.cur.atype {
				case atAlloc:
					rec.alloc = span
				case atOrElseReserve:
					rec.resv = span
				}
			}
			rec.tagged = true
			if s, err := m.addSpan(&r.xchk, m.cur.at, m.cur.duration, 1); err == nil {
				rec.xspan = s
			} else {
				booked = false
			}
			if f := filterIn(r, 0); booked && f != nil && len(*dfu) > 0 {
				counts := m.work.counts[:0]
				for i := 0; i < f.Len(); i++ {
					c, _ := dfu.get(graph.TypeID(f.Type(i)))
					counts = append(counts, c)
				}
				m.work.counts = counts
				if s, err := f.AddSpan(m.cur.at, m.cur.duration, counts); err == nil {
					rec.fspan = s
				} else {
					// Only after a failure left the filter behind the
					// planners (Fluxion's partial cancels): the vertex
					// stays tagged but is not emitted, as below.
					booked = false
				}
			}
		}
		if n > 0 && booked {
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
		// emission level (the level of later emissions stays one deeper,
		// with FluxionQuirks also in later operations).
		return n
	}
	if n > 0 {
		up.ev = emit.Vertex{ID: u, Needs: needs, Exclusive: excl, ExclParent: exclParent, Level: up.level}
		up.ev.Label = m.label(u)
		up.w.Vertex(g, &up.ev)
	}
	up.level--
	return n
}

// baseLevel is the emission level walks start from: 0, or with
// FluxionQuirks what the last walk left (Fluxion's traverser keeps one
// level counter, which a vertex it could not book leaves raised).
func (m *Matcher) baseLevel() int {
	if m.opts.FluxionQuirks {
		return m.level
	}
	return 0
}

// keepLevel records the level a walk ended at.
func (m *Matcher) keepLevel(l int) {
	if m.opts.FluxionQuirks {
		m.level = l
	}
}

// rekeys reports whether the update walk re-keys the dynamic child order.
// A dry run books nothing, so by default it leaves the order alone; Fluxion
// re-keys it all the same, which changes later decisions.
func (m *Matcher) rekeys() bool {
	return m.dynamic && !m.probe && (m.cur.atype != atNone || m.opts.FluxionQuirks)
}

// rekeyEdge updates the dynamic-order weight of u→v after a booking (spec
// traversal.md §5.3): the free amount of the last type v's filter tracks.
// An update from an R re-keys at its start time; Fluxion reads the filter
// at a time the filter rejects there, which gives every walked edge weight
// 0 (the quirk, found on the ops corpus: such subtrees are tried last).
func (m *Matcher) rekeyEdge(u graph.VertexID, h graph.Half) {
	si := m.subIndex(h.Subsystem)
	if si < 0 {
		return
	}
	f := m.filter(si, h.Other)
	if !f.ok() || f.Len() == 0 {
		return
	}
	if m.cur.fromR && m.opts.FluxionQuirks {
		m.rekey(u, h.Edge, m.g.V(h.Other).UniqID, 0)
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
	m.rekey(u, h.Edge, m.g.V(h.Other).UniqID, w)
}

// virtualEdge returns the selection stamp of the root of subsystem s (the
// root has no real in-edge to carry it).
func (m *Matcher) virtualEdge(s graph.SubsystemID) *stamp {
	for int(s) >= len(m.vroot) {
		m.vroot = append(m.vroot, stamp{})
	}
	return &m.vroot[s]
}

// sortStamped orders the selected edges by source and creation and drops
// repeats.
func (m *Matcher) sortStamped() {
	sl := m.work.stamped
	slices.SortFunc(sl, func(a, b srcEdge) int {
		if a.src != b.src {
			return int(a.src - b.src)
		}
		return int(a.e - b.e)
	})
	m.work.stamped = slices.Compact(sl)
}

// firstStamped returns the index of u's first selected edge.
func (m *Matcher) firstStamped(u graph.VertexID) int {
	sl := m.work.stamped
	lo, hi := 0, len(sl)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sl[mid].src < u {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
