package gofluxion_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// wholeNodes is a jobspec of n whole (exclusive) nodes of the demo
// cluster for duration seconds.
func wholeNodes(n, duration int) []byte {
	return fmt.Appendf(nil, `version: 1
resources: [{type: node, count: %d, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]
attributes: {system: {duration: %d}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`, n, duration)
}

// mustParse parses a jobspec for m or panics.
func mustParse(m *gofluxion.Matcher, yaml []byte) *jobspec.Jobspec {
	js, err := m.ParseJobspec(yaml)
	if err != nil {
		panic(err)
	}
	return js
}

func ExampleNew() {
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "hinode"})
	if err != nil {
		panic(err)
	}
	a, _ := m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(1, 60)), 0)
	r, _ := a.Render("rlite")
	fmt.Print(r)

	// Options are checked here, not at the first match.
	_, err = gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Format: "xml"})
	fmt.Println(err)
	// Output:
	// [{"rank": "7", "children": {"core": "0-31", "gpu": "0-1"}}]
	// gofluxion: new: unknown match format "xml" (want one of simple, pretty_simple, jgf, jgf_shorthand, rlite, rv1, rv1_nosched, rv1_shorthand)
}

func ExampleOptions() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{
		Policy: "low",   // the lowest-numbered resources first
		Format: "rlite", // what Allocation.String prints
	})
	a, _ := m.Match(gofluxion.Allocate, mustParse(m, []byte(oneSocket)), 0)
	fmt.Println(a)
	// Output:
	// [{"rank": "0", "children": {"core": "0-3"}}]
}

// A tiny cluster written in JGF: one node of four cores.
const tinyJGF = `{"graph": {"nodes": [
  {"id": "0", "metadata": {"type": "cluster", "basename": "tiny", "id": 0, "paths": {"containment": "/tiny0"}}},
  {"id": "1", "metadata": {"type": "node", "id": 0, "rank": 0, "paths": {"containment": "/tiny0/node0"}}},
  {"id": "2", "metadata": {"type": "core", "id": 0, "rank": 0, "paths": {"containment": "/tiny0/node0/core0"}}},
  {"id": "3", "metadata": {"type": "core", "id": 1, "rank": 0, "paths": {"containment": "/tiny0/node0/core1"}}},
  {"id": "4", "metadata": {"type": "core", "id": 2, "rank": 0, "paths": {"containment": "/tiny0/node0/core2"}}},
  {"id": "5", "metadata": {"type": "core", "id": 3, "rank": 0, "paths": {"containment": "/tiny0/node0/core3"}}}],
 "edges": [{"source": "0", "target": "1"}, {"source": "1", "target": "2"}, {"source": "1", "target": "3"},
           {"source": "1", "target": "4"}, {"source": "1", "target": "5"}]}}`

func ExampleReadGraph() {
	g, err := gofluxion.ReadGraph(gofluxion.FormatJGF, []byte(tinyJGF), "")
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumVertices(), "vertices,", g.LiveEdges(), "edges")

	m, _ := gofluxion.New(g, gofluxion.Options{Policy: "low"})
	js, _ := m.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 3}]}]}]
attributes: {system: {duration: 60}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	out, _ := a.Render("simple")
	fmt.Print(out)
	// Output:
	// 6 vertices, 5 edges
	//       ---------core0[1:x]
	//       ---------core1[1:x]
	//       ---------core2[1:x]
	//       ------node0[1:s]
	//       ---tiny0[1:s]
}

func ExampleReadGraphFile() {
	// The extension picks the reader: .graphml is GRUG, .json JGF, .xml hwloc.
	f, err := os.CreateTemp("", "cluster-*.graphml")
	if err != nil {
		panic(err)
	}
	defer os.Remove(f.Name())
	f.Write(gofluxion.DemoGraphML())
	f.Close()

	g, err := gofluxion.ReadGraphFile(f.Name())
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumVertices(), "vertices")

	_, err = gofluxion.ReadGraphFile("no-such-file.graphml")
	fmt.Println(errors.Is(err, os.ErrNotExist))
	// Output:
	// 363 vertices
	// true
}

func ExampleDemoGraph() {
	g := gofluxion.DemoGraph()
	for _, typ := range []string{"cluster", "rack", "node", "socket", "core", "gpu", "memory"} {
		fmt.Println(typ, len(g.ByType(g.Type(typ))))
	}
	// Output:
	// cluster 1
	// rack 2
	// node 8
	// socket 16
	// core 256
	// gpu 16
	// memory 64
}

func ExampleDemoGraphML() {
	// The recipe is a starting point for your own: here, four racks
	// instead of two.
	recipe := bytes.Replace(gofluxion.DemoGraphML(),
		[]byte(`<edge id="c2r" source="cluster" target="rack"><data key="multi_scale">2</data>`),
		[]byte(`<edge id="c2r" source="cluster" target="rack"><data key="multi_scale">4</data>`), 1)
	g, err := gofluxion.ReadGraph(gofluxion.FormatGRUG, recipe, "")
	if err != nil {
		panic(err)
	}
	fmt.Println(len(g.ByType(g.Type("node"))), "nodes")
	// Output:
	// 16 nodes
}

func ExampleNewWriter() {
	// NewWriter serves the lower layers, which write to an emit.Writer:
	// here package match directly.
	m, _ := match.New(gofluxion.DemoGraph(), match.Options{Policy: "low"})
	js, _ := jobspec.Parse([]byte(oneSocket), jobspec.Options{})
	w, err := gofluxion.NewWriter("rv1_nosched")
	if err != nil {
		panic(err)
	}
	if _, err := m.Match(match.Allocate, js, 1, 0, w); err != nil {
		panic(err)
	}
	out, _ := w.Render()
	fmt.Print(out)
	// Output:
	// {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-3"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 3600}}
}

func ExampleWriteJGF() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.SetStatus("/demo0/rack1/node5", false)

	// Export the graph, statuses included, and load it elsewhere.
	doc, err := gofluxion.WriteJGF(m.Graph())
	if err != nil {
		panic(err)
	}
	g, err := gofluxion.ReadGraph(gofluxion.FormatJGF, []byte(doc), "")
	if err != nil {
		panic(err)
	}
	copied, _ := gofluxion.New(g, gofluxion.Options{})
	up, _ := copied.Status("/demo0/rack1/node5")
	fmt.Println(g.NumVertices(), up)
	// Output:
	// 363 false
}

func ExampleMatcher_ParseJobspec() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, err := m.ParseJobspec([]byte(oneSocket))
	fmt.Println(js.Resources[0].Type, js.Duration, err)

	// The demo graph has no switches.
	_, err = m.ParseJobspec([]byte(`version: 1
resources: [{type: switch, count: 1}]
attributes: {}
tasks: []
`))
	fmt.Println(err)
	// Errors match ErrInvalid and carry a *jobspec.Error, which also
	// tells where.
	fmt.Println(errors.Is(err, gofluxion.ErrInvalid))
	var e *jobspec.Error
	if errors.As(err, &e) {
		fmt.Println(e.Detail())
	}
	// Output:
	// node 3600 <nil>
	// gofluxion: parse jobspec: invalid jobspec: line 2, column 20 (resources[0].type): Value of "type" must be a resource type known to fluxion
	// true
	// line 2, column 20 (resources[0].type): Value of "type" must be a resource type known to fluxion
}

func ExampleMatcher_Match() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	six := mustParse(m, wholeNodes(6, 600))

	// Allocate books now or fails with ErrBusy.
	a, err := m.Match(gofluxion.Allocate, six, 0)
	fmt.Println(a.JobID, a.Start, a.End, err)
	_, err = m.Match(gofluxion.Allocate, six, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrBusy))

	// AllocateOrElseReserve books at the earliest time it fits.
	b, _ := m.Match(gofluxion.AllocateOrElseReserve, six, 0)
	fmt.Println(b.JobID, b.Reserved, b.Start, b.End)

	// WithoutAllocating says when it would start, and books nothing.
	c, _ := m.Match(gofluxion.WithoutAllocating, mustParse(m, wholeNodes(2, 60)), 0)
	fmt.Println(c.JobID, c.Start)

	// Satisfiability only checks that the request could ever fit.
	_, err = m.Match(gofluxion.Satisfiability, mustParse(m, wholeNodes(9, 60)), 0)
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable))
	// Output:
	// 1 0 600 <nil>
	// true
	// 2 true 600 1200
	// 0 0
	// true
}

func ExampleMatcher_MatchWithID() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := mustParse(m, []byte(oneSocket))

	a, _ := m.MatchWithID(gofluxion.Allocate, js, 42, 0)
	fmt.Println(a.JobID)
	// An id in use is refused until the job is canceled.
	_, err := m.MatchWithID(gofluxion.Allocate, js, 42, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrExists))
	// Automatic ids continue after the largest id used.
	b, _ := m.Match(gofluxion.Allocate, js, 0)
	fmt.Println(b.JobID)
	// Output:
	// 42
	// true
	// 43
}

func ExampleMatcher_Satisfiable() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(8, 600)), 0)

	// The cluster is full, but eight nodes could be had later; nine never.
	fmt.Println(m.Satisfiable(mustParse(m, wholeNodes(8, 60))))
	err := m.Satisfiable(mustParse(m, wholeNodes(9, 60)))
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable))
	// Output:
	// <nil>
	// true
}

func ExampleMatcher_Cancel() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	all := mustParse(m, wholeNodes(8, 600))
	a, _ := m.Match(gofluxion.Allocate, all, 0)

	fmt.Println(m.Cancel(a.JobID))
	j, _ := m.Info(a.JobID)
	fmt.Println(j.State)
	// The resources are free again.
	b, err := m.Match(gofluxion.Allocate, all, 0)
	fmt.Println(b.JobID, err)
	// A job can be canceled once.
	err = m.Cancel(a.JobID)
	fmt.Println(errors.Is(err, gofluxion.ErrNotFound))
	// Output:
	// <nil>
	// CANCELED
	// 2 <nil>
	// true
}

// rankedCluster builds, in code, a cluster of two nodes (ranks 0 and 1) of
// four cores, the cores carrying their node's rank as well.
func rankedCluster() *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	for n := range int64(2) {
		node := b.MustAdd(c, "node", n, graph.WithRank(n))
		for i := range int64(4) {
			b.MustAdd(node, "core", i, graph.WithRank(n))
		}
	}
	return b.Graph()
}

func ExampleMatcher_PartialCancel() {
	m, _ := gofluxion.New(rankedCluster(), gofluxion.Options{})
	a, _ := m.Match(gofluxion.Allocate, mustParse(m, []byte(`version: 1
resources: [{type: node, count: 2, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 4}]}]}]
attributes: {system: {duration: 600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`)), 0)
	r, _ := a.Render("rlite")
	fmt.Print(r)

	// Release rank 1 (an R as the execution system reports it), then rank 0.
	full, err := m.PartialCancel(a.JobID, []byte(`{"version": 1, "execution": {
	  "R_lite": [{"rank": "1", "children": {"core": "0-3"}}], "nodelist": ["node1"]}}`))
	fmt.Println(full, err)
	full, err = m.PartialCancel(a.JobID, []byte(`{"version": 1, "execution": {
	  "R_lite": [{"rank": "0", "children": {"core": "0-3"}}], "nodelist": ["node0"]}}`))
	fmt.Println(full, err)
	j, _ := m.Info(a.JobID)
	fmt.Println(j.State)
	// Output:
	// [{"rank": "0-1", "children": {"core": "0-3"}}]
	// false <nil>
	// true <nil>
	// CANCELED
}

func ExampleMatcher_Info() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	all := mustParse(m, wholeNodes(8, 600))
	m.Match(gofluxion.Allocate, all, 0)
	m.Match(gofluxion.AllocateOrElseReserve, all, 0)

	for id := uint64(1); id <= 3; id++ {
		j, err := m.Info(id)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(j.ID, j.State, j.Start, j.End)
	}
	// Output:
	// 1 ALLOCATED 0 600
	// 2 RESERVED 600 1200
	// gofluxion: info: no job 3
}

func ExampleMatcher_Jobs() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := mustParse(m, []byte(oneSocket))
	m.MatchWithID(gofluxion.Allocate, js, 7, 0)
	m.MatchWithID(gofluxion.Allocate, js, 3, 0)
	m.Cancel(7)

	for _, j := range m.Jobs() {
		fmt.Println(j.ID, j.State)
	}
	// Output:
	// 3 ALLOCATED
	// 7 CANCELED
}

func ExampleJob() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.Match(gofluxion.AllocateOrElseReserve, mustParse(m, wholeNodes(8, 600)), 100)
	m.Match(gofluxion.AllocateOrElseReserve, mustParse(m, wholeNodes(1, 60)), 100)

	for _, j := range m.Jobs() {
		// Overhead is a wall time: not printed here.
		fmt.Printf("job %d: %v over [%d, %d)\n", j.ID, j.State, j.Start, j.End)
	}
	// Output:
	// job 1: ALLOCATED over [100, 700)
	// job 2: RESERVED over [700, 760)
}

func ExampleJobState() {
	for _, s := range []gofluxion.JobState{gofluxion.Allocated, gofluxion.Reserved, gofluxion.Canceled} {
		fmt.Println(int(s), s)
	}
	// Output:
	// 0 ALLOCATED
	// 1 RESERVED
	// 2 CANCELED
}

func ExampleMatcher_Stat() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := mustParse(m, []byte(oneSocket))
	m.Match(gofluxion.Allocate, js, 0)
	m.Match(gofluxion.Allocate, js, 0)
	m.Cancel(1)

	s := m.Stat()
	// MinMatch, MaxMatch and AvgMatch are wall times: not printed here.
	fmt.Println(s.Vertices, s.Edges, s.Jobs, s.Matched)
	// Output:
	// 363 362 1 2
}

func ExampleMatcher_FindAt() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(2, 600)), 0)
	m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(1, 1200)), 0)

	// With agfilter=true, find reports the pruning filters' usage at the
	// given time (Find uses the current time). The first vertex listed is
	// rack0.
	usage := regexp.MustCompile(`"agfilter": {[^}]*}`)
	for _, at := range []int64{0, 700} {
		out, _ := m.FindAt("agfilter=true and names=rack0", "jgf", at)
		fmt.Println(at, usage.FindString(out))
	}
	// Output:
	// 0 "agfilter": {"core": "used:96, total:128", "node": "used:3, total:4"}
	// 700 "agfilter": {"core": "used:32, total:128", "node": "used:1, total:4"}
}

func ExampleMatcher_SetStatus() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	eight := mustParse(m, wholeNodes(8, 60))

	fmt.Println(m.SetStatus("/demo0/rack1/node7", false))
	// A down node is not allocated.
	_, err := m.Match(gofluxion.Allocate, eight, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrBusy))

	m.SetStatus("/demo0/rack1/node7", true)
	_, err = m.Match(gofluxion.Allocate, eight, 0)
	fmt.Println(err)
	// Output:
	// <nil>
	// true
	// <nil>
}

func ExampleMatcher_Status() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.SetStatus("/demo0/rack0/node3", false)

	fmt.Println(m.Status("/demo0/rack0/node3"))
	fmt.Println(m.Status("/demo0/rack0/node2"))
	// The vertex's own status: below a down node it may read up, although
	// nothing there is allocated.
	fmt.Println(m.Status("/demo0/rack0/node3/socket0"))
	_, err := m.Status("/demo0/rack9")
	fmt.Println(errors.Is(err, gofluxion.ErrNotFound))
	// Output:
	// false <nil>
	// true <nil>
	// true <nil>
	// true
}

func ExampleMatcher_SetRankStatus() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})

	fmt.Println(m.SetRankStatus("0-2,5", false))
	fmt.Println(m.Status("/demo0/rack1/node5"))
	fmt.Println(m.SetRankStatus("all", true))
	fmt.Println(m.Status("/demo0/rack1/node5"))
	// Output:
	// <nil>
	// false <nil>
	// <nil>
	// true <nil>
}

func ExampleMatcher_RankStatus() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.SetRankStatus("4", false)

	for _, r := range []int64{3, 4, 99} {
		up, err := m.RankStatus(r)
		fmt.Println(r, up, err)
	}
	// Output:
	// 3 true <nil>
	// 4 false <nil>
	// 99 false gofluxion: rank status: no node vertex at rank 99
}

// node8 is a JGF subgraph: a ninth node (rank 8) with one socket of two
// cores, under the demo cluster's existing rack0. The cluster and rack are
// listed with their paths and ranks so that they are reused.
const node8 = `{"graph": {"nodes": [
  {"id": "0", "metadata": {"type": "cluster", "basename": "demo", "id": 0, "rank": -1, "paths": {"containment": "/demo0"}}},
  {"id": "1", "metadata": {"type": "rack", "id": 0, "rank": -1, "paths": {"containment": "/demo0/rack0"}}},
  {"id": "1000", "metadata": {"type": "node", "id": 8, "rank": 8, "paths": {"containment": "/demo0/rack0/node8"}}},
  {"id": "1001", "metadata": {"type": "socket", "id": 0, "rank": 8, "paths": {"containment": "/demo0/rack0/node8/socket0"}}},
  {"id": "1002", "metadata": {"type": "core", "id": 0, "rank": 8, "paths": {"containment": "/demo0/rack0/node8/socket0/core0"}}},
  {"id": "1003", "metadata": {"type": "core", "id": 1, "rank": 8, "paths": {"containment": "/demo0/rack0/node8/socket0/core1"}}}],
 "edges": [{"source": "1", "target": "1000"}, {"source": "1000", "target": "1001"},
           {"source": "1001", "target": "1002"}, {"source": "1001", "target": "1003"}]}}`

func ExampleMatcher_Attach() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	nine := mustParse(m, []byte(`version: 1
resources: [{type: node, count: 9, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 2}]}]}]}]
attributes: {system: {duration: 60}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	fmt.Println(errors.Is(m.Satisfiable(nine), gofluxion.ErrUnsatisfiable))

	if err := m.Attach([]byte(node8)); err != nil {
		panic(err)
	}
	fmt.Println(m.Stat().Vertices)
	fmt.Println(m.Satisfiable(nine))
	out, _ := m.Find("names=node8", "simple")
	fmt.Print(out)
	// Output:
	// true
	// 367
	// <nil>
	//       ---------node8[1:x]
	//       ------rack0[1:x]
	//       ---demo0[1:x]
}

func ExampleMatcher_Remove() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	four := mustParse(m, wholeNodes(4, 60))

	fmt.Println(m.Remove("/demo0/rack1"))
	fmt.Println(m.Satisfiable(four))
	err := m.Satisfiable(mustParse(m, wholeNodes(5, 60)))
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable))
	out, _ := m.Find("names=rack1", "simple")
	fmt.Printf("%q\n", out)
	// Output:
	// <nil>
	// <nil>
	// true
	// ""
}

// Removing resources a job holds releases them; a job left holding
// nothing ends.
func ExampleMatcher_Remove_jobs() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	a, _ := m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(1, 60)), 0)
	b, _ := m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(2, 60)), 0)
	fmt.Println(a.Nodes(), b.Nodes())

	fmt.Println(m.Remove("/demo0/rack0/node0"), m.Remove("/demo0/rack0/node1"))
	for _, j := range m.Jobs() {
		fmt.Println(j.ID, j.State)
	}
	out, _ := m.Find(fmt.Sprintf("jobid-alloc=%d", b.JobID), "rlite")
	fmt.Print(out)
	// Output:
	// [node0] [node1 node2]
	// <nil> <nil>
	// 1 CANCELED
	// 2 ALLOCATED
	// [{"rank": "2", "children": {"core": "0-31", "gpu": "0-1"}}]
}

func ExampleMatcher_RemoveRanks() {
	m, _ := gofluxion.New(rankedCluster(), gofluxion.Options{Policy: "low"})
	a, _ := m.Match(gofluxion.Allocate, mustParse(m, []byte(`version: 1
resources: [{type: node, count: 2, with: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]}]
attributes: {system: {duration: 600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`)), 0)

	// Rank 1 goes away: what the job held there is released.
	fmt.Println(m.RemoveRanks("1"))
	out, _ := m.Find(fmt.Sprintf("jobid-alloc=%d", a.JobID), "rlite")
	fmt.Print(out)
	_, err := m.RankStatus(1)
	fmt.Println(errors.Is(err, gofluxion.ErrNotFound))
	// Output:
	// <nil>
	// [{"rank": "0", "children": {"core": "0"}}]
	// true
}

func ExampleMatcher_Clone() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(6, 600)), 0)

	// What if a 4-node job came now? Ask a copy.
	whatIf := m.Clone()
	a, _ := whatIf.Match(gofluxion.AllocateOrElseReserve, mustParse(whatIf, wholeNodes(4, 60)), 0)
	fmt.Println(a.Reserved, a.Start)
	// The original is untouched.
	fmt.Println(len(m.Jobs()), len(whatIf.Jobs()))
	// Output:
	// true 600
	// 1 2
}

func ExampleRestore() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	m.Match(gofluxion.Allocate, mustParse(m, []byte(oneSocket)), 0)
	var saved bytes.Buffer
	m.Snapshot(&saved)

	restored, err := gofluxion.Restore(&saved)
	if err != nil {
		panic(err)
	}
	fmt.Println(restored.Jobs()[0].ID, restored.Jobs()[0].State)

	_, err = gofluxion.Restore(strings.NewReader("not a snapshot"))
	fmt.Println(errors.Is(err, gofluxion.ErrSnapshot))
	// Output:
	// 1 ALLOCATED
	// true
}

func ExampleMatcher_RestoreFrom() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := mustParse(m, []byte(oneSocket))
	m.Match(gofluxion.Allocate, js, 0)
	var saved bytes.Buffer
	m.Snapshot(&saved)

	// Later changes are rolled back.
	m.Match(gofluxion.Allocate, js, 0)
	m.Match(gofluxion.Allocate, js, 0)
	if err := m.RestoreFrom(&saved); err != nil {
		panic(err)
	}
	fmt.Println(len(m.Jobs()))
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	fmt.Println(a.JobID)
	// Output:
	// 1
	// 2
}

func ExampleMatcher_Graph() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	g := m.Graph()
	root := g.V(g.Root(graph.Containment))
	fmt.Println(root.Name, len(g.ByRank(5)))
	// Output:
	// demo0 1
}

func ExampleAllocation_Render() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	js := mustParse(m, []byte(`version: 1
resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 2}, {type: gpu, count: 1}]}]}]}]
attributes: {system: {duration: 60}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	for _, format := range []string{"simple", "rlite", "rv1_nosched"} {
		out, _ := a.Render(format)
		fmt.Print(out)
	}
	_, err := a.Render("yaml")
	fmt.Println(err != nil)
	// Output:
	//       ---------------core0[1:x]
	//       ---------------core1[1:x]
	//       ---------------gpu0[1:x]
	//       ------------socket0[1:x]
	//       ---------node0[1:s]
	//       ------rack0[1:s]
	//       ---demo0[1:s]
	// [{"rank": "0", "children": {"core": "0-1", "gpu": "0"}}]
	// {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-1", "gpu": "0"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 60}}
	// true
}

func ExampleAllocation_String() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low", Format: "rv1_nosched"})
	a, _ := m.Match(gofluxion.Allocate, mustParse(m, []byte(oneSocket)), 0)
	fmt.Println(a)
	// Output:
	// {"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-3"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 3600}}
}

func ExampleAllocation_resources() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	js := mustParse(m, []byte(`version: 1
resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 2}, {type: memory, count: 20}]}]}]}]
attributes: {system: {duration: 60}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	// Children come before their parent. Units is what was taken of a
	// pool: everything in a slot is exclusive, so 20 GB take two whole
	// 16 GB pools. In the demo graph only nodes have a rank.
	for _, r := range a.Resources {
		fmt.Println(r.Path, r.Type, r.Rank, r.Units, r.Exclusive)
	}
	// Output:
	// /demo0/rack0/node0/socket0/core0 core -1 1 true
	// /demo0/rack0/node0/socket0/core1 core -1 1 true
	// /demo0/rack0/node0/socket0/memory0 memory -1 16 true
	// /demo0/rack0/node0/socket0/memory1 memory -1 16 true
	// /demo0/rack0/node0/socket0 socket -1 1 true
	// /demo0/rack0/node0 node 0 1 false
	// /demo0/rack0 rack -1 1 false
	// /demo0 cluster -1 1 false
}

func ExampleExplanation() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(5, 600)), 0)

	e, _ := m.Explain(mustParse(m, wholeNodes(4, 60)), 0)
	fmt.Println(e.FitsNow, e.Satisfiable)
	fmt.Println(e.Reason())
	// Output:
	// false true
	// needs 4 node (with 2 socket each): 3 found now, 8 when free
}

func ExampleExplanation_Reason() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	// Each demo socket has one gpu: two gpus in one slot never fit a
	// socket, however many nodes are free.
	js := mustParse(m, []byte(`version: 1
resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: gpu, count: 2}]}]}]}]
attributes: {system: {duration: 60}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	e, _ := m.Explain(js, 0)
	fmt.Println(e.Reason())

	// Nothing to say when the request fits now.
	e, _ = m.Explain(mustParse(m, []byte(oneSocket)), 0)
	fmt.Printf("%q\n", e.Reason())
	// Output:
	// needs 1 node (with 1 socket, 2 gpu each): 0 found now, none even when free; needs 2 gpu: 1 found now, only 1 exist
	// ""
}

func ExampleExplanation_levels() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "low"})
	m.Match(gofluxion.Allocate, mustParse(m, wholeNodes(5, 600)), 0)

	e, _ := m.Explain(mustParse(m, wholeNodes(4, 60)), 0)
	for _, l := range e.Levels {
		fmt.Printf("%-25s needs %d, %d now, %d when free: %q\n", l.Path, l.Needed, l.FoundNow, l.FoundFree, l.Cause())
	}
	// Output:
	// node[4]                   needs 4, 3 now, 8 when free: "busy"
	// node[4]/slot[1]           needs 1, 1 now, 1 when free: ""
	// node[4]/slot[1]/socket[2] needs 2, 2 now, 2 when free: ""
}
