package match

import (
	"math"
	"slices"
	"strconv"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Op is a match operation.
type Op int

const (
	// Allocate allocates now or fails.
	Allocate Op = iota
	// AllocateOrElseReserve allocates now, else reserves at the earliest
	// future time the request fits.
	AllocateOrElseReserve
	// AllocateWithSatisfiability allocates now; on failure it tells busy
	// (ErrBusy) from never satisfiable (ErrUnsatisfiable).
	AllocateWithSatisfiability
	// Satisfiability only checks whether the request could ever fit.
	Satisfiability
	// WithoutAllocating finds resources now without booking them.
	WithoutAllocating
	// WithoutAllocatingFuture finds resources now or later without booking.
	WithoutAllocatingFuture
)

var opNames = []string{"allocate", "allocate_orelse_reserve", "allocate_with_satisfiability", "satisfiability", "without_allocating", "without_allocating_future"}

func (o Op) String() string {
	if o < 0 || int(o) >= len(opNames) {
		return "unknown"
	}
	return opNames[o]
}

// ParseOp returns the Op named s (resource-query's spelling).
func ParseOp(s string) (Op, bool) {
	for i, n := range opNames {
		if n == s {
			return Op(i), true
		}
	}
	return 0, false
}

// Books reports whether a successful match of this op is recorded as a job.
func (o Op) Books() bool {
	return o == Allocate || o == AllocateOrElseReserve || o == AllocateWithSatisfiability
}

// Duration converts a jobspec duration to booked seconds: 0 means the whole
// graph window, fractions round up (spec jobspec.md §4.1).
func Duration(d float64) (int64, bool) {
	g := GraphEnd
	if g <= 0 || math.IsNaN(d) || d < 0 || d > float64(g) || d > float64(math.MaxInt64-1) {
		return 0, false
	}
	if d == 0 {
		return g, true
	}
	return int64(math.Ceil(d)), true
}

// Match runs op for js as job jobid at time at (resource-query passes 0)
// and emits the selection to w. It returns the start time of the
// allocation or reservation. Errors are *Error; use errors.Is with ErrBusy,
// ErrUnsatisfiable or ErrInvalid. A failed match leaves the schedule as it
// was.
func (m *Matcher) Match(op Op, js *jobspec.Jobspec, jobid uint64, at int64, w emit.Writer) (int64, error) {
	m.msg.Reset()
	m.beginOp()
	if op < Allocate || op > WithoutAllocatingFuture {
		return 0, &Error{Op: "match", Errno: EINVAL, Msg: "invalid match op " + strconv.Itoa(int(op))}
	}
	if op.Books() && m.holds(jobid) {
		return 0, m.jobExists("match", jobid)
	}
	rc := m.run(op, js, jobid, at, w)
	if m.counted.ok {
		m.preTotal, m.postTotal = m.counted.pre, m.counted.post
		m.counted.ok = false
	}
	if rc != 0 {
		return 0, m.opError("match")
	}
	if op == Satisfiability {
		return at, nil
	}
	return m.cur.at, nil
}

// holds reports whether booking jobid would mix two bookings under one id:
// the job holds something already. Fluxion books again and loses track of
// the first booking's spans (resource-query reuses the id of a match whose
// output could not be rendered); so does the matcher with FluxionFailures.
func (m *Matcher) holds(jobid uint64) bool {
	if m.opts.FluxionFailures {
		return false
	}
	root := m.g.Root(m.dom)
	return root != graph.NoVertex && m.hasJob(root, jobid)
}

func (m *Matcher) jobExists(op string, jobid uint64) *Error {
	return &Error{Op: op, Errno: EEXIST, Msg: op + ": job " + strconv.FormatUint(jobid, 10) + " already holds resources.\n"}
}

// beginOp clears the errno unless Fluxion's errno emulation is on.
func (m *Matcher) beginOp() {
	if !m.emulate {
		m.errno = 0
	}
}

// opError builds the error of a failed operation. Outside emulation, a
// failure that set no errno is reported as EBUSY (Fluxion's usual value).
func (m *Matcher) opError(op string) *Error {
	e := m.errno
	if !m.emulate && e == 0 {
		e = EBUSY
	}
	return &Error{Op: op, Errno: e, Msg: m.msg.String()}
}

// Visits returns the pre-order and post-order visit counts of the last
// operation, as resource-query's -e prints them.
func (m *Matcher) Visits() (pre, post int64) { return m.preTotal, m.postTotal }

// CountVisits returns the visit counts Fluxion reports for Match(op, js,
// jobid, at) in the current state, as Visits will return them after that
// Match, without booking or emitting anything. They count the vertices of
// Fluxion's exhaustive walk; Match itself walks best-first where the
// policy allows it and then visits fewer, so resource-query calls this
// before every match whose counts it prints (-e). Visits after the next
// Match returns these counts. Call it before every match or before none:
// the counts of a failing request can carry over from the previous walk
// (as Fluxion's do), and a walk that was not counted leaves best-first
// counts, not Fluxion's.
func (m *Matcher) CountVisits(op Op, js *jobspec.Jobspec, jobid uint64, at int64) (pre, post int64) {
	errno, emulate := m.errno, m.emulate
	p0, q0 := m.preTotal, m.postTotal
	m.msg.Reset()
	m.beginOp()
	m.exhaustive, m.dry = true, true
	m.run(op, js, jobid, at, nil)
	m.exhaustive, m.dry = false, false
	pre, post = m.preTotal, m.postTotal
	m.preTotal, m.postTotal = p0, q0
	m.counted = visitCounts{pre, post, true}
	m.errno, m.emulate = errno, emulate
	m.msg.Reset()
	return pre, post
}

// visitCounts are counts CountVisits computed for the next Match.
type visitCounts struct {
	pre, post int64
	ok        bool
}

// run runs one match operation. A best-first selection that the update
// walk finds empty fails with whatever errno the walk left behind, which
// only the reference walk knows: such an operation is run again with it.
func (m *Matcher) run(op Op, js *jobspec.Jobspec, jobid uint64, at int64, w emit.Writer) int {
	errno := m.errno
	m.bestUsed = false
	m.orOver = false
	rc := m.runOnce(op, js, jobid, at, w)
	if rc != 0 && m.bestUsed && m.emptyUpdate && !m.exhaustive && !m.errnoKnown() {
		m.errno = errno
		m.msg.Reset()
		m.exhaustive = true
		rc = m.runOnce(op, js, jobid, at, w)
		m.exhaustive = false
	}
	if rc != 0 && m.orOver {
		m.errno = EOVERFLOW
	}
	return rc
}

// errnoKnown reports whether, after a best-first selection whose update
// found nothing to book, m.errno is the one the reference walk would have
// left. Over a clean request and graph every failure in a walk sets
// EBUSY, and the best-first walk sets it wherever the reference would
// have had one (it visits a subset of the reference's vertices, and
// witnessOther covers the children it skips for their type); a walk that
// set nothing may still differ from the reference, which visits more.
// Outside Fluxion's errno emulation an unset errno is reported as EBUSY
// too.
func (m *Matcher) errnoKnown() bool {
	if !m.best.cleanGraph || !m.reqc.clean {
		return false
	}
	return m.errno == EBUSY || (!m.emulate && m.errno == 0)
}

func (m *Matcher) runOnce(op Op, js *jobspec.Jobspec, jobid uint64, at int64, w emit.Writer) int {
	m.emptyUpdate = false
	root := m.g.Root(m.dom)
	if js == nil || root == graph.NoVertex || len(js.Resources) == 0 {
		m.errno = EINVAL
		return -1
	}
	c := m.resolve(js)
	if c == nil {
		m.errno = EINVAL
		m.msg.WriteString("jobspec: resource tree is nil, too deep or too large\n")
		return -1
	}
	d, ok := Duration(js.Duration)
	if !ok {
		if m.opts.FluxionQuirks {
			// Fluxion adds the jobspec's exclusive types to the policy's
			// before it checks the duration, and the early return skips
			// their removal: they stay exclusive for every later match.
			m.keepExclusive(c.excl)
		}
		m.errno = EINVAL
		return -1
	}
	m.setupMatch(c, js, jobid, at, d)
	if op == WithoutAllocating || op == WithoutAllocatingFuture {
		m.cur.atype = atNone
	}
	if op == Satisfiability {
		m.cur.atype = atSatisfiability
		m.cur.at = m.farFuture()
		rc := m.selectAt()
		m.preTotal, m.postTotal = m.pre, m.post
		if rc != 0 && (m.errno == EBUSY || m.errno == ERANGE) {
			m.errno = ENODEV
		}
		m.resetColors()
		return rc
	}
	if m.scheduleOp(op) != 0 {
		return -1
	}
	if m.cur.at == GraphEnd {
		m.errno = EBUSY
		return -1
	}
	if m.cur.at < 0 || m.cur.at > GraphEnd {
		m.errno = EINVAL
		return -1
	}
	if m.cur.at+m.cur.duration > GraphEnd {
		m.cur.duration = GraphEnd - m.cur.at
	}
	if m.dry {
		return 0
	}
	rc := m.update(w, true)
	m.emptyUpdate = rc != 0
	return rc
}

// setupMatch prepares the per-match context: exclusive types (the
// policy's plus the jobspec's), times, constraint and queue.
func (m *Matcher) setupMatch(c *reqCache, js *jobspec.Jobspec, jobid uint64, at, d int64) {
	m.resetExcl(c.excl)
	m.cur.jobid = jobid
	m.cur.at, m.cur.now = at, at
	m.cur.duration = d
	m.cur.atype = atAlloc
	m.cur.fromR = false
	m.cur.cons = js.Constraint
	m.cur.queue = js.Queue
	m.cur.top = c.top
	m.cur.orig = c.top
	m.cur.dfv = c.dfv
}

// keepExclusive adds types to the policy's exclusive types for good.
func (m *Matcher) keepExclusive(types []graph.TypeID) {
	for _, t := range types {
		if t >= 0 && !slices.Contains(m.polExcl, t) {
			m.polExcl = append(m.polExcl, t)
		}
	}
}

// resetExcl sets the exclusive resource types of the current operation:
// the policy's (node for node-exclusive policies) plus extra.
func (m *Matcher) resetExcl(extra []graph.TypeID) {
	nt := m.g.Types.Len()
	if cap(m.cur.excl) < nt {
		m.cur.excl = make([]bool, nt)
	}
	m.cur.excl = m.cur.excl[:nt]
	clear(m.cur.excl)
	for _, t := range m.polExcl {
		m.cur.excl[t] = true
	}
	for _, t := range extra {
		if t >= 0 {
			m.cur.excl[t] = true
		}
	}
}

// farFuture is the start time of satisfiability probes: everything is free
// there unless booked until the end of time.
func (m *Matcher) farFuture() int64 {
	return math.MaxInt64 - m.cur.duration - 1
}

// scheduleOp tries now, then per op a reservation search or a satisfiability
// probe (spec traversal.md §10).
func (m *Matcher) scheduleOp(op Op) int {
	if !m.feasible(op) {
		return -1
	}
	rc := m.selectAt()
	if rc == 0 {
		m.preTotal, m.postTotal = m.pre, m.post
		return 0
	}
	switch op {
	case Allocate, WithoutAllocating:
		m.errno = EBUSY
	case AllocateWithSatisfiability:
		m.errno = EBUSY
		m.cur.atype = atSatisfiability
		m.cur.at = m.farFuture()
		rc = m.selectAt()
		m.preTotal += m.pre
		m.postTotal += m.post
		if rc != 0 && (m.errno == EBUSY || m.errno == ERANGE) {
			m.errno = ENODEV
		}
		m.resetColors()
		return -1
	case AllocateOrElseReserve, WithoutAllocatingFuture:
		if op == AllocateOrElseReserve {
			m.cur.atype = atOrElseReserve
		}
		root := m.g.Root(m.dom)
		f := m.wfilter(0, root)
		perr := ENOENT
		if f != nil {
			counts := make([]int64, f.Len())
			for i := range counts {
				counts[i], _ = m.cur.dfv.get(graph.TypeID(f.Type(i)))
			}
			t, err := f.AvailTimeFirst(m.cur.now+1, m.cur.duration, counts)
			for err == nil && rc != 0 {
				m.cur.at = t
				rc = m.selectAt()
				m.preTotal += m.pre
				m.postTotal += m.post
				if rc == 0 {
					// Fluxion advances the candidate iterator once more
					// after the successful attempt; running out leaves
					// ENOENT in errno.
					if _, nerr := f.AvailTimeNext(); nerr != nil {
						m.errno = plannerErrno(nerr)
					}
				}
				if rc != 0 {
					t, err = f.AvailTimeNext()
				}
			}
			if rc == 0 {
				return 0
			}
			perr = plannerErrno(err)
		}
		if perr == ENOENT || perr == ERANGE {
			m.errno = EBUSY
			m.cur.atype = atSatisfiability
			m.cur.at = m.farFuture()
			if m.selectAt() != 0 && (m.errno == EBUSY || m.errno == ERANGE) {
				m.errno = ENODEV
			}
			m.resetColors()
		} else {
			m.preTotal += m.pre
			m.postTotal += m.post
		}
		return -1
	}
	return -1
}

// feasible is the quick node-count pre-check (spec traversal.md §10.1).
func (m *Matcher) feasible(op Op) bool {
	n := int64(0)
	if m.prune[0].has(graph.TypeNode) {
		n, _ = m.cur.dfv.get(graph.TypeNode)
	}
	fail := func() bool {
		if op == AllocateWithSatisfiability {
			m.errno = ENODEV
		} else {
			m.errno = EBUSY
		}
		return false
	}
	if m.cur.cons == nil && n <= m.nodesUp {
		return true
	}
	if n > m.nodesUp {
		return fail()
	}
	nodes := m.g.ByType(graph.TypeNode)
	if nodes == nil {
		return true
	}
	t := GraphEnd - 1
	if op == Allocate || op == WithoutAllocating {
		t = m.cur.at
	}
	found := int64(0)
	for _, v := range nodes {
		if found >= n {
			break
		}
		vx := m.g.V(v)
		if !m.cur.cons.Match(vx.Name, vx.Rank, func(k string) bool { _, ok := vx.Prop(k); return ok }) {
			continue
		}
		if op != AllocateWithSatisfiability && vx.Status != graph.StatusUp {
			continue
		}
		if a, err := m.plan(v).AvailDuring(t, m.cur.duration); err != nil || a != 1 {
			continue
		}
		found++
	}
	if found < n {
		return fail()
	}
	return true
}
