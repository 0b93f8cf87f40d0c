package match

import (
	"errors"
	"math"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/planner"
	"github.com/gofluxion/gofluxion/policy"
)

// allocType is what a successful match books.
type allocType uint8

const (
	atAlloc          allocType = iota // an allocation now
	atOrElseReserve                   // a reservation found by the time search
	atSatisfiability                  // a feasibility probe: nothing is booked
	atNone                            // without_allocating: nothing is booked
)

// matchState is the per-match context the walks read.
type matchState struct {
	jobid    uint64
	at, now  int64
	duration int64
	atype    allocType
	fromR    bool // an update from an existing R, not a match
	cons     *jobspec.Constraint
	queue    string
	excl     []bool // exclusive resource types, by TypeID
	top      []*req // the request list of the current selection
	orig     []*req // the jobspec's top-level requests
	dfv      tcounts
}

// workspace holds buffers reused across matches so walks do not allocate.
type workspace struct {
	pool   scorePool
	erecs  []erec
	counts []int64
	aggs   []*tcounts // update walk aggregates, by depth
	tally  []tally
	scores []int64
	// The best-first walk's pass-through region: visited vertices, the
	// path being opened and the opened vertices.
	pass []passRec
	path []graph.VertexID
	open []openRec
	// stamped lists the edges selected in the current tick; the update
	// walk sorts it by (source, edge) to find a vertex's selected edges.
	stamped []srcEdge
	top     tcounts
	up      updater
}

// srcEdge is a selected edge keyed by its source vertex.
type srcEdge struct {
	src graph.VertexID
	e   graph.EdgeID
}

type tally struct {
	t        graph.TypeID
	perShare int64
	prev     int64
	accum    int64
	shares   int64
	sat      bool
}

// visit kinds of the test step (spec traversal.md §4.1).
type visitKind uint8

const (
	kindNone visitKind = iota
	kindPristineNone
	kindResource
	kindSlot
)

func (m *Matcher) isExclType(t graph.TypeID) bool {
	return t >= 0 && int(t) < len(m.cur.excl) && m.cur.excl[t]
}

// exclusivity reports whether some request of type t asks for exclusivity.
func exclusivity(resources []*req, t graph.TypeID) bool {
	for _, r := range resources {
		if r.typ == t && r.exclusive() {
			return true
		}
	}
	return false
}

// hasChildType reports whether u has an out-edge (any subsystem) to a vertex
// of type t.
func (m *Matcher) hasChildType(u graph.VertexID, t graph.TypeID) bool {
	for _, h := range m.g.Out(u) {
		if m.g.V(h.Other).Type == t {
			return true
		}
	}
	return false
}

// applies is the "slot applies" test: u directly contains every type of the
// slot's children.
func (m *Matcher) applies(u graph.VertexID, s *req) bool {
	for _, t := range s.childTypes {
		if !m.hasChildType(u, t) {
			return false
		}
	}
	return true
}

// test matches u against the requests of its level (spec traversal.md §4.2,
// §13.1 for the flexible traverser).
func (m *Matcher) test(u graph.VertexID, resources []*req, pristine bool) (visitKind, []*req, bool, uint32) {
	ut := m.g.V(u).Type
	if m.flexible {
		return m.testFlexible(u, ut, resources, pristine)
	}
	matched := false
	var matchRes, slotRes *req
	var nslots uint32
	for _, r := range resources {
		if r.typ == ut {
			if matched {
				m.conflict(ut)
				return kindNone, nil, pristine, 0
			}
			matchRes = r
			for _, c := range r.with {
				if c.typ == graph.TypeSlot {
					slotRes = c
					nslots = c.effMax
				}
			}
			matched = true
		} else if r.typ == graph.TypeSlot {
			if matched {
				m.conflict(ut)
				return kindNone, nil, pristine, 0
			}
			slotRes = r
			nslots = r.effMax
			matched = true
		}
	}
	switch {
	case slotRes != nil && m.applies(u, slotRes):
		// The best-first slot walk needs u to choose among its slots
		// itself: a slot request of u's own resource, not a top-level
		// slot whose candidates merge upwards.
		m.slotReq = nil
		if matchRes != nil {
			m.slotReq = slotRes
		}
		return kindSlot, slotRes.with, false, nslots
	case matchRes != nil:
		return kindResource, matchRes.with, false, nslots
	case pristine:
		return kindPristineNone, resources, true, 0
	}
	return kindNone, nil, false, 0
}

func (m *Matcher) testFlexible(u graph.VertexID, ut graph.TypeID, resources []*req, pristine bool) (visitKind, []*req, bool, uint32) {
	matched, orMatched := false, false
	var matchRes *req
	var slotList []*req
	var nslots uint32
	for _, r := range resources {
		if r.typ == ut {
			if matched || orMatched {
				m.conflict(ut)
				return kindNone, nil, pristine, 0
			}
			matchRes = r
			for _, c := range r.with {
				if c.typ == graph.TypeSlot {
					slotList = r.with
					nslots = c.effMax
				}
			}
			matched = true
		} else if r.typ == graph.TypeSlot {
			if matched {
				m.conflict(ut)
				return kindNone, nil, pristine, 0
			}
			slotList = resources
			nslots = r.effMax
			orMatched = true
		}
	}
	if slotList != nil {
		kind, next := kindNone, []*req(nil)
		if pristine {
			kind, next = kindPristineNone, resources
		}
		for _, s := range slotList {
			if m.applies(u, s) {
				return kindSlot, slotList, false, nslots
			}
		}
		return kind, next, pristine, nslots
	}
	switch {
	case matchRes != nil:
		return kindResource, matchRes.with, false, nslots
	case pristine:
		return kindPristineNone, resources, true, 0
	}
	return kindNone, nil, false, 0
}

func (m *Matcher) conflict(t graph.TypeID) {
	m.msg.WriteString("test: siblings in jobspec request same resource type : ")
	m.msg.WriteString(m.g.Types.Name(int32(t)))
	m.msg.WriteString(".\n")
}

// plannerErrno maps planner errors onto errno codes.
func plannerErrno(err error) Errno {
	switch {
	case errors.Is(err, planner.ErrBusy):
		return EBUSY
	case errors.Is(err, planner.ErrRange):
		return ERANGE
	case errors.Is(err, planner.ErrNotFound):
		return ENOENT
	}
	return EINVAL
}

// pruneVertex decides whether u can be walked at all (spec traversal.md §6).
func (m *Matcher) pruneVertex(u graph.VertexID, si int, xin bool, resources []*req) bool {
	vx := m.g.V(u)
	if m.cur.atype != atSatisfiability && vx.Status != graph.StatusUp {
		m.errno = EBUSY
		return false
	}
	if m.cur.cons != nil && (vx.Type == graph.TypeNode || vx.Type == graph.TypeStorageNode) {
		if !m.cur.cons.Match(vx.Name, vx.Rank, func(k string) bool { _, ok := vx.Prop(k); return ok }) {
			m.errno = EBUSY
			return false
		}
	}
	avail, err := m.plan(u).AvailDuring(m.cur.at, m.cur.duration)
	if err != nil {
		m.errno = plannerErrno(err)
		if m.errno == ERANGE {
			m.errno = EBUSY
		}
		return false
	}
	if avail == 0 {
		m.errno = EBUSY
		return false
	}
	// With the flexible traverser a failed subtree check of a slot entry
	// does not prune at once: the checks go on and the last slot entry's
	// result decides (an or-slot alternative that can never fit, listed
	// last, prunes every vertex; one listed earlier prunes nothing).
	slotFail := false
	for _, r := range resources {
		if r.typ != vx.Type && r.typ != graph.TypeSlot {
			continue
		}
		if r.typ != graph.TypeSlot && !m.byExcl(u, vx, xin, r) {
			return false
		}
		ok := m.bySubplan(u, si, r)
		if m.flexible && r.typ == graph.TypeSlot {
			// The errno of a failed check stays set, even when a later
			// slot entry passes. With Fluxion's errno (emulation or
			// FluxionQuirks) that is ERANGE for a count above the
			// filter's total, which a satisfiability probe that then
			// succeeds reports (allocate_with_satisfiability prints
			// neither "Unsatisfiable" nor advances the job counter).
			slotFail = !ok
			continue
		}
		if !ok {
			return false
		}
	}
	if slotFail && m.errno == ERANGE {
		m.errno = EBUSY
	}
	return !slotFail
}

// byExcl is the exclusivity check (spec traversal.md §6.4).
func (m *Matcher) byExcl(u graph.VertexID, vx *graph.Vertex, xin bool, r *req) bool {
	if xin && r.excl == jobspec.ExclusiveFalse {
		m.errno = EINVAL
		m.msg.WriteString("by_excl: exclusivity conflicts at jobspec=")
		m.msg.WriteString(r.label)
		m.msg.WriteString(" : vertex=")
		m.msg.WriteString(vx.Name)
		return false
	}
	if xin || r.exclusive() {
		if m.cur.at == m.cur.now && (m.cur.atype == atAlloc || m.cur.atype == atNone) && m.hasAllocation(u) {
			m.errno = EBUSY
			return false
		}
		n, err := m.xplan(u).AvailDuring(m.cur.at, m.cur.duration)
		if err != nil {
			m.errno = plannerErrno(err)
			if m.errno == ERANGE {
				m.errno = EBUSY
			}
			return false
		}
		if n < xCheckerTotal {
			m.errno = EBUSY
			return false
		}
	}
	return true
}

func (m *Matcher) hasAllocation(u graph.VertexID) bool {
	l := m.jobsOf(u)
	for i := range l.Len() {
		if l.At(i).alloc != 0 {
			return true
		}
	}
	return false
}

// bySubplan is the subtree check against u's pruning filter (§6.5).
func (m *Matcher) bySubplan(u graph.VertexID, si int, r *req) bool {
	f := m.filter(si, u)
	if !f.ok() || len(r.user) == 0 {
		return true
	}
	counts := m.work.counts[:0]
	for i := 0; i < f.Len(); i++ {
		n, _ := r.user.get(graph.TypeID(f.Type(i)))
		counts = append(counts, n)
	}
	m.work.counts = counts
	if err := f.Check(m.cur.at, m.cur.duration, counts); err != nil {
		m.errno = EBUSY
		if m.flexible && r.typ == graph.TypeSlot && errors.Is(err, planner.ErrRange) && (m.emulate || m.opts.FluxionQuirks) {
			m.errno = ERANGE
		}
		return false
	}
	return true
}

// addChild appends the egroup of a successfully walked child.
func (m *Matcher) addChild(dfu *scoring, sub graph.SubsystemID, h graph.Half, x bool) {
	e0 := int32(len(m.work.erecs))
	m.work.erecs = append(m.work.erecs, erec{count: dfu.avail, needs: dfu.avail, excl: x, edge: h.Edge})
	dfu.add(sub, m.g.V(h.Other).Type, egroup{score: dfu.overall, count: dfu.avail, excl: x, e0: e0, en: 1})
}

// explore walks u's children in subsystem index si (spec traversal.md §5).
func (m *Matcher) explore(u graph.VertexID, si int, resources []*req, pristine, excl bool, dfu *scoring, mult uint32) int {
	if si != 0 {
		return m.exploreAux(u, si, resources, excl, dfu)
	}
	if m.dynamic && !m.static {
		return m.exploreDynamic(u, resources, pristine, excl, dfu, mult)
	}
	sub := m.subs[0]
	ok := false
	for _, h := range m.g.Out(u) {
		if h.Subsystem != sub || !m.white(0, h.Other) {
			continue
		}
		x := excl
		if m.domDFV(h.Other, resources, pristine, &x, dfu) == 0 {
			m.addChild(dfu, sub, h, x)
			ok = true
		}
	}
	if !ok {
		return -1
	}
	return 0
}

// exploreDynamic visits children in by_outedges order and stops once every
// requested type has enough (spec traversal.md §5.2).
func (m *Matcher) exploreDynamic(u graph.VertexID, resources []*req, pristine, excl bool, dfu *scoring, mult uint32) int {
	l := m.childOrder(u)
	if l.none() {
		return -1
	}
	sub := m.subs[0]
	base := len(m.work.tally)
	for _, r := range resources {
		// One tally per type; a later request of the same type (or-slot
		// siblings) replaces the share of an earlier one.
		dup := false
		for k := range m.work.tally[base:] {
			if t := &m.work.tally[base+k]; t.t == r.typ {
				t.perShare = int64(r.effMax)
				dup = true
			}
		}
		if !dup {
			m.work.tally = append(m.work.tally, tally{t: r.typ, perShare: int64(r.effMax)})
		}
	}
	sortTally(m.work.tally[base:])
	defer func() { m.work.tally = m.work.tally[:base] }()
	ok := false
	for i := 0; i < l.Len(); i++ {
		e := l.At(i)
		if e.sub != sub || !m.white(0, e.dst) {
			continue
		}
		dt := m.g.V(e.dst).Type
		skip := false
		for _, t := range m.work.tally[base:] {
			if t.sat && t.t == dt {
				skip = true
			}
		}
		if skip {
			continue
		}
		x := excl
		if m.domDFV(e.dst, resources, pristine, &x, dfu) != 0 {
			continue
		}
		m.addChild(dfu, sub, graph.Half{Edge: e.edge, Other: e.dst, Subsystem: e.sub}, x)
		ok = true
		all := true
		tl := m.work.tally[base:]
		for k := range tl {
			t := &tl[k]
			total := dfu.list(sub, t.t).total
			if total > t.prev {
				t.accum += total - t.prev
				t.prev = total
				if t.perShare > 0 && t.accum >= t.perShare {
					t.shares++
					t.accum = 0
				}
			}
		}
		for k := range tl {
			t := &tl[k]
			if t.perShare == 0 || t.shares >= int64(mult) {
				t.sat = true
			}
			if !t.sat {
				all = false
			}
		}
		if all {
			break
		}
	}
	if !ok {
		return -1
	}
	return 0
}

func sortTally(l []tally) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j-1].t > l[j].t; j-- {
			l[j-1], l[j] = l[j], l[j-1]
		}
	}
}

// exploreAux walks u's out-edges of auxiliary subsystem si (spec
// traversal.md §17). Each reachable vertex that passes pruning adds an
// egroup to dfu carrying dfu's current score and availability, which are
// whatever the last dominant child left there (a Fluxion quirk, kept).
func (m *Matcher) exploreAux(u graph.VertexID, si int, resources []*req, excl bool, dfu *scoring) int {
	sub := m.subs[si]
	ok := false
	for _, h := range m.g.Out(u) {
		if h.Subsystem != sub || !m.white(si, h.Other) {
			continue
		}
		if m.auxUPV(h.Other, si, resources, excl) {
			m.addChild(dfu, sub, h, excl)
			ok = true
		}
	}
	if !ok {
		return -1
	}
	return 0
}

// auxUPV checks one auxiliary vertex and, unless it is the auxiliary root,
// the auxiliary vertices below it. Their (always empty) scoring objects add
// nothing to the caller.
func (m *Matcher) auxUPV(v graph.VertexID, si int, resources []*req, excl bool) bool {
	if !m.pruneVertex(v, si, excl, resources) {
		return false
	}
	m.gray(si, v)
	sub := m.subs[si]
	// Fluxion looks the auxiliary root up once, for the first auxiliary
	// subsystem it walks.
	if v != m.g.Root(m.subs[1]) {
		for _, h := range m.g.Out(v) {
			if h.Subsystem == sub && m.white(si, h.Other) {
				m.auxUPV(h.Other, si, resources, excl)
			}
		}
	}
	m.black(si, v)
	avail, err := m.plan(v).AvailDuring(m.cur.at, m.cur.duration)
	if err != nil || avail == 0 {
		m.errno = EBUSY
		return false
	}
	return true
}

// domSlot runs the slot walk at u (spec traversal.md §7).
func (m *Matcher) domSlot(u graph.VertexID, shape []*req, nslots uint32, pristine bool, dfu *scoring) int {
	if m.flexible {
		return m.domOrSlot(u, shape, nslots, pristine, dfu)
	}
	s := m.work.pool.get()
	defer m.work.pool.put(s)
	slot := m.slotReq
	rc, done := 0, false
	if m.fast {
		rc, done = m.exploreSlotBest(u, shape, pristine, s, slot)
	}
	if !done {
		rc = m.explore(u, 0, shape, pristine, true, s, nslots)
	}
	if rc != 0 {
		return -1
	}
	order := m.pol.SlotOrder()
	for i := 0; i < s.n; i++ {
		l := &s.l[i]
		s.ws.expand(l)
		s.chooseBestK(l.sub, l.typ, l.qual, order, false)
	}
	sub := m.subs[0]
	// Count how many slots fit: per element, consecutive candidates in
	// sorted order until the element's count is covered.
	nfit := int64(math.MaxInt64)
	for _, e := range shape {
		q := s.qualified(sub, e.typ)
		m.noteCount(e, q)
		c := int64(e.count.Calc(clampU32(q)))
		if c == 0 {
			nfit = 0
			break
		}
		fits, acc := int64(0), int64(0)
		if l := s.find(sub, e.typ); l != nil {
			for _, eg := range l.g {
				acc += eg.count
				if acc >= c {
					fits++
					acc = 0
				}
			}
		}
		nfit = min(nfit, fits)
	}
	if nfit == math.MaxInt64 {
		nfit = 0
	}
	// Build the slot egroups; cursors are per element type and shared.
	var cursors [8]struct {
		t graph.TypeID
		i int
	}
	nc := 0
	cursor := func(t graph.TypeID) *int {
		for k := 0; k < nc; k++ {
			if cursors[k].t == t {
				return &cursors[k].i
			}
		}
		if nc < len(cursors) {
			cursors[nc].t = t
			cursors[nc].i = 0
			nc++
			return &cursors[nc-1].i
		}
		return nil
	}
	for i := int64(0); i < nfit; i++ {
		score := int64(1)
		e0 := int32(len(m.work.erecs))
		for _, e := range shape {
			c := int64(e.count.Calc(clampU32(s.qualified(sub, e.typ))))
			l := s.find(sub, e.typ)
			cur := cursor(e.typ)
			if l == nil || cur == nil {
				m.msg.WriteString("dom_slot: not enough slots.\n")
				return -1
			}
			for taken := int64(0); taken < c; {
				if *cur >= len(l.g) {
					m.msg.WriteString("dom_slot: not enough slots.\n")
					return -1
				}
				eg := l.g[*cur]
				*cur++
				for k := eg.e0; k < eg.e0+eg.en; k++ {
					er := m.erecAt(&eg, k)
					m.work.erecs = append(m.work.erecs, erec{count: eg.count, needs: eg.count, excl: true, edge: er.edge})
				}
				score += eg.score
				taken += eg.count
			}
		}
		en := int32(len(m.work.erecs)) - e0
		dfu.add(sub, graph.TypeSlot, egroup{score: score, count: 1, excl: true, e0: e0, en: en})
	}
	return 0
}

// onlyType reports whether exactly one request of l has type t: its
// candidate list is then chosen from once.
func onlyType(l []*req, t graph.TypeID) bool {
	n := 0
	for _, r := range l {
		if r.typ == t {
			n++
		}
	}
	return n == 1
}

func clampU32(n int64) uint32 {
	if n < 0 {
		return 0
	}
	if n > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}

// domDFV is the dominant walk at u (spec traversal.md §4).
func (m *Matcher) domDFV(u graph.VertexID, resources []*req, pristine bool, excl *bool, toParent *scoring) int {
	// The recursion follows the graph's depth, which New bounds; this
	// guard also holds for graphs grown later or walked through several
	// parents.
	if m.walkDepth >= graph.MaxDepth {
		m.errno = EINVAL
		m.msg.WriteString("dom_dfv: graph deeper than graph.MaxDepth.\n")
		return -1
	}
	m.walkDepth++
	if m.fast && m.memo.on {
		if rc, ok := m.memoVisit(u, resources, pristine, excl, toParent); ok {
			m.walkDepth--
			return rc
		}
	}
	rc := m.domWalk(u, resources, pristine, excl, toParent)
	m.walkDepth--
	return rc
}

// domWalk is domDFV at u once the depth is checked.
func (m *Matcher) domWalk(u graph.VertexID, resources []*req, pristine bool, excl *bool, toParent *scoring) int {
	g := m.g
	vx := g.V(u)
	xin := *excl || exclusivity(resources, vx.Type)
	kind, next, pristine2, nslots := m.test(u, resources, pristine)
	m.pre++
	if kind == kindNone {
		m.errno = EBUSY
		return -1
	}
	if !m.pruneVertex(u, 0, xin, resources) {
		return -1
	}
	if err := m.pol.Discover(g, u); err != nil {
		m.errno = EINVAL
		return -1
	}
	if m.memo.depth > 0 {
		m.recordOffset(u)
	}
	m.gray(0, u)
	dfu := m.work.pool.get()
	rc := m.domFinish(u, vx, resources, kind, next, pristine2, nslots, xin, excl, dfu, toParent)
	m.work.pool.put(dfu)
	return rc
}

// domFinish is the rest of domWalk: explore u's children into dfu, choose
// and hand the result to toParent.
func (m *Matcher) domFinish(u graph.VertexID, vx *graph.Vertex, resources []*req, kind visitKind, next []*req, pristine2 bool, nslots uint32, xin bool, excl *bool, dfu, toParent *scoring) int {
	g := m.g
	if kind == kindSlot {
		m.domSlot(u, next, nslots, pristine2, dfu)
	} else {
		for si := range m.subs {
			if si == 0 && m.fast {
				ok := false
				if pristine2 {
					_, ok = m.exploreFlat(u, next, xin, dfu)
				} else {
					_, ok = m.exploreBest(u, next, xin, dfu)
				}
				if ok {
					continue
				}
			}
			m.explore(u, si, next, pristine2, xin, dfu, 1)
		}
	}
	*excl = xin
	m.black(0, u)
	avail, err := m.plan(u).AvailDuring(m.cur.at, m.cur.duration)
	if err != nil {
		m.errno = plannerErrno(err)
		return -1
	}
	if avail == 0 {
		m.errno = EBUSY
		return -1
	}
	met := true
	order := m.pol.VertexOrder()
	for _, r := range resources {
		if r.typ != vx.Type {
			continue
		}
		for _, c := range r.with {
			q := dfu.qualified(m.dom, c.typ)
			m.noteCount(c, q)
			k := c.count.Calc(clampU32(q))
			if k == 0 {
				met = false
				break
			}
			dfu.chooseBestK(m.dom, c.typ, int64(k), order, onlyType(r.with, c.typ))
		}
	}
	score := m.pol.Finish(g, u, met)
	if !met {
		dfu.overall = 0
		m.errno = EBUSY
		return -1
	}
	dfu.overall = score
	if dfu.overall > 0 {
		if dfu.hier {
			for si := range m.subs {
				m.enforce(si, dfu, false)
			}
		} else {
			toParent.merge(dfu)
		}
	}
	toParent.avail = avail
	toParent.overall = dfu.overall
	for _, r := range resources {
		if r.typ == vx.Type && r.label != "" {
			m.setLabel(u, r.label)
		}
	}
	m.post++
	return 0
}

// enforce stamps the chosen candidates' edges (spec traversal.md §8.5).
func (m *Matcher) enforce(si int, dfu *scoring, walkUp bool) {
	sub := m.subs[si]
	for i := 0; i < dfu.n; i++ {
		l := &dfu.l[i]
		if l.sub != sub || l.bestK == 0 {
			continue
		}
		for j := 0; j < l.bestI && j < len(l.g); j++ {
			eg := &l.g[j]
			if eg.root {
				continue
			}
			for k := eg.e0; k < eg.e0+eg.en; k++ {
				er := m.erecAt(eg, k)
				if er.edge < 0 {
					continue
				}
				m.setStamp(er.edge, stamp{seq: m.seq, needs: er.needs, excl: er.excl})
				if walkUp {
					m.walkUp(sub, m.g.E(er.edge).Src, dfu)
				}
			}
		}
	}
}

// walkUp connects a candidate chosen at the root to the root through the
// unconstrained prefix vertices above it.
func (m *Matcher) walkUp(sub graph.SubsystemID, p graph.VertexID, dfu *scoring) {
	for {
		in := graph.EdgeID(-1)
		for _, h := range m.g.In(p) {
			if h.Subsystem == sub {
				in = h.Edge
				break
			}
		}
		if in < 0 || m.stamps[in].seq == m.seq {
			return
		}
		e := m.g.E(in)
		t := m.g.V(e.Dst).Type
		p = e.Src
		if l := dfu.find(sub, t); l != nil && l.bestK == 0 {
			m.setStamp(in, stamp{seq: m.seq, needs: m.g.V(e.Dst).Size, excl: false})
		}
	}
}

// tick starts a new selection.
func (m *Matcher) tick() {
	if len(m.stamps) != m.g.NumEdges() {
		m.fitScratch()
	}
	m.seq++
	m.resetColors()
	m.pre, m.post = 0, 0
	m.work.erecs = m.work.erecs[:0]
	m.work.stamped = m.work.stamped[:0]
	m.memo.pend = m.memo.pend[:0]
}

// setStamp marks edge e as selected in the current tick and remembers it,
// so the update walk visits only selected edges instead of every child.
func (m *Matcher) setStamp(e graph.EdgeID, st stamp) {
	if len(m.memo.pend) > 0 {
		m.flushStamps(m.g.E(e).Dst)
	}
	if m.stamps[e].seq != m.seq {
		m.work.stamped = append(m.work.stamped, srcEdge{m.g.E(e).Src, e})
	}
	m.stamps[e] = st
	if m.memo.depth > 0 {
		m.recordStamp(e)
	}
}

// selectAt runs one selection at m.cur.at (spec traversal.md §8.6). With
// the flexible traverser, xor-slot alternatives are tried in order.
func (m *Matcher) selectAt() int {
	if !m.flexible || !hasXor(m.cur.orig) {
		m.cur.top = m.cur.orig
		return m.selectOnce()
	}
	variants, ok := expandXor(m.cur.orig)
	if !ok || len(variants) == 0 {
		m.tick()
		m.errno = EOVERFLOW
		m.msg.WriteString("select: split_xor_slots failed.\n")
		m.msg.WriteString(EOVERFLOW.String())
		m.msg.WriteString("\n")
		return -1
	}
	rc := -1
	for _, v := range variants {
		m.cur.top = v
		if rc = m.selectOnce(); rc == 0 {
			return 0
		}
	}
	return rc
}

// selectOnce runs one selection, best-first when the policy allows it. A
// failed best-first selection is run again by the reference walk, which
// sets Fluxion's errno, messages and visit counts for the failure.
func (m *Matcher) selectOnce() int {
	if m.useBest() {
		n, errno := m.msg.Len(), m.errno
		m.fast, m.bestAbort = true, false
		m.memoPrepare()
		rc := m.selectWalk()
		m.fast = false
		if !m.bestAbort && (rc == 0 || (m.best.cleanGraph && m.reqc.clean)) {
			// Over a clean request and graph, a failed walk fails with
			// the reference's errno (EBUSY, or ENODEV from the root's
			// choice) and writes no message.
			m.bestHits++
			m.bestUsed = true
			return rc
		}
		m.errno = errno
		if m.msg.Len() != n {
			s := m.msg.String()[:n]
			m.msg.Reset()
			m.msg.WriteString(s)
		}
	}
	return m.selectWalk()
}

func (m *Matcher) selectWalk() int {
	m.tick()
	root := m.g.Root(m.dom)
	top := m.work.pool.get()
	defer m.work.pool.put(top)
	x := exclusivity(m.cur.top, m.g.V(root).Type)
	rc := m.domDFV(root, m.cur.top, true, &x, top)
	if rc != 0 {
		return rc
	}
	e0 := int32(len(m.work.erecs))
	m.work.erecs = append(m.work.erecs, erec{count: top.avail, needs: top.avail, excl: x, edge: -1})
	top.add(m.dom, m.g.V(root).Type, egroup{score: top.overall, count: top.avail, excl: x, root: true, e0: e0, en: 1})
	needs, ok := m.resolveGraph(root, top)
	if !ok {
		m.errno = ENODEV
		return -1
	}
	*m.virtualEdge(m.dom) = stamp{seq: m.seq, needs: needs, excl: x}
	if len(m.memo.pend) > 0 {
		// The update walk enters the root through its virtual edge.
		m.flushStamps(root)
	}
	return 0
}

// resolveGraph chooses the top-level candidates and connects them to the
// root (spec traversal.md §8.6). It returns the root's needs.
func (m *Matcher) resolveGraph(root graph.VertexID, top *scoring) (int64, bool) {
	met := true
	for _, r := range m.cur.top {
		q := top.qualified(m.dom, r.typ)
		m.noteCount(r, q)
		k := r.count.Calc(clampU32(q))
		if k == 0 {
			met = false
			break
		}
		var order policy.Order
		if _, fixed := m.pol.(policy.FixedGraphOrder); fixed {
			order = m.pol.GraphOrder(nil)
		} else {
			order = m.pol.GraphOrder(m.scoresOf(top, r.typ))
		}
		top.chooseBestK(m.dom, r.typ, int64(k), order, onlyType(m.cur.top, r.typ))
	}
	m.pol.FinishGraph()
	if !met {
		return 0, false
	}
	needs := int64(1)
	rt := m.g.V(root).Type
	for _, r := range m.cur.top {
		if r.typ == rt {
			needs = int64(r.count.Calc(clampU32(top.avail)))
			if needs == 0 {
				return 0, false
			}
		}
	}
	for i := 0; i < top.n; i++ {
		if top.l[i].qual == 0 {
			return 0, false
		}
	}
	for si := range m.subs {
		m.enforce(si, top, true)
	}
	return needs, true
}

func (m *Matcher) scoresOf(s *scoring, t graph.TypeID) []int64 {
	out := m.work.scores[:0]
	if l := s.find(m.dom, t); l != nil {
		for i := range l.g {
			eg := &l.g[i]
			if !eg.block {
				out = append(out, eg.score)
				continue
			}
			for o := int32(0); o < eg.en; o++ {
				out = append(out, m.memo.blockAt(eg, o).score)
			}
		}
	}
	m.work.scores = out
	return out
}
