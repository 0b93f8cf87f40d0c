package grug_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
)

const keys = `
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>containment</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
`

func Example() {
	doc := `<graphml>` + keys + `
  <graph id="mini" edgedefault="directed">
    <node id="cluster">
      <data key="root">1</data>
      <data key="type">cluster</data>
      <data key="basename">mini</data>
    </node>
    <node id="node"><data key="type">node</data><data key="basename">node</data></node>
    <node id="core"><data key="type">core</data><data key="basename">core</data></node>
    <edge source="cluster" target="node"><data key="multi_scale">2</data></edge>
    <edge source="node" target="core">
      <data key="multi_scale">2</data>
      <data key="id_scope">1</data>
    </edge>
  </graph>
</graphml>`
	g, err := grug.Read([]byte(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		path, _ := g.V(v).PathIn(graph.Containment)
		fmt.Println(v, path, g.V(v).Rank)
	}
	// Output:
	// 0 /mini0 -1
	// 1 /mini0/node0 0
	// 2 /mini0/node1 1
	// 3 /mini0/node0/core0 -1
	// 4 /mini0/node0/core1 -1
	// 5 /mini0/node1/core2 -1
	// 6 /mini0/node1/core3 -1
}

func ExampleError_Fluxion() {
	_, err := grug.Read([]byte(`<graphml><graph edgedefault="directed">`))
	fmt.Println(err)
	fmt.Printf("%q\n", err.(*grug.Error).Fluxion())
	// Output:
	// grug: line 1: malformed XML: unexpected EOF
	// "error in reading grug string; "
}

func ExampleCluster() {
	g, err := grug.Read(grug.Cluster("bench", 2, 3))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.NumVertices(), g.NumEdges())
	fmt.Println(g.V(g.ByName("core2")[1]).PathIn(graph.Containment))
	// Output:
	// 9 8
	// /bench0/node1/core2 true
}
