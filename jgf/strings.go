package jgf

import "strings"

// arena makes strings out of bytes without one allocation each: it copies
// them into 64 KiB blocks. A block is never written again where a string
// was cut from it (strings.Builder only appends, and a block is replaced,
// never grown), so the strings are immutable. A block lives as long as any
// of its strings.
type arena struct{ b strings.Builder }

const arenaBlock = 64 << 10

func (a *arena) make(p []byte) string {
	switch {
	case len(p) == 0:
		return ""
	case len(p) > arenaBlock/8:
		return string(p)
	}
	if a.b.Cap()-a.b.Len() < len(p) {
		a.b = strings.Builder{}
		a.b.Grow(arenaBlock)
	}
	n := a.b.Len()
	a.b.Write(p)
	return a.b.String()[n:]
}

func (a *arena) clone(s string) string {
	switch {
	case len(s) == 0:
		return ""
	case len(s) > arenaBlock/8:
		return strings.Clone(s)
	}
	if a.b.Cap()-a.b.Len() < len(s) {
		a.b = strings.Builder{}
		a.b.Grow(arenaBlock)
	}
	n := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[n:]
}

// maxInterned bounds an interning table: past it, new strings are copied
// into the arena instead (a document of unique names must not grow the
// table without end).
const maxInterned = 1 << 16

// strs makes the strings of one read or load: the few that repeat (types,
// basenames, subsystems, property keys and values, names) are interned, the
// others (paths, ids) copied into an arena.
type strs struct {
	interned map[string]string
	// recent is a small cache in front of interned: the same few
	// strings come again and again (types, subsystems, names per node).
	recent [64]string
	arena
}

func recentSlot(p []byte) int {
	if len(p) == 0 {
		return 0
	}
	return (len(p)*7 + int(p[0]) + int(p[len(p)-1])*3 + int(p[len(p)/2])*5) & 63
}

func (m *strs) intern(p []byte) string {
	slot := recentSlot(p)
	if m.recent[slot] == string(p) {
		return m.recent[slot]
	}
	if s, ok := m.interned[string(p)]; ok {
		m.recent[slot] = s
		return s
	}
	s := m.make(p)
	if m.interned == nil {
		m.interned = make(map[string]string)
	}
	if len(m.interned) < maxInterned {
		m.interned[s] = s
	}
	m.recent[slot] = s
	return s
}

func (m *strs) internString(str string) string {
	if s, ok := m.interned[str]; ok {
		return s
	}
	s := m.clone(str)
	if m.interned == nil {
		m.interned = make(map[string]string)
	}
	if len(m.interned) < maxInterned {
		m.interned[s] = s
	}
	return s
}
