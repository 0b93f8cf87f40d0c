package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// tinyJGF builds a graph in code (cluster tiny0 with two nodes of four
// cores and 16 GB of memory each) and renders it as JGF through the jgf
// match writer, the way an allocation is rendered: vertices in post-order,
// each edge after its child's subtree. down lists paths below /tiny0/ of
// vertices to mark down ("status": 1), which the writer does not emit.
func tinyJGF(t *testing.T, down ...string) []byte {
	t.Helper()
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("tiny"))
	for n := int64(0); n < 2; n++ {
		node := b.MustAdd(c, "node", n)
		for i := int64(0); i < 4; i++ {
			b.MustAdd(node, "core", i)
		}
		b.MustAdd(node, "memory", 0, graph.WithSize(16), graph.WithUnit("GB"))
	}
	g := b.Graph()
	w, err := gofluxion.NewWriter("jgf")
	if err != nil {
		t.Fatal(err)
	}
	var walk func(v graph.VertexID, level int)
	walk = func(v graph.VertexID, level int) {
		for _, h := range g.Out(v) {
			walk(h.Other, level+1)
			w.Edge(g, h.Edge, false)
		}
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Level: level})
	}
	walk(g.Root(graph.Containment), 1)
	doc, err := w.Render()
	if err != nil {
		t.Fatal(err)
	}
	if len(down) == 0 {
		return []byte(doc)
	}
	var j struct {
		Graph struct {
			Nodes []struct {
				ID       string         `json:"id"`
				Metadata map[string]any `json:"metadata"`
			} `json:"nodes"`
			Edges []json.RawMessage `json:"edges"`
		} `json:"graph"`
	}
	if err := json.Unmarshal([]byte(doc), &j); err != nil {
		t.Fatal(err)
	}
	for _, n := range j.Graph.Nodes {
		path := n.Metadata["paths"].(map[string]any)["containment"].(string)
		for _, d := range down {
			if path == "/tiny0/"+d {
				n.Metadata["status"] = 1
			}
		}
	}
	out, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// nodesJobspec asks for n nodes, each with a slot of c cores.
func nodesJobspec(n, c int) string {
	return strings.NewReplacer("NODES", strconv.Itoa(n), "CORES", strconv.Itoa(c)).Replace(`version: 1
resources:
  - type: node
    count: NODES
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: CORES
attributes:
  system:
    duration: 3600
tasks:
  - command: ["app"]
    slot: default
    count: {per_slot: 1}
`)
}

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMatch(t *testing.T) {
	dir := t.TempDir()
	graphFile := write(t, dir, "tiny.json", tinyJGF(t))
	job := write(t, dir, "job.yaml", []byte(nodesJobspec(2, 3)))

	// rv1 by default: an RFC 20 R on both nodes.
	var out bytes.Buffer
	if err := run([]string{graphFile, job}, &out, io.Discard); err != nil {
		t.Fatalf("run: %v", err)
	}
	var R struct {
		Version   int `json:"version"`
		Execution struct {
			RLite []struct {
				Rank     string            `json:"rank"`
				Children map[string]string `json:"children"`
			} `json:"R_lite"`
			Nodelist   []string `json:"nodelist"`
			Expiration float64  `json:"expiration"`
		} `json:"execution"`
	}
	if err := json.Unmarshal(out.Bytes(), &R); err != nil {
		t.Fatalf("rv1 output is not JSON: %v\n%s", err, out.String())
	}
	if R.Version != 1 || len(R.Execution.Nodelist) != 1 || R.Execution.Nodelist[0] != "node[0-1]" ||
		len(R.Execution.RLite) != 1 || R.Execution.RLite[0].Rank != "0-1" || len(R.Execution.RLite[0].Children["core"]) != 3 ||
		R.Execution.Expiration != 3600 {
		t.Errorf("unexpected R: %+v\n%s", R, out.String())
	}

	// Flags before, between and after the files; the simple tree.
	for _, args := range [][]string{
		{"-format", "simple", graphFile, job},
		{graphFile, "-format", "simple", job},
		{graphFile, job, "-format", "simple", "-policy", "high", "-op", "allocate_orelse_reserve"},
	} {
		out.Reset()
		if err := run(args, &out, io.Discard); err != nil {
			t.Fatalf("run %q: %v", args, err)
		}
		s := out.String()
		if strings.Count(s, "core") != 6 || !strings.Contains(s, "------node0[1:s]") || !strings.Contains(s, "---tiny0[1:s]") {
			t.Errorf("run %q:\n%s", args, s)
		}
	}

	// The high policy picks the highest-numbered cores.
	out.Reset()
	one := write(t, dir, "one.yaml", []byte(nodesJobspec(1, 1)))
	if err := run([]string{graphFile, one, "-policy", "high", "-format", "simple"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "node1") || !strings.Contains(out.String(), "core3[1:x]") {
		t.Errorf("-policy high:\n%s", out.String())
	}

	out.Reset()
	if err := run([]string{graphFile, job, "-op", "satisfiability"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "satisfiable: ") {
		t.Errorf("-op satisfiability: %q", out.String())
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	graphFile := write(t, dir, "tiny.json", tinyJGF(t))
	downFile := write(t, dir, "down.json", tinyJGF(t, "node1"))
	garbage := write(t, dir, "garbage.json", []byte(`{"graph": {"nodes": [{"id": "0"}]}}`))
	job := write(t, dir, "job.yaml", []byte(nodesJobspec(2, 3)))
	tooMany := write(t, dir, "three.yaml", []byte(nodesJobspec(3, 1)))
	tooWide := write(t, dir, "wide.yaml", []byte(nodesJobspec(1, 5)))
	badYAML := write(t, dir, "bad.yaml", []byte("version: 1\nresources: []\n"))
	gpu := write(t, dir, "gpu.yaml", []byte(strings.Replace(nodesJobspec(1, 1), "type: core", "type: gpu", 1)))
	fpga := write(t, dir, "fpga.yaml", []byte(strings.Replace(nodesJobspec(1, 1), "type: core", "type: fpga", 1)))
	coresDown := write(t, dir, "cores-down.json", tinyJGF(t, "node0/core3", "node1/core0"))
	fourCores := write(t, dir, "four.yaml", []byte(nodesJobspec(1, 4)))

	for _, c := range []struct {
		name string
		args []string
		is   error  // errors.Is target, or nil
		msg  string // a substring of the message
	}{
		{"no graph file", []string{filepath.Join(dir, "nosuch.json"), job}, fs.ErrNotExist, "reading the graph"},
		{"no jobspec file", []string{graphFile, filepath.Join(dir, "nosuch.yaml")}, fs.ErrNotExist, "reading the jobspec"},
		{"bad JGF", []string{garbage, job}, nil, "garbage.json: not a valid JGF resource graph"},
		{"a jobspec file as the graph", []string{job, job}, nil, "not a valid JGF resource graph"},
		{"bad jobspec", []string{graphFile, badYAML}, nil, "bad.yaml: invalid jobspec"},
		{"type unknown to fluxion", []string{graphFile, fpga}, nil, "fpga.yaml: invalid jobspec"},
		{"a known type the graph lacks", []string{graphFile, gpu}, errUnsatisfiable, "can never hold"},
		{"more nodes than the graph has", []string{graphFile, tooMany}, errUnsatisfiable, "can never hold"},
		{"more cores than a node has", []string{graphFile, tooWide, "-op", "allocate_orelse_reserve"}, errUnsatisfiable, "can never hold"},
		{"unsatisfiable, satisfiability", []string{graphFile, tooMany, "-op", "satisfiability"}, errUnsatisfiable, "can never hold"},
		{"node down", []string{downFile, job}, errBusy, "but not now"},
		{"node down, with satisfiability", []string{downFile, job, "-op", "allocate_with_satisfiability"}, errBusy, "but not now"},
		{"node down, or else reserve", []string{downFile, job, "-op", "allocate_orelse_reserve"}, errBusy, "but not now"},
		{"a core down on each node", []string{coresDown, fourCores}, errBusy, "but not now"},
		{"one file", []string{graphFile}, errUsage, "usage"},
		{"three files", []string{graphFile, job, job}, errUsage, "usage"},
		{"unknown op", []string{graphFile, job, "-op", "reserve"}, errUsage, `unknown -op "reserve"`},
		{"unknown flag", []string{graphFile, job, "-x"}, errUsage, "-x"},
		{"unknown format", []string{graphFile, job, "-format", "yaml"}, nil, `unknown match format "yaml"`},
		{"unknown policy", []string{graphFile, job, "-policy", "best"}, nil, "best"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(c.args, &out, io.Discard)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out.String())
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %q is not %v", err, c.is)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
			if out.Len() != 0 {
				t.Errorf("output on error:\n%s", out.String())
			}
		})
	}

	// With a core down on each node, three cores per node are still usable.
	// (A node down at load time is another story: Fluxion counts it as -1 in
	// its nodes-up tally, so with node1 down no node request fits at all.)
	var out bytes.Buffer
	three := write(t, dir, "three-cores.yaml", []byte(nodesJobspec(2, 3)))
	if err := run([]string{coresDown, three, "-format", "rlite"}, &out, io.Discard); err != nil {
		t.Fatalf("three cores on each node with a core down on each: %v", err)
	}
	const want = `[{"rank": "0", "children": {"core": "0-2"}}, {"rank": "1", "children": {"core": "1-3"}}]` + "\n"
	if out.String() != want {
		t.Errorf("with node0/core3 and node1/core0 down, got R_lite\n%s\nwant\n%s", out.String(), want)
	}
}

// TestExitStatus runs main in a child process: errors print one line on
// stderr and exit 1, bad usage exits 2, success exits 0.
func TestExitStatus(t *testing.T) {
	if args := os.Getenv("JGF_FILE_ARGS"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			t.Fatal(err)
		}
		os.Args = append([]string{"jgf-file"}, list...)
		main()
		os.Exit(0)
	}
	dir := t.TempDir()
	graphFile := write(t, dir, "tiny.json", tinyJGF(t))
	job := write(t, dir, "job.yaml", []byte(nodesJobspec(2, 1)))
	tooMany := write(t, dir, "three.yaml", []byte(nodesJobspec(3, 1)))
	for _, c := range []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{graphFile, job, "-format", "rlite"}, 0, ""},
		{[]string{graphFile, tooMany}, 1, "jgf-file: unsatisfiable: " + graphFile + " can never hold this request"},
		{[]string{filepath.Join(dir, "nosuch.json"), job}, 1, "jgf-file: reading the graph: open "},
		{[]string{graphFile}, 2, "usage: jgf-file GRAPH.json JOBSPEC.yaml"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExitStatus$")
		args, _ := json.Marshal(c.args)
		cmd.Env = append(os.Environ(), "JGF_FILE_ARGS="+string(args))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		status := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			status = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if status != c.status || !strings.HasPrefix(stderr.String(), c.stderr) || strings.Count(stderr.String(), "\n") > 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q…", c.args, status, stderr.String(), c.status, c.stderr)
		}
		if c.status == 0 && !strings.HasPrefix(stdout.String(), `[{"rank": "0-1", "children": {"core": `) {
			t.Errorf("%q: stdout %q", c.args, stdout.String())
		}
	}
}

// With no files, the embedded example runs.
func TestEmbeddedExample(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"-format", "rlite"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), `[{"rank": "0-1", "children": {"core": "2-3", "gpu": "0"}}]`+"\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if !strings.Contains(errb.String(), "embedded example") {
		t.Errorf("stderr %q does not say the example was used", errb.String())
	}
}
