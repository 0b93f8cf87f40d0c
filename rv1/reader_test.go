package rv1

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/hostlist"
	"github.com/gofluxion/gofluxion/internal/idset"
)

// The conformance corpus (flux-sched test data and flux-generated R
// files) is read in place, never copied into this repository.
const corpus = "../../shared/conformance/data"

func corpusR(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(corpus); err != nil {
		t.Skip("conformance corpus not available")
	}
	var files []string
	for _, p := range []string{"resource/rv1exec/*.json", "resource/rv1exec/cancel/*.json", "generated/*/*.json"} {
		m, _ := filepath.Glob(filepath.Join(corpus, p))
		for _, f := range m {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]json.RawMessage
			if json.Unmarshal(data, &top) == nil && top["execution"] != nil {
				files = append(files, f)
			}
		}
	}
	if len(files) == 0 {
		t.Skip("no R documents in the corpus")
	}
	return files
}

// describe renders the graph one vertex per line, in creation order:
// index type name basename id rank size path props | children.
func describe(g *graph.Graph) string {
	var b strings.Builder
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		vx := g.V(v)
		path, _ := vx.PathIn(graph.Containment)
		fmt.Fprintf(&b, "%d %s %s %s %d %d %d %s", v, g.TypeName(v), vx.Name, vx.Basename, vx.ID, vx.Rank, vx.Size, path)
		for _, p := range vx.Props() {
			fmt.Fprintf(&b, " %s=%s", p.Key, p.Value)
		}
		b.WriteString(" |")
		for _, h := range g.Out(v) {
			fmt.Fprintf(&b, " %d", h.Other)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestReadExecCorpus loads every R of the corpus and checks the graph
// against an independent decoding with encoding/json.
func TestReadExecCorpus(t *testing.T) {
	for _, f := range corpusR(t) {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			data, _ := os.ReadFile(f)
			g, err := ReadExec(data)
			if err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Execution struct {
					RLite []struct {
						Rank     string
						Children map[string]string
					} `json:"R_lite"`
					Nodelist   []string
					Properties map[string]string
				}
			}
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatal(err)
			}
			var hosts []string
			for _, hl := range raw.Execution.Nodelist {
				h, err := hostlist.Expand(hl)
				if err != nil {
					t.Fatal(err)
				}
				hosts = append(hosts, h...)
			}
			var all []int64
			want := 1
			for _, e := range raw.Execution.RLite {
				rs, _ := idset.Parse(e.Rank)
				all = append(all, rs.Values()...)
				per := 1
				for _, ids := range e.Children {
					s, _ := idset.Parse(ids)
					per += int(s.Len())
				}
				want += per * int(rs.Len())
			}
			slices.Sort(all)
			if g.NumVertices() != want || g.NumEdges() != want-1 || len(all) != len(hosts) {
				t.Fatalf("%d vertices %d edges, want %d; %d ranks %d hosts", g.NumVertices(), g.NumEdges(), want, len(all), len(hosts))
			}
			root := g.Root(graph.Containment)
			if root != 0 || g.V(0).Name != "cluster0" || len(g.Out(0)) != len(all) {
				t.Fatalf("root %d", root)
			}
			for _, h := range g.Out(0) {
				vx := g.V(h.Other)
				k, _ := slices.BinarySearch(all, vx.Rank)
				if g.TypeName(h.Other) != "node" || vx.Name != hosts[k] {
					t.Errorf("rank %d: node %s, want %s", vx.Rank, vx.Name, hosts[k])
				}
				for p, ranks := range raw.Execution.Properties {
					s, _ := idset.Parse(ranks)
					if _, has := vx.Prop(p); has != s.Contains(vx.Rank) {
						t.Errorf("%s: property %s: %v", vx.Name, p, has)
					}
				}
				for _, c := range g.Out(h.Other) {
					cx := g.V(c.Other)
					path, _ := cx.PathIn(graph.Containment)
					if cx.Rank != vx.Rank || path != "/cluster0/"+vx.Name+"/"+cx.Name || cx.Name != cx.Basename+fmt.Sprint(cx.ID) {
						t.Errorf("child %+v of %s", *cx, vx.Name)
					}
				}
			}
		})
	}
}

func TestTinyRV1Exec(t *testing.T) {
	// Spec examples.md ("rv1tiny"): cluster0 -> node0, node1 (ranks 0, 1)
	// -> core0..15, gpu0..3 each.
	g, err := ReadExec([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "0-15", "gpu": "0-3"}}], "nodelist": ["node[0-1]"], "starttime": 0, "expiration": 0}}`))
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	fmt.Fprintf(&want, "0 cluster cluster0 cluster 0 -1 1 /cluster0 | 1 22\n")
	v := 1
	for n := 0; n < 2; n++ {
		node := v
		fmt.Fprintf(&want, "%d node node%d node %d %d 1 /cluster0/node%d |", v, n, n, n, n)
		for c := 1; c <= 20; c++ {
			fmt.Fprintf(&want, " %d", node+c)
		}
		want.WriteString("\n")
		v++
		for c := 0; c < 16; c++ {
			fmt.Fprintf(&want, "%d core core%d core %d %d 1 /cluster0/node%d/core%d |\n", v, c, c, n, n, c)
			v++
		}
		for c := 0; c < 4; c++ {
			fmt.Fprintf(&want, "%d gpu gpu%d gpu %d %d 1 /cluster0/node%d/gpu%d |\n", v, c, c, n, n, c)
			v++
		}
	}
	if got := describe(g); got != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got, want.String())
	}
	for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
		if g.V(v).UniqID != int64(v) || g.V(v).Status != graph.StatusUp || g.V(v).Unit() != "" {
			t.Errorf("vertex %d: %+v", v, *g.V(v))
		}
	}
}

func TestHostsByRankOrderAndProperties(t *testing.T) {
	// The k-th smallest rank of all entries is the k-th host; entries are
	// built in order, ranks ascending; children types in JSON order and
	// interned in creation order.
	r, err := ParseR([]byte(`{"version": 1, "execution": {
		"R_lite": [{"rank": "0,2-3", "children": {"zz": "1", "aa": "0-1"}}, {"rank": "1", "children": {"aa": "7", "none": ""}}],
		"nodelist": ["foo[2-3,1]", "bar"],
		"properties": {"p@core": "0,2-3", "q": "1,9"},
		"starttime": 1.5, "expiration": 100}, "scheduling": {"whatever": true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != 1 || len(r.RLite) != 2 || r.RLite[0].Children[0].Type != "zz" || r.RLite[0].Children[1].Type != "aa" ||
		r.RLite[0].Children[1].IDs.String() != "0-1" || r.Starttime != 1.5 || r.Expiration != 100 ||
		len(r.Properties) != 2 || r.Properties[0].Name != "p@core" || r.Properties[1].Ranks.String() != "1,9" {
		t.Fatalf("%+v", r)
	}
	if got := r.RankSet().String(); got != "0-3" || !slices.Equal(r.Ranks(), []int64{0, 1, 2, 3}) {
		t.Errorf("Ranks %s %v", got, r.Ranks())
	}
	hosts, err := r.Hosts()
	if err != nil || !slices.Equal(hosts, []string{"foo2", "foo3", "foo1", "bar"}) {
		t.Errorf("Hosts %v %v", hosts, err)
	}
	g, err := r.Graph()
	if err != nil {
		t.Fatal(err)
	}
	want := `0 cluster cluster0 cluster 0 -1 1 /cluster0 | 1 5 9 13
1 node foo2 foo 2 0 1 /cluster0/foo2 p@core= | 2 3 4
2 zz zz1 zz 1 0 1 /cluster0/foo2/zz1 |
3 aa aa0 aa 0 0 1 /cluster0/foo2/aa0 |
4 aa aa1 aa 1 0 1 /cluster0/foo2/aa1 |
5 node foo1 foo 1 2 1 /cluster0/foo1 p@core= | 6 7 8
6 zz zz1 zz 1 2 1 /cluster0/foo1/zz1 |
7 aa aa0 aa 0 2 1 /cluster0/foo1/aa0 |
8 aa aa1 aa 1 2 1 /cluster0/foo1/aa1 |
9 node bar bar -1 3 1 /cluster0/bar p@core= | 10 11 12
10 zz zz1 zz 1 3 1 /cluster0/bar/zz1 |
11 aa aa0 aa 0 3 1 /cluster0/bar/aa0 |
12 aa aa1 aa 1 3 1 /cluster0/bar/aa1 |
13 node foo3 foo 3 1 1 /cluster0/foo3 q= | 14
14 aa aa7 aa 7 1 1 /cluster0/foo3/aa7 |
`
	if got := describe(g); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	n := g.Types.Len()
	if g.Types.Name(int32(n-2)) != "zz" || g.Types.Name(int32(n-1)) != "aa" {
		t.Errorf("types end with %s %s", g.Types.Name(int32(n-2)), g.Types.Name(int32(n-1)))
	}
}

func TestHostNames(t *testing.T) {
	g, err := ReadExec([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-4", "children": {}}],
		"nodelist": ["fluke,fluke,node00,123,fluke6204000000"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `0 cluster cluster0 cluster 0 -1 1 /cluster0 | 1 2 3 4 5
1 node fluke fluke -1 0 1 /cluster0/fluke |
2 node fluke fluke -1 1 1 /cluster0/fluke |
3 node node00 node 0 2 1 /cluster0/node00 |
4 node 123  123 3 1 /cluster0/123 |
5 node fluke6204000000 fluke 6204000000 4 1 /cluster0/fluke6204000000 |
`
	if got := describe(g); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if l := g.ByPath("/cluster0/fluke"); !slices.Equal(l, []graph.VertexID{1, 2}) {
		t.Errorf("by path %v", l)
	}
}

func TestReadExecErrors(t *testing.T) {
	doc := func(exec string) string { return `{"version": 1, "execution": {` + exec + `}}` }
	for _, c := range []struct{ name, doc, fluxion string }{
		{"duplicate vertex", doc(`"R_lite": [{"rank": "0", "children": {"core": "0"}}, {"rank": "0", "children": {"gpu": "0"}}], "nodelist": ["node0"]`),
			"add_or_update: found duplicate vertex in graph for node0.\n"},
		{"not JSON", `{"version": 1,`, ""},
		{"empty", ``, ""},
		{"trailing data", doc(`"R_lite": [], "nodelist": []`) + ` {}`, ""},
		{"bad UTF-8", "{\"version\": 1, \"x\": \"\xff\"}", ""},
		{"big integer", `{"version": 1, "x": 99999999999999999999}`, ""},
		{"NUL escape", `{"version": 1, "x": "\u0000"}`, ""},
		{"top-level array", `[1]`, ""},
		{"no version", `{"execution": {}}`, ""},
		{"version 2", `{"version": 2, "execution": {}}`, ""},
		{"version string", `{"version": "1", "execution": {}}`, ""},
		{"version real", `{"version": 1.0, "execution": {}}`, ""},
		{"no execution", `{"version": 1}`, ""},
		{"execution array", `{"version": 1, "execution": []}`, ""},
		{"no R_lite", doc(`"nodelist": []`), ""},
		{"R_lite object", doc(`"R_lite": {}, "nodelist": []`), ""},
		{"entry not object", doc(`"R_lite": [1], "nodelist": []`), ""},
		{"entry without rank", doc(`"R_lite": [{"children": {}}], "nodelist": []`), ""},
		{"numeric rank", doc(`"R_lite": [{"rank": 0, "children": {}}], "nodelist": ["a"]`), ""},
		{"bad rank idset", doc(`"R_lite": [{"rank": "3-1", "children": {}}], "nodelist": ["a"]`), ""},
		{"entry without children", doc(`"R_lite": [{"rank": "0"}], "nodelist": ["a"]`), ""},
		{"bad child idset", doc(`"R_lite": [{"rank": "0", "children": {"core": "x"}}], "nodelist": ["a"]`), ""},
		{"no nodelist", doc(`"R_lite": []`), ""},
		{"nodelist string", doc(`"R_lite": [], "nodelist": "a"`), ""},
		{"nodelist number", doc(`"R_lite": [], "nodelist": [1]`), ""},
		{"bad hostlist", doc(`"R_lite": [], "nodelist": ["a[1-"]`), ""},
		{"properties array", doc(`"R_lite": [], "nodelist": [], "properties": []`), ""},
		{"bad property idset", doc(`"R_lite": [], "nodelist": [], "properties": {"p": 1}`), ""},
		{"fewer hosts", doc(`"R_lite": [{"rank": "0-2", "children": {}}], "nodelist": ["a,b"]`), ""},
		{"more hosts", doc(`"R_lite": [{"rank": "0", "children": {}}], "nodelist": ["a,b"]`), ""},
		{"suffix overflow", doc(`"R_lite": [{"rank": "0", "children": {}}], "nodelist": ["n99999999999999999999"]`), ""},
		{"too many ranks", doc(`"R_lite": [{"rank": "0-99999999999", "children": {}}], "nodelist": ["a"]`), ""},
		{"too many vertices", doc(`"R_lite": [{"rank": "0-1", "children": {"core": "0-9999999999"}}], "nodelist": ["a,b"]`), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := ReadExec([]byte(c.doc))
			if err == nil {
				t.Fatalf("no error: %d vertices", g.NumVertices())
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is a %T", err, err)
			}
			if e.Fluxion() != c.fluxion {
				t.Errorf("Fluxion() = %q, want %q", e.Fluxion(), c.fluxion)
			}
			if !strings.HasPrefix(e.Error(), "rv1exec: ") {
				t.Errorf("Error() = %q", e.Error())
			}
		})
	}
}

func TestParseRLenient(t *testing.T) {
	// Unknown members, non-numeric times, empty lists and a NUL ending the
	// input (jansson reads a C string) are accepted.
	r, err := ParseR([]byte(`{"version": 1, "execution": {"R_lite": [], "nodelist": [], "starttime": "x", "extra": 1}}` + "\x00garbage"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Starttime != 0 || len(r.RLite) != 0 {
		t.Errorf("%+v", r)
	}
	g, err := r.Graph()
	if err != nil || g.NumVertices() != 1 || g.Root(graph.Containment) != 0 {
		t.Errorf("%v", err)
	}
	// Property ranks without a node are ignored (a huge idset is cheap).
	g, err = ReadExec([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "5", "children": {}}], "nodelist": ["a"], "properties": {"p": "0-9223372036854775806", "q": "6"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := g.V(1).Props(); len(p) != 1 || p[0].Key != "p" {
		t.Errorf("props %v", p)
	}
	// A repeated key keeps its first position and last value.
	r, err = ParseR([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"b": "0", "a": "1", "b": "2"}}], "nodelist": ["x"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c := r.RLite[0].Children; len(c) != 2 || c[0].Type != "b" || c[0].IDs.String() != "2" || c[1].Type != "a" {
		t.Errorf("%+v", c)
	}
}

func FuzzReadExec(f *testing.F) {
	f.Add([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "0-15", "gpu": "0-3"}}], "nodelist": ["node[0-1]"], "starttime": 0, "expiration": 0}}`))
	f.Add([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0,2-3", "children": {"core": "0-1", "gpu": "0-1"}}, {"rank": "1", "children": {"core": "0"}}], "starttime": 0.0, "expiration": 0.0, "nodelist": ["foo[2-3,1,4]"], "properties": {"arm-v9@core": "0,2-3", "arm-v8@core": "1", "amd-mi60@gpu": "2-3"}}}`))
	f.Add([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}, {"rank": "0", "children": {}}], "nodelist": ["a", "b0"]}}`))
	f.Add([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "0-3"}}], "nodelist": ["fluke,fluke"]}}`))
	f.Add([]byte(`{"version": 2}`))
	// hostile documents (issue 13): bad child types, huge child sets, long
	// host names repeated by a range
	f.Add([]byte(execDoc(`"": "0", "cluster": "0", "core/x": "0"`, `"n[0-1]"`)))
	f.Add([]byte(execDoc(`"core": "0-9223372036854775805"`, `"n[0-1]"`)))
	f.Add([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-999", "children": {}}], "nodelist": ["` + strings.Repeat("h", 2048) + `[0-999]"]}}`))
	lim := graph.ReadLimits{MaxVertices: 20000, MaxPathBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseR(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is a %T", err, err)
			}
			return
		}
		for _, e := range r.RLite {
			for _, c := range e.Children {
				if badChildType(c.Type) != "" {
					t.Fatalf("child type %q accepted", c.Type)
				}
			}
		}
		g, err := r.GraphLimited(lim)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is a %T", err, err)
			}
			return
		}
		if int64(g.NumVertices()) != r.vertexCount(MaxVertices) || g.NumEdges() != g.NumVertices()-1 || g.Root(graph.Containment) != 0 {
			t.Fatalf("%d vertices (want %d), %d edges", g.NumVertices(), r.vertexCount(MaxVertices), g.NumEdges())
		}
		if g.NumVertices() > lim.MaxVertices {
			t.Fatalf("%d vertices under a limit of %d", g.NumVertices(), lim.MaxVertices)
		}
	})
}
