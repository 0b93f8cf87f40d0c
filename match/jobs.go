package match

import (
	"slices"

	"github.com/gofluxion/gofluxion/graph"
)

// Long job lists.
//
// A vertex's job records are sorted by job id. Most vertices hold a few
// and keep them in one slice; but the root, and every vertex above many
// jobs, holds a record for each of them, and a record inserted or removed
// in the middle of one slice moves every later one: re-planning the
// reservations of a deep queue (cancel and match again an old job id)
// cost a memmove of the root's whole list per operation, O(jobs). A list
// longer than bigJobs records is therefore kept in blocks of at most
// 2*jobBlock records, so an insert or removal moves at most one block
// (plus an index of block starts, one int per block).

// jobBlock and bigJobs are variables for tests, which exercise the blocks
// on small lists.
var (
	jobBlock = 128
	bigJobs  = 512
)

// jobBlocks is a long job list: blocks of 1…2*jobBlock records, in job id
// order.
type jobBlocks struct {
	b     [][]jobRec
	start []int // start[i]: the position of b[i][0] in the whole list
	n     int
}

// newJobBlocks splits the sorted records l into blocks of jobBlock.
func newJobBlocks(l []jobRec) *jobBlocks {
	x := &jobBlocks{n: len(l)}
	for i := 0; i < len(l); i += jobBlock {
		blk := make([]jobRec, 0, 2*jobBlock)
		x.b = append(x.b, append(blk, l[i:min(i+jobBlock, len(l))]...))
	}
	x.reindex(0)
	return x
}

// clone returns a deep copy of x.
func (x *jobBlocks) clone() *jobBlocks {
	c := &jobBlocks{b: make([][]jobRec, len(x.b)), start: slices.Clone(x.start), n: x.n}
	for i, blk := range x.b {
		c.b[i] = append(make([]jobRec, 0, 2*jobBlock), blk...)
	}
	return c
}

// reindex recomputes the block starts from block i on.
func (x *jobBlocks) reindex(i int) { x.start = reindexStarts(x.start, x.b, i) }

// reindexStarts recomputes start, the index of each block's first entry,
// from block i on (shared by jobBlocks and orderBlocks).
func reindexStarts[T any](start []int, b [][]T, i int) []int {
	start = start[:min(i, len(start))]
	n := 0
	if i > 0 {
		n = start[i-1] + len(b[i-1])
	}
	for ; i < len(b); i++ {
		start = append(start, n)
		n += len(b[i])
	}
	return start
}

// block returns the block that holds job or would hold it (the first
// whose last record is not below job, else the last block).
func (x *jobBlocks) block(job uint64) int {
	lo, hi := 0, len(x.b)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if blk := x.b[mid]; blk[len(blk)-1].job < job {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// find returns job's record, or nil.
func (x *jobBlocks) find(job uint64) *jobRec {
	blk := x.b[x.block(job)]
	if i, ok := findJob(blk, job); ok {
		return &blk[i]
	}
	return nil
}

// at returns the record at position i of the whole list.
func (x *jobBlocks) at(i int) *jobRec {
	bi, _ := slices.BinarySearch(x.start, i+1) // the first block starting after i
	bi--
	return &x.b[bi][i-x.start[bi]]
}

// insert adds rec (whose job x does not hold) and returns its record,
// valid until the next insert.
func (x *jobBlocks) insert(rec jobRec) *jobRec {
	bi := x.block(rec.job)
	blk := x.b[bi]
	i, _ := findJob(blk, rec.job)
	blk = slices.Insert(blk, i, rec)
	x.n++
	if len(blk) > 2*jobBlock {
		// Split: the upper half becomes the next block.
		hi := append(make([]jobRec, 0, 2*jobBlock), blk[jobBlock:]...)
		blk = blk[:jobBlock:jobBlock]
		x.b[bi] = append(make([]jobRec, 0, 2*jobBlock), blk...)
		x.b = slices.Insert(x.b, bi+1, hi)
		x.reindex(bi)
		if i >= jobBlock {
			return &x.b[bi+1][i-jobBlock]
		}
		return &x.b[bi][i]
	}
	x.b[bi] = blk
	x.reindex(bi)
	return &blk[i]
}

// remove drops job's record, if x holds it.
func (x *jobBlocks) remove(job uint64) {
	bi := x.block(job)
	blk := x.b[bi]
	i, ok := findJob(blk, job)
	if !ok {
		return
	}
	x.n--
	if blk = slices.Delete(blk, i, i+1); len(blk) == 0 {
		x.b = slices.Delete(x.b, bi, bi+1)
	} else {
		x.b[bi] = blk
	}
	x.reindex(bi)
}

// Long dynamic child orders.
//
// A dynamic policy (first) keeps each vertex's children sorted by weight
// (free units below them) and uniq_id, and moves a child when its weight
// changes. Under the root of a cluster of many nodes, a node that takes or
// gives back a core moves past every node of the same weight: one memmove
// of the whole order per booked or cancelled job, O(nodes). An order
// longer than bigOrder entries, when sorted (it always is, but for a list
// that Fluxion's quirks left unsorted, which stays flat), is kept in
// blocks like a long job list, so a move costs one block.

// bigOrder is a variable for tests.
var bigOrder = 512

// orderBlocks is a long sorted child order: blocks of 1…2*jobBlock
// entries.
type orderBlocks struct {
	b     [][]outEntry
	start []int
	n     int
}

// sortedOrder reports whether l is strictly sorted by (weight, uniq),
// both descending.
func sortedOrder(l []outEntry) bool {
	for k := 1; k < len(l); k++ {
		if !outAfter(l[k], l[k-1]) {
			return false
		}
	}
	return true
}

func newOrderBlocks(l []outEntry) *orderBlocks {
	x := &orderBlocks{n: len(l)}
	for i := 0; i < len(l); i += jobBlock {
		x.b = append(x.b, append(make([]outEntry, 0, 2*jobBlock), l[i:min(i+jobBlock, len(l))]...))
	}
	x.reindex(0)
	return x
}

func (x *orderBlocks) clone() *orderBlocks {
	c := &orderBlocks{b: make([][]outEntry, len(x.b)), start: slices.Clone(x.start), n: x.n}
	for i, blk := range x.b {
		c.b[i] = append(make([]outEntry, 0, 2*jobBlock), blk...)
	}
	return c
}

// flatten returns the order as one new list.
func (x *orderBlocks) flatten() []outEntry {
	l := make([]outEntry, 0, x.n)
	for _, blk := range x.b {
		l = append(l, blk...)
	}
	return l
}

func (x *orderBlocks) reindex(i int) { x.start = reindexStarts(x.start, x.b, i) }

func (x *orderBlocks) at(i int) outEntry {
	bi, _ := slices.BinarySearch(x.start, i+1)
	bi--
	return x.b[bi][i-x.start[bi]]
}

// locate returns the block and the index in it at which an entry with
// the key of e is or would be (outPos over the whole order).
func (x *orderBlocks) locate(e outEntry) (bi, i int) {
	lo, hi := 0, len(x.b)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if blk := x.b[mid]; outAfter(e, blk[len(blk)-1]) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(x.b) {
		return lo - 1, len(x.b[lo-1])
	}
	return lo, outPos(x.b[lo], e)
}

// rekey moves the entry of edge e, found by key, to weight w, keeping the
// order sorted; false (nothing changed) when no entry has that key and
// edge.
func (x *orderBlocks) rekey(key outEntry, e graph.EdgeID, w uint64) bool {
	if x.n == 0 {
		return false
	}
	bi, i := x.locate(key)
	if i >= len(x.b[bi]) || x.b[bi][i].edge != e {
		return false
	}
	v := x.b[bi][i]
	v.weight = w
	if blk := slices.Delete(x.b[bi], i, i+1); len(blk) == 0 && len(x.b) > 1 {
		x.b = slices.Delete(x.b, bi, bi+1)
	} else {
		x.b[bi] = blk
	}
	lo := bi
	if len(x.b[0]) == 0 { // the only block emptied
		x.b[0] = append(x.b[0], v)
		x.reindex(0)
		return true
	}
	bj, j := x.locate(v)
	blk := slices.Insert(x.b[bj], j, v)
	if len(blk) > 2*jobBlock {
		hi := append(make([]outEntry, 0, 2*jobBlock), blk[jobBlock:]...)
		x.b[bj] = append(make([]outEntry, 0, 2*jobBlock), blk[:jobBlock]...)
		x.b = slices.Insert(x.b, bj+1, hi)
	} else {
		x.b[bj] = blk
	}
	x.reindex(min(lo, bj))
	return true
}
