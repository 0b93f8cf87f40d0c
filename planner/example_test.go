package planner_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/planner"
)

// A node with 4 cores: book two jobs, then look for the earliest time at
// which 3 cores are free for 10 seconds.
func Example() {
	p, _ := planner.New(0, 100, 4)
	job1, _ := p.AddSpan(0, 20, 2) // cores 2 of 4 during [0, 20)
	_, _ = p.AddSpan(10, 30, 1)    // 1 more during [10, 40)

	for _, t := range []int64{0, 10, 20, 40} {
		n, _ := p.AvailAt(t)
		fmt.Printf("free at %d: %d\n", t, n)
	}
	n, _ := p.AvailDuring(5, 10)
	fmt.Println("min free during [5, 15):", n)
	fmt.Println("check 2 cores in [5, 15):", p.Check(5, 10, 2))

	// Candidates are scheduled point times only: 20 (end of job1) is the
	// first where 3 cores stay free for the whole window.
	t, err := p.AvailTimeFirst(1, 10, 3)
	fmt.Println("earliest:", t, err)
	t, err = p.AvailTimeNext()
	fmt.Println("next:", t, err)
	_, err = p.AvailTimeNext()
	fmt.Println("then:", err)

	_ = p.RemSpan(job1)
	n, _ = p.AvailAt(0)
	fmt.Println("free at 0 after cancelling job1:", n)

	// Output:
	// free at 0: 2
	// free at 10: 1
	// free at 20: 3
	// free at 40: 4
	// min free during [5, 15): 1
	// check 2 cores in [5, 15): planner: resources busy (EBUSY)
	// earliest: 20 <nil>
	// next: 40 <nil>
	// then: planner: not found (ENOENT)
	// free at 0 after cancelling job1: 4
}

// A pruning filter tracking cores and nodes below a rack.
func ExampleMulti() {
	const core, node int32 = 1, 4
	m, _ := planner.NewMulti(0, 1000, []int64{72, 2}, []int32{core, node})
	id, _ := m.AddSpan(0, 100, []int64{36, 1}) // one whole node for [0, 100)

	fmt.Println(m.Check(0, 50, []int64{40, 0})) // only 36 cores free
	t, _ := m.AvailTimeFirst(1, 50, []int64{40, 1})
	fmt.Println("earliest for 40 cores and a node:", t)

	// Partial cancel: give back 36 cores; the node is not named and planned
	// 1, so its member span stays and the multi-span is not removed.
	removed, _ := m.ReduceSpan(id, []int32{core}, []int64{36})
	fmt.Println("removed:", removed, "spans:", m.NumSpans())

	// Output:
	// planner: resources busy (EBUSY)
	// earliest for 40 cores and a node: 100
	// removed: false spans: 1
}
