package gofluxion_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// JobspecFor writes "2 nodes, each with 4 cores, a gpu and 32 GiB" in the
// shape the graph serves: the demo nodes hold cores, gpus and memory in
// two sockets, so the request names a socket level; 24 cores need both
// sockets of a node.
func ExampleMatcher_JobspecFor() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, err := m.JobspecFor(gofluxion.NodeRequest{Nodes: 2, Cores: 4, GPUs: 1, MemoryBytes: 32 << 30, Duration: time.Hour})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(js.Shape())
	a, err := m.Match(gofluxion.Allocate, js, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range a.ByNode() {
		fmt.Printf("%s: %d cores, %d gpu, %d GB\n", n.Name, n.Cores, n.GPUs, n.Memory)
	}
	big, _ := m.JobspecFor(gofluxion.NodeRequest{Nodes: 1, Cores: 24, GPUs: 2})
	fmt.Println(big.Shape())
	_, err = m.JobspecFor(gofluxion.NodeRequest{Nodes: 1, Cores: 40})
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable), err)
	// Output:
	// node[2]->slot[1]->socket[1]->{core[4],gpu[1],memory[32]}
	// node6: 4 cores, 1 gpu, 32 GB
	// node7: 4 cores, 1 gpu, 32 GB
	// node[1]->slot[1]->socket[2]->{core[12],gpu[1]}
	// true gofluxion: jobspec for: no node in this graph has 40 cores (the most one has is 32)
}

// A request whose levels do not follow the graph never runs: the demo
// nodes hold their cores in sockets, and Fluxion never books a slot whose
// contents sit a level below its node. Satisfiable and Match say so, with
// a shape that works, and Explain marks the level.
func ExampleMatcher_Satisfiable_shape() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := jobspec.New(time.Hour, jobspec.Res("node", 2, jobspec.Slot("task", 1, jobspec.Res("core", 4))))
	err := m.Satisfiable(js)
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable))
	fmt.Println(err)
	e, _ := m.Explain(js, 0)
	for _, l := range e.Levels {
		if l.Short() {
			fmt.Println(l.Path, l.Cause())
		}
	}
	// Output:
	// true
	// gofluxion: satisfiable: the request can never be allocated: core sits under socket here, not directly under node, so a slot in a node is selected but never allocated: ask node→slot→socket→core, or take each node whole (mark it exclusive, or put the slot above it: slot→node→socket→core)
	// node[2]/slot[1] shape
}

// Explain names a type the graph does not have, marks the level, and
// prints no count for the levels below it, which were never reached.
func ExampleMatcher_Explain_unknownType() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := jobspec.New(time.Hour, jobspec.Res("nodee", 1, jobspec.Slot("task", 1, jobspec.Res("core", 1))))
	e, _ := m.Explain(js, 0)
	for _, l := range e.Levels {
		fmt.Println(l)
	}
	_, err := m.Match(gofluxion.Allocate, js, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable), err)
	// Output:
	// nodee[1]: needs 1, 0 found now, 0 when free (shape): the graph has no vertex of type "nodee" (its types: cluster, core, socket, gpu, node, rack, memory)
	// nodee[1]/slot[1]: needs 1, not reached now (unreached)
	// nodee[1]/slot[1]/core[1]: needs 1, not reached now (unreached)
	// true gofluxion: match: the request can never be allocated: the graph has no vertex of type "nodee" (its types: cluster, core, socket, gpu, node, rack, memory)
}
