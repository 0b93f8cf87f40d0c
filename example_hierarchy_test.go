package gofluxion_test

import (
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
