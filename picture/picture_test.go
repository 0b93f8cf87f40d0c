package picture_test

import (
	"bytes"
	"encoding/xml"
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
	if err := m.WriteGraphML(&b, picture.Options{Name: `a"<b>`}); err != nil {
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
