package grug

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// Corpus locations, relative to this package directory. They are read, never
// copied; tests skip when they are absent.
const (
	grugDir   = "../../shared/conformance/data/resource/grugs"
	randomDir = "../../shared/conformance-random/data/random"
)

// allKeys declares every GRUG key with the defaults used by the corpus.
const allKeys = `
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
`

// doc wraps a <graph> body into a GRUG document declaring every key.
func doc(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">` + allKeys + `
  <graph id="test" edgedefault="directed">
` + body + `
  </graph>
</graphml>
`
}

// vtx and edg write recipe elements: data is "key=value" pairs.
func vtx(id string, data ...string) string {
	return elem(`<node id="`+id+`">`, "</node>", data)
}

func edg(src, dst string, data ...string) string {
	return elem(`<edge source="`+src+`" target="`+dst+`">`, "</edge>", data)
}

func elem(open, close string, data []string) string {
	var b strings.Builder
	b.WriteString("    " + open + "\n")
	for _, d := range data {
		k, v, _ := strings.Cut(d, "=")
		fmt.Fprintf(&b, "      <data key=%q>%s</data>\n", k, v)
	}
	b.WriteString("    " + close + "\n")
	return b.String()
}

// ec1 is the recipe of spec examples.md EC1.
var ec1 = doc(
	vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("rack", "type=rack", "basename=rack") +
		vtx("node", "type=node", "basename=node") +
		vtx("core", "type=core", "basename=core") +
		vtx("gpu", "type=gpu", "basename=gpu") +
		vtx("mem", "type=memory", "basename=mem", "size=4") +
		edg("c", "rack", "multi_scale=2", "id_scope=0", "id_start=10", "id_stride=7") +
		edg("rack", "node", "multi_scale=3", "id_scope=1", "id_start=1", "id_stride=2") +
		edg("node", "core", "multi_scale=2", "id_scope=2", "id_start=0", "id_stride=1") +
		edg("node", "gpu", "multi_scale=1", "id_scope=-1", "id_start=0", "id_stride=1") +
		edg("node", "mem", "multi_scale=2", "id_scope=5", "id_start=100", "id_stride=10"))

func mustRead(t testing.TB, data string) *graph.Graph {
	t.Helper()
	g, err := Read([]byte(data))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return g
}

func path(g *graph.Graph, v graph.VertexID, sub string) string {
	s, ok := g.Subsystems.Lookup(sub)
	if !ok {
		return "<no subsystem " + sub + ">"
	}
	p, ok := g.V(v).PathIn(graph.SubsystemID(s))
	if !ok {
		return "<no path>"
	}
	return p
}

func names(g *graph.Graph, vs []graph.VertexID) []string {
	var r []string
	for _, v := range vs {
		r = append(r, g.V(v).Name)
	}
	return r
}

func outNames(g *graph.Graph, v graph.VertexID) []string {
	var r []string
	for _, h := range g.Out(v) {
		r = append(r, g.V(h.Other).Name)
	}
	return r
}

// checkInvariants asserts properties every generated graph has.
func checkInvariants(t *testing.T, g *graph.Graph) {
	t.Helper()
	for i := 0; i < g.NumVertices(); i++ {
		v := graph.VertexID(i)
		vx := g.V(v)
		if vx.UniqID != int64(i) {
			t.Fatalf("vertex %d has uniq_id %d", i, vx.UniqID)
		}
		if len(vx.Paths) == 0 {
			t.Fatalf("vertex %d (%s) has no path", i, vx.Name)
		}
		for _, p := range vx.Paths {
			if !strings.HasSuffix(p.Path, "/"+vx.Name) {
				t.Fatalf("vertex %d (%s): path %q does not end with its name", i, vx.Name, p.Path)
			}
			if !slices.Contains(g.ByPath(p.Path), v) {
				t.Fatalf("vertex %d: path %q not indexed", i, p.Path)
			}
		}
		if vx.Type != graph.TypeNode && vx.Rank != -1 {
			t.Fatalf("vertex %d (%s, %s) has rank %d", i, vx.Name, g.TypeName(v), vx.Rank)
		}
	}
	// node ranks are 0, 1, ... in creation order
	nodes := g.ByType(graph.TypeNode)
	for i, v := range nodes {
		if g.V(v).Rank != int64(i) {
			t.Fatalf("node %d (%s) has rank %d", i, g.V(v).Name, g.V(v).Rank)
		}
	}
	if len(g.RootSubsystems()) == 0 {
		t.Fatalf("no roots")
	}
	for _, s := range g.RootSubsystems() {
		r := g.Root(s)
		if p, _ := g.V(r).PathIn(s); p != "/"+g.V(r).Name {
			t.Fatalf("root of %s has path %q", g.SubsystemName(s), p)
		}
	}
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.E(graph.EdgeID(e))
		if _, ok := g.V(ed.Dst).PathIn(ed.Subsystem); !ok {
			t.Fatalf("edge %d target %s has no path in its subsystem %s", e, g.V(ed.Dst).Name, g.SubsystemName(ed.Subsystem))
		}
	}
}

func TestEC1(t *testing.T) {
	g := mustRead(t, ec1)
	checkInvariants(t, g)
	want := []string{"c0", "rack10", "rack11",
		"node1", "node3", "node5", "node7", "node9", "node11"}
	for i := 0; i < 12; i++ {
		want = append(want, fmt.Sprintf("core%d", i))
	}
	for i := 0; i < 6; i++ {
		want = append(want, "gpu")
	}
	for i := 0; i < 12; i++ {
		want = append(want, fmt.Sprintf("mem%d", 100+10*i))
	}
	if g.NumVertices() != len(want) {
		t.Fatalf("got %d vertices, want %d", g.NumVertices(), len(want))
	}
	for i, name := range want {
		v := g.V(graph.VertexID(i))
		if v.Name != name || v.UniqID != int64(i) {
			t.Errorf("vertex %d: got %s (uniq_id %d), want %s", i, v.Name, v.UniqID, name)
		}
		wantRank := int64(-1)
		if i >= 3 && i <= 8 {
			wantRank = int64(i - 3)
		}
		if v.Rank != wantRank {
			t.Errorf("vertex %d (%s): rank %d, want %d", i, name, v.Rank, wantRank)
		}
	}
	if v := g.V(21); v.ID != -1 || v.Basename != "gpu" {
		t.Errorf("gpu: id %d basename %s", v.ID, v.Basename)
	}
	if p := path(g, 21, "containment"); p != "/c0/rack10/node1/gpu" {
		t.Errorf("gpu path %q", p)
	}
	if p := path(g, 38, "containment"); p != "/c0/rack11/node11/mem210" {
		t.Errorf("mem path %q", p)
	}
	if g.V(38).Size != 4 || g.V(0).Size != 1 {
		t.Errorf("sizes %d %d", g.V(38).Size, g.V(0).Size)
	}
	// cores two per node in node order
	if got := outNames(g, 3); !slices.Equal(got, []string{"core0", "core1", "gpu", "mem100", "mem110"}) {
		t.Errorf("node1 children %v", got)
	}
	if got := outNames(g, 8); !slices.Equal(got, []string{"core10", "core11", "gpu", "mem200", "mem210"}) {
		t.Errorf("node11 children %v", got)
	}
	// resource-query -e statistics
	types, nameKeys, pathKeys := g.IndexSizes()
	if g.NumVertices() != 39 || g.NumEdges() != 38 || types != 6 || nameKeys != 34 || pathKeys != 39 {
		t.Errorf("stats: %d vertices, %d edges, by_type %d, by_name %d, by_path %d",
			g.NumVertices(), g.NumEdges(), types, nameKeys, pathKeys)
	}
	if n := len(g.ByRank(-1)); n != 33 {
		t.Errorf("rank -1: %d vertices", n)
	}
	if r := g.Ranks(); !slices.Equal(r, []int64{-1, 0, 1, 2, 3, 4, 5}) {
		t.Errorf("ranks %v", r)
	}
	for r := int64(0); r < 6; r++ {
		if n := len(g.ByRank(r)); n != 1 {
			t.Errorf("rank %d: %d vertices", r, n)
		}
	}
}

func readCorpus(t *testing.T, rel string) *graph.Graph {
	t.Helper()
	p := filepath.Join(grugDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file %s not available", p)
	}
	g, err := ReadFile(p)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	checkInvariants(t, g)
	return g
}

// TestTiny checks spec formats.md §1.5.
func TestTiny(t *testing.T) {
	g := readCorpus(t, "tiny.graphml")
	if g.NumVertices() != 100 || g.NumEdges() != 99 {
		t.Fatalf("%d vertices, %d edges", g.NumVertices(), g.NumEdges())
	}
	ranges := []struct {
		typ      string
		from, to int
	}{
		{"cluster", 0, 0}, {"rack", 1, 1}, {"node", 2, 3}, {"socket", 4, 7},
		{"core", 8, 79}, {"gpu", 80, 83}, {"memory", 84, 99},
	}
	for _, r := range ranges {
		for v := r.from; v <= r.to; v++ {
			if tn := g.TypeName(graph.VertexID(v)); tn != r.typ {
				t.Fatalf("vertex %d is a %s, want %s", v, tn, r.typ)
			}
		}
	}
	if g.V(0).Name != "tiny0" || g.V(1).Name != "rack0" || g.V(2).Name != "node0" || g.V(3).Name != "node1" {
		t.Errorf("names %s %s %s %s", g.V(0).Name, g.V(1).Name, g.V(2).Name, g.V(3).Name)
	}
	// sockets: node0's two, then node1's two
	if got := names(g, []graph.VertexID{4, 5, 6, 7}); !slices.Equal(got, []string{"socket0", "socket1", "socket0", "socket1"}) {
		t.Errorf("sockets %v", got)
	}
	if p := path(g, 6, "containment"); p != "/tiny0/rack0/node1/socket0" {
		t.Errorf("vertex 6 path %q", p)
	}
	// cores local to the node: 0-17, 18-35, 0-17, 18-35
	for s := 0; s < 4; s++ {
		for i := 0; i < 18; i++ {
			v := graph.VertexID(8 + 18*s + i)
			want := fmt.Sprintf("core%d", 18*(s%2)+i)
			if g.V(v).Name != want {
				t.Fatalf("vertex %d is %s, want %s", v, g.V(v).Name, want)
			}
		}
	}
	// out-edges of socket1 of node1: 18 cores, its gpu, 4 memories
	var want []string
	for i := 18; i < 36; i++ {
		want = append(want, fmt.Sprintf("core%d", i))
	}
	want = append(want, "gpu1", "memory4", "memory5", "memory6", "memory7")
	if got := outNames(g, 7); !slices.Equal(got, want) {
		t.Errorf("socket out-edges %v", got)
	}
	if g.V(84).Size != 2 || g.V(84).Unit() != "GB" {
		t.Errorf("memory size %d unit %q", g.V(84).Size, g.V(84).Unit())
	}
	// types interned in document order after the fixed prefix
	if id, _ := g.Types.Lookup("memory"); g.Types.Name(id) != "memory" || id != int32(g.Types.Len()-1) {
		t.Errorf("memory interned as %d of %d", id, g.Types.Len())
	}
	types, nameKeys, pathKeys := g.IndexSizes()
	t.Logf("tiny: by_type %d by_name %d by_path %d", types, nameKeys, pathKeys)
}

func TestPower(t *testing.T) {
	g := readCorpus(t, "power.graphml")
	cont := graph.Containment
	pw, ok := g.Subsystems.Lookup("power")
	if !ok || pw != 1 {
		t.Fatalf("power subsystem interned as %d (%v)", pw, ok)
	}
	power := graph.SubsystemID(pw)
	if g.NumVertices() != 4042 || g.NumEdges() != 4116 {
		t.Errorf("%d vertices, %d edges", g.NumVertices(), g.NumEdges())
	}
	root := g.Root(power)
	if root == graph.NoVertex || g.V(root).Name != "powerpanel0" || root != 3537 {
		t.Fatalf("power root %d", root)
	}
	if g.Root(cont) != 0 {
		t.Errorf("containment root %d", g.Root(cont))
	}
	// pdus are associated into the power subsystem below the panel
	pdus := g.ByName("pdu2")
	if len(pdus) != 1 || path(g, pdus[0], "power") != "/powerpanel0/pdu2" || path(g, pdus[0], "containment") != "/power0/rack2/pdu2" {
		t.Fatalf("pdu2 %v paths %v", pdus, g.V(pdus[0]).Paths)
	}
	// nodes of rack r are associated by path to pdu r
	for _, name := range []string{"node0", "node17", "node18", "node53", "node71"} {
		v := g.ByName(name)[0]
		var n int
		fmt.Sscanf(name, "node%d", &n)
		want := fmt.Sprintf("/powerpanel0/pdu%d/%s", n/18, name)
		if p := path(g, v, "power"); p != want {
			t.Errorf("%s power path %q, want %q", name, p, want)
		}
		ch := g.Out(v)
		last := ch[len(ch)-2:]
		if g.V(last[0].Other).Name != "power0" || last[0].Subsystem != power || g.V(last[1].Other).Name != "power1" {
			t.Errorf("%s power children %v", name, outNames(g, v))
		}
		if p := path(g, last[1].Other, "power"); p != want+"/power1" {
			t.Errorf("%s power1 path %q", name, p)
		}
	}
	var pdu2 []string
	for _, h := range g.Out(pdus[0]) {
		if h.Subsystem == power {
			pdu2 = append(pdu2, g.V(h.Other).Name)
		}
	}
	if len(pdu2) != 58 || pdu2[0] != "node36" || pdu2[17] != "node53" || pdu2[18] != "power0" || pdu2[57] != "power39" {
		t.Errorf("pdu2 power children %v", pdu2)
	}
	if n := len(g.Out(root)); n != 204 {
		t.Errorf("panel has %d children", n)
	}
	logSummary(t, "power", g)
}

func TestMTL3Associate(t *testing.T) {
	g := readCorpus(t, "mt-storage/mtl3.graphml")
	// the mtl1 units' containment paths are replaced by the association
	// below mtl2unit0; the old paths stay indexed
	units := g.ByType(graph.TypeID(mustLookup(t, g.Types, "mtl1unit")))
	if len(units) != 2 {
		t.Fatalf("%d mtl1 units", len(units))
	}
	for _, u := range units {
		p := path(g, u, "containment")
		if !strings.HasPrefix(p, "/mtl3-test0/mtl2unit0/mtl1unit") {
			t.Errorf("mtl1unit path %q", p)
		}
	}
	_, _, pathKeys := g.IndexSizes()
	if pathKeys != g.NumVertices()+2 {
		t.Errorf("by_path has %d keys for %d vertices", pathKeys, g.NumVertices())
	}
	mtl2 := g.ByName("mtl2unit0")[0]
	if got := outNames(g, mtl2); !slices.Equal(got, []string{"mtl1unit0", "mtl1unit1"}) {
		t.Errorf("mtl2unit0 children %v", got)
	}
	logSummary(t, "mtl3", g)
}

func mustLookup(t *testing.T, n *graph.Names, s string) int32 {
	t.Helper()
	id, ok := n.Lookup(s)
	if !ok {
		t.Fatalf("%q not interned", s)
	}
	return id
}

func logSummary(t *testing.T, name string, g *graph.Graph) {
	t.Helper()
	types, nameKeys, pathKeys := g.IndexSizes()
	var roots []string
	for _, s := range g.RootSubsystems() {
		roots = append(roots, g.SubsystemName(s)+"="+g.V(g.Root(s)).Name)
	}
	t.Logf("%-28s %6d vertices %6d edges  by_type %2d by_name %5d by_path %6d  nodes %4d  roots %v",
		name, g.NumVertices(), g.NumEdges(), types, nameKeys, pathKeys, len(g.ByType(graph.TypeNode)), roots)
}

// TestCorpus loads every corpus recipe.
func TestCorpus(t *testing.T) {
	var files []string
	for _, pat := range []string{grugDir + "/*.graphml", grugDir + "/*/*.graphml", randomDir + "/*/graph.graphml"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("corpus not available")
	}
	for _, f := range files {
		g, err := ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		checkInvariants(t, g)
		if g.Root(graph.Containment) == graph.NoVertex {
			t.Errorf("%s: no containment root", f)
		}
		if !strings.Contains(f, "random") {
			logSummary(t, strings.TrimPrefix(f, grugDir+"/"), g)
		}
	}
	t.Logf("%d recipes loaded", len(files))
}

// TestScalesPopQuirk checks that finishing a vertex reached through an
// ASSOCIATE edge pops its parent's scale (formats.md §1.2), which changes the
// ids of later siblings.
func TestScalesPopQuirk(t *testing.T) {
	body := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		vtx("x", "type=cluster", "basename=x") +
		vtx("b", "type=node", "basename=b") +
		edg("c", "a", "multi_scale=3") +
		edg("a", "x", "gen_method=ASSOCIATE_IN", "e_subsystem=assoc") +
		edg("a", "b", "multi_scale=2", "id_scope=1")
	g := mustRead(t, doc(body))
	// scales = [] when a→b runs, so W = 1 and ids are local
	got := names(g, g.ByType(graph.TypeNode))
	if !slices.Equal(got, []string{"b0", "b1", "b0", "b1", "b0", "b1"}) {
		t.Errorf("got %v", got)
	}
	// without the associate edge the ids are global
	body2 := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		vtx("b", "type=node", "basename=b") +
		edg("c", "a", "multi_scale=3") +
		edg("a", "b", "multi_scale=2", "id_scope=1")
	g = mustRead(t, doc(body2))
	got = names(g, g.ByType(graph.TypeNode))
	if !slices.Equal(got, []string{"b0", "b1", "b2", "b3", "b4", "b5"}) {
		t.Errorf("got %v", got)
	}
}

func TestAssociate(t *testing.T) {
	body := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		vtx("x", "type=cluster", "basename=x") +
		edg("c", "a", "multi_scale=2") +
		edg("a", "x", "gen_method=ASSOCIATE_IN", "e_subsystem=assoc")
	g := mustRead(t, doc(body))
	if g.NumVertices() != 3 || g.NumEdges() != 4 {
		t.Fatalf("%d vertices %d edges", g.NumVertices(), g.NumEdges())
	}
	// the racks have no "assoc" path, so c0's assoc path is "" + "/c0",
	// set (and indexed) once per rack
	if p := path(g, 0, "assoc"); p != "/c0" {
		t.Errorf("path %q", p)
	}
	if got := g.ByPath("/c0"); !slices.Equal(got, []graph.VertexID{0, 0, 0}) {
		t.Errorf("by_path /c0 = %v", got)
	}
	as := graph.SubsystemID(mustLookup(t, g.Subsystems, "assoc"))
	for _, a := range []graph.VertexID{1, 2} {
		out := g.Out(a)
		if len(out) != 1 || out[0].Other != 0 || out[0].Subsystem != as {
			t.Errorf("a%d out-edges %v", a-1, out)
		}
	}
	// a second association over an existing edge reuses it and retags it
	body2 := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		edg("c", "a", "multi_scale=2") +
		vtx("root2", "root=1", "type=cluster", "basename=c", "subsystem=containment") +
		vtx("r", "type=rack", "basename=r") +
		edg("root2", "r", "gen_method=ASSOCIATE_IN", "e_subsystem=other")
	// root2 reuses the containment root c0 and associates the racks again:
	// edges c0→a0, c0→a1 are reused and moved to "other". (r must follow
	// root2 in document order, else the walk starts at r and root2→r is not
	// a tree edge.)
	g = mustRead(t, doc(body2))
	other := graph.SubsystemID(mustLookup(t, g.Subsystems, "other"))
	if g.NumVertices() != 3 || g.NumEdges() != 2 {
		t.Fatalf("%d vertices %d edges", g.NumVertices(), g.NumEdges())
	}
	for _, h := range g.Out(0) {
		if h.Subsystem != other || g.E(h.Edge).Subsystem != other {
			t.Errorf("edge %v not retagged", h)
		}
	}
	if p := path(g, 2, "other"); p != "/a1" {
		t.Errorf("a1 other path %q", p)
	}
}

func TestAssociateByPath(t *testing.T) {
	// racks r0,r1 each with 2 nodes; switches s0,s1 made in a second
	// subsystem are associated to nodes of the rack with the same index
	// by comparing containment paths.
	body := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("rack", "type=rack", "basename=rack") +
		vtx("sw", "type=switch", "basename=sw") +
		vtx("node", "type=node", "basename=node") +
		edg("c", "rack", "multi_scale=2") +
		edg("rack", "sw", "id_scope=1") +
		edg("rack", "node", "multi_scale=2", "id_scope=1") +
		vtx("net", "root=1", "type=net", "basename=net", "subsystem=net") +
		vtx("nsw", "type=switch", "basename=sw", "subsystem=net") +
		vtx("nnode", "type=node", "basename=node", "subsystem=net") +
		edg("net", "nsw", "gen_method=ASSOCIATE_IN", "e_subsystem=net") +
		edg("nsw", "nnode", "gen_method=ASSOCIATE_BY_PATH_IN", "e_subsystem=net", "as_tgt_uplvl=1", "as_src_uplvl=1")
	g := mustRead(t, doc(body))
	checkInvariants(t, g)
	want := map[string]string{
		"/c0/rack0/node0": "/net0/sw0/node0",
		"/c0/rack0/node1": "/net0/sw0/node1",
		"/c0/rack1/node2": "/net0/sw1/node2",
		"/c0/rack1/node3": "/net0/sw1/node3",
	}
	for cp, np := range want {
		v := g.ByPath(cp)
		if len(v) != 1 {
			t.Fatalf("%s: %v", cp, v)
		}
		if p := path(g, v[0], "net"); p != np {
			t.Errorf("%s: net path %q, want %q", cp, p, np)
		}
	}
}

func TestPrefix(t *testing.T) {
	tests := []struct {
		path string
		up   int64
		want string
	}{
		{"/power0/rack0/node5", 1, "/power0/rack0/"},
		{"/power0/rack0/node5", 0, "/power0/rack0/node5/"},
		{"/power0/rack0/node5", 2, "/power0/"},
		{"/power0/rack0/node5", 3, ""},
		{"/power0/rack0/node5", 4, ""},
		{"/power0/rack0/node5", -1, "/power0/rack0/node5/"},
		{"", 0, ""},
		{"/a", 0, "/a/"},
		{"/a", 1, ""},
	}
	for _, tc := range tests {
		p := prefixOf(tc.path, tc.up)
		got := p.s
		if p.slash {
			got += "/"
		}
		if got != tc.want {
			t.Errorf("prefix(%q, %d) = %q, want %q", tc.path, tc.up, got, tc.want)
		}
	}
	eq := []struct {
		a, b prefix
		want bool
	}{
		{prefix{"/a/b", true}, prefix{"/a/b/", false}, true},
		{prefix{"/a/b/", false}, prefix{"/a/b", true}, true},
		{prefix{"/a/c", true}, prefix{"/a/b/", false}, false},
		{prefix{"/a/b", true}, prefix{"/a/b/x", false}, false},
		{prefix{}, prefix{}, true},
		{prefix{"", true}, prefix{"/", false}, true},
	}
	for _, tc := range eq {
		if got := tc.a.equal(tc.b); got != tc.want {
			t.Errorf("%v == %v: %v", tc.a, tc.b, got)
		}
	}
}

func TestInterning(t *testing.T) {
	// types are interned in <node> order even for recipe vertices that
	// generate nothing; subsystems: vertex subsystems, then edge ones
	body := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("z", "type=zeta", "basename=z", "subsystem=sz") +
		vtx("a", "type=alpha", "basename=a") +
		vtx("m", "type=mu", "basename=m", "subsystem=sm") +
		edg("c", "a", "e_subsystem=sa") +
		edg("a", "m", "as_tgt_subsystem=sb")
	g := mustRead(t, doc(body))
	n := g.Types.Len()
	if got := []string{g.Types.Name(int32(n - 3)), g.Types.Name(int32(n - 2)), g.Types.Name(int32(n - 1))}; !slices.Equal(got, []string{"zeta", "alpha", "mu"}) {
		t.Errorf("types %v", got)
	}
	var subs []string
	for i := 0; i < g.Subsystems.Len(); i++ {
		subs = append(subs, g.Subsystems.Name(int32(i)))
	}
	if !slices.Equal(subs, []string{"containment", "sz", "sm", "sa", "sb"}) {
		t.Errorf("subsystems %v", subs)
	}
	// m lives in subsystem sm; its parent has no sm path: prefix ""
	if p := path(g, 2, "sm"); p != "/m0" {
		t.Errorf("m path %q", p)
	}
	if g.NumVertices() != 3 {
		t.Errorf("%d vertices", g.NumVertices())
	}
}

func TestValues(t *testing.T) {
	body := vtx("c", "root=1", "type=cluster", "basename=c", "size= 5000000001 ") +
		vtx("n", "type=node", "basename=n", "size=-1") +
		vtx("m", "type=memory", "basename=m", "unit=GB") +
		edg("c", "n", "multi_scale=+2", "id_start=-3", "id_scope=0") +
		edg("n", "m", "multi_scale=2", "id_scope=1", "id_start=7", "id_stride=5")
	g := mustRead(t, doc(body))
	if g.V(0).Size != 5000000001%(1<<32) || g.V(1).Size != 1<<32-1 {
		t.Errorf("sizes %d %d", g.V(0).Size, g.V(1).Size)
	}
	// n ids -3, -2; m ids 7 + (j mod 2)*2*5 + 5i
	if got := names(g, []graph.VertexID{1, 2, 3, 4, 5, 6}); !slices.Equal(got, []string{"n-3", "n-2", "m7", "m12", "m17", "m22"}) {
		t.Errorf("names %v", got)
	}
	if g.V(3).Unit() != "GB" || g.V(3).ID != 7 {
		t.Errorf("m7: %+v", *g.V(3))
	}
}

func TestNoRoot(t *testing.T) {
	// no root recipe vertex: nothing is generated, not an error
	g := mustRead(t, doc(vtx("c", "type=cluster", "basename=c")+vtx("n", "type=node")+edg("c", "n")))
	if g.NumVertices() != 0 || g.Root(graph.Containment) != graph.NoVertex {
		t.Errorf("%d vertices", g.NumVertices())
	}
	// a root without out-edges generates nothing either
	g = mustRead(t, doc(vtx("c", "root=1", "type=cluster", "basename=c")))
	if g.NumVertices() != 0 {
		t.Errorf("%d vertices", g.NumVertices())
	}
}

func TestGenerateTwice(t *testing.T) {
	r, err := Parse([]byte(Cluster("x", 2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New()
	g.Subsystem("error")
	for i := 0; i < 2; i++ {
		if err := r.Generate(g); err != nil {
			t.Fatal(err)
		}
	}
	// second load reuses the root; node ranks restart
	if g.NumVertices() != 13 || g.Root(graph.Containment) != 0 {
		t.Fatalf("%d vertices", g.NumVertices())
	}
	if got := outNames(g, 0); !slices.Equal(got, []string{"node0", "node1", "node0", "node1"}) {
		t.Errorf("root children %v", got)
	}
	if g.V(7).Rank != 0 || g.V(8).Rank != 1 || g.V(7).Name != "node0" {
		t.Errorf("ranks %d %d", g.V(7).Rank, g.V(8).Rank)
	}
	if g.Subsystems.Name(1) != "error" {
		t.Errorf("subsystem 1 is %q", g.Subsystems.Name(1))
	}
}

func TestCluster(t *testing.T) {
	g := mustRead(t, string(Cluster("a&b<c>\"", 3, 4)))
	checkInvariants(t, g)
	if g.NumVertices() != 1+3+12 || g.NumEdges() != 15 {
		t.Fatalf("%d vertices %d edges", g.NumVertices(), g.NumEdges())
	}
	if g.V(0).Name != "a&b<c>\"0" {
		t.Errorf("root %q", g.V(0).Name)
	}
	if got := outNames(g, 3); !slices.Equal(got, []string{"core0", "core1", "core2", "core3"}) {
		t.Errorf("node2 children %v", got)
	}
	if p := path(g, 15, "containment"); p != "/a&b<c>\"0/node2/core3" {
		t.Errorf("path %q", p)
	}
	if g.V(3).Rank != 2 {
		t.Errorf("node2 rank %d", g.V(3).Rank)
	}
}

func TestUnknownMethod(t *testing.T) {
	body := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		vtx("b", "type=node", "basename=b") +
		edg("c", "a", "gen_method=SPLIT") +
		edg("c", "b", "gen_method=multiply") +
		edg("a", "b", "gen_method=ALSO_BAD")
	_, err := Read([]byte(doc(body)))
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("err %v", err)
	}
	// the walk's tree edges are c→a (SPLIT) and a→b (ALSO_BAD); c→b
	// ("multiply" is case sensitive) comes after b was visited, so it is
	// not a tree edge and its method is never examined
	if ge.Fluxion() != "unknown generation method; unknown generation method; " {
		t.Errorf("Fluxion() = %q", ge.Fluxion())
	}
	if ge.Line == 0 || !strings.Contains(ge.Error(), "unknown generation method") {
		t.Errorf("error %v", ge)
	}
	// an unknown method on a non-tree edge is harmless
	body = vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		edg("c", "a") + edg("c", "a", "gen_method=BOGUS") + edg("a", "c", "gen_method=BOGUS")
	g := mustRead(t, doc(body))
	if g.NumVertices() != 2 {
		t.Errorf("%d vertices", g.NumVertices())
	}
	// no gen_method default at all: every tree edge is unknown
	noDefault := strings.Replace(doc(vtx("c", "root=1", "type=cluster")+vtx("a", "type=rack")+edg("c", "a")),
		`<default>MULTIPLY</default>`, "", 1)
	_, err = Read([]byte(noDefault))
	if !errors.As(err, &ge) || ge.Fluxion() != fluxionUnknownMethod {
		t.Errorf("err %v", err)
	}
}

func TestErrors(t *testing.T) {
	good := doc(vtx("c", "root=1", "type=cluster", "basename=c") + vtx("n", "type=node") + edg("c", "n"))
	tests := []struct {
		name   string
		doc    string
		line   int    // 0: don't check
		reason string // substring
	}{
		{"empty", "", 0, "no <graphml>"},
		{"not xml", "hello", 1, "outside the root"},
		{"truncated", good[:len(good)/2], 0, "malformed XML"},
		{"mismatched tag", "<graphml><graph edgedefault=\"directed\"></graphml>", 1, "malformed XML"},
		{"wrong root", "<foo/>", 1, "want <graphml>"},
		{"two roots", "<graphml><graph edgedefault=\"directed\"/></graphml><graphml/>", 1, "more than one root"},
		{"no graph", "<graphml></graphml>", 0, "no <graph>"},
		{"two graphs", "<graphml><graph edgedefault=\"directed\"/><graph edgedefault=\"directed\"/></graphml>", 1, "more than one <graph>"},
		{"no edgedefault", "<graphml><graph/></graphml>", 1, "edgedefault"},
		{"undirected", "<graphml><graph edgedefault=\"undirected\"/></graphml>", 1, "edgedefault"},
		{"undirected edge", strings.Replace(good, `<edge source="c"`, `<edge directed="false" source="c"`, 1), 0, "undirected edge"},
		{"unknown key with default", strings.Replace(good, "<graph ", `<key id="color" for="node" attr.name="color"><default>red</default></key>`+"\n<graph ", 1), 0, "cannot have a default"},
		{"unknown key used", strings.Replace(good, `<data key="type">node</data>`, `<data key="color">red</data>`, 1), 0, "undeclared key"},
		{"declared unknown key used", strings.Replace(strings.Replace(good, "<graph ", `<key id="color" for="node" attr.name="color"/>`+"\n<graph ", 1), `<data key="type">node</data>`, `<data key="color">red</data>`, 1), 0, "not a GRUG vertex attribute"},
		{"key id differs from name", strings.Replace(good, `<key id="type" for="node" attr.name="type"`, `<key id="type" for="node" attr.name="kind"`, 1), 0, "not a GRUG vertex attribute"},
		{"edge key on node", strings.Replace(good, `<data key="type">node</data>`, `<data key="multi_scale">2</data>`, 1), 0, "not a GRUG vertex attribute"},
		{"node key for edge", strings.Replace(good, `<key id="root" for="node"`, `<key id="root" for="edge"`, 1), 0, "cannot have a default"},
		{"key for all with default", strings.Replace(good, `<key id="root" for="node"`, `<key id="root" for="all"`, 1), 0, "cannot have a default"},
		{"bad for", strings.Replace(good, `<key id="type" for="node"`, `<key id="type" for="vertex"`, 1), 0, "invalid for"},
		{"bad attr.type", strings.Replace(good, `attr.name="type" attr.type="string"`, `attr.name="type" attr.type="text"`, 1), 0, "invalid attr.type"},
		{"key without id", strings.Replace(good, `<key id="type" `, `<key `, 1), 0, "no id"},
		{"duplicate key", strings.Replace(good, "<graph ", `<key id="type" for="node" attr.name="type"/>`+"\n<graph ", 1), 0, "duplicate key"},
		{"bad default number", strings.Replace(good, "<default>0</default>", "<default>zero</default>", 1), 0, "bad int value"},
		{"bad number", strings.Replace(good, `<data key="root">1</data>`, `<data key="root">1x</data>`, 1), 0, "bad int value"},
		{"empty number", strings.Replace(good, `<data key="root">1</data>`, `<data key="root"/>`, 1), 0, "bad int value"},
		{"int overflow", doc(vtx("c", "root=1") + vtx("n") + edg("c", "n", "multi_scale=4294967296")), 0, "bad int value"},
		{"long overflow", doc(vtx("c", "root=1", "size=99999999999999999999")), 0, "bad long value"},
		{"node without id", strings.Replace(good, `<node id="n">`, `<node>`, 1), 0, "no id"},
		{"duplicate node", doc(vtx("c") + vtx("c")), 0, "duplicate node id"},
		{"edge to nowhere", doc(vtx("c") + edg("c", "d")), 0, "undeclared node"},
		{"edge without target", strings.Replace(good, `target="n"`, ``, 1), 0, "source and target"},
		{"data without key", strings.Replace(good, `<data key="root">1</data>`, `<data>1</data>`, 1), 0, "no key"},
		{"element in data", strings.Replace(good, `<data key="root">1</data>`, `<data key="root"><b>1</b></data>`, 1), 0, "unexpected element"},
		{"graph data", strings.Replace(good, `<node id="c">`, `<data key="type">x</data><node id="c">`, 1), 0, "on <graph>"},
		{"nested graph", strings.Replace(good, `<node id="n">`, `<node id="n"><graph edgedefault="directed"/>`, 1), 0, "nested"},
		{"bad entity", strings.Replace(good, `>cluster<`, `>&nope;<`, 1), 0, "malformed XML"},
		{"bad charset", `<?xml version="1.0" encoding="latin9"?><graphml/>`, 1, "malformed XML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Read([]byte(tc.doc))
			if err == nil {
				t.Fatalf("no error")
			}
			if g != nil {
				t.Errorf("graph returned with error")
			}
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("error %T %v", err, err)
			}
			if !strings.Contains(ge.Reason, tc.reason) {
				t.Errorf("reason %q does not contain %q", ge.Reason, tc.reason)
			}
			if tc.line != 0 && ge.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", ge.Line, tc.line, ge)
			}
			if ge.Fluxion() != "error in reading grug string; " {
				t.Errorf("Fluxion() = %q", ge.Fluxion())
			}
			t.Log(err)
		})
	}
	// the good document itself loads
	mustRead(t, good)
}

func TestErrorLines(t *testing.T) {
	d := doc(vtx("c", "root=1", "type=cluster") + vtx("n", "type=node", "root=x"))
	_, err := Read([]byte(d))
	ge := err.(*Error)
	lines := strings.Split(d, "\n")
	if ge.Line < 1 || ge.Line > len(lines) || !strings.Contains(lines[ge.Line-1], `root`) {
		t.Errorf("line %d: %v", ge.Line, err)
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Line: 3, Reason: "bad"}, "grug: line 3: bad"},
		{&Error{Reason: "bad"}, "grug: bad"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
		if tc.err.Fluxion() != "error in reading grug string; " {
			t.Errorf("Fluxion() = %q", tc.err.Fluxion())
		}
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "nope.graphml"))
	var ge *Error
	if !errors.As(err, &ge) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v", err)
	}
}

func TestDivideByZero(t *testing.T) {
	// a zero scale within id_scope is only reachable through a root inside
	// an empty subtree; Fluxion crashes there, we report an error
	body := vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=rack", "basename=a") +
		vtx("s", "root=1", "type=sw", "basename=s", "subsystem=net") +
		vtx("p", "type=port", "basename=p", "subsystem=net") +
		edg("c", "a", "multi_scale=0") +
		edg("a", "s", "multi_scale=1") +
		edg("s", "p", "id_scope=2")
	_, err := Read([]byte(doc(body)))
	var ge *Error
	if !errors.As(err, &ge) || !strings.Contains(ge.Reason, "zero") {
		t.Fatalf("err %v", err)
	}
}
