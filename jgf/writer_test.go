package jgf_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/jsonw"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// tinyGraph is grugs/tiny.graphml built in the GRUG reader's creation
// order (spec formats.md §1.5).
func tinyGraph() *graph.Graph {
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
		for i := 0; i < 18; i++ {
			b.MustAdd(s, "core", int64((j%2)*18+i))
		}
	}
	for j, s := range sockets {
		b.MustAdd(s, "gpu", int64(j%2))
	}
	for j, s := range sockets {
		for i := 0; i < 4; i++ {
			b.MustAdd(s, "memory", int64((j%2)*4+i), graph.WithSize(2), graph.WithUnit("GB"))
		}
	}
	return b.Graph()
}

// test001 is basics/test001.yaml.
const test001 = `version: 9999
resources:
  - type: cluster
    count: 1
    with:
      - type: rack
        count: 1
        with:
          - type: node
            count: 1
            with:
              - type: slot
                count: 1
                label: default
                with:
                  - type: socket
                    count: 1
                    with:
                      - type: core
                        count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

func parse(t *testing.T, g *graph.Graph, doc string) *jobspec.Jobspec {
	t.Helper()
	js, err := jobspec.Parse([]byte(doc), jobspec.Options{KnownType: func(s string) bool { _, ok := g.Types.Lookup(s); return ok }})
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func vertexJSON(g *graph.Graph, v *emit.Vertex) string {
	var b jsonw.Buf
	return jgf.VertexJSON(&b, g, v)
}

func TestVertexJSON(t *testing.T) {
	g := graph.New()
	sub := g.Subsystem("power")
	add := func(v graph.Vertex, props ...graph.Property) graph.VertexID {
		v.SetProps(props)
		return g.AddVertex(v)
	}
	core := add(graph.Vertex{Type: graph.TypeCore, ID: 17, UniqID: 43, Rank: 1, Size: 1, Basename: "core", Name: "core17",
		Paths: []graph.Path{{Subsystem: graph.Containment, Path: "/tiny0/rack0/node1/socket0/core17"}}})
	cluster := add(graph.Vertex{Type: graph.TypeCluster, ID: 0, UniqID: 0, Rank: -1, Size: 1, Basename: "medium", Name: "medium0",
		Paths: []graph.Path{{Subsystem: graph.Containment, Path: "/medium0"}}})
	host := add(graph.Vertex{Type: graph.TypeNode, ID: 12, UniqID: 7, Rank: 3, Size: 1, Basename: "node", Name: "host12",
		Paths: []graph.Path{{Subsystem: graph.Containment, Path: "/c0/host12"}, {Subsystem: sub, Path: "/p0/host12"}}},
		graph.Property{Key: "a", Value: ""}, graph.Property{Key: "b", Value: "2"})
	memV := graph.Vertex{Type: g.Type("memory"), ID: 3, UniqID: 99, Rank: -1, Size: 2, Basename: "memory", Name: "memory3",
		Paths: []graph.Path{{Subsystem: graph.Containment, Path: "/t/memory3"}}}
	memV.SetUnit("GB")
	mem := add(memV)
	nopath := add(graph.Vertex{Type: graph.TypeGPU, ID: -1, UniqID: 5, Rank: -1, Size: 4, Basename: "gpu", Name: "gpu"})
	weird := add(graph.Vertex{Type: graph.TypeCore, ID: 3, UniqID: 42, Rank: -1, Size: 1, Basename: "core", Name: "we\"ird"},
		graph.Property{Key: "k\n", Value: "v\\"})
	tests := []struct {
		v    emit.Vertex
		want string
	}{
		// formats.md §5.3 examples.
		{emit.Vertex{ID: core, Needs: 1, Exclusive: true},
			`{"id": "43", "metadata": {"type": "core", "id": 17, "rank": 1, "exclusive": true, "paths": {"containment": "/tiny0/rack0/node1/socket0/core17"}}}`},
		{emit.Vertex{ID: cluster, Needs: 1, Exclusive: true},
			`{"id": "0", "metadata": {"type": "cluster", "basename": "medium", "id": 0, "rank": -1, "exclusive": true, "paths": {"containment": "/medium0"}}}`},
		// name differs from basename+id, properties by key, two subsystems.
		{emit.Vertex{ID: host, Needs: 1},
			`{"id": "7", "metadata": {"type": "node", "name": "host12", "id": 12, "rank": 3, "properties": {"a": "", "b": "2"}, "paths": {"containment": "/c0/host12", "power": "/p0/host12"}}}`},
		// unit, size != 1, label.
		{emit.Vertex{ID: mem, Needs: 2, Exclusive: true, Label: "default"},
			`{"id": "99", "metadata": {"type": "memory", "id": 3, "rank": -1, "unit": "GB", "exclusive": true, "size": 2, "paths": {"containment": "/t/memory3"}, "ephemeral": {"label": "default"}}}`},
		{emit.Vertex{ID: mem, Needs: 0},
			`{"id": "99", "metadata": {"type": "memory", "id": 3, "rank": -1, "unit": "GB", "size": 0, "paths": {"containment": "/t/memory3"}}}`},
		// id -1: the name "gpu" differs from "gpu-1"; no paths key.
		{emit.Vertex{ID: nopath, Needs: 4, Exclusive: true},
			`{"id": "5", "metadata": {"type": "gpu", "name": "gpu", "id": -1, "rank": -1, "exclusive": true, "size": 4}}`},
		// agfilter figures.
		{emit.Vertex{ID: cluster, Needs: 1, Exclusive: true, AgFilter: []emit.AgFilter{{Type: "core", Used: 1, Total: 72}, {Type: "node", Used: 0, Total: 2}}},
			`{"id": "0", "metadata": {"type": "cluster", "basename": "medium", "id": 0, "rank": -1, "exclusive": true, "paths": {"containment": "/medium0"}, "agfilter": {"core": "used:1, total:72", "node": "used:0, total:2"}}}`},
		// JSON escaping.
		{emit.Vertex{ID: weird, Needs: 1},
			`{"id": "42", "metadata": {"type": "core", "name": "we\"ird", "id": 3, "rank": -1, "properties": {"k\n": "v\\"}}}`},
	}
	for _, tc := range tests {
		if got := vertexJSON(g, &tc.v); got != tc.want {
			t.Errorf("VertexJSON(%s):\n got %s\nwant %s", g.V(tc.v.ID).Name, got, tc.want)
		}
	}
}

func TestEdgesAndRender(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	n := b.MustAdd(c, "node", 0)
	g := b.Graph()
	pdu := g.AddVertex(graph.Vertex{Type: g.Type("pdu"), ID: 0, UniqID: 2, Size: 1, Rank: -1, Basename: "pdu", Name: "pdu0"})
	pe := g.AddEdge(pdu, n, g.Subsystem("power"))
	ce, _ := g.FindEdge(c, n)

	w := jgf.NewWriter()
	if w.Empty() != true {
		t.Errorf("new writer not empty")
	}
	if got, err := w.Render(); got != "" || err != nil {
		t.Errorf("empty render = %q, %v", got, err)
	}
	if got, err := w.JSON(); got != "" || err != nil {
		t.Errorf("empty JSON = %q, %v", got, err)
	}
	// One vertex without edges cannot be rendered and stays pending.
	w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Exclusive: true, Level: 1})
	if got, err := w.Render(); got != "" || !errors.Is(err, jgf.ErrSingleVertex) {
		t.Errorf("single vertex render = %q, %v", got, err)
	}
	if w.Empty() {
		t.Errorf("failed render dropped the content")
	}
	w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Level: 2})
	w.Edge(g, ce, false)
	w.Edge(g, pe, true)
	w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Level: 1})
	w.Times(1, 2)
	w.Attr("queue", "q")
	got, err := w.Render()
	want := `{"graph": {"nodes": [{"id": "0", "metadata": {"type": "cluster", "id": 0, "rank": -1, "exclusive": true, "paths": {"containment": "/cluster0"}}}, ` +
		`{"id": "1", "metadata": {"type": "node", "id": 0, "rank": 0, "paths": {"containment": "/cluster0/node0"}}}, ` +
		`{"id": "0", "metadata": {"type": "cluster", "id": 0, "rank": -1, "paths": {"containment": "/cluster0"}}}], ` +
		`"edges": [{"source": "0", "target": "1"}, {"source": "2", "target": "1", "metadata": {"subsystem": "power"}}]}}` + "\n"
	if err != nil || got != want {
		t.Errorf("render:\n got %s\nwant %s", got, want)
	}
	if !w.Empty() {
		t.Errorf("render did not empty the writer")
	}
	// Edges without vertices cannot be rendered either.
	w.Edge(g, ce, false)
	if _, err := w.JSON(); !errors.Is(err, jgf.ErrSingleVertex) {
		t.Errorf("edge-only JSON err = %v", err)
	}
}

func TestShorthand(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	n := b.MustAdd(c, "node", 0)
	s := b.MustAdd(n, "socket", 0)
	k := b.MustAdd(s, "core", 0)
	g := b.Graph()
	e := func(a, b graph.VertexID) graph.EdgeID { x, _ := g.FindEdge(a, b); return x }
	feed := func(w *jgf.Writer, exclNode bool) {
		w.Vertex(g, &emit.Vertex{ID: k, Needs: 1, Exclusive: true, ExclParent: true, Level: 4})
		w.Edge(g, e(s, k), true)
		w.Vertex(g, &emit.Vertex{ID: s, Needs: 1, Exclusive: true, ExclParent: exclNode, Level: 3})
		w.Edge(g, e(n, s), exclNode)
		w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Exclusive: exclNode, Level: 2})
		w.Edge(g, e(c, n), false)
		w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Level: 1})
	}
	ids := func(out string) string {
		var l []string
		for _, part := range strings.Split(out, `{"id": "`)[1:] {
			l = append(l, part[:strings.IndexByte(part, '"')])
		}
		return strings.Join(l, ",")
	}
	tests := []struct {
		exclNode bool
		ids      string
		edges    int
	}{{false, "2,1,0", 2}, {true, "1,0", 1}}
	for _, tc := range tests {
		w := jgf.NewShorthandWriter()
		feed(w, tc.exclNode)
		out, err := w.Render()
		if err != nil || ids(out) != tc.ids || strings.Count(out, `"source"`) != tc.edges ||
			!strings.HasSuffix(out, `]}, "writer": "fluxion:jgf_shorthand"}`+"\n") {
			t.Errorf("exclusive node %v: %s (%v)", tc.exclNode, out, err)
		}
		// The plain writer keeps everything and has no writer key.
		p := jgf.NewWriter()
		feed(p, tc.exclNode)
		out, _ = p.Render()
		if ids(out) != "3,2,1,0" || strings.Contains(out, "writer") {
			t.Errorf("plain writer: %s", out)
		}
	}
	// Nothing omitted: no writer key.
	w := jgf.NewShorthandWriter()
	w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Level: 2})
	w.Edge(g, e(c, n), false)
	w.Vertex(g, &emit.Vertex{ID: c, Needs: 1, Level: 1})
	if out, _ := w.Render(); strings.Contains(out, "writer") {
		t.Errorf("writer key without omission: %s", out)
	}
	// The key is sticky: once a rendering left something out, every later
	// rendering of the same writer carries it (Fluxion's writer never
	// clears its flag).
	seq := []struct {
		omit bool // this rendering leaves something out
		key  bool // it carries the writer key
	}{{false, false}, {true, true}, {false, true}, {false, true}}
	w = jgf.NewShorthandWriter()
	for i, st := range seq {
		w.Vertex(g, &emit.Vertex{ID: s, Needs: 1, Exclusive: true, ExclParent: false, Level: 3})
		if st.omit {
			w.Vertex(g, &emit.Vertex{ID: k, Needs: 1, Exclusive: true, ExclParent: true, Level: 4})
			w.Edge(g, e(s, k), true)
		}
		w.Edge(g, e(n, s), false)
		w.Vertex(g, &emit.Vertex{ID: n, Needs: 1, Level: 2})
		out, err := w.Render()
		if err != nil || strings.Contains(out, `"writer"`) != st.key {
			t.Errorf("rendering %d (omits %v): %s (%v), want writer key %v", i, st.omit, out, err, st.key)
		}
	}
}

// TestE7Match is examples.md E7: a real match rendered as JGF.
func TestE7Match(t *testing.T) {
	g := tinyGraph()
	core35 := g.ByPath("/tiny0/rack0/node1/socket1/core35")[0]
	g.V(core35).SetProp("zeta", "1")
	g.V(core35).SetProp("alpha", "2")
	g.V(g.ByPath("/tiny0/rack0/node1")[0]).SetProp("perf", "x")
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	w := jgf.NewWriter()
	if _, err := m.Match(match.Allocate, parse(t, g, test001), 1, 0, w); err != nil {
		t.Fatal(err)
	}
	got, err := w.Render()
	want := `{"graph": {"nodes": [{"id": "79", "metadata": {"type": "core", "id": 35, "rank": -1, "properties": {"alpha": "2", "zeta": "1"}, "exclusive": true, "paths": {"containment": "/tiny0/rack0/node1/socket1/core35"}}}, {"id": "7", "metadata": {"type": "socket", "id": 1, "rank": -1, "exclusive": true, "paths": {"containment": "/tiny0/rack0/node1/socket1"}}}, {"id": "3", "metadata": {"type": "node", "id": 1, "rank": 1, "properties": {"perf": "x"}, "paths": {"containment": "/tiny0/rack0/node1"}}}, {"id": "1", "metadata": {"type": "rack", "id": 0, "rank": -1, "paths": {"containment": "/tiny0/rack0"}}}, {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "id": 0, "rank": -1, "paths": {"containment": "/tiny0"}}}], "edges": [{"source": "7", "target": "79"}, {"source": "3", "target": "7"}, {"source": "1", "target": "3"}, {"source": "0", "target": "1"}]}}` + "\n"
	if err != nil || got != want {
		t.Errorf("E7:\n got %s\nwant %s", got, want)
	}
}

// TestA2Find is examples.md A2 (writer part): the JGF of a graph with
// unusual fields, as a find of every vertex prints it. The graph is built
// with the fields the JGF reader gives those nodes.
func TestA2Find(t *testing.T) {
	g := graph.New()
	add := func(v graph.Vertex, parent graph.VertexID) graph.VertexID {
		id := g.AddVertex(v)
		if parent != graph.NoVertex {
			g.AddEdge(parent, id, graph.Containment)
		}
		return id
	}
	p := func(s string) []graph.Path { return []graph.Path{{Subsystem: graph.Containment, Path: s}} }
	c := add(graph.Vertex{Type: graph.TypeCluster, ID: 10, UniqID: 10, Rank: -1, Size: 1, Basename: "cluster", Name: "cluster10", Paths: p("/c0")}, graph.NoVertex)
	if err := g.SetRoot(graph.Containment, c); err != nil {
		t.Fatal(err)
	}
	hv := graph.Vertex{Type: graph.TypeNode, ID: 12, UniqID: 7, Rank: 3, Size: 1, Basename: "node", Name: "host12", Paths: p("/c0/host12")}
	hv.SetProps([]graph.Property{{Key: "a", Value: ""}, {Key: "b", Value: "2"}})
	h := add(hv, c)
	add(graph.Vertex{Type: graph.TypeCore, ID: 8, UniqID: 8, Rank: -1, Size: 1, Basename: "cpu", Name: "cpu8", Paths: p("/c0/host12/cpu8")}, h)
	add(graph.Vertex{Type: graph.TypeCore, ID: 3, UniqID: 42, Rank: -1, Size: 1, Basename: "core", Name: "weird", Status: graph.StatusDown, Paths: p("/c0/host12/weird")}, h)
	add(graph.Vertex{Type: graph.TypeGPU, ID: 0, UniqID: 11, Rank: 3, Size: 4, Basename: "gpu", Name: "gpu0", Paths: p("/c0/host12/gpu0")}, h)
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	w := jgf.NewWriter()
	if err := m.Find("status=up or status=down", 0, w); err != nil {
		t.Fatal(err)
	}
	got, err := w.Render()
	want := `{"graph": {"nodes": [{"id": "8", "metadata": {"type": "core", "basename": "cpu", "id": 8, "rank": -1, "exclusive": true, "paths": {"containment": "/c0/host12/cpu8"}}}, {"id": "42", "metadata": {"type": "core", "name": "weird", "id": 3, "rank": -1, "exclusive": true, "paths": {"containment": "/c0/host12/weird"}}}, {"id": "11", "metadata": {"type": "gpu", "id": 0, "rank": 3, "exclusive": true, "size": 4, "paths": {"containment": "/c0/host12/gpu0"}}}, {"id": "7", "metadata": {"type": "node", "name": "host12", "id": 12, "rank": 3, "properties": {"a": "", "b": "2"}, "exclusive": true, "paths": {"containment": "/c0/host12"}}}, {"id": "10", "metadata": {"type": "cluster", "id": 10, "rank": -1, "exclusive": true, "paths": {"containment": "/c0"}}}], "edges": [{"source": "7", "target": "8"}, {"source": "7", "target": "42"}, {"source": "7", "target": "11"}, {"source": "10", "target": "7"}]}}` + "\n"
	if err != nil || got != want {
		t.Errorf("A2:\n got %s\nwant %s", got, want)
	}
	// find status=down lists weird, host12, c0.
	w = jgf.NewWriter()
	m.Find("status=down", 0, w)
	out, _ := w.Render()
	if !strings.Contains(out, `"name": "weird"`) || strings.Contains(out, "cpu8") || strings.Count(out, `{"id": `) != 3 {
		t.Errorf("status=down: %s", out)
	}
}

// TestSingleVertexFindIsKept is formats.md §5: a find that emits one
// vertex and no edge is not rendered; the vertex comes first in the next
// rendering.
func TestSingleVertexFindIsKept(t *testing.T) {
	g := tinyGraph()
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	w := jgf.NewWriter()
	if err := m.Find("names=tiny0", 0, w); err != nil {
		t.Fatal(err)
	}
	if out, err := w.Render(); out != "" || !errors.Is(err, jgf.ErrSingleVertex) {
		t.Fatalf("single vertex: %q %v", out, err)
	}
	if err := m.Find("names=rack0", 0, w); err != nil {
		t.Fatal(err)
	}
	out, err := w.Render()
	if err != nil || !strings.HasPrefix(out, `{"graph": {"nodes": [{"id": "0", `) || strings.Count(out, `{"id": `) != 3 || strings.Count(out, `"source"`) != 1 {
		t.Errorf("next rendering: %s (%v)", out, err)
	}
}

// TestLabels: the label of the jobspec resource that matched a vertex is
// rendered as ephemeral data.
func TestLabels(t *testing.T) {
	g := tinyGraph()
	m, _ := match.New(g, match.Options{Policy: "high"})
	doc := strings.Replace(test001, "                      - type: core\n                        count: 1\n",
		"                      - type: core\n                        count: 1\n                        label: mycore\n", 1)
	w := jgf.NewWriter()
	if _, err := m.Match(match.Allocate, parse(t, g, doc), 1, 0, w); err != nil {
		t.Fatal(err)
	}
	out, _ := w.Render()
	if !strings.Contains(out, `"paths": {"containment": "/tiny0/rack0/node1/socket1/core35"}, "ephemeral": {"label": "mycore"}}}`) ||
		strings.Count(out, "ephemeral") != 1 {
		t.Errorf("labels: %s", out)
	}
}
