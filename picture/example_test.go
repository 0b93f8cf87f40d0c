package picture_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/picture"
)

// A picture of the demo cluster with two jobs on it: one running now on
// two whole nodes, one reserved for later on all eight. States follow the
// time: at 0 nodes 6 and 7 run job 1 and are reserved later for job 2; at
// 3600 job 2 runs everywhere.
func Example() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyHigh})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 2).Exclusively()), 0)
	m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively()), 0)
	m.SetStatus("/demo0/rack0/node0", false)

	// Rack 1 and its nodes, now and when the reservation starts.
	for _, at := range []int64{0, 3600} {
		var b bytes.Buffer
		m.WriteDOT(&b, picture.Options{Root: "/demo0/rack1", Depth: 1, At: at})
		fmt.Print(b.String())
	}
	// Output:
	// digraph "rack1" {
	//   rankdir=TB;
	//   node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];
	//   v2 [label="rack1\npartial, reserved later\njob 1\njob 2 later", fillcolor=lightyellow, type="rack", path="/demo0/rack1", state="partial", color=blue, penwidth=2, jobs="1", later="2"];
	//   v7 [label="node4\nreserved\njob 2 later", fillcolor=lightblue, type="node", path="/demo0/rack1/node4", state="reserved", later="2"];
	//   v8 [label="node5\nreserved\njob 2 later", fillcolor=lightblue, type="node", path="/demo0/rack1/node5", state="reserved", later="2"];
	//   v9 [label="node6\nallocated, reserved later\njob 1\njob 2 later", fillcolor=salmon, type="node", path="/demo0/rack1/node6", state="allocated", color=blue, penwidth=2, jobs="1", later="2"];
	//   v10 [label="node7\nallocated, reserved later\njob 1\njob 2 later", fillcolor=salmon, type="node", path="/demo0/rack1/node7", state="allocated", color=blue, penwidth=2, jobs="1", later="2"];
	//   v2 -> v7;
	//   v2 -> v8;
	//   v2 -> v9;
	//   v2 -> v10;
	// }
	// digraph "rack1" {
	//   rankdir=TB;
	//   node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];
	//   v2 [label="rack1\npartial\njob 2", fillcolor=lightyellow, type="rack", path="/demo0/rack1", state="partial", jobs="2"];
	//   v7 [label="node4\nallocated\njob 2", fillcolor=salmon, type="node", path="/demo0/rack1/node4", state="allocated", jobs="2"];
	//   v8 [label="node5\nallocated\njob 2", fillcolor=salmon, type="node", path="/demo0/rack1/node5", state="allocated", jobs="2"];
	//   v9 [label="node6\nallocated\njob 2", fillcolor=salmon, type="node", path="/demo0/rack1/node6", state="allocated", jobs="2"];
	//   v10 [label="node7\nallocated\njob 2", fillcolor=salmon, type="node", path="/demo0/rack1/node7", state="allocated", jobs="2"];
	//   v2 -> v7;
	//   v2 -> v8;
	//   v2 -> v9;
	//   v2 -> v10;
	// }
}

// The whole demo cluster (363 vertices) is drawn collapsed below its
// nodes, each node with the units in use below it; Full draws every
// vertex.
func Example_collapsed() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyHigh})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("core", 12))))), 0)
	var b bytes.Buffer
	m.WriteDOT(&b, picture.Options{})
	fmt.Println(strings.Count(b.String(), "->"), "edges")
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, `"node7`) {
			fmt.Println(line)
		}
	}
	b.Reset()
	m.WriteDOT(&b, picture.Options{Full: true})
	fmt.Println(strings.Count(b.String(), "->"), "edges in full")
	// Output:
	// 10 edges
	//   v10 [label="node7\npartial\njob 1\ncore 12/32 · gpu 0/2\nmemory 0/128", fillcolor=lightyellow, type="node", path="/demo0/rack1/node7", state="partial", jobs="1"];
	// 362 edges in full
}

// writeSVG draws m's graph at time at and renders it with Graphviz's dot
// into path.
func writeSVG(m *gofluxion.Matcher, at int64, path string) error {
	dot, err := exec.LookPath("dot")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := m.WriteDOT(&b, picture.Options{At: at}); err != nil {
		return err
	}
	cmd := exec.Command(dot, "-Tsvg", "-o", path)
	cmd.Stdin = &b
	return cmd.Run()
}

// An SVG of the demo cluster through Graphviz, when dot is installed
// (TestExampleSVG runs it, and skips without dot).
func Example_svg() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 2).Exclusively()), 0)
	path := filepath.Join(os.TempDir(), "demo.svg")
	if err := writeSVG(m, 0, path); err != nil {
		fmt.Println("no picture:", err)
		return
	}
	fmt.Println("wrote", path)
}
