package match

import (
	"cmp"
	"math"
	"slices"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/introsort"
	"github.com/gofluxion/gofluxion/policy"
)

// The best-first walk.
//
// The reference (exhaustive) walk visits every child of a vertex, scores
// the ones that fit and sorts them with Fluxion's introsort to choose the
// best. For policies whose sibling scores follow a static per-vertex key
// (policy.Keyed: the id-scored policies), when the keys of all siblings of
// one type are distinct, the sorted order of any subset of them is known in
// advance, whatever the introsort does; so it is when they are not but
// there are at most 16 of them, which the introsort sorts stably (ties in
// position order). The best-first walk then visits the
// children of a type in that order and stops as soon as the choice the
// reference would make is certain: the count function no longer grows
// (the qualified units reach the request's maximum) and the chosen prefix
// is complete. Every vertex it does visit is walked exactly as the
// reference walks it, so each decision is the reference's decision.
//
// Fast selections are exact; only Fluxion's visit counters differ (they
// count the vertices the walk visited), so CountVisits runs the reference
// walk when they are printed. A failed fast selection is run again by the
// reference walk, which then also sets the errno and messages.

// maxKeyID bounds the vertex ids whose scores the best-first walk
// orders: node-centric factors multiply ids by 10,000, which must not
// overflow.
const maxKeyID = policy.MaxKeyID

// kidOrder is the best-first order of a vertex's dominant children,
// grouped by type.
type kidOrder struct {
	gen uint64
	// ok: keys are usable, and distinct within every type or the run of
	// that type is short enough to be sorted stably (see order); distinct:
	// keys are distinct within every type.
	ok, distinct bool
	kids         []int32 // positions in g.Out(u): per run, preferred first
	runs         []kidRun
	// rest[i] is the total size of kids[i:] within its run: no more
	// units than that can still qualify.
	rest []int64
	skip *skipList // links over kids (skip.go)
}

type kidRun struct {
	t      graph.TypeID
	lo, hi int32
}

func (k *kidOrder) run(t graph.TypeID) (kidRun, bool) {
	for _, r := range k.runs {
		if r.t == t {
			return r, true
		}
	}
	return kidRun{}, false
}

// bestState is the per-scratch cache of the best-first walk.
type bestState struct {
	keyed   policy.Keyed
	shifted policy.Shifted // nil: no replay of untouched subtrees
	greater bool           // the policy prefers higher keys
	slotsOK bool           // slot scores order like vertex scores
	flatOK  bool           // the root chooses in vertex order (not locality's runs)
	flats   []*flatOrder
	// cleanGraph: no vertex id makes a policy callback fail (ids in
	// [-1, maxKeyID)), and no walk goes deeper than graph.MaxDepth.
	cleanGraph bool
	gen        uint64
	tree       bool // every vertex has at most one dominant in-edge
	built      bool
	orders     []*kidOrder // by vertex, built on first use
	korders    []kidOrder  // room for orders
	kchunk     []int32
	rchunk     []int64
	runChunk   []kidRun
	keys       []int64 // scratch for building an order
	kkeys      []kidKey
	depth      []int32 // scratch for domDeep

	// Per graph generation (+1, so that 0 means unset): dominant
	// out-degrees and whether the dominant subsystem is a tree.
	deg     []int32
	degGen  uint64
	isTree  bool
	treeGen uint64
	// graphClean's answer, per graph generation (+1).
	clean    bool
	cleanGen uint64
}

// useBest reports whether the next selection may use the best-first walk.
func (m *Matcher) useBest() bool {
	if m.exhaustive || m.explain != nil || m.static || m.flexible || m.dynamic || len(m.subs) != 1 {
		return false
	}
	b := &m.best
	if !b.built || b.gen != m.g.Gen() {
		m.initBest()
	}
	return b.keyed != nil && b.tree
}

func (m *Matcher) initBest() {
	b := &m.best
	b.built = true
	b.gen = m.g.Gen()
	b.orders = b.orders[:0]
	b.keyed, _ = m.pol.(policy.Keyed)
	b.shifted, _ = m.pol.(policy.Shifted)
	b.greater = m.pol.VertexOrder() == policy.Greater
	b.slotsOK = m.pol.SlotOrder() == m.pol.VertexOrder()
	b.flatOK = m.pol.GraphOrder(nil) == m.pol.VertexOrder()
	m.pol.FinishGraph()
	b.flats = nil
	b.tree = m.domTree()
	b.cleanGraph = m.graphClean()
}

// graphClean reports whether no vertex id makes a policy callback fail
// (ids in [-1, maxKeyID)) and the dominant subsystem is less than
// graph.MaxDepth deep (the reference fails deeper with EINVAL and a
// message, which the best-first walk may not reach). Both take a pass over
// the whole graph, so the answer is kept per graph generation, and
// buildFresh, which runs when the graph changes (attach, removal), works
// it out there: the first match after loading a big graph does not pay
// for it.
func (m *Matcher) graphClean() bool {
	b := &m.best
	if b.cleanGen == m.g.Gen()+1 {
		return b.clean
	}
	clean := true
	for v := 0; v < m.g.NumVertices(); v++ {
		if id := m.g.V(graph.VertexID(v)).ID; id < -1 || id >= maxKeyID {
			clean = false
			break
		}
	}
	if clean && m.domDeep(graph.MaxDepth) {
		clean = false
	}
	b.clean, b.cleanGen = clean, m.g.Gen()+1
	return clean
}

// domDeep reports whether the dominant subsystem reaches limit levels
// below its root: whether m.g.Depth(m.dom) >= limit. For a tree whose
// vertices come after their parents (as readers create them) one pass
// over the parents does it, without Depth's breadth-first walk; anything
// else is left to Depth.
func (m *Matcher) domDeep(limit int) bool {
	g := m.g
	root := g.Root(m.dom)
	if !m.domTree() || root == graph.NoVertex {
		return g.Depth(m.dom) >= limit
	}
	nv := g.NumVertices()
	b := &m.best
	if cap(b.depth) < nv {
		b.depth = make([]int32, nv)
	}
	d := b.depth[:nv]
	for v := graph.VertexID(0); int(v) < nv; v++ {
		dv := int32(-1) // not below the root
		if v == root {
			dv = 0
		} else {
			for _, h := range g.In(v) {
				if h.Subsystem != m.dom {
					continue
				}
				if h.Other >= v {
					return g.Depth(m.dom) >= limit
				}
				if p := d[h.Other]; p >= 0 {
					dv = p + 1
				}
				break
			}
		}
		if int(dv) >= limit {
			return true
		}
		d[v] = dv
	}
	return false
}

// order returns u's best-first child order, building it on first use.
// Orders are carved from shared chunks, so building one does not allocate
// per vertex.
func (m *Matcher) order(u graph.VertexID) *kidOrder {
	b := &m.best
	if int(u) < len(b.orders) {
		if k := b.orders[u]; k != nil && k.gen == b.gen {
			return k
		}
	} else {
		// One allocation at most (appending a made slice allocated twice).
		n, old := m.g.NumVertices(), len(b.orders)
		if cap(b.orders) < n {
			b.orders = append(make([]*kidOrder, 0, n), b.orders...)
		}
		b.orders = b.orders[:n]
		clear(b.orders[old:])
	}
	if len(b.korders) == 0 {
		b.korders = make([]kidOrder, 256)
	}
	k := &b.korders[0]
	b.korders = b.korders[1:]
	*k = kidOrder{gen: b.gen, ok: true, distinct: true}
	out := m.g.Out(u)
	n := 0
	for _, h := range out {
		if h.Subsystem == m.dom {
			n++
		}
	}
	k.kids = carve(&b.kchunk, n)
	k.rest = carve(&b.rchunk, n)
	keys := b.keys[:0]
	for _, h := range out {
		key, ok := b.keyed.Key(m.g, h.Other)
		if !ok {
			k.ok = false
		}
		keys = append(keys, key)
	}
	b.keys = keys
	kk := b.kkeys[:0]
	for i, h := range out {
		if h.Subsystem == m.dom {
			kk = append(kk, kidKey{t: m.g.V(h.Other).Type, key: keys[i], pos: int32(i)})
		}
	}
	b.kkeys = kk
	// Sort by (type, preference, position), a total order, so any sort
	// gives the one result; lists often come sorted or reversed (ids in
	// creation order), which pdqsort handles in linear time.
	before := kidCmpLess
	if b.greater {
		before = kidCmpGreater
	}
	if !slices.IsSortedFunc(kk, before) {
		slices.SortFunc(kk, before)
	}
	nr := 0
	for i, x := range kk {
		k.kids = append(k.kids, x.pos)
		if i > 0 && x.t == kk[i-1].t {
			if x.key == kk[i-1].key {
				k.distinct = false
			}
			continue
		}
		nr++
	}
	k.runs = carve(&b.runChunk, nr)
	for i, x := range kk {
		if n := len(k.runs); n > 0 && k.runs[n-1].t == x.t {
			k.runs[n-1].hi = int32(i + 1)
			continue
		}
		k.runs = append(k.runs, kidRun{t: x.t, lo: int32(i), hi: int32(i + 1)})
	}
	if !k.distinct {
		// Equal keys: the reference's candidate list of a type holds at
		// most the run's children, and introsort sorts lists of up to
		// introsort.Threshold elements stably (insertion sort only), so
		// ties then fall in position order, as in the best-first order.
		for _, r := range k.runs {
			if r.hi-r.lo > introsort.Threshold {
				k.ok = false
			}
		}
	}
	k.rest = k.rest[:len(k.kids)]
	for _, r := range k.runs {
		sum := int64(0)
		for i := r.hi - 1; i >= r.lo; i-- {
			sum = satAdd(sum, m.g.V(out[k.kids[i]].Other).Size)
			k.rest[i] = sum
		}
	}
	b.orders[u] = k
	return k
}

// kidKey is a dominant child's place in its parent's best-first order:
// its type, then the policy's preference of its key, then its position.
type kidKey struct {
	t   graph.TypeID
	key int64
	pos int32
}

func kidCmp(a, c kidKey, greater bool) int {
	switch {
	case a.t != c.t:
		return cmp.Compare(a.t, c.t)
	case a.key != c.key:
		if (a.key > c.key) == greater {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.pos, c.pos)
}

func kidCmpLess(a, c kidKey) int    { return kidCmp(a, c, false) }
func kidCmpGreater(a, c kidKey) int { return kidCmp(a, c, true) }

// witnessOther sets the errno the reference walk sets below u when u has a
// dominant child of a type no request names: the reference tests every
// child, and such a child fails there (not pristine, no match) with
// EBUSY. The best-first walk does not visit it, but keeps the errno
// exact, so that a selection whose update then finds nothing to book need
// not be run again for its errno (run).
func (m *Matcher) witnessOther(k *kidOrder, resources []*req) {
	for _, r := range k.runs {
		named := false
		for _, q := range resources {
			if q.typ == r.t {
				named = true
				break
			}
		}
		if !named {
			m.errno = EBUSY
			return
		}
	}
}

// carve returns an empty slice with room for n elements from *chunk,
// refilling the chunk when it runs out.
func carve[T any](chunk *[]T, n int) []T {
	if len(*chunk) < n {
		*chunk = make([]T, max(4096, n))
	}
	s := (*chunk)[:0:n]
	*chunk = (*chunk)[n:]
	return s
}

// distinctPlain reports whether the requests have distinct, known,
// non-slot types.
func distinctPlain(resources []*req) bool {
	for i, r := range resources {
		if r.typ < 0 || r.typ == graph.TypeSlot || r.typ == graph.TypeXorSlot {
			return false
		}
		for _, o := range resources[:i] {
			if o.typ == r.typ {
				return false
			}
		}
	}
	return true
}

// countLimit is the qualified count past which calc_count of r stops
// growing.
func countLimit(r *req) int64 { return int64(r.count.Max) }

// exploreBest is explore for a matched, non-pristine vertex in the
// best-first walk. handled is false when u's children cannot be ordered;
// the caller then walks them all.
func (m *Matcher) exploreBest(u graph.VertexID, resources []*req, excl bool, dfu *scoring) (rc int, handled bool) {
	if !distinctPlain(resources) {
		return 0, false
	}
	k := m.order(u)
	if !k.ok {
		return 0, false
	}
	m.witnessOther(k, resources)
	out := m.g.Out(u)
	sub := m.subs[0]
	ok := false
	for _, r := range resources {
		run, found := k.run(r.typ)
		if !found {
			continue
		}
		limit := countLimit(r)
		q := int64(0)
		sl := m.skips(&k.skip, len(k.kids))
		for i := run.lo; i < run.hi; i++ {
			if sl != nil {
				if j := sl.find(i, m.cur.at); j != i {
					// Full candidates fail pruning, with EBUSY.
					m.errno = EBUSY
					if i = j; i >= run.hi {
						break
					}
				}
			}
			if q >= limit || q+k.rest[i] < int64(r.count.Min) {
				// Enough, or never enough: calc_count is now final.
				break
			}
			h := out[k.kids[i]]
			if !m.white(0, h.Other) {
				continue
			}
			if m.busyChild(h.Other, resources, excl) {
				if sl != nil {
					m.markFull(sl, i, h.Other, m.cur.at)
				}
				continue
			}
			x := excl
			if m.domDFV(h.Other, resources, false, &x, dfu) == 0 {
				m.addChild(dfu, sub, h, x)
				ok = true
				if dfu.overall > 0 {
					q += dfu.avail
				}
			}
		}
	}
	if !ok {
		return -1, true
	}
	return 0, true
}

// exploreSlotBest is the child walk of domSlot in the best-first walk: per
// element type, children in key order until calc_count of the element is
// final and slot more slots than the slot request can take fit. Slots are
// then built from the prefix of every sorted list, which is the prefix of
// the reference's lists; with unit candidates the first slots score best,
// so the parent chooses among them exactly as among all. A candidate of
// more than one unit breaks that; the walk then visits the rest.
func (m *Matcher) exploreSlotBest(u graph.VertexID, shape []*req, pristine bool, s *scoring, slot *req) (rc int, handled bool) {
	if !m.best.slotsOK || slot == nil || !distinctPlain(shape) {
		return 0, false
	}
	k := m.order(u)
	if !k.ok || !k.distinct {
		return 0, false
	}
	m.witnessOther(k, shape)
	out := m.g.Out(u)
	sub := m.subs[0]
	ok, whole := false, false
	need := int64(slot.count.Max)
	for _, e := range shape {
		run, found := k.run(e.typ)
		if !found {
			continue
		}
		limit := countLimit(e)
		c := int64(e.count.Calc(clampU32(limit)))
		if c > 0 && need > 0 && limit < c*need {
			limit = c * need
			if limit/need != c {
				limit = 1 << 62
			}
		}
		q := int64(0)
		for i := run.lo; i < run.hi; i++ {
			if !whole && q >= limit {
				break
			}
			if !whole && e.count.Min > 0 && slot.count.Min > 0 && (q+k.rest[i])/int64(e.count.Min) < int64(slot.count.Min) {
				// Fewer slots than the slot request's minimum can fit:
				// the parent fails whatever the rest holds.
				break
			}
			h := out[k.kids[i]]
			if !m.white(0, h.Other) {
				continue
			}
			x := true
			if m.domDFV(h.Other, shape, pristine, &x, s) == 0 {
				m.addChild(s, sub, h, x)
				ok = true
				if s.overall > 0 {
					q += s.avail
				}
				if s.avail != 1 {
					whole = true
				}
			}
		}
		if whole {
			break
		}
	}
	if whole {
		// Visit everything not visited yet (the order does not matter:
		// keys are distinct, so the sorted lists are the reference's).
		for _, h := range out {
			if h.Subsystem != sub || !m.white(0, h.Other) {
				continue
			}
			x := true
			if m.domDFV(h.Other, shape, pristine, &x, s) == 0 {
				m.addChild(s, sub, h, x)
				ok = true
			}
		}
	}
	if !ok {
		return -1, true
	}
	return 0, true
}

// The pass-through region. Above the first matched resource the walk is
// "pristine": vertices whose type no top-level request names pass their
// children's candidates upwards, and the root chooses among candidates
// from anywhere below it. For such a vertex u the best-first walk orders
// all candidates of each request type below u's pass-through region by
// the score the policy gives them there (computed once per graph
// generation by a walk with the policy's own callbacks), visits them in
// that order, and tests the pass-through vertices on their paths as the
// reference would, once each.

// flatOrder is the candidate order of one pass-through region.
type flatOrder struct {
	gen   uint64
	u     graph.VertexID
	types []graph.TypeID // the request types, in request order
	ok    bool
	cands [][]flatCand // per request type, preferred first
	skip  []*skipList  // per request type
}

type flatCand struct {
	v     graph.VertexID
	score int64
	rest  int64 // total size of this candidate and the ones after it
}

// passRec is a pass-through vertex visited by the flattened walk.
type passRec struct {
	v     graph.VertexID
	score int64
	avail int64
	x     bool
}

// openRec is an opened pass-through vertex and its index in the visited
// list (-1 if it was visited before).
type openRec struct {
	v    graph.VertexID
	pass int32
}

// maxFlatOrders bounds the cached pass-through orders.
const maxFlatOrders = 8

// flatFor returns the candidate order of u's pass-through region for the
// request types of resources, building it on first use.
func (m *Matcher) flatFor(u graph.VertexID, resources []*req) *flatOrder {
	b := &m.best
	for _, f := range b.flats {
		if f.gen == b.gen && f.u == u && len(f.types) == len(resources) {
			same := true
			for i, r := range resources {
				if f.types[i] != r.typ {
					same = false
					break
				}
			}
			if same {
				return f
			}
		}
	}
	f := &flatOrder{gen: b.gen, u: u, ok: true}
	for _, r := range resources {
		f.types = append(f.types, r.typ)
	}
	f.cands = make([][]flatCand, len(resources))
	f.skip = make([]*skipList, len(resources))
	m.buildFlat(f)
	for i := range f.cands {
		c := f.cands[i]
		slices.SortFunc(c, func(a, x flatCand) int {
			switch {
			case a.score == x.score:
				return int(a.v - x.v)
			case (a.score > x.score) == b.greater:
				return -1
			}
			return 1
		})
		for j := 1; j < len(c); j++ {
			if c[j].score == c[j-1].score {
				f.ok = false
			}
		}
		sum := int64(0)
		for j := len(c) - 1; j >= 0; j-- {
			sum = satAdd(sum, m.g.V(c[j].v).Size)
			c[j].rest = sum
		}
	}
	if len(b.flats) >= maxFlatOrders {
		copy(b.flats, b.flats[1:])
		b.flats = b.flats[:len(b.flats)-1]
	}
	b.flats = append(b.flats, f)
	return f
}

// buildFlat collects the candidates below u with the policy's callbacks in
// the reference walk's order (the policy state is balanced afterwards).
// A type repeated on a pass-through path, a callback error or a score
// below 1 makes the order unusable.
func (m *Matcher) buildFlat(f *flatOrder) {
	g := m.g
	idx := func(t graph.TypeID) int {
		for i, x := range f.types {
			if x == t {
				return i
			}
		}
		return -1
	}
	type frame struct {
		v graph.VertexID
		i int
	}
	onPath := map[graph.TypeID]bool{}
	stack := []frame{{f.u, 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		out := g.Out(top.v)
		if top.i == len(out) {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				onPath[g.V(top.v).Type] = false
				if m.pol.Finish(g, top.v, true) < 1 {
					f.ok = false
				}
			}
			continue
		}
		h := out[top.i]
		top.i++
		if h.Subsystem != m.dom {
			continue
		}
		w := h.Other
		if err := m.pol.Discover(g, w); err != nil {
			f.ok = false
			continue
		}
		t := g.V(w).Type
		if i := idx(t); i >= 0 {
			s := m.pol.Finish(g, w, true)
			if s < 1 {
				f.ok = false
			}
			f.cands[i] = append(f.cands[i], flatCand{v: w, score: s})
			continue
		}
		if onPath[t] {
			f.ok = false
		}
		onPath[t] = true
		stack = append(stack, frame{w, 0})
	}
}

// exploreFlat is explore for a pristine vertex u in the best-first walk.
// handled is false when the region cannot be ordered.
//
// Only the root may flatten its region: the root chooses among the
// candidates of the whole region, and a pass-through vertex below it that
// reordered its candidates would change how the reference's introsort
// breaks ties among them at the root.
func (m *Matcher) exploreFlat(u graph.VertexID, resources []*req, excl bool, dfu *scoring) (rc int, handled bool) {
	if !m.best.flatOK || u != m.g.Root(m.dom) || !distinctPlain(resources) {
		return 0, false
	}
	f := m.flatFor(u, resources)
	if !f.ok {
		return 0, false
	}
	g := m.g
	sub := m.subs[0]
	m.work.pass = m.work.pass[:0]
	ok := false
	for i, r := range resources {
		limit := countLimit(r)
		q := int64(0)
		cands := f.cands[i]
		sl := m.skips(&f.skip[i], len(cands))
		for ci := int32(0); int(ci) < len(cands); ci++ {
			if sl != nil {
				if j := sl.find(ci, m.cur.at); j != ci {
					m.errno = EBUSY
					if ci = j; int(ci) >= len(cands) {
						break
					}
				}
			}
			c := cands[ci]
			if q >= limit || q+c.rest < int64(r.count.Min) {
				break
			}
			if m.busyChild(c.v, resources, excl) {
				if sl != nil {
					m.markFull(sl, ci, c.v, m.cur.at)
				}
				continue
			}
			if !m.openPath(u, c.v, resources, excl) {
				continue
			}
			x := excl
			rc := m.domDFV(c.v, resources, true, &x, dfu)
			m.closePath()
			if rc != 0 {
				continue
			}
			if dfu.overall != c.score {
				// The order was built on other scores: give up.
				m.bestAbort = true
				return -1, true
			}
			m.addChild(dfu, sub, m.inHalf(c.v), x)
			ok = true
			q += dfu.avail
		}
	}
	for _, p := range m.work.pass {
		if p.score < 0 {
			continue
		}
		e0 := int32(len(m.work.erecs))
		h := m.inHalf(p.v)
		m.work.erecs = append(m.work.erecs, erec{count: p.avail, needs: p.avail, excl: p.x, edge: h.Edge})
		dfu.add(sub, g.V(p.v).Type, egroup{score: p.score, count: p.avail, excl: p.x, e0: e0, en: 1})
	}
	if !ok {
		return -1, true
	}
	return 0, true
}

// inHalf returns v's dominant in-edge as seen from its parent.
func (m *Matcher) inHalf(v graph.VertexID) graph.Half {
	for _, h := range m.g.In(v) {
		if h.Subsystem == m.dom {
			return graph.Half{Edge: h.Edge, Other: v, Subsystem: h.Subsystem}
		}
	}
	return graph.Half{Edge: -1, Other: v}
}

// openPath tests and opens the pass-through vertices between u and v (top
// down), as the reference's pristine visits would; each is tested once per
// selection. It reports whether all of them pass; the opened ones are
// closed by closePath.
func (m *Matcher) openPath(u, v graph.VertexID, resources []*req, excl bool) bool {
	path := m.work.path[:0]
	for p := m.domParentOf(v); p != u && p != graph.NoVertex; p = m.domParentOf(p) {
		path = append(path, p)
	}
	m.work.path = path
	m.work.open = m.work.open[:0]
	for i := len(path) - 1; i >= 0; i-- {
		w := path[i]
		if m.colors[0][w] == m.cbase+1 { // failed earlier in this selection
			m.closePath()
			return false
		}
		pi := int32(-1)
		if m.white(0, w) {
			if !m.passVertex(w, resources, excl) {
				m.gray(0, w)
				m.closePath()
				return false
			}
			m.black(0, w)
			pi = int32(len(m.work.pass))
			m.work.pass = append(m.work.pass, passRec{v: w, score: -1, x: excl})
		}
		if err := m.pol.Discover(m.g, w); err != nil {
			m.gray(0, w)
			m.closePath()
			return false
		}
		m.work.open = append(m.work.open, openRec{w, pi})
	}
	return true
}

// passVertex is the reference's pristine visit of w before its children:
// the test (a pass-through) and pruning.
func (m *Matcher) passVertex(w graph.VertexID, resources []*req, excl bool) bool {
	m.pre++
	kind, _, _, _ := m.test(w, resources, true)
	if kind != kindPristineNone {
		return false
	}
	return m.pruneVertex(w, 0, excl, resources)
}

// closePath finishes the opened pass-through vertices (bottom up),
// recording each one's score the first time.
func (m *Matcher) closePath() {
	open := m.work.open
	for i := len(open) - 1; i >= 0; i-- {
		o := open[i]
		s := m.pol.Finish(m.g, o.v, true)
		if o.pass >= 0 {
			p := &m.work.pass[o.pass]
			p.score = s
			p.avail, _ = m.plan(o.v).AvailDuring(m.cur.at, m.cur.duration)
			m.post++
		}
	}
	m.work.open = open[:0]
}

// domParentOf returns v's parent in the dominant subsystem.
func (s *schedule) domParentOf(v graph.VertexID) graph.VertexID {
	for _, h := range s.g.In(v) {
		if h.Subsystem == s.dom {
			return h.Other
		}
	}
	return graph.NoVertex
}

// satAdd adds non-negative sizes, saturating.
func satAdd(a, b int64) int64 {
	if c := a + b; c >= a {
		return c
	}
	return math.MaxInt64
}

// busyChild reports whether pruning rejects v: the walk would fail there
// whatever the test said, so the best-first walk skips it without the test
// (which for a slot scans v's children). Only the decision matters here:
// errnos and messages of failed walks come from the reference walk, or,
// over clean requests, are the same EBUSY.
func (m *Matcher) busyChild(v graph.VertexID, resources []*req, excl bool) bool {
	x := excl || exclusivity(resources, m.g.V(v).Type)
	return !m.pruneVertex(v, 0, x, resources)
}
