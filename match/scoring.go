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
	// base > 0: the edge records are a recording's, m.memo.edges[e0 :
	// e0+en], relative to the subtree at pre-order position base-1
	// (memo.go); they are only made into erecs where used (erecAt).
	base int32
	// block: the entry stands for the run of replayed candidates
	// m.memo.egs[e0 : e0+en] of the subtree at base-1, whose scores are
	// shifted by score per vertex score they sum; count is their total.
	// Lists holding blocks are expanded where their candidates are read
	// one by one (sorting, slots, captures).
	block bool
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
	blocks      int // block entries in g
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
	ws      *sortScratch // sorting buffers shared by the pool's objects
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
	s.l[i].blocks = 0
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
		l.blocks += ol.blocks
	}
}

// chooseBestK sorts the list's candidates with order and takes them from
// the front until k units are covered (spec traversal.md §8.2). With once
// set the list is not sorted again afterwards, and only the candidates
// taken need to be in their sorted places: the others are left in any
// order.
func (s *scoring) chooseBestK(sub graph.SubsystemID, typ graph.TypeID, k int64, order policy.Order, once bool) bool {
	l := s.find(sub, typ)
	if l == nil || k == 0 || k > l.qual {
		return false
	}
	if l.blocks > 0 {
		s.ws.sortBlocks(l, order, k, once)
	} else {
		prefix := len(l.g)
		if once && k < int64(prefix) {
			// Every candidate counts at least one unit (a vertex with
			// none fails), so at most k are taken.
			prefix = int(k)
			for i := range l.g {
				if l.g[i].count < 1 {
					prefix = len(l.g)
					break
				}
			}
		}
		sortGroups(l.g, order, prefix, s.ws)
	}
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

// sortKey is a candidate's sort key and its index in the list (o: its
// index in a block entry).
type sortKey struct {
	k1, k2 int64
	i, o   int32
}

// sortScratch holds the buffers of sortGroups.
type sortScratch struct {
	keys []sortKey
	tmp  []egroup
	memo *memoState // where block entries point
}

// minKeySort is the list length from which sortGroups sorts keys instead
// of candidates.
const minKeySort = 48

// sortGroups sorts with the exact introsort of spec sort.md, which decides
// ties, until g[:prefix] is in its final order (introsort.Prefix). Long
// lists are sorted as small keys (the score, or the rank of a
// policy.Ranked order) and then permuted: the same comparisons in the same
// order give the same permutation.
func sortGroups(g []egroup, order policy.Order, prefix int, ws *sortScratch) {
	if len(g) < 2 {
		return
	}
	rk, ranked := order.(policy.Ranked)
	if len(g) >= minKeySort && ws != nil && (order == policy.Greater || order == policy.Less || ranked) {
		keys := ws.keys[:0]
		for i := range g {
			k := sortKey{k1: g[i].score, i: int32(i)}
			if ranked {
				k.k1, k.k2 = rk.Rank(g[i].score)
			}
			keys = append(keys, k)
		}
		switch {
		case ranked:
			introsort.Prefix(keys, prefix, func(a, b *sortKey) bool { return a.k1 > b.k1 || (a.k1 == b.k1 && a.k2 > b.k2) })
		case order == policy.Greater:
			introsort.Prefix(keys, prefix, func(a, b *sortKey) bool { return a.k1 > b.k1 })
		default:
			introsort.Prefix(keys, prefix, func(a, b *sortKey) bool { return a.k1 < b.k1 })
		}
		ws.keys = keys
		if prefix <= 32 && prefix < len(g) {
			placePrefix(g, keys[:prefix], ws)
			return
		}
		tmp := ws.tmp[:0]
		for _, k := range keys {
			tmp = append(tmp, g[k.i])
		}
		copy(g, tmp)
		ws.tmp = tmp
		return
	}
	switch order {
	case policy.Greater:
		introsort.Prefix(g, prefix, func(a, b *egroup) bool { return a.score > b.score })
	case policy.Less:
		introsort.Prefix(g, prefix, func(a, b *egroup) bool { return a.score < b.score })
	default:
		introsort.Prefix(g, prefix, func(a, b *egroup) bool { return order.Before(a.score, b.score) })
	}
}

// placePrefix moves the candidates keys names into g[:len(keys)], in that
// order, and the candidates they displace into the places they left (in
// time quadratic in the few keys rather than linear in g).
func placePrefix(g []egroup, keys []sortKey, ws *sortScratch) {
	k := len(keys)
	tmp := ws.tmp[:0]
	for _, x := range keys {
		tmp = append(tmp, g[x.i])
	}
	// Candidates of g[:k] that are not taken go where taken ones were.
	free := 0
	for _, x := range keys {
		if int(x.i) < k {
			continue
		}
		for ; ; free++ {
			taken := false
			for _, y := range keys {
				if int(y.i) == free {
					taken = true
					break
				}
			}
			if !taken {
				break
			}
		}
		g[x.i] = g[free]
		free++
	}
	copy(g, tmp)
	ws.tmp = tmp
}

// blockAt returns candidate o of block entry b.
func (c *memoState) blockAt(b *egroup, o int32) egroup {
	me := &c.egs[b.e0+o]
	return egroup{score: me.score + int64(me.edges.n)*b.score, count: me.count, needs: me.needs, excl: me.excl, e0: me.edges.i, en: me.edges.n, base: b.base}
}

// expand replaces l's block entries by their candidates, in place.
func (ws *sortScratch) expand(l *tlist) {
	if l.blocks == 0 {
		return
	}
	tmp := ws.tmp[:0]
	for i := range l.g {
		b := &l.g[i]
		if !b.block {
			tmp = append(tmp, *b)
			continue
		}
		for o := int32(0); o < b.en; o++ {
			tmp = append(tmp, ws.memo.blockAt(b, o))
		}
	}
	l.g = append(l.g[:0], tmp...)
	ws.tmp = tmp
	l.blocks = 0
}

// sortBlocks is sortGroups for a list holding block entries: their
// candidates are sorted as keys in place without being built, and only
// the ones that end up in front are. With once, the list keeps only the
// candidates that can be taken (nothing reads the others).
func (ws *sortScratch) sortBlocks(l *tlist, order policy.Order, k int64, once bool) {
	rk, ranked := order.(policy.Ranked)
	if !ranked && order != policy.Greater && order != policy.Less {
		ws.expand(l)
		sortGroups(l.g, order, len(l.g), ws)
		return
	}
	keys := ws.keys[:0]
	countOK := true
	key := func(score int64, i, o int32) sortKey {
		x := sortKey{k1: score, i: i, o: o}
		if ranked {
			x.k1, x.k2 = rk.Rank(score)
		}
		return x
	}
	for i := range l.g {
		b := &l.g[i]
		if !b.block {
			keys = append(keys, key(b.score, int32(i), -1))
			countOK = countOK && b.count >= 1
			continue
		}
		for o := int32(0); o < b.en; o++ {
			me := &ws.memo.egs[b.e0+o]
			keys = append(keys, key(me.score+int64(me.edges.n)*b.score, int32(i), o))
			countOK = countOK && me.count >= 1
		}
	}
	prefix := len(keys)
	if once && countOK && k < int64(prefix) {
		prefix = int(k)
	}
	switch {
	case ranked:
		introsort.Prefix(keys, prefix, func(a, b *sortKey) bool { return a.k1 > b.k1 || (a.k1 == b.k1 && a.k2 > b.k2) })
	case order == policy.Greater:
		introsort.Prefix(keys, prefix, func(a, b *sortKey) bool { return a.k1 > b.k1 })
	default:
		introsort.Prefix(keys, prefix, func(a, b *sortKey) bool { return a.k1 < b.k1 })
	}
	n := len(keys)
	if once {
		n = prefix
	}
	tmp := ws.tmp[:0]
	for _, x := range keys[:n] {
		if x.o < 0 {
			tmp = append(tmp, l.g[x.i])
		} else {
			tmp = append(tmp, ws.memo.blockAt(&l.g[x.i], x.o))
		}
	}
	l.g = append(l.g[:0], tmp...)
	ws.keys, ws.tmp = keys, tmp
	l.blocks = 0
}

// scorePool recycles scoring objects; a walk needs one per open vertex.
type scorePool struct {
	free []*scoring
	ws   sortScratch
}

func (p *scorePool) get() *scoring {
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		s.reset()
		return s
	}
	s := &scoring{ws: &p.ws}
	s.reset()
	return s
}

func (p *scorePool) put(s *scoring) { p.free = append(p.free, s) }
