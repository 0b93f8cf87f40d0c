package match

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/policy"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		in   float64
		want int64
		ok   bool
	}{
		{0, GraphEnd, true},
		{0.5, 1, true},
		{1e-300, 1, true},
		{1, 1, true},
		{3600, 3600, true},
		{3600.2, 3601, true},
		{float64(GraphEnd) - 0.5, GraphEnd, true},
		{float64(GraphEnd), GraphEnd, true},
		{float64(GraphEnd) + 1, 0, false},
		{-5, 0, false},
		{-1e-300, 0, false},
		{math.NaN(), 0, false},
		{math.Inf(1), 0, false},
		{math.Inf(-1), 0, false},
		{math.MaxFloat64, 0, false},
	}
	for _, tc := range tests {
		got, ok := Duration(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Duration(%v) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOps(t *testing.T) {
	tests := []struct {
		op    Op
		name  string
		books bool
	}{
		{Allocate, "allocate", true},
		{AllocateOrElseReserve, "allocate_orelse_reserve", true},
		{AllocateWithSatisfiability, "allocate_with_satisfiability", true},
		{Satisfiability, "satisfiability", false},
		{WithoutAllocating, "without_allocating", false},
		{WithoutAllocatingFuture, "without_allocating_future", false},
	}
	for _, tc := range tests {
		if tc.op.String() != tc.name {
			t.Errorf("%d.String() = %s", tc.op, tc.op.String())
		}
		if op, ok := ParseOp(tc.name); !ok || op != tc.op {
			t.Errorf("ParseOp(%s) = %d %v", tc.name, op, ok)
		}
		if tc.op.Books() != tc.books {
			t.Errorf("%s.Books() = %v", tc.name, tc.op.Books())
		}
	}
	for _, bad := range []string{"", "Allocate", "allocate ", "reserve", "match"} {
		if _, ok := ParseOp(bad); ok {
			t.Errorf("ParseOp(%q) succeeded", bad)
		}
	}
	for _, op := range []Op{-1, 6, 100} {
		if op.String() != "unknown" || op.Books() {
			t.Errorf("Op(%d): %s %v", op, op.String(), op.Books())
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		errno                           Errno
		text                            string
		busy, unsat, invalid, not_found bool
	}{
		{EBUSY, "Device or resource busy", true, false, false, false},
		{ENODEV, "No such device", false, true, false, false},
		{EINVAL, "Invalid argument", false, false, true, false},
		{EOVERFLOW, "Value too large for defined data type", false, false, true, false},
		{ERANGE, "Numerical result out of range", false, false, true, false},
		{ENOENT, "No such file or directory", false, true, false, false}, // a match op: ENOENT is "unsatisfiable"
		{ENOTTY, "Inappropriate ioctl for device", false, false, false, false},
		{0, "Success", false, false, false, false},
		{ENOMEM, "Cannot allocate memory", false, false, false, false},
		{EEXIST, "File exists", false, false, true, false},
		{ENOSYS, "Function not implemented", false, false, false, false},
		{EPROTO, "Protocol error", false, false, false, false},
		{ENOTSUP, "Operation not supported", false, false, false, false},
		{99, "Unknown error 99", false, false, false, false},
	}
	for _, tc := range tests {
		if tc.errno.String() != tc.text {
			t.Errorf("Errno(%d).String() = %q", tc.errno, tc.errno.String())
		}
		var err error = &Error{Op: "match", Errno: tc.errno}
		wrapped := fmt.Errorf("ctx: %w", err)
		for _, target := range []struct {
			e    error
			want bool
		}{{ErrBusy, tc.busy}, {ErrUnsatisfiable, tc.unsat}, {ErrInvalid, tc.invalid}, {ErrNotFound, tc.not_found}} {
			if errors.Is(err, target.e) != target.want || errors.Is(wrapped, target.e) != target.want {
				t.Errorf("errors.Is(Errno %d, %v) != %v", tc.errno, target.e, target.want)
			}
		}
		if errors.Is(err, errors.New("resources busy")) {
			t.Errorf("Is matches a foreign error")
		}
	}
	e := &Error{Op: "match", Errno: EBUSY, Msg: "a\nb\n\n"}
	if got := e.Error(); got != "match: Device or resource busy: a\nb" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Op: "find", Errno: EINVAL}).Error(); got != "find: Invalid argument" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Op: "x", Errno: EINVAL, Msg: "\n"}).Error(); got != "x: Invalid argument: " {
		t.Errorf("Error() = %q", got)
	}
}

func TestSubsystemNames(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"CA", []string{"containment"}},
		{"ca", []string{"containment"}},
		{"C+PA", []string{"containment", "power"}},
		{"c+pa", []string{"containment", "power"}},
		{"ALL", []string{"containment", "ibnet", "ibnetbw", "pfs1bw", "power"}},
		{"V+PFS1BA", []string{"virtual1", "pfs1bw"}},
		{"Ca", nil},
		{"C+pa", nil},
		{"", nil},
		{"XA", nil},
	}
	for _, tc := range tests {
		got, ok := SubsystemNames(tc.name)
		if ok != (tc.want != nil) || !slices.Equal(got, tc.want) {
			t.Errorf("SubsystemNames(%q) = %v %v, want %v", tc.name, got, ok, tc.want)
		}
	}
}

func TestNewConfigErrors(t *testing.T) {
	tests := []struct {
		opts  Options
		stage string
	}{
		{Options{Policy: "policy=medium"}, "policy"},
		{Options{Policy: "bogus"}, "policy"},
		{Options{Traverser: "fancy"}, "traverser"},
		{Options{Subsystems: "XA"}, "subsystems"},
		{Options{PruneFilters: "ALL"}, "prune"},
		{Options{PruneFilters: "ALL:"}, "prune"},
		{Options{PruneFilters: ":core"}, "prune"},
		{Options{PruneFilters: "ALL:core,"}, "prune"},
		{Options{Subsystems: "PA"}, "traverser"},
		{Options{Subsystems: "C+PA"}, "traverser"},
	}
	for _, tc := range tests {
		m, err := New(tinyGraph(), tc.opts)
		var ce *ConfigError
		if m != nil || !errors.As(err, &ce) || ce.Stage != tc.stage {
			t.Errorf("New(%+v) = %v, %v; want a %s ConfigError", tc.opts, m, err, tc.stage)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.stage+": ") || errors.Unwrap(err) == nil {
			t.Errorf("ConfigError %q", err)
		}
	}
	_, err := New(tinyGraph(), Options{Policy: "bogus"})
	if !errors.Is(err, policy.ErrInvalid) {
		t.Errorf("policy ConfigError does not wrap policy.ErrInvalid: %v", err)
	}
	// Defaults.
	m, err := New(tinyGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Policy().Name() != "first" || m.Graph() == nil {
		t.Errorf("default policy %s", m.Policy().Name())
	}
	for _, o := range []Options{{Policy: "high", Traverser: "flexible"}, {Subsystems: "ca"}, {PruneFilters: "  "}, {NoPruneFilters: true}} {
		if _, err := New(tinyGraph(), o); err != nil {
			t.Errorf("New(%+v): %v", o, err)
		}
	}
}

// filterOf describes v's dominant pruning filter as "type total,...".
func filterOf(m *Matcher, v graph.VertexID) string {
	f := m.filter(0, v)
	if !f.ok() {
		return "-"
	}
	var l []string
	for i := 0; i < f.Len(); i++ {
		l = append(l, fmt.Sprintf("%s %d", m.g.Types.Name(f.Type(i)), f.Total(i)))
	}
	return strings.Join(l, ",")
}

func TestPruningFilters(t *testing.T) {
	// Vertices of tiny: 0 tiny0, 1 rack0, 2 node0, 4 socket0, 8 core0, 80
	// gpu0, 84 memory0.
	probe := []graph.VertexID{0, 1, 2, 4, 8, 80, 84}
	tests := []struct {
		spec string
		none bool
		want []string
	}{
		// examples.md E1.
		{"", false, []string{"gpu 4,memory 32,core 72,node 2", "core 72,node 2", "core 36", "core 18,node 0", "-", "-", "-"}},
		{"ALL:core", false, []string{"gpu 4,memory 32,core 72", "core 72", "core 36", "core 18", "-", "-", "-"}},
		{"", true, []string{"core 72,gpu 4,memory 32", "-", "-", "-", "-", "-", "-"}},
		// core is anchored at node only: the root tracks just the leaf types.
		{"node:core", false, []string{"gpu 4,memory 32", "-", "core 36", "-", "-", "-", "-"}},
		// (*, T) after (A, T) removes T from A; (A, T) after (*, T) is a no-op.
		{"node:core,ALL:core", false, []string{"gpu 4,memory 32,core 72", "core 72", "core 36", "core 18", "-", "-", "-"}},
		{"ALL:core,node:core", false, []string{"gpu 4,memory 32,core 72", "core 72", "core 36", "core 18", "-", "-", "-"}},
		// gpu is a configured pruning type, so it is not registered at cluster.
		{" ALL : core , socket:gpu", false, []string{"memory 32,core 72", "core 72", "core 36", "gpu 1,core 18", "-", "-", "-"}},
		{"ALL:memory", false, []string{"core 72,gpu 4,memory 32", "memory 32", "memory 16", "memory 8", "-", "-", "-"}},
	}
	for _, tc := range tests {
		m, err := New(tinyGraph(), Options{Policy: "high", PruneFilters: tc.spec, NoPruneFilters: tc.none})
		if err != nil {
			t.Fatalf("%q: %v", tc.spec, err)
		}
		for i, v := range probe {
			if got := filterOf(m, v); got != tc.want[i] {
				t.Errorf("spec %q none=%v: filter of %s = %q, want %q", tc.spec, tc.none, m.g.V(v).Name, got, tc.want[i])
			}
		}
	}
}

func TestPruneConf(t *testing.T) {
	g := tinyGraph()
	mem := g.Type("memory")
	var c pruneConf
	c.install(graph.TypeNode, graph.TypeCore)
	c.install(graph.TypeAny, graph.TypeNode)
	c.install(graph.TypeNode, mem)
	c.install(graph.TypeNode, graph.TypeGPU)
	if got := c.typesFor(graph.TypeNode, nil); !slices.Equal(got, []graph.TypeID{graph.TypeCore, graph.TypeGPU, mem}) {
		t.Errorf("node types = %v", got)
	}
	if got := c.typesFor(graph.TypeSocket, nil); !slices.Equal(got, []graph.TypeID{graph.TypeNode}) {
		t.Errorf("socket types = %v", got)
	}
	c.install(graph.TypeAny, graph.TypeCore)
	if got := c.typesFor(graph.TypeNode, nil); !slices.Equal(got, []graph.TypeID{graph.TypeGPU, mem, graph.TypeCore}) {
		t.Errorf("node types after ALL:core = %v", got)
	}
	if got := c.typesFor(graph.TypeAny, nil); !slices.Equal(got, []graph.TypeID{graph.TypeCore, graph.TypeNode}) {
		t.Errorf("* types = %v", got)
	}
	for _, ty := range []graph.TypeID{graph.TypeCore, graph.TypeGPU, graph.TypeNode, mem} {
		if !c.has(ty) {
			t.Errorf("type %d not a pruning type", ty)
		}
	}
	if c.has(graph.TypeSocket) || c.has(1000) {
		t.Errorf("socket is a pruning type")
	}
}

func TestTCounts(t *testing.T) {
	var c tcounts
	c.add(5, 1)
	c.add(2, 3)
	c.add(9, 1)
	c.add(5, 4)
	c.set(2, 7)
	c.set(1, 1)
	want := tcounts{{1, 1}, {2, 7}, {5, 5}, {9, 1}}
	if !slices.Equal(c, want) {
		t.Errorf("tcounts = %v, want %v", c, want)
	}
	if n, ok := c.get(5); !ok || n != 5 {
		t.Errorf("get(5) = %d %v", n, ok)
	}
	if _, ok := c.get(3); ok {
		t.Errorf("get(3) found")
	}
}

func TestOutOrder(t *testing.T) {
	l := []outEntry{
		{weight: 5, uniq: 1, edge: 0}, {weight: math.MaxUint64, uniq: 2, edge: 1},
		{weight: 5, uniq: 7, edge: 2}, {weight: 0, uniq: 9, edge: 3}, {weight: math.MaxUint64, uniq: 3, edge: 4},
	}
	sortOut(l)
	var got []graph.EdgeID
	for _, e := range l {
		got = append(got, e.edge)
	}
	if want := []graph.EdgeID{4, 1, 2, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("sortOut order %v, want %v", got, want)
	}
	// rekey moves an edge to its new place.
	b := graph.NewBuilder()
	root := b.MustAdd(graph.NoVertex, "cluster", 0)
	for i := range 5 {
		b.MustAdd(root, "node", int64(i))
	}
	m := &Matcher{schedule: &schedule{g: b.Graph(), dynamic: true, store: store{token: newToken()}}}
	for _, e := range l {
		m.setWeight(e.edge, e.weight)
	}
	m.setOrder(0, l)
	m.rekey(0, 4, 3, 1)
	m.rekey(0, 3, 9, 5)
	m.rekey(0, 99, 1, 1) // unknown edge: no-op
	got = got[:0]
	for _, e := range m.childOrder(0).list() {
		got = append(got, e.edge)
	}
	if want := []graph.EdgeID{1, 3, 2, 0, 4}; !slices.Equal(got, want) {
		t.Errorf("after rekey %v, want %v", got, want)
	}
	if m.weight(4) != 1 || m.weight(3) != 5 {
		t.Errorf("weights %v", weightsOf(m))
	}
}

func TestScoring(t *testing.T) {
	var s scoring
	s.reset()
	if s.overall != -1 || s.n != 0 || s.qualified(0, 1) != 0 || s.find(0, 1) != nil {
		t.Fatalf("fresh scoring %+v", s)
	}
	s.add(0, graph.TypeNode, egroup{score: 3, count: 1})
	s.add(0, graph.TypeCore, egroup{score: 0, count: 2})
	s.add(0, graph.TypeCore, egroup{score: 5, count: 4})
	s.add(1, graph.TypeCore, egroup{score: 1, count: 1})
	s.add(0, graph.TypeCluster, egroup{score: 1, count: 1})
	var keys []string
	for i := 0; i < s.n; i++ {
		keys = append(keys, fmt.Sprintf("%d/%d", s.l[i].sub, s.l[i].typ))
	}
	if got := strings.Join(keys, " "); got != "0/0 0/1 0/4 1/1" {
		t.Errorf("key order %s", got)
	}
	if l := s.find(0, graph.TypeCore); l.total != 6 || l.qual != 4 {
		t.Errorf("core totals %d %d", l.total, l.qual)
	}
	var o scoring
	o.reset()
	o.add(0, graph.TypeCore, egroup{score: 2, count: 3})
	o.add(0, graph.TypeGPU, egroup{score: 2, count: 1})
	s.merge(&o)
	if l := s.find(0, graph.TypeCore); l.total != 9 || l.qual != 7 || len(l.g) != 3 {
		t.Errorf("after merge core %d %d %d", l.total, l.qual, len(l.g))
	}
	if s.qualified(0, graph.TypeGPU) != 1 {
		t.Errorf("merged gpu missing")
	}
	// chooseBestK.
	if s.chooseBestK(0, graph.TypeCore, 0, policy.Greater) || s.chooseBestK(0, graph.TypeCore, 8, policy.Greater) || s.chooseBestK(0, graph.TypeSocket, 1, policy.Greater) {
		t.Errorf("chooseBestK accepted k = 0, k > qualified or a missing type")
	}
	if s.hier {
		t.Errorf("failed choose set hier")
	}
	if !s.chooseBestK(0, graph.TypeCore, 5, policy.Greater) {
		t.Fatalf("chooseBestK(5) failed")
	}
	l := s.find(0, graph.TypeCore)
	var scores, needs []int64
	for _, eg := range l.g {
		scores = append(scores, eg.score)
		needs = append(needs, eg.needs)
	}
	if !slices.Equal(scores, []int64{5, 2, 0}) || !slices.Equal(needs, []int64{4, 1, 0}) || l.bestI != 2 || l.bestK != 5 || !s.hier {
		t.Errorf("chosen scores %v needs %v bestI %d bestK %d", scores, needs, l.bestI, l.bestK)
	}
	s.reset()
	if s.n != 0 || s.overall != -1 || s.hier || s.find(0, graph.TypeCore) != nil {
		t.Errorf("reset kept state")
	}
	// Buffers are reused: the next list starts empty.
	s.add(0, graph.TypeGPU, egroup{score: 1, count: 1})
	if l := s.find(0, graph.TypeGPU); len(l.g) != 1 || l.total != 1 {
		t.Errorf("reused list %+v", l)
	}
}

func TestSortGroupsTies(t *testing.T) {
	// <= 16 equal candidates keep their order; 18 follow sort.md.
	mk := func(scores ...int64) []egroup {
		var l []egroup
		for i, s := range scores {
			l = append(l, egroup{score: s, e0: int32(i)})
		}
		return l
	}
	idx := func(l []egroup) []int32 {
		var r []int32
		for _, eg := range l {
			r = append(r, eg.e0)
		}
		return r
	}
	l := mk(1, 3, 1, 3, 2)
	sortGroups(l, policy.Greater)
	if got := idx(l); !slices.Equal(got, []int32{1, 3, 4, 0, 2}) {
		t.Errorf("greater %v", got)
	}
	sortGroups(l, policy.Less)
	if got := idx(l); !slices.Equal(got, []int32{0, 2, 4, 1, 3}) {
		t.Errorf("less %v", got)
	}
	eq := mk(make([]int64, 18)...)
	sortGroups(eq, policy.Greater)
	if got := idx(eq); !slices.Equal(got, []int32{9, 17, 16, 15, 14, 13, 12, 11, 10, 0, 8, 7, 6, 5, 4, 3, 2, 1}) {
		t.Errorf("18 equal %v", got)
	}
	// A custom order goes through Before.
	loc, _ := policy.New("locality")
	l = mk(2, 9, 5, 8, 6, 3)
	sortGroups(l, loc.GraphOrder([]int64{2, 9, 5, 8, 6, 3}))
	if got := idx(l); !slices.Equal(got, []int32{1, 3, 2, 4, 0, 5}) {
		t.Errorf("locality %v", got)
	}
}

func TestMatchInvalid(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	tests := []struct {
		name string
		js   *jobspec.Jobspec
	}{
		{"nil", nil},
		{"no resources", &jobspec.Jobspec{Version: 1, Duration: 10}},
		{"negative duration", mkjs(t, g, test001, -5)},
		{"too long", mkjs(t, g, test001, float64(GraphEnd)+1)},
		{"NaN", func() *jobspec.Jobspec { js := mkjs(t, g, test001, 1); js.Duration = math.NaN(); return js }()},
	}
	for _, tc := range tests {
		for _, op := range []Op{Allocate, AllocateOrElseReserve, Satisfiability} {
			o := do(m, op, tc.js, 1)
			wantErr(t, tc.name+" "+op.String(), o, ErrInvalid)
		}
	}
}

func TestTimes(t *testing.T) {
	tests := []struct {
		dur            float64
		at             int64
		start, end     int64
		op             Op
		wantRecordedAt int64
	}{
		{3600, 0, 0, 3600, Allocate, 0},
		{0.5, 0, 0, 1, Allocate, 0},
		{0, 0, 0, GraphEnd, Allocate, 0},
		{0, 100, 100, GraphEnd, Allocate, 100},
		{10, GraphEnd - 5, GraphEnd - 5, GraphEnd, Allocate, GraphEnd - 5},
		{10, 42, 42, 52, AllocateOrElseReserve, 42},
		{10, 42, 42, 52, WithoutAllocating, 42},
	}
	for _, tc := range tests {
		g := tinyGraph()
		m := newMatcher(t, g, "high")
		w := newRecorder()
		at, err := m.Match(tc.op, mkjsQ(t, g, test001, tc.dur, "batch"), 1, tc.at, w)
		if err != nil || at != tc.wantRecordedAt || w.start != tc.start || w.end != tc.end || w.times != 1 {
			t.Errorf("dur %v at %d: at=%d err=%v times [%d,%d) x%d, want [%d,%d)", tc.dur, tc.at, at, err, w.start, w.end, w.times, tc.start, tc.end)
		}
		if w.attrs["queue"] != "batch" {
			t.Errorf("queue attribute %v", w.attrs)
		}
	}
	// At graph_end nothing can start.
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	wantErr(t, "at graph end", do2(m, Allocate, mkjs(t, g, test001, 10), 1, GraphEnd), ErrBusy)
	wantErr(t, "after graph end", do2(m, Allocate, mkjs(t, g, test001, 10), 1, GraphEnd+10), ErrInvalid)
}

// do2 is do with a start time.
func do2(m *Matcher, op Op, js *jobspec.Jobspec, job uint64, at int64) outcome {
	w := newRecorder()
	start, err := m.Match(op, js, job, at, w)
	text := ""
	if !w.empty() {
		text = fmt.Sprintf("%d vertices", len(w.verts))
	}
	return outcome{text, start, err}
}

// TestOverrunProtection: at the current time an exclusive request avoids
// every vertex holding any allocation, even one whose booking has ended
// (traversal.md §6.4); in the future (reservations) ended bookings do not
// count.
func TestOverrunProtection(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 100)
	wantOK(t, "job 1", do(m, Allocate, js, 1), 0, tinyChain(35, 1, 1))
	// At 200 job 1 has ended, but node1/socket1 still holds it.
	w := newRecorder()
	at, err := m.Match(Allocate, js, 2, 200, w)
	if err != nil || at != 200 || w.names(g) != "core17,socket0,node1,rack0,tiny0" {
		t.Errorf("allocate at 200: %d %v %s", at, err, w.names(g))
	}
	// Once cancelled, the socket is available again.
	if err := m.Cancel(1); err != nil {
		t.Fatal(err)
	}
	w = newRecorder()
	if _, err := m.Match(Allocate, js, 3, 200, w); err != nil || w.names(g) != "core35,socket1,node1,rack0,tiny0" {
		t.Errorf("allocate after cancel: %v %s", err, w.names(g))
	}
}

func TestLabels(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js, err := jobspec.Parse([]byte(`{"version": 1, "resources": [{"type": "node", "count": 1, "label": "mynode",
	  "with": [{"type": "slot", "count": 1, "label": "s", "with": [{"type": "core", "count": 1, "label": "mycore"}]}]}],
	  "attributes": {"system": {"duration": 10}}, "tasks": [{"command": ["a"], "slot": "s", "count": {"per_slot": 1}}]}`), knownTypes(g))
	if err != nil {
		t.Fatal(err)
	}
	// node[1]->slot[1]->core[1] on a node→socket→core graph matches the
	// slot at the sockets, and fails to emit (traversal.md §8.5). Use the
	// socket-level shape instead.
	js.Resources[0].With[0].With[0] = &jobspec.Resource{Type: "socket", Count: jobspec.Fixed(1), Label: "mysocket",
		With: []*jobspec.Resource{{Type: "core", Count: jobspec.Fixed(1), Label: "mycore"}}}
	w := newRecorder()
	if _, err := m.Match(Allocate, js, 1, 0, w); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range w.verts {
		got = append(got, g.V(v.id).Name+"="+v.label)
	}
	if s := strings.Join(got, ","); s != "core35=mycore,socket1=mysocket,node1=mynode,rack0=,tiny0=" {
		t.Errorf("labels %s", s)
	}
}

func TestCancelUnknownJob(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 3600)
	do(m, Allocate, js, 1)
	before := digest(m)
	if err := m.Cancel(42); err != nil {
		t.Errorf("Cancel(42): %v", err)
	}
	if err := m.Cancel(1); err != nil {
		t.Errorf("Cancel(1): %v", err)
	}
	if err := m.Cancel(1); err != nil {
		t.Errorf("second Cancel(1): %v", err)
	}
	if digest(m) == before {
		t.Errorf("Cancel(1) changed nothing")
	}
	if d := digest(m); d != digest(newMatcher(t, tinyGraph(), "high")) {
		t.Errorf("cancelling the only job does not restore a fresh matcher:\n%s", diffDigests(d, digest(newMatcher(t, tinyGraph(), "high"))))
	}
}

func TestWithoutAllocating(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, test001, 3600)
	fresh := digest(m)
	wantOK(t, "without_allocating", do(m, WithoutAllocating, js, 1), 0, tinyChain(35, 1, 1))
	if digest(m) != fresh {
		t.Errorf("without_allocating booked something")
	}
	for i := 0; i < 4; i++ {
		do(m, Allocate, js, uint64(10+i))
	}
	wantErr(t, "without_allocating when full", do(m, WithoutAllocating, js, 2), ErrBusy)
	before := digest(m)
	wantOK(t, "without_allocating_future when full", do(m, WithoutAllocatingFuture, js, 3), 3600, tinyChain(35, 1, 1))
	if digest(m) != before {
		t.Errorf("without_allocating_future booked something")
	}
}

// TestCancelVisits checks the cancel walk's counters (traversal.md §14.1):
// post-order counts the tagged vertices, pre-order also every entry into
// an untagged dominant child of a tagged vertex.
func TestCancelVisits(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	do(m, Allocate, mkjs(t, g, test001, 3600), 1)
	do(m, Allocate, mkjs(t, g, "node[1]x", 3600), 2)
	if err := m.Cancel(1); err != nil {
		t.Fatal(err)
	}
	// tiny0, rack0, node1, socket1, core35 tagged; untagged children:
	// node0 (of rack0), socket0 (of node1), 17 cores + gpu + 4 memories (of
	// socket1).
	if pre, post := m.Visits(); pre != 29 || post != 5 {
		t.Errorf("cancel 1 visits %d/%d, want 29/5", pre, post)
	}
	if err := m.Cancel(2); err != nil {
		t.Fatal(err)
	}
	// tiny0, rack0, node0 and its 2 sockets with 46 children: 51 tagged;
	// node1 untagged.
	if pre, post := m.Visits(); pre != 52 || post != 51 {
		t.Errorf("cancel 2 visits %d/%d, want 52/51", pre, post)
	}
	if err := m.Cancel(3); err != nil {
		t.Fatal(err)
	}
	if pre, post := m.Visits(); pre != 0 || post != 0 {
		t.Errorf("cancel of an unknown job visits %d/%d, want 0/0", pre, post)
	}
	if digest(m) != digest(newMatcher(t, tinyGraph(), "high")) {
		t.Errorf("state not restored")
	}
}

// TestConstraints checks node constraints (jobspec.md §5, traversal.md
// §6.1, §10.1) with policy high, which would otherwise pick node1.
func TestConstraints(t *testing.T) {
	const ns = "node[1]->slot[1]->socket[1]->core[1]"
	tests := []struct {
		cons    string
		node    int // -1: no match
		ops     []Op
		targets []error
	}{
		{`{"properties": ["foo"]}`, 0, nil, nil},
		{`{"properties": ["^foo"]}`, 1, nil, nil},
		{`{"hostlist": ["node0"]}`, 0, nil, nil},
		{`{"hostlist": ["node[0-1]"]}`, 1, nil, nil},
		{`{"ranks": ["0"]}`, 0, nil, nil},
		{`{"not": [{"ranks": ["1"]}]}`, 0, nil, nil},
		{`{"or": [{"ranks": ["7"]}, {"properties": ["foo"]}]}`, 0, nil, nil},
		{`{"and": [{"ranks": ["0-1"]}, {"hostlist": ["node1"]}]}`, 1, nil, nil},
		{`{}`, 1, nil, nil},
		{`{"properties": ["nope"]}`, -1,
			[]Op{Allocate, AllocateOrElseReserve, AllocateWithSatisfiability, Satisfiability},
			[]error{ErrBusy, ErrBusy, ErrUnsatisfiable, ErrUnsatisfiable}},
	}
	for _, tc := range tests {
		g := tinyGraph()
		g.V(g.ByPath("/tiny0/rack0/node0")[0]).SetProp("foo", "")
		c, err := jobspec.ParseConstraint([]byte(tc.cons))
		if err != nil {
			t.Fatalf("%s: %v", tc.cons, err)
		}
		js := mkjs(t, g, ns, 3600)
		js.Constraint = c
		if tc.node < 0 {
			for i, op := range tc.ops {
				wantErr(t, tc.cons+" "+op.String(), do(newMatcher(t, g, "high"), op, js, 1), tc.targets[i])
			}
			continue
		}
		m := newMatcher(t, g, "high")
		wantOK(t, tc.cons, do(m, Allocate, js, 1), 0,
			sl("5 core35[1:x]", "4 socket1[1:x]", fmt.Sprintf("3 node%d[1:s]", tc.node), "2 rack0[1:s]", "1 tiny0[1:s]"))
	}

	// A constrained node that is busy now: allocate fails in the
	// pre-check, a reservation waits for it.
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	node0, err := jobspec.ParseConstraint([]byte(`{"hostlist": ["node0"]}`))
	if err != nil {
		t.Fatal(err)
	}
	whole := mkjs(t, g, "node[1]x", 100)
	whole.Constraint = node0
	if o := do(m, Allocate, whole, 1); o.err != nil || !strings.Contains(o.text, "node0[1:x]") {
		t.Fatalf("node0 whole: %v", o)
	}
	js := mkjs(t, g, ns, 3600)
	js.Constraint = node0
	wantErr(t, "busy allocate", do(m, Allocate, js, 2), ErrBusy)
	wantErr(t, "busy allocate_with_satisfiability", do(m, AllocateWithSatisfiability, js, 3), ErrBusy)
	wantOK(t, "busy allocate_orelse_reserve", do(m, AllocateOrElseReserve, js, 4), 100, tinyChain(35, 1, 0))
}

// TestFindAgfilterNow: without a job id, agfilter reports usage at the
// given wall-clock time, falling back to time 0 when nothing is used then
// (traversal.md §16 step 6).
func TestFindAgfilterNow(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	do(m, Allocate, mkjs(t, g, test001, 100), 1)
	w := newRecorder()
	if _, err := m.Match(AllocateOrElseReserve, mkjs(t, g, "node[2]x", 50), 2, 0, w); err != nil {
		t.Fatal(err)
	}
	rootCores := func(now int64) string {
		w := newRecorder()
		if err := m.Find("agfilter=t and names=tiny0", now, w); err != nil {
			t.Fatal(err)
		}
		for _, v := range w.verts {
			if v.id == 0 {
				var l []string
				for _, a := range v.ag {
					l = append(l, fmt.Sprintf("%s:%d/%d", a.Type, a.Used, a.Total))
				}
				return strings.Join(l, " ")
			}
		}
		return "root not emitted"
	}
	tests := []struct {
		now  int64
		want string
	}{
		{0, "core:1/72 gpu:0/4 memory:0/32 node:0/2"},
		{99, "core:1/72 gpu:0/4 memory:0/32 node:0/2"},
		// job 2 (both nodes whole) is reserved for [100, 150).
		{100, "core:72/72 gpu:4/4 memory:32/32 node:2/2"},
		{149, "core:72/72 gpu:4/4 memory:32/32 node:2/2"},
		// Nothing used at 150: the figures of time 0.
		{150, "core:1/72 gpu:0/4 memory:0/32 node:0/2"},
		{5000, "core:1/72 gpu:0/4 memory:0/32 node:0/2"},
	}
	for _, tc := range tests {
		if got := rootCores(tc.now); got != tc.want {
			t.Errorf("now %d: %s, want %s", tc.now, got, tc.want)
		}
	}
}

// TestSiblingConflict: two siblings that apply to the same vertex make it
// fail with traversal.md §4.2's message.
func TestSiblingConflict(t *testing.T) {
	tests := []struct {
		tree, typ string
	}{
		{"node[1]->(socket[1]->core[1],socket[1]->gpu[1])", "socket"},
		{"node[1]->(socket[1]->core[1]x,slot[1]->core[1])", "socket"},
	}
	for _, tc := range tests {
		g := tinyGraph()
		m := newMatcher(t, g, "high")
		o := do(m, Allocate, mkjs(t, g, tc.tree, 10), 1)
		wantErr(t, tc.tree, o, ErrBusy)
		e, _ := o.err.(*Error)
		msg := "test: siblings in jobspec request same resource type : " + tc.typ + ".\n"
		if e == nil || !strings.HasPrefix(e.Msg, msg) || strings.Count(e.Msg, msg) != 4 {
			t.Errorf("%s: message %q, want 4 × %q", tc.tree, e.Msg, msg)
		}
	}
}

// TestForget: the matcher caches the resolution of the last jobspec value;
// Forget drops it after the value was modified.
func TestForget(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	js := mkjs(t, g, "node[1]->slot[1]->socket[1]->core[1]", 10)
	wantOK(t, "job 1", do(m, Allocate, js, 1), 0, tinyChain(35, 1, 1))
	core := js.Resources[0].With[0].With[0].With[0]
	core.Count = jobspec.Fixed(2)
	m.Forget()
	wantOK(t, "job 2", do(m, Allocate, js, 2), 0,
		sl("5 core16[1:x]", "5 core17[1:x]", "4 socket0[1:x]", "3 node1[1:s]", "2 rack0[1:s]", "1 tiny0[1:s]"))
}

// TestSetErrno: the errno a failure that sets none reports is the one the
// caller seeded (resource-query seeds ENOTTY, as Fluxion's process has).
func TestSetErrno(t *testing.T) {
	g := tinyGraph()
	m := newMatcher(t, g, "high")
	m.SetErrno(ENOTTY)
	o := do(m, Allocate, mkjs(t, g, "core[1]", 10), 1)
	if e, ok := o.err.(*Error); !ok || e.Errno != ENOTTY {
		t.Errorf("got %#v, want ENOTTY", o.err)
	}
}
