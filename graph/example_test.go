package graph_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/graph"
)

// Build a cluster with two nodes of two cores each and look vertices up by
// type, rank and path.
func ExampleNewBuilder() {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("demo"))
	for n := int64(0); n < 2; n++ {
		node := b.MustAdd(c, "node", n)
		for i := int64(0); i < 2; i++ {
			b.MustAdd(node, "core", i)
		}
	}
	b.MustAdd(c, "memory", 0, graph.WithSize(64), graph.WithUnit("GB"))
	g := b.Graph()

	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		vx := g.V(v)
		p, _ := vx.PathIn(graph.Containment)
		fmt.Printf("%d %-6s %-7s rank=%2d size=%d %s\n", vx.UniqID, g.TypeName(v), vx.Name, vx.Rank, vx.Size, p)
	}
	fmt.Println("root:", g.V(g.Root(graph.Containment)).Name)
	fmt.Println("nodes:", g.ByType(graph.TypeNode))
	fmt.Println("rank 1:", g.ByRank(1))
	fmt.Println("at /demo0/node1/core0:", g.ByPath("/demo0/node1/core0"))

	// A second root is an error.
	_, err := b.Add(graph.NoVertex, "cluster", 1)
	fmt.Println(err != nil)
	// Output:
	// 0 cluster demo0   rank=-1 size=1 /demo0
	// 1 node   node0   rank= 0 size=1 /demo0/node0
	// 2 core   core0   rank=-1 size=1 /demo0/node0/core0
	// 3 core   core1   rank=-1 size=1 /demo0/node0/core1
	// 4 node   node1   rank= 1 size=1 /demo0/node1
	// 5 core   core0   rank=-1 size=1 /demo0/node1/core0
	// 6 core   core1   rank=-1 size=1 /demo0/node1/core1
	// 7 memory memory0 rank=-1 size=64 /demo0/memory0
	// root: demo0
	// nodes: [1 4]
	// rank 1: [4]
	// at /demo0/node1/core0: [5]
	// true
}

// Types and subsystems are interned in first-seen order after a fixed
// prefix; containers keyed by them iterate in that order.
func ExampleNames() {
	g := graph.New()
	g.Type("memory")
	g.Type("bb")
	var names []string
	for i := 0; i < g.Types.Len(); i++ {
		names = append(names, g.Types.Name(int32(i)))
	}
	fmt.Printf("%q\n", names)
	id, ok := g.Types.Lookup("memory")
	fmt.Println(id, ok)
	_, ok = g.Types.Lookup("fpga")
	fmt.Println(ok)
	// Output:
	// ["cluster" "core" "socket" "gpu" "node" "rack" "slot" "xor_slot" "ssd" "storage_node" "*" "" "memory" "bb"]
	// 12 true
	// false
}

func ExampleVertex_SetProp() {
	b := graph.NewBuilder()
	n := b.MustAdd(graph.NoVertex, "node", 0, graph.WithProperty("zz", "1"))
	v := b.Graph().V(n)
	v.SetProp("alpha", "2")
	v.SetProp("zz", "3")
	fmt.Println(v.Props())
	val, ok := v.Prop("alpha")
	fmt.Println(val, ok)
	// Output:
	// [{alpha 2} {zz 3}]
	// 2 true
}
