package hwloc

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// hwlocDir holds the hwloc XML corpus, relative to this package directory.
// It is read, never copied; tests skip when it is absent.
const hwlocDir = "../../shared/conformance/data/hwloc-data"

func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(hwlocDir, rel))
	if os.IsNotExist(err) {
		t.Skipf("corpus file %s not present", rel)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// seq returns prefix+i for i in [from, to].
func seq(prefix string, from, to int) []string {
	var s []string
	for i := from; i <= to; i++ {
		s = append(s, fmt.Sprintf("%s%d", prefix, i))
	}
	return s
}

// byPath returns the single vertex at path p.
func byPath(t *testing.T, g *graph.Graph, p string) graph.VertexID {
	t.Helper()
	l := g.ByPath(p)
	if len(l) != 1 {
		t.Fatalf("ByPath(%q) = %v, want one vertex", p, l)
	}
	return l[0]
}

// childNames lists the names of v's children in out-edge order.
func childNames(g *graph.Graph, v graph.VertexID) []string {
	var s []string
	for _, h := range g.Out(v) {
		s = append(s, g.V(h.Other).Name)
	}
	return s
}

// checkInvariants verifies what every graph Read builds must satisfy: a
// cluster0 root, a containment tree whose pre-order is the creation
// order, uniq_id = index, paths built from names, names from basename and
// id (except hosts), node ranks 0, 1, ... and only allowed types.
func checkInvariants(t *testing.T, g *graph.Graph, allowlist string) {
	t.Helper()
	allow := parseAllowlist(allowlist)
	root := g.Root(graph.Containment)
	if root != 0 {
		t.Fatalf("containment root = %d, want 0", root)
	}
	r := g.V(0)
	if p, _ := r.PathIn(graph.Containment); r.Name != "cluster0" || r.Basename != "cluster" || r.ID != 0 ||
		r.Rank != -1 || r.Size != 1 || g.TypeName(0) != "cluster" || p != "/cluster0" {
		t.Errorf("root = %+v", *r)
	}
	if g.NumEdges() != g.NumVertices()-1 {
		t.Errorf("%d edges for %d vertices", g.NumEdges(), g.NumVertices())
	}
	next := graph.VertexID(0)
	nodeRank := int64(0)
	var visit func(v graph.VertexID, parentPath string)
	visit = func(v graph.VertexID, parentPath string) {
		if v != next {
			t.Fatalf("pre-order visits %d, want %d (creation order)", v, next)
		}
		next++
		x := g.V(v)
		typ := g.TypeName(v)
		if x.UniqID != int64(v) {
			t.Errorf("%s: uniq_id %d, want %d", x.Name, x.UniqID, v)
		}
		if v != 0 {
			name := typ
			if typ == "cache" {
				name = x.Basename // caches are allowed by level: L1cache, ...
			}
			if allow != nil && !allow[name] {
				t.Errorf("%s: type %s not in allowlist %q", x.Name, typ, allowlist)
			}
			if len(g.In(v)) != 1 {
				t.Errorf("%s: %d in-edges", x.Name, len(g.In(v)))
			}
			if p, _ := x.PathIn(graph.Containment); p != parentPath+"/"+x.Name {
				t.Errorf("%s: path %q, want %q", x.Name, p, parentPath+"/"+x.Name)
			}
			if typ == "node" {
				if x.Rank != nodeRank {
					t.Errorf("%s: rank %d, want %d", x.Name, x.Rank, nodeRank)
				}
				nodeRank++
			} else {
				if x.Rank != -1 {
					t.Errorf("%s: rank %d, want -1", x.Name, x.Rank)
				}
				if want := graph.DefaultName(x.Basename, x.ID); x.Name != want {
					t.Errorf("name %q, want %q", x.Name, want)
				}
			}
		}
		p, _ := x.PathIn(graph.Containment)
		for _, h := range g.Out(v) {
			if h.Subsystem != graph.Containment {
				t.Errorf("%s: edge in subsystem %d", x.Name, h.Subsystem)
			}
			visit(h.Other, p)
		}
	}
	visit(0, "")
	if int(next) != g.NumVertices() {
		t.Errorf("tree reaches %d of %d vertices", next, g.NumVertices())
	}
}

// Allowlists as resource-query builds them for the t3026 cases.
const (
	wNSCS  = "cluster,node,socket,core,storage"
	wNSCGS = "cluster,node,socket,core,gpu,storage"
	wNSC   = "cluster,node,socket,core"
)

// TestCorpusLoads loads every corpus XML with every allowlist the t3026
// cases use and with no allowlist.
func TestCorpusLoads(t *testing.T) {
	var files []string
	err := filepath.WalkDir(hwlocDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".xml") {
			files = append(files, p)
		}
		return err
	})
	if os.IsNotExist(err) || len(files) == 0 {
		t.Skip("hwloc corpus not present")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"", wNSC, wNSCS, wNSCGS} {
			t.Run(filepath.Base(filepath.Dir(f))+"/"+w, func(t *testing.T) {
				g, err := Read(data, w)
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, g, w)
				if n := len(g.ByType(graph.TypeNode)); n != 1 {
					t.Errorf("%d node vertices, want 1", n)
				}
			})
		}
	}
}

// TestCoronaSmallDrive checks the facts visible in
// node_local_storage/corona-small-drive.R.out (t3026 case 2, -W
// node,socket,core,storage): the node is corona116 under cluster0; socket0
// holds core0..core5, then the 1562 GB storage0 (an I/O child of the
// filtered group holding those cores), then core6..core23.
func TestCoronaSmallDrive(t *testing.T) {
	g, err := Read(readCorpus(t, "001N/node_local_storage/corona/0.xml"), wNSCS)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, wNSCS)
	node := byPath(t, g, "/cluster0/corona116")
	if g.TypeName(node) != "node" || g.V(node).ID != 116 {
		t.Errorf("corona116: type %s id %d", g.TypeName(node), g.V(node).ID)
	}
	s0 := byPath(t, g, "/cluster0/corona116/socket0")
	want := append(append(seq("core", 0, 5), "storage0"), seq("core", 6, 23)...)
	if got := childNames(g, s0); !slices.Equal(got, want) {
		t.Errorf("socket0 children = %v\nwant %v", got, want)
	}
	st := g.V(byPath(t, g, "/cluster0/corona116/socket0/storage0"))
	if st.Size != 1562 || st.Unit() != "" {
		t.Errorf("storage0 size %d unit %q, want 1562", st.Size, st.Unit())
	}
	// The storage vertex is created when reached: right after core5.
	if c5 := byPath(t, g, "/cluster0/corona116/socket0/core5"); int64(c5)+1 != st.UniqID {
		t.Errorf("storage0 uniq_id %d, core5 %d", st.UniqID, c5)
	}
}

// storageIDs lists the LinuxDeviceID property of the storage vertices in
// vertex order (the order of the JGF "nodes" array), as the t3026
// extract_storage_ids filter does.
func storageIDs(g *graph.Graph) []string {
	var ids []string
	st, _ := g.Types.Lookup("storage")
	for _, v := range g.ByType(graph.TypeID(st)) {
		if id, ok := g.V(v).Prop("LinuxDeviceID"); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestLinuxDeviceID checks node_local_storage/corona-LinuxDeviceID.out and
// catalyst-LinuxDeviceID.out (t3026 cases 3 and 9, -W
// node,socket,core,gpu,storage).
func TestLinuxDeviceID(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"001N/node_local_storage/corona/0.xml", []string{"259:0"}},
		{"001N/node_local_storage/catalyst/0.xml", []string{"8:0", "8:16", "8:32", "8:48"}},
	} {
		g, err := Read(readCorpus(t, c.file), wNSCGS)
		if err != nil {
			t.Fatal(err)
		}
		if got := storageIDs(g); !slices.Equal(got, c.want) {
			t.Errorf("%s: LinuxDeviceIDs %v, want %v", c.file, got, c.want)
		}
		for _, v := range g.ByType(graph.TypeGPU) {
			if _, ok := g.V(v).Prop("LinuxDeviceID"); ok {
				t.Errorf("%s: gpu %s has LinuxDeviceID", c.file, g.V(v).Name)
			}
		}
	}
}

// TestLassenFullDrive checks node_local_storage/lassen-full-drive.R.out
// (t3026 case 4): lassen6/socket0 holds core0..core19, the 1562 GB
// storage0, then gpu0 and gpu1 (I/O children in PCI order).
func TestLassenFullDrive(t *testing.T) {
	g, err := Read(readCorpus(t, "001N/node_local_storage/lassen/0.xml"), wNSCGS)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, wNSCGS)
	s0 := byPath(t, g, "/cluster0/lassen6/socket0")
	want := append(seq("core", 0, 19), "storage0", "gpu0", "gpu1")
	if got := childNames(g, s0); !slices.Equal(got, want) {
		t.Errorf("socket0 children = %v\nwant %v", got, want)
	}
	if st := g.V(byPath(t, g, "/cluster0/lassen6/socket0/storage0")); st.Size != 1562 {
		t.Errorf("storage0 size %d, want 1562", st.Size)
	}
	for _, n := range []string{"gpu0", "gpu1"} {
		v := g.V(byPath(t, g, "/cluster0/lassen6/socket0/"+n))
		if v.Size != 1 || g.TypeName(graph.VertexID(v.UniqID)) != "gpu" {
			t.Errorf("%s: %+v", n, *v)
		}
	}
}

// TestCatalystDrives checks node_local_storage/catalyst-full-drive.R.out
// and catalyst-small-drive.R.out (t3026 cases 7 and 8):
// catalyst321/socket1 holds core12..core23 then storage6..storage9, each of
// 195 GB (ids are OS device logical indexes: six network devices come
// first).
func TestCatalystDrives(t *testing.T) {
	g, err := Read(readCorpus(t, "001N/node_local_storage/catalyst/0.xml"), wNSCGS)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, wNSCGS)
	s1 := byPath(t, g, "/cluster0/catalyst321/socket1")
	want := append(seq("core", 12, 23), seq("storage", 6, 9)...)
	if got := childNames(g, s1); !slices.Equal(got, want) {
		t.Errorf("socket1 children = %v\nwant %v", got, want)
	}
	for i := 6; i <= 9; i++ {
		v := g.V(byPath(t, g, fmt.Sprintf("/cluster0/catalyst321/socket1/storage%d", i)))
		if v.Size != 195 || v.ID != int64(i) {
			t.Errorf("storage%d: size %d id %d", i, v.Size, v.ID)
		}
	}
}

// TestSibling checks that the topology of sibling/003.R.out (t3026 sibling
// case 3, -W node,socket,core) loads; the expected output only shows that
// the jobspec does not match, so only the allowlist is checked here.
func TestSibling(t *testing.T) {
	g, err := Read(readCorpus(t, "001N/amd_gpu/corona11.xml"), wNSC)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, g, wNSC)
	if len(g.ByType(graph.TypeSocket)) == 0 || len(g.ByType(graph.TypeCore)) == 0 {
		t.Error("no sockets or cores")
	}
}
