package grug

import (
	"bytes"
	"encoding/xml"
	"strconv"
)

// Cluster returns a GRUG document for a simple containment-only cluster:
// one root vertex of type cluster named name+"0", nodes vertices of type
// node (node0 … node<nodes-1>), each with cores vertices of type core whose
// ids are local to their node (core0 … core<cores-1>, id_scope 0).
// Vertex indexes follow generation order: the cluster, then every node,
// then the cores node by node. It is meant for benchmarks and tests.
func Cluster(name string, nodes, cores int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="unit" for="node" attr.name="unit" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string"><default>contains</default></key>
  <key id="rrelation" for="edge" attr.name="rrelation" attr.type="string"><default>in</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <key id="as_tgt_subsystem" for="edge" attr.name="as_tgt_subsystem" attr.type="string"><default>containment</default></key>
  <key id="as_tgt_uplvl" for="edge" attr.name="as_tgt_uplvl" attr.type="int"><default>1</default></key>
  <key id="as_src_uplvl" for="edge" attr.name="as_src_uplvl" attr.type="int"><default>1</default></key>
  <graph id="`)
	xml.EscapeText(&b, []byte(name))
	b.WriteString(`" edgedefault="directed">
    <node id="cluster">
      <data key="root">1</data>
      <data key="type">cluster</data>
      <data key="basename">`)
	xml.EscapeText(&b, []byte(name))
	b.WriteString(`</data>
    </node>
    <node id="node">
      <data key="type">node</data>
      <data key="basename">node</data>
    </node>
    <node id="core">
      <data key="type">core</data>
      <data key="basename">core</data>
    </node>
    <edge id="cluster2node" source="cluster" target="node">
      <data key="multi_scale">`)
	b.WriteString(strconv.Itoa(nodes))
	b.WriteString(`</data>
    </edge>
    <edge id="node2core" source="node" target="core">
      <data key="multi_scale">`)
	b.WriteString(strconv.Itoa(cores))
	b.WriteString(`</data>
    </edge>
  </graph>
</graphml>
`)
	return b.Bytes()
}
