package gofluxion_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Hostile-user tests of the root API: each checks one defect found by
// trying the API as a hostile but realistic user would.

var hostileSentinels = []error{gofluxion.ErrBusy, gofluxion.ErrUnsatisfiable, gofluxion.ErrInvalid, gofluxion.ErrNotFound, gofluxion.ErrExists, gofluxion.ErrSnapshot}

// hostileWantOnly fails unless err is an *Error matching want and no other sentinel.
func hostileWantOnly(t *testing.T, what string, err, want error) {
	t.Helper()
	var e *gofluxion.Error
	if err == nil || !errors.As(err, &e) {
		t.Fatalf("%s: got %v, want a *gofluxion.Error matching %v", what, err, want)
	}
	for _, s := range hostileSentinels {
		if errors.Is(err, s) != (s == want) {
			t.Errorf("%s: %v: errors.Is(err, %v) = %v", what, err, s, errors.Is(err, s))
		}
	}
}

func hostileSnapshot(t *testing.T, m *gofluxion.Matcher) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hostileMatcher(t *testing.T) *gofluxion.Matcher {
	t.Helper()
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// oneCore is a one-core job on one socket of one node, for an hour.
func oneCore() *jobspec.Jobspec {
	return jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Slot("s", 1, jobspec.Res("socket", 1, jobspec.Res("core", 1)))))
}

// Before: at = 3153600000 (the window's end) or MaxInt64 was ErrBusy
// ("resources are busy or down", on an empty graph: a retry loop never
// ends), and AllocateOrElseReserve at MinInt64 a bare "invalid argument".
func TestHostileMatchTimeOutsideWindowIsInvalid(t *testing.T) {
	m := hostileMatcher(t)
	before := hostileSnapshot(t, m)
	for _, at := range []int64{-1, math.MinInt64, 3153600000, math.MaxInt64} {
		for _, op := range []gofluxion.Op{gofluxion.Allocate, gofluxion.AllocateOrElseReserve, gofluxion.AllocateWithSatisfiability, gofluxion.WithoutAllocating, gofluxion.WithoutAllocatingFuture} {
			_, err := m.Match(op, oneCore(), at)
			hostileWantOnly(t, op.String(), err, gofluxion.ErrInvalid)
			if err != nil && !bytes.Contains([]byte(err.Error()), []byte("window")) {
				t.Errorf("at %d: %v does not say the time is outside the window", at, err)
			}
		}
	}
	if !bytes.Equal(before, hostileSnapshot(t, m)) {
		t.Error("refused matches changed the state")
	}
	// The last second of the window still books (cut at its end).
	a, err := m.Match(gofluxion.Allocate, oneCore(), 3153600000-1)
	if err != nil || a.End != 3153600000 {
		t.Fatalf("last second: %v, %v", a, err)
	}
}

// Before: MatchWithID(…, 0, …) and Update(0, R) booked a job 0, the id
// Allocation.JobID uses for "no job" and that NewChild refuses.
func TestHostileJobIDZeroRefused(t *testing.T) {
	m := hostileMatcher(t)
	a, err := m.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Render("rv1")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	before := hostileSnapshot(t, m)
	_, err = m.MatchWithID(gofluxion.Allocate, oneCore(), 0, 0)
	hostileWantOnly(t, "MatchWithID 0", err, gofluxion.ErrInvalid)
	_, err = m.Update(0, []byte(r))
	hostileWantOnly(t, "Update 0", err, gofluxion.ErrInvalid)
	if !bytes.Equal(before, hostileSnapshot(t, m)) {
		t.Error("refused calls changed the state")
	}
	// Dry runs with id 0 are still fine.
	if _, err := m.MatchWithID(gofluxion.WithoutAllocating, oneCore(), 0, 0); err != nil {
		t.Error(err)
	}
}

// Before: NewChild accepted an allocation of another matcher, or one its
// parent had canceled: the child then scheduled resources the parent
// gives to other jobs (a double booking across the hierarchy).
func TestHostileNewChildRequiresLiveParentJob(t *testing.T) {
	m := hostileMatcher(t)
	other := hostileMatcher(t)
	foreign, err := other.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = gofluxion.NewChild(m, foreign, gofluxion.Options{})
	hostileWantOnly(t, "foreign allocation", err, gofluxion.ErrNotFound)

	a, err := m.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.Render("rv1")
	if err := m.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	_, err = gofluxion.NewChild(m, a, gofluxion.Options{})
	hostileWantOnly(t, "canceled allocation", err, gofluxion.ErrNotFound)
	_, err = gofluxion.NewChildFromR(m, a.JobID, []byte(r), gofluxion.Options{})
	hostileWantOnly(t, "canceled R", err, gofluxion.ErrNotFound)

	b, err := m.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gofluxion.NewChild(m, b, gofluxion.Options{}); err != nil {
		t.Fatalf("live allocation: %v", err)
	}
	// An R whose window is not the job's.
	rb, _ := b.Render("rv1")
	long := bytes.Replace([]byte(rb), []byte(`"expiration": 3600`), []byte(`"expiration": 7200`), 1)
	if bytes.Equal(long, []byte(rb)) {
		t.Fatalf("no expiration in %s", rb)
	}
	_, err = gofluxion.NewChildFromR(m, b.JobID, long, gofluxion.Options{})
	hostileWantOnly(t, "R past the job's window", err, gofluxion.ErrInvalid)
}

// Before: RestoreChild attached a child to any parent, even one that
// holds none of the grant's jobs; Release then "succeeded" there.
func TestHostileRestoreChildRequiresParentJobs(t *testing.T) {
	m := hostileMatcher(t)
	a, err := m.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gofluxion.NewChild(m, a, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var snap bytes.Buffer
	if err := c.Snapshot(&snap); err != nil {
		t.Fatal(err)
	}
	_, err = gofluxion.RestoreChild(bytes.NewReader(snap.Bytes()), hostileMatcher(t))
	hostileWantOnly(t, "foreign parent", err, gofluxion.ErrNotFound)
	if _, err := gofluxion.RestoreChild(bytes.NewReader(snap.Bytes()), m); err != nil {
		t.Fatalf("own parent: %v", err)
	}
}

// Before: Render("rv1") of an allocation of whole sockets returned ("",
// nil): a scheduler storing R for restart recovery lost the job. Now the
// formats with a scheduling part render an R that Update reads back, and
// the others fail.
func TestHostileRenderRV1WithoutCoresFails(t *testing.T) {
	m := hostileMatcher(t)
	js := jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Slot("s", 1, jobspec.Res("socket", 2))))
	a, err := m.Match(gofluxion.Allocate, js, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"rv1", "rv1_shorthand"} {
		s, err := a.Render(f)
		if s == "" || err != nil {
			t.Fatalf("%s: %q, %v", f, s, err)
		}
		y := hostileMatcher(t)
		if _, err := y.Update(1, []byte(s)); err != nil {
			t.Errorf("%s: Update of the rendered R: %v", f, err)
		}
	}
	for _, f := range []string{"rv1_nosched", "rlite"} {
		s, err := a.Render(f)
		if s != "" {
			t.Errorf("%s: rendered %q", f, s)
		}
		hostileWantOnly(t, f, err, gofluxion.ErrInvalid)
	}
	for _, f := range []string{"jgf", "simple"} {
		if s, err := a.Render(f); s == "" || err != nil {
			t.Errorf("%s: %q, %v", f, s, err)
		}
	}
}

// editSnapshot decompresses a snapshot, lets f edit its JSON document and
// compresses it again.
func editSnapshot(t *testing.T, snap []byte, f func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(gunzip(t, snap), &doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(out)
	zw.Close()
	return b.Bytes()
}

// Before: Restore took the saved Options as they were: a match format New
// refuses (Allocation.String then returned ""), a policy or traverser
// other than the one the restored state decides with (and Snapshot wrote
// them again), and job table windows that end before they start.
func TestHostileRestoreRefusesInconsistentOptions(t *testing.T) {
	m := hostileMatcher(t)
	if _, err := m.Match(gofluxion.Allocate, oneCore(), 0); err != nil {
		t.Fatal(err)
	}
	snap := hostileSnapshot(t, m)
	if _, err := gofluxion.Restore(bytes.NewReader(editSnapshot(t, snap, func(map[string]any) {}))); err != nil {
		t.Fatalf("unedited snapshot: %v", err)
	}
	opt := func(k string, v any) func(map[string]any) {
		return func(d map[string]any) { d["options"].(map[string]any)[k] = v }
	}
	for name, f := range map[string]func(map[string]any){
		"format":    opt("Format", "bogus"),
		"policy":    opt("Policy", "high"),
		"traverser": opt("Traverser", "flexible"),
		"subsys":    opt("Subsystems", "C+PA"),
		"prune":     opt("PruneFilters", "ALL:gpu"),
		"noprune":   opt("NoPruneFilters", true),
		"depth":     opt("Limits", map[string]any{"MaxDepth": 3}),
		"window": func(d map[string]any) {
			j := d["jobs"].([]any)[0].(map[string]any)
			j["start"], j["end"] = 100, 5
		},
	} {
		_, err := gofluxion.Restore(bytes.NewReader(editSnapshot(t, snap, f)))
		hostileWantOnly(t, name, err, gofluxion.ErrSnapshot)
	}
}

// Attach (the strict JGF reader) accepts a vertex that is neither the
// containment root nor anyone's child: it is added unreachable, Stat counts
// it, SetRankStatus and RankStatus find it by rank, but Remove by its own
// path says there is none.
func TestHostileAttachRefusesOrphanVertex(t *testing.T) {
	m := hostileMatcher(t)
	before := hostileSnapshot(t, m)
	err := m.Attach([]byte(`{"graph":{"nodes":[{"id":"900","metadata":{"type":"node","basename":"node","id":98,"rank":98,"paths":{"containment":"/other/node98"}}}],"edges":[]}}`))
	hostileWantOnly(t, "orphan", err, gofluxion.ErrInvalid)
	if !strings.Contains(err.Error(), "/other/node98") {
		t.Errorf("%v does not name the vertex", err)
	}
	if !bytes.Equal(before, hostileSnapshot(t, m)) {
		t.Error("the refused attach changed the state")
	}
}

// Attach reuses an existing vertex by path and rank whatever the type the
// document gives it: a "core" at /demo0/rack0/node3 is taken for node3,
// silently.
func TestHostileAttachRefusesTypeClash(t *testing.T) {
	m := hostileMatcher(t)
	before := hostileSnapshot(t, m)
	err := m.Attach([]byte(`{"graph":{"nodes":[{"id":"0","metadata":{"type":"cluster","basename":"demo","id":0,"rank":-1,"paths":{"containment":"/demo0"}}},{"id":"1","metadata":{"type":"rack","basename":"rack","id":0,"rank":-1,"paths":{"containment":"/demo0/rack0"}}},{"id":"900","metadata":{"type":"core","basename":"node","id":3,"rank":3,"paths":{"containment":"/demo0/rack0/node3"}}}],"edges":[{"source":"0","target":"1"},{"source":"1","target":"900"}]}}`))
	hostileWantOnly(t, "type clash", err, gofluxion.ErrInvalid)
	if msg := err.Error(); !strings.Contains(msg, "/demo0/rack0/node3") || !strings.Contains(msg, "node") || !strings.Contains(msg, "core") {
		t.Errorf("%v does not name the path and both types", err)
	}
	if !bytes.Equal(before, hostileSnapshot(t, m)) {
		t.Error("the refused attach changed the state")
	}
}

// Attach added a node whose rank another node has: RankStatus and
// SetRankStatus then act on two nodes for one rank.
func TestHostileAttachRefusesRepeatedNodeRank(t *testing.T) {
	m := hostileMatcher(t)
	before := hostileSnapshot(t, m)
	err := m.Attach([]byte(`{"graph":{"nodes":[{"id":"0","metadata":{"type":"cluster","basename":"demo","id":0,"rank":-1,"paths":{"containment":"/demo0"}}},{"id":"1","metadata":{"type":"rack","basename":"rack","id":0,"rank":-1,"paths":{"containment":"/demo0/rack0"}}},{"id":"900","metadata":{"type":"node","basename":"node","id":90,"rank":3,"paths":{"containment":"/demo0/rack0/node90"}}}],"edges":[{"source":"0","target":"1"},{"source":"1","target":"900"}]}}`))
	hostileWantOnly(t, "repeated rank", err, gofluxion.ErrInvalid)
	if msg := err.Error(); !strings.Contains(msg, "rank 3") || !strings.Contains(msg, "/demo0/rack0/node90") || !strings.Contains(msg, "/demo0/rack0/node3") {
		t.Errorf("%v does not name the rank and both paths", err)
	}
	if !bytes.Equal(before, hostileSnapshot(t, m)) {
		t.Error("the refused attach changed the state")
	}
	// A new node with a new rank still attaches.
	ok := strings.Replace(`{"graph":{"nodes":[{"id":"0","metadata":{"type":"cluster","basename":"demo","id":0,"rank":-1,"paths":{"containment":"/demo0"}}},{"id":"1","metadata":{"type":"rack","basename":"rack","id":0,"rank":-1,"paths":{"containment":"/demo0/rack0"}}},{"id":"900","metadata":{"type":"node","basename":"node","id":90,"rank":3,"paths":{"containment":"/demo0/rack0/node90"}}}],"edges":[{"source":"0","target":"1"},{"source":"1","target":"900"}]}}`, `"rank":3`, `"rank":90`, 1)
	if err := m.Attach([]byte(ok)); err != nil {
		t.Errorf("a new rank: %v", err)
	}
}

// Root messages said their prefix twice ("gofluxion: attach: gofluxion:",
// "find: find:", "read /tmp: read /tmp:") or ended in errno text
// (": invalid argument: limit exceeded"); reader limits named the
// reader's field rather than Limits'.
func TestHostileErrorMessagesSayThingsOnce(t *testing.T) {
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Limits: gofluxion.Limits{MaxInputBytes: 300, MaxDepth: 3, MaxRankSet: 2}})
	if err != nil {
		t.Fatal(err)
	}
	three := `{"graph":{"nodes":[{"id":"0","metadata":{"type":"a","paths":{"containment":"/a"}}},{"id":"1","metadata":{"type":"a","paths":{"containment":"/a/b"}}},{"id":"2","metadata":{"type":"a","paths":{"containment":"/a/c"}}}],"edges":[{"source":"0","target":"1"},{"source":"0","target":"2"}]}}`
	for _, c := range []struct {
		name string
		call func() error
		want string // a part of the message
	}{
		{"attach too large", func() error { return m.Attach(make([]byte, 400)) }, "Limits.MaxInputBytes"},
		{"update too large", func() error { _, err := m.Update(5, make([]byte, 400)); return err }, "Limits.MaxInputBytes"},
		{"update bad window", func() error {
			_, err := m.Update(5, []byte(`{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}],"nodelist":["node0"],"starttime":10,"expiration":5}}`))
			return err
		}, "update: "},
		{"find deep", func() error { _, err := m.Find("(((((status=up)))))", "simple"); return err }, "Limits.MaxDepth"},
		{"find bad", func() error { _, err := m.Find("bogus=1", "simple"); return err }, "invalid criteria"},
		{"rank set", func() error { return m.SetRankStatus("0-99", false) }, "Limits.MaxRankSet"},
		{"bad idset", func() error { return m.SetRankStatus("x-y", false) }, "idset"},
		{"read dir", func() error { _, err := gofluxion.ReadGraphFile("/tmp"); return err }, "read /tmp: "},
		{"jgf vertices", func() error {
			_, err := gofluxion.Limits{MaxVertices: 2}.ReadGraph("jgf", []byte(three), "")
			return err
		}, "(Limits.MaxVertices)"},
		{"rv1 vertices", func() error {
			_, err := gofluxion.Limits{MaxVertices: 2}.ReadGraph("rv1exec", []byte(`{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-1"}}],"nodelist":["n[0-1]"]}}`), "")
			return err
		}, "(Limits.MaxVertices)"},
		{"document bytes", func() error {
			_, err := gofluxion.Limits{MaxInputBytes: 10}.ReadGraph("jgf", []byte(three), "")
			return err
		}, "Limits.MaxInputBytes"},
	} {
		err := c.call()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q does not say %q", c.name, msg, c.want)
		}
		if strings.Count(msg, "gofluxion: ") != 1 || !strings.HasPrefix(msg, "gofluxion: ") {
			t.Errorf("%s: %q: want one gofluxion: prefix", c.name, msg)
		}
		parts := strings.Split(msg, ": ")
		for i := 1; i < len(parts); i++ {
			if parts[i] == parts[i-1] {
				t.Errorf("%s: %q says %q twice", c.name, msg, parts[i])
			}
		}
		for _, tail := range []string{"invalid argument", "limit exceeded", "resources busy"} {
			if strings.HasSuffix(msg, tail) {
				t.Errorf("%s: %q ends in errno text", c.name, msg)
			}
		}
		if !errors.Is(err, gofluxion.ErrInvalid) {
			t.Errorf("%s: %v is not ErrInvalid", c.name, err)
		}
	}
}

// Before: Explain at a time outside the window answered "none counted now"
// (as if busy), while Match there is ErrInvalid.
func TestHostileExplainTimeOutsideWindowIsInvalid(t *testing.T) {
	m := hostileMatcher(t)
	for _, at := range []int64{-5, 3153600000, math.MaxInt64} {
		_, err := m.Explain(oneCore(), at)
		hostileWantOnly(t, "explain", err, gofluxion.ErrInvalid)
	}
	if e, err := m.Explain(oneCore(), 0); err != nil || !e.FitsNow {
		t.Errorf("explain at 0: %v, %v", e, err)
	}
}

// Before: an Allocation built as a literal (the natural test double for a
// gofluxion.Interface) panicked in Render and String (nil lock) and in
// ByNode (index out of range).
func TestHostileAllocationLiteralDoesNotPanic(t *testing.T) {
	a := &gofluxion.Allocation{JobID: 7, Start: 0, End: 60, Resources: []gofluxion.Resource{
		{Path: "/c0/node0/core0", Type: "core", Name: "core0", Rank: 0, Units: 1, Exclusive: true},
		{Path: "/c0/node0/core1", Type: "core", Name: "core1", Rank: 0, Units: 1, Exclusive: true},
		{Path: "/c0/node0", Type: "node", Name: "node0", Rank: 0, Units: 1},
		{Path: "/c0", Type: "cluster", Name: "c0", Rank: -1, Units: 1},
	}}
	_, err := a.Render("rv1")
	hostileWantOnly(t, "render", err, gofluxion.ErrInvalid)
	if s := a.String(); s != "" {
		t.Errorf("String() = %q", s)
	}
	bn := a.ByNode()
	if len(bn) != 1 || bn[0].Name != "node0" || bn[0].Cores != 2 || bn[0].Other != nil {
		t.Errorf("ByNode() = %+v", bn)
	}
	var zero gofluxion.Allocation
	if _, err := zero.Render("jgf"); err == nil {
		t.Error("zero Allocation rendered")
	}
	if zero.ByNode() != nil || zero.Nodes() != nil {
		t.Error("zero Allocation has nodes")
	}
}

// Before: Options.Limits.MaxInputBytes bounded graphs, find criteria and
// rank sets but not the jobspecs of ParseJobspec nor the R of Update and
// PartialCancel, though Limits "bound every input of the package".
func TestHostileLimitsBoundJobspecsAndRs(t *testing.T) {
	src := hostileMatcher(t)
	a, err := src.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.Render("rv1")
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Limits: gofluxion.Limits{MaxInputBytes: 200}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Match(gofluxion.Allocate, oneCore(), 0); err != nil {
		t.Fatal(err)
	}
	before := hostileSnapshot(t, m)
	check := func(what string, err error) {
		t.Helper()
		hostileWantOnly(t, what, err, gofluxion.ErrInvalid)
		if !errors.Is(err, gofluxion.ErrLimit) {
			t.Errorf("%s: %v does not match ErrLimit", what, err)
		}
	}
	_, err = m.ParseJobspec([]byte(oneSocket))
	check("ParseJobspec", err)
	_, err = m.Update(9, []byte(r))
	check("Update", err)
	_, err = m.PartialCancel(1, []byte(r))
	check("PartialCancel", err)
	if !bytes.Equal(before, hostileSnapshot(t, m)) {
		t.Error("refused calls changed the state")
	}
}

// Before: an R without starttime (absent or null: 0, as in Fluxion) had
// its expiration ignored and was booked for the whole 100-year window;
// an expiration of 1e300 read as "negative duration".
func TestHostileUpdateWindowFromExpirationAlone(t *testing.T) {
	src := hostileMatcher(t)
	a, err := src.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.Render("rv1")
	const orig = `"starttime": 0, "expiration": 3600`
	if !strings.Contains(r, orig) {
		t.Fatalf("no %s in %s", orig, r)
	}
	for _, repl := range []string{`"starttime": null, "expiration": 3600`, `"expiration": 3600`} {
		m := hostileMatcher(t)
		b, err := m.Update(5, []byte(strings.Replace(r, orig, repl, 1)))
		if err != nil {
			t.Fatalf("%s: %v", repl, err)
		}
		if b.Start != 0 || b.End != 3600 {
			t.Errorf("%s: booked [%d, %d), want [0, 3600)", repl, b.Start, b.End)
		}
	}
	m := hostileMatcher(t)
	_, err = m.Update(5, []byte(strings.Replace(r, orig, `"starttime": 0, "expiration": 1e300`, 1)))
	hostileWantOnly(t, "huge expiration", err, gofluxion.ErrInvalid)
	if !strings.Contains(fmt.Sprint(err), "expiration") {
		t.Errorf("%v does not name the expiration", err)
	}
}

// Before: NewChild and NewChildFromR only needed the parent to hold some
// job with the grant's id: an allocation of another matcher, or the R of
// another job, under a live job id gave the child resources its parent
// gives to others.
func TestHostileNewChildGrantMustBeTheJobs(t *testing.T) {
	m := hostileMatcher(t)
	a, err := m.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Same id, same window, another matcher's resources.
	other := hostileMatcher(t)
	other.SetStatus(a.Resources[len(a.Resources)-3].Path, false) // another node than a's
	foreign, err := other.Match(gofluxion.Allocate, oneCore(), 0)
	if err != nil || foreign.JobID != a.JobID {
		t.Fatalf("foreign: %v, %v", foreign, err)
	}
	_, err = gofluxion.NewChild(m, foreign, gofluxion.Options{})
	hostileWantOnly(t, "foreign allocation under a live id", err, gofluxion.ErrInvalid)
	// Job b's R under job a's id.
	rb, _ := b.Render("rv1")
	_, err = gofluxion.NewChildFromR(m, a.JobID, []byte(rb), gofluxion.Options{})
	hostileWantOnly(t, "another job's R", err, gofluxion.ErrInvalid)
	// The right ones still work.
	if _, err := gofluxion.NewChild(m, a, gofluxion.Options{}); err != nil {
		t.Errorf("own allocation: %v", err)
	}
	if _, err := gofluxion.NewChildFromR(m, b.JobID, []byte(rb), gofluxion.Options{}); err != nil {
		t.Errorf("own R: %v", err)
	}
}

// Before: WriteJGF(nil) panicked, where New(nil) is ErrInvalid.
func TestHostileWriteJGFNilGraph(t *testing.T) {
	_, err := gofluxion.WriteJGF(nil)
	hostileWantOnly(t, "WriteJGF(nil)", err, gofluxion.ErrInvalid)
}

// Release gives the whole grant back while the child's own jobs still hold
// resources in it: the parent then allocates them to another job, so the
// same socket is held by a child job and by a parent job at once. Shrink
// refuses that case (ErrBusy); Release did not. Now it refuses too, and
// changes nothing, until the child's jobs are canceled.
func TestHostileReleaseWithLiveChildJobs(t *testing.T) {
	m := hostileMatcher(t)
	whole := jobspec.New(time.Hour, jobspec.Res("node", 8, jobspec.Slot("s", 1, jobspec.Res("socket", 2))))
	a, err := m.Match(gofluxion.Allocate, whole, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gofluxion.NewChild(m, a, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cj, err := c.Match(gofluxion.Allocate, jobspec.New(time.Minute, jobspec.Res("node", 1, jobspec.Slot("s", 1, jobspec.Res("socket", 1)))), 0)
	if err != nil {
		t.Fatal(err)
	}
	pbefore := hostileSnapshot(t, m)
	err = c.Release()
	hostileWantOnly(t, "release with a live child job", err, gofluxion.ErrBusy)
	if len(c.Grant().Parts) != 1 || !bytes.Equal(pbefore, hostileSnapshot(t, m)) {
		t.Fatal("the refused release changed the grant or the parent")
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("job %d ", cj.JobID)) {
		t.Errorf("%v does not name the child's job", err)
	}
	if err := c.Cancel(cj.JobID); err != nil {
		t.Fatal(err)
	}
	if err := c.Release(); err != nil {
		t.Fatalf("release after cancel: %v", err)
	}
	if j, err := m.Info(a.JobID); err != nil || j.State != gofluxion.Canceled {
		t.Errorf("the parent's grant job: %+v, %v", j, err)
	}
}

// An rv1exec R whose nodelist names one host twice ("n0,n0" for ranks
// 0-1) loads as two nodes with the same path /cluster0/n0: path lookups
// (SetStatus, Remove, Find names=) then act on both or the first.
func TestHostileRV1ExecRefusesDuplicateHosts(t *testing.T) {
	_, err := gofluxion.ReadGraph("rv1exec", []byte(`{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-1"}}],"nodelist":["n0,n0"]}}`), "")
	hostileWantOnly(t, "duplicate hosts", err, gofluxion.ErrInvalid)
	if !strings.Contains(fmt.Sprint(err), "host n0") {
		t.Errorf("%v does not name the host", err)
	}
	// Distinct hosts load.
	if _, err := gofluxion.ReadGraph("rv1exec", []byte(`{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0-1"}}],"nodelist":["n0,n1"]}}`), ""); err != nil {
		t.Error(err)
	}
}
