package hwloc

import "strconv"

// This file turns the parsed tree into the topology hwloc 2 builds when it
// loads the XML with the type filters Fluxion's reader sees (spec
// formats.md §4, findings in doc.go): instruction caches dropped (filter
// NONE), I/O devices kept when "important" (DMA channels dropped), and
// caches and groups kept only when they bring structure (filter
// KEEP_STRUCTURE), which hwloc decides level by level.

// maxGroupKinds bounds the distinct Group kinds of a document (hwloc
// knows about a dozen): each kind is its own level key in a 64-bit set.
const maxGroupKinds = 64 - int(numKinds)

// priority is hwloc's merge priority of the types that can be merged: when
// both of two merged levels could go, the one with the lower priority goes
// (the child when equal).
func (k kind) priority() int {
	switch k {
	case kGroup:
		return 0
	case kL1Cache, kL2Cache, kL3Cache, kL4Cache, kL5Cache:
		return 20
	}
	return 100
}

// keepStructure says whether objects of kind k are kept only when their
// level brings structure.
func (k kind) keepStructure() bool {
	switch k {
	case kGroup, kL1Cache, kL2Cache, kL3Cache, kL4Cache, kL5Cache:
		return true
	}
	return false
}

// shape applies the filters to the tree below top (the virtual root that
// holds the topology's root object) and numbers the normal objects' levels
// (object.level).
func shape(top *object) error {
	prune(top)
	removeEmpty(top)
	groupKinds := map[string]int{}
	var keyErr error
	walkTree(top, func(o *object) {
		o.key = int(o.kind)
		if o.kind != kGroup {
			return
		}
		gk := o.groupKind
		if o.synthetic {
			gk = "synthetic memory group"
		}
		k, ok := groupKinds[gk]
		if !ok {
			if len(groupKinds) == maxGroupKinds {
				if keyErr == nil {
					keyErr = errAt(o.line, "more than "+strconv.Itoa(maxGroupKinds)+" distinct Group kinds")
				}
				return
			}
			k = int(numKinds) + len(groupKinds)
			groupKinds[gk] = k
		}
		o.key = k
	})
	if keyErr != nil {
		return keyErr
	}
	if len(top.normal) == 0 {
		return nil // a root of another class: no normal levels
	}
	root := top.normal[0]
	levels := connectLevels(root)
	mergeLevels(levels)
	for d, l := range connectLevels(root) {
		for _, o := range l {
			o.level = d
		}
	}
	return nil
}

// walkTree calls f for every object below top (normal, memory, I/O, Misc
// children, depth first), iteratively.
func walkTree(top *object, f func(*object)) {
	stack := []*object{top}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if o != top {
			f(o)
		}
		for _, l := range [4][]*object{o.misc, o.io, o.memory, o.normal} {
			for i := len(l) - 1; i >= 0; i-- {
				stack = append(stack, l[i])
			}
		}
	}
}

// prune removes instruction caches and DMA channel OS devices, splicing
// their children into their parent's lists in their place, and sets the
// parent links.
func prune(top *object) {
	stack := []*object{top}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var memory, io, misc []*object
		o.normal = pruneList(o.normal, &memory, &io, &misc)
		o.memory = pruneList(o.memory, &memory, &io, &misc)
		o.io = pruneList(o.io, &memory, &io, &misc)
		o.misc = pruneList(o.misc, &memory, &io, &misc)
		o.memory = append(o.memory, memory...)
		o.io = append(o.io, io...)
		o.misc = append(o.misc, misc...)
		for _, l := range [4][]*object{o.normal, o.memory, o.io, o.misc} {
			for _, c := range l {
				c.parent = o
				stack = append(stack, c)
			}
		}
	}
}

// pruneList returns l with its dropped objects replaced by their children
// of the same list (repeatedly); their children of other lists are
// appended to *memory, *io and *misc. Only normal and I/O objects are
// ever dropped.
func pruneList(l []*object, memory, io, misc *[]*object) []*object {
	keep := true
	for _, c := range l {
		if c.dropped() {
			keep = false
			break
		}
	}
	if keep {
		return l
	}
	var out []*object
	var rec func([]*object)
	rec = func(l []*object) {
		for _, c := range l {
			if !c.dropped() {
				out = append(out, c)
				continue
			}
			switch c.kind.class() {
			case classNormal:
				rec(c.normal)
				*memory = append(*memory, c.memory...)
				*io = append(*io, c.io...)
				*misc = append(*misc, c.misc...)
			case classIO:
				rec(c.io)
				*misc = append(*misc, c.misc...)
			}
		}
	}
	rec(l)
	return out
}

// removeEmpty removes, bottom up, the objects that hwloc finds empty:
// without normal, memory or I/O children, and with a cpuset (normal
// objects) or nodeset (NUMA nodes) without any bit, e.g. a v1 Group
// nested in a CPU-less NUMA node, or a NUMA node whose nodeset is 0x0.
// Sets absent from the XML are not empty.
func removeEmpty(top *object) {
	var order []*object
	walkTree(top, func(o *object) { order = append(order, o) })
	for i := len(order) - 1; i >= 0; i-- {
		o := order[i]
		o.normal = dropEmpty(o.normal)
		o.memory = dropEmpty(o.memory)
	}
}

func dropEmpty(l []*object) []*object {
	kept := l[:0]
	for _, c := range l {
		if !c.empty() {
			kept = append(kept, c)
		}
	}
	clear(l[len(kept):])
	return kept
}

func (o *object) empty() bool {
	if len(o.normal) > 0 || len(o.memory) > 0 || len(o.io) > 0 {
		return false
	}
	set := o.cpuset
	if o.kind.class() == classMemory {
		set = o.nodeset
	}
	return zeroSet(set)
}

func (o *object) dropped() bool {
	switch o.kind {
	case kL1iCache, kL2iCache, kL3iCache:
		return true
	case kOSDev:
		return o.osdevType == osdevDMA
	}
	return false
}

// connectLevels splits the normal objects of the tree rooted at root into
// hwloc levels, top down: starting from root's children, the level takes
// every object of the topmost key among the current objects (an object
// whose subtree holds the candidate's key is above it), and these objects
// are replaced by their normal children, in place.
func connectLevels(root *object) [][]*object {
	// desc: the keys strictly below each object, bottom up.
	order := []*object{root}
	for i := 0; i < len(order); i++ {
		order = append(order, order[i].normal...)
	}
	for i := len(order) - 1; i >= 0; i-- {
		o := order[i]
		o.desc = 0
		for _, c := range o.normal {
			o.desc |= c.desc | 1<<uint(c.key)
		}
	}
	levels := [][]*object{{root}}
	// objs and next swap buffers: objects carried over to the next round
	// cost no allocation (a few objects at the top beside a chain of 250
	// nested Groups allocated objects x levels pointers).
	objs := append(make([]*object, 0, len(order)), root.normal...)
	next := make([]*object, 0, len(order))
	for len(objs) > 0 {
		top := objs[0]
		for _, o := range objs {
			if o.kind != kPU {
				top = o
				break
			}
		}
		for _, o := range objs {
			if o.key != top.key && o.desc&(1<<uint(top.key)) != 0 {
				top = o
			}
		}
		var level []*object
		next = next[:0]
		for _, o := range objs {
			if o.key == top.key {
				level = append(level, o)
				next = append(next, o.normal...)
			} else {
				next = append(next, o)
			}
		}
		levels = append(levels, level)
		objs, next = next, objs
	}
	return levels
}

// mergeLevels removes, bottom up, every level of a keep-structure kind
// that brings no structure: the level above has as many objects, and each
// of them has exactly one normal child, the object of the level below.
// Which of the two levels goes depends on the kinds' filters and merge
// priorities. The removed objects' other children (memory, I/O, Misc) go
// to the object that replaces them; a level with memory children is not
// replaced by PUs, which cannot hold them.
func mergeLevels(levels [][]*object) {
	for i := len(levels) - 1; i > 0; i-- {
		parents, children := levels[i-1], levels[i]
		k1, k2 := parents[0].kind, children[0].kind
		replaceParent := k1.keepStructure() && parents[0].parent != nil
		replaceChild := k2.keepStructure()
		if !replaceParent && !replaceChild {
			continue
		}
		if replaceParent && replaceChild {
			if k1.priority() >= k2.priority() {
				replaceParent = false
			} else {
				replaceChild = false
			}
		}
		if len(parents) != len(children) {
			continue
		}
		same := true
		for j, c := range children {
			if c.parent != parents[j] || len(parents[j].normal) != 1 {
				same = false
				break
			}
		}
		if !same {
			continue
		}
		if replaceParent && k2 == kPU {
			// A PU holds no memory children: a level whose objects
			// carry NUMA nodes stays above PUs (hwloc keeps it whole).
			for _, p := range parents {
				if len(p.memory) > 0 {
					replaceParent = false
					break
				}
			}
			if !replaceParent {
				continue
			}
		}
		if replaceParent {
			// Each grandparent's list is rewritten once, not once per
			// parent (a machine with 20,000 one-core Groups scanned its
			// list 20,000 times).
			repl := make(map[*object]*object, len(parents))
			for j, p := range parents {
				repl[p] = children[j]
			}
			done := make(map[*object]bool)
			for j, p := range parents {
				c := children[j]
				g := p.parent
				if !done[g] {
					done[g] = true
					for x, s := range g.normal {
						if r, ok := repl[s]; ok {
							g.normal[x] = r
						}
					}
				}
				c.parent = g
				// hwloc keeps I/O children in parent-then-child order,
				// whichever of the two goes.
				c.io = append(p.io, c.io...)
				p.io = nil
				adopt(c, p)
			}
			levels = append(levels[:i-1], levels[i:]...)
		} else {
			for j, p := range parents {
				c := children[j]
				p.normal = c.normal
				for _, gc := range c.normal {
					gc.parent = p
				}
				adopt(p, c)
			}
			levels = append(levels[:i], levels[i+1:]...)
		}
	}
}

// adopt appends the memory, I/O and Misc children of the removed object
// from to dst's.
func adopt(dst, from *object) {
	for _, c := range from.memory {
		c.parent = dst
	}
	for _, c := range from.io {
		c.parent = dst
	}
	for _, c := range from.misc {
		c.parent = dst
	}
	dst.memory = append(dst.memory, from.memory...)
	dst.io = append(dst.io, from.io...)
	dst.misc = append(dst.misc, from.misc...)
}
