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
// Table slots are written once per table: deleted slots are only marked,
// so the one-element slices ByPath returns into the table never change
// (growing the table allocates a new one).
type pathIndex struct {
	seed  maphash.Seed
	ids   []VertexID // by slot
	tags  []uint32   // by slot: 0 empty, 1 deleted, else tagOf(hash)
	used  int        // slots not empty
	live  int        // slots holding a key
	multi map[string][]VertexID
}

func newPathIndex() pathIndex {
	return pathIndex{seed: maphash.MakeSeed(), multi: make(map[string][]VertexID)}
}

func tagOf(h uint64) uint32 { return uint32(h>>32) | 2 }

// key returns the key a table entry for v stands for: v's first path.
func (g *Graph) pathKey(v VertexID) (string, bool) {
	if ps := g.vertices[v].Paths; len(ps) > 0 {
		return ps[0].Path, true
	}
	return "", false
}

// findSingle returns the table slot holding key p, or -1.
func (g *Graph) findSingle(p string, h uint64) int {
	x := &g.pidx
	if len(x.ids) == 0 {
		return -1
	}
	mask := len(x.ids) - 1
	tag := tagOf(h)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		switch t := x.tags[i]; t {
		case 0:
			return -1
		case tag:
			if k, ok := g.pathKey(x.ids[i]); ok && k == p {
				return i
			}
		}
	}
}

// insertSingle puts v (whose first path hashes to h) in a fresh slot.
func (g *Graph) insertSingle(h uint64, v VertexID) {
	x := &g.pidx
	if (x.used+1)*4 > len(x.ids)*3 {
		g.resizePaths(x.live + 1)
	}
	mask := len(x.ids) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if x.tags[i] == 0 {
			x.ids[i], x.tags[i] = v, tagOf(h)
			x.used++
			x.live++
			return
		}
	}
}

// resizePaths rebuilds the table with room for n keys (at most half
// full), dropping deleted slots.
func (g *Graph) resizePaths(n int) {
	x := &g.pidx
	size := 16
	for size < 2*n {
		size *= 2
	}
	ids, tags := x.ids, x.tags
	x.ids, x.tags = make([]VertexID, size), make([]uint32, size)
	x.used, x.live = 0, 0
	for i, t := range tags {
		if t > 1 {
			k, _ := g.pathKey(ids[i])
			g.insertSingle(maphash.String(x.seed, k), ids[i])
		}
	}
}

// deleteSingle marks slot i deleted.
func (g *Graph) deleteSingle(i int) {
	g.pidx.tags[i] = 1
	g.pidx.live--
}

// indexPath appends v to the list of key p; first tells that p is v's
// first path.
func (g *Graph) indexPath(p string, v VertexID, first bool) {
	x := &g.pidx
	if l, ok := x.multi[p]; ok {
		x.multi[p] = append(l, v)
		return
	}
	h := maphash.String(x.seed, p)
	if i := g.findSingle(p, h); i >= 0 {
		u := x.ids[i]
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
	if i := g.findSingle(p, maphash.String(g.pidx.seed, p)); i >= 0 && g.pidx.ids[i] == v {
		g.deleteSingle(i)
		g.pidx.multi[p] = []VertexID{v}
	}
}

// unindexPath deletes key p whole.
func (g *Graph) unindexPath(p string) {
	x := &g.pidx
	if _, ok := x.multi[p]; ok {
		delete(x.multi, p)
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
		return x.ids[i : i+1 : i+1]
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
	for i, t := range x.tags {
		if t > 1 {
			k, _ := g.pathKey(x.ids[i])
			f(k, x.ids[i:i+1:i+1])
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
}

func (x *pathIndex) clone() pathIndex {
	return pathIndex{seed: x.seed, ids: slices.Clone(x.ids), tags: slices.Clone(x.tags), used: x.used, live: x.live,
		multi: cloneIndex(x.multi)}
}
