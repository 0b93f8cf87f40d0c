package match

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/planner"
	"github.com/gofluxion/gofluxion/policy"
)

// Defaults of resource-query and the cli API.
const (
	DefaultPolicy       = "first"
	DefaultSubsystems   = "CA"
	DefaultPruneFilters = "ALL:core,ALL:node"

	// GraphEnd is the end of the schedulable time window, [0, GraphEnd)
	// seconds: 100 years, as resource-query uses.
	GraphEnd int64 = 3153600000
	// xCheckerTotal is the unit count of the exclusivity checker planners.
	xCheckerTotal int64 = 1 << 30
)

// Options configure a Matcher. Zero values select the defaults.
type Options struct {
	// Policy is a policy name or custom policy string (default "first").
	Policy string
	// Subsystems is a matcher name such as "CA" or "C+PA" (default "CA").
	Subsystems string
	// PruneFilters is a pruning spec such as "ALL:core,ALL:node"; empty
	// selects the default unless NoPruneFilters is set.
	PruneFilters string
	// NoPruneFilters installs no configured pruning filters.
	NoPruneFilters bool
	// Traverser is "simple" (default) or "flexible".
	Traverser string
	// MaxFindDepth bounds how deep Find's criteria may nest parentheses
	// (default graph.DefaultMaxDepth).
	MaxFindDepth int

	// FluxionQuirks reproduces decisions that follow from Fluxion's
	// implementation rather than from its specification, none of which
	// corrupts the schedule: a match rejected for its duration leaves its
	// exclusive types in force, dry runs and updates re-key the dynamic
	// child order, the emission level a walk could not close carries over,
	// re-priming keeps the reservation search's view of the free units,
	// and an update from an R trusts the R (see the package doc).
	// resource-query and reapi turn it on.
	FluxionQuirks bool
	// FluxionFailures makes operations fail where and as Fluxion's do and
	// leave its half-changed state (partial cancels, rank removals, job
	// ids booked twice; see the package doc); where Fluxion hangs it
	// fails. Only resource-query, the fidelity instrument, turns it on.
	// By default a failed operation changes nothing.
	FluxionFailures bool
}

// matcherNames maps -S names to subsystem lists (spec resource-query.md §1).
var matcherNames = map[string][]string{
	"CA":       {"containment"},
	"IBA":      {"ibnet"},
	"IBBA":     {"ibnetbw"},
	"PA":       {"power"},
	"PFS1BA":   {"pfs1bw"},
	"C+IBA":    {"containment", "ibnet"},
	"C+IBBA":   {"containment", "ibnetbw"},
	"C+PA":     {"containment", "power"},
	"C+PFS1BA": {"containment", "pfs1bw"},
	"IB+IBBA":  {"ibnet", "ibnetbw"},
	"C+P+IBA":  {"containment", "power", "ibnet"},
	"V+PFS1BA": {"virtual1", "pfs1bw"},
	"VA":       {"virtual1"},
	"ALL":      {"containment", "ibnet", "ibnetbw", "pfs1bw", "power"},
}

// SubsystemNames resolves a matcher name (or its lowercase form).
func SubsystemNames(name string) ([]string, bool) {
	if l, ok := matcherNames[name]; ok {
		return l, true
	}
	l, ok := matcherNames[strings.ToUpper(name)]
	if ok && strings.ToLower(name) == name {
		return l, true
	}
	return nil, false
}

// ConfigError reports a bad option; Stage names the step of Fluxion's
// initialisation that fails, whose message resource-query prints.
type ConfigError struct {
	Stage string // "policy", "subsystems", "prune", "traverser"
	Err   error
}

func (e *ConfigError) Error() string { return e.Stage + ": " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// pruneConf is the pruning configuration of one subsystem (model.md §7.1).
type pruneConf struct {
	anchors map[graph.TypeID][]graph.TypeID // anchor → pruned types, interning order
	isPrune []bool                          // pruning-type set, by TypeID
}

func (p *pruneConf) has(t graph.TypeID) bool { return int(t) < len(p.isPrune) && p.isPrune[t] }

func (p *pruneConf) mark(t graph.TypeID) {
	for int(t) >= len(p.isPrune) {
		p.isPrune = append(p.isPrune, false)
	}
	p.isPrune[t] = true
}

func insertSorted(l []graph.TypeID, t graph.TypeID) []graph.TypeID {
	for i, x := range l {
		if x == t {
			return l
		}
		if x > t {
			l = append(l, 0)
			copy(l[i+1:], l[i:])
			l[i] = t
			return l
		}
	}
	return append(l, t)
}

// install applies one HL:LL pair.
func (p *pruneConf) install(anchor, t graph.TypeID) {
	if p.anchors == nil {
		p.anchors = map[graph.TypeID][]graph.TypeID{}
	}
	if anchor == graph.TypeAny {
		for a, l := range p.anchors {
			for i, x := range l {
				if x == t {
					p.anchors[a] = append(l[:i:i], l[i+1:]...)
					break
				}
			}
		}
		p.anchors[anchor] = insertSorted(p.anchors[anchor], t)
	} else if !containsType(p.anchors[graph.TypeAny], t) {
		p.anchors[anchor] = insertSorted(p.anchors[anchor], t)
	}
	p.mark(t)
}

func containsType(l []graph.TypeID, t graph.TypeID) bool {
	for _, x := range l {
		if x == t {
			return true
		}
	}
	return false
}

// typesFor lists the types tracked at a vertex of type x.
func (p *pruneConf) typesFor(x graph.TypeID, dst []graph.TypeID) []graph.TypeID {
	dst = append(dst[:0], p.anchors[x]...)
	if x != graph.TypeAny {
		for _, t := range p.anchors[graph.TypeAny] {
			if t != x {
				dst = append(dst, t)
			}
		}
	}
	return dst
}

// parsePrune parses a pruning spec into conf, interning the type names.
func parsePrune(g *graph.Graph, spec string, conf *pruneConf) error {
	for _, pair := range strings.Split(spec, ",") {
		hl, ll, ok := strings.Cut(pair, ":")
		hl = strings.Join(strings.Fields(hl), "")
		ll = strings.Join(strings.Fields(ll), "")
		if !ok || hl == "" || ll == "" {
			return fmt.Errorf("bad pruning filter %q in %q (want HL:LL)", pair, spec)
		}
		anchor := graph.TypeAny
		if hl != "ALL" {
			anchor = g.Type(hl)
		}
		conf.install(anchor, g.Type(ll))
	}
	return nil
}

// jobRec is the state one job holds on one vertex.
type jobRec struct {
	job    uint64
	alloc  int64 // span id in plans (0: none)
	resv   int64 // span id in plans for a reservation (0: none)
	xspan  int64 // span id in the exclusivity checker (0: none)
	fspan  int64 // multi-span id in the dominant filter (-1: none)
	tagged bool
}

// stamp is the per-match selection state of an edge (or of a root's
// virtual in-edge): needs/exclusive are valid iff seq is current.
type stamp struct {
	seq   uint64
	needs int64
	excl  bool
}

// outEntry is one entry of a vertex's dynamic child order (by_outedges):
// sorted by weight, then target uniq_id, both descending.
type outEntry struct {
	weight uint64
	uniq   int64
	edge   graph.EdgeID
	dst    graph.VertexID
	sub    graph.SubsystemID
}

// Matcher matches jobspecs against one resource graph and keeps the
// graph's schedule: allocations, reservations and pruning filters.
//
// A Matcher is not safe for concurrent use. View returns a matcher that
// shares the schedule but has its own scratch state, for read-only queries
// (Satisfiability, Find) that may run concurrently with each other while no
// other operation runs.
type Matcher struct {
	*schedule
	*scratch
}

// schedule is the persistent state of a matcher: the graph and what is
// booked on it.
type schedule struct {
	g        *graph.Graph
	opts     Options
	subs     []graph.SubsystemID // dominant first
	dom      graph.SubsystemID
	flexible bool
	dynamic  bool

	prune []pruneConf // by matcher subsystem index

	// store holds the per-vertex and per-edge state (planners, job
	// records, filters, the dynamic child order), the job index and the
	// graph's ownership, copy-on-write (store.go).
	store

	nodesUp int64
	polExcl []graph.TypeID

	// cloneMu serialises Clones of one schedule (read-only queries, which
	// may run concurrently, may clone; Clone retokens the store).
	cloneMu sync.Mutex

	// releases counts the operations that gave planner units back: the
	// links over full candidates (skip.go) are only valid between them.
	releases uint64
}

// scratch is the per-walk state of a matcher: visit marks, selection
// stamps, the policy's running sums, buffers and the error of the last
// operation.
type scratch struct {
	pol    policy.Policy
	colors [][]uint32 // [subsystem index][vertex]
	cbase  uint32
	labels []labelRec // ephemeral labels, by vertex (allocated on first use)

	stamps []stamp // by edge
	vroot  []stamp // virtual root in-edges, by SubsystemID
	seq    uint64

	// errno emulates the C library's errno as Fluxion leaves it: failure
	// paths that set no code report the previous one.
	errno   Errno
	emulate bool // keep errno across operations, as Fluxion's C errno does
	msg     strings.Builder

	// level is the emission level the last walk ended at (FluxionQuirks).
	level int

	// Visit counters of the current walk and Fluxion's running totals.
	pre, post           int64
	preTotal, postTotal int64

	cur     matchState
	work    workspace
	reqc    reqCache
	explain *explainRec // non-nil while Explain collects counts
	// shapeOf caches the graph's type structure for the shape diagnosis,
	// valid while the graph and its generation are shapeG and shapeGen.
	shapeOf  *typeShape
	shapeG   *graph.Graph
	shapeGen uint64
	static   bool // Explain: visit every candidate (no dynamic order)
	probe    bool // Explain: an update walk that changes nothing

	// exhaustive selects the reference walk (tests, visit counting); fast
	// is set while a best-first selection runs (best.go).
	exhaustive bool
	fast       bool
	dry        bool        // CountVisits: select but do not book
	counted    visitCounts // CountVisits' counts for the next Match
	walkDepth  int         // open domDFV levels (bounded by graph.MaxDepth)
	best       bestState
	slotReq    *req  // the slot request of the last kindSlot test
	bestHits   int64 // selections the best-first walk decided (for tests)
	bestAbort  bool  // the best-first walk found its order wrong
	bestUsed   bool  // a best-first selection decided in this operation
	memo       memoState
	// emptyUpdate: the last update walk of a match found nothing to book.
	emptyUpdate bool
	// orOver: an or-slot walk of this operation met maxOrStates; a
	// failed operation then reports EOVERFLOW (too large to search)
	// rather than a busy or unsatisfiable request.
	orOver bool
	// ended lists the jobs the last removal ended (Ended).
	ended []uint64
}

// labelRec is the jobspec label recorded on a vertex (Fluxion's
// "ephemeral" data, shown by the JGF writer); it is valid only in the tick
// whose sequence number it carries.
type labelRec struct {
	seq   uint64
	label string
}

// setLabel records v's label in the current tick. The per-vertex array is
// allocated the first time a labelled request matches.
func (m *Matcher) setLabel(v graph.VertexID, label string) {
	if len(m.labels) < m.g.NumVertices() {
		m.labels = append(m.labels, make([]labelRec, m.g.NumVertices()-len(m.labels))...)
	}
	m.labels[v] = labelRec{m.seq, label}
	if m.memo.depth > 0 {
		m.recordLabel(v)
	}
}

func (m *Matcher) label(v graph.VertexID) string {
	if int(v) < len(m.labels) && m.labels[v].seq == m.seq {
		return m.labels[v].label
	}
	return ""
}

// New creates a matcher for g. The graph must not be changed behind the
// matcher's back afterwards, except through the matcher.
func New(g *graph.Graph, opts Options) (*Matcher, error) {
	if opts.Policy == "" {
		opts.Policy = DefaultPolicy
	}
	if opts.Subsystems == "" {
		opts.Subsystems = DefaultSubsystems
	}
	if opts.Traverser == "" {
		opts.Traverser = "simple"
	}
	m, err := newShell(g, opts, true)
	if err != nil {
		return nil, err
	}
	m.prune = make([]pruneConf, len(m.subs))
	spec := opts.PruneFilters
	if strings.TrimSpace(spec) == "" && !opts.NoPruneFilters {
		spec = DefaultPruneFilters
	}
	if strings.TrimSpace(spec) != "" {
		if err := parsePrune(g, spec, &m.prune[0]); err != nil {
			return nil, &ConfigError{"prune", err}
		}
	}
	if err := m.checkRoots(); err != nil {
		return nil, err
	}
	m.initState()
	m.fitScratch()
	m.prime()
	return m, nil
}

// checkRoots fails when a matcher subsystem has no root in the graph
// (Fluxion: "can't initialize traverser").
func (m *Matcher) checkRoots() error {
	for _, s := range m.subs {
		if m.g.Root(s) == graph.NoVertex {
			return &ConfigError{"traverser", fmt.Errorf("subsystem %q has no root in the graph", m.g.SubsystemName(s))}
		}
		// The walks recurse once per level (breadth-first depth: the
		// shortest path to each vertex; walks also never go deeper than
		// maxWalkDepth, checked as they go).
		if d := m.g.Depth(s); d > graph.MaxDepth {
			return &ConfigError{"traverser", fmt.Errorf("subsystem %q is %d levels deep, more than graph.MaxDepth (%d)", m.g.SubsystemName(s), d, graph.MaxDepth)}
		}
	}
	return nil
}

// newShell validates the policy, traverser and subsystem options and makes
// a matcher with its subsystems and exclusive types set but no schedule
// state yet (roots are checked later, after the pruning spec, in Fluxion's
// order). New interns the subsystem names (as Fluxion does for its
// predefined matchers); Restore only looks them up in the restored table.
func newShell(g *graph.Graph, opts Options, intern bool) (*Matcher, error) {
	pol, err := policy.New(opts.Policy)
	if err != nil {
		return nil, &ConfigError{"policy", err}
	}
	if opts.Traverser != "simple" && opts.Traverser != "flexible" {
		return nil, &ConfigError{"traverser", fmt.Errorf("unknown traverser %q (want simple or flexible)", opts.Traverser)}
	}
	names, ok := SubsystemNames(opts.Subsystems)
	if !ok {
		return nil, &ConfigError{"subsystems", fmt.Errorf("unknown matcher name %q", opts.Subsystems)}
	}
	m := &Matcher{
		schedule: &schedule{g: g, opts: opts, flexible: opts.Traverser == "flexible", dynamic: pol.StopOnFirstMatch()},
		scratch:  &scratch{pol: pol},
	}
	for _, n := range names {
		var s graph.SubsystemID
		if intern {
			s = g.Subsystem(n)
		} else if id, ok := g.Subsystems.Lookup(n); ok {
			s = graph.SubsystemID(id)
		} else {
			return nil, &ConfigError{"traverser", fmt.Errorf("subsystem %q has no root in the graph", n)}
		}
		m.subs = append(m.subs, s)
	}
	m.dom = m.subs[0]
	for _, t := range pol.ExclusiveTypes() {
		m.polExcl = append(m.polExcl, g.Type(t))
	}
	return m, nil
}

// View returns a matcher sharing m's schedule with scratch state of its
// own. Use it only for read-only queries (Satisfiability, Find), which may
// then run concurrently on several views while no other operation runs.
func (m *Matcher) View() *Matcher {
	pol, _ := policy.New(m.opts.Policy)
	// The scratch arrays are sized by the first walk (resetColors).
	return &Matcher{schedule: m.schedule, scratch: &scratch{pol: pol}}
}

// fitScratch sizes the visit marks and stamps to the graph (which attach
// can grow). Every walk starts with resetColors, which calls it when the
// sizes are off, so new scratch state (of a view or a clone) costs nothing
// until it is used.
func (m *Matcher) fitScratch() {
	nv, ne := m.g.NumVertices(), m.g.NumEdges()
	if len(m.colors) != len(m.subs) {
		m.colors = make([][]uint32, len(m.subs))
	}
	for i := range m.colors {
		m.colors[i] = growTo(m.colors[i], nv)
	}
	m.stamps = growTo(m.stamps, ne)
}

// growTo extends l with zero values to length n.
func growTo[T any](l []T, n int) []T {
	if len(l) >= n {
		return l
	}
	return append(l, make([]T, n-len(l))...)
}

// scratchFits reports whether the visit marks and stamps cover the graph.
func (m *Matcher) scratchFits() bool {
	return len(m.colors) == len(m.subs) && len(m.colors[0]) >= m.g.NumVertices() && len(m.stamps) >= m.g.NumEdges()
}

// Graph returns the matcher's graph.
func (m *Matcher) Graph() *graph.Graph { return m.g }

// Policy returns the matcher's policy.
func (m *Matcher) Policy() policy.Policy { return m.pol }

// SetErrno switches the matcher to Fluxion's errno emulation and sets the
// errno that the next failure reports if it sets no code of its own.
// resource-query calls it with ENOTTY before every command, as Fluxion's
// line editor leaves that value when commands come from a file; in this
// mode the errno also carries over from one operation to the next.
// Library users need not call it: by default every operation starts from a
// clean errno, and a failure that set none is reported as EBUSY.
func (m *Matcher) SetErrno(e Errno) {
	m.emulate = true
	m.errno = e
}

// initState sets up empty per-vertex and per-edge state for the whole
// graph: vertices get records lazily, except for the dynamic child order.
func (m *Matcher) initState() {
	g := m.g
	nv := g.NumVertices()
	m.store = newStore(nv)
	if m.dynamic {
		for v := 0; v < nv; v++ {
			out := g.Out(graph.VertexID(v))
			if len(out) == 0 || outIncreasing(g, out) {
				continue // derived (see childOrder)
			}
			l := make([]outEntry, 0, len(out))
			for _, h := range out {
				l = append(l, outEntry{weight: math.MaxUint64, uniq: g.V(h.Other).UniqID, edge: h.Edge, dst: h.Other, sub: h.Subsystem})
			}
			sortOut(l)
			m.setOrder(graph.VertexID(v), l)
		}
	}
	m.nodesUp = 0
	for _, v := range g.ByType(graph.TypeNode) {
		if g.V(v).Status == graph.StatusUp {
			m.nodesUp++
		} else {
			m.nodesUp--
		}
	}
}

// sortOut orders entries by weight then uniq_id, both descending (keys are
// unique per source vertex).
func sortOut(l []outEntry) {
	slices.SortFunc(l, func(a, b outEntry) int {
		switch {
		case outAfter(a, b):
			return 1
		case outAfter(b, a):
			return -1
		}
		return 0
	})
}

// outAfter reports whether a sorts after b.
func outAfter(a, b outEntry) bool {
	if a.weight != b.weight {
		return a.weight < b.weight
	}
	return a.uniq < b.uniq
}

// outPos returns the index at which an entry with the key of x is or would
// be in the sorted list l.
func outPos(l []outEntry, x outEntry) int {
	lo, hi := 0, len(l)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if outAfter(x, l[mid]) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// rekey moves edge e of source u to weight w in the dynamic order: two
// binary searches and one block move of the entries in between.
// uniq is the uniq_id of the edge's target.
func (m *Matcher) rekey(u graph.VertexID, e graph.EdgeID, uniq int64, w uint64) {
	if e < 0 || int(e) >= m.g.NumEdges() {
		return
	}
	if m.derivedOrder(u) {
		m.worder(u) // a re-keyed order is stored
	}
	key := outEntry{weight: m.weight(e), uniq: uniq}
	if b := m.wbigOrder(u); b != nil {
		if b.rekey(key, e, w) {
			m.setWeight(e, w)
			return
		}
		// Not found by key: the flat path below (worder flattens).
		m.worder(u)
	}
	defer m.blockOrder(u)
	ro := m.childOrder(u).l
	i := outPos(ro, key)
	if i >= len(ro) || ro[i].edge != e {
		// Not found by key (should not happen): fall back to a scan.
		i = slices.IndexFunc(ro, func(x outEntry) bool { return x.edge == e })
		if i < 0 {
			return
		}
	}
	l := m.worder(u)
	x := l[i]
	x.weight = w
	m.setWeight(e, w)
	j := outPos(l, x)
	switch {
	case j > i+1:
		// Moving back: shift (i, j) left by one.
		copy(l[i:j-1], l[i+1:j])
		l[j-1] = x
	case j <= i:
		// Moving forward: shift [j, i) right by one.
		copy(l[j+1:i+1], l[j:i])
		l[j] = x
	default:
		l[i] = x
	}
}

// resetColors turns every vertex white in every subsystem at once.
func (m *Matcher) resetColors() {
	if !m.scratchFits() {
		m.fitScratch()
	}
	if m.cbase > math.MaxUint32-8 {
		for i := range m.colors {
			clear(m.colors[i])
		}
		m.cbase = 0
	}
	m.cbase += 3
}

func (m *Matcher) white(si int, v graph.VertexID) bool { return m.colors[si][v] <= m.cbase }
func (m *Matcher) gray(si int, v graph.VertexID)       { m.colors[si][v] = m.cbase + 1 }
func (m *Matcher) black(si int, v graph.VertexID)      { m.colors[si][v] = m.cbase + 2 }

// subIndex returns the matcher index of subsystem s, or -1.
func (m *Matcher) subIndex(s graph.SubsystemID) int {
	for i, x := range m.subs {
		if x == s {
			return i
		}
	}
	return -1
}

// prime builds the pruning filters of every subsystem (model.md §7.2).
//
// The walk registers a leaf's type as a pruning type when it meets the
// leaf, so the vertices of that type it visited before as inner vertices
// (e.g. sockets, after a removal left one socket with no cores) are not
// counted in the ancestors' totals: a later booking's filter span can then
// exceed a total and fail, leaving the vertex out of the allocation.
// Fluxion does that; by default (without Options.FluxionQuirks) such a
// walk is run again, so that every total counts every vertex, as in a
// Matcher restored from a snapshot, whose pruning types are known from the
// start.
func (m *Matcher) prime() {
	var w primeWalk
	for {
		w.redo = false
		m.primeOnce(&w)
		if m.opts.FluxionQuirks || !w.redo {
			return
		}
	}
}

// primeWalk is the state of one priming walk.
type primeWalk struct {
	scratch []graph.TypeID
	inner   []bool // by type: an inner vertex of the type was visited
	redo    bool   // a type registered at a leaf was visited before
}

func (m *Matcher) primeOnce(w *primeWalk) {
	m.resetColors()
	for si, s := range m.subs {
		root := m.g.Root(s)
		if root == graph.NoVertex {
			continue
		}
		clear(w.inner)
		var top tcounts
		m.primeVertex(si, root, &top, w)
	}
	m.buildFresh()
}

// tcounts is a small type→count map ordered by type id.
type tcounts []tcount

type tcount struct {
	t graph.TypeID
	n int64
}

func (c *tcounts) add(t graph.TypeID, n int64) {
	l := *c
	for i := range l {
		if l[i].t == t {
			l[i].n += n
			return
		}
		if l[i].t > t {
			l = append(l, tcount{})
			copy(l[i+1:], l[i:])
			l[i] = tcount{t, n}
			*c = l
			return
		}
	}
	*c = append(l, tcount{t, n})
}

func (c tcounts) get(t graph.TypeID) (int64, bool) {
	for _, x := range c {
		if x.t == t {
			return x.n, true
		}
	}
	return 0, false
}

func (m *Matcher) primeVertex(si int, u graph.VertexID, toParent *tcounts, w *primeWalk) {
	g := m.g
	conf := &m.prune[si]
	vx := g.V(u)
	m.gray(si, u)
	if conf.has(vx.Type) {
		toParent.add(vx.Type, vx.Size)
	}
	if len(g.Out(u)) == 0 {
		if !m.opts.FluxionQuirks && m.filter(si, u).ok() {
			// A removal took every child: a leaf has no filter (as in
			// a restored copy); Fluxion keeps the old one.
			m.dropFilter(si, u)
		}
		if !conf.has(vx.Type) {
			conf.install(graph.TypeCluster, vx.Type)
			toParent.add(vx.Type, vx.Size)
			w.redo = w.redo || int(vx.Type) < len(w.inner) && w.inner[vx.Type]
		}
		m.black(si, u)
		return
	}
	for int(vx.Type) >= len(w.inner) {
		w.inner = append(w.inner, false)
	}
	w.inner[vx.Type] = true
	var dfv tcounts
	s := m.subs[si]
	for _, h := range g.Out(u) {
		if h.Subsystem != s || !m.white(si, h.Other) {
			continue
		}
		m.primeVertex(si, h.Other, &dfv, w)
	}
	for _, tc := range dfv {
		if conf.has(tc.t) {
			toParent.add(tc.t, tc.n)
		}
	}
	m.black(si, u)
	types := conf.typesFor(vx.Type, w.scratch[:0])
	w.scratch = types
	if len(types) == 0 {
		return
	}
	totals := make([]int64, len(types))
	ids := make([]int32, len(types))
	for i, t := range types {
		totals[i], _ = dfv.get(t)
		ids[i] = int32(t)
	}
	if f := m.wfilter(si, u); f != nil {
		if m.opts.FluxionQuirks {
			f.UpdateKeepSearch(totals, ids)
		} else {
			f.Update(totals, ids)
		}
		return
	}
	f, err := planner.NewMulti(0, math.MaxInt64, totals, ids)
	if err != nil {
		return
	}
	m.setFilter(si, u, f)
}
