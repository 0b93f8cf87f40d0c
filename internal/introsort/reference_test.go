package introsort

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refSort is a literal transcription of the pseudocode of spec sort.md
// (values lifted into temporaries), used to check that the allocation-free
// variants in introsort.go produce identical arrangements.
func refSort(A []item, comp func(a, b item) bool) { refAlgo(A, comp, false) }

// refHeapSort runs only the heap sort of the transcription.
func refHeapSort(A []item, comp func(a, b item) bool) { refAlgo(A, comp, true) }

func refAlgo(A []item, comp func(a, b item) bool, heapOnly bool) {
	n := len(A)
	if n == 0 {
		return
	}
	swap := func(i, j int) { A[i], A[j] = A[j], A[i] }
	var adjustHeap func(base, hole, ln int, v item)
	adjustHeap = func(base, hole, ln int, v item) {
		top, child := hole, hole
		for child < (ln-1)/2 {
			child = 2 * (child + 1)
			if comp(A[base+child], A[base+child-1]) {
				child--
			}
			A[base+hole] = A[base+child]
			hole = child
		}
		if ln%2 == 0 && child == (ln-2)/2 {
			child = 2 * (child + 1)
			A[base+hole] = A[base+child-1]
			hole = child - 1
		}
		parent := (hole - 1) / 2
		for hole > top && comp(A[base+parent], v) {
			A[base+hole] = A[base+parent]
			hole = parent
			parent = (hole - 1) / 2
		}
		A[base+hole] = v
	}
	heap := func(first, last int) {
		ln := last - first
		if ln >= 2 {
			for parent := (ln - 2) / 2; ; parent-- {
				adjustHeap(first, parent, ln, A[first+parent])
				if parent == 0 {
					break
				}
			}
		}
		for last-first > 1 {
			last--
			v := A[last]
			A[last] = A[first]
			adjustHeap(first, 0, last-first, v)
		}
	}
	median := func(result, a, b, c int) {
		if comp(A[a], A[b]) {
			if comp(A[b], A[c]) {
				swap(result, b)
			} else if comp(A[a], A[c]) {
				swap(result, c)
			} else {
				swap(result, a)
			}
		} else if comp(A[a], A[c]) {
			swap(result, a)
		} else if comp(A[b], A[c]) {
			swap(result, c)
		} else {
			swap(result, b)
		}
	}
	part := func(first, last, pivot int) int {
		for {
			for comp(A[first], A[pivot]) {
				first++
			}
			last--
			for comp(A[pivot], A[last]) {
				last--
			}
			if !(first < last) {
				return first
			}
			swap(first, last)
			first++
		}
	}
	var loop func(first, last, depth int)
	loop = func(first, last, depth int) {
		for last-first > 16 {
			if depth == 0 {
				heap(first, last)
				return
			}
			depth--
			mid := first + (last-first)/2
			median(first, first+1, mid, last-1)
			cut := part(first+1, last, first)
			loop(cut, last, depth)
			last = cut
		}
	}
	uli := func(i int) {
		v := A[i]
		j := i - 1
		for comp(v, A[j]) {
			A[i] = A[j]
			i = j
			j--
		}
		A[i] = v
	}
	ins := func(first, last int) {
		if first == last {
			return
		}
		for i := first + 1; i < last; i++ {
			if comp(A[i], A[first]) {
				v := A[i]
				copy(A[first+1:i+1], A[first:i])
				A[first] = v
			} else {
				uli(i)
			}
		}
	}
	if heapOnly {
		heap(0, n)
		return
	}
	loop(0, n, 2*lg(n))
	if n > 16 {
		ins(0, 16)
		for i := 16; i < n; i++ {
			uli(i)
		}
	} else {
		ins(0, n)
	}
}

func TestMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cmpG := func(a, b item) bool { return a.score > b.score }
	cmpL := func(a, b item) bool { return a.score < b.score }
	check := func(in []item) {
		t.Helper()
		got, want := slices.Clone(in), slices.Clone(in)
		Sort(got, greater)
		refSort(want, cmpG)
		if !slices.Equal(got, want) {
			t.Fatalf("differs from reference for %v\n got %v\nwant %v", in, got, want)
		}
		got, want = slices.Clone(in), slices.Clone(in)
		Sort(got, func(a, b *item) bool { return a.score < b.score })
		refSort(want, cmpL)
		if !slices.Equal(got, want) {
			t.Fatalf("differs from reference (less) for %v", in)
		}
	}
	for iter := 0; iter < 3000; iter++ {
		n := r.IntN(300)
		k := 1 + r.IntN(n/3+1)
		in := make([]item, n)
		for i := range in {
			in[i] = item{r.IntN(k), i}
		}
		check(in)
	}
	for _, n := range []int{50, 200, 1000} {
		check(tagged(antiQuicksort(n)))
	}
}

// TestHeapMatchesReference compares the heap sort alone with the literal
// transcription (refSort with a depth of zero is heap sort for n > 16).
func TestHeapMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 80; n++ {
		for k := 1; k < 6; k++ {
			in := make([]item, n)
			for i := range in {
				in[i] = item{r.IntN(k), i}
			}
			got := slices.Clone(in)
			heapSort(got, 0, n, greater)
			want := slices.Clone(in)
			refHeapSort(want, func(a, b item) bool { return a.score > b.score })
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d heap differs\n got %v\nwant %v", n, got, want)
			}
		}
	}
}
