package gofluxion

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The reference model of TestModel: a booking table, as simple as it can
// be. It knows the resource tree (paths, types, sizes, ranks, status) and,
// per vertex, the list of (job, start, end, units, exclusive) bookings the
// Matcher handed out. It does not match anything itself: it checks what the
// Matcher did. A vertex is identified by its index in mvs; a path removed
// and attached again is a new vertex, so bookings left on removed vertices
// never collide with the new ones.

type mvx struct {
	path, typ, name string
	id, rank, size  int64
	uniq            int64 // uniq_id in the graph
	parent          int   // -1 for the root
	kids            []int
	live            bool
	down            bool // its own status (SetStatus, SetRankStatus)
}

type mbook struct {
	job        uint64
	start, end int64 // [start, end)
	units      int64
	excl       bool
}

type mhold struct {
	v     int
	units int64
	excl  bool
}

type mjob struct {
	id         uint64
	state      JobState
	start, end int64
	holds      []mhold // what it still holds
	r          []byte  // its R as the rv1 writer rendered it at creation
	rnosched   []byte  // … as rv1_nosched
	jgf        []byte  // … as jgf
	viaUpdate  bool    // created by Update
}

type model struct {
	vs     []mvx
	byPath map[string]int // live vertices
	book   map[int][]mbook
	jobs   map[uint64]*mjob
	next   uint64 // the id Match gives next; 0 once 2^64-1 was used (exhausted)
	types  map[string]bool
}

// useID records a job id used: Match gives ids above it, none after 2^64-1.
func (md *model) useID(id uint64) {
	if md.next != 0 && id >= md.next {
		md.next = id + 1
	}
}

func newModel() *model {
	return &model{byPath: map[string]int{}, book: map[int][]mbook{}, jobs: map[uint64]*mjob{}, next: 1, types: map[string]bool{}}
}

// clone deep-copies the model (for rollbacks).
func (m *model) clone() *model {
	c := &model{byPath: maps.Clone(m.byPath), book: map[int][]mbook{}, jobs: map[uint64]*mjob{}, next: m.next, types: maps.Clone(m.types)}
	c.vs = slices.Clone(m.vs)
	for i := range c.vs {
		c.vs[i].kids = slices.Clone(c.vs[i].kids)
	}
	for v, b := range m.book {
		c.book[v] = slices.Clone(b)
	}
	for id, j := range m.jobs {
		cj := *j
		cj.holds = slices.Clone(j.holds)
		c.jobs[id] = &cj
	}
	return c
}

// add inserts a live vertex under parent (-1: root).
func (m *model) add(parent int, typ, basename string, id, rank, size, uniq int64) int {
	name := basename + fmt.Sprint(id)
	path := "/" + name
	if parent >= 0 {
		path = m.vs[parent].path + "/" + name
	}
	m.vs = append(m.vs, mvx{path: path, typ: typ, name: name, id: id, rank: rank, size: size, uniq: uniq, parent: parent, live: true})
	v := len(m.vs) - 1
	if parent >= 0 {
		m.vs[parent].kids = append(m.vs[parent].kids, v)
	}
	m.byPath[path] = v
	m.types[typ] = true
	return v
}

// kill marks v and its subtree removed.
func (m *model) kill(v int) {
	if !m.vs[v].live {
		return
	}
	if p := m.vs[v].parent; p >= 0 {
		m.vs[p].kids = slices.DeleteFunc(m.vs[p].kids, func(k int) bool { return k == v })
	}
	m.subtree(v, func(u int) {
		m.vs[u].live = false
		if m.byPath[m.vs[u].path] == u {
			delete(m.byPath, m.vs[u].path)
		}
	})
}

// releaseRemoved releases what the live jobs hold on removed vertices, and
// the vertices they held shared (ancestors of what they took) with no leaf
// or exclusive vertex of theirs left below: a job left holding no leaf and
// no exclusive vertex ends (Canceled).
func (m *model) releaseRemoved() {
	for _, j := range m.live() {
		lost := false
		m.release(j, func(h mhold) bool {
			gone := !m.vs[h.v].live
			lost = lost || gone
			return gone
		})
		if !lost {
			continue
		}
		taken := map[int]bool{} // at or above a leaf or exclusive hold
		for _, h := range j.holds {
			if h.excl || isLeafType(m.vs[h.v].typ) {
				for a := h.v; a >= 0 && !taken[a]; a = m.vs[a].parent {
					taken[a] = true
				}
			}
		}
		m.release(j, func(h mhold) bool { return !taken[h.v] })
		if len(j.holds) == 0 {
			j.state = Canceled
		}
	}
}

// isLeaf: resources that are never parents; the model counts their units.
func isLeafType(t string) bool { return t == "core" || t == "gpu" || t == "memory" }

func (m *model) subtree(v int, f func(int)) {
	f(v)
	for _, k := range m.vs[v].kids {
		m.subtree(k, f)
	}
}

// effDown reports whether v or an ancestor is down.
func (m *model) effDown(v int) bool {
	for ; v >= 0; v = m.vs[v].parent {
		if m.vs[v].down {
			return true
		}
	}
	return false
}

// liveRanks returns the ranks that live vertices carry.
func (m *model) liveRanks() []int64 {
	set := map[int64]bool{}
	for _, v := range m.byPath {
		if r := m.vs[v].rank; r >= 0 {
			set[r] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// rankRoot is the live vertex of rank r with the shortest path (the first
// created among equals).
func (m *model) rankRoot(r int64) int {
	best := -1
	for v := range m.vs {
		x := &m.vs[v]
		if x.live && x.rank == r && (best < 0 || len(x.path) < len(m.vs[best].path)) {
			best = v
		}
	}
	return best
}

func overlaps(s1, e1, s2, e2 int64) bool { return s1 < e2 && s2 < e1 }

// conflicts reports why job's holds over [s, e) would double-book, or "".
// Leaves: the units booked at any moment stay within the size. Exclusive
// holds: no other job holds a leaf or an exclusive vertex at or below the
// vertex meanwhile, and no leaf or exclusive vertex is held below or at a
// vertex another job holds exclusively. Shared holds of inner vertices
// (the ancestors of what a job took) never conflict by themselves.
func (m *model) conflicts(job uint64, holds []mhold, s, e int64) string {
	for _, h := range holds {
		v := &m.vs[h.v]
		leaf := isLeafType(v.typ)
		if leaf {
			if h.units > v.size || h.units <= 0 {
				return fmt.Sprintf("%s: %d units of a size %d", v.path, h.units, v.size)
			}
			// The sum of units over time peaks at the start of a booking.
			points := []int64{s}
			for _, b := range m.book[h.v] {
				if b.job != job && overlaps(b.start, b.end, s, e) && b.start > s {
					points = append(points, b.start)
				}
			}
			for _, t := range points {
				used := h.units
				var who []string
				for _, b := range m.book[h.v] {
					if b.job != job && b.start <= t && t < b.end {
						used += b.units
						who = append(who, fmt.Sprintf("job %d [%d,%d) %d units", b.job, b.start, b.end, b.units))
					}
				}
				if used > v.size {
					return fmt.Sprintf("%s (size %d) at time %d: %d units for job %d [%d,%d) while %s", v.path, v.size, t, h.units, job, s, e, strings.Join(who, ", "))
				}
			}
		}
		if h.excl {
			var msg string
			m.subtree(h.v, func(u int) {
				for _, b := range m.book[u] {
					if msg == "" && b.job != job && (b.excl || isLeafType(m.vs[u].typ)) && overlaps(b.start, b.end, s, e) {
						msg = fmt.Sprintf("job %d takes %s exclusively over [%d,%d) while job %d holds %s over [%d,%d)", job, v.path, s, e, b.job, m.vs[u].path, b.start, b.end)
					}
				}
			})
			if msg != "" {
				return msg
			}
		}
		if !leaf && !h.excl {
			continue
		}
		for a := h.v; a >= 0; a = m.vs[a].parent {
			for _, b := range m.book[a] {
				if b.job != job && b.excl && overlaps(b.start, b.end, s, e) {
					return fmt.Sprintf("job %d holds %s over [%d,%d) while job %d holds %s exclusively over [%d,%d)", job, v.path, s, e, b.job, m.vs[a].path, b.start, b.end)
				}
			}
		}
	}
	return ""
}

// book records job's holds over [s, e).
func (m *model) bookJob(j *mjob) {
	for _, h := range j.holds {
		m.book[h.v] = append(m.book[h.v], mbook{job: j.id, start: j.start, end: j.end, units: h.units, excl: h.excl})
	}
}

// release drops job's bookings on the vertices keep says no to.
func (m *model) release(j *mjob, drop func(mhold) bool) {
	j.holds = slices.DeleteFunc(j.holds, func(h mhold) bool {
		if !drop(h) {
			return false
		}
		m.book[h.v] = slices.DeleteFunc(m.book[h.v], func(b mbook) bool { return b.job == j.id })
		if len(m.book[h.v]) == 0 {
			delete(m.book, h.v)
		}
		return true
	})
}

// dropEmptyShared releases j's holds on vertices it holds shared (not
// exclusively, not leaves) with no leaf or exclusive hold below them left,
// as a partial cancel does.
func (m *model) dropEmptyShared(j *mjob) {
	held := map[int]bool{}
	for _, h := range j.holds {
		if h.excl || isLeafType(m.vs[h.v].typ) {
			for a := m.vs[h.v].parent; a >= 0; a = m.vs[a].parent {
				held[a] = true
			}
		}
	}
	m.release(j, func(h mhold) bool { return !h.excl && !isLeafType(m.vs[h.v].typ) && !held[h.v] })
}

// underRank reports whether v or one of its ancestors has one of ranks.
func (m *model) underRank(v int, ranks []int64) bool {
	for a := v; a >= 0; a = m.vs[a].parent {
		if slices.Contains(ranks, m.vs[a].rank) {
			return true
		}
	}
	return false
}

// live returns the jobs holding resources (allocated or reserved), by id.
func (m *model) live() []*mjob {
	var out []*mjob
	for _, id := range slices.Sorted(maps.Keys(m.jobs)) {
		if j := m.jobs[id]; j.state != Canceled {
			out = append(out, j)
		}
	}
	return out
}

// leafPaths returns the live leaves j holds, sorted.
func (m *model) leafPaths(j *mjob) []string {
	var out []string
	for _, h := range j.holds {
		if v := &m.vs[h.v]; v.live && isLeafType(v.typ) {
			out = append(out, v.path)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// livePaths returns every live path, sorted.
func (m *model) livePaths() []string { return slices.Sorted(maps.Keys(m.byPath)) }

// downPaths returns the live vertices that are down or below a down one,
// with their ancestors (what find "status=down" prints), sorted.
func (m *model) downPaths() []string {
	set := map[string]bool{}
	for _, v := range m.byPath {
		if m.effDown(v) {
			for a := v; a >= 0; a = m.vs[a].parent {
				set[m.vs[a].path] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}
