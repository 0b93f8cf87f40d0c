package policy_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/policy"
)

// scoreGraph is a cluster (uniq 0) with node vertices of the given ids and
// uniq_ids, each holding one core of id 5.
type scoreGraph struct {
	g     *graph.Graph
	root  graph.VertexID
	nodes []graph.VertexID
	cores []graph.VertexID
}

func newScoreGraph(nodes ...[2]int64) *scoreGraph {
	g := graph.New()
	sg := &scoreGraph{g: g}
	sg.root = g.AddVertex(graph.Vertex{Type: graph.TypeCluster, ID: 0, UniqID: 0, Size: 1, Name: "c0"})
	for i, n := range nodes {
		v := g.AddVertex(graph.Vertex{Type: graph.TypeNode, ID: n[0], UniqID: n[1], Size: 1, Name: "n"})
		c := g.AddVertex(graph.Vertex{Type: graph.TypeCore, ID: 5, UniqID: int64(1000000 + i), Size: 1, Name: "core5"})
		g.AddEdge(sg.root, v, graph.Containment)
		g.AddEdge(v, c, graph.Containment)
		sg.nodes = append(sg.nodes, v)
		sg.cores = append(sg.cores, c)
	}
	return sg
}

// walk scores the core and the node of node i the way the matcher does
// (discover root, node, core; finish core, node) and returns both scores.
func (sg *scoreGraph) walk(t *testing.T, p policy.Policy, i int) (core, node int64) {
	t.Helper()
	for _, v := range []graph.VertexID{sg.nodes[i], sg.cores[i]} {
		if err := p.Discover(sg.g, v); err != nil {
			t.Fatalf("Discover(%d): %v", v, err)
		}
	}
	core = p.Finish(sg.g, sg.cores[i], true)
	node = p.Finish(sg.g, sg.nodes[i], true)
	return core, node
}

func TestBuiltins(t *testing.T) {
	tests := []struct {
		name        string
		order       policy.Order
		stop        bool
		excl        []string
		nodeCentric bool
	}{
		{"first", policy.Greater, true, nil, true},
		{"firstnodex", policy.Greater, true, []string{"node"}, true},
		{"high", policy.Greater, false, nil, false},
		{"low", policy.Less, false, nil, false},
		{"lonode", policy.Less, false, nil, true},
		{"hinode", policy.Greater, false, nil, true},
		{"lonodex", policy.Less, false, []string{"node"}, true},
		{"hinodex", policy.Greater, false, []string{"node"}, true},
		{"locality", policy.Greater, false, nil, false},
		{"variation", policy.Less, false, nil, false},
	}
	if got := policy.Names(); len(got) != len(tests) {
		t.Fatalf("Names() = %v", got)
	}
	for i, tc := range tests {
		if policy.Names()[i] != tc.name {
			t.Errorf("Names()[%d] = %s, want %s", i, policy.Names()[i], tc.name)
		}
		p, err := policy.New(tc.name)
		if err != nil {
			t.Fatalf("New(%s): %v", tc.name, err)
		}
		if p.Name() != tc.name {
			t.Errorf("%s: Name() = %s", tc.name, p.Name())
		}
		if p.VertexOrder() != tc.order {
			t.Errorf("%s: VertexOrder = %v", tc.name, p.VertexOrder())
		}
		if p.StopOnFirstMatch() != tc.stop {
			t.Errorf("%s: StopOnFirstMatch = %v", tc.name, p.StopOnFirstMatch())
		}
		if !slices.Equal(p.ExclusiveTypes(), tc.excl) {
			t.Errorf("%s: ExclusiveTypes = %v", tc.name, p.ExclusiveTypes())
		}
		// Node factor: a core of id 5 under node id 1, uniq 3 scores 7, or
		// 7 + (1+2)*10000 + |3-1| with node_centric.
		sg := newScoreGraph([2]int64{1, 3})
		core, node := sg.walk(t, p, 0)
		wantCore, wantNode := int64(7), int64(3)
		if tc.nodeCentric {
			wantCore += 30002
		}
		if tc.name == "variation" {
			wantCore, wantNode = 10000, 10000
		}
		if core != wantCore || node != wantNode {
			t.Errorf("%s: scores core=%d node=%d, want %d %d", tc.name, core, node, wantCore, wantNode)
		}
		// Slot and graph orders of the id-based family equal the vertex
		// order.
		if tc.name != "locality" && tc.name != "variation" {
			if p.SlotOrder() != tc.order || p.GraphOrder([]int64{1, 2}) != tc.order {
				t.Errorf("%s: slot/graph orders differ from the vertex order", tc.name)
			}
		}
	}
}

func TestOrders(t *testing.T) {
	tests := []struct {
		o    policy.Order
		a, b int64
		want bool
	}{
		{policy.Greater, 2, 1, true}, {policy.Greater, 1, 2, false}, {policy.Greater, 1, 1, false},
		{policy.Less, 1, 2, true}, {policy.Less, 2, 1, false}, {policy.Less, 1, 1, false},
		{policy.Greater, math.MaxInt64, math.MinInt64, true},
	}
	for _, tc := range tests {
		if got := tc.o.Before(tc.a, tc.b); got != tc.want {
			t.Errorf("%T.Before(%d, %d) = %v", tc.o, tc.a, tc.b, got)
		}
	}
}

func TestParseOptions(t *testing.T) {
	type opts = policy.Options
	tests := []struct {
		s       string
		want    opts
		ok      bool
		errText string // substring of the error, "" for no error
	}{
		{"policy=high", opts{High: true}, true, ""},
		{"policy=low", opts{Low: true}, true, ""},
		{"policy=high node_centric=true node_exclusive=true stop_on_1_matches=true",
			opts{High: true, NodeCentric: true, NodeExclusive: true, StopOn1Matches: true}, true, ""},
		{"policy=low node_centric=false", opts{Low: true}, true, ""},
		// Unknown key: stops, keeps what came before.
		{"policy=low foo=bar", opts{Low: true}, true, "invalid policy option: foo"},
		{"foo=bar policy=low", opts{}, false, "invalid policy option: foo"},
		{"policy=medium", opts{}, false, "accepts only low or high"},
		{"policy=high policy=medium", opts{High: true}, true, "accepts only low or high"},
		{"policy=high node_centric=yes", opts{High: true}, true, "Policy option node_centric requires true or false, got yes"},
		// A double space makes an empty token, which stops parsing.
		{"policy=high  node_centric=true", opts{High: true}, true, "policy"},
		// Repeated keys keep their first value; a repeated false stops.
		{"policy=high node_centric=true node_centric=true", opts{High: true, NodeCentric: true}, true, ""},
		{"policy=high node_centric=false node_centric=true", opts{High: true}, true, ""},
		{"policy=high node_centric=true node_centric=false node_exclusive=true", opts{High: true, NodeCentric: true}, true, "node_centric"},
		{"policy=high policy=high", opts{High: true}, true, ""},
		// policy=high and policy=low are separate keys.
		{"policy=high policy=low", opts{High: true, Low: true}, true, ""},
		{"stop_on_1_matches=true policy=low", opts{Low: true, StopOn1Matches: true}, true, ""},
		// No policy key.
		{"node_centric=true", opts{NodeCentric: true}, false, ""},
		{"", opts{}, false, "policy"},
		{"policy", opts{}, false, "policy"},
		// Several '=': the second field is the value.
		{"policy=low=x", opts{Low: true}, true, ""},
		{"policy=high node_exclusive=true=false", opts{High: true, NodeExclusive: true}, true, ""},
		// Trailing space: an empty last token.
		{"policy=low ", opts{Low: true}, true, "policy"},
	}
	for _, tc := range tests {
		o, ok, err := policy.ParseOptions(tc.s)
		if o != tc.want || ok != tc.ok {
			t.Errorf("ParseOptions(%q) = %+v ok=%v, want %+v ok=%v", tc.s, o, ok, tc.want, tc.ok)
		}
		switch {
		case tc.errText == "" && err != nil:
			t.Errorf("ParseOptions(%q): unexpected error %v", tc.s, err)
		case tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)):
			t.Errorf("ParseOptions(%q): error %v, want one containing %q", tc.s, err, tc.errText)
		case err != nil && !errors.Is(err, policy.ErrInvalid):
			t.Errorf("ParseOptions(%q): error %v does not wrap ErrInvalid", tc.s, err)
		}
	}
}

// TestNewCustom checks the behaviours of spec policies.md §3 that
// resource-query shows: which strings create a policy, and which policy.
func TestNewCustom(t *testing.T) {
	tests := []struct {
		s      string
		ok     bool
		order  policy.Order
		stop   bool
		excl   bool
		factor bool
	}{
		{"policy=low foo=bar", true, policy.Less, false, false, false},
		{"policy=high node_centric=yes", true, policy.Greater, false, false, false},
		{"policy=high  node_centric=true", true, policy.Greater, false, false, false},
		{"policy=high policy=low", true, policy.Greater, false, false, false},
		{"policy=low policy=high", true, policy.Greater, false, false, false},
		{"stop_on_1_matches=true policy=low", true, policy.Less, true, false, false},
		{"policy=low node_centric=true node_exclusive=true", true, policy.Less, false, true, true},
		{"node_centric=true", false, nil, false, false, false},
		{"policy=medium", false, nil, false, false, false},
		{"policy", false, nil, false, false, false},
		{"", false, nil, false, false, false},
		{"High", false, nil, false, false, false},
	}
	for _, tc := range tests {
		p, err := policy.New(tc.s)
		if !tc.ok {
			if err == nil || p != nil {
				t.Errorf("New(%q) = %v, %v; want an error", tc.s, p, err)
			} else if !errors.Is(err, policy.ErrInvalid) {
				t.Errorf("New(%q): %v does not wrap ErrInvalid", tc.s, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%q): %v", tc.s, err)
			continue
		}
		if p.Name() != tc.s || p.VertexOrder() != tc.order || p.StopOnFirstMatch() != tc.stop || (len(p.ExclusiveTypes()) > 0) != tc.excl {
			t.Errorf("New(%q) = name %q order %T stop %v excl %v", tc.s, p.Name(), p.VertexOrder(), p.StopOnFirstMatch(), p.ExclusiveTypes())
		}
		sg := newScoreGraph([2]int64{0, 0})
		core, _ := sg.walk(t, p, 0)
		if (core != 7) != tc.factor {
			t.Errorf("New(%q): core score %d, node factor expected %v", tc.s, core, tc.factor)
		}
	}
}

func TestNodeFactor(t *testing.T) {
	tests := []struct {
		id, uniq int64
		want     int64 // factor f
	}{
		{0, 0, 20000 + 1},     // |0 mod 10000 - 1| = 1
		{0, 1, 20000 + 0},     // |1 - 1| = 0
		{1, 3, 30000 + 2},     // node1 of tiny.graphml
		{7, 9, 90000 + 8},     // node7 of small.graphml
		{-1, 5, 10000 + 4},    // no id
		{3, 10000, 50000 + 1}, // uniq mod 10000 = 0
		{3, 10005, 50000 + 4}, // uniq mod 10000 = 5
		{2, 123456, 40000 + 3455},
	}
	for _, tc := range tests {
		p, _ := policy.New("hinode")
		sg := newScoreGraph([2]int64{tc.id, tc.uniq})
		core, node := sg.walk(t, p, 0)
		if core != tc.want+7 {
			t.Errorf("node id=%d uniq=%d: core score %d, want %d", tc.id, tc.uniq, core, tc.want+7)
		}
		// The node's own factor is removed before it is scored.
		if node != tc.id+2 {
			t.Errorf("node id=%d uniq=%d: node score %d, want %d", tc.id, tc.uniq, node, tc.id+2)
		}
	}
}

func TestNodeFactorErrors(t *testing.T) {
	tests := []struct {
		id, uniq int64
	}{
		{-2, 0},
		{math.MinInt64, 0},
		{math.MaxInt64, 0},
		{math.MaxInt64 - 1, 0},
		{math.MaxInt64 / 10000, 0}, // (id+2)*10000 overflows
	}
	for _, tc := range tests {
		p, _ := policy.New("lonode")
		sg := newScoreGraph([2]int64{tc.id, tc.uniq})
		if err := p.Discover(sg.g, sg.nodes[0]); err == nil {
			t.Errorf("Discover(node id=%d) succeeded", tc.id)
		}
		// A plain policy has no factor and never fails.
		q, _ := policy.New("low")
		if err := q.Discover(sg.g, sg.nodes[0]); err != nil {
			t.Errorf("low: Discover(node id=%d): %v", tc.id, err)
		}
	}
	p, _ := policy.New("hinode")
	sg := newScoreGraph([2]int64{-2, 0})
	if err := p.Discover(sg.g, sg.nodes[0]); !errors.Is(err, policy.ErrInvalid) {
		t.Errorf("id -2: %v, want ErrInvalid", err)
	}
}

// TestNodeFactorRunningSum walks two nodes in turn (as the matcher does):
// each core gets only its own node's factor; an unmet node still removes
// its factor.
func TestNodeFactorRunningSum(t *testing.T) {
	p, _ := policy.New("hinode")
	sg := newScoreGraph([2]int64{0, 2}, [2]int64{1, 3})
	if err := p.Discover(sg.g, sg.root); err != nil {
		t.Fatal(err)
	}
	c0, n0 := sg.walk(t, p, 0)
	c1, n1 := sg.walk(t, p, 1)
	if c0 != 20001+7 || n0 != 2 || c1 != 30002+7 || n1 != 3 {
		t.Errorf("scores %d %d %d %d", c0, n0, c1, n1)
	}
	// Unmet node: score 0, factor still removed.
	p.Discover(sg.g, sg.nodes[0])
	p.Discover(sg.g, sg.cores[0])
	if s := p.Finish(sg.g, sg.cores[0], false); s != 0 {
		t.Errorf("unmet core score %d", s)
	}
	if s := p.Finish(sg.g, sg.nodes[0], false); s != 0 {
		t.Errorf("unmet node score %d", s)
	}
	if s := p.Finish(sg.g, sg.root, true); s != 2 {
		t.Errorf("root score %d, want 2 (no factor left over)", s)
	}
	// FinishGraph resets a sum left over by an interrupted walk.
	p.Discover(sg.g, sg.nodes[1])
	p.FinishGraph()
	if s := p.Finish(sg.g, sg.cores[0], true); s != 7 {
		t.Errorf("core score after FinishGraph %d, want 7", s)
	}
}

func TestLocalityRuns(t *testing.T) {
	type cmp struct {
		a, b int64
		want bool
	}
	tests := []struct {
		name   string
		calls  [][]int64 // successive GraphOrder calls of one match
		checks []cmp
	}{
		{"P1 gaps", [][]int64{{2, 3, 5, 6, 8, 9}}, []cmp{
			{8, 5, true}, {9, 2, true}, {5, 3, true}, {5, 9, false},
			{8, 9, false}, {9, 8, false}, {5, 6, false}, {6, 5, false}, {2, 3, false},
		}},
		{"single run", [][]int64{{38, 3, 20, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
			21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37}},
			[]cmp{{38, 3, false}, {3, 38, false}, {20, 21, false}}},
		{"duplicates", [][]int64{{5, 5, 6, 1}}, []cmp{{5, 1, true}, {6, 5, false}, {1, 6, false}}},
		{"accumulates", [][]int64{{2}, {4}, {3}, {10}}, []cmp{
			{2, 4, false}, {4, 2, false}, {10, 4, true}, {3, 10, false},
		}},
		{"unordered", [][]int64{{9, 1, 8, 2}}, []cmp{{8, 9, false}, {2, 1, false}, {1, 9, false}, {9, 2, true}}},
	}
	for _, tc := range tests {
		p, _ := policy.New("locality")
		var o policy.Order
		for _, c := range tc.calls {
			o = p.GraphOrder(c)
		}
		for _, c := range tc.checks {
			if got := o.Before(c.a, c.b); got != c.want {
				t.Errorf("%s: Before(%d, %d) = %v", tc.name, c.a, c.b, got)
			}
		}
		p.FinishGraph()
		// After FinishGraph the runs start afresh.
		o = p.GraphOrder([]int64{2, 9})
		if !o.Before(9, 2) || o.Before(2, 9) {
			t.Errorf("%s: runs were not reset by FinishGraph", tc.name)
		}
		p.FinishGraph()
	}
}

func TestLocalityScores(t *testing.T) {
	p, _ := policy.New("locality")
	sg := newScoreGraph([2]int64{4, 1})
	core, node := sg.walk(t, p, 0)
	if core != 7 || node != 6 {
		t.Errorf("scores %d %d, want 7 6", core, node)
	}
	if p.Finish(sg.g, sg.cores[0], false) != 0 {
		t.Errorf("unmet score not 0")
	}
	if p.SlotOrder() != policy.Greater || p.VertexOrder() != policy.Greater {
		t.Errorf("locality lower levels must prefer high ids")
	}
}

func TestPerfClass(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		// spec policies.md §5
		{"2abc", 2}, {"+1", 1}, {"0x10", 0}, {"-0", 0}, {"3.7", 3}, {"abc", 9999},
		{"10000", 9999}, {"99999999999", 9999}, {"-6666", 9999},
		// more
		{"", 9999}, {"0", 0}, {"9999", 9999}, {"9998", 9998}, {" 7", 7}, {"\t\n12x", 12},
		{"+", 9999}, {"-", 9999}, {"+-1", 9999}, {" -1", 9999}, {"007", 7},
		{"2147483647", 9999}, {"2147483648", 9999}, {"-2147483648", 9999},
		{"1 2", 1}, {"١", 9999},
	}
	for _, tc := range tests {
		if got := policy.PerfClass(tc.in); got != tc.want {
			t.Errorf("PerfClass(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestVariation(t *testing.T) {
	p, _ := policy.New("variation")
	g := graph.New()
	mk := func(props ...string) graph.VertexID {
		v := g.AddVertex(graph.Vertex{Type: graph.TypeNode, ID: 3, Size: 1})
		if len(props) > 0 {
			g.V(v).SetProp("perf_class", props[0])
		}
		return v
	}
	tests := []struct {
		v    graph.VertexID
		want int64
	}{
		{mk("2abc"), 3}, {mk("0"), 1}, {mk("abc"), 10000}, {mk(), 10000}, {mk("42"), 43},
	}
	for _, tc := range tests {
		if err := p.Discover(g, tc.v); err != nil {
			t.Fatal(err)
		}
		if got := p.Finish(g, tc.v, true); got != tc.want {
			t.Errorf("Finish(v%d) = %d, want %d", tc.v, got, tc.want)
		}
		if got := p.Finish(g, tc.v, false); got != 0 {
			t.Errorf("unmet Finish(v%d) = %d", tc.v, got)
		}
	}
	if p.VertexOrder() != policy.Less || p.SlotOrder() != policy.Greater || p.GraphOrder(nil) != policy.Less {
		t.Errorf("variation orders: %T %T %T", p.VertexOrder(), p.SlotOrder(), p.GraphOrder(nil))
	}
}
