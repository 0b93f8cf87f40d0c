package hwloc_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/hwloc"
)

func Example() {
	// A two-core host with a disk attached to its package (hwloc 2 XML).
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<topology version="2.0">
  <object type="Machine" os_index="0">
    <info name="HostName" value="tiny3"/>
    <object type="Package" os_index="0">
      <object type="NUMANode" os_index="0" local_memory="8589934592"/>
      <object type="L2Cache" cache_size="2097152" depth="2">
        <object type="Core" os_index="0"><object type="PU" os_index="0"/></object>
        <object type="Core" os_index="1"><object type="PU" os_index="1"/></object>
      </object>
      <object type="Bridge" bridge_type="0-1" depth="0">
        <object type="PCIDev" pci_busid="0000:01:00.0">
          <object type="OSDev" name="nvme0n1" osdev_type="0">
            <info name="Size" value="500107608"/>
            <info name="LinuxDeviceID" value="259:0"/>
          </object>
        </object>
      </object>
    </object>
  </object>
</topology>`
	g, err := hwloc.Read([]byte(doc), "cluster,node,socket,core,storage")
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		x := g.V(v)
		path, _ := x.PathIn(graph.Containment)
		fmt.Println(x.UniqID, path, x.Size, x.Rank, x.Props())
	}
	// Output:
	// 0 /cluster0 1 -1 []
	// 1 /cluster0/tiny3 1 0 []
	// 2 /cluster0/tiny3/socket0 1 -1 []
	// 3 /cluster0/tiny3/socket0/core0 1 -1 []
	// 4 /cluster0/tiny3/socket0/core1 1 -1 []
	// 5 /cluster0/tiny3/socket0/storage0 500 -1 [{LinuxDeviceID 259:0}]
}

func ExampleError() {
	_, err := hwloc.Read([]byte("<topology>\n<object type=\"Machine\">\n<object type=\"Cache\"/>"), "")
	fmt.Println(err)
	// Output:
	// hwloc: line 3: Cache object without a depth attribute
}

// Read keeps what hwloc keeps: an hwloc 1.x host whose NUMA nodes each
// wrap one socket (hwloc makes a Group for each, which adds no
// structure), with an L3 cache over each whole socket and an L1 cache per
// core. None of these levels brings structure, so the NUMA nodes and the
// GPU move to the sockets and no cache is left.
func ExampleRead_shaping() {
	doc := `<topology>
  <object type="Machine" cpuset="0xf"><info name="HostName" value="host7"/>
    <object type="NUMANode" cpuset="0x3" nodeset="0x1">
      <object type="Socket" cpuset="0x3">
        <object type="Cache" depth="3" cache_size="8388608" cpuset="0x3">
          <object type="Cache" depth="1" cache_size="32768" cpuset="0x1"><object type="Core" cpuset="0x1"/></object>
          <object type="Cache" depth="1" cache_size="32768" cpuset="0x2"><object type="Core" cpuset="0x2"/></object>
        </object>
      </object>
      <object type="Bridge"><object type="PCIDev"><object type="OSDev" name="cuda0" osdev_type="5"/></object></object>
    </object>
    <object type="NUMANode" cpuset="0xc" nodeset="0x2">
      <object type="Socket" cpuset="0xc">
        <object type="Cache" depth="3" cache_size="8388608" cpuset="0xc">
          <object type="Cache" depth="1" cache_size="32768" cpuset="0x4"><object type="Core" cpuset="0x4"/></object>
          <object type="Cache" depth="1" cache_size="32768" cpuset="0x8"><object type="Core" cpuset="0x8"/></object>
        </object>
      </object>
    </object>
  </object>
</topology>`
	g, err := hwloc.Read([]byte(doc), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		path, _ := g.V(v).PathIn(graph.Containment)
		fmt.Println(path)
	}
	// Output:
	// /cluster0
	// /cluster0/host7
	// /cluster0/host7/socket0
	// /cluster0/host7/socket0/core0
	// /cluster0/host7/socket0/core1
	// /cluster0/host7/socket0/numanode0
	// /cluster0/host7/socket0/gpu0
	// /cluster0/host7/socket1
	// /cluster0/host7/socket1/core2
	// /cluster0/host7/socket1/core3
	// /cluster0/host7/socket1/numanode1
}
