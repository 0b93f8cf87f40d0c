package match

import (
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// req is one jobspec resource resolved against the graph: its type is an
// interned id and user holds the minimum count of every pruning type needed
// below it (spec traversal.md §2).
type req struct {
	typ    graph.TypeID
	count  jobspec.Count
	excl   jobspec.Exclusive
	label  string
	with   []*req
	user   tcounts
	effMax uint32
	// childTypes are the types of with, for the "slot applies" test.
	childTypes []graph.TypeID
}

func (r *req) exclusive() bool { return r.excl == jobspec.ExclusiveTrue }

// reqCache keeps the resolved request tree of the last jobspec, so a stream
// of matches of the same jobspec builds it once.
type reqCache struct {
	js   *jobspec.Jobspec
	top  []*req
	dfv  tcounts
	excl []graph.TypeID // types marked exclusive: true anywhere in the tree
	// clean: no request says exclusive: false and no level repeats a type
	// or puts a slot beside other requests, so a walk over it fails only
	// with EBUSY and writes no message (best.go trusts its failures).
	clean bool
	// gen counts the trees resolved, so that what was recorded for one
	// (memo.go) is not used for another.
	gen uint64
}

// resolve converts a jobspec's resources to request trees and primes them.
// It returns nil for a tree that is not one: a nil resource, or one deeper
// than jobspec.MaxDepth or larger than jobspec.MaxNodes, as a hand-built
// jobspec that contains itself is (Parse never makes those).
func (m *Matcher) resolve(js *jobspec.Jobspec) *reqCache {
	c := &m.reqc
	if c.js == js && js != nil {
		return c
	}
	c.js = nil
	c.top = c.top[:0]
	c.dfv = c.dfv[:0]
	c.excl = c.excl[:0]
	budget := jobspec.MaxNodes
	for _, r := range js.Resources {
		q := m.convert(r, 1, &budget)
		if q == nil {
			return nil
		}
		c.top = append(c.top, q)
	}
	c.js = js
	c.gen++
	m.primeReqs(c.top, &c.dfv, c)
	c.clean = cleanReqs(c.top)
	return c
}

func cleanReqs(l []*req) bool {
	for i, r := range l {
		if r.excl == jobspec.ExclusiveFalse || (r.typ == graph.TypeSlot && len(l) > 1) || r.typ == graph.TypeXorSlot {
			return false
		}
		for _, o := range l[:i] {
			if o.typ == r.typ {
				return false
			}
		}
		if !cleanReqs(r.with) {
			return false
		}
	}
	return true
}

// Forget drops the cached resolution of a jobspec (call it if a jobspec
// value is modified after being matched).
func (m *Matcher) Forget() { m.reqc.js = nil }

func (m *Matcher) convert(r *jobspec.Resource, depth int, budget *int) *req {
	if *budget--; r == nil || depth > jobspec.MaxDepth || *budget < 0 {
		return nil
	}
	t := graph.TypeID(-1)
	if id, ok := m.g.Types.Lookup(r.Type); ok {
		t = graph.TypeID(id)
	}
	q := &req{typ: t, count: r.Count, excl: r.Exclusive, label: r.Label, effMax: r.Count.EffectiveMax()}
	for _, w := range r.With {
		cw := m.convert(w, depth+1, budget)
		if cw == nil {
			return nil
		}
		q.with = append(q.with, cw)
		q.childTypes = append(q.childTypes, cw.typ)
	}
	return q
}

// primeReqs computes user data bottom-up (spec traversal.md §2, §13.2 for
// the flexible traverser).
func (m *Matcher) primeReqs(list []*req, toParent *tcounts, c *reqCache) {
	conf := &m.prune[0]
	for _, r := range list {
		if r.exclusive() {
			c.excl = append(c.excl, r.typ)
		}
		if r.typ >= 0 && conf.has(r.typ) {
			toParent.add(r.typ, int64(r.count.Min))
		}
		r.user = r.user[:0]
		m.primeReqs(r.with, &r.user, c)
		isSlot := r.typ == graph.TypeSlot || r.typ == graph.TypeXorSlot
		if m.flexible && isSlot {
			for _, tc := range r.user {
				if !conf.has(tc.t) {
					continue
				}
				v := int64(r.count.Min) * tc.n
				if cur, ok := toParent.get(tc.t); !ok || v < cur {
					toParent.set(tc.t, v)
				}
			}
			for i := range *toParent {
				if _, ok := r.user.get((*toParent)[i].t); !ok && (*toParent)[i].n > 0 {
					(*toParent)[i].n = 0
				}
			}
			continue
		}
		for _, tc := range r.user {
			if conf.has(tc.t) {
				toParent.add(tc.t, int64(r.count.Min)*tc.n)
			}
		}
	}
}

func (c *tcounts) set(t graph.TypeID, n int64) {
	for i := range *c {
		if (*c)[i].t == t {
			(*c)[i].n = n
			return
		}
	}
	c.add(t, n)
}
