package graph

import (
	"hash/maphash"
	"slices"
)

// pathIndex is the path index (byPath of spec model.md §4): path string →
// vertices, in insertion order. A map from strings to lists cost about 100
// bytes a vertex; here the common key, a vertex's first path held by that
// vertex alone, is one slot of an open-addressing table of vertex ids
// (its key is read back from the vertex), about 16 bytes a vertex. Every
// other key (held by several vertices, a vertex's second path, or a path
// a vertex no longer has: AddPath keeps old keys, as Fluxion does) lives
// in an ordinary map. A key is in one of the two, never both.
//
// A slot is two words of one array, its tag then its vertex id, so that
// a probe and the insert after it touch one cache line, not two.
// Table slots are written once per table: deleted slots are only marked,
// so the one-element slices ByPath returns into the table never change
// (growing the table allocates a new one).
type pathIndex struct {
	seed maphash.Seed
	// slot i: tab[2i] the tag (0 empty, 1 deleted, else tagOf(hash), as
	// an int32), tab[2i+1] the vertex
	tab   []VertexID
	used  int // slots not empty
	live  int // slots holding a key
	multi map[string][]VertexID
	// stamp changes whenever the index does: a PathHint is only used if
	// it has not changed since the lookup that made it.
	stamp uint64
}

// PathHint is what ByPathHint learnt about a path for AddVertexHinted,
// which then indexes the path without hashing or probing it again,
// provided the path index has not changed in between. The zero value
// is no hint.
type PathHint struct {
	x     *pathIndex // the index looked up (nil: no hint)
	path  string     // the path looked up: a hint for another path is ignored
	hash  uint64
	stamp uint64 // x.stamp at the lookup
	slot  int32  // the empty slot the probe ended at, -1 when p was found
}

func newPathIndex() pathIndex {
	return pathIndex{seed: maphash.MakeSeed(), multi: make(map[string][]VertexID)}
}

func tagOf(h uint64) VertexID { return VertexID(uint32(h>>32) | 2) }

func (x *pathIndex) slots() int { return len(x.tab) / 2 }

// key returns the key a table entry for v stands for: v's first path.
func (g *Graph) pathKey(v VertexID) (string, bool) {
	if ps := g.vertices[v].Paths; len(ps) > 0 {
		return ps[0].Path, true
	}
	return "", false
}

// findSingle returns the table slot holding key p, or -1.
func (g *Graph) findSingle(p string, h uint64) int {
	i, _ := g.probe(p, h)
	return i
}

// probe returns the table slot holding key p, or -1 and the empty slot
// the search ended at (where insertSingle would put p; -1 if the table
// has none).
func (g *Graph) probe(p string, h uint64) (at, free int) {
	x := &g.pidx
	if len(x.tab) == 0 {
		return -1, -1
	}
	mask := x.slots() - 1
	tag := tagOf(h)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch t := x.tab[2*i]; t {
		case 0:
			return -1, i
		case tag:
			if k, ok := g.pathKey(x.tab[2*i+1]); ok && k == p {
				return i, -1
			}
		}
	}
}

// insertSingle puts v (whose first path hashes to h) in a fresh slot.
func (g *Graph) insertSingle(h uint64, v VertexID) {
	x := &g.pidx
	if (x.used+1)*4 > x.slots()*3 {
		g.resizePaths(x.live + 1)
	}
	mask := x.slots() - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if x.tab[2*i] == 0 {
			g.fillSlot(i, h, v)
			return
		}
	}
}

// fillSlot puts v (whose first path hashes to h) in empty slot i.
func (g *Graph) fillSlot(i int, h uint64, v VertexID) {
	x := &g.pidx
	x.tab[2*i], x.tab[2*i+1] = tagOf(h), v
	x.used++
	x.live++
	x.stamp++
}

// resizePaths rebuilds the table with room for n keys (at most half
// full), dropping deleted slots.
func (g *Graph) resizePaths(n int) {
	x := &g.pidx
	size := 16
	for size < 2*n {
		size *= 2
	}
	old := x.tab
	x.tab = make([]VertexID, 2*size)
	x.used, x.live = 0, 0
	x.stamp++
	for i := 0; i < len(old); i += 2 {
		if t, v := old[i], old[i+1]; t < 0 || t > 1 {
			k, _ := g.pathKey(v)
			g.insertSingle(maphash.String(x.seed, k), v)
		}
	}
}

// deleteSingle marks slot i deleted.
func (g *Graph) deleteSingle(i int) {
	g.pidx.tab[2*i] = 1
	g.pidx.live--
	g.pidx.stamp++
}

// indexPath appends v to the list of key p; first tells that p is v's
// first path.
func (g *Graph) indexPath(p string, v VertexID, first bool, hint PathHint) {
	x := &g.pidx
	if hint.x == x && hint.path != p {
		hint = PathHint{} // looked up for another path: its hash is not p's
	}
	// Only a first path can use its hint: indexing it moved the stamp, so
	// the hints of a vertex's later paths are stale by then.
	if first && hint.x == x && hint.stamp == x.stamp && hint.slot >= 0 && (x.used+1)*4 <= x.slots()*3 {
		// p is in neither the map nor the table, whose slot hint.slot
		// is the first empty one on its probe sequence.
		g.fillSlot(int(hint.slot), hint.hash, v)
		return
	}
	x.stamp++
	if l, ok := x.multi[p]; ok {
		x.multi[p] = append(l, v)
		return
	}
	h := hint.hash
	if hint.x != x {
		h = maphash.String(x.seed, p)
	}
	if i := g.findSingle(p, h); i >= 0 {
		u := x.tab[2*i+1]
		g.deleteSingle(i)
		x.multi[p] = []VertexID{u, v}
		return
	}
	if first {
		g.insertSingle(h, v)
	} else {
		x.multi[p] = []VertexID{v}
	}
}

// releaseFirst moves v's first-path key, if the table holds it for v, to
// the map (before v's paths change).
func (g *Graph) releaseFirst(v VertexID) {
	p, ok := g.pathKey(v)
	if !ok {
		return
	}
	if i := g.findSingle(p, maphash.String(g.pidx.seed, p)); i >= 0 && g.pidx.tab[2*i+1] == v {
		g.deleteSingle(i)
		g.pidx.multi[p] = []VertexID{v}
	}
}

// unindexPath deletes key p whole.
func (g *Graph) unindexPath(p string) {
	x := &g.pidx
	if _, ok := x.multi[p]; ok {
		delete(x.multi, p)
		x.stamp++
		return
	}
	if i := g.findSingle(p, maphash.String(x.seed, p)); i >= 0 {
		g.deleteSingle(i)
	}
}

// lookupPath returns the list of key p. Do not modify.
func (g *Graph) lookupPath(p string) []VertexID {
	x := &g.pidx
	if l, ok := x.multi[p]; ok {
		return l
	}
	if i := g.findSingle(p, maphash.String(x.seed, p)); i >= 0 {
		return x.tab[2*i+1 : 2*i+2 : 2*i+2]
	}
	return nil
}

// lookupPathHint is lookupPath that also fills in h for indexPath.
func (g *Graph) lookupPathHint(p string, h *PathHint) []VertexID {
	x := &g.pidx
	*h = PathHint{}
	if len(x.multi) > 0 { // a load's usual case: no shared paths yet
		if l, ok := x.multi[p]; ok {
			return l
		}
	}
	hash := maphash.String(x.seed, p)
	i, free := g.probe(p, hash)
	*h = PathHint{x: x, path: p, hash: hash, stamp: x.stamp, slot: int32(free)}
	if i >= 0 {
		return x.tab[2*i+1 : 2*i+2 : 2*i+2]
	}
	return nil
}

// pathKeys returns the number of keys.
func (g *Graph) pathKeys() int { return len(g.pidx.multi) + g.pidx.live }

// eachPath calls f for every key and its list, in no particular order.
func (g *Graph) eachPath(f func(p string, l []VertexID)) {
	x := &g.pidx
	for p, l := range x.multi {
		f(p, l)
	}
	for i := 0; i < len(x.tab); i += 2 {
		if t := x.tab[i]; t < 0 || t > 1 {
			k, _ := g.pathKey(x.tab[i+1])
			f(k, x.tab[i+1:i+2:i+2])
		}
	}
}

// setPathList installs key p with list l (Import).
func (g *Graph) setPathList(p string, l []VertexID) {
	if len(l) == 1 {
		if k, ok := g.pathKey(l[0]); ok && k == p {
			g.insertSingle(maphash.String(g.pidx.seed, p), l[0])
			return
		}
	}
	g.pidx.multi[p] = slices.Clone(l)
	g.pidx.stamp++
}

func (x *pathIndex) clone() pathIndex {
	return pathIndex{seed: x.seed, tab: slices.Clone(x.tab), used: x.used, live: x.live,
		multi: cloneIndex(x.multi), stamp: x.stamp}
}
