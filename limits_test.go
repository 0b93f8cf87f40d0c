package gofluxion

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/internal/idset"
)

// state is everything a failed operation must leave as it was: the
// snapshot (graph, schedule, statuses, job table) and what find reports.
func state(t *testing.T, x *Matcher) string {
	t.Helper()
	var b bytes.Buffer
	if err := x.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	down, err := x.FindAt("status=down", "simple", 0)
	if err != nil {
		t.Fatal(err)
	}
	booked, err := x.FindAt("sched-now=allocated", "simple", 0)
	if err != nil {
		t.Fatal(err)
	}
	return unz(t, b.Bytes()) + "\n--down--\n" + down + "\n--booked--\n" + booked
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// demoWithJobs is the demo graph with eight whole-node jobs.
func demoWithJobs(t *testing.T, opts Options) *Matcher {
	t.Helper()
	x, err := New(DemoGraph(), opts)
	if err != nil {
		t.Fatal(err)
	}
	js, err := x.ParseJobspec([]byte(`version: 1
resources: [{type: node, count: 1, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2, with: [{type: core, count: 16}]}]}]}]
attributes: {system: {duration: 3600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		if _, err := x.Match(Allocate, js, 0); err != nil {
			t.Fatal(err)
		}
	}
	return x
}

func wantLimit(t *testing.T, err error, text string) {
	t.Helper()
	if !errors.Is(err, ErrLimit) || !errors.Is(err, ErrInvalid) {
		t.Errorf("error %v does not wrap ErrLimit and ErrInvalid", err)
	}
	if err == nil || !strings.Contains(err.Error(), text) {
		t.Errorf("error %v does not say %q", err, text)
	}
}

// Issue 13 item 3: rank sets were expanded with no bound; the first of
// these died out of memory, "0-100000000" took 2.4 GB.
func TestRankSetHugeRangeBounded(t *testing.T) {
	x := demoWithJobs(t, Options{})
	before := state(t, x)
	for _, huge := range []string{"0-9223372036854775805", "0-100000000", "0-8388608"} {
		var errS, errR error
		n := allocated(func() {
			errS = x.SetRankStatus(huge, false)
			errR = x.RemoveRanks(huge)
		})
		wantLimit(t, errS, "more than Limits.MaxRankSet (8388608)")
		wantLimit(t, errR, "more than Limits.MaxRankSet (8388608)")
		if n > 1<<20 {
			t.Errorf("%s: refusing allocated %d bytes", huge, n)
		}
		if after := state(t, x); after != before {
			t.Fatalf("%s: the refused rank set changed the state", huge)
		}
	}

	// Within the limit a set is intersected with the graph's 8 ranks,
	// never expanded: SetRankStatus ignores the ranks the graph lacks.
	var err error
	if n := allocated(func() { err = x.SetRankStatus("0-8388607", false) }); n > 1<<20 {
		t.Errorf("SetRankStatus of 8,388,608 ranks allocated %d bytes", n)
	}
	if err != nil {
		t.Fatal(err)
	}
	for r := range int64(8) {
		if up, err := x.RankStatus(r); err != nil || up {
			t.Errorf("rank %d: up %v, %v", r, up, err)
		}
	}
	if err := x.SetRankStatus("5-4194303", true); err != nil {
		t.Fatal(err)
	}
	for r := range int64(8) {
		if up, _ := x.RankStatus(r); up != (r >= 5) {
			t.Errorf("rank %d: up %v", r, up)
		}
	}

	// A smaller limit.
	y, err := New(DemoGraph(), Options{Limits: Limits{MaxRankSet: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if err := y.SetRankStatus("0-2", false); err != nil {
		t.Fatal(err)
	}
	wantLimit(t, y.SetRankStatus("0-3", false), "rank set 0-3 names 4 ranks, more than Limits.MaxRankSet (3)")
}

// Issue 13 items 2 and 3: RemoveRanks("3,99") cleared rank 3's records and
// then failed on 99, leaving node3 booked forever; a rank the graph lacks
// is now found first.
func TestRemoveRanksUnknownRankChangesNothing(t *testing.T) {
	x := demoWithJobs(t, Options{})
	before := state(t, x)
	for _, ranks := range []string{"3,99", "0-1000", "8", "7-4000000"} {
		err := x.RemoveRanks(ranks)
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("RemoveRanks(%q) = %v, want ErrNotFound", ranks, err)
		}
		if after := state(t, x); after != before {
			t.Fatalf("RemoveRanks(%q) changed the state", ranks)
		}
	}
	if err := x.RemoveRanks("0-1000"); err == nil || !strings.Contains(err.Error(), "the graph has no rank 8-1000") {
		t.Errorf("error %v does not name the missing ranks", err)
	}
	if err := x.RemoveRanks("3"); err != nil {
		t.Fatal(err)
	}
	if st := state(t, x); st == before {
		t.Error("RemoveRanks(3) changed nothing")
	}
}

// Issue 13 item 6: 8M nested parentheses overflowed the stack in
// Matcher.Find.
func TestFindDeepNestingBounded(t *testing.T) {
	x := demoWithJobs(t, Options{})
	before := state(t, x)
	nest := func(n int) string { return strings.Repeat("(", n) + "status=up" + strings.Repeat(")", n) }
	huge := nest(8 << 20)
	var out string
	var err error
	if n := allocated(func() { out, err = x.FindAt(huge, "simple", 0) }); n > 1<<20 {
		t.Errorf("refusing allocated %d bytes", n)
	}
	wantLimit(t, err, "find criteria nest parentheses 8388608 deep, more than Limits.MaxDepth (256)")
	if out != "" {
		t.Errorf("output %q", out)
	}
	if _, err := x.FindAt(nest(256), "simple", 0); err != nil {
		t.Errorf("256 deep: %v", err)
	}
	_, err = x.FindAt(nest(257), "simple", 0)
	wantLimit(t, err, "more than Limits.MaxDepth (256)")

	y, err := New(DemoGraph(), Options{Limits: Limits{MaxDepth: 2, MaxInputBytes: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := y.FindAt(nest(2), "simple", 0); err != nil {
		t.Errorf("2 deep: %v", err)
	}
	_, err = y.FindAt(nest(3), "simple", 0)
	wantLimit(t, err, "more than Limits.MaxDepth (2)")
	_, err = y.FindAt("status=up or"+strings.Repeat(" ", 100)+"status=down", "simple", 0)
	wantLimit(t, err, "the find criteria is 123 bytes, more than Limits.MaxInputBytes (100)")
	if after := state(t, x); after != before {
		t.Fatal("refused finds changed the state")
	}
}

// Issue 13 item 7, through the package's readers.
func TestReadGraphLimits(t *testing.T) {
	recipe := grug.Cluster("c", 8, 100000000) // 5 KB of GRUG asking for 8e8 cores
	var g *graph.Graph
	var err error
	n := allocated(func() { g, err = ReadGraph(FormatGRUG, []byte(recipe), "") })
	if g != nil || !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxVertices") {
		t.Errorf("1e8 cores: %v", err)
	}
	if n > 16<<20 {
		t.Errorf("refusing allocated %d bytes", n)
	}
	small := grug.Cluster("c", 2, 3) // 1 + 2 + 6 vertices
	if g, err := (Limits{MaxVertices: 9}).ReadGraph(FormatGRUG, []byte(small), ""); err != nil || g.NumVertices() != 9 {
		t.Errorf("9 vertices under a limit of 9: %v", err)
	}
	if _, err := (Limits{MaxVertices: 8}).ReadGraph(FormatGRUG, []byte(small), ""); !errors.Is(err, ErrLimit) {
		t.Errorf("9 vertices under a limit of 8: %v", err)
	}

	jgfDoc := `{"graph": {"nodes": [
 {"id": "0", "metadata": {"type": "cluster", "basename": "c", "id": 0, "paths": {"containment": "/c0"}}},
 {"id": "1", "metadata": {"type": "core", "id": 0, "paths": {"containment": "/c0/core0"}}}],
 "edges": [{"source": "0", "target": "1"}]}}`
	if _, err := (Limits{MaxVertices: 2}).ReadGraph(FormatJGF, []byte(jgfDoc), ""); err != nil {
		t.Error(err)
	}
	if _, err := (Limits{MaxVertices: 1}).ReadGraph(FormatJGF, []byte(jgfDoc), ""); !errors.Is(err, ErrLimit) {
		t.Errorf("JGF of 2 nodes under a limit of 1: %v", err)
	}

	deep := `<topology><object type="Machine">` + strings.Repeat(`<object type="Group">`, 300) +
		strings.Repeat(`</object>`, 300) + `</object></topology>`
	if _, err := ReadGraph(FormatHwloc, []byte(deep), ""); !errors.Is(err, ErrLimit) {
		t.Errorf("hwloc 301 deep: %v", err)
	}

	for _, f := range LoadFormats() {
		if _, err := (Limits{MaxInputBytes: 10}).ReadGraph(f, []byte(small), ""); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxInputBytes") {
			t.Errorf("%s: %d bytes under a limit of 10: %v", f, len(small), err)
		}
	}

	// ReadGraphFile stops reading at the limit.
	path := filepath.Join(t.TempDir(), "big.graphml")
	if err := os.WriteFile(path, []byte(small), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (Limits{MaxInputBytes: int64(len(small))}).ReadGraphFile(path); err != nil {
		t.Error(err)
	}
	_, err = (Limits{MaxInputBytes: int64(len(small)) - 1}).ReadGraphFile(path)
	if !errors.Is(err, ErrLimit) || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), path+": ") {
		t.Errorf("file over the limit: %v", err)
	}
	if _, err := ReadGraphFile(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestAttachLimits(t *testing.T) {
	x, err := New(DemoGraph(), Options{Limits: Limits{MaxVertices: 2, MaxInputBytes: 2000}})
	if err != nil {
		t.Fatal(err)
	}
	before := state(t, x)
	three := `{"graph": {"nodes": [
 {"id": "0", "metadata": {"type": "cluster", "basename": "demo", "id": 0, "paths": {"containment": "/demo0"}}},
 {"id": "1", "metadata": {"type": "rack", "id": 0, "paths": {"containment": "/demo0/rack0"}}},
 {"id": "900", "metadata": {"type": "node", "id": 8, "rank": 8, "paths": {"containment": "/demo0/rack0/node8"}}}],
 "edges": [{"source": "1", "target": "900"}]}}`
	wantLimit(t, x.Attach([]byte(three)), "has 3 nodes, more than Limits.MaxVertices (2)")
	wantLimit(t, x.Attach([]byte(three+strings.Repeat(" ", 2000))), "more than Limits.MaxInputBytes (2000)")
	if after := state(t, x); after != before {
		t.Fatal("refused attaches changed the state")
	}
}

// FuzzRankSets gives arbitrary rank sets to SetRankStatus and RemoveRanks
// on the demo graph (ranks 0-7) and checks them against a reference that
// expands small sets: SetRankStatus marks exactly the named ranks the
// graph has; RemoveRanks fails, changing nothing, when a named rank is
// missing. Huge sets must be refused or handled without expansion.
func FuzzRankSets(f *testing.F) {
	for _, s := range []string{"0-3", "3,99", "0-9223372036854775805", "0-100000000", "[5]", "", "x", "7-4194303", "1,3,5,7", "0-7,9"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	base, err := New(DemoGraph(), Options{Limits: Limits{MaxRankSet: 1 << 20}})
	if err != nil {
		f.Fatal(err)
	}
	// a cheaper state than a snapshot: the vertices and what is down
	state := func(t testing.TB, x *Matcher) string {
		down, err := x.FindAt("status=down", "simple", 0)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(x.Stat().Vertices, down)
	}
	before := state(f, base)
	f.Fuzz(func(t *testing.T, ranks string, remove bool) {
		x := base.Clone()
		named := map[int64]bool{} // the reference: the set expanded, when small
		small := false
		if set, perr := idset.Parse(ranks); perr == nil && set.Len() <= 4096 {
			small = true
			for r := range set.All() {
				named[r] = true
			}
		}
		var n uint64
		if remove {
			n = allocated(func() { err = x.RemoveRanks(ranks) })
			missing := false
			for r := range named {
				missing = missing || r > 7
			}
			if err != nil {
				if small && !missing && len(named) > 0 {
					t.Fatalf("RemoveRanks(%q): %v", ranks, err)
				}
				if after := state(t, x); after != before {
					t.Fatalf("failed RemoveRanks(%q) changed the state", ranks)
				}
			} else if small && missing {
				t.Fatalf("RemoveRanks(%q) succeeded with a missing rank", ranks)
			}
		} else {
			n = allocated(func() { err = x.SetRankStatus(ranks, false) })
			if err == nil {
				for r := range int64(8) {
					up, _ := x.RankStatus(r)
					if small && up == named[r] {
						t.Fatalf("SetRankStatus(%q, false): rank %d up %v", ranks, r, up)
					}
				}
			} else if after := state(t, x); after != before {
				t.Fatalf("failed SetRankStatus(%q) changed the state", ranks)
			}
		}
		if n > 4<<20+uint64(16*len(ranks)) {
			t.Fatalf("%q: %d bytes allocated", ranks, n)
		}
	})
}
