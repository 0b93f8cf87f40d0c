package gonumgraph_test

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/gonumgraph"
)

// gonum's algorithms on the demo cluster: a topological order, the path
// from the root to a core, and DOT through gonum's encoder.
func Example() {
	g := gofluxion.DemoGraph()
	x, err := gonumgraph.New(g, "containment")
	if err != nil {
		panic(err)
	}
	order, err := topo.Sort(x)
	fmt.Println(len(order), err, order[0].(gonumgraph.Node).Vertex().Name)

	core := g.ByPath("/demo0/rack1/node7/socket1/core31")[0]
	root := order[0]
	p, _ := path.DijkstraFrom(root, x).To(int64(core))
	var names []string
	for _, n := range p {
		names = append(names, n.(gonumgraph.Node).Vertex().Name)
	}
	fmt.Println(strings.Join(names, " -> "))

	sub, _ := gonumgraph.New(gofluxion.DemoGraph(), "")
	b, _ := gonumgraph.DOT(sub, "demo")
	lines := strings.Split(string(b), "\n")
	fmt.Println(strings.Join(lines[:9], "\n"))
	// Output:
	// 363 <nil> demo0
	// demo0 -> rack1 -> node7 -> socket1 -> core31
	// strict digraph demo {
	//   // Node definitions.
	//   demo0_0 [
	//     label="demo0"
	//     type="cluster"
	//     path="/demo0"
	//     size=1
	//     rank=-1
	//   ];
}
