package gofluxion_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion"
)

const oneSocket = `version: 1
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: socket
            count: 1
            with:
              - type: core
                count: 4
attributes: {system: {duration: 3600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

func Example() {
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "lonode"})
	if err != nil {
		panic(err)
	}
	js, err := m.ParseJobspec([]byte(oneSocket))
	if err != nil {
		panic(err)
	}
	a, err := m.Match(gofluxion.Allocate, js, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("job %d runs [%d, %d)\n", a.JobID, a.Start, a.End)
	out, _ := a.Render("rlite")
	fmt.Print(out)
	// Output:
	// job 1 runs [0, 3600)
	// [{"rank": "0", "children": {"core": "0-3"}}]
}

func ExampleMatcher_Match_reservation() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	whole, _ := m.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 8, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]
attributes: {system: {duration: 600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	first, _ := m.Match(gofluxion.Allocate, whole, 0)
	// The cluster is full until 600: the next one is reserved then.
	next, _ := m.Match(gofluxion.AllocateOrElseReserve, whole, 100)
	fmt.Println(first.JobID, first.Reserved, first.Start)
	fmt.Println(next.JobID, next.Reserved, next.Start)
	_, err := m.Match(gofluxion.Allocate, whole, 100)
	fmt.Println(errors.Is(err, gofluxion.ErrBusy))
	// Output:
	// 1 false 0
	// 2 true 600
	// true
}

func ExampleMatcher_Explain() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := m.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 12, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]
attributes: {system: {duration: 60}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	_, err := m.Match(gofluxion.AllocateWithSatisfiability, js, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable))
	e, _ := m.Explain(js, 0)
	fmt.Println(e.Reason())
	// Output:
	// true
	// needs 12 node (with 2 socket each): 8 found now, only 8 exist
}

func ExampleMatcher_Snapshot() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := m.ParseJobspec([]byte(oneSocket))
	m.Match(gofluxion.Allocate, js, 0)

	var saved bytes.Buffer
	if err := m.Snapshot(&saved); err != nil {
		panic(err)
	}
	restored, err := gofluxion.Restore(&saved)
	if err != nil {
		panic(err)
	}
	// Both decide the same way from here on.
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	b, _ := restored.Match(gofluxion.Allocate, js, 0)
	ra, _ := a.Render("rv1_nosched")
	rb, _ := b.Render("rv1_nosched")
	fmt.Println(a.JobID, b.JobID, ra == rb)
	// Output:
	// 2 2 true
}

func ExampleMatcher_Update() {
	// A scheduler wrote job 7's R; after a restart it rebuilds the state
	// from it.
	before, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := before.ParseJobspec([]byte(oneSocket))
	a, _ := before.MatchWithID(gofluxion.Allocate, js, 7, 0)
	r, _ := a.Render("rv1")

	after, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	b, err := after.Update(7, []byte(r))
	fmt.Println(err, b.JobID, b.Start, b.End)
	found, _ := after.Find("jobid-alloc=7", "rlite")
	fmt.Print(found)
	// Output:
	// <nil> 7 0 3600
	// [{"rank": "7", "children": {"core": "28-31"}}]
}

func ExampleMatcher_Find() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.SetStatus("/demo0/rack1", false)
	out, _ := m.Find("status=down and names=rack1", "simple")
	fmt.Print(out)
	// Output:
	//       ------rack1[1:x]
	//       ---demo0[1:x]
}
