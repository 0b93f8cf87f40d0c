package match

import (
	"fmt"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// A shape problem is a request whose levels do not follow the graph's
// containment, so Fluxion never allocates it whatever is free. The test
// step (spec traversal.md §4.2) matches a request's children only among a
// vertex's direct children, and a slot at the first vertex that directly
// contains all of its children's types; and only the root connects
// candidates merged up from deeper levels (§8.5), so a slot that applies
// one level below its parent resource is selected but never booked (§9).
// These rules are read off the graph's type structure: which types have
// which types as direct children in the dominant subsystem.

// ShapeProblem is one level of a request that the graph's shape keeps from
// ever being allocated: Level is its index in depth-first order (the order
// of Explanation.Levels) and Msg says why and which shape would work here.
type ShapeProblem struct {
	Level int
	Msg   string
}

// typeShape is the graph's containment between types.
type typeShape struct {
	g     *graph.Graph
	exist []bool
	// direct[p] lists the types that vertices of type p have as direct
	// children (dominant subsystem for containment, any subsystem for
	// "slot applies", as in the test step).
	direct, anyDirect [][]graph.TypeID
	// parents[c] lists the types of c's parents (dominant subsystem).
	parents [][]graph.TypeID
}

func (m *Matcher) typeShape() *typeShape {
	if m.shapeOf != nil && m.shapeG == m.g && m.shapeGen == m.g.Gen() && len(m.shapeOf.exist) == m.g.Types.Len() {
		return m.shapeOf
	}
	s := m.buildTypeShape()
	m.shapeOf, m.shapeG, m.shapeGen = s, m.g, m.g.Gen()
	return s
}

func (m *Matcher) buildTypeShape() *typeShape {
	nt := m.g.Types.Len()
	s := &typeShape{g: m.g, exist: make([]bool, nt), direct: make([][]graph.TypeID, nt),
		anyDirect: make([][]graph.TypeID, nt), parents: make([][]graph.TypeID, nt)}
	add := func(l []graph.TypeID, t graph.TypeID) []graph.TypeID {
		for _, x := range l {
			if x == t {
				return l
			}
		}
		return append(l, t)
	}
	for t := 0; t < nt; t++ {
		for _, v := range m.g.ByType(graph.TypeID(t)) {
			s.exist[t] = true
			for _, h := range m.g.Out(v) {
				ct := m.g.V(h.Other).Type
				if ct < 0 || int(ct) >= nt {
					continue
				}
				s.anyDirect[t] = add(s.anyDirect[t], ct)
				if h.Subsystem == m.dom {
					s.direct[t] = add(s.direct[t], ct)
					s.parents[ct] = add(s.parents[ct], graph.TypeID(t))
				}
			}
		}
	}
	return s
}

func (s *typeShape) has(t graph.TypeID) bool { return t >= 0 && int(t) < len(s.exist) && s.exist[t] }

func (s *typeShape) contains(l []graph.TypeID, t graph.TypeID) bool {
	for _, x := range l {
		if x == t {
			return true
		}
	}
	return false
}

// holdsAll reports whether vertices of type p have direct children of every
// type in ts (in any subsystem: where a slot applies).
func (s *typeShape) holdsAll(p graph.TypeID, ts []graph.TypeID) bool {
	if p < 0 || int(p) >= len(s.anyDirect) {
		return false
	}
	for _, t := range ts {
		if !s.contains(s.anyDirect[p], t) {
			return false
		}
	}
	return true
}

// chain returns the shortest chain of types from a down to b in the
// dominant subsystem ("node→socket→core"), or nil.
func (s *typeShape) chain(a, b graph.TypeID) []graph.TypeID {
	if !s.has(a) || !s.has(b) {
		return nil
	}
	prev := make([]graph.TypeID, len(s.exist))
	for i := range prev {
		prev[i] = -2
	}
	prev[a] = -1
	q := []graph.TypeID{a}
	for len(q) > 0 {
		t := q[0]
		q = q[1:]
		if t == b && t != a {
			break
		}
		for _, c := range s.direct[t] {
			if prev[c] == -2 {
				prev[c] = t
				q = append(q, c)
			}
		}
	}
	if b == a || prev[b] == -2 {
		return nil
	}
	var out []graph.TypeID
	for t := b; t != -1; t = prev[t] {
		out = append([]graph.TypeID{t}, out...)
	}
	return out
}

func (s *typeShape) name(t graph.TypeID) string { return s.g.Types.Name(int32(t)) }

func (s *typeShape) names(ts []graph.TypeID) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = s.name(t)
	}
	return strings.Join(out, "→")
}

// where says which types t sits under ("socket", "socket or node").
func (s *typeShape) where(t graph.TypeID) string {
	if !s.has(t) || len(s.parents[t]) == 0 {
		return "nothing (it is a root)"
	}
	out := make([]string, len(s.parents[t]))
	for i, p := range s.parents[t] {
		out[i] = s.name(p)
	}
	return strings.Join(out, " or ")
}

// known lists the graph's types, for the message about an unknown one.
func (s *typeShape) known() string {
	var out []string
	for t, ok := range s.exist {
		if ok && t != int(graph.TypeSlot) && t != int(graph.TypeXorSlot) {
			out = append(out, s.name(graph.TypeID(t)))
		}
	}
	return strings.Join(out, ", ")
}

// ShapeProblems returns the levels of js that the graph's shape keeps from
// ever being allocated under the matcher's policy, with why and what
// would work, in depth-first order; nil when the shape is fine (the
// request may still be too big). It only reads the graph.
func (m *Matcher) ShapeProblems(js *jobspec.Jobspec) []ShapeProblem {
	m.msg.Reset()
	m.beginOp()
	if js == nil || len(js.Resources) == 0 {
		return nil
	}
	c := m.resolve(js)
	if c == nil {
		return nil
	}
	m.resetExcl(c.excl)
	return m.shapeProblems(c, js)
}

// shapeProblems needs setupMatch (or resetExcl) done for js, for the
// exclusive types, and names the levels as js does (an unknown type
// resolves to no type number).
func (m *Matcher) shapeProblems(c *reqCache, js *jobspec.Jobspec) []ShapeProblem {
	s := m.typeShape()
	d := &shapeDiag{m: m, s: s}
	d.top(c.top, js.Resources)
	if len(d.out) > 0 && m.booksNothing(c.top) {
		// Fixing the levels alone would leave a request that books nothing
		// (node→socket→core without a slot): say both at once.
		for i := range d.out {
			d.out[i].Msg += "; and put the request in a slot (or mark a level exclusive): as written it takes nothing exclusively"
		}
	}
	return d.out
}

// booksNothing reports a request tree with no slot, no level marked
// exclusive and no type the policy books whole.
func (m *Matcher) booksNothing(rs []*req) bool {
	for _, r := range rs {
		if r.typ == graph.TypeSlot || r.typ == graph.TypeXorSlot || r.exclusive() || m.isExclType(r.typ) || !m.booksNothing(r.with) {
			return false
		}
	}
	return true
}

// nothingBooked is the problem of a request that is selected but takes
// nothing exclusively (no slot, nothing marked exclusive), so Fluxion
// books nothing for it and fails, forever (spec traversal.md §9).
var nothingBooked = ShapeProblem{Level: 0, Msg: "the request takes nothing exclusively, so nothing would be booked: put it in a slot or mark a level exclusive"}

// neverBooked explains a request whose selection succeeds on a free graph
// but books nothing: its shape problems, or nothingBooked, or nil.
func (m *Matcher) neverBooked(c *reqCache, js *jobspec.Jobspec) []ShapeProblem {
	if p := m.shapeProblems(c, js); len(p) > 0 {
		return p
	}
	if !bookable(c.top) {
		return []ShapeProblem{nothingBooked}
	}
	return nil
}

type shapeDiag struct {
	m   *Matcher
	s   *typeShape
	idx int // depth-first index of the next level
	out []ShapeProblem
}

func (d *shapeDiag) add(i int, format string, args ...any) {
	d.out = append(d.out, ShapeProblem{Level: i, Msg: fmt.Sprintf(format, args...)})
}

// skip advances the index over a subtree that was not checked.
func (d *shapeDiag) skip(rs []*req) {
	for _, r := range rs {
		d.idx++
		d.skip(r.with)
	}
}

// unknown reports a level whose type the graph lacks; true if it did.
func (d *shapeDiag) unknown(i int, r *req, jr *jobspec.Resource) bool {
	if r.typ == graph.TypeSlot || r.typ == graph.TypeXorSlot || d.s.has(r.typ) {
		return false
	}
	d.add(i, "the graph has no vertex of type %q (its types: %s)", jr.Type, d.s.known())
	return true
}

// top checks the top-level requests: matched anywhere below the root.
func (d *shapeDiag) top(rs []*req, js []*jobspec.Resource) {
	if mixedSlots(rs) {
		return
	}
	for k, r := range rs {
		i := d.idx
		d.idx++
		switch {
		case d.unknown(i, r, js[k]):
			d.skip(r.with)
		case r.typ == graph.TypeSlot:
			d.slotAnywhere(i, r, js[k])
		default:
			d.below(r, js[k], d.m.isExclType(r.typ) || r.exclusive() || d.underExclType(r.typ))
		}
	}
}

// underExclType reports whether a type of the policy's exclusive types
// (node under the node-exclusive policies) sits above t: a top-level
// request below it is then booked inside a whole vertex of that type, so
// its slots are booked wherever they apply. Any path counts, so the
// diagnosis stays silent rather than blame a shape that may work.
func (d *shapeDiag) underExclType(t graph.TypeID) bool {
	s := d.s
	if !s.has(t) {
		return false
	}
	seen := make([]bool, len(s.exist))
	q := []graph.TypeID{t}
	seen[t] = true
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		for _, p := range s.parents[u] {
			if seen[p] {
				continue
			}
			if d.m.isExclType(p) {
				return true
			}
			seen[p] = true
			q = append(q, p)
		}
	}
	return false
}

// slotAnywhere checks a top-level slot: it applies at the first vertex on
// each path that directly holds all its children's types.
func (d *shapeDiag) slotAnywhere(i int, r *req, jr *jobspec.Resource) {
	for p := range d.s.exist {
		if d.s.has(graph.TypeID(p)) && len(r.childTypes) > 0 && d.s.holdsAll(graph.TypeID(p), r.childTypes) {
			d.children(graph.TypeID(p), r, jr, true)
			return
		}
	}
	if d.unknownChildren(r, jr) {
		return
	}
	d.add(i, "no vertex in this graph has %s directly below it, so the slot never fits: put each in a slot of its own parent (%s)",
		d.list(r.childTypes, " and "), d.parentsOf(r.childTypes))
	d.skip(r.with)
}

// unknownChildren reports the unknown types among a slot's children (the
// real cause when a slot applies nowhere); true if there were any.
func (d *shapeDiag) unknownChildren(r *req, jr *jobspec.Resource) bool {
	i := d.idx
	found := false
	for k, c := range r.with {
		if d.unknown(i, c, jr.With[k]) {
			found = true
		}
		i += 1 + count(c.with)
	}
	if found {
		d.skip(r.with)
	}
	return found
}

func count(rs []*req) int {
	n := 0
	for _, r := range rs {
		n += 1 + count(r.with)
	}
	return n
}

func (d *shapeDiag) list(ts []graph.TypeID, sep string) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = d.s.name(t)
	}
	return strings.Join(out, sep)
}

func (d *shapeDiag) parentsOf(ts []graph.TypeID) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = d.s.name(t) + " sits under " + d.s.where(t)
	}
	return strings.Join(out, "; ")
}

// below checks the children of a resource r of type r.typ (excl: r's
// vertices are booked whole, so selection stamps below do not matter).
func (d *shapeDiag) below(r *req, jr *jobspec.Resource, excl bool) {
	d.children(r.typ, r, jr, excl)
}

// children checks r.with, matched among the direct children of vertices of
// type at (for a slot: the vertex where it applies).
func (d *shapeDiag) children(at graph.TypeID, r *req, jr *jobspec.Resource, excl bool) {
	s := d.s
	if mixedSlots(r.with) {
		d.skip(r.with)
		return
	}
	for k, c := range r.with {
		jc := jr.With[k]
		i := d.idx
		d.idx++
		if d.unknown(i, c, jc) {
			d.skip(c.with)
			continue
		}
		if c.typ != graph.TypeSlot {
			if !s.contains(s.direct[at], c.typ) {
				d.notDirect(i, at, c)
				d.skip(c.with)
				continue
			}
			d.below(c, jc, excl || d.m.isExclType(c.typ) || c.exclusive())
			continue
		}
		// A slot child: it applies at the parent's vertex when that holds all
		// the slot's types directly, else it is tried at the parent's
		// children (and is never booked from there), else nowhere.
		if len(c.childTypes) == 0 || s.holdsAll(at, c.childTypes) {
			d.children(at, c, jc, true)
			continue
		}
		var deeper graph.TypeID = -1
		for _, p := range s.direct[at] {
			if s.holdsAll(p, c.childTypes) {
				deeper = p
				break
			}
		}
		if deeper < 0 {
			if d.unknownChildren(c, jc) {
				continue
			}
			d.add(i, "no %s in this graph has %s directly below it, nor one level down, so the slot never fits (%s): ask %s",
				s.name(at), d.list(c.childTypes, " and "), d.parentsOf(c.childTypes), d.fix(at, c))
			d.skip(c.with)
			continue
		}
		if excl {
			d.children(deeper, c, jc, true)
			continue
		}
		verb := "sits"
		if len(c.childTypes) > 1 {
			verb = "sit"
		}
		// Both other fixes take each vertex of type at whole (a slot books
		// everything in it exclusively), which the message must say.
		d.add(i, "%s %s under %s here, not directly under %s, so a slot in a %s is selected but never allocated: ask %s→slot→%s→%s, or take each %s whole (mark it exclusive, or put the slot above it: slot→%s→%s→%s)",
			d.list(c.childTypes, " and "), verb, s.name(deeper), s.name(at), s.name(at),
			s.name(at), s.name(deeper), d.list(c.childTypes, "+"),
			s.name(at), s.name(at), s.name(deeper), d.list(c.childTypes, "+"))
		d.skip(c.with)
	}
}

// fix suggests a chain from at to each of the slot's types.
func (d *shapeDiag) fix(at graph.TypeID, slot *req) string {
	var out []string
	for _, t := range slot.childTypes {
		if ch := d.s.chain(at, t); ch != nil {
			out = append(out, d.s.names(ch))
		} else {
			out = append(out, fmt.Sprintf("for %s where it exists (under %s)", d.s.name(t), d.s.where(t)))
		}
	}
	return strings.Join(out, " and ")
}

// notDirect reports a resource c asked directly below a resource of type at
// whose vertices do not directly contain c's type.
func (d *shapeDiag) notDirect(i int, at graph.TypeID, c *req) {
	s := d.s
	if ch := s.chain(at, c.typ); ch != nil {
		d.add(i, "%s sits under %s here, not directly under %s: ask %s, naming every level between",
			s.name(c.typ), s.where(c.typ), s.name(at), s.names(ch))
		return
	}
	d.add(i, "no %s in this graph has a %s below it (%s sits under %s)", s.name(at), s.name(c.typ), s.name(c.typ), s.where(c.typ))
}

// mixedSlots reports a list with a slot beside other requests: the test
// step then matches only part of the list (the last slot, or the others),
// which the diagnosis does not model, so it says nothing about it.
// A list that repeats a type is not modelled either: the traversers
// count such siblings together (the flexible one matched
// {socket[1], socket[1]→socket[1]} in a slot, which a socket→socket
// shape rule would blame).
func mixedSlots(rs []*req) bool {
	if len(rs) < 2 {
		return false
	}
	for i, r := range rs {
		if r.typ == graph.TypeSlot || r.typ == graph.TypeXorSlot {
			return true
		}
		for _, o := range rs[:i] {
			if o.typ == r.typ {
				return true
			}
		}
	}
	return false
}
