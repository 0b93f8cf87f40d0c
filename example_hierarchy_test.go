package gofluxion_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion"
)

const socketOf = `version: 1
resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: %d}]}]}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`

// A child instance schedules inside an allocation of its parent, grows by
// asking the parent for more, and shrinks by giving some back.
func ExampleNewChild() {
	parent, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := parent.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 3600))
	a, _ := parent.Match(gofluxion.Allocate, js, 0)

	child, _ := gofluxion.NewChild(parent, a, gofluxion.Options{})
	small, _ := child.ParseJobspec(fmt.Appendf(nil, socketOf, 2, 600))
	j, _ := child.Match(gofluxion.Allocate, small, 0)
	fmt.Println("child job", j.JobID, "on", j.Resources[0].Path)

	g, _ := child.Grow(js, 100) // four more cores, until the grant ends
	fmt.Println("grant parts:", len(child.Grant().Parts), "parent job", g.JobID, "ends at", g.End)

	_ = child.Shrink(g.Resources[len(g.Resources)-4].Path) // the grown socket
	fmt.Println("grant parts:", len(child.Grant().Parts))
	info, _ := parent.Info(g.JobID)
	fmt.Println("parent job", g.JobID, info.State)
	// Output:
	// child job 1 on /demo0/rack1/node7/socket1/core30
	// grant parts: 2 parent job 2 ends at 3600
	// grant parts: 1
	// parent job 2 CANCELED
}

// Code written against Interface runs on an in-process Matcher or, with
// the service module's client, on a remote one.
func ExampleInterface() {
	var m gofluxion.Interface
	local, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m = local // or: m, _ = client.Dial([]string{"host:7070"}) (module github.com/gofluxion/gofluxion/service)

	js, _ := m.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 60))
	a, _ := m.Match(gofluxion.AllocateOrElseReserve, js, 0)
	jobs, _ := m.JobTable()
	fmt.Println(a.JobID, len(jobs), jobs[0].State)
	// Output:
	// 1 1 ALLOCATED
}

// An allocation travels between processes as MarshalBinary's document and
// renders the same on the other side.
func ExampleAllocation_MarshalBinary() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := m.ParseJobspec(fmt.Appendf(nil, socketOf, 2, 60))
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	data, _ := a.MarshalBinary()

	var b gofluxion.Allocation
	_ = b.UnmarshalBinary(data)
	x, _ := a.Render("rlite")
	y, _ := b.Render("rlite")
	fmt.Println(b.JobID, b.Start, b.End, x == y)
	fmt.Print(y)
	// Output:
	// 1 0 60 true
	// [{"rank": "7", "children": {"core": "30-31"}}]
}

// A child's snapshot carries its grant: RestoreChild gives back a child
// that knows which parent jobs hold its resources.
func ExampleRestoreChild() {
	parent, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := parent.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 3600))
	a, _ := parent.Match(gofluxion.Allocate, js, 0)
	child, _ := gofluxion.NewChild(parent, a, gofluxion.Options{})

	var buf bytes.Buffer
	_ = child.Snapshot(&buf)
	back, _ := gofluxion.RestoreChild(&buf, parent)
	p := back.Grant().Parts[0]
	start, end := back.Grant().Window()
	fmt.Println(p.JobID, start, end)
	// Output:
	// 1 0 3600
}

// NewChildFromR makes a child from the R its parent wrote (rv1 with the
// scheduling JGF), as a Flux child instance gets its resources.
func ExampleNewChildFromR() {
	parent, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := parent.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 3600))
	a, _ := parent.Match(gofluxion.Allocate, js, 0)
	R, _ := a.Render("rv1")

	child, _ := gofluxion.NewChildFromR(parent, a.JobID, []byte(R), gofluxion.Options{})
	fmt.Println(child.Matcher().Stat().Vertices, "vertices granted")
	// A job may not outlive the grant.
	long, _ := child.ParseJobspec(fmt.Appendf(nil, socketOf, 1, 7200))
	_, err := child.Match(gofluxion.Allocate, long, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable))
	// Output:
	// 8 vertices granted
	// true
}
