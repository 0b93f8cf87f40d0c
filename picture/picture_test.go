package picture_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/picture"
)

func TestStates(t *testing.T) {
	g := gofluxion.DemoGraph()
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	core := jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("core", 2), jobspec.Res("memory", 1)))))
	if _, err := m.Match(match.Allocate, core, 1, 0, emit.Discard); err != nil {
		t.Fatal(err)
	}
	if err := m.SetStatus("/demo0/rack0/node0", graph.StatusDown); err != nil {
		t.Fatal(err)
	}
	vs, es, err := picture.Walk(g, picture.Options{Schedule: m})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 363 || len(es) != 362 {
		t.Fatalf("%d vertices and %d edges, want the whole demo graph", len(vs), len(es))
	}
	count := map[picture.State]int{}
	for _, v := range vs {
		count[v.State]++
		if v.State == picture.Allocated && (len(v.Jobs) != 1 || v.Jobs[0] != 1) {
			t.Errorf("%s: jobs %v", v.Path, v.Jobs)
		}
		if v.Type == "memory" && v.State == picture.Allocated && v.Booked != v.Size {
			t.Errorf("%s: booked %d of %d", v.Path, v.Booked, v.Size)
		}
	}
	// node0's subtree is down (45 vertices); job 1 holds 2 cores and a
	// memory; socket, node, rack and cluster are partly used.
	if count[picture.Down] != 45 || count[picture.Allocated] != 3 || count[picture.Partial] != 4 {
		t.Errorf("states %v", count)
	}
	// Without a schedule everything up is free.
	vs, _, _ = picture.Walk(g, picture.Options{Root: "/demo0/rack1/node7", Depth: 1})
	if len(vs) != 3 || vs[0].Name != "node7" || vs[1].State != picture.Free {
		t.Errorf("node7 and its sockets: %+v", vs)
	}
	// After the job ends, nothing is held.
	vs, _, _ = picture.Walk(g, picture.Options{Schedule: m, At: 3600, Root: "/demo0/rack1/node7"})
	for _, v := range vs {
		if v.State != picture.Free || len(v.Jobs) != 0 {
			t.Errorf("at 3600: %+v", v)
		}
	}
	for _, o := range []picture.Options{{Root: "/nope"}, {Subsystem: "power"}} {
		if _, _, err := picture.Walk(g, o); err == nil {
			t.Errorf("Walk(%+v) succeeded", o)
		}
	}
}

func TestGraphMLIsXML(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 1).Exclusively()), 0)
	var b bytes.Buffer
	if err := m.WriteGraphML(&b, picture.Options{Name: `a"<b>`, Full: true}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Graph struct {
			Nodes []struct {
				ID   string `xml:"id,attr"`
				Data []struct {
					Key   string `xml:"key,attr"`
					Value string `xml:",chardata"`
				} `xml:"data"`
			} `xml:"node"`
			Edges []struct{} `xml:"edge"`
		} `xml:"graph"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	allocated := 0
	for _, n := range doc.Graph.Nodes {
		for _, d := range n.Data {
			if d.Key == "state" && d.Value == "allocated" {
				allocated++
			}
		}
	}
	if len(doc.Graph.Nodes) != 363 || len(doc.Graph.Edges) != 362 || allocated != 45 {
		t.Errorf("%d nodes, %d edges, %d allocated", len(doc.Graph.Nodes), len(doc.Graph.Edges), allocated)
	}
	if err := m.WriteDOT(&b, picture.Options{Root: "/nope"}); err == nil || !strings.Contains(err.Error(), "/nope") {
		t.Errorf("WriteDOT of a missing root: %v", err)
	}
}

// Running now and reserved later are separate: a node running job 1 that is
// reserved for job 2 later is allocated, with job 2 listed as later
// (issue 21, item 3: it showed as reserved).
func TestStateFollowsTheClock(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyHigh})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 1).Exclusively()), 0)
	m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively()), 0)
	node := func(at int64) picture.Vertex { return nodeAt(t, m, at) }
	if v := node(0); v.State != picture.Allocated || !slices.Equal(v.Running, []uint64{1}) || !slices.Equal(v.Later, []uint64{2}) {
		t.Errorf("at 0: %s, running %v, later %v", v.State, v.Running, v.Later)
	}
	// The reservation has started at 3600: it runs.
	if v := node(3600); v.State != picture.Allocated || !slices.Equal(v.Running, []uint64{2}) || len(v.Later) != 0 {
		t.Errorf("at 3600: %s, running %v, later %v", v.State, v.Running, v.Later)
	}
	if v := node(7200); v.State != picture.Free || len(v.Jobs) != 0 {
		t.Errorf("at 7200: %+v", v)
	}
}

func nodeAt(t *testing.T, m *gofluxion.Matcher, at int64) picture.Vertex {
	t.Helper()
	var found picture.Vertex
	var b bytes.Buffer
	if err := m.WriteGraphML(&b, picture.Options{Root: "/demo0/rack1/node7", Depth: 0, At: at, Full: true}); err != nil {
		t.Fatal(err)
	}
	// Read the node's own entry back from the GraphML.
	var doc struct {
		Graph struct {
			Nodes []struct {
				Data []struct {
					Key   string `xml:"key,attr"`
					Value string `xml:",chardata"`
				} `xml:"data"`
			} `xml:"node"`
		} `xml:"graph"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	ids := func(s string) []uint64 {
		var out []uint64
		for _, f := range strings.Split(s, ",") {
			if f != "" {
				var n uint64
				fmt.Sscan(f, &n)
				out = append(out, n)
			}
		}
		return out
	}
	for _, d := range doc.Graph.Nodes[0].Data {
		switch d.Key {
		case "state":
			found.State = picture.State(d.Value)
		case "jobs":
			found.Running = ids(d.Value)
		case "later":
			found.Later = ids(d.Value)
		}
	}
	found.Jobs = append(append(found.Jobs, found.Running...), found.Later...)
	return found
}

// Labels list at most MaxJobs ids of each kind: 60 reservations on one
// node read "job 2 +59 later".
func TestLabelsAreBounded(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyHigh})
	whole := jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively())
	for range 61 {
		if _, err := m.Match(gofluxion.AllocateOrElseReserve, whole, 0); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := m.WriteDOT(&b, picture.Options{Root: "/demo0/rack1/node7", Depth: 0}); err != nil {
		t.Fatal(err)
	}
	line := strings.Split(b.String(), "\n")[3]
	if !strings.Contains(line, `label="node7\nallocated, reserved later\njob 1\njobs 2,3,4 +57 later"`) {
		t.Errorf("label: %s", line)
	}
	b.Reset()
	m.WriteDOT(&b, picture.Options{Root: "/demo0/rack1/node7", Depth: 0, MaxJobs: 1})
	if line := strings.Split(b.String(), "\n")[3]; !strings.Contains(line, `job 2 +59 later`) {
		t.Errorf("label with MaxJobs 1: %s", line)
	}
}

// A big selection is collapsed below its nodes by default; a small one,
// or Full, is drawn whole.
func TestBigGraphsCollapse(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	count := func(o picture.Options) int {
		var b bytes.Buffer
		if err := m.WriteDOT(&b, o); err != nil {
			t.Fatal(err)
		}
		return strings.Count(b.String(), "fillcolor=")
	}
	if n := count(picture.Options{}); n != 11 {
		t.Errorf("the demo cluster: %d vertices drawn, want 11 (cluster, racks, nodes)", n)
	}
	if n := count(picture.Options{Full: true}); n != 363 {
		t.Errorf("Full: %d vertices drawn", n)
	}
	if n := count(picture.Options{Root: "/demo0/rack1/node7"}); n != 45 {
		t.Errorf("one node: %d vertices drawn, want all 45", n)
	}
	if n := count(picture.Options{MaxVertices: 10, Root: "/demo0/rack1/node7"}); n != 1 {
		t.Errorf("one node, collapsed: %d vertices drawn", n)
	}
}

// TestExampleSVG runs Example_svg's rendering when Graphviz is installed.
func TestExampleSVG(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("Graphviz's dot is not installed")
	}
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 2).Exclusively()), 0)
	path := filepath.Join(t.TempDir(), "demo.svg")
	if err := writeSVG(m, 0, path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("node7")) {
		t.Fatalf("not an SVG of the cluster: %v, %.200s", err, data)
	}
}
