package policy_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/policy"
	"github.com/gofluxion/gofluxion/rv1"
)

func ExampleNew() {
	p, err := policy.New("hinode")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name(), p.VertexOrder() == policy.Greater, p.StopOnFirstMatch(), p.ExclusiveTypes())

	p, _ = policy.New("firstnodex")
	fmt.Println(p.Name(), p.VertexOrder() == policy.Greater, p.StopOnFirstMatch(), p.ExclusiveTypes())

	// A custom option string.
	p, _ = policy.New("policy=low node_exclusive=true")
	fmt.Println(p.Name(), p.VertexOrder() == policy.Less, p.ExclusiveTypes())

	// No policy= key: no policy.
	_, err = policy.New("node_centric=true")
	fmt.Println(errors.Is(err, policy.ErrInvalid))

	fmt.Println(policy.Names())
	// Output:
	// hinode true false []
	// firstnodex true true [node]
	// policy=low node_exclusive=true true [node]
	// true
	// [first firstnodex high low lonode hinode lonodex hinodex locality variation]
}

func ExampleParseOptions() {
	for _, s := range []string{
		"policy=high node_centric=true",
		"policy=low foo=bar",                               // stops at foo, keeps policy=low
		"policy=high  node_centric=true",                   // the empty token stops parsing
		"policy=medium",                                    // invalid value
		"stop_on_1_matches=true",                           // no policy= key
		"policy=high node_centric=true node_centric=false", // repeated false stops
	} {
		o, ok, err := policy.ParseOptions(s)
		fmt.Printf("%-52q ok=%-5v high=%-5v low=%-5v nc=%-5v stop=%-5v err=%v\n",
			s, ok, o.High, o.Low, o.NodeCentric, o.StopOn1Matches, err != nil)
	}
	// Output:
	// "policy=high node_centric=true"                      ok=true  high=true  low=false nc=true  stop=false err=false
	// "policy=low foo=bar"                                 ok=true  high=false low=true  nc=false stop=false err=true
	// "policy=high  node_centric=true"                     ok=true  high=true  low=false nc=false stop=false err=true
	// "policy=medium"                                      ok=false high=false low=false nc=false stop=false err=true
	// "stop_on_1_matches=true"                             ok=false high=false low=false nc=false stop=true  err=false
	// "policy=high node_centric=true node_centric=false"   ok=true  high=true  low=false nc=true  stop=false err=true
}

// Scores as the matcher computes them: Discover on the way down, Finish on
// the way up. With node_centric a core scores id+2 plus its node's factor.
func ExamplePolicy_scores() {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	n1 := b.MustAdd(c, "node", 1)    // uniq_id 1
	core := b.MustAdd(n1, "core", 5) // uniq_id 2
	g := b.Graph()

	for _, name := range []string{"high", "hinode"} {
		p, _ := policy.New(name)
		p.Discover(g, c)
		p.Discover(g, n1)
		p.Discover(g, core)
		coreScore := p.Finish(g, core, true)
		nodeScore := p.Finish(g, n1, true)
		fmt.Println(name, coreScore, nodeScore)
		p.FinishGraph()
	}
	// hinode: node factor (1+2)*10000 + |1 mod 10000 - 1| = 30000.
	// Output:
	// high 7 3
	// hinode 30007 3
}

func ExamplePerfClass() {
	var classes []int64
	for _, s := range []string{"2abc", "+1", "0x10", "3.7", "abc", "10000", "-6666"} {
		classes = append(classes, policy.PerfClass(s))
	}
	fmt.Println(classes)
	// Output:
	// [2 1 0 3 9999 9999 9999]
}

// ---------------------------------------------------------------------------
// The effect of each policy family on a tiny graph built in code.

// twoNodes is cluster0 → node0 (core0-core3), node1 (core0-core1): the node
// with the highest core id is not the node with the highest id.
func twoNodes() *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	n0 := b.MustAdd(c, "node", 0)
	n1 := b.MustAdd(c, "node", 1)
	for i := range 4 {
		b.MustAdd(n0, "core", int64(i))
	}
	for i := range 2 {
		b.MustAdd(n1, "core", int64(i))
	}
	return b.Graph()
}

// oneCore asks for one core in a slot (jobspec A of the benchmarks).
const oneCore = `version: 1
resources:
  - type: slot
    count: 1
    label: default
    with:
      - type: core
        count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

// nodeCore asks for one core in a slot on one node.
const nodeCore = `version: 1
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

// allocate matches yaml on g under the policy as job 1 and returns the
// simple writer's rendering (children first, the root last).
func allocate(g *graph.Graph, pol, yaml string) string {
	m, err := match.New(g, match.Options{Policy: pol})
	if err != nil {
		return err.Error()
	}
	return allocateOn(m, yaml, 1, emit.NewSimple())
}

func allocateOn(m *match.Matcher, yaml string, job uint64, w emit.Writer) string {
	g := m.Graph()
	js, err := jobspec.Parse([]byte(yaml), jobspec.Options{KnownType: func(t string) bool {
		_, ok := g.Types.Lookup(t)
		return ok
	}})
	if err != nil {
		return err.Error()
	}
	if _, err := m.Match(match.Allocate, js, job, 0, w); err != nil {
		return err.Error()
	}
	out, err := w.Render()
	if err != nil {
		return err.Error()
	}
	return out
}

// high prefers the highest ids at every level: the core with the highest
// id in the whole graph, on node0.
func ExampleNew_high() {
	fmt.Print(allocate(twoNodes(), "high", oneCore))
	// Output:
	//       ---------core3[1:x]
	//       ------node0[1:s]
	//       ---cluster0[1:s]
}

// low prefers the lowest ids: core0, and among the two core0 the first one
// in traversal order (node0).
func ExampleNew_low() {
	fmt.Print(allocate(twoNodes(), "low", oneCore))
	// Output:
	//       ---------core0[1:x]
	//       ------node0[1:s]
	//       ---cluster0[1:s]
}

// hinode (node-centric high) ranks candidates by their node first: node1,
// the node with the highest id, wins although node0 has higher core ids.
// lonode picks the lowest node, then its lowest core.
func ExampleNew_hinode() {
	fmt.Print(allocate(twoNodes(), "hinode", oneCore))
	fmt.Print(allocate(twoNodes(), "lonode", oneCore))
	// Output:
	//       ---------core1[1:x]
	//       ------node1[1:s]
	//       ---cluster0[1:s]
	//       ---------core0[1:x]
	//       ------node0[1:s]
	//       ---cluster0[1:s]
}

// hinodex is hinode with whole nodes: a one-core job takes all of node1,
// exclusively.
func ExampleNew_hinodex() {
	fmt.Print(allocate(twoNodes(), "hinodex", oneCore))
	// Output:
	//       ---------core0[1:x]
	//       ---------core1[1:x]
	//       ------node1[1:x]
	//       ---cluster0[1:s]
}

// first (high, node-centric, stop at the first match) explores children
// in a dynamic order and stops as soon as the request is met. Untouched
// subtrees come first (highest uniq_id first); a subtree a job was
// allocated in then ranks by its free cores. So job 1 takes node1's
// highest core, and jobs 2 and 3 go to node0, untouched then with more
// free cores than node1.
func ExampleNew_first() {
	m, _ := match.New(twoNodes(), match.Options{Policy: "first"})
	for job := uint64(1); job <= 3; job++ {
		fmt.Print(allocateOn(m, oneCore, job, emit.NewSimple()))
	}
	// Output:
	//       ---------core1[1:x]
	//       ------node1[1:s]
	//       ---cluster0[1:s]
	//       ---------core3[1:x]
	//       ------node0[1:s]
	//       ---cluster0[1:s]
	//       ---------core2[1:x]
	//       ------node0[1:s]
	//       ---cluster0[1:s]
}

// locality groups the root-level candidates' scores (id + 2 for nodes) into
// blocks of consecutive values and prefers the highest block. Of eight
// nodes with node2 and node5 down, the up nodes form the blocks
// {node0,node1}, {node3,node4} and {node6,node7}: a three-node job gets
// node6 and node7, then node3 (its block ties with node4; node3 comes first
// in traversal order), where high takes the three highest ids. Shown as
// rlite, whose ranks are the node numbers.
func ExampleNew_locality() {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	for i := range 8 {
		b.MustAdd(b.MustAdd(c, "node", int64(i)), "core", 0)
	}
	g := b.Graph()
	threeNodes := strings.Replace(nodeCore, "count: 1", "count: 3", 1)
	for _, pol := range []string{"locality", "high"} {
		m, _ := match.New(g.Clone(), match.Options{Policy: pol})
		m.SetStatus("/cluster0/node2", graph.StatusDown)
		m.SetStatus("/cluster0/node5", graph.StatusDown)
		fmt.Print(pol, " ", allocateOn(m, threeNodes, 1, rv1.NewWriter(rv1.RLite)))
	}
	// Output:
	// locality [{"rank": "3,6-7", "children": {"core": "0"}}]
	// high [{"rank": "4,6-7", "children": {"core": "0"}}]
}

// variation prefers the vertices with the lowest perf_class property
// (missing or unparsable: 9999); ids play no role. Here nodes of classes 2,
// 0 and 1 with one core each get node[1] jobs in the order node1, node2,
// node0 (rlite ranks are the node numbers). A slot asked for at the top
// level would be scored by its cores instead, which have no class.
func ExampleNew_variation() {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	for i, class := range []string{"2", "0", "1"} {
		b.MustAdd(b.MustAdd(c, "node", int64(i), graph.WithProperty("perf_class", class)), "core", 0)
	}
	g := b.Graph()
	m, _ := match.New(g, match.Options{Policy: "variation"})
	for job := uint64(1); job <= 3; job++ {
		fmt.Print(allocateOn(m, nodeCore, job, rv1.NewWriter(rv1.RLite)))
	}
	// Output:
	// [{"rank": "1", "children": {"core": "0"}}]
	// [{"rank": "2", "children": {"core": "0"}}]
	// [{"rank": "0", "children": {"core": "0"}}]
}

// A custom option string combines the id-based options: low ids, whole
// nodes.
func ExampleNew_custom() {
	fmt.Print(allocate(twoNodes(), "policy=low node_exclusive=true", oneCore))
	// Output:
	//       ---------core0[1:x]
	//       ---------core1[1:x]
	//       ---------core2[1:x]
	//       ---------core3[1:x]
	//       ------node0[1:x]
	//       ---cluster0[1:s]
}
