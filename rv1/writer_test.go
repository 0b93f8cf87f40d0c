package rv1_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/rv1"
)

// fixture: cluster0 → hosts with given names and ranks → 4 cores + 2 gpus
// each.
type fixture struct {
	g     *graph.Graph
	root  graph.VertexID
	nodes []graph.VertexID
	cores [][]graph.VertexID
	gpus  [][]graph.VertexID
	mem   graph.VertexID
}

func newFixture(hosts []string, ranks []int64) *fixture {
	b := graph.NewBuilder()
	f := &fixture{}
	f.root = b.MustAdd(graph.NoVertex, "cluster", 0)
	for i, h := range hosts {
		f.nodes = append(f.nodes, b.MustAdd(f.root, "node", int64(i), graph.WithName(h), graph.WithRank(ranks[i])))
	}
	for _, n := range f.nodes {
		var c, g []graph.VertexID
		for i := int64(0); i < 4; i++ {
			c = append(c, b.MustAdd(n, "core", i))
		}
		for i := int64(0); i < 2; i++ {
			g = append(g, b.MustAdd(n, "gpu", i))
		}
		f.cores = append(f.cores, c)
		f.gpus = append(f.gpus, g)
	}
	f.mem = b.MustAdd(f.nodes[0], "memory", 0, graph.WithSize(8))
	f.g = b.Graph()
	return f
}

func (f *fixture) v(w emit.Writer, id graph.VertexID) {
	w.Vertex(f.g, &emit.Vertex{ID: id, Needs: 1, Exclusive: true, Level: 1})
}

// emitNode emits the listed core and gpu indexes of node i, then the node.
func (f *fixture) emitNode(w emit.Writer, i int, cores, gpus []int) {
	for _, c := range cores {
		f.v(w, f.cores[i][c])
	}
	for _, g := range gpus {
		f.v(w, f.gpus[i][g])
	}
	f.v(w, f.nodes[i])
}

func TestRLiteSignatures(t *testing.T) {
	hosts := []string{"node0", "node1", "node2", "node3", "node4"}
	tests := []struct {
		name string
		feed func(f *fixture, w emit.Writer)
		want string
	}{
		{"one node", func(f *fixture, w emit.Writer) { f.emitNode(w, 0, []int{2, 0, 1}, nil) },
			`[{"rank": "0", "children": {"core": "0-2"}}]`},
		// formats.md §5.5: the signature text decides the order, so rank 1
		// ({"core": "0"}) comes before rank 0 ({"core": "18"}-like).
		{"text order", func(f *fixture, w emit.Writer) {
			f.emitNode(w, 0, []int{3}, nil)
			f.emitNode(w, 1, []int{0}, nil)
		}, `[{"rank": "1", "children": {"core": "0"}}, {"rank": "0", "children": {"core": "3"}}]`},
		{"shared signature, ranks sorted", func(f *fixture, w emit.Writer) {
			f.emitNode(w, 3, []int{0, 1}, []int{1})
			f.emitNode(w, 0, []int{0, 1}, []int{1})
			f.emitNode(w, 4, []int{0, 1}, []int{1})
			f.emitNode(w, 1, []int{0, 1}, []int{1})
		}, `[{"rank": "0-1,3-4", "children": {"core": "0-1", "gpu": "1"}}]`},
		{"gpu only and core before gpu", func(f *fixture, w emit.Writer) {
			f.emitNode(w, 0, nil, []int{0, 1})
			f.emitNode(w, 1, []int{3, 1}, []int{0})
		}, `[{"rank": "1", "children": {"core": "1,3", "gpu": "0"}}, {"rank": "0", "children": {"gpu": "0-1"}}]`},
		{"other types ignored, node without ids records nothing", func(f *fixture, w emit.Writer) {
			f.v(w, f.mem)
			f.emitNode(w, 0, []int{0}, nil)
			f.emitNode(w, 1, nil, nil)
			f.v(w, f.root)
		}, `[{"rank": "0", "children": {"core": "0"}}]`},
		// Pending ids go to the next node emitted, whatever their origin.
		{"pending ids", func(f *fixture, w emit.Writer) {
			f.v(w, f.cores[0][0])
			f.v(w, f.cores[1][3])
			f.v(w, f.nodes[2])
		}, `[{"rank": "2", "children": {"core": "0,3"}}]`},
	}
	for _, tc := range tests {
		f := newFixture(hosts, []int64{0, 1, 2, 3, 4})
		w := rv1.NewWriter(rv1.RLite)
		tc.feed(f, w)
		w.Times(7, 9)
		got, err := w.Render()
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s:\n got %q, %v\nwant %s", tc.name, got, err, tc.want)
		}
		if got, err := w.Render(); got != "" || !errors.Is(err, rv1.ErrEmpty) {
			t.Errorf("%s: second render %q %v, want ErrEmpty", tc.name, got, err)
		}
	}
}

func TestRLiteEmptyKeepsPending(t *testing.T) {
	f := newFixture([]string{"a1", "a2"}, []int64{0, 1})
	w := rv1.NewWriter(rv1.RLite)
	if got, err := w.Render(); got != "" || !errors.Is(err, rv1.ErrEmpty) {
		t.Errorf("empty: %q %v", got, err)
	}
	f.v(w, f.cores[0][1])
	f.v(w, f.root)
	if _, err := w.Render(); !errors.Is(err, rv1.ErrEmpty) {
		t.Errorf("pending only: %v", err)
	}
	f.emitNode(w, 1, []int{2}, nil)
	if got, err := w.Render(); err != nil || got != `[{"rank": "1", "children": {"core": "1-2"}}]`+"\n" {
		t.Errorf("pending attributed: %q %v", got, err)
	}
}

func TestNegativeRank(t *testing.T) {
	f := newFixture([]string{"n0", "n1"}, []int64{0, -1})
	for _, fm := range []rv1.Format{rv1.RLite, rv1.RV1NoSched, rv1.RV1} {
		w := rv1.NewWriter(fm)
		f.emitNode(w, 0, []int{0}, nil)
		f.emitNode(w, 1, []int{0}, nil)
		if got, err := w.Render(); got != "" || !errors.Is(err, rv1.ErrNegativeRank) {
			t.Errorf("format %d: %q %v", fm, got, err)
		}
	}
}

func TestNoSched(t *testing.T) {
	// Names are not in rank order: the nodelist follows ranks.
	f := newFixture([]string{"fluke9", "fluke10", "login", "fluke11"}, []int64{2, 3, 0, 1})
	f.g.V(f.nodes[0]).SetProp("zz", "1")
	f.g.V(f.nodes[0]).SetProp("foo", "bar")
	f.g.V(f.nodes[1]).SetProp("alpha", "1")
	f.g.V(f.nodes[1]).SetProp("zz", "1")
	f.g.V(f.nodes[2]).SetProp("flag", "")
	f.g.V(f.nodes[3]).SetProp("flag", "")
	w := rv1.NewWriter(rv1.RV1NoSched)
	f.emitNode(w, 0, []int{0}, nil)
	f.emitNode(w, 1, []int{1}, nil)
	f.emitNode(w, 2, []int{0}, nil)
	f.emitNode(w, 3, []int{1}, nil)
	f.v(w, f.root)
	w.Times(100, 3700)
	w.Attr("queue", "debug") // never printed by rv1_nosched
	got, err := w.Render()
	want := `{"version": 1, "execution": {"R_lite": [{"rank": "0,2", "children": {"core": "0"}}, {"rank": "1,3", "children": {"core": "1"}}], ` +
		`"nodelist": ["login,fluke[11,9-10]"], "properties": {"alpha=1": "3", "flag": "0-1", "foo=bar": "2", "zz=1": "2-3"}, "starttime": 100, "expiration": 3700}}` + "\n"
	if err != nil || got != want {
		t.Errorf("rv1_nosched:\n got %s (%v)\nwant %s", got, err, want)
	}
	// Without properties the key is absent; times are those of the last
	// Times call.
	w.Times(0, 0)
	f.g.V(f.nodes[2]).SetProps(nil)
	f.emitNode(w, 2, []int{0, 1, 2, 3}, []int{0, 1})
	got, _ = w.Render()
	want = `{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-3", "gpu": "0-1"}}], "nodelist": ["login"], "starttime": 0, "expiration": 0}}` + "\n"
	if got != want {
		t.Errorf("second rendering:\n got %s\nwant %s", got, want)
	}
	// Nothing recorded: nothing printed, no error.
	f.v(w, f.nodes[1])
	if got, err := w.Render(); got != "" || err != nil {
		t.Errorf("empty rv1_nosched: %q %v", got, err)
	}
}

func TestRV1JGFPartAndQueue(t *testing.T) {
	f := newFixture([]string{"node0", "node1"}, []int64{0, 1})
	edge := func(a, b graph.VertexID) graph.EdgeID { e, _ := f.g.FindEdge(a, b); return e }
	for _, fm := range []rv1.Format{rv1.RV1, rv1.RV1Shorthand, rv1.RV1NoSched} {
		w := rv1.NewWriter(fm)
		// A find-like emission without cores: nothing printed, the JGF part
		// is kept (rv1 and rv1_shorthand).
		w.Vertex(f.g, &emit.Vertex{ID: f.nodes[1], Needs: 1, Exclusive: true, Level: 2})
		w.Edge(f.g, edge(f.root, f.nodes[1]), false)
		w.Vertex(f.g, &emit.Vertex{ID: f.root, Needs: 1, Level: 1})
		if got, err := w.Render(); got != "" || err != nil {
			t.Errorf("format %d: no R_lite: %q %v", fm, got, err)
		}
		// A job with a queue.
		w.Vertex(f.g, &emit.Vertex{ID: f.cores[0][0], Needs: 1, Exclusive: true, Level: 3})
		w.Edge(f.g, edge(f.nodes[0], f.cores[0][0]), false)
		w.Vertex(f.g, &emit.Vertex{ID: f.nodes[0], Needs: 1, Level: 2})
		w.Edge(f.g, edge(f.root, f.nodes[0]), false)
		w.Vertex(f.g, &emit.Vertex{ID: f.root, Needs: 1, Level: 1})
		w.Times(0, 10)
		w.Attr("queue", "debug")
		w.Attr("other", "x")
		got, err := w.Render()
		if err != nil {
			t.Fatalf("format %d: %v", fm, err)
		}
		execution := `{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 10}`
		attrs := `, "attributes": {"system": {"scheduler": {"queue": "debug"}}}}` + "\n"
		switch fm {
		case rv1.RV1NoSched:
			if got != execution+"}\n" {
				t.Errorf("rv1_nosched: %s", got)
			}
		default:
			// The kept node1 and root come first in the scheduling graph.
			if !strings.HasPrefix(got, execution+`, "scheduling": {"graph": {"nodes": [{"id": "2", `) ||
				!strings.HasSuffix(got, `{"source": "0", "target": "2"}, {"source": "1", "target": "3"}, {"source": "0", "target": "1"}]}}`+attrs) ||
				strings.Count(got, `{"id": `) != 5 {
				t.Errorf("format %d:\n%s", fm, got)
			}
		}
		// The queue is sticky: a later job without a queue still has it.
		w.Vertex(f.g, &emit.Vertex{ID: f.gpus[1][1], Needs: 1, Exclusive: true, Level: 3})
		w.Edge(f.g, edge(f.nodes[1], f.gpus[1][1]), false)
		w.Vertex(f.g, &emit.Vertex{ID: f.nodes[1], Needs: 1, Level: 2})
		w.Edge(f.g, edge(f.root, f.nodes[1]), false)
		w.Vertex(f.g, &emit.Vertex{ID: f.root, Needs: 1, Level: 1})
		w.Times(10, 20)
		got, err = w.Render()
		if err != nil {
			t.Fatalf("format %d: %v", fm, err)
		}
		hasAttrs := strings.HasSuffix(got, attrs)
		if hasAttrs != (fm != rv1.RV1NoSched) || !strings.Contains(got, `"children": {"gpu": "1"}`) || !strings.Contains(got, `"starttime": 10, "expiration": 20`) {
			t.Errorf("format %d, second job:\n%s", fm, got)
		}
	}
}

// ---------------------------------------------------------------------------
// Whole matches on tiny.graphml (built in the GRUG reader's order).

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

// jobYAML is cluster → rack → node → slot → socket → core (test001) when
// full, or node[n] → slot[1] → socket[1] → core[c] (NS(n, c)).
func jobYAML(full bool, n, c int, queue string) string {
	var b strings.Builder
	b.WriteString("version: 9999\nresources:\n")
	ind := "  "
	if full {
		b.WriteString("  - type: cluster\n    count: 1\n    with:\n      - type: rack\n        count: 1\n        with:\n")
		ind = "          "
	}
	fmt.Fprintf(&b, "%s- type: node\n%s  count: %d\n%s  with:\n", ind, ind, n, ind)
	ind += "    "
	fmt.Fprintf(&b, "%s- type: slot\n%s  count: 1\n%s  label: default\n%s  with:\n", ind, ind, ind, ind)
	ind += "    "
	fmt.Fprintf(&b, "%s- type: socket\n%s  count: 1\n%s  with:\n", ind, ind, ind)
	ind += "    "
	fmt.Fprintf(&b, "%s- type: core\n%s  count: %d\n", ind, ind, c)
	b.WriteString("attributes:\n  system:\n    duration: 3600\n")
	if queue != "" {
		b.WriteString("    queue: " + queue + "\n")
	}
	b.WriteString("tasks:\n  - command: [ \"app\" ]\n    slot: default\n    count:\n      per_slot: 1\n")
	return b.String()
}

func matchOne(t *testing.T, m *match.Matcher, w emit.Writer, doc string, job uint64) string {
	t.Helper()
	g := m.Graph()
	js, err := jobspec.Parse([]byte(doc), jobspec.Options{KnownType: func(s string) bool { _, ok := g.Types.Lookup(s); return ok }})
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if _, err := m.Match(match.Allocate, js, job, 0, w); err != nil {
		t.Fatalf("job %d: %v", job, err)
	}
	out, err := w.Render()
	if err != nil {
		t.Fatalf("job %d render: %v", job, err)
	}
	return out
}

// TestP3StickyQueue is examples.md P3.
func TestP3StickyQueue(t *testing.T) {
	g := tinyGraph()
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	w := rv1.NewWriter(rv1.RV1Shorthand)
	got := matchOne(t, m, w, jobYAML(true, 1, 1, "debug"), 1)
	want := `{"version": 1, "execution": {"R_lite": [{"rank": "1", "children": {"core": "35"}}], "nodelist": ["node1"], "starttime": 0, "expiration": 3600}, "scheduling": {"graph": {"nodes": [{"id": "7", "metadata": {"type": "socket", "id": 1, "rank": -1, "exclusive": true, "paths": {"containment": "/tiny0/rack0/node1/socket1"}}}, {"id": "3", "metadata": {"type": "node", "id": 1, "rank": 1, "paths": {"containment": "/tiny0/rack0/node1"}}}, {"id": "1", "metadata": {"type": "rack", "id": 0, "rank": -1, "paths": {"containment": "/tiny0/rack0"}}}, {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "id": 0, "rank": -1, "paths": {"containment": "/tiny0"}}}], "edges": [{"source": "3", "target": "7"}, {"source": "1", "target": "3"}, {"source": "0", "target": "1"}]}, "writer": "fluxion:jgf_shorthand"}, "attributes": {"system": {"scheduler": {"queue": "debug"}}}}` + "\n"
	if got != want {
		t.Errorf("job 1:\n got %s\nwant %s", got, want)
	}
	got = matchOne(t, m, w, jobYAML(true, 1, 1, ""), 2)
	if !strings.Contains(got, `"R_lite": [{"rank": "1", "children": {"core": "17"}}]`) ||
		!strings.HasSuffix(got, `, "attributes": {"system": {"scheduler": {"queue": "debug"}}}}`+"\n") {
		t.Errorf("job 2: %s", got)
	}
	// The same with rv1.
	m, _ = match.New(tinyGraph(), match.Options{Policy: "high"})
	w = rv1.NewWriter(rv1.RV1)
	matchOne(t, m, w, jobYAML(true, 1, 1, "debug"), 1)
	got = matchOne(t, m, w, jobYAML(true, 1, 1, ""), 2)
	if !strings.HasSuffix(got, `]}}, "attributes": {"system": {"scheduler": {"queue": "debug"}}}}`+"\n") || !strings.Contains(got, `"id": "61"`) {
		t.Errorf("rv1 job 2: %s", got)
	}
}

// TestP4Properties is examples.md P4.
func TestP4Properties(t *testing.T) {
	run := func(f rv1.Format) []string {
		g := tinyGraph()
		g.V(g.ByPath("/tiny0/rack0/node0")[0]).SetProp("foo", "bar")
		g.V(g.ByPath("/tiny0/rack0/node1")[0]).SetProp("alpha", "1")
		g.V(g.ByPath("/tiny0/rack0/node0")[0]).SetProp("zz", "1")
		g.V(g.ByPath("/tiny0/rack0/node1")[0]).SetProp("zz", "1")
		m, err := match.New(g, match.Options{Policy: "low"})
		if err != nil {
			t.Fatal(err)
		}
		w := rv1.NewWriter(f)
		return []string{matchOne(t, m, w, jobYAML(false, 1, 3, ""), 1), matchOne(t, m, w, jobYAML(false, 2, 1, ""), 2)}
	}
	got := run(rv1.RLite)
	want := []string{
		`[{"rank": "0", "children": {"core": "0-2"}}]` + "\n",
		`[{"rank": "1", "children": {"core": "0"}}, {"rank": "0", "children": {"core": "18"}}]` + "\n",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rlite job %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
	got = run(rv1.RV1NoSched)
	want = []string{
		`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-2"}}], "nodelist": ["node0"], "properties": {"foo=bar": "0", "zz=1": "0"}, "starttime": 0, "expiration": 3600}}` + "\n",
		`{"version": 1, "execution": {"R_lite": [{"rank": "1", "children": {"core": "0"}}, {"rank": "0", "children": {"core": "18"}}], "nodelist": ["node[0-1]"], "properties": {"alpha=1": "1", "foo=bar": "0", "zz=1": "0-1"}, "starttime": 0, "expiration": 3600}}` + "\n",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("rv1_nosched job %d:\n got %s\nwant %s", i+1, got[i], want[i])
		}
	}
}

// TestE7RV1 is the rv1 part of examples.md E7.
func TestE7RV1(t *testing.T) {
	g := tinyGraph()
	core35 := g.ByPath("/tiny0/rack0/node1/socket1/core35")[0]
	g.V(core35).SetProp("zeta", "1")
	g.V(core35).SetProp("alpha", "2")
	g.V(g.ByPath("/tiny0/rack0/node1")[0]).SetProp("perf", "x")
	m, _ := match.New(g, match.Options{Policy: "high"})
	got := matchOne(t, m, rv1.NewWriter(rv1.RV1), jobYAML(true, 1, 1, ""), 1)
	want := `{"version": 1, "execution": {"R_lite": [{"rank": "1", "children": {"core": "35"}}], "nodelist": ["node1"], "properties": {"perf=x": "1"}, "starttime": 0, "expiration": 3600}, "scheduling": {"graph": {"nodes": [{"id": "79", "metadata": {"type": "core", "id": 35, "rank": -1, "properties": {"alpha": "2", "zeta": "1"}, "exclusive": true, "paths": {"containment": "/tiny0/rack0/node1/socket1/core35"}}}, {"id": "7", "metadata": {"type": "socket", "id": 1, "rank": -1, "exclusive": true, "paths": {"containment": "/tiny0/rack0/node1/socket1"}}}, {"id": "3", "metadata": {"type": "node", "id": 1, "rank": 1, "properties": {"perf": "x"}, "paths": {"containment": "/tiny0/rack0/node1"}}}, {"id": "1", "metadata": {"type": "rack", "id": 0, "rank": -1, "paths": {"containment": "/tiny0/rack0"}}}, {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "id": 0, "rank": -1, "paths": {"containment": "/tiny0"}}}], "edges": [{"source": "7", "target": "79"}, {"source": "3", "target": "7"}, {"source": "1", "target": "3"}, {"source": "0", "target": "1"}]}}}` + "\n"
	if got != want {
		t.Errorf("E7 rv1:\n got %s\nwant %s", got, want)
	}
}

// TestFindRenderings: find renders with starttime/expiration 0, and an
// rv1 find without cores prints nothing but keeps its JGF part.
func TestFindRenderings(t *testing.T) {
	g := tinyGraph()
	m, _ := match.New(g, match.Options{Policy: "high"})
	w := rv1.NewWriter(rv1.RV1NoSched)
	if err := m.Find("names=core0 and names=node1", 0, w); err == nil {
		// "names=core0 and names=node1" is false everywhere.
		if out, err := w.Render(); out != "" || err != nil {
			t.Errorf("empty find: %q %v", out, err)
		}
	}
	if err := m.Find("names=node1 or names=core[0-1]", 0, w); err != nil {
		t.Fatal(err)
	}
	out, err := w.Render()
	want := `{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "0-1"}}], "nodelist": ["node[0-1]"], "starttime": 0, "expiration": 0}}` + "\n"
	if err != nil || out != want {
		t.Errorf("find rv1_nosched:\n got %s\nwant %s", out, want)
	}
	rl := rv1.NewWriter(rv1.RLite)
	if err := m.Find("names=rack0", 0, rl); err != nil {
		t.Fatal(err)
	}
	if out, err := rl.Render(); out != "" || !errors.Is(err, rv1.ErrEmpty) {
		t.Errorf("rlite find without cores: %q %v", out, err)
	}
}
