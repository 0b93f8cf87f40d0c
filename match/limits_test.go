package match

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/rv1"
)

// An update R whose children name 2^63 cores used to expand them all
// (out of memory) before failing; now it fails at the first core the graph
// lacks, and books nothing.
func TestUpdateRV1ExecHugeChildSetBounded(t *testing.T) {
	g, err := rv1.ReadExec([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "0-3"}}], "nodelist": ["n[0-1]"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rv1.ParseR([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-9223372036854775805"}}], "nodelist": ["n0"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	err = m.UpdateRV1Exec(r, 7, 0, 3600, emit.Discard)
	runtime.ReadMemStats(&b)
	if err == nil {
		t.Fatal("update succeeded")
	}
	if !strings.Contains(err.Error(), "couldn't find vertex in graph for core4") {
		t.Errorf("error %q", err)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 1<<20 {
		t.Errorf("the failed update allocated %d bytes", n)
	}
	w := emit.NewSimple()
	if err := m.Find("sched-now=allocated", 0, w); err != nil {
		t.Fatal(err)
	}
	if s, _ := w.Render(); s != "" {
		t.Errorf("the failed update booked:\n%s", s)
	}
}

// Issue 13: a find expression of 8M nested parentheses (a 16 MB line)
// overflowed the stack in the recursive parser. Nesting is now bounded
// (Options.MaxFindDepth, default graph.DefaultMaxDepth) and checked before
// parsing.
func TestFindDeepNestingBounded(t *testing.T) {
	m := fuzzMatcher(t)
	probes := []int64{0, 50, 100, 150}
	before := rawDigest(m, probes)
	nest := func(n int) string { return strings.Repeat("(", n) + "status=down" + strings.Repeat(")", n) }

	huge := nest(8 << 20)
	w := newRecorder()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	err := m.Find(huge, 0, w)
	runtime.ReadMemStats(&b)
	var e *Error
	if !errors.As(err, &e) || e.Errno != EINVAL || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %#v, want an EINVAL *Error", err)
	}
	if want := "find: criteria nest parentheses more than 256 deep.\n"; e.Msg != want {
		t.Errorf("message %q, want %q", e.Msg, want)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the expression allocated %d bytes", n)
	}
	if len(w.verts) != 0 || w.times != 0 {
		t.Error("the refused expression emitted something")
	}
	if after := rawDigest(m, probes); after != before {
		t.Fatalf("Find changed the schedule:\n%s", diffDigests(before, after))
	}

	// At the limit the expression works, and finds what the flat one does.
	flat, deep := newRecorder(), newRecorder()
	if err := m.Find("status=down", 0, flat); err != nil {
		t.Fatal(err)
	}
	if err := m.Find(nest(graph.DefaultMaxDepth), 0, deep); err != nil {
		t.Fatal(err)
	}
	if len(flat.verts) == 0 || fmt.Sprint(flat.verts) != fmt.Sprint(deep.verts) {
		t.Errorf("nested find emitted %v, flat %v", deep.verts, flat.verts)
	}
	if err := m.Find(nest(graph.DefaultMaxDepth+1), 0, newRecorder()); err == nil || !strings.Contains(err.Error(), "more than 256 deep") {
		t.Errorf("one level past the limit: %v", err)
	}

	// A Matcher with another limit.
	g := buildGrugLike("tiny", 1, 1, 0, 0, 0)
	m3, err := New(g, Options{MaxFindDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := m3.Find(nest(3), 0, newRecorder()); err != nil {
		t.Errorf("depth 3: %v", err)
	}
	if err := m3.Find(nest(4), 0, newRecorder()); err == nil || !strings.Contains(err.Error(), "more than 3 deep") {
		t.Errorf("depth 4: %v", err)
	}
}
