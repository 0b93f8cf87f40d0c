package jgf

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// The conformance corpus (flux-sched test data) is read in place, never
// copied into this repository.
const corpus = "../../shared/conformance/data"

func corpusGlob(t *testing.T, patterns ...string) []string {
	t.Helper()
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("conformance corpus not available")
	}
	var files []string
	for _, p := range patterns {
		m, err := filepath.Glob(filepath.Join(corpus, p))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no corpus files match", patterns)
	}
	return files
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *jgf.Error", err, err)
	}
	return e
}

// snapshot renders everything observable about g, to check that a failed
// Load leaves it unchanged.
func snapshot(g *graph.Graph) string {
	var b strings.Builder
	for i := 0; i < g.Types.Len(); i++ {
		fmt.Fprintf(&b, "type %d %s\n", i, g.Types.Name(int32(i)))
	}
	for i := 0; i < g.Subsystems.Len(); i++ {
		fmt.Fprintf(&b, "sub %d %s root %d\n", i, g.Subsystems.Name(int32(i)), g.Root(graph.SubsystemID(i)))
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		plain := *g.V(v) // without the pointer to its unit and properties
		plain.SetUnit("")
		plain.SetProps(nil)
		fmt.Fprintf(&b, "v %d %+v unit %q props %v out %v in %v\n", v, plain, g.V(v).Unit(), g.V(v).Props(), g.Out(v), g.In(v))
		vx := g.V(v)
		fmt.Fprintf(&b, "  name %v rank %v type %v\n", g.ByName(vx.Name), g.ByRank(vx.Rank), g.ByType(vx.Type))
		for _, p := range vx.Paths {
			fmt.Fprintf(&b, "  path %s %v\n", p.Path, g.ByPath(p.Path))
		}
	}
	fmt.Fprintf(&b, "edges %d ranks %v\n", g.NumEdges(), g.Ranks())
	t, n, p := g.IndexSizes()
	fmt.Fprintf(&b, "index sizes %d %d %d\n", t, n, p)
	return b.String()
}

// ---------------------------------------------------------------------------
// Corpus

type rawNode struct {
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata"`
}

type rawDoc struct {
	Graph struct {
		Nodes []rawNode `json:"nodes"`
		Edges []struct {
			Source, Target string
			Metadata       map[string]any
		} `json:"edges"`
	} `json:"graph"`
}

func num(m map[string]any, key string, def int64) int64 {
	if v, ok := m[key]; ok {
		return int64(v.(float64))
	}
	return def
}

func str(m map[string]any, key, def string) string {
	if v, ok := m[key]; ok && v.(string) != "" {
		return v.(string)
	}
	return def
}

// fluxionMode is the reader resource-query uses.
var fluxionMode = Options{Fluxion: true}

// notGraphs are corpus JGFs that are not graphs but the R of a partial
// cancel: they list Fluxion's reverse containment edges ("in"), which
// make cycles and second parents. Fluxion's reader loads them; the strict
// reader refuses them.
var notGraphs = map[string]bool{"node-1-partial-cancel.json": true, "node-1-partial-cancel-invalid.json": true}

// TestReadCorpus loads every JGF of the corpus and checks the graph
// against an independent decoding with encoding/json. The strict reader
// builds the same graph, except from notGraphs.
func TestReadCorpus(t *testing.T) {
	for _, f := range corpusGlob(t, "resource/jgfs/*.json", "resource/jgfs/elastic/*.json") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			g, err := fluxionMode.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			strict, err := ReadFile(f)
			switch {
			case notGraphs[filepath.Base(f)]:
				if e := asError(t, err); !e.Strict {
					t.Errorf("strict reader: %v, want a strict-only error", err)
				}
			case err != nil:
				t.Errorf("strict reader: %v", err)
			case snapshot(strict) != snapshot(g):
				t.Error("the strict reader built another graph")
			}
			var raw rawDoc
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			checkAgainstRaw(t, g, &raw)
		})
	}
}

func checkAgainstRaw(t *testing.T, g *graph.Graph, raw *rawDoc) {
	t.Helper()
	nodes := raw.Graph.Nodes
	if g.NumVertices() != len(nodes) {
		t.Fatalf("%d vertices, want %d", g.NumVertices(), len(nodes))
	}
	byID := map[string]graph.VertexID{}
	for i, n := range nodes {
		v := graph.VertexID(i)
		vx := g.V(v)
		md := n.Metadata
		byID[n.ID] = v
		uniq, _ := strconv.ParseInt(n.ID, 10, 64)
		uniq = num(md, "uniq_id", uniq)
		typ := md["type"].(string)
		id := num(md, "id", uniq)
		if _, ok := md["id"]; !ok && typ == "node" && md["name"] != nil {
			if d := trailingDigits(md["name"].(string)); d != "" {
				id, _ = strconv.ParseInt(d, 10, 64)
			}
		}
		basename := str(md, "basename", typ)
		want := graph.Vertex{
			Type:     g.Type(typ),
			Status:   graph.Status(num(md, "status", 0)),
			Rank:     num(md, "rank", -1),
			ID:       id,
			UniqID:   uniq,
			Size:     num(md, "size", 1),
			Basename: basename,
			Name:     str(md, "name", basename+strconv.FormatInt(id, 10)),
		}
		got := *vx
		got.SetProps(nil)
		got.Paths = nil
		if !equalVertex(got, want) {
			t.Errorf("node %s: got %+v, want %+v", n.ID, got, want)
		}
		props := map[string]string{}
		if p, ok := md["properties"].(map[string]any); ok {
			for k, v := range p {
				props[k] = v.(string)
			}
		}
		if len(props) != len(vx.Props()) {
			t.Errorf("node %s: properties %v, want %v", n.ID, vx.Props(), props)
		}
		for i, p := range vx.Props() {
			if props[p.Key] != p.Value || i > 0 && vx.Props()[i-1].Key >= p.Key {
				t.Errorf("node %s: properties %v, want %v", n.ID, vx.Props(), props)
			}
		}
		paths := md["paths"].(map[string]any)
		if len(paths) != len(vx.Paths) {
			t.Errorf("node %s: paths %v, want %v", n.ID, vx.Paths, paths)
		}
		for i, p := range vx.Paths {
			if paths[g.SubsystemName(p.Subsystem)] != p.Path || i > 0 && vx.Paths[i-1].Subsystem >= p.Subsystem {
				t.Errorf("node %s: paths %v, want %v", n.ID, vx.Paths, paths)
			}
			if !slices.Contains(g.ByPath(p.Path), v) {
				t.Errorf("node %s: not indexed at %s", n.ID, p.Path)
			}
			if strings.Count(p.Path, "/") == 1 && g.Root(p.Subsystem) != v {
				t.Errorf("node %s: not the root of %s", n.ID, g.SubsystemName(p.Subsystem))
			}
		}
	}
	if g.NumEdges() != len(raw.Graph.Edges) {
		t.Fatalf("%d edges, want %d", g.NumEdges(), len(raw.Graph.Edges))
	}
	wantOut := map[graph.VertexID][]graph.VertexID{}
	for i, e := range raw.Graph.Edges {
		ed := g.E(graph.EdgeID(i))
		sub := "containment"
		if s, ok := e.Metadata["subsystem"].(string); ok {
			sub = s
		}
		if ed.Src != byID[e.Source] || ed.Dst != byID[e.Target] || g.SubsystemName(ed.Subsystem) != sub {
			t.Errorf("edge %d: %d->%d (%s), want %s->%s (%s)", i, ed.Src, ed.Dst, g.SubsystemName(ed.Subsystem), e.Source, e.Target, sub)
		}
		wantOut[byID[e.Source]] = append(wantOut[byID[e.Source]], byID[e.Target])
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		var got []graph.VertexID
		for _, h := range g.Out(v) {
			got = append(got, h.Other)
		}
		if !slices.Equal(got, wantOut[v]) {
			t.Errorf("out-edges of %d: %v, want %v", v, got, wantOut[v])
		}
	}
}

func equalVertex(a, b graph.Vertex) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Rank == b.Rank && a.ID == b.ID &&
		a.UniqID == b.UniqID && a.Size == b.Size && a.Basename == b.Basename && a.Name == b.Name && a.Unit() == b.Unit()
}

// TestReadRDocuments: an RFC 20 R is not a JGF (its "scheduling" member
// is).
func TestReadRDocuments(t *testing.T) {
	files := corpusGlob(t, "resource/rv1exec/*.json", "resource/rv1exec/cancel/*.json", "generated/*/*.json")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil || top["execution"] == nil {
			continue // a jobspec
		}
		n++
		_, err = Read(data)
		if err == nil {
			t.Errorf("%s: read as JGF", f)
			continue
		}
		if got, want := asError(t, err).Fluxion(), "fetch_jgf: JGF does not contain a required key (graph).\n"; got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
		if s := top["scheduling"]; s != nil {
			g, err := Read(s)
			if err != nil {
				t.Errorf("%s: scheduling: %v", f, err)
				continue
			}
			var raw rawDoc
			if err := json.Unmarshal(s, &raw); err != nil {
				t.Fatal(err)
			}
			checkAgainstRaw(t, g, &raw)
		}
	}
	if n == 0 {
		t.Skip("no R documents in the corpus")
	}
}

// ---------------------------------------------------------------------------
// Spec examples

// a2 is the input of spec examples.md A2.
const a2 = `{"graph": {"nodes": [
 {"id": "10", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
 {"id": "7", "metadata": {"type": "node", "name": "host12", "rank": 3, "paths": {"containment": "/c0/host12"}, "properties": {"b": "2", "a": ""}}},
 {"id": "8x", "metadata": {"type": "core", "basename": "cpu", "size": 1, "paths": {"containment": "/c0/host12/cpu8"}}},
 {"id": "9", "metadata": {"type": "core", "uniq_id": 42, "id": 3, "name": "weird", "unit": "u", "status": 1, "paths": {"containment": "/c0/host12/weird"}}},
 {"id": "11", "metadata": {"type": "gpu", "id": 0, "rank": 3, "size": 4, "exclusive": true, "paths": {"containment": "/c0/host12/gpu0"}}}],
 "edges": [{"source": "10", "target": "7"}, {"source": "7", "target": "8x", "metadata": {}},
   {"source": "7", "target": "9", "metadata": {"subsystem": "containment"}},
   {"source": "7", "target": "11", "metadata": {"name": {"containment": "contains"}}}]}}
`

// a2Out is what resource-query prints for A2 with -F jgf and
// "find status=up or status=down".
const a2Out = `{"graph": {"nodes": [{"id": "8", "metadata": {"type": "core", "basename": "cpu", "id": 8, "rank": -1, "exclusive": true, "paths": {"containment": "/c0/host12/cpu8"}}}, {"id": "42", "metadata": {"type": "core", "name": "weird", "id": 3, "rank": -1, "exclusive": true, "paths": {"containment": "/c0/host12/weird"}}}, {"id": "11", "metadata": {"type": "gpu", "id": 0, "rank": 3, "exclusive": true, "size": 4, "paths": {"containment": "/c0/host12/gpu0"}}}, {"id": "7", "metadata": {"type": "node", "name": "host12", "id": 12, "rank": 3, "properties": {"a": "", "b": "2"}, "exclusive": true, "paths": {"containment": "/c0/host12"}}}, {"id": "10", "metadata": {"type": "cluster", "id": 10, "rank": -1, "exclusive": true, "paths": {"containment": "/c0"}}}], "edges": [{"source": "7", "target": "8"}, {"source": "7", "target": "42"}, {"source": "7", "target": "11"}, {"source": "10", "target": "7"}]}}`

func TestA2Defaults(t *testing.T) {
	doc, err := Parse([]byte(a2))
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{ID: "10", Metadata: Metadata{Type: "cluster", Basename: "cluster", Name: "cluster10", ID: 10, UniqID: 10, Rank: -1, Size: 1,
			Paths: []Path{{"containment", "/c0"}}}},
		{ID: "7", Metadata: Metadata{Type: "node", Basename: "node", Name: "host12", ID: 12, UniqID: 7, Rank: 3, Size: 1,
			Properties: []graph.Property{{Key: "a", Value: ""}, {Key: "b", Value: "2"}}, Paths: []Path{{"containment", "/c0/host12"}}}},
		{ID: "8x", Metadata: Metadata{Type: "core", Basename: "cpu", Name: "cpu8", ID: 8, UniqID: 8, Rank: -1, Size: 1,
			Paths: []Path{{"containment", "/c0/host12/cpu8"}}}},
		{ID: "9", Metadata: Metadata{Type: "core", Basename: "core", Name: "weird", ID: 3, UniqID: 42, Rank: -1, Size: 1, Unit: "u", Status: 1,
			Paths: []Path{{"containment", "/c0/host12/weird"}}}},
		{ID: "11", Metadata: Metadata{Type: "gpu", Basename: "gpu", Name: "gpu0", ID: 0, UniqID: 11, Rank: 3, Size: 4, Exclusive: true,
			Paths: []Path{{"containment", "/c0/host12/gpu0"}}}},
	}
	if len(doc.Nodes) != len(want) {
		t.Fatalf("%d nodes", len(doc.Nodes))
	}
	for i := range want {
		if fmt.Sprintf("%+v", doc.Nodes[i]) != fmt.Sprintf("%+v", want[i]) {
			t.Errorf("node %d:\n got %+v\nwant %+v", i, doc.Nodes[i], want[i])
		}
	}
	wantEdges := []Edge{{Source: "10", Target: "7", Subsystem: "containment"}, {Source: "7", Target: "8x", Subsystem: "containment"},
		{Source: "7", Target: "9", Subsystem: "containment"}, {Source: "7", Target: "11", Subsystem: "containment"}}
	if !slices.Equal(doc.Edges, wantEdges) {
		t.Errorf("edges %+v", doc.Edges)
	}
	if doc.HasFreeRanks {
		t.Error("free_ranks")
	}

	g := graph.New()
	if err := Load(g, doc); err != nil {
		t.Fatal(err)
	}
	// Graph fields.
	for i, n := range want {
		vx := g.V(graph.VertexID(i))
		m := n.Metadata
		if g.TypeName(graph.VertexID(i)) != m.Type || vx.Basename != m.Basename || vx.Name != m.Name || vx.ID != m.ID ||
			vx.UniqID != m.UniqID || vx.Rank != m.Rank || vx.Size != m.Size || vx.Status != m.Status || vx.Unit() != "" ||
			!slices.Equal(vx.Props(), m.Properties) || len(vx.Paths) != 1 || vx.Paths[0].Path != m.Paths[0].Path {
			t.Errorf("vertex %d: %+v", i, *vx)
		}
	}
	if g.Root(graph.Containment) != 0 {
		t.Error("root")
	}
	// What find prints (post-order, needs = size, exclusive): the spec's
	// output, byte for byte.
	w := NewWriter()
	for _, v := range []graph.VertexID{2, 3, 4, 1, 0} {
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Exclusive: true})
	}
	for _, e := range []graph.EdgeID{1, 2, 3, 0} {
		w.Edge(g, e, false)
	}
	out, err := w.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if out != a2Out {
		t.Errorf("rendered\n%s\nwant\n%s", out, a2Out)
	}
}

func TestA2Notes(t *testing.T) {
	doc, err := fluxionMode.Parse([]byte(`{"graph": {"nodes": [
		{"id": "1", "metadata": {"type": "node", "name": "n007", "paths": {}}},
		{"id": "2", "metadata": {"type": "node", "name": "plain", "paths": {}}},
		{"id": "3", "metadata": {"type": "rack", "name": "r9", "paths": {}}},
		{"id": "4", "metadata": {"type": "node", "paths": {}}},
		{"id": "5", "metadata": {"type": "core", "uniq_id": -1, "id": -2, "size": -1, "basename": "", "name": "", "paths": {}}},
		{"id": " +12abc", "metadata": {"type": "core", "size": -5, "rank": 123456789012, "status": 77, "paths": {}}},
		{"id": "-3", "metadata": {"type": "core", "id": -1, "paths": {}}}
	], "edges": []}, "free_ranks": "0-3"}`))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		id, uniq, size, rank int64
		status               graph.Status
		name                 string
	}
	for i, w := range []want{
		{7, 1, 1, -1, 0, "n007"},
		{2, 2, 1, -1, 0, "plain"},
		{3, 3, 1, -1, 0, "r9"},
		{4, 4, 1, -1, 0, "node4"},
		{5, 5, 1, -1, 0, "core5"},
		{12, 12, -5, 123456789012, 77, "core12"},
		{-1, -3, 1, -1, 0, "core-1"},
	} {
		m := doc.Nodes[i].Metadata
		if m.ID != w.id || m.UniqID != w.uniq || m.Size != w.size || m.Rank != w.rank || m.Status != w.status || m.Name != w.name || len(m.Paths) != 0 {
			t.Errorf("node %d: %+v, want %+v", i, m, w)
		}
	}
	if !doc.HasFreeRanks || doc.FreeRanks != "0-3" {
		t.Errorf("free_ranks %q %v", doc.FreeRanks, doc.HasFreeRanks)
	}
	g := graph.New()
	if err := Load(g, doc); err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 7 || len(g.RootSubsystems()) != 0 {
		t.Fatalf("%d vertices, roots %v", g.NumVertices(), g.RootSubsystems())
	}
	if got := g.V(5).Size; got != int64(uint32(1<<32-5)) {
		t.Errorf("size -5 stored as %d", got)
	}
	// A vertex without paths is written without "paths".
	w := NewWriter()
	w.Vertex(g, &emit.Vertex{ID: 0, Needs: 1})
	if s := VertexJSON(&w.buf, g, &emit.Vertex{ID: 0, Needs: 1}); strings.Contains(s, "paths") {
		t.Errorf("%s", s)
	}
}

// ---------------------------------------------------------------------------
// Errors

type errCase struct {
	name, doc, fluxion string
	crash              bool
}

func checkErrors(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := Read([]byte(c.doc))
			if err == nil {
				t.Fatalf("no error; %d vertices", g.NumVertices())
			}
			e := asError(t, err)
			if e.Fluxion() != c.fluxion {
				t.Errorf("Fluxion()\n got %q\nwant %q", e.Fluxion(), c.fluxion)
			}
			if e.Crash != c.crash {
				t.Errorf("Crash = %v", e.Crash)
			}
			if !strings.HasPrefix(e.Error(), "jgf: ") || strings.Contains(e.Error(), "\n") {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

func nodesDoc(nodes, edges string) string {
	return `{"graph": {"nodes": [` + nodes + `], "edges": [` + edges + `]}}` + "\n"
}

const (
	n0 = `{"id": "0", "metadata": {"type": "cluster", "name": "cluster0", "paths": {"containment": "/cluster0"}}}`
	n1 = `{"id": "1", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node1"}}}`
)

// TestA3Errors: spec examples.md A3, one case per row.
func TestA3Errors(t *testing.T) {
	checkErrors(t, []errCase{
		{"duplicate id", nodesDoc(n0+`, {"id": "0", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node0"}}}`, ""),
			"add_vtx: found duplicate JGF node id for 0.\n", false},
		{"no paths", nodesDoc(n0+`, {"id": "1", "metadata": {"type": "node"}}`, ""),
			"fill_fetcher: malformed metadata in an JGF node for 1\n", false},
		{"properties array", nodesDoc(n0+`, {"id": "1", "metadata": {"type": "node", "properties": [1], "paths": {}}}`, ""),
			"fill_fetcher: key (properties) must be an object or null for 1.\n", false},
		{"properties null", nodesDoc(n0+`, {"id": "1", "metadata": {"type": "node", "properties": null, "paths": {}}}`, ""),
			"fill_fetcher: key (properties) must be an object or null for 1.\n", false},
		{"unknown endpoint", nodesDoc(n0+", "+n1, `{"source": "0", "target": "5"}`),
			"unpack_edge: source and/or target vertex not found0 -> 5.\n", false},
		{"edge without target", nodesDoc(n0+", "+n1, `{"source": "0"}`),
			"unpack_edge: encountered a malformed edge.\n", false},
		{"numeric source", nodesDoc(n0+", "+n1, `{"source": 0, "target": "1"}`),
			"unpack_edge: encountered a malformed edge.\n", false},
		{"second root", nodesDoc(n0+`, {"id": "1", "metadata": {"type": "cluster", "paths": {"containment": "/c1"}}}`, ""),
			"add_graph_metadata: failed to add root metadata for containment subsystem. Possible duplicate root.\n", false},
		{"uniq_id not inferable", nodesDoc(`{"id": "abc", "metadata": {"type": "node", "paths": {}}}`, ""),
			"apply_defaults: value for key (uniq_id) could not be inferred from outer 'id' field abc.\n", false},
		{"same edge twice", nodesDoc(n0+", "+n1, `{"source": "0", "target": "1"}, {"source": "0", "target": "1"}`),
			"error inserting an edge to outedge metadata map: cluster0 -> node1; ", false},
		{"no edges", `{"graph": {"nodes": []}}`,
			"fetch_jgf: JGF does not contain a required key (edges).\n", false},
		{"truncated", `{"graph": {"nodes": [], "edges": [` + "\n",
			"fetch_jgf: json_loads returned an error: ']' expected near end of file: <string>@2:0.\n", false},
		{"non-string property", nodesDoc(`{"id": "1", "metadata": {"type": "node", "properties": {"a": 1}, "paths": {}}}`, ""),
			"fill_fetcher: value of property (a) is not a string for 1.\n", true},
	})
}

func TestDocumentErrors(t *testing.T) {
	md := func(fields string) string {
		return nodesDoc(`{"id": "4", "metadata": {`+fields+`}}`, "")
	}
	const malformed = "fill_fetcher: malformed metadata in an JGF node for 4\n"
	checkErrors(t, []errCase{
		{"no graph", `{"execution": {}, "scheduling": {}}`, "fetch_jgf: JGF does not contain a required key (graph).\n", false},
		{"no graph array", `[{"graph": {}}]`, "fetch_jgf: JGF does not contain a required key (graph).\n", false},
		{"no nodes", `{"graph": {"edges": []}}`, "fetch_jgf: JGF does not contain a required key (nodes).\n", false},
		{"graph not object", `{"graph": [1], "nodes": [], "edges": []}`, "fetch_jgf: JGF does not contain a required key (nodes).\n", false},
		{"nothing", `{}`, "fetch_jgf: JGF does not contain a required key (graph).\n", false},
		{"empty input", ``, "fetch_jgf: json_loads returned an error: '[' or '{' expected near end of file: <string>@1:0.\n", false},
		{"scalar", `"a"`, "fetch_jgf: json_loads returned an error: '[' or '{' expected near '\"a\"': <string>@1:3.\n", false},
		{"trailing comma", `{"graph": 1,}`, "fetch_jgf: json_loads returned an error: string or '}' expected near '}': <string>@1:13.\n", false},
		{"no colon", `{"graph" 1}`, "fetch_jgf: json_loads returned an error: ':' expected near '1': <string>@1:10.\n", false},
		{"bad literal", `{"a": tru}`, "fetch_jgf: json_loads returned an error: invalid token near 'tru': <string>@1:9.\n", false},
		{"newline in string", "{\"a\": \"b\nc\"}", "fetch_jgf: json_loads returned an error: unexpected newline near '\"b': <string>@1:8.\n", false},
		{"bad escape", `{"a": "\q"}`, "fetch_jgf: json_loads returned an error: invalid escape near '\"\\q': <string>@1:9.\n", false},
		{"lone surrogate", `{"a": "\ud800"}`, "fetch_jgf: json_loads returned an error: invalid Unicode '\\uD800' near '\"\\ud800\"': <string>@1:14.\n", false},
		{"NUL escape", `{"a": "\u0000"}`, "fetch_jgf: json_loads returned an error: \\u0000 is not allowed without JSON_ALLOW_NUL near '\"\\u0000\"': <string>@1:14.\n", false},
		{"big integer", `{"a": 99999999999999999999}`, "fetch_jgf: json_loads returned an error: too big integer near '99999999999999999999': <string>@1:26.\n", false},
		{"big negative integer", `{"a": -99999999999999999999}`, "fetch_jgf: json_loads returned an error: too big negative integer: <string>@1:27.\n", false},
		{"real overflow", `{"a": 1e999}`, "fetch_jgf: json_loads returned an error: real number overflow near '1e999': <string>@1:11.\n", false},
		{"leading zero", `{"a": 01}`, "fetch_jgf: json_loads returned an error: invalid token near '0': <string>@1:7.\n", false},
		{"bad UTF-8", "{\"a\": \"\xff\"}", "fetch_jgf: json_loads returned an error: unable to decode byte 0xff near '\"': <string>@1:7.\n", false},
		{"trailing garbage", `{"a": 1} x`, "fetch_jgf: json_loads returned an error: end of file expected near 'x': <string>@1:10.\n", false},
		{"NUL ends input", "{\"a\": 1\x00}", "fetch_jgf: json_loads returned an error: '}' expected near end of file: <string>@1:7.\n", false},
		{"too deep", strings.Repeat("[", 2049) + strings.Repeat("]", 2049), "fetch_jgf: json_loads returned an error: maximum parsing depth reached near '[': <string>@1:2049.\n", false},
		{"long context omitted", `{"a": "abcdefghijklmnopqrstuvwxyz`, "fetch_jgf: json_loads returned an error: premature end of input: <string>@1:33.\n", false},

		{"node not object", nodesDoc(`5`, ""), "fill_fetcher: JGF vertex id key is not found in a node.\n", false},
		{"node without id", nodesDoc(`{"metadata": {}}`, ""), "fill_fetcher: JGF vertex id key is not found in a node.\n", false},
		{"numeric id", nodesDoc(`{"id": 4, "metadata": {}}`, ""), "fill_fetcher: JGF vertex id key is not found in a node.\n", false},
		{"no metadata", nodesDoc(`{"id": "4"}`, ""), "fill_fetcher: key (metadata) is not found in an JGF node for 4.\n", false},
		{"metadata not object", nodesDoc(`{"id": "4", "metadata": []}`, ""), malformed, false},
		{"no type", md(`"paths": {}`), malformed, false},
		{"numeric type", md(`"type": 1, "paths": {}`), malformed, false},
		{"basename null", md(`"type": "a", "basename": null, "paths": {}`), malformed, false},
		{"name number", md(`"type": "a", "name": 5, "paths": {}`), malformed, false},
		{"id string", md(`"type": "a", "id": "5", "paths": {}`), malformed, false},
		{"id real", md(`"type": "a", "id": 5.0, "paths": {}`), malformed, false},
		{"uniq_id null", md(`"type": "a", "uniq_id": null, "paths": {}`), malformed, false},
		{"rank bool", md(`"type": "a", "rank": true, "paths": {}`), malformed, false},
		{"status string", md(`"type": "a", "status": "up", "paths": {}`), malformed, false},
		{"exclusive int", md(`"type": "a", "exclusive": 1, "paths": {}`), malformed, false},
		{"unit number", md(`"type": "a", "unit": 1, "paths": {}`), malformed, false},
		{"size real", md(`"type": "a", "size": 1.5, "paths": {}`), malformed, false},
		{"paths array", md(`"type": "a", "paths": []`), malformed, false},
		{"paths null", md(`"type": "a", "paths": null`), malformed, false},
		{"path number", md(`"type": "a", "paths": {"containment": 1}`), malformed, false},
		{"malformed before properties", md(`"type": "a", "properties": null`), malformed, false},
		{"properties string", md(`"type": "a", "properties": "x", "paths": {}`), "fill_fetcher: key (properties) must be an object or null for 4.\n", false},
		{"property null", md(`"type": "a", "properties": {"x": null}, "paths": {}`), "fill_fetcher: value of property (x) is not a string for 4.\n", true},
		{"uniq_id overflow", nodesDoc(`{"id": "99999999999999999999", "metadata": {"type": "a", "paths": {}}}`, ""),
			"apply_defaults: value for key (uniq_id) is out of range in outer 'id' field 99999999999999999999.\n", true},
		{"uniq_id sign only", nodesDoc(`{"id": " -x", "metadata": {"type": "a", "paths": {}}}`, ""),
			"apply_defaults: value for key (uniq_id) could not be inferred from outer 'id' field  -x.\n", false},
		{"uniq_id sentinel", nodesDoc(`{"id": "", "metadata": {"type": "a", "uniq_id": -1, "paths": {}}}`, ""),
			"apply_defaults: value for key (uniq_id) could not be inferred from outer 'id' field .\n", false},
		{"node id overflow", nodesDoc(`{"id": "1", "metadata": {"type": "node", "name": "n99999999999999999999", "paths": {}}}`, ""),
			"apply_defaults: value for key (id) is out of range in name n99999999999999999999.\n", true},

		{"edge not object", nodesDoc(n0, `"0"`), "unpack_edge: encountered a malformed edge.\n", false},
		{"edge without source", nodesDoc(n0, `{"target": "0"}`), "unpack_edge: encountered a malformed edge.\n", false},
		{"edge metadata string", nodesDoc(n0, `{"source": "0", "target": "0", "metadata": "x"}`), "unpack_edge: encountered a malformed edge.\n", false},
		{"edge subsystem number", nodesDoc(n0, `{"source": "0", "target": "0", "metadata": {"subsystem": 1}}`), "unpack_edge: encountered a malformed edge.\n", false},
		{"unknown source", nodesDoc(n0, `{"source": "x", "target": "0"}`), "unpack_edge: source and/or target vertex not foundx -> 0.\n", false},
	})
}

// TestErrorOrder: Fluxion reads and inserts one node at a time, then
// handles the edges one at a time; the first problem in that order wins.
func TestErrorOrder(t *testing.T) {
	root2 := `{"id": "2", "metadata": {"type": "cluster", "paths": {"containment": "/c2"}}}`
	bad := `{"id": "3", "metadata": {"type": "node"}}`
	checkErrors(t, []errCase{
		{"root before malformed", nodesDoc(n0+", "+root2+", "+bad, ""),
			"add_graph_metadata: failed to add root metadata for containment subsystem. Possible duplicate root.\n", false},
		{"malformed before root", nodesDoc(n0+", "+bad+", "+root2, ""),
			"fill_fetcher: malformed metadata in an JGF node for 3\n", false},
		{"node error before edge error", nodesDoc(n0+", "+root2, `{"source": 1}`),
			"add_graph_metadata: failed to add root metadata for containment subsystem. Possible duplicate root.\n", false},
		{"unknown endpoint before malformed edge", nodesDoc(n0+", "+n1, `{"source": "0", "target": "9"}, {"source": 1}`),
			"unpack_edge: source and/or target vertex not found0 -> 9.\n", false},
		{"malformed edge before duplicate", nodesDoc(n0+", "+n1, `{"source": 1}, {"source": "0", "target": "1"}, {"source": "0", "target": "1"}`),
			"unpack_edge: encountered a malformed edge.\n", false},
		{"missing key before JSON node errors", `{"graph": {"nodes": [5]}}`,
			"fetch_jgf: JGF does not contain a required key (edges).\n", false},
	})
	// Parse alone reports only document errors, nodes first.
	_, err := Parse([]byte(nodesDoc(n0+", "+root2, `{"source": 1}`)))
	if e := asError(t, err); e.Fluxion() != "unpack_edge: encountered a malformed edge.\n" || e.Edge != 0 || e.Node != -1 {
		t.Errorf("Parse: %v", err)
	}
	_, err = Parse([]byte(nodesDoc(n0+", "+bad, `{"source": 1}`)))
	if e := asError(t, err); e.Node != 1 || e.NodeID != "3" || e.Edge != -1 {
		t.Errorf("Parse: %v", err)
	}
	if got := err.Error(); got != `jgf: node 1 (id "3"): malformed metadata: missing required key "paths"` {
		t.Errorf("Error() = %q", got)
	}
}

func TestLenientShapes(t *testing.T) {
	// Non-array nodes/edges count as empty (jansson's json_array_size);
	// unknown keys are ignored; repeated keys keep the last value.
	g, err := Read([]byte(`{"graph": {"directed": true, "nodes": {}, "edges": 5}, "x": 1}`))
	if err != nil || g.NumVertices() != 0 {
		t.Fatalf("%v", err)
	}
	g, err = Read([]byte(nodesDoc(`{"id": "1", "extra": [], "metadata": {"type": "a", "type": "b", "foo": {}, "paths": {"x": "/p", "y": "/q/r", "x": "/s"}, "properties": {"k": "1", "k": "2"}}}`, "")))
	if err != nil {
		t.Fatal(err)
	}
	vx := g.V(0)
	if g.TypeName(0) != "b" || len(vx.Paths) != 2 || vx.Paths[0].Path != "/s" || vx.Paths[1].Path != "/q/r" || len(vx.Props()) != 1 || vx.Props()[0].Value != "2" {
		t.Errorf("%+v", *vx)
	}
	x, _ := g.Subsystems.Lookup("x")
	y, _ := g.Subsystems.Lookup("y")
	if !(x < y) || g.Root(graph.SubsystemID(x)) != 0 {
		t.Errorf("subsystems x=%d y=%d, root %d", x, y, g.Root(graph.SubsystemID(x)))
	}
}

// ---------------------------------------------------------------------------
// Loading rules

func TestInterningOrder(t *testing.T) {
	// Fluxion's reader: /c0/a1 has no containment parent, which the strict
	// reader refuses; interning is the same in both.
	g, err := Options{Fluxion: true}.Read([]byte(nodesDoc(
		`{"id": "0", "metadata": {"type": "zeta", "paths": {"power": "/p0", "containment": "/c0"}}},
		 {"id": "1", "metadata": {"type": "alpha", "paths": {"net": "/c0/a", "containment": "/c0/a1"}}},
		 {"id": "2", "metadata": {"type": "zeta", "paths": {}}}`,
		`{"source": "0", "target": "1", "metadata": {"subsystem": "late"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	var types, subs []string
	for i := g.Types.Len() - 2; i < g.Types.Len(); i++ {
		types = append(types, g.Types.Name(int32(i)))
	}
	for i := 0; i < g.Subsystems.Len(); i++ {
		subs = append(subs, g.Subsystems.Name(int32(i)))
	}
	if !slices.Equal(types, []string{"zeta", "alpha"}) || !slices.Equal(subs, []string{"containment", "power", "net", "late"}) {
		t.Errorf("types %v subsystems %v", types, subs)
	}
	// Paths are stored in subsystem order; both one-slash paths are roots.
	if p := g.V(0).Paths; p[0].Path != "/c0" || p[1].Path != "/p0" || g.Root(0) != 0 || g.Root(1) != 0 {
		t.Errorf("paths %v roots %v", p, g.RootSubsystems())
	}
	if e := g.E(0); g.SubsystemName(e.Subsystem) != "late" {
		t.Errorf("edge subsystem %s", g.SubsystemName(e.Subsystem))
	}
}

func TestReuseWithinLoad(t *testing.T) {
	// A node whose path exists with the same rank maps to that vertex; a
	// different rank makes a new vertex at the same path.
	g, err := Read([]byte(nodesDoc(n0+", "+n1+`,
		{"id": "a", "metadata": {"type": "node", "uniq_id": 50, "paths": {"containment": "/cluster0/node1"}}},
		{"id": "b", "metadata": {"type": "node", "uniq_id": 51, "rank": 4, "paths": {"containment": "/cluster0/node1"}}},
		{"id": "c", "metadata": {"type": "core", "uniq_id": 52, "paths": {"containment": "/cluster0/node1/core0"}}},
		{"id": "d", "metadata": {"type": "cluster", "uniq_id": 53, "paths": {"containment": "/cluster0"}}}`,
		`{"source": "0", "target": "1"}, {"source": "0", "target": "b"}, {"source": "a", "target": "c"}, {"source": "d", "target": "a"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 4 || g.NumEdges() != 3 {
		t.Fatalf("%d vertices %d edges", g.NumVertices(), g.NumEdges())
	}
	if got := g.ByPath("/cluster0/node1"); !slices.Equal(got, []graph.VertexID{1, 2}) {
		t.Errorf("by path %v", got)
	}
	// "a" is node1 and "d" is cluster0, both reused: d->a is not created
	// (it would duplicate 0->1); a->c is (c is new).
	if out := g.Out(1); len(out) != 1 || out[0].Other != 3 {
		t.Errorf("out of node1 %v", out)
	}
}

func TestDuplicateEdgeByUniqID(t *testing.T) {
	// by_outedges is keyed by the target's uniq_id: two targets sharing a
	// uniq_id under one source collide.
	checkErrors(t, []errCase{{"shared uniq_id", nodesDoc(n0+`,
		{"id": "1", "metadata": {"type": "node", "uniq_id": 9, "paths": {"containment": "/cluster0/node1"}}},
		{"id": "2", "metadata": {"type": "node", "uniq_id": 9, "paths": {"containment": "/cluster0/node2"}}}`,
		`{"source": "0", "target": "1"}, {"source": "0", "target": "2", "metadata": {"subsystem": "other"}}`),
		"error inserting an edge to outedge metadata map: cluster0 -> node9; ", false}})
}

func TestAttach(t *testing.T) {
	base := func() *graph.Graph {
		b := graph.NewBuilder()
		c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("medium"))
		r := b.MustAdd(c, "rack", 0)
		n := b.MustAdd(r, "node", 0, graph.WithRank(-1))
		b.MustAdd(n, "socket", 0)
		return b.Graph()
	}
	// Spec examples.md A7: repeating medium0, rack0, node0, socket0 and
	// adding core99 creates one vertex and one edge.
	attach := nodesDoc(`
		{"id": "0", "metadata": {"type": "cluster", "basename": "medium", "id": 0, "paths": {"containment": "/medium0"}}},
		{"id": "1", "metadata": {"type": "rack", "paths": {"containment": "/medium0/rack0"}}},
		{"id": "5", "metadata": {"type": "node", "name": "node0", "paths": {"containment": "/medium0/rack0/node0"}}},
		{"id": "77", "metadata": {"type": "socket", "id": 0, "paths": {"containment": "/medium0/rack0/node0/socket0"}}},
		{"id": "99", "metadata": {"type": "core", "id": 99, "paths": {"containment": "/medium0/rack0/node0/socket0/core99"}}}`,
		`{"source": "0", "target": "1"}, {"source": "1", "target": "5"}, {"source": "5", "target": "77"}, {"source": "77", "target": "99"}`)
	g := base()
	doc, err := Parse([]byte(attach))
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(g, doc); err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 5 || g.NumEdges() != 4 {
		t.Fatalf("%d vertices, %d edges", g.NumVertices(), g.NumEdges())
	}
	core := g.ByName("core99")
	if len(core) != 1 || core[0] != 4 || g.V(4).UniqID != 99 || len(g.In(4)) != 1 || g.In(4)[0].Other != 3 {
		t.Fatalf("core99 %v", core)
	}
	// Attaching again is a no-op.
	before := snapshot(g)
	if err := Load(g, doc); err != nil {
		t.Fatal(err)
	}
	if snapshot(g) != before {
		t.Error("second attach changed the graph")
	}
	// Another root fails and leaves the graph unchanged (also the
	// interning tables).
	for _, c := range []errCase{
		{"second root", nodesDoc(`{"id": "0", "metadata": {"type": "newtype", "paths": {"newsub": "/x/y", "containment": "/other0"}}}`, ""),
			"add_graph_metadata: failed to add root metadata for containment subsystem. Possible duplicate root.\n", false},
		{"late duplicate edge", nodesDoc(`
			{"id": "s", "metadata": {"type": "socket", "id": 0, "uniq_id": 3, "paths": {"containment": "/medium0/rack0/node0/socket0"}}},
			{"id": "n", "metadata": {"type": "newtype", "uniq_id": 99, "paths": {"containment": "/medium0/rack0/node0/socket0/x"}}}`,
			`{"source": "s", "target": "n", "metadata": {"subsystem": "newsub"}}`),
			"error inserting an edge to outedge metadata map: socket0 -> newtype99; ", false},
		{"late unknown endpoint", nodesDoc(`{"id": "n", "metadata": {"type": "newtype", "uniq_id": 7, "paths": {"newsub": "/n"}}}`, `{"source": "n", "target": "q"}`),
			"unpack_edge: source and/or target vertex not foundn -> q.\n", false},
	} {
		doc, err := Parse([]byte(c.doc))
		if err != nil {
			t.Fatal(err)
		}
		err = Load(g, doc)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if got := asError(t, err).Fluxion(); got != c.fluxion {
			t.Errorf("%s: %q, want %q", c.name, got, c.fluxion)
		}
		if snapshot(g) != before {
			t.Errorf("%s: failed attach changed the graph", c.name)
		}
	}
}

func TestAttachCorpus(t *testing.T) {
	files := corpusGlob(t, "resource/jgfs/elastic/node-test.json")
	dir := filepath.Dir(files[0])
	g, err := ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	n0, e0 := g.NumVertices(), g.NumEdges()
	read := func(name string) *Document {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skip(err)
		}
		doc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	// The same file again: everything is reused.
	if err := Load(g, read("node-test.json")); err != nil || g.NumVertices() != n0 || g.NumEdges() != e0 {
		t.Fatalf("%v: %d vertices", err, g.NumVertices())
	}
	// A second node under the same rack: medium0 and rack0 are reused.
	add := read("node-add-test.json")
	if err := Load(g, add); err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != n0+len(add.Nodes)-2 || g.NumEdges() != e0+len(add.Edges)-1 {
		t.Errorf("%d vertices %d edges", g.NumVertices(), g.NumEdges())
	}
	rack := g.ByPath("/medium0/rack0")
	if len(rack) != 1 || len(g.Out(rack[0])) != 2 {
		t.Errorf("rack0 %v", rack)
	}
	// power.json brings another containment root (spec elastic/005).
	if files := corpusGlob(t, "resource/jgfs/power.json"); len(files) == 1 {
		data, _ := os.ReadFile(files[0])
		doc, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		before := snapshot(g)
		err = Load(g, doc)
		if err == nil || asError(t, err).Fluxion() != "add_graph_metadata: failed to add root metadata for containment subsystem. Possible duplicate root.\n" {
			t.Errorf("power.json attach: %v", err)
		}
		if snapshot(g) != before {
			t.Error("failed attach changed the graph")
		}
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "none.json"))
	e := asError(t, err)
	if !errors.Is(err, os.ErrNotExist) || e.Fluxion() != "fetch_jgf: json_loads returned an error: '[' or '{' expected near end of file: <string>@1:0.\n" {
		t.Errorf("%v / %q", err, e.Fluxion())
	}
}

// ---------------------------------------------------------------------------
// Round trip through the writer

func TestRoundTrip(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("rt"))
	for r := int64(0); r < 2; r++ {
		rack := b.MustAdd(c, "rack", r, graph.WithProperty("row", strconv.FormatInt(r, 10)))
		for n := int64(0); n < 2; n++ {
			node := b.MustAdd(rack, "node", 2*r+n, graph.WithProperty("perf", "x"), graph.WithProperty("a", ""))
			for s := int64(0); s < 2; s++ {
				sock := b.MustAdd(node, "socket", s)
				for k := int64(0); k < 3; k++ {
					b.MustAdd(sock, "core", 3*s+k)
				}
				b.MustAdd(sock, "gpu", s, graph.WithName("accel"+strconv.FormatInt(s, 10)))
				b.MustAdd(sock, "memory", s, graph.WithSize(16), graph.WithBasename("mem"))
			}
		}
	}
	b.MustAdd(c, "storage", 7, graph.WithSize(1<<31), graph.WithRank(5))
	g := b.Graph()

	w := NewWriter()
	var post func(v graph.VertexID)
	post = func(v graph.VertexID) {
		for _, h := range g.Out(v) {
			post(h.Other)
		}
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Exclusive: true})
	}
	post(g.Root(graph.Containment))
	for e := graph.EdgeID(0); int(e) < g.NumEdges(); e++ {
		w.Edge(g, e, false)
	}
	out, err := w.Render()
	if err != nil {
		t.Fatal(err)
	}
	h, err := Read([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if h.NumVertices() != g.NumVertices() || h.NumEdges() != g.NumEdges() {
		t.Fatalf("%d/%d vertices, %d/%d edges", h.NumVertices(), g.NumVertices(), h.NumEdges(), g.NumEdges())
	}
	// Vertices come back in post-order: match them by uniq_id.
	byUniq := map[int64]graph.VertexID{}
	for v := graph.VertexID(0); int(v) < h.NumVertices(); v++ {
		byUniq[h.V(v).UniqID] = v
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		a := g.V(v)
		u, ok := byUniq[a.UniqID]
		if !ok {
			t.Fatalf("uniq_id %d missing", a.UniqID)
		}
		bv := h.V(u)
		if g.TypeName(v) != h.TypeName(u) || a.Basename != bv.Basename || a.Name != bv.Name || a.ID != bv.ID ||
			a.Rank != bv.Rank || a.Size != bv.Size || a.Status != bv.Status || a.Unit() != bv.Unit() ||
			!slices.Equal(a.Props(), bv.Props()) || len(a.Paths) != len(bv.Paths) {
			t.Errorf("vertex %s:\n got %+v\nwant %+v", a.Name, *bv, *a)
			continue
		}
		for i := range a.Paths {
			if a.Paths[i].Path != bv.Paths[i].Path || g.SubsystemName(a.Paths[i].Subsystem) != h.SubsystemName(bv.Paths[i].Subsystem) {
				t.Errorf("vertex %s: paths %v, want %v", a.Name, bv.Paths, a.Paths)
			}
		}
		// Same children in the same order.
		var ga, hb []int64
		for _, x := range g.Out(v) {
			ga = append(ga, g.V(x.Other).UniqID)
		}
		for _, x := range h.Out(u) {
			hb = append(hb, h.V(x.Other).UniqID)
		}
		if !slices.Equal(ga, hb) {
			t.Errorf("vertex %s: children %v, want %v", a.Name, hb, ga)
		}
	}
	if r := h.Root(graph.Containment); r == graph.NoVertex || h.V(r).Name != "rt0" {
		t.Errorf("root %d", r)
	}
	// Reading is deterministic in the interning of types: first-seen in
	// the (post-order) node list.
	var seen []string
	for v := graph.VertexID(0); int(v) < h.NumVertices(); v++ {
		if n := h.TypeName(v); !slices.Contains(seen, n) {
			seen = append(seen, n)
		}
	}
	sort.Strings(seen)
	if len(seen) != 8 {
		t.Errorf("types %v", seen)
	}
}

// ---------------------------------------------------------------------------
// Fuzzing

// FuzzRead checks what must hold for any input: every failure is an
// *Error with both texts; the strict reader agrees with Fluxion's or fails
// with its own error, and what it builds has no size out of range, no
// self-loop, no second containment parent and no cycle; a small vertex
// limit is never exceeded; a Load into an existing graph (attach) is all
// or nothing in both modes.
//
//	go test ./jgf -run '^$' -fuzz FuzzRead -fuzztime 60s
func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := fluxionMode.Read(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is a %T", err, err)
			}
			if e.Fluxion() == "" || e.Error() == "" || e.Strict {
				t.Fatalf("error texts: %#v", e)
			}
		} else if g == nil {
			t.Fatal("nil graph")
		}
		sg, serr := Read(data)
		switch {
		case serr != nil && asError(t, serr).Strict:
		case (err == nil) != (serr == nil):
			t.Fatalf("Fluxion mode %v, strict %v", err, serr)
		case err != nil && asError(t, err).Fluxion() != asError(t, serr).Fluxion():
			t.Fatalf("Fluxion mode %v, strict %v", err, serr)
		case err == nil:
			checkStrictGraph(t, sg)
		}
		if lg, err := (Options{MaxVertices: 3}).Read(data); err == nil && lg.NumVertices() > 3 {
			t.Fatalf("%d vertices under a limit of 3", lg.NumVertices())
		}
		// Attaching to an existing graph: all or nothing.
		doc, perr := fluxionMode.parse(data)
		if perr != nil {
			return
		}
		for _, o := range []Options{fluxionMode, {}} {
			h := attachBase()
			before := graphString(h)
			if err := o.Load(h, doc); err != nil {
				if graphString(h) != before {
					t.Fatalf("failed Load changed the graph: %v", err)
				}
				continue
			}
			for v := graph.VertexID(0); int(v) < h.NumVertices(); v++ {
				for _, p := range h.V(v).Paths {
					if !slices.Contains(h.ByPath(p.Path), v) {
						t.Fatalf("vertex %d not indexed at %q", v, p.Path)
					}
				}
			}
			if !o.Fluxion {
				checkStrictGraph(t, h)
			}
		}
	})
}

// checkStrictGraph checks what the strict reader promises.
func checkStrictGraph(t *testing.T, g *graph.Graph) {
	t.Helper()
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		if s := g.V(v).Size; s < 0 || s >= 1<<32 {
			t.Fatalf("vertex %d: size %d", v, s)
		}
		parents := 0
		for _, h := range g.In(v) {
			if h.Other == v {
				t.Fatalf("vertex %d: self-loop", v)
			}
			if h.Subsystem == graph.Containment {
				parents++
			}
		}
		if parents > 1 {
			t.Fatalf("vertex %d: %d containment parents", v, parents)
		}
	}
	// No cycle: every vertex is finished by a depth-first search.
	state := make([]uint8, g.NumVertices())
	var visit func(v graph.VertexID, s graph.SubsystemID) bool
	visit = func(v graph.VertexID, s graph.SubsystemID) bool {
		state[v] = 1
		for _, h := range g.Out(v) {
			if h.Subsystem != s {
				continue
			}
			if state[h.Other] == 1 || state[h.Other] == 0 && !visit(h.Other, s) {
				return false
			}
		}
		state[v] = 2
		return true
	}
	for s := 0; s < g.Subsystems.Len(); s++ {
		clear(state)
		for v := range g.NumVertices() {
			if state[v] == 0 && !visit(graph.VertexID(v), graph.SubsystemID(s)) {
				t.Fatalf("a cycle in subsystem %s", g.SubsystemName(graph.SubsystemID(s)))
			}
		}
	}
}
