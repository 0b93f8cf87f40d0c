package match

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// The worked examples of spec examples.md, run on graphs built in code with
// the same vertex and edge creation order as the GRUG reader.

// TestE1High is examples.md E1 (basics/001.R.out): four single-core jobs
// with policy high, and a fifth that does not fit.
func TestE1High(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 3600)
	want := []string{tinyChain(35, 1, 1), tinyChain(17, 0, 1), tinyChain(35, 1, 0), tinyChain(17, 0, 0)}
	for i, w := range want {
		wantOK(t, fmt.Sprintf("job %d", i+1), do(m, Allocate, js, uint64(i+1)), 0, w)
	}
	wantErr(t, "job 5", do(m, Allocate, js, 5), ErrBusy)
}

// TestE2First is examples.md E2 (basics/041.R.out): the same jobs with the
// dynamic child order of policy first.
func TestE2First(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "first")
	js := mkjs(t, g, test001, 3600)
	want := []string{tinyChain(35, 1, 1), tinyChain(35, 1, 0), tinyChain(17, 0, 1), tinyChain(17, 0, 0)}
	for i, w := range want {
		wantOK(t, fmt.Sprintf("job %d", i+1), do(m, Allocate, js, uint64(i+1)), 0, w)
	}
	wantErr(t, "job 5", do(m, Allocate, js, 5), ErrBusy)
}

// TestE3Reservations is examples.md E3 (basics/003.R.out): ten
// allocate_orelse_reserve jobs.
func TestE3Reservations(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 3600)
	cycle := []string{tinyChain(35, 1, 1), tinyChain(17, 0, 1), tinyChain(35, 1, 0), tinyChain(17, 0, 0)}
	for i := 0; i < 10; i++ {
		at := int64(i/4) * 3600
		wantOK(t, fmt.Sprintf("job %d", i+1), do(m, AllocateOrElseReserve, js, uint64(i+1)), at, cycle[i%4])
	}
	// Nothing is free now, but the request is satisfiable.
	wantErr(t, "allocate", do(m, Allocate, js, 11), ErrBusy)
	wantErr(t, "allocate_with_satisfiability", do(m, AllocateWithSatisfiability, js, 12), ErrBusy)
	if o := do(m, Satisfiability, js, 13); o.err != nil || o.text != "" {
		t.Errorf("satisfiability: %v", o)
	}
	// A reservation at 7200 can be cancelled and found again.
	if err := m.Cancel(10); err != nil {
		t.Fatal(err)
	}
	wantOK(t, "job 14", do(m, AllocateOrElseReserve, js, 14), 7200, cycle[1])
}

// TestE4SlotWithPools is examples.md E4 (basics/004.R.out).
func TestE4SlotWithPools(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, "node[1]->slot[1]->socket[2]->(core[5],gpu[1],memory[6])", 3600)
	job := func(node int) string {
		return sl(cat(
			seq(5, "core", 13, 17, "[1:x]"), "5 gpu0[1:x]", seq(5, "memory", 1, 3, "[2:x]"), "4 socket0[1:x]",
			seq(5, "core", 31, 35, "[1:x]"), "5 gpu1[1:x]", seq(5, "memory", 5, 7, "[2:x]"), "4 socket1[1:x]",
			fmt.Sprintf("3 node%d[1:s]", node), "2 rack0[1:s]", "1 tiny0[1:s]")...)
	}
	wantOK(t, "job 1", do(m, Allocate, js, 1), 0, job(1))
	wantOK(t, "job 2", do(m, Allocate, js, 2), 0, job(0))
	wantErr(t, "job 3", do(m, Allocate, js, 3), ErrBusy)
}

// TestE5Satisfiability is examples.md E5 (satisfiability/001.R.out).
func TestE5Satisfiability(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, "cluster[1]->rack[1]->node[1]->slot[1]->socket[1]->core[19]", 3600)
	wantErr(t, "allocate_with_satisfiability", do(m, AllocateWithSatisfiability, js, 1), ErrUnsatisfiable)
	wantErr(t, "allocate_orelse_reserve", do(m, AllocateOrElseReserve, js, 2), ErrUnsatisfiable)
	wantErr(t, "satisfiability", do(m, Satisfiability, js, 3), ErrUnsatisfiable)
	wantErr(t, "allocate", do(m, Allocate, js, 4), ErrBusy)

	js3 := mkjs(t, g, "cluster[1]->rack[1]->node[3]->slot[1]->socket[1]->core[1]", 3600)
	wantErr(t, "node[3] allocate_with_satisfiability", do(m, AllocateWithSatisfiability, js3, 5), ErrUnsatisfiable)
	o := do(m, AllocateOrElseReserve, js3, 6)
	wantErr(t, "node[3] allocate_orelse_reserve", o, ErrBusy)
	if errorsIsUnsat(o.err) {
		t.Errorf("node[3] allocate_orelse_reserve is reported unsatisfiable: %v", o.err)
	}
	wantErr(t, "node[3] satisfiability", do(m, Satisfiability, js3, 7), ErrUnsatisfiable)

	// An 18-core request is satisfiable and allocatable.
	js18 := mkjs(t, g, "cluster[1]->rack[1]->node[1]->slot[1]->socket[1]->core[18]", 3600)
	if o := do(m, Satisfiability, js18, 8); o.err != nil {
		t.Errorf("18 cores: %v", o)
	}
	if o := do(m, AllocateWithSatisfiability, js18, 9); o.err != nil || !strings.Contains(o.text, "core35[1:x]") {
		t.Errorf("18 cores allocate: %v", o)
	}
}

func errorsIsUnsat(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Errno == ENODEV
}

// TestE6NothingExclusive is examples.md E6: selections without an exclusive
// vertex emit nothing and fail.
func TestE6NothingExclusive(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	wantErr(t, "socket[1]->memory[3]", do(m, Allocate, mkjs(t, g, "socket[1]->memory[3]", 3600), 1), ErrBusy)
	if o := do(m, Satisfiability, mkjs(t, g, "socket[1]->memory[3]", 3600), 2); o.err != nil {
		t.Errorf("socket[1]->memory[3] satisfiability: %v", o)
	}
	wantOK(t, "socket[1]->memory[3]x", do(m, Allocate, mkjs(t, g, "socket[1]->memory[3]x", 3600), 3), 0,
		sl("5 memory6[2:x]", "5 memory7[2:x]", "4 socket1[1:s]", "3 node0[1:s]", "2 rack0[1:s]", "1 tiny0[1:s]"))

	s := smallGraph()
	ms := newMatcher(t, s, "high")
	js := mkjs(t, s, "node[1]->slot[1]->core[1]", 3600)
	wantErr(t, "small node[1]->slot[1]->core[1]", do(ms, Allocate, js, 1), ErrBusy)
	if o := do(ms, Satisfiability, js, 2); o.err != nil {
		t.Errorf("small node[1]->slot[1]->core[1] satisfiability: %v", o)
	}
	// With the socket level the same request works.
	wantOK(t, "small node[1]->slot[1]->socket[1]->core[1]", do(ms, Allocate, mkjs(t, s, "node[1]->slot[1]->socket[1]->core[1]", 3600), 3), 0,
		sl("5 core35[1:x]", "4 socket1[1:x]", "3 node7[1:s]", "2 rack0[1:s]", "1 small0[1:s]"))
}

// TestTopLevelSlotTies is README pitfall 1: -P high, top-level
// slot[1]->core[1] picks node0's core35 first and node1's second (36
// candidates at the root are permuted by the introsort).
func TestTopLevelSlotTies(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, "slot[1]->core[1]", 3600)
	for i, node := range []int{0, 1} {
		wantOK(t, fmt.Sprintf("job %d", i+1), do(m, Allocate, js, uint64(i+1)), 0,
			sl("5 core35[1:x]", "4 socket1[1:s]", fmt.Sprintf("3 node%d[1:s]", node), "2 rack0[1:s]", "1 tiny0[1:s]"))
	}
}

// TestE10Ties is examples.md E10 / sort.md: the exact unstable sort decides
// ties under variation and locality.
func TestE10Ties(t *testing.T) {
	for _, tc := range []struct {
		pol   string
		cores [2]int
	}{{"variation", [2]int{0, 10}}, {"locality", [2]int{8, 9}}} {
		g := smallGraph()
		m := newMatcher(t, g, tc.pol)
		js := mkjs(t, g, "slot[1]->core[1]", 3600)
		for i, c := range tc.cores {
			wantOK(t, fmt.Sprintf("%s job %d", tc.pol, i+1), do(m, Allocate, js, uint64(i+1)), 0,
				sl(fmt.Sprintf("5 core%d[1:x]", c), "4 socket0[1:s]", "3 node5[1:s]", "2 rack0[1:s]", "1 small0[1:s]"))
		}
	}
}

// TestEC2CountOperators is examples.md EC2.
func TestEC2CountOperators(t *testing.T) {
	tests := []struct {
		count    string
		from, to int
	}{
		{"2:7:+:2", 30, 35},
		{"2:17:*:3", 30, 35},
		{"2:100:^:2", 20, 35},
		{"1:4:+:1", 32, 35},
		{"18", 18, 35},
	}
	for _, tc := range tests {
		g := tinyGraph()
		m := newMatcher(t, g, "high")
		js := mkjs(t, g, "socket[1]->slot[1]->core["+tc.count+"]", 3600)
		wantOK(t, tc.count, do(m, Allocate, js, 1), 0,
			sl(cat(seq(5, "core", tc.from, tc.to, "[1:x]"), "4 socket1[1:s]", "3 node0[1:s]", "2 rack0[1:s]", "1 tiny0[1:s]")...))
	}
}

// TestEC3EqualCandidates is examples.md EC3: slot[2]->core[10] twice under
// five policies.
func TestEC3EqualCandidates(t *testing.T) {
	type pick struct {
		node, socket, from int
	}
	// render emits the picks grouped by node in out-edge order.
	render := func(picks ...pick) string {
		var items []string
		for node := 0; node < 2; node++ {
			found := false
			for socket := 0; socket < 2; socket++ {
				for _, p := range picks {
					if p.node == node && p.socket == socket {
						items = append(items, seq(5, "core", p.from, p.from+9, "[1:x]")...)
						items = append(items, fmt.Sprintf("4 socket%d[1:s]", socket))
						found = true
					}
				}
			}
			if found {
				items = append(items, fmt.Sprintf("3 node%d[1:s]", node))
			}
		}
		return sl(append(items, "2 rack0[1:s]", "1 tiny0[1:s]")...)
	}
	tests := []struct {
		pol        string
		job1, job2 string
	}{
		{"low", render(pick{0, 0, 0}, pick{1, 0, 0}), render(pick{0, 1, 18}, pick{1, 1, 18})},
		{"lonode", render(pick{0, 0, 0}, pick{0, 1, 18}), render(pick{1, 0, 0}, pick{1, 1, 18})},
		{"high", render(pick{0, 1, 26}, pick{1, 1, 26}), render(pick{0, 0, 8}, pick{1, 0, 8})},
		{"hinode", render(pick{1, 0, 8}, pick{1, 1, 26}), render(pick{0, 0, 8}, pick{0, 1, 26})},
		{"first", render(pick{1, 0, 8}, pick{1, 1, 26}), render(pick{0, 0, 8}, pick{0, 1, 26})},
	}
	for _, tc := range tests {
		g := tinyGraph()
		m := newMatcher(t, g, tc.pol)
		js := mkjs(t, g, "slot[2]->core[10]", 3600)
		wantOK(t, tc.pol+" job 1", do(m, Allocate, js, 1), 0, tc.job1)
		wantOK(t, tc.pol+" job 2", do(m, Allocate, js, 2), 0, tc.job2)
		wantErr(t, tc.pol+" job 3", do(m, Allocate, js, 3), ErrBusy)
	}
}

// wholeNode renders a tiny node taken exclusively with its whole subtree.
func wholeNode(node int) []string {
	return cat(
		seq(5, "core", 0, 17, "[1:x]"), "5 gpu0[1:x]", seq(5, "memory", 0, 3, "[2:x]"), "4 socket0[1:x]",
		seq(5, "core", 18, 35, "[1:x]"), "5 gpu1[1:x]", seq(5, "memory", 4, 7, "[2:x]"), "4 socket1[1:x]",
		fmt.Sprintf("3 node%d[1:x]", node))
}

// TestEC4ReservationsDurations is examples.md EC4.
func TestEC4ReservationsDurations(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "low")
	const n1x = "node[1]x"
	tail := []string{"2 rack0[1:s]", "1 tiny0[1:s]"}
	steps := []struct {
		op   Op
		tree string
		dur  float64
		at   int64
		want string // "" for failure with ErrBusy
	}{
		{Allocate, n1x, 100, 0, sl(cat(wholeNode(0), tail)...)},
		{Allocate, n1x, 300, 0, sl(cat(wholeNode(1), tail)...)},
		{AllocateOrElseReserve, "node[2]x", 50, 300, sl(cat(wholeNode(0), wholeNode(1), tail)...)},
		{AllocateOrElseReserve, n1x, 250, 350, sl(cat(wholeNode(0), tail)...)},
		{AllocateOrElseReserve, "node[1]->socket[1]x", 10, 100,
			sl(cat(seq(5, "core", 0, 17, "[1:x]"), "5 gpu0[1:x]", seq(5, "memory", 0, 3, "[2:x]"), "4 socket0[1:x]",
				"3 node0[1:s]", tail)...)},
		{AllocateOrElseReserve, n1x, 0, 350, sl(cat(wholeNode(1), tail)...)},
		{AllocateOrElseReserve, n1x, 0, 600, sl(cat(wholeNode(0), tail)...)},
		{AllocateOrElseReserve, n1x, 0, 0, ""},
		{AllocateWithSatisfiability, n1x, 0, 0, ""},
	}
	for i, st := range steps {
		o := do(m, st.op, mkjs(t, g, st.tree, st.dur), uint64(i+1))
		name := fmt.Sprintf("job %d (%s %s %v)", i+1, st.op, st.tree, st.dur)
		if st.want == "" {
			wantErr(t, name, o, ErrBusy)
			continue
		}
		wantOK(t, name, o, st.at, st.want)
	}
}

// TestEC6ExclusiveFalseUnderSlot is examples.md EC6.
func TestEC6ExclusiveFalseUnderSlot(t *testing.T) {
	tests := []struct {
		op     Op
		target error
		nmsg   int
	}{
		{Allocate, ErrBusy, 4},
		{AllocateOrElseReserve, ErrUnsatisfiable, 8},
		{AllocateWithSatisfiability, ErrUnsatisfiable, 8},
		{Satisfiability, ErrUnsatisfiable, 4},
	}
	for _, tc := range tests {
		g := tinyGraph()
		m := newMatcher(t, g, "high")
		js := mkjs(t, g, "node[1]->slot[1]->socket[1]!->core[1]", 3600)
		o := do(m, tc.op, js, 1)
		wantErr(t, tc.op.String(), o, tc.target)
		e, ok := o.err.(*Error)
		if !ok {
			continue
		}
		one := "by_excl: exclusivity conflicts at jobspec= : vertex=socket"
		if n := strings.Count(e.Msg, one); n != tc.nmsg {
			t.Errorf("%s: %d by_excl messages, want %d: %q", tc.op, n, tc.nmsg, e.Msg)
		}
		if tc.nmsg == 4 {
			want := strings.Repeat(one+"0"+one+"1", 2)
			if e.Msg != want {
				t.Errorf("%s: message %q, want %q", tc.op, e.Msg, want)
			}
		}
	}
}

// TestEC8Visits is examples.md EC8: visit counts per match.
func TestEC8Visits(t *testing.T) {
	tests := []struct {
		pol  string
		want [][2]int64
	}{
		{"high", [][2]int64{{100, 80}, {77, 61}, {52, 41}, {29, 22}}},
		{"first", [][2]int64{{27, 22}, {27, 22}, {27, 22}, {27, 22}}},
	}
	for _, tc := range tests {
		g := tinyGraph()
		m := newMatcher(t, g, tc.pol)
		js := mkjs(t, g, "node[1]->socket[1]->slot[1]->core[18]", 3600)
		for i, w := range tc.want {
			// The counts are the exhaustive walk's: CountVisits makes
			// them, and Visits reports them after the match.
			cpre, cpost := m.CountVisits(Allocate, js, uint64(i+1), 0)
			if o := do(m, Allocate, js, uint64(i+1)); o.err != nil {
				t.Fatalf("%s job %d: %v", tc.pol, i+1, o)
			}
			if pre, post := m.Visits(); pre != w[0] || post != w[1] || cpre != pre || cpost != post {
				t.Errorf("%s job %d: visits %d/%d (counted %d/%d), want %d/%d", tc.pol, i+1, pre, post, cpre, cpost, w[0], w[1])
			}
		}
	}
}

// TestP1Locality is examples.md P1: locality prefers the highest block of
// consecutive node scores.
func TestP1Locality(t *testing.T) {
	for _, tc := range []struct {
		pol   string
		nodes []int
	}{{"locality", []int{3, 6, 7}}, {"high", []int{4, 6, 7}}} {
		g := smallGraph()
		m := newMatcher(t, g, tc.pol)
		for _, p := range []string{"/small0/rack0/node2", "/small0/rack0/node5"} {
			if err := m.SetStatus(p, graph.StatusDown); err != nil {
				t.Fatal(err)
			}
		}
		var items []string
		for _, n := range tc.nodes {
			items = append(items, "5 core35[1:x]", "4 socket1[1:x]", fmt.Sprintf("3 node%d[1:s]", n))
		}
		items = append(items, "2 rack0[1:s]", "1 small0[1:s]")
		wantOK(t, tc.pol, do(m, Allocate, mkjs(t, g, "node[3]->slot[1]->socket[1]->core[1]", 3600), 1), 0, sl(items...))
	}
}

// TestP2Variation is examples.md P2: perf_class parsing decides the nodes.
func TestP2Variation(t *testing.T) {
	g := smallGraph()
	m := newMatcher(t, g, "variation")
	for i, v := range []string{"2abc", "+1", "0x10", "abc", "99999999999", "10000", "-0", "3.7"} {
		g.V(g.ByPath(fmt.Sprintf("/small0/rack0/node%d", i))[0]).SetProp("perf_class", v)
	}
	js := mkjs(t, g, "node[3]->slot[1]->socket[1]->core[1]", 3600)
	nodesOf := func(text string) string {
		var l []string
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, "node"); i >= 0 {
				l = append(l, strings.TrimSuffix(line[i:], "[1:s]"))
			}
		}
		return strings.Join(l, ",")
	}
	o := do(m, Allocate, js, 1)
	var items []string
	for _, n := range []int{1, 2, 6} {
		items = append(items, "5 core9[1:x]", "4 socket0[1:x]", fmt.Sprintf("3 node%d[1:s]", n))
	}
	wantOK(t, "job 1", o, 0, sl(append(items, "2 rack0[1:s]", "1 small0[1:s]")...))
	for _, tc := range []struct {
		job   uint64
		nodes string
	}{{2, "node1,node2,node6"}, {3, "node0,node3,node7"}} {
		o := do(m, Allocate, js, tc.job)
		if o.err != nil || nodesOf(o.text) != tc.nodes {
			t.Errorf("job %d: nodes %q, want %q\n%v", tc.job, nodesOf(o.text), tc.nodes, o)
		}
	}

	// Without properties, node2 and node5 down: node0, node1, node3.
	g = smallGraph()
	m = newMatcher(t, g, "variation")
	m.SetStatus("/small0/rack0/node2", graph.StatusDown)
	m.SetStatus("/small0/rack0/node5", graph.StatusDown)
	items = nil
	for _, n := range []int{0, 1, 3} {
		items = append(items, "5 core9[1:x]", "4 socket0[1:x]", fmt.Sprintf("3 node%d[1:s]", n))
	}
	wantOK(t, "no properties", do(m, Allocate, mkjs(t, g, "node[3]->slot[1]->socket[1]->core[1]", 3600), 1), 0,
		sl(append(items, "2 rack0[1:s]", "1 small0[1:s]")...))
}

// TestP5Status is examples.md P5.
func TestP5Status(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 3600)
	mustStatus := func(p string, st graph.Status) {
		t.Helper()
		if err := m.SetStatus(p, st); err != nil {
			t.Fatalf("SetStatus(%s): %v", p, err)
		}
	}
	mustStatus("/tiny0/rack0/node1/socket1", graph.StatusDown)
	if g.V(g.ByPath("/tiny0/rack0/node1/socket1/core35")[0]).Status != graph.StatusUp {
		t.Errorf("descendants must keep their status")
	}
	wantOK(t, "job 1", do(m, Allocate, js, 1), 0, tinyChain(17, 0, 1))
	mustStatus("/tiny0/rack0/node1", graph.StatusDown)
	wantOK(t, "job 2", do(m, Allocate, js, 2), 0, tinyChain(35, 1, 0))
	mustStatus("/tiny0/rack0/node0", graph.StatusDown)
	wantErr(t, "job 3", do(m, AllocateWithSatisfiability, js, 3), ErrUnsatisfiable)
	if o := do(m, Satisfiability, js, 4); o.err != nil {
		t.Errorf("satisfiability ignores status: %v", o)
	}
	mustStatus("/tiny0/rack0/node1", graph.StatusUp)
	wantErr(t, "job 4", do(m, Allocate, js, 4), ErrBusy)
	err := m.SetStatus("/nope", graph.StatusDown)
	if e, ok := err.(*Error); !ok || e.Errno != EINVAL || e.Msg != "mark: could not find subtree path (/nope) in resource graph.\n" {
		t.Errorf("SetStatus(/nope) = %#v", err)
	}
	// Setting the same status twice changes nothing; a rack going down
	// takes its nodes out of the feasibility count.
	g2 := tinyGraph()
	m2 := newMatcher(t, g2, "high")
	m2.SetStatus("/tiny0/rack0", graph.StatusDown)
	m2.SetStatus("/tiny0/rack0", graph.StatusDown)
	wantErr(t, "rack down", do(m2, AllocateWithSatisfiability, mkjs(t, g2, test001, 3600), 1), ErrUnsatisfiable)
	m2.SetStatus("/tiny0/rack0", graph.StatusUp)
	wantOK(t, "rack up", do(m2, Allocate, mkjs(t, g2, test001, 3600), 2), 0, tinyChain(35, 1, 1))
}

// TestFindCriteria is examples.md A1 (line counts of find with the simple
// writer on tiny after node1 went down).
func TestFindCriteria(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	m.SetStatus("/tiny0/rack0/node1", graph.StatusDown)
	tests := []struct {
		expr  string
		lines int
	}{
		{"status=down or names=core0 and names=node0", 0},
		{"names=core0 and names=node0 or status=down", 51},
		{"status=down or (names=core0 and names=node0)", 51},
		{"(status=down)", 51},
		{"status=up names=node0", 3},
		{"names=node0,core1", 8},
		{"status=DOWN and names=NODE1", 3},
		{"status=down and agfilter=false", 0},
		{"agfilter=true", 8},
		{"status=up", 51},
		{"status=up or status=down", 100},
		{"sched-now=allocated", 0},
		{"sched-now=free", 100},
	}
	for _, tc := range tests {
		w := newRecorder()
		if err := m.Find(tc.expr, 0, w); err != nil {
			t.Errorf("Find(%q): %v", tc.expr, err)
			continue
		}
		if len(w.verts) != tc.lines {
			t.Errorf("Find(%q): %d vertices, want %d", tc.expr, len(w.verts), tc.lines)
		}
		for _, v := range w.verts {
			if !v.excl || v.needs != g.V(v.id).Size {
				t.Errorf("Find(%q): vertex %s emitted with needs %d excl %v", tc.expr, g.V(v.id).Name, v.needs, v.excl)
				break
			}
		}
	}
	// The 51 lines: node1's sockets with their children, node1, rack0,
	// tiny0.
	w := newRecorder()
	m.Find("(status=down)", 0, w)
	if got := w.names(g); !strings.HasSuffix(got, "memory7,socket1,node1,rack0,tiny0") || !strings.HasPrefix(got, "core0,core1,") {
		t.Errorf("find status=down order: %s", got)
	}
	err := m.Find("status=down and", 0, newRecorder())
	if e, ok := err.(*Error); !ok || e.Errno != EINVAL || e.Msg != "find: invalid criteria: status=down and.\n" {
		t.Errorf("invalid criteria: %#v", err)
	}
}

// TestFindJobs checks the job predicates and the agfilter figures of
// examples.md E8.
func TestFindJobs(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 3600)
	do(m, Allocate, js, 1)
	do(m, AllocateOrElseReserve, mkjs(t, g, "node[2]x", 100), 2)
	tests := []struct {
		expr  string
		names string
	}{
		{"jobid-alloc=1", "core35,socket1,node1,rack0,tiny0"},
		{"jobid-tag=1", "core35,socket1,node1,rack0,tiny0"},
		{"jobid-span=1", "socket1,node1,rack0,tiny0"},
		{"jobid-reserved=1", ""},
		{"jobid-reserved=2 and names=node[0-1]", "node0,node1,rack0,tiny0"},
		{"sched-future=reserved and names=node0", "node0,rack0,tiny0"},
		{"sched-now=allocated and names=socket1", "socket1,node1,rack0,tiny0"},
	}
	for _, tc := range tests {
		w := newRecorder()
		if err := m.Find(tc.expr, 0, w); err != nil {
			t.Errorf("Find(%q): %v", tc.expr, err)
			continue
		}
		if got := w.names(g); got != tc.names {
			t.Errorf("Find(%q) = %s, want %s", tc.expr, got, tc.names)
		}
	}
	w := newRecorder()
	if err := m.Find("jobid-alloc=1 and agfilter=t", 0, w); err != nil {
		t.Fatal(err)
	}
	if got := w.names(g); got != "socket1,node1,rack0,tiny0" {
		t.Errorf("agfilter vertices = %s", got)
	}
	wantAg := map[string]string{
		"tiny0":   "core used:1 total:72,gpu used:0 total:4,memory used:0 total:32,node used:0 total:2",
		"socket1": "core used:1 total:18,node used:0 total:0",
		"node1":   "core used:1 total:36",
	}
	for _, v := range w.verts {
		want, ok := wantAg[g.V(v.id).Name]
		if !ok {
			continue
		}
		var l []string
		for _, a := range v.ag {
			l = append(l, fmt.Sprintf("%s used:%d total:%d", a.Type, a.Used, a.Total))
		}
		if got := strings.Join(l, ","); got != want {
			t.Errorf("agfilter of %s = %s, want %s", g.V(v.id).Name, got, want)
		}
	}
	// Job 3 was never allocated: agfilter mode leaves out the vertices
	// without its span, with no error (the ops corpus, o2000044 and
	// o2000069, shows it; the spec said ENOENT).
	w = newRecorder()
	if err := m.Find("jobid-span=3 or names=tiny0 and agfilter=t", 0, w); err != nil {
		t.Errorf("agfilter without span: %v", err)
	}
	if got := w.names(g); got != "" {
		t.Errorf("agfilter without span emitted %s", got)
	}
}
