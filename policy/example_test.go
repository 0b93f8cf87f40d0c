package policy_test

import (
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/policy"
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
