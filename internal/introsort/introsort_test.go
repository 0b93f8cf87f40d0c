package introsort

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

type item struct {
	score int
	idx   int
}

func greater(a, b *item) bool { return a.score > b.score }

func tagged(scores []int) []item {
	a := make([]item, len(scores))
	for i, s := range scores {
		a[i] = item{s, i}
	}
	return a
}

func equal(n int) []int { return make([]int, n) }

func parseInts(s string) []int {
	var r []int
	for _, f := range strings.Fields(s) {
		v, err := strconv.Atoi(f)
		if err != nil {
			panic(err)
		}
		r = append(r, v)
	}
	return r
}

// TestVectors checks every test vector of spec sort.md.
func TestVectors(t *testing.T) {
	tests := []struct {
		name   string
		scores []int
		want   string
	}{
		{"17 equal", equal(17), "8 16 15 14 13 12 11 10 9 0 7 6 5 4 3 2 1"},
		{"18 equal", equal(18), "9 17 16 15 14 13 12 11 10 0 8 7 6 5 4 3 2 1"},
		{"20 equal", equal(20), "10 19 18 17 16 15 14 13 12 11 0 9 8 7 6 5 4 3 2 1"},
		{"33 equal", equal(33), "25 17 18 19 20 21 22 23 24 16 26 27 28 29 30 31 32 0 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1"},
		{"mixed 20", parseInts("3 1 3 2 3 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3"), "10 19 16 13 0 7 4 2 6 9 12 3 15 18 5 8 11 14 17 1"},
		{"empty", nil, ""},
		{"one", []int{5}, "0"},
		{"16 equal (stable)", equal(16), "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"},
		{"16 mixed (stable)", parseInts("1 2 1 2 1 2 1 2 1 2 1 2 1 2 1 2"), "1 3 5 7 9 11 13 15 0 2 4 6 8 10 12 14"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tagged(tc.scores)
			Sort(a, greater)
			got := make([]string, len(a))
			for i, e := range a {
				got[i] = strconv.Itoa(e.idx)
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}

// checkSorted verifies that out is sorted by less and a permutation of in
// (elements are identified by their idx tag).
func checkSorted(t *testing.T, in, out []item, less func(a, b *item) bool) {
	t.Helper()
	for i := 1; i < len(out); i++ {
		if less(&out[i], &out[i-1]) {
			t.Fatalf("not sorted at %d: %v before %v", i, out[i-1], out[i])
		}
	}
	seen := make([]bool, len(in))
	for _, e := range out {
		if e.idx < 0 || e.idx >= len(in) || seen[e.idx] || in[e.idx] != e {
			t.Fatalf("not a permutation: element %v", e)
		}
		seen[e.idx] = true
	}
}

func TestProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 3000; iter++ {
		n := r.IntN(200)
		if iter < 500 {
			n = r.IntN(17)
		}
		maxScore := 1 + r.IntN(n+1)
		in := make([]item, n)
		for i := range in {
			in[i] = item{r.IntN(maxScore), i}
		}
		out := slices.Clone(in)
		Sort(out, greater)
		checkSorted(t, in, out, greater)
		if n <= 16 {
			want := slices.Clone(in)
			sort.SliceStable(want, func(i, j int) bool { return want[i].score > want[j].score })
			if !slices.Equal(out, want) {
				t.Fatalf("n=%d not stable:\n got %v\nwant %v", n, out, want)
			}
		}
	}
}

// antiQuicksort builds McIlroy's "killer adversary" input for this sort:
// values are fixed lazily so that every partition step is as unbalanced as
// possible, which drives the recursion depth to its limit.
func antiQuicksort(n int) []int {
	gas := n
	val := make([]int, n)
	for i := range val {
		val[i] = gas
	}
	nsolid, candidate := 0, 0
	freeze := func(x int) { val[x] = nsolid; nsolid++ }
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	Sort(idx, func(px, py *int) bool {
		x, y := *px, *py
		if val[x] == gas && val[y] == gas {
			if x == candidate {
				freeze(x)
			} else {
				freeze(y)
			}
		}
		if val[x] == gas {
			candidate = x
		} else if val[y] == gas {
			candidate = y
		}
		return val[x] < val[y]
	})
	return val
}

func TestHeapSortPath(t *testing.T) {
	for _, n := range []int{64, 100, 257, 1000, 4096} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			scores := antiQuicksort(n)
			in := tagged(scores)
			out := slices.Clone(in)
			heaps := 0
			onHeapSort = func() { heaps++ }
			defer func() { onHeapSort = nil }()
			less := func(a, b *item) bool { return a.score < b.score }
			Sort(out, less)
			if heaps == 0 {
				t.Fatalf("heap sort fallback not reached")
			}
			checkSorted(t, in, out, less)
		})
	}
}

// TestHeapSortDirect exercises the heap sort on its own for every small
// length and many duplicate patterns.
func TestHeapSortDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 70; n++ {
		for k := 0; k < 20; k++ {
			in := make([]item, n)
			for i := range in {
				in[i] = item{r.IntN(1 + k), i}
			}
			out := slices.Clone(in)
			heapSort(out, 0, n, greater)
			checkSorted(t, in, out, greater)
		}
	}
}

func BenchmarkSort(b *testing.B) {
	for _, n := range []int{16, 288, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(5, 6))
			in := make([]item, n)
			for i := range in {
				in[i] = item{r.IntN(n/4 + 1), i}
			}
			a := make([]item, n)
			b.ReportAllocs()
			for b.Loop() {
				copy(a, in)
				Sort(a, greater)
			}
		})
	}
}

// TestPrefix checks that Prefix leaves in a[:k] what Sort leaves there, on
// random inputs rich in ties and on adversarial ones (heap-sort fallback).
func TestPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	inputs := [][]int{equal(17), equal(33), equal(200), antiQuicksort(300), antiQuicksort(1000)}
	for range 400 {
		n := rng.IntN(600)
		vals := 1 + rng.IntN(8)
		if rng.IntN(4) == 0 {
			vals = 1 + rng.IntN(1000)
		}
		s := make([]int, n)
		for i := range s {
			s[i] = rng.IntN(vals)
		}
		switch rng.IntN(4) {
		case 0:
			slices.Sort(s)
		case 1:
			slices.Sort(s)
			slices.Reverse(s)
		}
		inputs = append(inputs, s)
	}
	for i, s := range inputs {
		for _, less := range []func(a, b *item) bool{greater, func(a, b *item) bool { return a.score < b.score }} {
			want := tagged(s)
			Sort(want, less)
			ks := []int{0, 1, 2, 15, 16, 17, len(s) / 2, len(s) - 1, len(s), len(s) + 1}
			for range 5 {
				ks = append(ks, rng.IntN(len(s)+1))
			}
			for _, k := range ks {
				got := tagged(s)
				Prefix(got, k, less)
				m := min(max(k, 0), len(s))
				if !slices.Equal(got[:m], want[:m]) {
					t.Fatalf("input %d (n=%d) k=%d: prefix %v, want %v", i, len(s), k, got[:m], want[:m])
				}
				gs, ws := slices.Clone(got), slices.Clone(want)
				byIdx := func(a, b item) int { return a.idx - b.idx }
				slices.SortFunc(gs, byIdx)
				slices.SortFunc(ws, byIdx)
				if !slices.Equal(gs, ws) {
					t.Fatalf("input %d k=%d: not a permutation", i, k)
				}
			}
		}
	}
}
