package match

import (
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/introsort"
	"github.com/gofluxion/gofluxion/policy"
)

// egroup is one candidate offered to a parent: a child vertex (one edge) or
// a slot (several edges). Scores decide which candidates are chosen.
type egroup struct {
	score  int64
	count  int64
	needs  int64
	excl   bool
	root   bool
	e0, en int32 // edge records m.work.erecs[e0 : e0+en]
}

// erec is an edge of an egroup with the amounts to stamp on it when chosen.
type erec struct {
	count, needs int64
	excl         bool
	edge         graph.EdgeID // -1 for the root's virtual edge
}

// tlist holds the candidates of one (subsystem, type) in a scoring object.
type tlist struct {
	sub         graph.SubsystemID
	typ         graph.TypeID
	g           []egroup
	total, qual int64
	bestI       int
	bestK       int64
}

// scoring is the evaluation object of one vertex (Fluxion's "dfu"): the
// candidates collected below it, keyed by (subsystem, type) in interning
// order, plus the fields a child uses to report its own score upwards.
type scoring struct {
	l       []tlist // l[:n] are live; entries beyond keep their buffers
	n       int
	overall int64
	avail   int64
	hier    bool
}

func (s *scoring) reset() {
	for i := 0; i < s.n; i++ {
		s.l[i].g = s.l[i].g[:0]
	}
	s.n = 0
	s.overall = -1
	s.avail = 0
	s.hier = false
}

// find returns the list for (sub, typ), or nil.
func (s *scoring) find(sub graph.SubsystemID, typ graph.TypeID) *tlist {
	for i := 0; i < s.n; i++ {
		if s.l[i].sub == sub && s.l[i].typ == typ {
			return &s.l[i]
		}
	}
	return nil
}

// list returns the list for (sub, typ), creating an empty one in order.
func (s *scoring) list(sub graph.SubsystemID, typ graph.TypeID) *tlist {
	i := 0
	for ; i < s.n; i++ {
		x := &s.l[i]
		if x.sub == sub && x.typ == typ {
			return x
		}
		if x.sub > sub || (x.sub == sub && x.typ > typ) {
			break
		}
	}
	if s.n == len(s.l) {
		s.l = append(s.l, tlist{})
	}
	// Shift live entries right, rotating the spare buffer into place.
	spare := s.l[s.n].g[:0]
	copy(s.l[i+1:s.n+1], s.l[i:s.n])
	s.l[i] = tlist{sub: sub, typ: typ, g: spare}
	s.n++
	return &s.l[i]
}

func (s *scoring) qualified(sub graph.SubsystemID, typ graph.TypeID) int64 {
	if l := s.find(sub, typ); l != nil {
		return l.qual
	}
	return 0
}

// add appends one egroup to the (sub, typ) list.
func (s *scoring) add(sub graph.SubsystemID, typ graph.TypeID, eg egroup) {
	l := s.list(sub, typ)
	l.g = append(l.g, eg)
	l.total += eg.count
	if eg.score > 0 {
		l.qual += eg.count
	}
}

// merge appends every list of o to s.
func (s *scoring) merge(o *scoring) {
	for i := 0; i < o.n; i++ {
		ol := &o.l[i]
		l := s.list(ol.sub, ol.typ)
		if len(l.g) == 0 {
			// Take the child's buffer instead of copying it: down a chain
			// of pass-through vertices, copies would keep every level's
			// candidates at every level above (memory quadratic in the
			// depth).
			l.g, ol.g = ol.g, l.g[:0]
		} else {
			l.g = append(l.g, ol.g...)
		}
		l.total += ol.total
		l.qual += ol.qual
	}
}

// chooseBestK sorts the list's candidates with order and takes them from
// the front until k units are covered (spec traversal.md §8.2).
func (s *scoring) chooseBestK(sub graph.SubsystemID, typ graph.TypeID, k int64, order policy.Order) bool {
	l := s.find(sub, typ)
	if l == nil || k == 0 || k > l.qual {
		return false
	}
	sortGroups(l.g, order)
	rem := k
	i := 0
	for ; i < len(l.g) && rem > 0; i++ {
		eg := &l.g[i]
		eg.needs = min(rem, eg.count)
		rem -= eg.needs
	}
	l.bestK = k
	l.bestI = i
	s.hier = true
	return true
}

// sortGroups sorts with the exact introsort of spec sort.md, which decides
// ties; the two plain orders get specialised comparators.
func sortGroups(g []egroup, order policy.Order) {
	if len(g) < 2 {
		return
	}
	switch order {
	case policy.Greater:
		introsort.Sort(g, func(a, b *egroup) bool { return a.score > b.score })
	case policy.Less:
		introsort.Sort(g, func(a, b *egroup) bool { return a.score < b.score })
	default:
		introsort.Sort(g, func(a, b *egroup) bool { return order.Before(a.score, b.score) })
	}
}

// scorePool recycles scoring objects; a walk needs one per open vertex.
type scorePool struct{ free []*scoring }

func (p *scorePool) get() *scoring {
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		s.reset()
		return s
	}
	s := &scoring{}
	s.reset()
	return s
}

func (p *scorePool) put(s *scoring) { p.free = append(p.free, s) }
