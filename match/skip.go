package match

import "github.com/gofluxion/gofluxion/graph"

// Skipping busy candidates.
//
// The best-first walk tries the candidates of a type in preference order
// and passes over those that pruning rejects. In a stream that takes whole
// vertices (node-exclusive jobs), the preferred candidates are the ones
// taken first, so every match would test all the taken ones again before
// reaching a free one. A candidate whose own planner has no unit free at
// the window's start fails pruning for any request and any window starting
// then; such a candidate is linked to the next one, with the interval
// during which it stays full (planner.FullRun), and later walks jump over
// runs of linked candidates (with path compression). Bookings only lengthen
// a full interval; anything that gives units back (m.releases) drops the
// links.

// minSkip is the shortest candidate list that gets links (a variable for
// tests, which link the short lists of small graphs too).
var minSkip = 32

// skipList links full candidates of one ordered candidate list.
type skipList struct {
	next        []int32 // next[i] > i: candidates [i, next[i]) are full during [from[i], until[i])
	from, until []int64
	releases    uint64 // the matcher's release count when the links were made
}

// skips returns s ready for a list of n candidates, with its links dropped
// if units were given back since they were made.
func (m *Matcher) skips(s **skipList, n int) *skipList {
	if n < minSkip {
		return nil
	}
	l := *s
	if l == nil {
		l = &skipList{next: make([]int32, n), from: make([]int64, n), until: make([]int64, n), releases: m.releases}
		*s = l
	} else if l.releases != m.releases {
		clear(l.next)
		l.releases = m.releases
	}
	return l
}

// find returns the first position from i on that is not linked as full at
// at, compressing the path it follows.
func (l *skipList) find(i int32, at int64) int32 {
	j := i
	from, until := int64(-1<<63), int64(1<<63-1)
	for int(j) < len(l.next) && l.next[j] > j && l.from[j] <= at && at < l.until[j] {
		from, until = max(from, l.from[j]), min(until, l.until[j])
		j = l.next[j]
	}
	if j > i+1 {
		l.next[i], l.from[i], l.until[i] = j, from, until
	}
	return j
}

// markFull links position i to the next when v, its candidate, has no unit
// free at at.
func (m *Matcher) markFull(l *skipList, i int32, v graph.VertexID, at int64) {
	if from, until, full := m.plan(v).FullRun(at); full {
		l.next[i], l.from[i], l.until[i] = i+1, from, until
	}
}
