package match

import (
	"github.com/gofluxion/gofluxion/graph"
)

// Replaying the walks of untouched subtrees.
//
// The walk of a subtree whose vertices are all fresh (fresh.go) depends on
// the request, on the exclusivity and pristine flags it is walked with and
// on the subtree's shape, not on the time window or the schedule. Two
// subtrees of the same shape (same types, sizes, filter totals and child
// ids, in the same out-edge order: the same class) therefore walk alike,
// up to their vertices' identities and the policy's offset (policy.Shifted:
// the node factors of node-centric policies). The best-first walk records
// the first walk of a class for each request context (what it adds to the
// parent's candidates, the edges it stamps, the labels it sets, the errno
// it leaves) relative to the subtree's root (of a class only one subtree
// has, the second walk: most such walks are never replayed, and a plain
// walk costs less than a recorded one), and replays it for every
// other fresh subtree of the class it meets, in time proportional to what
// the walk hands its parent rather than to the subtree. A large, mostly
// idle graph is then walked in time proportional to its busy part plus
// one step per idle subtree at the level where the request is decided.
//
// Recordings are kept until the request, the exclusive types or the graph
// change, so a stream of one jobspec records each class once.

// layout is the dominant tree of one graph generation in pre-order, with
// the class of every subtree (-1: never replayed).
type layout struct {
	gen    uint64
	pos    []int32 // by vertex: pre-order position, -1 off the tree
	size   []int32 // by vertex: vertices in its subtree
	class  []int32 // by vertex
	ord    []graph.VertexID
	nclass int
	single []bool // by class: one subtree of the tree has it
}

// memoKey is the request context of a recording.
type memoKey struct {
	class    int32
	res      *req // first request of the list the subtree is walked with
	nres     int32
	pristine bool
	excl     bool
}

// memoEntry is one recorded walk.
type memoEntry struct {
	key    memoKey
	next   int32 // next entry of the same class, -1
	ok     bool  // the walk succeeded
	errSet bool  // the walk set errno (to errno)
	errno  Errno
	xin    bool  // the exclusivity the walk reported
	black  bool  // the walk left the root marked visited
	avail  int64 // the root's available units
	off    int64 // the policy offset below the root when recorded
	lists  span32
	stamps span32
	labels span32
}

type span32 struct{ i, n int32 }

// memoList is a candidate list the walk merged into its parent.
type memoList struct {
	sub         graph.SubsystemID
	typ         graph.TypeID
	total, qual int64
	egs         span32
}

type memoEG struct {
	score, count, needs int64
	excl                bool
	edges               span32
}

// memoRec is an edge record, a stamp or a label of a recording: rel is the
// pre-order offset of the edge's target (the vertex) in the subtree.
type memoRec struct {
	rel          int32
	count, needs int64
	excl         bool
}

// pendRec is a replay at u whose stamps are set when needed.
type pendRec struct {
	u     graph.VertexID
	entry int32
}

type memoLabel struct {
	rel   int32
	label string
}

// recFrame collects the stamps and labels of one walk being recorded;
// frames nest as recordings do, and each effect goes to the innermost.
type recFrame struct {
	u      graph.VertexID
	off    int64
	stamps []graph.EdgeID
	labels []graph.VertexID
}

// minBlock is the shortest replayed candidate list handed to the parent
// as one block entry (scoring.go).
const minBlock = 2

// maxRecDepth bounds the recordings open at once. A recording copies what
// its subtree hands up, which may hold a candidate from every level below
// (a chain of pass-through vertices): recordings nested without bound
// would copy quadratically many. Real hierarchies nest far less deep.
const maxRecDepth = 8

// maxMemoRecs bounds the records kept (entries, candidates, edges); past
// it nothing more is recorded until the next reset.
const maxMemoRecs = 1 << 20

// memoState is the per-scratch replay cache.
type memoState struct {
	lay     layout
	on      bool // replay in the current selection
	entries []memoEntry
	heads   []int32 // by class: first entry + 1, valid if headEp matches
	headEp  []uint32
	// By class: the epoch in which a single subtree's class was missed
	// once (memoVisit).
	missEp []uint32
	epoch  uint32
	last   int32 // the entry hit last, -1
	lists  []memoList
	egs    []memoEG
	edges  []memoRec
	labels []memoLabel
	frames []recFrame
	depth  int // open recordings
	// Replays whose stamps are not set yet (see memoApply), and by vertex
	// the index of its pending replay (valid if pend[i].u is the vertex).
	pend    []pendRec
	pendIdx []int32
	// What the recordings were made for.
	reqGen uint64
	excl   []bool
}

// memoOff turns replays off (tests).
var memoOff bool

// memoPrepare decides whether the next best-first selection replays
// recordings and drops them when the context changed.
//
// Replays stay on under FluxionFailures: Fluxion's half-done operations
// leave records without spans or spans without records, and a vertex's
// freshness is recomputed from its planners whenever its record list
// empties (store.go) and set stale when one is created, so no such vertex
// counts as fresh (TestDifferentialFailures).
func (m *Matcher) memoPrepare() {
	c := &m.memo
	b := &m.best
	c.on = b.shifted != nil && b.cleanGraph && m.fresh != nil && m.reqc.clean && m.cur.cons == nil && !memoOff
	if !c.on {
		return
	}
	m.work.pool.ws.memo = c
	if c.lay.gen != m.g.Gen()+1 || len(c.lay.pos) != m.g.NumVertices() {
		m.buildLayout()
		m.memoReset()
	}
	if c.reqGen != m.reqc.gen || !sameBools(c.excl, m.cur.excl) {
		m.memoReset()
		c.reqGen = m.reqc.gen
		c.excl = append(c.excl[:0], m.cur.excl...)
	}
	if len(m.fresh.below) != m.g.NumVertices() {
		c.on = false
	}
}

func sameBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (m *Matcher) memoReset() {
	c := &m.memo
	c.entries = c.entries[:0]
	c.lists = c.lists[:0]
	c.egs = c.egs[:0]
	c.edges = c.edges[:0]
	clear(c.labels)
	c.labels = c.labels[:0]
	c.last = -1
	c.epoch++
	if c.epoch == 0 {
		clear(c.headEp)
		clear(c.missEp)
		c.epoch = 1
	}
	if len(c.heads) < c.lay.nclass {
		c.heads = make([]int32, c.lay.nclass)
		c.headEp = make([]uint32, c.lay.nclass)
		c.missEp = make([]uint32, c.lay.nclass)
	}
}

// buildLayout numbers the dominant tree in pre-order and interns the
// classes of its subtrees, children first.
func (m *Matcher) buildLayout() {
	g := m.g
	c := &m.memo
	l := &c.lay
	nv := g.NumVertices()
	l.gen = g.Gen() + 1
	l.pos = fill(l.pos, nv, -1)
	l.size = fill(l.size, nv, 0)
	l.class = fill(l.class, nv, -1)
	l.ord = l.ord[:0]
	l.nclass = 0
	root := g.Root(m.dom)
	if root == graph.NoVertex {
		return
	}
	// Pre-order, iteratively (the depth is bounded, but the stack is
	// explicit anyway).
	type frame struct {
		v graph.VertexID
		i int
	}
	stack := []frame{{root, 0}}
	l.pos[root] = 0
	l.ord = append(l.ord, root)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		out := g.Out(top.v)
		if top.i == len(out) {
			v := top.v
			l.size[v] = int32(len(l.ord)) - l.pos[v]
			stack = stack[:len(stack)-1]
			continue
		}
		h := out[top.i]
		top.i++
		if h.Subsystem != m.dom || l.pos[h.Other] >= 0 {
			continue
		}
		l.pos[h.Other] = int32(len(l.ord))
		l.ord = append(l.ord, h.Other)
		stack = append(stack, frame{h.Other, 0})
	}
	// Classes, children before parents. Identical subtrees mostly come
	// in runs (the cores of a socket, the sockets of successive nodes),
	// so the last few classes of each type are tried before hashing.
	sh := m.best.shifted
	shiftsBelow := make([]bool, nv)
	shifts := make([]bool, g.Types.Len())
	for t := range shifts {
		shifts[t] = sh.Shifts(g, graph.TypeID(t))
	}
	byHash := map[uint64]int32{}
	var rep []graph.VertexID // by class
	var next []int32         // by class: next class with the same hash
	const nrecent = 4
	recent := make([][nrecent]int32, g.Types.Len())
	for t := range recent {
		for k := range recent[t] {
			recent[t][k] = -1
		}
	}
	for i := len(l.ord) - 1; i >= 0; i-- {
		u := l.ord[i]
		vx := g.V(u)
		ok := true
		for _, e := range g.Out(u) {
			if e.Subsystem != m.dom {
				continue
			}
			w := e.Other
			if l.pos[w] <= l.pos[u] || l.class[w] < 0 {
				ok = false
			}
			if t := g.V(w).Type; (t >= 0 && int(t) < len(shifts) && shifts[t]) || shiftsBelow[w] {
				shiftsBelow[u] = true
				ok = false
			}
		}
		if !ok || vx.Type < 0 || int(vx.Type) >= len(recent) {
			continue
		}
		cl := int32(-1)
		rc := &recent[vx.Type]
		for k := 0; k < nrecent && rc[k] >= 0; k++ {
			if m.sameShape(u, rep[rc[k]]) {
				cl = rc[k]
				copy(rc[1:k+1], rc[:k])
				rc[0] = cl
				break
			}
		}
		if cl < 0 {
			h := m.shapeHash(u)
			k, found := byHash[h]
			if found {
				for ; k >= 0; k = next[k] {
					if m.sameShape(u, rep[k]) {
						cl = k
						break
					}
				}
			}
			if cl < 0 {
				cl = int32(len(rep))
				rep = append(rep, u)
				if found {
					next = append(next, byHash[h])
				} else {
					next = append(next, -1)
				}
				byHash[h] = cl
			}
			copy(rc[1:], rc[:nrecent-1])
			rc[0] = cl
		}
		l.class[u] = cl
	}
	l.nclass = len(rep)
	l.single = fill(l.single, len(rep), true)
	seen := make([]bool, len(rep))
	for _, cl := range l.class {
		if cl >= 0 {
			if seen[cl] {
				l.single[cl] = false
			}
			seen[cl] = true
		}
	}
}

// shapeHash hashes what sameShape compares.
func (m *Matcher) shapeHash(u graph.VertexID) uint64 {
	g := m.g
	l := &m.memo.lay
	var h uint64 = 14695981039346656037
	mix := func(x int64) { h = (h ^ uint64(x)) * 1099511628211 }
	vx := g.V(u)
	mix(int64(vx.Type))
	mix(vx.Size)
	if f := m.filter(0, u); f.ok() {
		mix(int64(f.Len()))
		for k := 0; k < f.Len(); k++ {
			mix(int64(f.Type(k)))
			mix(f.Total(k))
		}
	} else {
		mix(-1)
	}
	for _, e := range g.Out(u) {
		w := e.Other
		mix(int64(e.Subsystem))
		mix(int64(g.V(w).Type))
		if e.Subsystem == m.dom {
			mix(int64(l.class[w]))
			mix(g.V(w).ID)
			k, _ := m.best.keyed.Key(g, w)
			mix(k)
		}
	}
	return h
}

func fill[T any](s []T, n int, x T) []T {
	if cap(s) < n {
		s = make([]T, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = x
	}
	return s
}

// sameShape reports whether u and r (whose children are classed) have
// identical signatures.
func (m *Matcher) sameShape(u, r graph.VertexID) bool {
	g := m.g
	l := &m.memo.lay
	a, b := g.V(u), g.V(r)
	if a.Type != b.Type || a.Size != b.Size {
		return false
	}
	fa, fb := m.filter(0, u), m.filter(0, r)
	if fa.ok() != fb.ok() {
		return false
	}
	if fa.ok() {
		if fa.Len() != fb.Len() {
			return false
		}
		for k := 0; k < fa.Len(); k++ {
			if fa.Type(k) != fb.Type(k) || fa.Total(k) != fb.Total(k) {
				return false
			}
		}
	}
	oa, ob := g.Out(u), g.Out(r)
	if len(oa) != len(ob) {
		return false
	}
	for i := range oa {
		x, y := oa[i], ob[i]
		if x.Subsystem != y.Subsystem || g.V(x.Other).Type != g.V(y.Other).Type {
			return false
		}
		if x.Subsystem == m.dom && (l.class[x.Other] != l.class[y.Other] || g.V(x.Other).ID != g.V(y.Other).ID || !m.sameKey(x.Other, y.Other)) {
			return false
		}
	}
	return true
}

// sameKey reports whether the policy keys of a and b (which their scores
// follow) are equal.
func (m *Matcher) sameKey(a, b graph.VertexID) bool {
	ka, oa := m.best.keyed.Key(m.g, a)
	kb, ob := m.best.keyed.Key(m.g, b)
	return ka == kb && oa == ob
}

// memoVisit walks u by replaying a recording of its class, recording one
// first if needed. handled is false when u's subtree is not fresh or not
// classed: the caller walks it.
func (m *Matcher) memoVisit(u graph.VertexID, resources []*req, pristine bool, excl *bool, toParent *scoring) (rc int, handled bool) {
	if !m.subtreeFresh(u) {
		return 0, false
	}
	c := &m.memo
	cl := c.lay.class[u]
	if cl < 0 {
		return 0, false
	}
	key := memoKey{class: cl, nres: int32(len(resources)), pristine: pristine, excl: *excl}
	if len(resources) > 0 {
		key.res = resources[0]
	}
	if e := m.memoFind(key); e >= 0 {
		return m.memoApply(e, u, excl, toParent), true
	}
	if len(c.edges)+len(c.egs)+len(c.entries) > maxMemoRecs || c.depth >= maxRecDepth {
		return 0, false
	}
	if c.lay.single[cl] && c.missEp[cl] != c.epoch {
		// Only u has this class (its perf classes or ids, say, differ
		// from every other subtree's): a recording only pays when the
		// same request meets u fresh again, so u is recorded the second
		// time, and walked plainly (faster) the first.
		c.missEp[cl] = c.epoch
		return 0, false
	}
	return m.memoRecord(key, u, resources, pristine, excl, toParent)
}

func (m *Matcher) memoFind(key memoKey) int32 {
	c := &m.memo
	if c.last >= 0 && c.entries[c.last].key == key {
		return c.last
	}
	if c.headEp[key.class] != c.epoch {
		return -1
	}
	for e := c.heads[key.class] - 1; e >= 0; e = c.entries[e].next {
		if c.entries[e].key == key {
			c.last = e
			return e
		}
	}
	return -1
}

// errnoUnset marks, while a walk is recorded, that it set no errno.
const errnoUnset Errno = -1 << 20

// memoRecord walks u for real, records the walk under key and hands the
// result to toParent as a replay would.
func (m *Matcher) memoRecord(key memoKey, u graph.VertexID, resources []*req, pristine bool, excl *bool, toParent *scoring) (int, bool) {
	c := &m.memo
	if c.depth == len(c.frames) {
		c.frames = append(c.frames, recFrame{})
	}
	f := &c.frames[c.depth]
	f.u, f.off = u, 0
	f.stamps, f.labels = f.stamps[:0], f.labels[:0]
	c.depth++
	errno, msgLen := m.errno, m.msg.Len()
	m.errno = errnoUnset
	tmp := m.work.pool.get()
	x := *excl
	rc := m.domWalk(u, resources, pristine, &x, tmp)
	c.depth--
	f = &c.frames[c.depth]
	e := memoEntry{key: key, next: -1, ok: rc == 0, xin: x, avail: tmp.avail, off: f.off, black: !m.white(0, u)}
	if m.errno != errnoUnset {
		e.errSet, e.errno = true, m.errno
	} else {
		m.errno = errno
	}
	usable := m.msg.Len() == msgLen && !m.bestAbort
	nl, ne, nr, nb := len(c.lists), len(c.egs), len(c.edges), len(c.labels)
	if usable && e.ok {
		usable = m.memoCapture(&e, u, tmp, f)
	}
	m.work.pool.put(tmp)
	if !usable {
		// Not replayable (a message, or an effect outside the subtree):
		// the caller walks u again, which has the same effects.
		c.lists, c.egs, c.edges = c.lists[:nl], c.egs[:ne], c.edges[:nr]
		clear(c.labels[nb:])
		c.labels = c.labels[:nb]
		return 0, false
	}
	i := int32(len(c.entries))
	if c.headEp[key.class] == c.epoch {
		e.next = c.heads[key.class] - 1
	}
	c.heads[key.class] = i + 1
	c.headEp[key.class] = c.epoch
	c.entries = append(c.entries, e)
	c.last = i
	// The walk's own effects are in place; replaying them again sets the
	// same stamps and labels and builds the parent's candidates, so the
	// replay path runs for every recording too.
	return m.memoApply(i, u, excl, toParent), true
}

// memoCapture stores what the walk of u handed its parent (tmp) and the
// stamps and labels it set, relative to u. It fails if an effect lies
// outside u's subtree.
func (m *Matcher) memoCapture(e *memoEntry, u graph.VertexID, tmp *scoring, f *recFrame) bool {
	c := &m.memo
	l := &c.lay
	base, size := l.pos[u], l.size[u]
	rel := func(v graph.VertexID) (int32, bool) {
		if v < 0 || int(v) >= len(l.pos) {
			return 0, false
		}
		r := l.pos[v] - base
		return r, l.pos[v] >= 0 && r >= 0 && r < size
	}
	e.lists.i = int32(len(c.lists))
	for i := 0; i < tmp.n; i++ {
		tl := &tmp.l[i]
		tmp.ws.expand(tl)
		ml := memoList{sub: tl.sub, typ: tl.typ, total: tl.total, qual: tl.qual, egs: span32{int32(len(c.egs)), int32(len(tl.g))}}
		for _, eg := range tl.g {
			if eg.root {
				return false
			}
			me := memoEG{score: eg.score, count: eg.count, needs: eg.needs, excl: eg.excl, edges: span32{int32(len(c.edges)), eg.en}}
			for k := eg.e0; k < eg.e0+eg.en; k++ {
				er := m.erecAt(&eg, k)
				if er.edge < 0 {
					return false
				}
				r, ok := rel(m.g.E(er.edge).Dst)
				if !ok || r == 0 {
					return false
				}
				c.edges = append(c.edges, memoRec{rel: r, count: er.count, needs: er.needs, excl: er.excl})
			}
			c.egs = append(c.egs, me)
		}
		c.lists = append(c.lists, ml)
	}
	e.lists.n = int32(len(c.lists)) - e.lists.i
	e.stamps.i = int32(len(c.edges))
	for _, ed := range f.stamps {
		r, ok := rel(m.g.E(ed).Dst)
		if !ok || r == 0 {
			return false
		}
		st := m.stamps[ed]
		c.edges = append(c.edges, memoRec{rel: r, needs: st.needs, excl: st.excl})
	}
	e.stamps.n = int32(len(c.edges)) - e.stamps.i
	e.labels.i = int32(len(c.labels))
	for _, v := range f.labels {
		r, ok := rel(v)
		if !ok {
			return false
		}
		c.labels = append(c.labels, memoLabel{rel: r, label: m.label(v)})
	}
	e.labels.n = int32(len(c.labels)) - e.labels.i
	return true
}

// memoApply replays a recording at u.
func (m *Matcher) memoApply(ei int32, u graph.VertexID, excl *bool, toParent *scoring) int {
	e := &m.memo.entries[ei]
	if e.errSet {
		m.errno = e.errno
	}
	*excl = e.xin
	if e.black {
		// Siblings' walks test the root's color (the descendants' are
		// only read through it).
		m.black(0, u)
	}
	if !e.ok {
		return -1
	}
	g := m.g
	if err := m.pol.Discover(g, u); err != nil {
		// Not on a clean graph; the recording would have failed too.
		m.errno = EINVAL
		return -1
	}
	c := &m.memo
	shift := m.best.shifted.Offset() - e.off
	base := c.lay.pos[u]
	for _, ml := range c.lists[e.lists.i : e.lists.i+e.lists.n] {
		tl := toParent.list(ml.sub, ml.typ)
		if ml.egs.n >= minBlock {
			qual := ml.qual
			if shift != 0 {
				qual = 0
				for _, me := range c.egs[ml.egs.i : ml.egs.i+ml.egs.n] {
					if me.score+int64(me.edges.n)*shift > 0 {
						qual += me.count
					}
				}
			}
			tl.g = append(tl.g, egroup{block: true, score: shift, count: ml.total, e0: ml.egs.i, en: ml.egs.n, base: base + 1})
			tl.total += ml.total
			tl.qual += qual
			tl.blocks++
			continue
		}
		for _, me := range c.egs[ml.egs.i : ml.egs.i+ml.egs.n] {
			score := me.score + int64(me.edges.n)*shift
			tl.g = append(tl.g, egroup{score: score, count: me.count, needs: me.needs, excl: me.excl, e0: me.edges.i, en: me.edges.n, base: base + 1})
			tl.total += me.count
			if score > 0 {
				tl.qual += me.count
			}
		}
	}
	if e.stamps.n > 0 {
		if c.depth == 0 {
			// The stamps inside u's subtree only matter once the walk
			// stamps an edge into it (u's in-edge, when a choice above
			// takes u or a candidate below it): most replays are not
			// chosen, and setting their stamps would cost more than the
			// replay itself. setStamp sets them first (flushStamps).
			if len(c.pendIdx) != len(c.lay.pos) {
				c.pendIdx = make([]int32, len(c.lay.pos))
			}
			c.pendIdx[u] = int32(len(c.pend))
			c.pend = append(c.pend, pendRec{u: u, entry: ei})
		} else {
			m.replayStamps(e, u)
		}
	}
	for _, lb := range c.labels[e.labels.i : e.labels.i+e.labels.n] {
		m.setLabel(c.lay.ord[base+lb.rel], lb.label)
	}
	toParent.avail = e.avail
	toParent.overall = m.pol.Finish(g, u, true)
	return 0
}

// replayStamps sets the stamps of a replay at u.
func (m *Matcher) replayStamps(e *memoEntry, u graph.VertexID) {
	c := &m.memo
	base := c.lay.pos[u]
	for _, r := range c.edges[e.stamps.i : e.stamps.i+e.stamps.n] {
		m.setStamp(m.inEdge(c.lay.ord[base+r.rel]), stamp{seq: m.seq, needs: r.needs, excl: r.excl})
	}
}

// flushStamps sets the pending stamps of the replay whose subtree holds v,
// if any, before an edge into v is stamped: the recorded stamps were set
// before anything above could stamp inside the subtree, and walkUp reads
// the stamps it climbs through. Pending replays do not nest.
func (m *Matcher) flushStamps(v graph.VertexID) {
	c := &m.memo
	for ; v != graph.NoVertex; v = m.domParentOf(v) {
		if int(v) >= len(c.pendIdx) {
			return
		}
		if i := c.pendIdx[v]; i >= 0 && int(i) < len(c.pend) && c.pend[i].u == v {
			c.pend[i].u = graph.NoVertex
			m.replayStamps(&c.entries[c.pend[i].entry], v)
			return
		}
	}
}

// erecAt returns edge record k of eg.
func (m *Matcher) erecAt(eg *egroup, k int32) erec {
	if eg.base == 0 {
		return m.work.erecs[k]
	}
	c := &m.memo
	r := &c.edges[k]
	return erec{count: r.count, needs: r.needs, excl: r.excl, edge: m.inEdge(c.lay.ord[eg.base-1+r.rel])}
}

// inEdge returns v's dominant in-edge (v is not the root).
func (m *Matcher) inEdge(v graph.VertexID) graph.EdgeID {
	for _, h := range m.g.In(v) {
		if h.Subsystem == m.dom {
			return h.Edge
		}
	}
	return -1
}

// recordStamp and recordLabel note an effect of the walk being recorded.
func (m *Matcher) recordStamp(e graph.EdgeID) {
	c := &m.memo
	f := &c.frames[c.depth-1]
	f.stamps = append(f.stamps, e)
}

func (m *Matcher) recordLabel(v graph.VertexID) {
	c := &m.memo
	f := &c.frames[c.depth-1]
	f.labels = append(f.labels, v)
}

// recordOffset notes the policy offset below u when u is the root of the
// walk being recorded.
func (m *Matcher) recordOffset(u graph.VertexID) {
	c := &m.memo
	if f := &c.frames[c.depth-1]; f.u == u {
		f.off = m.best.shifted.Offset()
	}
}
