package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// tinyLike builds cluster tiny0 → rack0 → node0,node1 → 2 sockets each →
// ncores cores + 1 gpu + 2 memories (size 2) per socket, in the creation
// order of the GRUG reader (all vertices of one recipe level before the
// next level).
func tinyLike(t *testing.T, ncores int) *graph.Graph {
	t.Helper()
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("tiny"))
	r := b.MustAdd(c, "rack", 0)
	var nodes, sockets []graph.VertexID
	for i := int64(0); i < 2; i++ {
		nodes = append(nodes, b.MustAdd(r, "node", i))
	}
	for _, n := range nodes {
		for i := int64(0); i < 2; i++ {
			sockets = append(sockets, b.MustAdd(n, "socket", i))
		}
	}
	for j, s := range sockets {
		for i := 0; i < ncores; i++ {
			b.MustAdd(s, "core", int64((j%2)*ncores+i))
		}
	}
	for j, s := range sockets {
		b.MustAdd(s, "gpu", int64(j%2))
	}
	for j, s := range sockets {
		for i := 0; i < 2; i++ {
			b.MustAdd(s, "memory", int64((j%2)*2+i), graph.WithSize(2), graph.WithUnit("GB"))
		}
	}
	return b.Graph()
}

func path(g *graph.Graph, v graph.VertexID) string {
	p, _ := g.V(v).PathIn(graph.Containment)
	return p
}

func names(g *graph.Graph, l []graph.VertexID) string {
	var s []string
	for _, v := range l {
		s = append(s, g.V(v).Name)
	}
	return strings.Join(s, ",")
}

func TestBuilderVertices(t *testing.T) {
	g := tinyLike(t, 2)
	// 1 cluster + 1 rack + 2 nodes + 4 sockets + 8 cores + 4 gpus + 8 memories
	if got := g.NumVertices(); got != 28 {
		t.Fatalf("NumVertices = %d, want 28", got)
	}
	if got := g.NumEdges(); got != 27 {
		t.Fatalf("NumEdges = %d, want 27", got)
	}
	tests := []struct {
		v                  graph.VertexID
		typ, name, base, p string
		id, rank, size     int64
		unit               string
	}{
		{0, "cluster", "tiny0", "tiny", "/tiny0", 0, -1, 1, ""},
		{1, "rack", "rack0", "rack", "/tiny0/rack0", 0, -1, 1, ""},
		{2, "node", "node0", "node", "/tiny0/rack0/node0", 0, 0, 1, ""},
		{3, "node", "node1", "node", "/tiny0/rack0/node1", 1, 1, 1, ""},
		{4, "socket", "socket0", "socket", "/tiny0/rack0/node0/socket0", 0, -1, 1, ""},
		{7, "socket", "socket1", "socket", "/tiny0/rack0/node1/socket1", 1, -1, 1, ""},
		{8, "core", "core0", "core", "/tiny0/rack0/node0/socket0/core0", 0, -1, 1, ""},
		{11, "core", "core3", "core", "/tiny0/rack0/node0/socket1/core3", 3, -1, 1, ""},
		{15, "core", "core3", "core", "/tiny0/rack0/node1/socket1/core3", 3, -1, 1, ""},
		{16, "gpu", "gpu0", "gpu", "/tiny0/rack0/node0/socket0/gpu0", 0, -1, 1, ""},
		{19, "gpu", "gpu1", "gpu", "/tiny0/rack0/node1/socket1/gpu1", 1, -1, 1, ""},
		{20, "memory", "memory0", "memory", "/tiny0/rack0/node0/socket0/memory0", 0, -1, 2, "GB"},
		{27, "memory", "memory3", "memory", "/tiny0/rack0/node1/socket1/memory3", 3, -1, 2, "GB"},
	}
	for _, tc := range tests {
		vx := g.V(tc.v)
		if vx.UniqID != int64(tc.v) {
			t.Errorf("v%d: UniqID = %d", tc.v, vx.UniqID)
		}
		if g.TypeName(tc.v) != tc.typ || vx.Name != tc.name || vx.Basename != tc.base || vx.ID != tc.id ||
			vx.Rank != tc.rank || vx.Size != tc.size || vx.Unit() != tc.unit || path(g, tc.v) != tc.p {
			t.Errorf("v%d = {%s %s %s id=%d rank=%d size=%d unit=%q %s}, want %+v", tc.v, g.TypeName(tc.v), vx.Name,
				vx.Basename, vx.ID, vx.Rank, vx.Size, vx.Unit(), path(g, tc.v), tc)
		}
		if vx.Status != graph.StatusUp {
			t.Errorf("v%d: status %d", tc.v, vx.Status)
		}
		if len(vx.Paths) != 1 || vx.Paths[0].Subsystem != graph.Containment {
			t.Errorf("v%d: paths %v", tc.v, vx.Paths)
		}
	}
	// Out-edges in creation order: a socket's cores, then its gpu, then its
	// memories.
	var out []string
	for _, h := range g.Out(4) {
		out = append(out, g.V(h.Other).Name)
		if h.Subsystem != graph.Containment || g.E(h.Edge).Src != 4 || g.E(h.Edge).Dst != h.Other {
			t.Errorf("bad half %+v", h)
		}
	}
	if got := strings.Join(out, ","); got != "core0,core1,gpu0,memory0,memory1" {
		t.Errorf("socket0 out = %s", got)
	}
	if in := g.In(4); len(in) != 1 || in[0].Other != 2 {
		t.Errorf("socket0 in = %+v", in)
	}
	if len(g.In(0)) != 0 {
		t.Errorf("root has in-edges")
	}
	if r := g.Root(graph.Containment); r != 0 {
		t.Errorf("root = %d", r)
	}
	if s := g.RootSubsystems(); !slices.Equal(s, []graph.SubsystemID{graph.Containment}) {
		t.Errorf("RootSubsystems = %v", s)
	}
	if g.Root(5) != graph.NoVertex || g.Root(-1) != graph.NoVertex {
		t.Errorf("Root of unknown subsystem should be NoVertex")
	}
}

func TestBuilderOptions(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 3, graph.WithBasename("c"))
	n0 := b.MustAdd(c, "node", 7, graph.WithName("host-a"))
	n1 := b.MustAdd(c, "node", 8, graph.WithRank(42))
	n2 := b.MustAdd(c, "node", 9)
	x := b.MustAdd(n0, "gpu", -1)
	y := b.MustAdd(n0, "core", 0, graph.WithRank(5), graph.WithProperty("b", "2"), graph.WithProperty("a", "1"))
	g := b.Graph()
	tests := []struct {
		v          graph.VertexID
		name, path string
		rank       int64
	}{
		{c, "c3", "/c3", -1},
		{n0, "host-a", "/c3/host-a", 0},
		{n1, "node8", "/c3/node8", 42},
		// An explicit rank does not consume a node rank.
		{n2, "node9", "/c3/node9", 1},
		{x, "gpu", "/c3/host-a/gpu", -1},
		{y, "core0", "/c3/host-a/core0", 5},
	}
	for _, tc := range tests {
		vx := g.V(tc.v)
		if vx.Name != tc.name || path(g, tc.v) != tc.path || vx.Rank != tc.rank {
			t.Errorf("v%d: name=%s path=%s rank=%d, want %s %s %d", tc.v, vx.Name, path(g, tc.v), vx.Rank, tc.name, tc.path, tc.rank)
		}
	}
	if got := g.V(y).Props(); !slices.Equal(got, []graph.Property{{"a", "1"}, {"b", "2"}}) {
		t.Errorf("props = %v", got)
	}
}

func TestBuilderDuplicateRoot(t *testing.T) {
	b := graph.NewBuilder()
	b.MustAdd(graph.NoVertex, "cluster", 0)
	n := b.Graph().NumVertices()
	v, err := b.Add(graph.NoVertex, "cluster", 1)
	if err == nil || v != graph.NoVertex {
		t.Fatalf("second root: v=%d err=%v", v, err)
	}
	want := "add_graph_metadata: failed to add root metadata for containment subsystem. Possible duplicate root.\n"
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if b.Graph().NumVertices() != n {
		t.Errorf("a failed Add created a vertex")
	}
	if len(b.Graph().ByName("cluster1")) != 0 {
		t.Errorf("a failed Add indexed a vertex")
	}
	defer func() {
		if recover() == nil {
			t.Errorf("MustAdd of a second root did not panic")
		}
	}()
	b.MustAdd(graph.NoVertex, "cluster", 2)
}

func TestSetRoot(t *testing.T) {
	g := graph.New()
	s := g.Subsystem("power")
	v := g.AddVertex(graph.Vertex{Type: g.Type("pdu"), Name: "pdu0"})
	if err := g.SetRoot(s, v); err != nil {
		t.Fatal(err)
	}
	if g.Root(s) != v || g.Root(graph.Containment) != graph.NoVertex {
		t.Errorf("roots: %d %d", g.Root(s), g.Root(graph.Containment))
	}
	if err := g.SetRoot(s, v); err == nil || !strings.Contains(err.Error(), "for power subsystem") {
		t.Errorf("duplicate SetRoot: %v", err)
	}
	if got := g.RootSubsystems(); !slices.Equal(got, []graph.SubsystemID{s}) {
		t.Errorf("RootSubsystems = %v", got)
	}
}

func TestIndexes(t *testing.T) {
	g := tinyLike(t, 2)
	tests := []struct {
		name string
		got  []graph.VertexID
		want []graph.VertexID
	}{
		{"ByType node", g.ByType(graph.TypeNode), []graph.VertexID{2, 3}},
		{"ByType socket", g.ByType(graph.TypeSocket), []graph.VertexID{4, 5, 6, 7}},
		{"ByType gpu", g.ByType(graph.TypeGPU), []graph.VertexID{16, 17, 18, 19}},
		{"ByType slot", g.ByType(graph.TypeSlot), nil},
		{"ByType unknown", g.ByType(99), nil},
		{"ByType negative", g.ByType(-1), nil},
		{"ByName core1", g.ByName("core1"), []graph.VertexID{9, 13}},
		{"ByName gpu1", g.ByName("gpu1"), []graph.VertexID{17, 19}},
		{"ByName none", g.ByName("core9"), nil},
		{"ByRank 1", g.ByRank(1), []graph.VertexID{3}},
		{"ByRank 0", g.ByRank(0), []graph.VertexID{2}},
		{"ByRank 2", g.ByRank(2), nil},
		{"ByPath node1", g.ByPath("/tiny0/rack0/node1"), []graph.VertexID{3}},
		{"ByPath core", g.ByPath("/tiny0/rack0/node1/socket0/core1"), []graph.VertexID{13}},
		{"ByPath missing", g.ByPath("/tiny0/rack1"), nil},
	}
	for _, tc := range tests {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if got := len(g.ByRank(-1)); got != 26 {
		t.Errorf("ByRank(-1) has %d vertices, want 26", got)
	}
	if got := g.Ranks(); !slices.Equal(got, []int64{-1, 0, 1}) {
		t.Errorf("Ranks = %v", got)
	}
	ty, nm, pa := g.IndexSizes()
	// types: cluster rack node socket core gpu memory; names: tiny0 rack0
	// node0 node1 socket0 socket1 core0-3 gpu0-1 memory0-3.
	if ty != 7 || nm != 16 || pa != 28 {
		t.Errorf("IndexSizes = %d %d %d, want 7 16 28", ty, nm, pa)
	}
}

func TestAddPathKeepsOldIndexEntries(t *testing.T) {
	g := tinyLike(t, 1)
	power := g.Subsystem("power")
	g.AddPath(3, power, "/p0/node1")
	vx := g.V(3)
	if len(vx.Paths) != 2 || vx.Paths[0].Subsystem != graph.Containment || vx.Paths[1].Subsystem != power {
		t.Fatalf("paths = %v", vx.Paths)
	}
	if p, ok := vx.PathIn(power); !ok || p != "/p0/node1" {
		t.Errorf("PathIn(power) = %q %v", p, ok)
	}
	// Replacing the containment path keeps the old key in the index.
	g.AddPath(3, graph.Containment, "/moved/node1")
	if p, _ := vx.PathIn(graph.Containment); p != "/moved/node1" {
		t.Errorf("containment path = %s", p)
	}
	for _, p := range []string{"/tiny0/rack0/node1", "/moved/node1", "/p0/node1"} {
		if got := g.ByPath(p); !slices.Equal(got, []graph.VertexID{3}) {
			t.Errorf("ByPath(%s) = %v", p, got)
		}
	}
	if _, ok := vx.PathIn(g.Subsystem("ibnet")); ok {
		t.Errorf("PathIn(ibnet) found a path")
	}
}

func TestProps(t *testing.T) {
	tests := []struct {
		name string
		set  [][2]string
		want []graph.Property
	}{
		{"empty", nil, nil},
		{"sorted insert", [][2]string{{"zz", "1"}, {"alpha", "2"}, {"m", ""}},
			[]graph.Property{{"alpha", "2"}, {"m", ""}, {"zz", "1"}}},
		{"replace keeps position", [][2]string{{"b", "1"}, {"a", "1"}, {"c", "1"}, {"b", "9"}},
			[]graph.Property{{"a", "1"}, {"b", "9"}, {"c", "1"}}},
		{"byte-wise order", [][2]string{{"b", ""}, {"B", ""}, {"a", ""}, {"_", ""}},
			[]graph.Property{{"B", ""}, {"_", ""}, {"a", ""}, {"b", ""}}},
	}
	for _, tc := range tests {
		var v graph.Vertex
		for _, kv := range tc.set {
			v.SetProp(kv[0], kv[1])
		}
		if !slices.Equal(v.Props(), tc.want) {
			t.Errorf("%s: props = %v, want %v", tc.name, v.Props(), tc.want)
		}
		for _, p := range tc.want {
			if val, ok := v.Prop(p.Key); !ok || val != p.Value {
				t.Errorf("%s: Prop(%s) = %q %v", tc.name, p.Key, val, ok)
			}
		}
		if _, ok := v.Prop("nope"); ok {
			t.Errorf("%s: Prop(nope) found", tc.name)
		}
	}
}

func TestEdges(t *testing.T) {
	g := tinyLike(t, 2)
	e, ok := g.FindEdge(2, 5)
	if !ok || g.E(e).Src != 2 || g.E(e).Dst != 5 {
		t.Fatalf("FindEdge(2,5) = %d %v", e, ok)
	}
	if _, ok := g.FindEdge(5, 2); ok {
		t.Errorf("FindEdge found a reverse edge")
	}
	live := g.LiveEdges()
	g.RemoveEdge(e)
	if _, ok := g.FindEdge(2, 5); ok {
		t.Errorf("removed edge still found")
	}
	if g.LiveEdges() != live-1 || g.NumEdges() != 27 {
		t.Errorf("LiveEdges = %d, NumEdges = %d", g.LiveEdges(), g.NumEdges())
	}
	// node0's out-edges were socket0 (4) and socket1 (5).
	if out := g.Out(2); len(out) != 1 || out[0].Other != 4 {
		t.Errorf("node0 out = %+v", out)
	}
	if len(g.In(5)) != 0 {
		t.Errorf("socket1 in = %+v", g.In(5))
	}
	// Removing twice is a no-op.
	g.RemoveEdge(e)
	if g.LiveEdges() != live-1 {
		t.Errorf("second RemoveEdge changed LiveEdges")
	}
	// A new edge gets the next id and goes to the end of the lists.
	ne := g.AddEdge(2, 5, graph.Containment)
	if int(ne) != 27 {
		t.Errorf("new edge id %d", ne)
	}
	if out := g.Out(2); len(out) != 2 || out[1].Other != 5 || out[1].Edge != ne {
		t.Errorf("node0 out after re-adding = %+v", out)
	}
	// Retagging an edge updates both adjacency lists.
	pw := g.Subsystem("power")
	g.SetEdgeSubsystem(ne, pw)
	if g.E(ne).Subsystem != pw || g.Out(2)[1].Subsystem != pw || g.In(5)[0].Subsystem != pw {
		t.Errorf("SetEdgeSubsystem did not retag everywhere")
	}
}

func TestUnindex(t *testing.T) {
	g := tinyLike(t, 2)
	// socket1 of node1 (uniq 7): children cores 14,15, gpu 19, memories 26,27.
	liveBefore := g.LiveEdges()
	g.Unindex(7)
	if len(g.Out(7)) != 0 || len(g.In(7)) != 0 {
		t.Errorf("socket edges remain: out %v in %v", g.Out(7), g.In(7))
	}
	if g.LiveEdges() != liveBefore-6 {
		t.Errorf("LiveEdges = %d, want %d", g.LiveEdges(), liveBefore-6)
	}
	for _, h := range g.Out(3) {
		if h.Other == 7 {
			t.Errorf("node1 still points to socket1")
		}
	}
	if len(g.In(14)) != 0 {
		t.Errorf("core14 still has its in-edge")
	}
	if got := g.ByPath("/tiny0/rack0/node1/socket1"); got != nil {
		t.Errorf("path still indexed: %v", got)
	}
	if got := g.ByType(graph.TypeSocket); !slices.Equal(got, []graph.VertexID{4, 5, 6}) {
		t.Errorf("ByType(socket) = %v", got)
	}
	// Only vertex 7's own entries go; node0's socket1 (5) stays.
	if got := g.ByName("socket1"); !slices.Equal(got, []graph.VertexID{5}) {
		t.Errorf("ByName(socket1) = %v, want [5]", got)
	}
	if got := g.ByRank(-1); slices.Contains(got, 7) || len(got) != 25 {
		t.Errorf("ByRank(-1) = %v", got)
	}
	if g.NumVertices() != 28 || g.V(7).Name != "socket1" {
		t.Errorf("vertex slot was not kept")
	}
	// Children keep their own index entries.
	if got := g.ByPath("/tiny0/rack0/node1/socket1/core3"); !slices.Equal(got, []graph.VertexID{15}) {
		t.Errorf("child path = %v", got)
	}
	// Unindexing the root clears it.
	g.Unindex(0)
	if g.Root(graph.Containment) != graph.NoVertex {
		t.Errorf("root kept after Unindex")
	}
	if len(g.Out(1)) != 2 || len(g.In(1)) != 0 {
		t.Errorf("rack edges: out %v in %v", g.Out(1), g.In(1))
	}
}

func TestUnindexRemovesFirstNameOccurrence(t *testing.T) {
	g := tinyLike(t, 1)
	// core0 exists under every socket: vertices 8 (node0/s0) and 10
	// (node1/s0).
	before := g.ByName("core0")
	if !slices.Equal(before, []graph.VertexID{8, 10}) {
		t.Fatalf("ByName(core0) = %v", before)
	}
	g.Unindex(10)
	// The spec removes the vertex's first occurrence in by_name, i.e. the
	// entry for vertex 10 itself.
	if got := g.ByName("core0"); !slices.Equal(got, []graph.VertexID{8}) {
		t.Errorf("ByName(core0) after Unindex(10) = %v, want [8]", got)
	}
}

func TestClone(t *testing.T) {
	g := tinyLike(t, 2)
	g.V(3).SetProp("a", "1")
	c := g.Clone()
	if c.NumVertices() != g.NumVertices() || c.NumEdges() != g.NumEdges() || c.Root(graph.Containment) != 0 {
		t.Fatalf("clone differs")
	}
	// Mutate the clone in every way.
	c.V(3).SetProp("a", "changed")
	c.V(3).SetProp("b", "new")
	c.V(3).Status = graph.StatusDown
	c.AddPath(3, c.Subsystem("power"), "/p/node1")
	c.Type("fpga")
	c.RemoveEdge(0)
	nv := c.AddVertex(graph.Vertex{Type: c.Type("fpga"), Name: "fpga0", Rank: 1})
	c.AddEdge(3, nv, graph.Containment)
	c.Unindex(4)
	if c.NextNodeRank() != 2 {
		t.Errorf("clone's node rank counter was not copied")
	}

	// The original is unchanged.
	if v, _ := g.V(3).Prop("a"); v != "1" {
		t.Errorf("original prop = %s", v)
	}
	if _, ok := g.V(3).Prop("b"); ok || g.V(3).Status != graph.StatusUp || len(g.V(3).Paths) != 1 {
		t.Errorf("original vertex changed: %+v", *g.V(3))
	}
	if _, ok := g.Types.Lookup("fpga"); ok {
		t.Errorf("type interned into the original")
	}
	if _, ok := g.Subsystems.Lookup("power"); ok {
		t.Errorf("subsystem interned into the original")
	}
	if g.LiveEdges() != 27 || len(g.Out(0)) != 1 || len(g.Out(3)) != 2 {
		t.Errorf("original edges changed")
	}
	if g.NumVertices() != 28 || len(g.ByName("fpga0")) != 0 || !slices.Equal(g.ByRank(1), []graph.VertexID{3}) {
		t.Errorf("original indexes changed")
	}
	if !slices.Equal(g.ByType(graph.TypeSocket), []graph.VertexID{4, 5, 6, 7}) || g.ByPath("/tiny0/rack0/node0/socket0") == nil {
		t.Errorf("original type/path index changed")
	}
	if got := g.ByPath("/p/node1"); got != nil {
		t.Errorf("original path index changed: %v", got)
	}
	if g.NextNodeRank() != 2 {
		t.Errorf("original node rank counter changed")
	}
	// And the other way round.
	g.V(8).SetProp("x", "y")
	if _, ok := c.V(8).Prop("x"); ok {
		t.Errorf("clone shares props with the original")
	}
}

func TestNames(t *testing.T) {
	n := graph.NewNames("a", "b", "a")
	if n.Len() != 2 {
		t.Fatalf("Len = %d", n.Len())
	}
	steps := []struct {
		s    string
		want int32
	}{{"b", 1}, {"z", 2}, {"a", 0}, {"y", 3}, {"z", 2}, {"", 4}}
	for _, st := range steps {
		if got := n.Intern(st.s); got != st.want {
			t.Errorf("Intern(%q) = %d, want %d", st.s, got, st.want)
		}
	}
	for i, want := range []string{"a", "b", "z", "y", ""} {
		if got := n.Name(int32(i)); got != want {
			t.Errorf("Name(%d) = %q, want %q", i, got, want)
		}
	}
	if n.Name(-1) != "" || n.Name(5) != "" {
		t.Errorf("out-of-range Name not empty")
	}
	if id, ok := n.Lookup("y"); !ok || id != 3 {
		t.Errorf("Lookup(y) = %d %v", id, ok)
	}
	if _, ok := n.Lookup("w"); ok || n.Len() != 5 {
		t.Errorf("Lookup interned w")
	}

	// The fixed prefixes of a new graph.
	g := graph.New()
	fixed := []struct {
		name string
		id   graph.TypeID
	}{
		{"cluster", graph.TypeCluster}, {"core", graph.TypeCore}, {"socket", graph.TypeSocket},
		{"gpu", graph.TypeGPU}, {"node", graph.TypeNode}, {"rack", graph.TypeRack},
		{"slot", graph.TypeSlot}, {"xor_slot", graph.TypeXorSlot}, {"ssd", graph.TypeSSD},
		{"storage_node", graph.TypeStorageNode}, {"*", graph.TypeAny},
	}
	for _, f := range fixed {
		if got := g.Type(f.name); got != f.id {
			t.Errorf("Type(%s) = %d, want %d", f.name, got, f.id)
		}
	}
	if got := g.Subsystem("containment"); got != graph.Containment {
		t.Errorf("containment = %d", got)
	}
	if g.Type("memory") != 12 || g.Type("bb") != 13 || g.Type("memory") != 12 {
		t.Errorf("new types are not numbered in first-seen order")
	}
	if g.Subsystem("power") != 1 || g.Subsystem("ibnet") != 2 || g.SubsystemName(1) != "power" {
		t.Errorf("subsystems are not numbered in first-seen order")
	}
}

func TestNodeRanksAndDefaultName(t *testing.T) {
	g := graph.New()
	for i, want := range []int64{0, 1, 2} {
		if got := g.NextNodeRank(); got != want {
			t.Errorf("NextNodeRank #%d = %d", i, got)
		}
	}
	g.ResetNodeRanks()
	if g.NextNodeRank() != 0 {
		t.Errorf("ResetNodeRanks did not restart")
	}
	tests := []struct {
		base string
		id   int64
		want string
	}{{"core", 3, "core3"}, {"core", -1, "core"}, {"n", 0, "n0"}, {"x", -2, "x-2"}, {"", 7, "7"}}
	for _, tc := range tests {
		if got := graph.DefaultName(tc.base, tc.id); got != tc.want {
			t.Errorf("DefaultName(%q, %d) = %q, want %q", tc.base, tc.id, got, tc.want)
		}
	}
}

func TestGrowKeepsGraph(t *testing.T) {
	g := tinyLike(t, 1)
	g.Grow(1000)
	if g.NumVertices() != 24 || g.LiveEdges() != 23 || names(g, g.ByType(graph.TypeNode)) != "node0,node1" {
		t.Errorf("Grow changed the graph")
	}
}
