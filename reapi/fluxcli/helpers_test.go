package fluxcli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

// buildCluster builds cluster0 → node0..node{nodes-1} (ranks 0, 1, ...) →
// core0..core{cores-1} and gpu0, every vertex below a node with the node's
// rank: the shape of an rv1exec-loaded graph, so that both JGF and rv1exec
// Rs apply to it.
func buildCluster(nodes, cores int) *graph.Graph {
	b := graph.NewBuilder()
	root := b.MustAdd(graph.NoVertex, "cluster", 0)
	for n := 0; n < nodes; n++ {
		node := b.MustAdd(root, "node", int64(n))
		for c := 0; c < cores; c++ {
			b.MustAdd(node, "core", int64(c), graph.WithRank(int64(n)))
		}
		b.MustAdd(node, "gpu", 0, graph.WithRank(int64(n)))
	}
	return b.Graph()
}

// renderJGF renders a whole graph as a JGF document with the jgf writer:
// every vertex reachable from the containment root, in post-order.
func renderJGF(t testing.TB, g *graph.Graph) string {
	t.Helper()
	return renderJGFWithout(t, g, graph.NoVertex)
}

// renderJGFWithout is renderJGF leaving out the subtree of skip.
func renderJGFWithout(t testing.TB, g *graph.Graph, skip graph.VertexID) string {
	t.Helper()
	w := jgf.NewWriter()
	var walk func(v graph.VertexID, level int)
	walk = func(v graph.VertexID, level int) {
		for _, h := range g.Out(v) {
			if h.Subsystem != graph.Containment || h.Other == skip {
				continue
			}
			walk(h.Other, level+1)
			w.Edge(g, h.Edge, true)
		}
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Exclusive: true, Level: level})
	}
	walk(g.Root(graph.Containment), 1)
	out, err := w.Render()
	if err != nil {
		t.Fatalf("rendering the graph as JGF: %v", err)
	}
	return out
}

// renderJGFPreorder renders a whole graph as a JGF document listing the
// vertices in pre-order, which is buildCluster's creation order: a graph
// loaded from it has unique ids equal to the creation indices.
func renderJGFPreorder(t testing.TB, g *graph.Graph) string {
	t.Helper()
	w := jgf.NewWriter()
	var walk func(v graph.VertexID, level int)
	walk = func(v graph.VertexID, level int) {
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Exclusive: true, Level: level})
		for _, h := range g.Out(v) {
			if h.Subsystem == graph.Containment {
				walk(h.Other, level+1)
				w.Edge(g, h.Edge, true)
			}
		}
	}
	walk(g.Root(graph.Containment), 1)
	out, err := w.Render()
	if err != nil {
		t.Fatalf("rendering the graph as JGF: %v", err)
	}
	return out
}

// newClientFrom is newClient on the given JGF document.
func newClientFrom(t testing.TB, doc, extra string) *fluxcli.ReapiClient {
	t.Helper()
	opts := `{"load_format": "jgf", ` + extra + "}"
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(doc, opts); err != nil {
		t.Fatalf("InitContext(%s): %v\n%s", opts, err, cli.GetErrMsg())
	}
	return cli
}

// clusterJGF is the JGF of buildCluster(nodes, cores).
func clusterJGF(t testing.TB, nodes, cores int) string {
	return renderJGF(t, buildCluster(nodes, cores))
}

// jobspecText returns a canonical jobspec asking for nslots slots of
// ncores cores each (optionally under one node), for duration seconds.
func jobspecText(nslots, ncores int, duration int) string {
	return fmt.Sprintf(`version: 1
resources:
  - type: slot
    count: %d
    label: default
    with:
      - type: core
        count: %d
attributes:
  system:
    duration: %d
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`, nslots, ncores, duration)
}

// nodeJobspec asks for nnodes whole nodes (exclusive) for duration seconds.
func nodeJobspec(nnodes, duration int) string {
	return fmt.Sprintf(`version: 1
resources:
  - type: node
    count: %d
    exclusive: true
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 1
attributes:
  system:
    duration: %d
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`, nnodes, duration)
}

// newClient returns a client initialized with a JGF cluster of nodes ×
// cores and the given extra options (JSON members without braces).
func newClient(t testing.TB, nodes, cores int, extra string) *fluxcli.ReapiClient {
	t.Helper()
	opts := `{"load_format": "jgf"`
	if extra != "" {
		opts += ", " + extra
	}
	opts += "}"
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(clusterJGF(t, nodes, cores), opts); err != nil {
		t.Fatalf("InitContext(%s): %v\n%s", opts, err, cli.GetErrMsg())
	}
	return cli
}

// wantErr checks err is an *fluxcli.Error with errno and Msg.
func wantErr(t testing.TB, what string, err error, errno match.Errno, msg string) {
	t.Helper()
	var e *fluxcli.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v (%T), want *fluxcli.Error", what, err, err)
	}
	if e.Errno != errno {
		t.Errorf("%s: errno %v (%d), want %v (%d)", what, e.Errno, int(e.Errno), errno, int(errno))
	}
	if e.Msg != msg {
		t.Errorf("%s: Msg %q, want %q", what, e.Msg, msg)
	}
}

// jgfPaths returns the containment paths of the vertices of a JGF
// document (or of the scheduling part of an R), in document order.
func jgfPaths(t testing.TB, doc string) []string {
	t.Helper()
	var top struct {
		Graph      *jgfGraph `json:"graph"`
		Scheduling *struct {
			Graph *jgfGraph `json:"graph"`
		} `json:"scheduling"`
	}
	if err := json.Unmarshal([]byte(doc), &top); err != nil {
		t.Fatalf("not JSON: %v: %q", err, doc)
	}
	g := top.Graph
	if g == nil && top.Scheduling != nil {
		g = top.Scheduling.Graph
	}
	if g == nil {
		t.Fatalf("no graph in %q", doc)
	}
	var paths []string
	for _, n := range g.Nodes {
		paths = append(paths, n.Metadata.Paths["containment"])
	}
	return paths
}

type jgfGraph struct {
	Nodes []struct {
		Metadata struct {
			Type  string            `json:"type"`
			Paths map[string]string `json:"paths"`
		} `json:"metadata"`
	} `json:"nodes"`
	Edges []json.RawMessage `json:"edges"`
}

// countMatching counts the paths whose last element starts with prefix.
func countMatching(paths []string, prefix string) int {
	n := 0
	for _, p := range paths {
		if strings.HasPrefix(p[strings.LastIndexByte(p, '/')+1:], prefix) {
			n++
		}
	}
	return n
}
