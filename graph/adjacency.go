package graph

// adjacency holds one kind of adjacency list (out- or in-edges) of every
// vertex in one pool: a list is a window of the pool (12 bytes a vertex
// instead of a 24-byte slice header and an allocation of its own). A list
// that outgrows its room moves to the end of the pool with twice the room,
// or grows in place when it is at the end already, as a vertex's list is
// while a reader adds its children one after the other. Space left behind
// is reclaimed by compacting the pool when it is half of it.
type adjacency struct {
	lists []adjList // by vertex
	pool  []Half
	waste int // pool entries in no list's room
}

type adjList struct{ off, n, room int32 }

// of returns v's list. Do not modify it; it may change in place when the
// list does.
func (a *adjacency) of(v VertexID) []Half {
	l := a.lists[v]
	return a.pool[l.off : l.off+l.n : l.off+l.n]
}

// addVertex appends an empty list.
func (a *adjacency) addVertex() { a.lists = append(a.lists, adjList{}) }

// add appends h to v's list.
func (a *adjacency) add(v VertexID, h Half) {
	l := &a.lists[v]
	if l.n == l.room {
		room := max(1, 2*l.room)
		if int(l.off+l.room) == len(a.pool) && l.room > 0 {
			a.pool = append(a.pool, make([]Half, room-l.room)...)
		} else {
			off := int32(len(a.pool))
			a.pool = append(a.pool, a.pool[l.off:l.off+l.n]...)
			a.pool = append(a.pool, make([]Half, room-l.n)...)
			a.waste += int(l.room)
			l.off = off
		}
		l.room = room
	}
	a.pool[l.off+l.n] = h
	l.n++
	if a.waste > 1024 && 2*a.waste > len(a.pool) {
		a.compact()
	}
}

// remove deletes the entries of edge e from v's list, keeping the order.
func (a *adjacency) remove(v VertexID, e EdgeID) {
	l := &a.lists[v]
	s := a.pool[l.off : l.off+l.n]
	k := 0
	for _, h := range s {
		if h.Edge != e {
			s[k] = h
			k++
		}
	}
	clear(s[k:])
	l.n = int32(k)
}

// retag sets the subsystem of edge e's entries in v's list.
func (a *adjacency) retag(v VertexID, e EdgeID, s SubsystemID) {
	l := a.lists[v]
	for i := l.off; i < l.off+l.n; i++ {
		if a.pool[i].Edge == e {
			a.pool[i].Subsystem = s
		}
	}
}

// compact rebuilds the pool with every list's entries and no spare room
// (lists keep the room they have if it is their own, so a list that grows
// moves).
func (a *adjacency) compact() {
	n := 0
	for _, l := range a.lists {
		n += int(l.n)
	}
	pool := make([]Half, 0, n)
	for i := range a.lists {
		l := &a.lists[i]
		off := int32(len(pool))
		pool = append(pool, a.pool[l.off:l.off+l.n]...)
		l.off, l.room = off, l.n
	}
	a.pool, a.waste = pool, 0
}

// grow reserves room for n more vertices and e more entries.
func (a *adjacency) grow(n, e int) {
	if cap(a.lists)-len(a.lists) < n {
		l := make([]adjList, len(a.lists), len(a.lists)+n)
		copy(l, a.lists)
		a.lists = l
	}
	if cap(a.pool)-len(a.pool) < e {
		p := make([]Half, len(a.pool), len(a.pool)+e)
		copy(p, a.pool)
		a.pool = p
	}
}

// clone returns a compact copy.
func (a *adjacency) clone() adjacency {
	c := adjacency{lists: make([]adjList, len(a.lists)), pool: a.pool}
	copy(c.lists, a.lists)
	c.compact()
	return c
}
