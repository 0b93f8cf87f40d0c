package gofluxion_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

func demo(t *testing.T, policy string) *gofluxion.Matcher {
	t.Helper()
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: policy})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// nodes is a jobspec of n nodes with one core each, for 100 s.
func nodes(n uint32) *jobspec.Jobspec {
	return jobspec.New(100*time.Second, jobspec.Res("node", n, jobspec.Slot("s", 1, jobspec.Res("socket", 1, jobspec.Res("core", 1)))))
}

var allSentinels = map[string]error{
	"ErrBusy": gofluxion.ErrBusy, "ErrUnsatisfiable": gofluxion.ErrUnsatisfiable, "ErrInvalid": gofluxion.ErrInvalid,
	"ErrNotFound": gofluxion.ErrNotFound, "ErrExists": gofluxion.ErrExists, "ErrSnapshot": gofluxion.ErrSnapshot,
}

// wantOnly checks that err matches want and no other sentinel.
func wantOnly(t *testing.T, what string, err, want error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want %v", what, want)
		return
	}
	for name, s := range allSentinels {
		if got := errors.Is(err, s); got != (s == want) {
			t.Errorf("%s: errors.Is(%q, %s) = %v", what, err, name, got)
		}
	}
}

// Point 1: a request that can never fit is ErrUnsatisfiable from every
// booking op, so a retry loop on ErrBusy ends; one that fits an empty
// graph with everything up is ErrBusy.
func TestNeverFitsIsUnsatisfiable(t *testing.T) {
	ops := []gofluxion.Op{gofluxion.Allocate, gofluxion.AllocateOrElseReserve, gofluxion.AllocateWithSatisfiability,
		gofluxion.WithoutAllocating, gofluxion.WithoutAllocatingFuture}
	m := demo(t, gofluxion.PolicyFirst)
	for _, op := range ops {
		_, err := m.Match(op, nodes(9), 0)
		wantOnly(t, fmt.Sprintf("%v of 9 nodes on 8", op), err, gofluxion.ErrUnsatisfiable)
	}
	// A bare request that takes nothing exclusively is selected but never
	// allocated (Fluxion reports it busy, forever).
	bare := jobspec.New(time.Minute, jobspec.Res("core", 1))
	_, err := m.Match(gofluxion.Allocate, bare, 0)
	wantOnly(t, "a bare core", err, gofluxion.ErrUnsatisfiable)
	if !strings.Contains(fmt.Sprint(err), "exclusive") {
		t.Errorf("a bare core: %v does not say what to do", err)
	}
	wantOnly(t, "Satisfiable(a bare core)", m.Satisfiable(bare), gofluxion.ErrUnsatisfiable)
	con := nodes(1)
	con.Constraint = &jobspec.Constraint{Op: jobspec.OpHostlist, Values: []string{"gpu-node[0-9]"}}
	_, err = m.Match(gofluxion.Allocate, con, 0)
	wantOnly(t, "a constraint no node meets", err, gofluxion.ErrUnsatisfiable)

	// Busy: everything is taken until 100.
	if _, err := m.Match(gofluxion.Allocate, jobspec.New(100*time.Second, jobspec.Res("node", 8).Exclusively()), 0); err != nil {
		t.Fatal(err)
	}
	for _, op := range []gofluxion.Op{gofluxion.Allocate, gofluxion.AllocateWithSatisfiability, gofluxion.WithoutAllocating} {
		_, err := m.Match(op, nodes(1), 0)
		wantOnly(t, fmt.Sprintf("%v on a full graph", op), err, gofluxion.ErrBusy)
	}
	if a, err := m.Match(gofluxion.AllocateOrElseReserve, nodes(1), 0); err != nil || !a.Reserved || a.Start != 100 {
		t.Errorf("reservation on a full graph: %+v, %v", a, err)
	}

	// Down: Fluxion's AllocateWithSatisfiability says "unsatisfiable" when
	// more nodes are asked than are up; they may come back.
	m = demo(t, gofluxion.PolicyFirst)
	if err := m.SetRankStatus("0-3", false); err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		_, err := m.Match(op, nodes(5), 0)
		wantOnly(t, fmt.Sprintf("%v of 5 nodes with 4 up", op), err, gofluxion.ErrBusy)
	}
	// The README's loop: retry while busy. It ends.
	js := nodes(9)
	for i := 0; ; i++ {
		_, err := m.Match(gofluxion.AllocateOrElseReserve, js, int64(i))
		if !errors.Is(err, gofluxion.ErrBusy) {
			break
		}
		if i > 3 {
			t.Fatal("a request that never fits is retried forever")
		}
	}
}

// Point 2, issue 13 items 4, 6 and 8: hand-built jobspecs and ops are
// validated at every entry point, name the bad entry, and change nothing.
func TestHandBuiltJobspecsAndOps(t *testing.T) {
	m := demo(t, gofluxion.PolicyFirst)
	self := jobspec.Res("node", 1)
	self.With = []*jobspec.Resource{jobspec.Slot("s", 1, self)}
	bad := []struct {
		name, path string
		js         *jobspec.Jobspec
	}{
		{"nil", "", nil},
		{"zero count", "resources[0].with[0].count.min", jobspec.New(time.Minute, jobspec.Res("node", 1, jobspec.Res("core", 0)))},
		{"nil resource", "resources[0].with[0]", jobspec.New(time.Minute, jobspec.Res("node", 1, nil))},
		{"self-containing", "resources[0].with[0].with[0]", jobspec.New(time.Minute, self)},
		{"empty type", "resources[0].type", jobspec.New(time.Minute, jobspec.Res("", 1))},
		{"no resources", "", jobspec.New(time.Minute)},
		{"negative duration", "", jobspec.New(-time.Minute, jobspec.Res("core", 1))},
		{"NaN duration", "", &jobspec.Jobspec{Version: 1, Resources: []*jobspec.Resource{jobspec.Res("core", 1)}, Duration: math.NaN()}},
	}
	before := m.Usage(0)
	for _, tc := range bad {
		for _, op := range []gofluxion.Op{gofluxion.Allocate, gofluxion.Satisfiability, gofluxion.WithoutAllocating} {
			_, err := m.Match(op, tc.js, 0)
			wantOnly(t, tc.name+" "+op.String(), err, gofluxion.ErrInvalid)
			if tc.path != "" && !strings.Contains(fmt.Sprint(err), tc.path) {
				t.Errorf("%s: %v does not name %s", tc.name, err, tc.path)
			}
		}
		_, err := m.MatchWithID(gofluxion.Allocate, tc.js, 5, 0)
		wantOnly(t, tc.name+" MatchWithID", err, gofluxion.ErrInvalid)
		wantOnly(t, tc.name+" Satisfiable", m.Satisfiable(tc.js), gofluxion.ErrInvalid)
		_, err = m.Explain(tc.js, 0)
		wantOnly(t, tc.name+" Explain", err, gofluxion.ErrInvalid)
	}
	for _, op := range []gofluxion.Op{-1, 6, 99} {
		_, err := m.Match(op, nodes(1), 0)
		wantOnly(t, fmt.Sprintf("Op(%d)", op), err, gofluxion.ErrInvalid)
		_, err = m.MatchWithID(op, nodes(1), 3, 0)
		wantOnly(t, fmt.Sprintf("MatchWithID Op(%d)", op), err, gofluxion.ErrInvalid)
	}
	if len(m.Jobs()) != 0 || fmt.Sprint(m.Usage(0)) != fmt.Sprint(before) {
		t.Errorf("rejected requests changed the Matcher: jobs %v", m.Jobs())
	}
	a, err := m.Match(gofluxion.Allocate, nodes(1), 0)
	if err != nil || a.JobID != 1 {
		t.Errorf("first real job: %+v, %v; want job 1", a, err)
	}
}

// Point 3: every error matches exactly one documented sentinel.
func TestEveryErrorMatchesOneSentinel(t *testing.T) {
	m := demo(t, gofluxion.PolicyFirst)
	a, err := m.Match(gofluxion.Allocate, nodes(1), 0)
	if err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := m.Snapshot(&snap); err != nil {
		t.Fatal(err)
	}
	errs := []struct {
		name string
		err  func() error
		want error
	}{
		{"New with an unknown policy", func() error {
			_, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: "fastest"})
			return err
		}, gofluxion.ErrInvalid},
		{"New with an unknown format", func() error {
			_, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Format: "xml"})
			return err
		}, gofluxion.ErrInvalid},
		{"New with a bad prune spec", func() error {
			_, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{PruneFilters: "core"})
			return err
		}, gofluxion.ErrInvalid},
		{"New with a nil graph", func() error { _, err := gofluxion.New(nil, gofluxion.Options{}); return err }, gofluxion.ErrInvalid},
		{"ReadGraph of garbage", func() error { _, err := gofluxion.ReadGraph("jgf", []byte("{"), ""); return err }, gofluxion.ErrInvalid},
		{"ReadGraph of an unknown format", func() error { _, err := gofluxion.ReadGraph("yaml", nil, ""); return err }, gofluxion.ErrInvalid},
		{"ReadGraphFile of a missing file", func() error { _, err := gofluxion.ReadGraphFile("/nonexistent/x.graphml"); return err }, gofluxion.ErrNotFound},
		{"NewWriter", func() error { _, err := gofluxion.NewWriter("xml"); return err }, gofluxion.ErrInvalid},
		{"ParseJobspec", func() error { _, err := m.ParseJobspec([]byte("version: 1")); return err }, gofluxion.ErrInvalid},
		{"MatchWithID of a job in use", func() error { _, err := m.MatchWithID(gofluxion.Allocate, nodes(1), a.JobID, 0); return err }, gofluxion.ErrExists},
		{"Cancel of an unknown job", func() error { return m.Cancel(42) }, gofluxion.ErrNotFound},
		{"Info of an unknown job", func() error { _, err := m.Info(42); return err }, gofluxion.ErrNotFound},
		{"Update of a job in use", func() error { _, err := m.Update(a.JobID, []byte(a.String())); return err }, gofluxion.ErrExists},
		{"Update with a bad R", func() error { _, err := m.Update(9, []byte("[")); return err }, gofluxion.ErrInvalid},
		{"Update with an empty R", func() error { _, err := m.Update(9, nil); return err }, gofluxion.ErrInvalid},
		{"PartialCancel of an unknown job", func() error { _, err := m.PartialCancel(42, []byte(a.String())); return err }, gofluxion.ErrNotFound},
		{"SetStatus of a missing path", func() error { return m.SetStatus("/nope", false) }, gofluxion.ErrNotFound},
		{"Status of a missing path", func() error { _, err := m.Status("/nope"); return err }, gofluxion.ErrNotFound},
		{"SetRankStatus of a bad idset", func() error { return m.SetRankStatus("3-1", false) }, gofluxion.ErrInvalid},
		{"RankStatus of a missing rank", func() error { _, err := m.RankStatus(99); return err }, gofluxion.ErrNotFound},
		{"Attach of garbage", func() error { return m.Attach([]byte("{")) }, gofluxion.ErrInvalid},
		{"Remove of a missing path", func() error { return m.Remove("/nope") }, gofluxion.ErrNotFound},
		{"RemoveRanks of a bad idset", func() error { return m.RemoveRanks("x") }, gofluxion.ErrInvalid},
		{"Find with bad criteria", func() error { _, err := m.Find("status=", "simple"); return err }, gofluxion.ErrInvalid},
		{"Find with a bad format", func() error { _, err := m.Find("status=up", "xml"); return err }, gofluxion.ErrInvalid},
		{"Render with a bad format", func() error { _, err := a.Render("xml"); return err }, gofluxion.ErrInvalid},
		{"Restore of garbage", func() error { _, err := gofluxion.Restore(strings.NewReader("x")); return err }, gofluxion.ErrSnapshot},
		{"RestoreFrom of garbage", func() error { return m.RestoreFrom(strings.NewReader("x")) }, gofluxion.ErrSnapshot},
		{"Snapshot to a failing writer", func() error { return m.Snapshot(failWriter{}) }, gofluxion.ErrSnapshot},
		{"Match busy", func() error {
			_, err := m.Match(gofluxion.Allocate, jobspec.New(0, jobspec.Res("node", 8).Exclusively()), 0)
			return err
		}, gofluxion.ErrBusy},
		{"Match never", func() error { _, err := m.Match(gofluxion.Allocate, nodes(9), 0); return err }, gofluxion.ErrUnsatisfiable},
		{"Satisfiable never", func() error { return m.Satisfiable(nodes(9)) }, gofluxion.ErrUnsatisfiable},
	}
	for _, tc := range errs {
		err := tc.err()
		wantOnly(t, tc.name, err, tc.want)
		var e *gofluxion.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %T is not a *gofluxion.Error", tc.name, err)
			continue
		}
		// Point 4: Go-style messages, not C errno texts.
		msg := err.Error()
		if !strings.HasPrefix(msg, "gofluxion: ") || strings.HasSuffix(msg, "\n") || strings.HasSuffix(msg, ".") {
			t.Errorf("%s: message %q is not Go style", tc.name, msg)
		}
		for _, c := range []string{"No such device", "Invalid argument", "Device or resource busy", "No such file or directory", "ERROR:"} {
			if strings.Contains(msg, c) {
				t.Errorf("%s: message %q reads like C (%q)", tc.name, msg, c)
			}
		}
	}
	// The missing file is also fs.ErrNotExist.
	_, err = gofluxion.ReadGraphFile("/nonexistent/x.graphml")
	if !strings.Contains(err.Error(), "/nonexistent/x.graphml") {
		t.Errorf("ReadGraphFile error %q does not name the path", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// Point 5: times are seconds on the caller's timeline; a zero duration is
// the graph's whole window; fractions round up.
func TestUnits(t *testing.T) {
	m := demo(t, gofluxion.PolicyFirst)
	for _, tc := range []struct {
		d          time.Duration
		at         int64
		start, end int64
	}{
		{60 * time.Second, 100, 100, 160},
		{1500 * time.Millisecond, 0, 0, 2},
		{0, 10, 10, 3153600000},
	} {
		a, err := m.Match(gofluxion.Allocate, jobspec.New(tc.d, jobspec.Slot("s", 1, jobspec.Res("core", 1))), tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if a.Start != tc.start || a.End != tc.end {
			t.Errorf("duration %v at %d: [%d, %d), want [%d, %d)", tc.d, tc.at, a.Start, a.End, tc.start, tc.end)
		}
		j, _ := m.Info(a.JobID)
		if j.Start != tc.start || j.End != tc.end {
			t.Errorf("job table: %+v", j)
		}
	}
}

// Point 6: typed answers.
func TestNodesByNodeAndUsage(t *testing.T) {
	m := demo(t, gofluxion.PolicyLow)
	js := jobspec.New(time.Hour, jobspec.Res("node", 2, jobspec.Slot("s", 1,
		jobspec.Res("socket", 1, jobspec.Res("core", 3), jobspec.Res("gpu", 1), jobspec.Res("memory", 2)))))
	a, err := m.Match(gofluxion.Allocate, js, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(a.Nodes()); got != "[node0 node1]" {
		t.Errorf("Nodes() = %s", got)
	}
	by := a.ByNode()
	if len(by) != 2 {
		t.Fatalf("ByNode() = %+v", by)
	}
	for _, n := range by {
		// Memory comes in 16 GB vertices; a slot takes a vertex whole.
		if n.Cores != 3 || n.GPUs != 1 || n.Memory != 16 || n.Other != nil || n.Exclusive || !strings.HasPrefix(n.Path, "/demo0/rack0/node") {
			t.Errorf("ByNode: %+v, want 3 cores, 1 gpu, 16 GB", n)
		}
	}
	// A reservation for later, and a node down.
	if _, err := m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 6).Exclusively()), 0); err != nil {
		t.Fatal(err)
	}
	r, err := m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Minute, jobspec.Res("node", 1).Exclusively()), 0)
	if err != nil || !r.Reserved {
		t.Fatalf("reservation: %+v, %v", r, err)
	}
	if err := m.SetStatus("/demo0/rack0/node0", false); err != nil {
		t.Fatal(err)
	}
	get := func(at int64, typ string) gofluxion.Usage {
		for _, u := range m.Usage(at) {
			if u.Type == typ {
				return u
			}
		}
		t.Fatalf("no usage of %s", typ)
		return gofluxion.Usage{}
	}
	// node0 is down with 3 of its cores booked: they count as allocated
	// and down, not free. The reserved node's 32 cores are reserved later.
	if u := get(0, "core"); u.Total != 256 || u.Allocated != 6+6*32 || u.Reserved != 32 || u.Down != 32 || u.Free != 256-32-(6-3+6*32) {
		t.Errorf("cores now: %+v", u)
	}
	if u := get(0, "node"); u.Total != 8 || u.Allocated != 6 || u.Down != 1 {
		t.Errorf("nodes now: %+v", u)
	}
	// At its start the reservation runs: in use, nothing later.
	if u := get(r.Start, "node"); u.Allocated != 1 || u.Reserved != 0 {
		t.Errorf("nodes at %d: %+v", r.Start, u)
	}
	if u := get(0, "memory"); u.Total != 8*2*4*16 || u.Allocated != 2*16+6*128 {
		t.Errorf("memory now: %+v", u)
	}
}

// Point 7: a gang names the outer count that falls short.
func TestExplainGang(t *testing.T) {
	m := demo(t, gofluxion.PolicyFirst)
	// Take a gpu from every node but two.
	for i := 0; i < 6; i++ {
		js := jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("gpu", 1)))))
		js.Constraint = &jobspec.Constraint{Op: jobspec.OpHostlist, Values: []string{fmt.Sprintf("node%d", i)}}
		if _, err := m.Match(gofluxion.Allocate, js, 0); err != nil {
			t.Fatal(err)
		}
	}
	gang := jobspec.New(time.Hour, jobspec.Res("node", 4, jobspec.Res("socket", 2, jobspec.Slot("s", 1, jobspec.Res("gpu", 1)))))
	e, err := m.Explain(gang, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "needs 4 node (with 2 socket, 1 gpu each): 2 found now, 8 when free"; e.Reason() != want {
		t.Errorf("reason %q, want %q", e.Reason(), want)
	}
	// Now every node has one gpu left: the outer count is still named
	// first, then the level inside each node that falls short.
	for i := 6; i < 8; i++ {
		js := jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("gpu", 1)))))
		js.Constraint = &jobspec.Constraint{Op: jobspec.OpHostlist, Values: []string{fmt.Sprintf("node%d", i)}}
		if _, err := m.Match(gofluxion.Allocate, js, 0); err != nil {
			t.Fatal(err)
		}
	}
	if e, err = m.Explain(gang, 0); err != nil {
		t.Fatal(err)
	}
	if want := "needs 4 node (with 2 socket, 1 gpu each): 0 found now, 8 when free; needs 2 socket (with 1 gpu each): 1 found now, 2 when free"; e.Reason() != want {
		t.Errorf("reason %q, want %q", e.Reason(), want)
	}
}

// Point 8: named policies; first takes the last node first on the demo.
func TestPolicyConstants(t *testing.T) {
	want := map[string]string{gofluxion.PolicyFirst: "node7", gofluxion.PolicyHigh: "node7", gofluxion.PolicyLow: "node0",
		gofluxion.PolicyLoNode: "node0", gofluxion.PolicyHiNode: "node7"}
	for _, p := range gofluxion.Policies() {
		m := demo(t, p)
		a, err := m.Match(gofluxion.Allocate, nodes(1), 0)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if w, ok := want[p]; ok && a.Nodes()[0] != w {
			t.Errorf("%s picks %v first, want %s", p, a.Nodes(), w)
		}
	}
}

// Point 9: a dry run does not change later decisions.
func TestDryRunKeepsDecisions(t *testing.T) {
	js := jobspec.New(time.Hour, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("core", 4))))
	ref := demo(t, gofluxion.PolicyFirst)
	m := demo(t, gofluxion.PolicyFirst)
	for i := 0; i < 5; i++ {
		want, err := ref.Match(gofluxion.Allocate, js, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []gofluxion.Op{gofluxion.WithoutAllocating, gofluxion.WithoutAllocatingFuture} {
			d, err := m.Match(op, js, 0)
			if err != nil || d.JobID != 0 {
				t.Fatalf("dry run: %+v, %v", d, err)
			}
		}
		got, err := m.Match(gofluxion.Allocate, js, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || got.JobID != want.JobID {
			t.Fatalf("step %d: after dry runs got job %d\n%s\nwant job %d\n%s", i, got.JobID, got, want.JobID, want)
		}
	}
}

// Issue 13 item 5: rendering an allocation races with nothing.
func TestRenderWhileGraphChanges(t *testing.T) {
	m := demo(t, gofluxion.PolicyFirst)
	a, err := m.Match(gofluxion.Allocate, nodes(2), 0)
	if err != nil {
		t.Fatal(err)
	}
	want := a.String()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if err := m.Attach([]byte(fmt.Sprintf(extraNode, 100+i, 100+i, 100+i, 100+i, 100+i))); err != nil {
				t.Error(err)
				return
			}
			if err := m.Remove(fmt.Sprintf("/demo0/rack0/node%d", 100+i)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 50; i++ {
		for _, f := range []string{"rv1", "jgf", "simple"} {
			if _, err := a.Render(f); err != nil {
				t.Fatal(err)
			}
		}
		if a.String() != want {
			t.Fatal("rendering changed")
		}
	}
	wg.Wait()
}

const extraNode = `{"graph": {"nodes": [
 {"id": "0", "metadata": {"type": "cluster", "basename": "demo", "id": 0, "paths": {"containment": "/demo0"}}},
 {"id": "1", "metadata": {"type": "rack", "id": 0, "paths": {"containment": "/demo0/rack0"}}},
 {"id": "9%d", "metadata": {"type": "node", "id": %d, "rank": %d, "paths": {"containment": "/demo0/rack0/node%d"}}}],
 "edges": [{"source": "1", "target": "9%d"}]}}`

// Issue 13 item 8: a snapshot whose schedule holds resources for a job
// missing from the job table is refused, and RestoreFrom changes nothing.
func TestRestoreRefusesOrphanBookings(t *testing.T) {
	m := demo(t, gofluxion.PolicyFirst)
	if _, err := m.Match(gofluxion.Allocate, nodes(1), 0); err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := m.Snapshot(&snap); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(doc map[string]any)) *bytes.Buffer {
		zr, err := gzip.NewReader(bytes.NewReader(snap.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.NewDecoder(zr).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		f(doc)
		var out bytes.Buffer
		zw := gzip.NewWriter(&out)
		if err := json.NewEncoder(zw).Encode(doc); err != nil {
			t.Fatal(err)
		}
		zw.Close()
		return &out
	}
	for name, f := range map[string]func(map[string]any){
		"no job table": func(doc map[string]any) { doc["jobs"] = []any{} },
		"job canceled": func(doc map[string]any) { doc["jobs"].([]any)[0].(map[string]any)["state"] = "CANCELED" },
		"job twice": func(doc map[string]any) {
			doc["jobs"] = append(doc["jobs"].([]any), doc["jobs"].([]any)[0])
		},
		"next id reused": func(doc map[string]any) { doc["next_job"] = 1 },
	} {
		other := demo(t, gofluxion.PolicyLow)
		before := other.Usage(0)
		_, err := gofluxion.Restore(edit(f))
		wantOnly(t, name, err, gofluxion.ErrSnapshot)
		wantOnly(t, name+" (RestoreFrom)", other.RestoreFrom(edit(f)), gofluxion.ErrSnapshot)
		if fmt.Sprint(other.Usage(0)) != fmt.Sprint(before) {
			t.Errorf("%s: a failed RestoreFrom changed the Matcher", name)
		}
	}
	if _, err := gofluxion.Restore(edit(func(map[string]any) {})); err != nil {
		t.Errorf("unedited snapshot: %v", err)
	}
}
