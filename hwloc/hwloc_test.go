package hwloc

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// v2Doc is a small hwloc 2.x topology: NUMA nodes are memory children,
// caches have per-level types, and the Package holds a Die, an L1i cache
// and PCI devices.
const v2Doc = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="0x0000000f" gp_index="1">
    <info name="HostName" value="fake007"/>
    <object type="Package" os_index="0" cpuset="0x0000000f">
      <object type="NUMANode" os_index="0" local_memory="1000"/>
      <object type="L2Cache" cache_size="1048576" depth="2" cache_type="0">
        <object type="L1Cache" cache_size="32768" depth="1" cache_type="1">
          <object type="L1iCache" cache_size="32768" depth="1" cache_type="2">
            <object type="Core" os_index="0">
              <object type="PU" os_index="0"/>
              <object type="PU" os_index="2"/>
            </object>
          </object>
        </object>
      </object>
      <object type="Die" os_index="0">
        <object type="Core" os_index="1"><object type="PU" os_index="1"/></object>
      </object>
      <object type="Misc" name="thing"/>
      <object type="Bridge" bridge_type="0-1" depth="0">
        <object type="PCIDev" pci_busid="0000:01:00.0">
          <object type="OSDev" name="eth0" osdev_type="2"/>
          <object type="OSDev" name="sda" osdev_type="0">
            <info name="Size" value="2000398934"/>
            <info name="LinuxDeviceID" value="8:0"/>
          </object>
          <object type="OSDev" name="rsmi3" osdev_type="1"/>
          <object type="OSDev" name="card0" osdev_type="1"/>
          <object type="OSDev" name="opencl1d2" osdev_type="5"/>
          <object type="OSDev" name="cuda5" osdev_type="5"/>
          <object type="OSDev" name="ve" osdev_type="5"/>
        </object>
      </object>
    </object>
  </object>
  <support name="discovery.pu"/>
</topology>
`

type vfact struct {
	path, typ, basename string
	id, size            int64
	props               string
}

func facts(g *graph.Graph) []vfact {
	var f []vfact
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		x := g.V(v)
		p, _ := x.PathIn(graph.Containment)
		var props []string
		for _, pr := range x.Props() {
			props = append(props, pr.Key+"="+pr.Value)
		}
		f = append(f, vfact{p, g.TypeName(v), x.Basename, x.ID, x.Size, strings.Join(props, ",")})
	}
	return f
}

func TestReadV2(t *testing.T) {
	g, err := Read([]byte(v2Doc), "")
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, "")
	const h = "/cluster0/fake007"
	const s = h + "/socket0"
	want := []vfact{
		{"/cluster0", "cluster", "cluster", 0, 1, ""},
		{h, "node", "fake", 7, 1, ""},
		{s, "socket", "socket", 0, 1, ""},
		{s + "/L2cache0", "cache", "L2cache", 0, 1024, ""},
		// The L1i cache is dropped; the L1 cache level then adds no
		// structure below the L2 level (one L1 for each L2 and the only
		// child of it), so hwloc merges it away: core0 hangs below
		// L2cache0.
		{s + "/L2cache0/core0", "core", "core", 0, 1, ""},
		{s + "/L2cache0/core0/pu0", "pu", "pu", 0, 1, ""},
		{s + "/L2cache0/core0/pu1", "pu", "pu", 1, 1, ""},
		// The Die is skipped, core1 attaches to the socket.
		{s + "/core1", "core", "core", 1, 1, ""},
		{s + "/core1/pu2", "pu", "pu", 2, 1, ""},
		// Memory children come after normal children...
		{s + "/numanode0", "numanode", "numanode", 0, 1, ""},
		// ... then I/O children; ids of storage are OS device logical
		// indexes, gpu ids come from the device names.
		{s + "/storage1", "storage", "storage", 1, 2000, "LinuxDeviceID=8:0"},
		{s + "/gpu3", "gpu", "gpu", 3, 1, ""},
		{s + "/gpu2", "gpu", "gpu", 2, 1, ""},
		{s + "/gpu5", "gpu", "gpu", 5, 1, ""},
		// No number in the name: the OS device logical index.
		{s + "/gpu6", "gpu", "gpu", 6, 1, ""},
	}
	if got := facts(g); !slices.Equal(got, want) {
		t.Errorf("vertices:\n%v\nwant\n%v", got, want)
	}
	if g.V(1).Name != "fake007" || g.V(1).Rank != 0 {
		t.Errorf("node: %+v", *g.V(1))
	}
	// Types are interned in creation order after the fixed prefix.
	var order []string
	for i := 0; i < g.Types.Len(); i++ {
		order = append(order, g.Types.Name(int32(i)))
	}
	if tail := order[12:]; !slices.Equal(tail, []string{"cache", "pu", "numanode", "storage"}) {
		t.Errorf("interned types after prefix: %v", tail)
	}
}

func TestAllowlist(t *testing.T) {
	for _, c := range []struct {
		allow string
		want  []string
	}{
		{"cluster,node,core", []string{"/cluster0", "/cluster0/fake007",
			"/cluster0/fake007/core0", "/cluster0/fake007/core1"}},
		{"cluster,socket,storage", []string{"/cluster0", "/cluster0/socket0", "/cluster0/socket0/storage1"}},
		{"cluster,pu,gpu", []string{"/cluster0", "/cluster0/pu0", "/cluster0/pu1", "/cluster0/pu2",
			"/cluster0/gpu3", "/cluster0/gpu2", "/cluster0/gpu5", "/cluster0/gpu6"}},
		// A first -W "node" and a second -W "core" concatenate to
		// "cluster,nodecluster,core": only exact tokens count.
		{"cluster,nodecluster,core", []string{"/cluster0", "/cluster0/core0", "/cluster0/core1"}},
		// The cluster root is created whatever the allowlist.
		{"core", []string{"/cluster0", "/cluster0/core0", "/cluster0/core1"}},
		{",,", nil}, // no type named: everything (15 vertices)
	} {
		g, err := Read([]byte(v2Doc), c.allow)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, g, c.allow)
		var got []string
		for _, f := range facts(g) {
			got = append(got, f.path)
		}
		if c.want == nil {
			if len(got) != 15 {
				t.Errorf("%q: %d vertices, want 15", c.allow, len(got))
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.allow, got, c.want)
		}
	}
}

// TestV1NUMA checks how hwloc 1.x NUMA nodes, which hold normal objects,
// become memory children as hwloc 2 imports them (cpusets decide).
func TestV1NUMA(t *testing.T) {
	obj := func(typ, cpuset, body string) string {
		return `<object type="` + typ + `" cpuset="` + cpuset + `">` + body + `</object>`
	}
	core := func(cpuset string) string { return obj("Core", cpuset, "") }
	numa := func(cpuset, nodeset, body string) string {
		return `<object type="NUMANode" cpuset="` + cpuset + `" nodeset="` + nodeset + `">` + body + `</object>`
	}
	doc := func(body string) string {
		return `<topology><object type="Machine" cpuset="0xf"><info name="HostName" value="h"/>` + body + `</object></topology>`
	}
	disk := `<object type="OSDev" name="nvme0n1" osdev_type="0"><info name="Size" value="1000000"/></object>`
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"a node per socket: the groups made for them merge into the sockets", numa("0x3", "0x1", obj("Socket", "0x3", core("0x1")+core("0x2"))) +
			numa("0xc", "0x2", obj("Socket", "0xc", core("0x4")+core("0x8"))+disk),
			[]string{"/cluster0", "/cluster0/h",
				"/cluster0/h/socket0", "/cluster0/h/socket0/core0", "/cluster0/h/socket0/core1", "/cluster0/h/socket0/numanode0",
				"/cluster0/h/socket1", "/cluster0/h/socket1/core2", "/cluster0/h/socket1/core3", "/cluster0/h/socket1/numanode1",
				"/cluster0/h/socket1/storage0"}},
		{"the machine's cpuset: spliced into the machine", numa("0xf", "0x1", obj("Socket", "0x3", core("0x1")+core("0x2"))+
			obj("Socket", "0xc", core("0x4")+core("0x8"))),
			[]string{"/cluster0", "/cluster0/h",
				"/cluster0/h/socket0", "/cluster0/h/socket0/core0", "/cluster0/h/socket0/core1",
				"/cluster0/h/socket1", "/cluster0/h/socket1/core2", "/cluster0/h/socket1/core3", "/cluster0/h/numanode0"}},
		{"a node and a socket beside it: the group stays", numa("0x3", "0x1", obj("Socket", "0x3", core("0x1")+core("0x2"))) +
			obj("Socket", "0xc", core("0x4")+core("0x8")),
			[]string{"/cluster0", "/cluster0/h", "/cluster0/h/group0",
				"/cluster0/h/group0/socket0", "/cluster0/h/group0/socket0/core0", "/cluster0/h/group0/socket0/core1",
				"/cluster0/h/group0/numanode0",
				"/cluster0/h/socket1", "/cluster0/h/socket1/core2", "/cluster0/h/socket1/core3"}},
		{"nodes holding cores: groups", obj("Package", "0xf", numa("0x3", "0x1", core("0x1")+core("0x2")+disk)+
			numa("0xc", "0x2", core("0x4")+core("0x8"))),
			[]string{"/cluster0", "/cluster0/h", "/cluster0/h/socket0",
				"/cluster0/h/socket0/group0", "/cluster0/h/socket0/group0/core0", "/cluster0/h/socket0/group0/core1",
				"/cluster0/h/socket0/group0/numanode0", "/cluster0/h/socket0/group0/storage0",
				"/cluster0/h/socket0/group1", "/cluster0/h/socket0/group1/core2", "/cluster0/h/socket0/group1/core3",
				"/cluster0/h/socket0/group1/numanode1"}},
		{"childless node with the machine's cpuset stays a leaf", numa("0xf", "0x1", "") + core("0xf"),
			[]string{"/cluster0", "/cluster0/h", "/cluster0/h/core0", "/cluster0/h/numanode0"}},
		{"CPU-less nodes get their own groups; empty ones go", obj("Socket", "0xf", core("0x3")+core("0xc")) +
			numa("0x0", "0x1", "") + numa("0x0", "0x2", obj("Group", "0x0", "")) + numa("0x0", "0x0", ""),
			[]string{"/cluster0", "/cluster0/h", "/cluster0/h/socket0", "/cluster0/h/socket0/core0", "/cluster0/h/socket0/core1",
				"/cluster0/h/group0", "/cluster0/h/group0/numanode0", "/cluster0/h/group1", "/cluster0/h/group1/numanode1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Read([]byte(doc(c.body)), "")
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, g, "")
			var got []string
			for _, f := range facts(g) {
				got = append(got, f.path)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

func TestV1Caches(t *testing.T) {
	// Two L3 caches (one shared by two cores) and per-core L1 caches
	// with instruction caches: the L1i caches are dropped, the L1 level
	// adds no structure below the cores... above them, so it goes; the
	// L3 level stays. The L4 is not represented.
	core := func(cpuset string) string {
		return `<object type="Cache" cache_size="65536" depth="1" cache_type="2" cpuset="` + cpuset + `">
	      <object type="Cache" cache_size="32768" depth="1" cache_type="1" cpuset="` + cpuset + `"><object type="Core" cpuset="` + cpuset + `"/></object>
	    </object>`
	}
	doc := `<topology><object type="Machine" cpuset="0x7"><info name="HostName" value="n"/>
	  <object type="Cache" cache_size="33554432" depth="4" cache_type="0" cpuset="0x7">
	  <object type="Cache" cache_size="8388608" depth="3" cache_type="0" cpuset="0x3">` + core("0x1") + core("0x2") + `</object>
	  <object type="Cache" cache_size="8388608" depth="3" cache_type="0" cpuset="0x4">` + core("0x4") + `</object>
	  </object>
	</object></topology>`
	g, err := Read([]byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, "")
	want := []vfact{
		{"/cluster0", "cluster", "cluster", 0, 1, ""},
		{"/cluster0/n", "node", "n", -1, 1, ""},
		{"/cluster0/n/L3cache0", "cache", "L3cache", 0, 8192, ""},
		{"/cluster0/n/L3cache0/core0", "core", "core", 0, 1, ""},
		{"/cluster0/n/L3cache0/core1", "core", "core", 1, 1, ""},
		{"/cluster0/n/L3cache1", "cache", "L3cache", 1, 8192, ""},
		{"/cluster0/n/L3cache1/core2", "core", "core", 2, 1, ""},
	}
	if got := facts(g); !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestHosts(t *testing.T) {
	for _, c := range []struct {
		host, name, basename string
		id                   int64
	}{
		{"node007", "node007", "node", 7},
		{"login", "login", "login", -1},
		{"rack2-n00", "rack2-n00", "rack2-n", 0},
		{"42", "42", "", 42},
		{"big99999999999999999999999", "big99999999999999999999999", "big99999999999999999999999", -1},
	} {
		info := `<info name="HostName" value="` + c.host + `"/>`
		if c.host == "" {
			info = ""
		}
		g, err := Read([]byte(`<topology><object type="Machine">`+info+`</object></topology>`), "")
		if err != nil {
			t.Fatal(err)
		}
		v := g.V(1)
		if v.Name != c.name || v.Basename != c.basename || v.ID != c.id || v.Rank != 0 {
			t.Errorf("%q: name %q basename %q id %d rank %d", c.host, v.Name, v.Basename, v.ID, v.Rank)
		}
	}
}

// TestNoHostName: a Machine without a HostName makes no vertex (Fluxion
// has no name for it); its children attach to cluster0.
func TestNoHostName(t *testing.T) {
	g, err := Read([]byte(`<topology><object type="Machine"><object type="Core"/></object></topology>`), "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range facts(g) {
		got = append(got, f.path)
	}
	if want := []string{"/cluster0", "/cluster0/core0"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSeveralMachines(t *testing.T) {
	doc := `<topology><object type="System">
	  <object type="Machine"><info name="HostName" value="a1"/><object type="Core"/></object>
	  <object type="Machine"><info name="HostName" value="a2"/><object type="Core"/></object>
	</object></topology>`
	g, err := Read([]byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, "")
	var got []string
	for _, f := range facts(g) {
		got = append(got, f.path)
	}
	want := []string{"/cluster0", "/cluster0/a1", "/cluster0/a1/core0", "/cluster0/a2", "/cluster0/a2/core1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestErrors(t *testing.T) {
	m := func(body string) string {
		return `<topology><object type="Machine">` + body + `</object></topology>`
	}
	for _, c := range []struct {
		name, doc, want string
		line            int
	}{
		{"empty", "", "no <topology> element", 0},
		{"blank", " \n ", "no <topology> element", 0},
		{"text", "hello", "text before <topology>", 1},
		{"not xml", "<topology><object", "malformed XML", 1},
		{"unclosed", "<topology>\n<object type=\"Machine\">", "malformed XML: unexpected EOF", 2},
		{"mismatched", "<topology><object type=\"Machine\"></topology>", "malformed XML", 1},
		{"wrong root", "<graphml/>", "root element is <graphml>, want <topology>", 1},
		{"no root object", "<topology/>", "<topology> has no root object", 1},
		{"two roots", "<topology><object type=\"Machine\"/>\n<object type=\"Machine\"/></topology>",
			"<topology> has 2 root objects, want 1", 2},
		{"after topology", m("") + "<topology/>", "element <topology> after </topology>", 1},
		{"text after topology", m("") + "x", "text after </topology>", 1},
		{"version 3", `<topology version="3.0">` + "<object type=\"Machine\"/></topology>",
			`unsupported hwloc XML version "3.0"`, 1},
		{"no type", m("<object/>"), "object without a type attribute", 1},
		{"unknown type", m("\n<object type=\"Bogus\"/>"), `unknown object type "Bogus"`, 2},
		{"cache depth", m(`<object type="Cache"/>`), "Cache object without a depth attribute", 1},
		{"cache depth 9", m(`<object type="Cache" depth="9"/>`), "Cache object with unsupported depth 9", 1},
		{"icache depth 4", m(`<object type="Cache" depth="4" cache_type="2"/>`), "unsupported depth 4", 1},
		{"cache size", m(`<object type="L2Cache" cache_size="big"/>`),
			`object attribute cache_size="big" is not a non-negative integer`, 1},
		{"osdev type", m(`<object type="OSDev" osdev_type="-1"/>`),
			`object attribute osdev_type="-1" is not a non-negative integer`, 1},
		{"storage size", m("\n\n" + `<object type="OSDev" name="sda" osdev_type="0"><info name="Size" value="1T"/></object>`),
			`block device "sda" has an invalid Size "1T"`, 3},
		{"encoding", `<?xml version="1.0" encoding="ISO-8859-1"?><topology/>`, "malformed XML", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Read([]byte(c.doc), "")
			if err == nil {
				t.Fatalf("no error, %d vertices", g.NumVertices())
			}
			if g != nil {
				t.Error("graph returned with error")
			}
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("%T %v is not an *Error", err, err)
			}
			if !strings.Contains(he.Reason, c.want) {
				t.Errorf("reason %q, want %q", he.Reason, c.want)
			}
			if he.Line != c.line {
				t.Errorf("line %d, want %d (%v)", he.Line, c.line, err)
			}
			if !strings.HasPrefix(err.Error(), "hwloc: ") {
				t.Errorf("message %q", err.Error())
			}
		})
	}
}

// TestLenient checks inputs hwloc tolerates and Read accepts.
func TestLenient(t *testing.T) {
	for _, doc := range []string{
		// Unknown elements, attributes, comments and an info without a name.
		`<!-- x --><topology><?pi x?><object type="machine" foo="bar"><info value="v"/><userdata name="u">x</userdata>
		 <distances nbobjs="1"><latency value="1"/></distances><object type="pu"/></object></topology>`,
		// A block device without Size: size 0.
		`<topology><object type="Machine"><object type="OSDev" name="sda" osdev_type="0"/></object></topology>`,
		// An OS device without osdev_type is not represented.
		`<topology><object type="Machine"><object type="OSDev" name="cuda0"/></object></topology>`,
	} {
		g, err := Read([]byte(doc), "")
		if err != nil {
			t.Errorf("%v\n%s", err, doc)
			continue
		}
		checkInvariants(t, g, "")
	}
}
