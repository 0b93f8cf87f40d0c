package fluxcli_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
	"github.com/gofluxion/gofluxion/reapi/types"
)

// testdata/twoway.json is an older-style JGF of our own, in the shape of
// fluxion-go's pkg/fluxcli/data/tiny.json: tiny0 → rack0 → node0..1 →
// socket → 2 cores, a gpu and 8 units of memory, every edge listed both
// ways (parent → child with the relation "contains", then child →
// parent with "subsystem": "containment" and the relation "in", or with
// no metadata at all). Fluxion loads it and allocates from it; these
// tests make the calls fluxion-go's pkg/fluxcli tests make on such a file
// (issue 21, item 2).

const twoWayJobspec = `version: 9999
resources:
  - type: node
    count: 1
    with:
      - type: socket
        count: 1
        with:
          - type: slot
            count: 1
            label: default
            with:
              - type: core
                count: 1
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600
`

func readTwoWay(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/twoway.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// oneWay returns the document with only its parent → child edges.
func oneWay(t *testing.T, doc string) string {
	t.Helper()
	var d struct {
		Graph struct {
			Nodes []json.RawMessage `json:"nodes"`
			Edges []struct {
				Source   string         `json:"source"`
				Target   string         `json:"target"`
				Metadata map[string]any `json:"metadata,omitempty"`
			} `json:"edges"`
		} `json:"graph"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		t.Fatal(err)
	}
	edges := d.Graph.Edges[:0]
	for _, e := range d.Graph.Edges {
		if name, _ := e.Metadata["name"].(map[string]any); name["containment"] == "contains" {
			edges = append(edges, e)
		}
	}
	d.Graph.Edges = edges
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// fluxion-go's TestFluxcli: a context, initialized from the JGF with "{}".
func TestTwoWayJGFInitContext(t *testing.T) {
	cli := fluxcli.NewReapiClient()
	if !cli.HasContext() {
		t.Fatal("Context is null")
	}
	if err := cli.InitContext(readTwoWay(t), "{}"); err != nil {
		t.Fatalf("Reapi client init context failed: %v: %s", err, cli.GetErrMsg())
	}
	v, e, _, _, _, _, _, err := cli.Stat()
	// 2 + 2 × (1 + 2 × 5) vertices; Fluxion keeps both edges of each pair.
	if err != nil || v != 24 || e != 2*23 {
		t.Errorf("Stat: %d vertices, %d edges, %v; want 24 and 46", v, e, err)
	}
}

// fluxion-go's TestMatchAllocate and TestCancel, on the two-way file and on
// the same file with only its downward edges: every answer is the same
// (the R, its time, the job id, the mode), as in Fluxion.
func TestTwoWayJGFMatchAllocateCancelInfo(t *testing.T) {
	twoWay := readTwoWay(t)
	for _, opts := range []string{"{}", `{"matcher_policy": "lonode"}`, `{"matcher_policy": "high", "match_format": "rv1"}`} {
		a, b := fluxcli.NewReapiClient(), fluxcli.NewReapiClient()
		if err := a.InitContext(twoWay, opts); err != nil {
			t.Fatalf("%s: InitContext(two-way): %v: %s", opts, err, a.GetErrMsg())
		}
		if err := b.InitContext(oneWay(t, twoWay), opts); err != nil {
			t.Fatalf("%s: InitContext(one-way): %v", opts, err)
		}
		type answer struct {
			reserved  bool
			allocated string
			at, jobid int64
			err       error
		}
		call := func(cli *fluxcli.ReapiClient, orelseReserve bool) answer {
			reserved, allocated, at, overhead, jobid, err := cli.MatchAllocate(orelseReserve, twoWayJobspec)
			if overhead < 0 {
				t.Errorf("overhead %v", overhead)
			}
			return answer{reserved, allocated, at, jobid, err}
		}
		// 4 sockets × 2 cores: 8 jobs run, the ninth is busy, the tenth is
		// reserved for later.
		for i := 1; i <= 10; i++ {
			orelse := i == 10
			x, y := call(a, orelse), call(b, orelse)
			if x.reserved != y.reserved || x.allocated != y.allocated || x.at != y.at || x.jobid != y.jobid || (x.err == nil) != (y.err == nil) {
				t.Fatalf("%s: MatchAllocate %d: two-way %+v, one-way %+v", opts, i, x, y)
			}
			switch {
			case i <= 8 && (x.err != nil || x.reserved || x.at != 0 || x.jobid != int64(i) || x.allocated == ""):
				t.Errorf("%s: job %d: %+v", opts, i, x)
			case i == 9 && !errors.Is(x.err, fluxcli.ErrBusy):
				t.Errorf("%s: a ninth job on a full cluster: %+v", opts, x)
			case i == 10 && (x.err != nil || !x.reserved || x.at != 3600):
				t.Errorf("%s: the tenth job, allocate or else reserve: %+v", opts, x)
			}
		}
		reserved, at, overhead, mode, err := a.Info(1)
		if err != nil || reserved || at != 0 || overhead < 0 || mode != "ALLOCATED" {
			t.Errorf("%s: Info(1) = %v %d %v %q %v", opts, reserved, at, overhead, mode, err)
		}
		if err := a.Cancel(1, false); err != nil {
			t.Fatalf("%s: Cancel(1): %v", opts, err)
		}
		if _, _, _, mode, err := a.Info(1); err != nil || mode != "CANCELED" {
			t.Errorf("%s: Info after Cancel: %q %v", opts, mode, err)
		}
		if err := a.Cancel(1, false); !errors.Is(err, fluxcli.ErrNotFound) {
			t.Errorf("%s: second Cancel: %v", opts, err)
		}
		// The freed core runs the next job now, as on the one-way file.
		if err := b.Cancel(1, false); err != nil {
			t.Fatal(err)
		}
		reserved1, alloc1, at1, _, id1, err1 := a.Match(types.MatchAllocate, twoWayJobspec)
		reserved2, alloc2, at2, _, id2, err2 := b.Match(types.MatchAllocate, twoWayJobspec)
		if err1 != nil || reserved1 || at1 != 0 || alloc1 != alloc2 || id1 != id2 || err2 != nil || reserved2 || at2 != 0 {
			t.Errorf("%s: after Cancel: %v %q %d %d %v / %q %v", opts, reserved1, alloc1, at1, id1, err1, alloc2, err2)
		}
		sat, _, err := a.MatchSatisfy(twoWayJobspec)
		if err != nil || !sat {
			t.Errorf("%s: MatchSatisfy = %v, %v", opts, sat, err)
		}
		if _, _, jobs, _, _, _, _, err := a.Stat(); err != nil || jobs != 10 {
			t.Errorf("%s: Stat: %d jobs matched, %v; want 10", opts, jobs, err)
		}
	}
}

// The root package loads the same file: its strict reader keeps the tree
// and skips the upward edges (see jgf.Options).
func TestTwoWayJGFLoadsInTheRootPackage(t *testing.T) {
	g, err := gofluxion.ReadGraph("jgf", []byte(readTwoWay(t)), "")
	if err != nil {
		t.Fatalf("ReadGraph: %v", err)
	}
	if g.NumVertices() != 24 || g.NumEdges() != 23 {
		t.Errorf("%d vertices, %d edges; want 24 and 23", g.NumVertices(), g.NumEdges())
	}
	m, err := gofluxion.New(g, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := m.ParseJobspec([]byte(twoWayJobspec))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if _, err := m.Match(gofluxion.Allocate, js, 0); err != nil {
			t.Fatalf("Allocate %d: %v", i+1, err)
		}
	}
	if _, err := m.Match(gofluxion.Allocate, js, 0); !errors.Is(err, gofluxion.ErrBusy) {
		t.Errorf("a ninth job: %v", err)
	}
}

// Whatever Fluxion's reader loads, InitContext loads: a cycle, a second
// containment parent and a negative size too (the library refuses them).
// Matching on such a graph ends, and a failed match changes nothing.
func TestInitContextLoadsWhatFluxionLoads(t *testing.T) {
	doc := `{"graph": {"nodes": [
  {"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
  {"id": "1", "metadata": {"type": "node", "rank": 0, "paths": {"containment": "/c0/node1"}}},
  {"id": "2", "metadata": {"type": "node", "rank": 1, "paths": {"containment": "/c0/node2"}}},
  {"id": "3", "metadata": {"type": "core", "rank": 0, "paths": {"containment": "/c0/node1/core3"}}},
  {"id": "4", "metadata": {"type": "memory", "size": -2, "rank": 1, "paths": {"containment": "/c0/node2/memory4"}}}],
 "edges": [{"source": "0", "target": "1"}, {"source": "0", "target": "2"}, {"source": "1", "target": "3"},
  {"source": "2", "target": "3"}, {"source": "2", "target": "4"}, {"source": "3", "target": "0"}]}}`
	if _, err := gofluxion.ReadGraph("jgf", []byte(doc), ""); !errors.Is(err, gofluxion.ErrInvalid) {
		t.Fatalf("the library read it: %v", err)
	}
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(doc, "{}"); err != nil {
		t.Fatalf("InitContext: %v: %s", err, cli.GetErrMsg())
	}
	spec := jobspecText(1, 1, 60)
	if _, _, _, _, id, err := cli.MatchAllocate(false, spec); err != nil || id != 1 {
		t.Fatalf("MatchAllocate: %d %v: %s", id, err, cli.GetErrMsg())
	}
	before, _ := cli.Clone()
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 2, 60)); err == nil {
		t.Fatal("two cores from one")
	}
	// The failed match left the schedule as it was: the clone taken
	// before and the client answer alike.
	_, r1, _, _, _, err1 := cli.MatchAllocate(true, spec)
	_, r2, _, _, _, err2 := before.MatchAllocate(true, spec)
	if r1 != r2 || (err1 == nil) != (err2 == nil) {
		t.Errorf("after a failed match: %q %v, want %q %v", r1, err1, r2, err2)
	}
}

// A containment edge from a leaf back to the root makes a ring in which
// every vertex has one parent: the matcher took that for a tree and its
// walks up the parents never ended.
func TestInitContextEdgeBackToTheRootEnds(t *testing.T) {
	doc := `{"graph": {"nodes": [
  {"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
  {"id": "1", "metadata": {"type": "node", "rank": 0, "paths": {"containment": "/c0/node1"}}},
  {"id": "2", "metadata": {"type": "core", "rank": 0, "paths": {"containment": "/c0/node1/core2"}}},
  {"id": "3", "metadata": {"type": "core", "rank": 0, "paths": {"containment": "/c0/node1/core3"}}}],
 "edges": [{"source": "0", "target": "1"}, {"source": "1", "target": "2"}, {"source": "1", "target": "3"}, {"source": "3", "target": "0"}]}}`
	done := make(chan error, 1)
	go func() {
		cli := fluxcli.NewReapiClient()
		if err := cli.InitContext(doc, `{"matcher_policy": "low"}`); err != nil {
			done <- err
			return
		}
		_, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60))
		if err == nil {
			err = cli.Cancel(1, false)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("InitContext and MatchAllocate on a graph with an edge back to the root did not end")
	}
}
