package picture_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/picture"
)

// A picture of the demo cluster with two jobs on it: one allocated now on
// two whole nodes, one reserved for later on all eight.
func Example() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyHigh})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 2).Exclusively()), 0)
	m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively()), 0)
	m.SetStatus("/demo0/rack0/node0", false)

	// The whole cluster, for `dot -Tsvg demo.dot > demo.svg`.
	path := filepath.Join(os.TempDir(), "demo.dot")
	f, _ := os.Create(path)
	m.WriteDOT(f, picture.Options{})
	f.Close()
	data, _ := os.ReadFile(path)
	os.Remove(path)
	fmt.Println(strings.SplitN(string(data), "\n", 2)[0], bytes.Count(data, []byte("->")), "edges")

	// Rack 1 and its nodes, now and when the reservation starts.
	for _, at := range []int64{0, 3600} {
		var b bytes.Buffer
		m.WriteDOT(&b, picture.Options{Root: "/demo0/rack1", Depth: 1, At: at})
		fmt.Print(b.String())
	}
	// Output:
	// digraph "demo0" { 362 edges
	// digraph "rack1" {
	//   rankdir=TB;
	//   node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];
	//   v2 [label="rack1\npartial\njobs 1,2", fillcolor=lightyellow, type="rack", path="/demo0/rack1", state="partial", jobs="1,2"];
	//   v7 [label="node4\nreserved\njobs 2", fillcolor=lightblue, type="node", path="/demo0/rack1/node4", state="reserved", jobs="2"];
	//   v8 [label="node5\nreserved\njobs 2", fillcolor=lightblue, type="node", path="/demo0/rack1/node5", state="reserved", jobs="2"];
	//   v9 [label="node6\nallocated\njobs 1,2", fillcolor=salmon, type="node", path="/demo0/rack1/node6", state="allocated", jobs="1,2"];
	//   v10 [label="node7\nallocated\njobs 1,2", fillcolor=salmon, type="node", path="/demo0/rack1/node7", state="allocated", jobs="1,2"];
	//   v2 -> v7;
	//   v2 -> v8;
	//   v2 -> v9;
	//   v2 -> v10;
	// }
	// digraph "rack1" {
	//   rankdir=TB;
	//   node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];
	//   v2 [label="rack1\npartial\njobs 2", fillcolor=lightyellow, type="rack", path="/demo0/rack1", state="partial", jobs="2"];
	//   v7 [label="node4\nreserved\njobs 2", fillcolor=lightblue, type="node", path="/demo0/rack1/node4", state="reserved", jobs="2"];
	//   v8 [label="node5\nreserved\njobs 2", fillcolor=lightblue, type="node", path="/demo0/rack1/node5", state="reserved", jobs="2"];
	//   v9 [label="node6\nreserved\njobs 2", fillcolor=lightblue, type="node", path="/demo0/rack1/node6", state="reserved", jobs="2"];
	//   v10 [label="node7\nreserved\njobs 2", fillcolor=lightblue, type="node", path="/demo0/rack1/node7", state="reserved", jobs="2"];
	//   v2 -> v7;
	//   v2 -> v8;
	//   v2 -> v9;
	//   v2 -> v10;
	// }
}
