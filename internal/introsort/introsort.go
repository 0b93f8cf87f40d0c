package introsort

import "math/bits"

// Threshold is libstdc++'s _S_threshold: ranges of at most this many
// elements are left to the final insertion sort, so slices of at most
// Threshold elements are sorted stably.
const Threshold = 16

const threshold = Threshold

// Sort sorts a in place with the exact element movements of GNU libstdc++
// std::sort (introsort), using less as the comparator comp(a, b).
//
// The sort is not stable, but slices of at most 16 elements are sorted
// stably (they only go through insertion sort). less must be a strict weak
// ordering: the partition and insertion loops are unguarded, so with an
// inconsistent comparator they may run off the slice (a Go index panic,
// where the C++ code has undefined behaviour).
func Sort[T any](a []T, less func(a, b *T) bool) {
	n := len(a)
	if n == 0 {
		return
	}
	introsortLoop(a, 0, n, 2*lg(n), less)
	finalInsertionSort(a, 0, n, less)
}

// Prefix leaves in a[:k] exactly what Sort would leave there, and the other
// elements in a[k:] in an unspecified order. It does only the work of Sort
// that decides the first k positions: the partitions of the ranges that
// reach below k and the final insertion sort of the blocks there, which is
// linear in len(a) on average instead of n log n. (A partition never moves
// an element of its right part before one of its left part, and the final
// insertion sort never moves an element out of its block to the left.)
func Prefix[T any](a []T, k int, less func(a, b *T) bool) {
	n := len(a)
	switch {
	case n == 0 || k <= 0:
		return
	case k >= n:
		Sort(a, less)
		return
	}
	end := prefixLoop(a, 0, n, 2*lg(n), k, less)
	finalInsertionSort(a, 0, end, less)
}

// prefixLoop is introsortLoop skipping the right parts that start at or
// after k. It returns the end of the processed blocks: a partition point
// (or last) at or after k, before which every block is what Sort's loop
// leaves.
func prefixLoop[T any](a []T, first, last, depth, k int, less func(a, b *T) bool) int {
	end := last
	for last-first > threshold {
		if depth == 0 {
			heapSort(a, first, last, less)
			return end
		}
		depth--
		cut := partitionPivot(a, first, last, less)
		if cut >= k {
			end = cut
		} else if e := prefixLoop(a, cut, last, depth, k, less); e >= k {
			// Later right parts end before cut < k: fully processed.
			end = e
		}
		last = cut
	}
	return end
}

// lg is floor(log2(n)) for n >= 1.
func lg(n int) int { return bits.Len(uint(n)) - 1 }

func introsortLoop[T any](a []T, first, last, depth int, less func(a, b *T) bool) {
	for last-first > threshold {
		if depth == 0 {
			heapSort(a, first, last, less)
			return
		}
		depth--
		cut := partitionPivot(a, first, last, less)
		introsortLoop(a, cut, last, depth, less)
		last = cut
	}
}

func partitionPivot[T any](a []T, first, last int, less func(a, b *T) bool) int {
	mid := first + (last-first)/2
	moveMedianToFirst(a, first, first+1, mid, last-1, less)
	return unguardedPartition(a, first+1, last, first, less)
}

func moveMedianToFirst[T any](a []T, result, x, y, z int, less func(a, b *T) bool) {
	var pick int
	if less(&a[x], &a[y]) {
		switch {
		case less(&a[y], &a[z]):
			pick = y
		case less(&a[x], &a[z]):
			pick = z
		default:
			pick = x
		}
	} else {
		switch {
		case less(&a[x], &a[z]):
			pick = x
		case less(&a[y], &a[z]):
			pick = z
		default:
			pick = y
		}
	}
	if pick != result {
		a[result], a[pick] = a[pick], a[result]
	}
}

func unguardedPartition[T any](a []T, first, last, pivot int, less func(a, b *T) bool) int {
	for {
		for less(&a[first], &a[pivot]) {
			first++
		}
		last--
		for less(&a[pivot], &a[last]) {
			last--
		}
		if !(first < last) {
			return first
		}
		a[first], a[last] = a[last], a[first]
		first++
	}
}

func finalInsertionSort[T any](a []T, first, last int, less func(a, b *T) bool) {
	if last-first > threshold {
		insertionSort(a, first, first+threshold, less)
		for i := first + threshold; i < last; i++ {
			unguardedLinearInsert(a, i, less)
		}
	} else {
		insertionSort(a, first, last, less)
	}
}

func insertionSort[T any](a []T, first, last int, less func(a, b *T) bool) {
	if first == last {
		return
	}
	for i := first + 1; i < last; i++ {
		if less(&a[i], &a[first]) {
			v := a[i]
			copy(a[first+1:i+1], a[first:i])
			a[first] = v
		} else {
			unguardedLinearInsert(a, i, less)
		}
	}
}

// unguardedLinearInsert moves a[i] left past every element it compares
// less than. libstdc++ lifts the value out and shifts the others right; the
// adjacent swaps here make the same comparisons and leave the same final
// arrangement without taking the address of a temporary (which would make
// it escape to the heap).
func unguardedLinearInsert[T any](a []T, i int, less func(a, b *T) bool) {
	for less(&a[i], &a[i-1]) {
		a[i], a[i-1] = a[i-1], a[i]
		i--
	}
}

// onHeapSort, when non-nil, is called on every heap-sort fallback (a test
// hook).
var onHeapSort func()

func heapSort[T any](a []T, first, last int, less func(a, b *T) bool) {
	if onHeapSort != nil {
		onHeapSort()
	}
	makeHeap(a, first, last, less)
	for last-first > 1 {
		last--
		v := a[last]
		a[last] = a[first]
		adjustHeap(a, first, 0, last-first, v, less)
	}
}

func makeHeap[T any](a []T, first, last int, less func(a, b *T) bool) {
	n := last - first
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		v := a[first+parent]
		adjustHeap(a, first, parent, n, v, less)
		if parent == 0 {
			return
		}
	}
}

// adjustHeap is libstdc++'s __adjust_heap followed by __push_heap; indices
// hole and n are relative to base.
func adjustHeap[T any](a []T, base, hole, n int, v T, less func(a, b *T) bool) {
	top := hole
	child := hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(&a[base+child], &a[base+child-1]) {
			child--
		}
		a[base+hole] = a[base+child]
		hole = child
	}
	if n%2 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		a[base+hole] = a[base+child-1]
		hole = child - 1
	}
	// __push_heap: v rises from the hole. It is stored first and then
	// swapped upwards, which makes the same comparisons as libstdc++
	// (parent against v) with the same result.
	a[base+hole] = v
	parent := (hole - 1) / 2
	for hole > top && less(&a[base+parent], &a[base+hole]) {
		a[base+hole], a[base+parent] = a[base+parent], a[base+hole]
		hole = parent
		parent = (hole - 1) / 2
	}
}
