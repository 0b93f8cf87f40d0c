package match

import (
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Hold is what one job holds on one vertex (see Holds).
type Hold struct {
	Job uint64
	// Own reports that the job booked units of the vertex itself (it took
	// the vertex exclusively, or part of a pool); otherwise it only uses
	// something below the vertex.
	Own bool
	// Units is the number of the vertex's own units booked (0 unless Own).
	Units int64
	// Reserved reports that the vertex's own booking is a reservation
	// (made by allocate_orelse_reserve for a later start).
	Reserved bool
	// Start and End bound the booking, [Start, End) in seconds.
	Start, End int64
}

// Holds appends to dst what each job holds on vertex v, in job id order,
// and returns the extended slice. It only reads the schedule: call it while
// no other operation runs (or on a View while only read-only queries run).
// Pictures and usage reports are built on it.
func (m *Matcher) Holds(v graph.VertexID, dst []Hold) []Hold {
	if v < 0 || int(v) >= m.g.NumVertices() {
		return dst
	}
	recs := m.jobsOf(v)
	for i := range recs.Len() {
		r := recs.At(i)
		h := Hold{Job: r.job}
		span := r.alloc
		if span == 0 && r.resv != 0 {
			span, h.Reserved = r.resv, true
		}
		switch {
		case span != 0:
			s, d, n, err := m.plan(v).SpanInfo(span)
			if err != nil {
				continue
			}
			h.Own, h.Units, h.Start, h.End = true, n, s, s+d
		case r.xspan != 0:
			s, d, _, err := m.xplan(v).SpanInfo(r.xspan)
			if err != nil {
				continue
			}
			h.Start, h.End = s, s+d
		case r.fspan >= 0 && m.filter(0, v).ok():
			s, d, _, err := m.filter(0, v).SpanInfo(r.fspan)
			if err != nil {
				continue
			}
			h.Start, h.End = s, s+d
		default:
			continue
		}
		dst = append(dst, h)
	}
	return dst
}

// DryRun runs a WithoutAllocating or WithoutAllocatingFuture match that
// changes nothing at all. Match with those ops books nothing either, but
// with Options.FluxionQuirks, as in Fluxion, its walk re-keys the dynamic
// child order of the dynamic-order policies (first, firstnodex…), so a
// later match may pick other resources than it would have; DryRun leaves
// the order as it was whatever the options.
// It is not safe on a View: WithoutAllocatingFuture's time search uses the
// root filter's search state.
func (m *Matcher) DryRun(op Op, js *jobspec.Jobspec, at int64, w emit.Writer) (int64, error) {
	if op != WithoutAllocating && op != WithoutAllocatingFuture {
		m.msg.Reset()
		return 0, &Error{Op: "match", Errno: EINVAL, Msg: "dry run of a booking op " + op.String()}
	}
	m.probe = true
	defer func() { m.probe = false }()
	return m.Match(op, js, 0, at, w)
}

// Dominant returns the dominant subsystem: the one matches walk.
func (m *Matcher) Dominant() graph.SubsystemID { return m.dom }

// Feasible reports whether js would be allocated on the graph with
// everything free and up: nil, or an *Error with ENODEV. It is
// Satisfiability plus the update walk's check that the selection takes
// something exclusively: Fluxion's satisfiability op accepts requests such
// as a bare "core: 1" (no slot, nothing exclusive) whose selection emits
// nothing, which every booking op then rejects as busy, forever. It only
// reads the schedule, like Satisfiability.
func (m *Matcher) Feasible(js *jobspec.Jobspec) error {
	m.msg.Reset()
	m.beginOp()
	if js == nil || m.g.Root(m.dom) == graph.NoVertex || len(js.Resources) == 0 {
		return &Error{Op: "match", Errno: EINVAL, Msg: "empty request"}
	}
	c := m.resolve(js)
	if c == nil {
		return &Error{Op: "match", Errno: EINVAL, Msg: "resource tree is nil, too deep or too large"}
	}
	d, ok := Duration(js.Duration)
	if !ok {
		return &Error{Op: "match", Errno: EINVAL, Msg: "bad duration"}
	}
	m.setupMatch(c, js, 0, 0, d)
	m.cur.atype, m.cur.at = atSatisfiability, m.farFuture()
	defer m.resetColors()
	if m.selectAt() != 0 {
		if p := m.shapeProblems(c, js); len(p) > 0 {
			return &Error{Op: "match", Errno: ENODEV, Msg: p[0].Msg}
		}
		return &Error{Op: "match", Errno: ENODEV}
	}
	m.cur.atype = atNone
	m.probe = true
	rc := m.update(emit.Discard, false)
	m.probe = false
	if rc != 0 {
		if p := m.neverBooked(c, js); len(p) > 0 {
			return &Error{Op: "match", Errno: ENODEV, Msg: p[0].Msg}
		}
		return &Error{Op: "match", Errno: ENODEV, Msg: "the selection books nothing (Fluxion selects it but never allocates it)"}
	}
	return nil
}

// bookable reports whether a request tree has a slot or a level marked
// exclusive: without either, and without a policy's exclusive type, a
// selection books nothing.
func bookable(rs []*req) bool {
	for _, r := range rs {
		if r.typ == graph.TypeSlot || r.typ == graph.TypeXorSlot || r.exclusive() || bookable(r.with) {
			return true
		}
	}
	return false
}
