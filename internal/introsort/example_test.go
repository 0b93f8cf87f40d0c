package introsort_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/internal/introsort"
)

func ExampleSort() {
	type egroup struct {
		score int
		tag   string
	}
	// 18 equal scores: one partition step reorders them (spec sort.md).
	var a []egroup
	for i := 0; i < 18; i++ {
		a = append(a, egroup{10000, fmt.Sprintf("e%d", i)})
	}
	introsort.Sort(a, func(x, y *egroup) bool { return x.score > y.score })
	for _, e := range a {
		fmt.Print(e.tag, " ")
	}
	fmt.Println()
	// Output:
	// e9 e17 e16 e15 e14 e13 e12 e11 e10 e0 e8 e7 e6 e5 e4 e3 e2 e1
}
