package match

import (
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// The flexible traverser (-T flexible) adds or-slots, several sibling slots
// of which the packing that fits the most slots is chosen, and xor-slots,
// alternatives tried one after the other (spec traversal.md §13).

// orConfig is one memoised packing: the counts left after taking slot idx,
// and how many slots fit in total from here.
type orConfig struct {
	rem   []int64
	score int64
	idx   int
}

type orSolver struct {
	m      *Matcher
	slots  []*req
	types  []graph.TypeID // union types, interning order
	nslots uint32
	memo   map[string]orConfig
	// states counts the packings entered; past maxOrStates the search
	// stops (over) and the walk fails rather than exhaust the stack or
	// memory: the search recurses once per slot packed, and the states
	// multiply with the counts (a 5,000,000-unit memory pool beside
	// cores made a fatal stack overflow).
	states int
	over   bool
}

// maxOrStates bounds the or-slot packings one slot walk explores (each
// is memoised, about 150 bytes, and may be a stack frame deep).
const maxOrStates = 1 << 18

func (o *orSolver) key(c []int64) string {
	var b strings.Builder
	for _, n := range c {
		b.WriteString(strconv.FormatInt(n, 10))
		b.WriteByte(',')
	}
	return b.String()
}

func (o *orSolver) index(t graph.TypeID) int {
	for i, x := range o.types {
		if x == t {
			return i
		}
	}
	return -1
}

func (o *orSolver) best(counts []int64) orConfig {
	k := o.key(counts)
	if c, ok := o.memo[k]; ok {
		return c
	}
	if o.over || o.states >= maxOrStates {
		o.over = true
		return orConfig{idx: -1}
	}
	o.states++
	var res orConfig
	if len(o.slots) == 1 {
		// The bound is the slot's effective maximum held as a signed
		// 32-bit number: an unbounded count (max 2^32-1) is -1 there and
		// then no slot fits.
		mfit := int64(int32(o.nslots))
		for _, e := range o.slots[0].with {
			q := counts[o.index(e.typ)]
			c := int64(e.count.Calc(clampU32(q)))
			if c == 0 || q < c {
				mfit = 0
				break
			}
			mfit = min(mfit, q/c)
		}
		res = orConfig{rem: counts, score: mfit, idx: 0}
	} else {
		res = orConfig{score: 0, idx: -1}
		bestV := int64(-1)
		for i, s := range o.slots {
			rem := append([]int64(nil), counts...)
			fits, progress := true, false
			for _, e := range s.with {
				j := o.index(e.typ)
				c := int64(e.count.Calc(clampU32(counts[j])))
				if c == 0 {
					fits = false
					break
				}
				rem[j] -= c
				progress = true
			}
			// A slot that takes nothing would recurse forever (Fluxion
			// crashes there); it never fits.
			if !fits || !progress {
				continue
			}
			if v := o.best(rem).score; v > bestV {
				bestV = v
				res = orConfig{rem: rem, score: v + 1, idx: i}
			}
		}
	}
	o.memo[k] = res
	return res
}

// domOrSlot is the slot walk of the flexible traverser (spec §13.4).
func (m *Matcher) domOrSlot(u graph.VertexID, slots []*req, nslots uint32, pristine bool, dfu *scoring) int {
	// The union of slot elements: per type the element with the largest
	// minimum count (first wins on ties), in type order.
	var union []*req
	for _, s := range slots {
		for _, e := range s.with {
			found := false
			for i, x := range union {
				if x.typ == e.typ {
					found = true
					if e.count.Min > x.count.Min {
						union[i] = e
					}
				}
			}
			if !found {
				union = append(union, e)
			}
		}
	}
	for i := 1; i < len(union); i++ {
		for j := i; j > 0 && union[j-1].typ > union[j].typ; j-- {
			union[j-1], union[j] = union[j], union[j-1]
		}
	}
	s := m.work.pool.get()
	defer m.work.pool.put(s)
	if m.explore(u, 0, union, pristine, true, s, nslots) != 0 {
		return -1
	}
	order := m.pol.SlotOrder()
	for i := 0; i < s.n; i++ {
		l := &s.l[i]
		s.chooseBestK(l.sub, l.typ, l.qual, order, false)
	}
	sub := m.subs[0]
	o := &orSolver{m: m, slots: slots, nslots: nslots, memo: map[string]orConfig{}}
	q := make([]int64, len(union))
	for i, e := range union {
		o.types = append(o.types, e.typ)
		q[i] = s.qualified(sub, e.typ)
	}
	cfg := o.best(q)
	if o.over {
		m.orOver = true
		m.msg.WriteString("dom_slot: too many or-slot packings (more than " + strconv.Itoa(maxOrStates) + ").\n")
		return -1
	}
	cursors := make([]int, len(o.types))
	total := cfg.score
	// The slot egroups are handed to u only when every one of them could be
	// built: when the cursors run out (the packing counted units, the
	// egroups are whole vertices) u gets no slot at all.
	var built []egroup
	for n := int64(0); n < total && cfg.idx >= 0; n++ {
		slot := slots[cfg.idx]
		score := int64(1)
		e0 := int32(len(m.work.erecs))
		for _, e := range slot.with {
			j := o.index(e.typ)
			c := int64(e.count.Calc(clampU32(q[j])))
			l := s.find(sub, e.typ)
			for taken := int64(0); taken < c; {
				if l == nil || cursors[j] >= len(l.g) {
					m.msg.WriteString("dom_slot: not enough slots.\n")
					return -1
				}
				eg := l.g[cursors[j]]
				cursors[j]++
				for k := eg.e0; k < eg.e0+eg.en; k++ {
					m.work.erecs = append(m.work.erecs, erec{count: eg.count, needs: eg.count, excl: true, edge: m.work.erecs[k].edge})
				}
				score += eg.score
				taken += eg.count
			}
		}
		built = append(built, egroup{score: score, count: 1, excl: true, e0: e0, en: int32(len(m.work.erecs)) - e0})
		// The next slot comes from the packing of what is left (for a
		// single slot kind that is the same configuration again).
		cfg = o.best(cfg.rem)
	}
	for _, eg := range built {
		dfu.add(sub, graph.TypeSlot, eg)
	}
	return 0
}

// maxXorVariants bounds the xor-slot expansion.
const maxXorVariants = 1000

// expandXor expands xor_slot alternatives into variants of the request
// list (spec §13.5). ok is false when an intermediate list grows too long.
func expandXor(list []*req) ([][]*req, bool) {
	variants := [][]*req{{}}
	var options []*req
	for _, r := range list {
		cs, ok := expandXor(r.with)
		if !ok {
			return nil, false
		}
		if r.typ == graph.TypeXorSlot {
			for _, c := range cs {
				cp := *r
				cp.typ = graph.TypeSlot
				cp.with = c
				cp.childTypes = typesOf(c)
				options = append(options, &cp)
			}
			if len(options) > maxXorVariants {
				return nil, false
			}
			continue
		}
		var next [][]*req
		for _, v := range variants {
			for _, c := range cs {
				cp := *r
				cp.with = c
				cp.childTypes = typesOf(c)
				nv := append(append(make([]*req, 0, len(v)+1), v...), &cp)
				next = append(next, nv)
				if len(next) > maxXorVariants {
					return nil, false
				}
			}
		}
		variants = next
	}
	if len(options) == 0 {
		return variants, true
	}
	var out [][]*req
	for _, v := range variants {
		for _, o := range options {
			out = append(out, append(append(make([]*req, 0, len(v)+1), v...), o))
			if len(out) > maxXorVariants {
				return nil, false
			}
		}
	}
	return out, true
}

func typesOf(l []*req) []graph.TypeID {
	t := make([]graph.TypeID, len(l))
	for i, r := range l {
		t[i] = r.typ
	}
	return t
}

func hasXor(l []*req) bool {
	for _, r := range l {
		if r.typ == graph.TypeXorSlot || hasXor(r.with) {
			return true
		}
	}
	return false
}
