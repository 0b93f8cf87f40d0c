package gofluxion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Minimal reproducers of what TestModel found. Each fails while its bug is
// there; those whose fix is in flight on another branch skip, naming it.

func reproJobspec(t *testing.T, x *Matcher, resources string, duration int) *jobspec.Jobspec {
	t.Helper()
	js, err := x.ParseJobspec([]byte("version: 1\nresources: " + resources + "\nattributes: {system: {duration: " +
		strconv.Itoa(duration) + "}}\ntasks: [{command: [app], slot: default, count: {per_slot: 1}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func reproSnapshot(t *testing.T, x *Matcher) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := x.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jobLeafPaths returns the cores, gpus and memory the schedule books for
// job id.
func jobLeafPaths(t *testing.T, x *Matcher, id uint64) []string {
	t.Helper()
	out, err := x.FindAt(fmt.Sprintf("jobid-alloc=%d or jobid-reserved=%d", id, id), "jgf", 0)
	if err != nil {
		t.Fatal(err)
	}
	return jgfPaths(out, true)
}

// tinyNodes builds cluster m0 → node0..node{n-1} → socket0 → cores, with a
// rank on the nodes only (as GRUG recipes and the demo graph have).
func tinyNodes(n, cores int) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	for i := range n {
		nd := b.MustAdd(c, "node", int64(i), graph.WithRank(int64(i)))
		s := b.MustAdd(nd, "socket", 0)
		for k := range cores {
			b.MustAdd(s, "core", int64(k))
		}
	}
	return b.Graph()
}

// TestReproRankPartialCancelDoubleBooks: in a graph whose ranks are on the
// nodes only, PartialCancel by rank of a node-exclusive job released the
// node vertex but not the cores below it; another node-exclusive request
// then took the node with the cores the first job still held. (The first
// version had one node: the rank form now releases what is below the
// node, so the job, released whole, holds nothing; with two nodes it
// keeps node1.)
func TestReproRankPartialCancelDoubleBooks(t *testing.T) {
	x, err := New(tinyNodes(2, 2), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: node, count: 2, exclusive: true}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	full, err := x.PartialCancel(a.JobID, []byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-1"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 9}}`))
	if err != nil || full {
		t.Fatalf("PartialCancel: full=%v, %v", full, err)
	}
	held := jobLeafPaths(t, x, a.JobID)
	if want := []string{"/m0/node1/socket0/core0", "/m0/node1/socket0/core1"}; !slices.Equal(held, want) {
		t.Errorf("after the partial cancel of rank 0, job %d books %v, want %v", a.JobID, held, want)
	}
	b, err := x.Match(Allocate, reproJobspec(t, x, "[{type: node, count: 1, exclusive: true}]", 9), 0)
	if err != nil {
		t.Fatalf("node0 is free again, but a request for a whole node fails: %v", err)
	}
	for _, r := range b.Resources {
		for _, h := range held {
			if r.Exclusive && (h == r.Path || strings.HasPrefix(h, r.Path+"/")) {
				t.Errorf("job %d holds %s exclusively while job %d holds %s", b.JobID, r.Path, a.JobID, h)
			}
		}
	}
}

// TestReproRankPartialCancelThenCancelLeaks: after a rank-form partial
// cancel in a graph whose ranks are on the nodes only, Cancel succeeded
// but the cores of the released node stayed booked. (The first version
// had one node, which the rank form now releases whole.)
func TestReproRankPartialCancelThenCancelLeaks(t *testing.T) {
	x, err := New(tinyNodes(2, 2), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 2, label: default, with: [{type: core, count: 2}]}]", 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	full, err := x.PartialCancel(a.JobID, []byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-1"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 3153600000}}`))
	if err != nil || full {
		t.Fatalf("PartialCancel: full=%v, %v", full, err)
	}
	if held := jobLeafPaths(t, x, a.JobID); !slices.Equal(held, []string{"/m0/node1/socket0/core0", "/m0/node1/socket0/core1"}) {
		t.Errorf("after the partial cancel of rank 0, job %d books %v, want node1's cores", a.JobID, held)
	}
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	if held := jobLeafPaths(t, x, a.JobID); len(held) > 0 {
		t.Errorf("cancelled job %d still books %v (for ever: its duration is the whole window)", a.JobID, held)
	}
	if out, _ := x.FindAt(fmt.Sprintf("jobid-tag=%d or jobid-span=%d or jobid-alloc=%d", a.JobID, a.JobID, a.JobID), "simple", 0); out != "" {
		t.Errorf("after the cancel, job %d still has records:\n%s", a.JobID, out)
	}
}

// TestReproRemovedHeldRestore: Remove of a node whose memory a job holds
// leaves the job's counts in the cluster's pruning filter, above the
// filter's new total: the Snapshot cannot be restored.
func TestReproRemovedHeldRestore(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n0 := b.MustAdd(c, "node", 0, graph.WithRank(0))
	b.MustAdd(n0, "core", 0)
	n1 := b.MustAdd(c, "node", 1, graph.WithRank(1))
	b.MustAdd(n1, "memory", 0, graph.WithSize(6), graph.WithUnit("GB"))
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: memory, count: 6}]}]", 9), 0); err != nil {
		t.Fatal(err)
	}
	if err := x.Remove("/m0/node1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(bytes.NewReader(reproSnapshot(t, x))); err != nil {
		t.Errorf("Restore of a fresh Snapshot: %v", err)
	}
}

// TestReproRemovedHeldCancel: Remove of a core a job holds, then Cancel of
// the job: the job's records on the removed core stay (in the Snapshot),
// and Restore refuses that Snapshot (records of a job not in the table).
func TestReproRemovedHeldCancel(t *testing.T) {
	x, err := New(tinyNodes(1, 2), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Remove("/m0/node0/socket0/core1"); err != nil {
		t.Fatal(err)
	}
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	snap := reproSnapshot(t, x)
	var doc struct {
		Matcher struct {
			Jobs []json.RawMessage `json:"jobs"`
		} `json:"matcher"`
	}
	if err := json.Unmarshal([]byte(normalized(snap)), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Matcher.Jobs) > 0 {
		t.Errorf("after every job is cancelled the schedule still has records: %s", doc.Matcher.Jobs[0])
	}
	y, err := Restore(bytes.NewReader(snap))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if s := reproSnapshot(t, y); !bytes.Equal(s, snap) {
		t.Errorf("a restored copy differs from the original: %s", snapDiff(snap, s))
	}
}

// TestReproRemovedHeldEmission: after Remove of a core a job holds, the
// socket's pruning filter still counts it against a smaller total: a
// request for the socket's two free cores fails as busy. (The model test
// also met the variant where such a request succeeds with an R that lacks
// the socket, whose filter span could not be booked, an R that Update then
// refuses.)
func TestReproRemovedHeldEmission(t *testing.T) {
	x, err := New(tinyNodes(1, 4), Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	two := reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 2}]}]", 9)
	if _, err := x.Match(Allocate, two, 0); err != nil { // core2, core3
		t.Fatal(err)
	}
	if err := x.Remove("/m0/node0/socket0/core3"); err != nil {
		t.Fatal(err)
	}
	b, err := x.Match(Allocate, two, 0) // core0, core1
	if err != nil {
		t.Fatalf("core0 and core1 are free, but a request for two cores fails (socket0's filter counts the removed core3): %v", err)
	}
	var paths []string
	for _, r := range b.Resources {
		paths = append(paths, r.Path)
	}
	if !slices.Contains(paths, "/m0/node0/socket0") {
		t.Errorf("job %d holds cores of socket0 but its allocation lacks the socket: %v", b.JobID, paths)
	}
	R, _ := b.Render("rv1")
	if err := x.Cancel(b.JobID); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(b.JobID, []byte(R)); err != nil {
		t.Errorf("Update from the job's own R, its cores free again: %v", err)
	}
}

// TestReproAutomaticJobIDReused: once MatchWithID used 2^64-2, the
// automatic id reaches 2^64-1 and stays there: Match gives 2^64-1 to a
// second job while the first holds it (two jobs merged under one id). Such
// a Matcher's Snapshot cannot be restored either ("job 2^64-1 is not below
// the next job id").
func TestReproAutomaticJobIDReused(t *testing.T) {
	x, err := New(tinyNodes(2, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	core := reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]", 9)
	if _, err := x.MatchWithID(Allocate, core, math.MaxUint64-1, 0); err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, core, 0) // gets 2^64-1
	if err != nil {
		t.Fatal(err)
	}
	b, err := x.Match(Allocate, core, 0)
	if err == nil && b.JobID == a.JobID {
		t.Errorf("Match gave job id %d, which job %d still holds (%v)", b.JobID, a.JobID, jobLeafPaths(t, x, a.JobID))
	}
	if _, err := Restore(bytes.NewReader(reproSnapshot(t, x))); err != nil {
		t.Errorf("Restore: %v", err)
	}
}

// TestReproUpdateEmitsUnbooked: under a node-exclusive policy, Update of
// an R written before a socket was attached under its node lists the new
// socket's core in the allocation without booking it.
func TestReproUpdateEmitsUnbooked(t *testing.T) {
	x, err := New(tinyNodes(1, 1), Options{Policy: "hinodex"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	doc := `{"graph": {"nodes": [` +
		`{"id": "0", "metadata": {"type": "cluster", "basename": "m", "name": "m0", "id": 0, "rank": -1, "paths": {"containment": "/m0"}}}, ` +
		`{"id": "1", "metadata": {"type": "node", "basename": "node", "name": "node0", "id": 0, "rank": 0, "paths": {"containment": "/m0/node0"}}}, ` +
		`{"id": "100", "metadata": {"type": "socket", "basename": "socket", "name": "socket9", "id": 9, "rank": -1, "paths": {"containment": "/m0/node0/socket9"}}}, ` +
		`{"id": "101", "metadata": {"type": "core", "basename": "core", "name": "core9", "id": 9, "rank": -1, "paths": {"containment": "/m0/node0/socket9/core9"}}}], ` +
		`"edges": [{"source": "0", "target": "1"}, {"source": "1", "target": "100"}, {"source": "100", "target": "101"}]}}`
	if err := x.Attach([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	u, err := x.Update(7, []byte(R))
	if err != nil {
		t.Fatal(err)
	}
	booked := jobLeafPaths(t, x, 7)
	for _, r := range u.Resources {
		if isLeafType(r.Type) && !slices.Contains(booked, r.Path) {
			t.Errorf("Update's allocation lists %s, which the schedule does not book for job 7 (it books %v)", r.Path, booked)
		}
	}
}

// TestReproUpNodeCountDrifts: with a rack down, RemoveRanks("") succeeds
// and changes the state: it recounts the up nodes by their own status
// (2), where SetStatus had counted the nodes below the down rack as down
// (0). The count feeds the node-count pre-check of every match.
func TestReproUpNodeCountDrifts(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	r := b.MustAdd(c, "rack", 0)
	for i := range 2 {
		n := b.MustAdd(r, "node", int64(i))
		b.MustAdd(n, "core", 0)
	}
	x, err := New(b.Graph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetStatus("/m0/rack0", false); err != nil {
		t.Fatal(err)
	}
	before := reproSnapshot(t, x)
	if err := x.RemoveRanks(""); err != nil {
		return // refusing the empty set is fine
	}
	if after := reproSnapshot(t, x); !bytes.Equal(before, after) {
		t.Errorf("RemoveRanks(\"\") changed the state: %s", snapDiff(before, after))
	}
}

// TestReproPartialCancelAcrossSockets: a job holds the four cores of two
// sockets; a JGF partial cancel listing three of them (on both sockets)
// gives every ancestor of the first listed core the counts of all three.
// The cancel is refused ("can't reduce the filter span ... at socket0");
// before the atomic partial cancel (wt-ops), the failed reduction was
// ignored and socket1's span never reduced, so both counted released cores
// as busy and a request for the three free cores failed.
func TestReproPartialCancelAcrossSockets(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	for si := range 2 {
		s := b.MustAdd(n, "socket", int64(si), graph.WithRank(0))
		for k := range 2 {
			b.MustAdd(s, "core", int64(si*2+k), graph.WithRank(0))
		}
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 2, label: default, with: [{type: core, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	cores := filterR([]byte(R), func(p string, excl bool) bool {
		return excl && strings.Contains(p, "/core") && !strings.HasSuffix(p, "core3")
	}, nil)
	full, err := x.PartialCancel(a.JobID, cores)
	if err != nil {
		t.Fatalf("PartialCancel of the job's cores: %v", err)
	}
	if full {
		t.Fatalf("PartialCancel of the cores released the whole job")
	}
	if _, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 3, label: default, with: [{type: core, count: 1}]}]", 9), 0); err != nil {
		t.Errorf("core0, core1 and core2 are free again, but a request for three cores fails: %v", err)
	}
}

// TestReproPartialCancelOfEverythingNotFull: a partial cancel listing every
// vertex a job holds below the cluster leaves the job ALLOCATED (full is
// false), holding nothing but the cluster vertex.  (In the model test, a
// later Cancel of such a job then left records on the vertices above.)
func TestReproPartialCancelOfEverythingNotFull(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	for k := range 3 {
		b.MustAdd(n, "core", int64(k), graph.WithRank(0))
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(a.JobID, noSched([]byte(R))); err != nil {
		t.Fatal(err)
	}
	below := filterR([]byte(R), func(p string, _ bool) bool { return p != "/m0" }, nil)
	full, err := x.PartialCancel(a.JobID, below)
	if err != nil {
		t.Fatal(err)
	}
	if !full {
		j, _ := x.Info(a.JobID)
		t.Errorf("PartialCancel released everything below the cluster, full=false, job %d is %v holding %v", a.JobID, j.State, jobLeafPaths(t, x, a.JobID))
		if err := x.Cancel(a.JobID); err != nil {
			t.Fatal(err)
		}
	}
	if out, _ := x.FindAt(fmt.Sprintf("jobid-tag=%d or jobid-span=%d or jobid-alloc=%d", a.JobID, a.JobID, a.JobID), "simple", 0); out != "" {
		t.Errorf("after the cancel, job %d still has records:\n%s", a.JobID, out)
	}
}

// TestReproRenderRV1WithoutCores: an allocation of memory only renders in
// rv1 (the default format) as "" with no error, and String is "".
func TestReproRenderRV1WithoutCores(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	b.MustAdd(n, "core", 0)
	b.MustAdd(n, "memory", 0, graph.WithSize(4), graph.WithUnit("GB"))
	x, err := New(b.Graph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: memory, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := a.Render("rv1"); s == "" && err == nil {
		t.Errorf("Render(\"rv1\") of job %d (%d resources) is empty without an error", a.JobID, len(a.Resources))
	}
}

// --- fixed since (issue 13 items 1, 4, 8 and the root API's errors): kept as regression tests ---

// TestReproPartialCancelUnknownVertexAtomic: a partial cancel whose R lists
// the job's cores and then a vertex the graph lacks fails after releasing
// the cores (issue 13 item 1's shape).
func TestReproPartialCancelUnknownVertexAtomic(t *testing.T) {
	x, err := New(tinyNodes(1, 2), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	bad := filterR([]byte(R), func(_ string, excl bool) bool { return excl }, []json.RawMessage{json.RawMessage(`{"id": "99", "metadata": {"type": "core", "id": 7, "rank": 0, "exclusive": true, "paths": {"containment": "/m0/node7/core7"}}}`)})
	before := reproSnapshot(t, x)
	if _, err := x.PartialCancel(a.JobID, bad); err == nil {
		t.Fatal("PartialCancel with a vertex the graph lacks succeeded")
	}
	if after := reproSnapshot(t, x); !bytes.Equal(before, after) {
		t.Errorf("the failed PartialCancel changed the state: %s", snapDiff(before, after))
	}
}

// TestReproDryRunLeavesStateAlone: WithoutAllocating changes the state
// (Fluxion re-orders the candidates of dynamic-order policies).
func TestReproDryRunLeavesStateAlone(t *testing.T) {
	x, err := New(tinyNodes(2, 2), Options{Policy: "first"})
	if err != nil {
		t.Fatal(err)
	}
	before := reproSnapshot(t, x)
	if _, err := x.Match(WithoutAllocating, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]", 9), 0); err != nil {
		t.Fatal(err)
	}
	if after := reproSnapshot(t, x); !bytes.Equal(before, after) {
		t.Errorf("WithoutAllocating changed the state: %s", snapDiff(before, after))
	}
}

// TestReproErrorsMatchSentinels: errors of SetStatus (unknown path),
// Update, Attach and PartialCancel from the layers below match no sentinel.
func TestReproErrorsMatchSentinels(t *testing.T) {
	x, err := New(tinyNodes(1, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetStatus("/m0/node9", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetStatus of an unknown path: %v, want ErrNotFound", err)
	}
	if err := x.Attach([]byte(`{"graph": {"nodes": [{"id": "0"}], "edges": []}}`)); errClass(err) == "unclassified" {
		t.Errorf("Attach of a bad JGF: %v matches no sentinel", err)
	}
	if _, err := x.Update(1, []byte(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "core", "id": 0, "rank": 0, "paths": {"containment": "/m0/nowhere0/core0"}}}], "edges": []}}`)); errClass(err) == "unclassified" {
		t.Errorf("Update of an R with an unknown vertex: %v matches no sentinel", err)
	}
}

// TestReproAttachNegativeSize: Attach accepts a JGF vertex of size -5.
func TestReproAttachNegativeSize(t *testing.T) {
	x, err := New(tinyNodes(1, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Attach([]byte(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "memory", "id": 1, "rank": -1, "size": -5, "paths": {"containment": "/m0/memory1"}}}], "edges": []}}`)); err == nil {
		t.Error("Attach of a memory vertex of size -5 succeeded")
	}
}

// TestReproRemoveRanksOfReservation: RemoveRanks releases what a reserved
// job holds on the ranks but gives nothing back to the ancestors' pruning
// filters (only allocations are counted): the cluster's filter keeps the
// reservation's four cores against a total of two, and the Snapshot can
// no longer be restored.
func TestReproRemoveRanksOfReservation(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	for i := range 2 {
		n := b.MustAdd(c, "node", int64(i), graph.WithRank(int64(i)))
		for k := range 2 {
			b.MustAdd(n, "core", int64(k), graph.WithRank(int64(i)))
		}
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]", 9), 0); err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(AllocateOrElseReserve, reproJobspec(t, x, "[{type: slot, count: 4, label: default, with: [{type: core, count: 1}]}]", 9), 0)
	if err != nil || !a.Reserved {
		t.Fatalf("the four-core job: %v (reserved %v)", err, a != nil && a.Reserved)
	}
	if err := x.RemoveRanks("1"); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(bytes.NewReader(reproSnapshot(t, x))); err != nil {
		t.Errorf("Restore of a fresh Snapshot: %v", err)
	}
}

// TestReproUpdateStaleExclusive: Update of an R that took node0 whole,
// written before a socket was attached under node0, books node0
// exclusively although another job holds the new socket's core later in
// the R's window.
func TestReproUpdateStaleExclusive(t *testing.T) {
	x, err := New(tinyNodes(1, 1), Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: node, count: 1, exclusive: true}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	doc := `{"graph": {"nodes": [` +
		`{"id": "0", "metadata": {"type": "cluster", "basename": "m", "name": "m0", "id": 0, "rank": -1, "paths": {"containment": "/m0"}}}, ` +
		`{"id": "1", "metadata": {"type": "node", "basename": "node", "name": "node0", "id": 0, "rank": 0, "paths": {"containment": "/m0/node0"}}}, ` +
		`{"id": "100", "metadata": {"type": "socket", "basename": "socket", "name": "socket9", "id": 9, "rank": -1, "paths": {"containment": "/m0/node0/socket9"}}}, ` +
		`{"id": "101", "metadata": {"type": "core", "basename": "core", "name": "core9", "id": 9, "rank": -1, "paths": {"containment": "/m0/node0/socket9/core9"}}}], ` +
		`"edges": [{"source": "0", "target": "1"}, {"source": "1", "target": "100"}, {"source": "100", "target": "101"}]}}`
	if err := x.Attach([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	b, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]", 9), 100)
	if err != nil {
		t.Fatal(err)
	}
	// The bare JGF form: the whole window [0, end of time).
	if _, err := x.Update(7, bareJGF([]byte(R))); err == nil {
		t.Errorf("Update took node0 exclusively while job %d holds %v below it", b.JobID, jobLeafPaths(t, x, b.JobID))
	}
}

// TestReproPartialCancelAcrossSocketsThenCancel: the job of
// TestReproPartialCancelAcrossSockets, with all four cores listed: the
// partial cancel releases the job (full=true) but leaves its records
// (tags, exclusivity spans) on the sockets, the node and the cluster, which
// then cannot be taken exclusively until the job's window ends.
func TestReproPartialCancelAcrossSocketsThenCancel(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	for si := range 2 {
		s := b.MustAdd(n, "socket", int64(si), graph.WithRank(0))
		for k := range 2 {
			b.MustAdd(s, "core", int64(si*2+k), graph.WithRank(0))
		}
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 2, label: default, with: [{type: core, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	cores := filterR([]byte(R), func(p string, excl bool) bool { return excl && strings.Contains(p, "/core") }, nil)
	full, err := x.PartialCancel(a.JobID, cores)
	if err != nil {
		t.Fatalf("PartialCancel of the job's cores: %v", err)
	}
	if !full {
		if err := x.Cancel(a.JobID); err != nil {
			t.Fatal(err)
		}
	}
	if out, _ := x.FindAt(fmt.Sprintf("jobid-tag=%d or jobid-span=%d or jobid-alloc=%d", a.JobID, a.JobID, a.JobID), "simple", 0); out != "" {
		t.Errorf("job %d is cancelled (partial cancel full=%v, then Cancel) but still has records:\n%s", a.JobID, full, out)
	}
	if _, err := x.Match(Allocate, reproJobspec(t, x, "[{type: node, count: 1, exclusive: true}]", 9), 0); err != nil {
		t.Errorf("nothing is allocated, but the node cannot be taken whole: %v", err)
	}
}

// TestReproRestoreAfterRemoveDiffers: Remove of rack0's only node leaves
// rack0 with a pruning filter over nothing in the original, which a
// restored copy does not have: find in agfilter mode (and Explain's
// counts, in the model test) answer differently.
func TestReproRestoreAfterRemoveDiffers(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	for ri := range 2 {
		r := b.MustAdd(c, "rack", int64(ri))
		n := b.MustAdd(r, "node", int64(ri))
		b.MustAdd(n, "core", 0)
	}
	x, err := New(b.Graph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Remove("/m0/rack0/node0"); err != nil {
		t.Fatal(err)
	}
	y, err := Restore(bytes.NewReader(reproSnapshot(t, x)))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := x.FindAt("agfilter=true", "pretty_simple", 0)
	b2, _ := y.FindAt("agfilter=true", "pretty_simple", 0)
	if a != b2 {
		t.Errorf("find agfilter=true on the original:\n%s\non the restored copy:\n%s", a, b2)
	}
}

// TestReproPartialCancelThenCancelLeaks: a job holds memory on two nodes;
// a JGF partial cancel of node1's memory, then Cancel: node0's memory stays
// booked for the cancelled job.
func TestReproPartialCancelThenCancelLeaks(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	r := b.MustAdd(c, "rack", 0)
	for i := range 2 {
		n := b.MustAdd(r, "node", int64(i), graph.WithRank(int64(i)))
		s := b.MustAdd(n, "socket", 0, graph.WithRank(int64(i)))
		b.MustAdd(s, "core", 0, graph.WithRank(int64(i)))
		b.MustAdd(s, "memory", 0, graph.WithRank(int64(i)), graph.WithSize(4), graph.WithUnit("GB"))
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 2, label: default, with: [{type: memory, count: 1}]}]", 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	R := bareJGF(ReproR(t, a))
	full, err := x.PartialCancel(a.JobID, filterR(R, func(p string, excl bool) bool { return excl && strings.HasPrefix(p, "/m0/rack0/node1/") }, nil))
	if err != nil || full {
		t.Fatalf("PartialCancel of node1's memory: full=%v, %v", full, err)
	}
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	if held := jobLeafPaths(t, x, a.JobID); len(held) > 0 {
		t.Errorf("cancelled job %d still books %v (for ever: its duration is the whole window)", a.JobID, held)
	}
}

// ReproR renders a's R as the jgf writer does, wrapped as an rv1 R.
func ReproR(t *testing.T, a *Allocation) []byte {
	t.Helper()
	g, err := a.Render("jgf")
	if err != nil {
		t.Fatal(err)
	}
	return []byte(`{"version": 1, "execution": {"R_lite": [], "nodelist": [], "starttime": 0, "expiration": 1}, "scheduling": ` + g + `}`)
}

// TestReproRemoveRanksKeepsOrphans: in a graph whose ranks are on the nodes
// only, RemoveRanks leaves the vertices below the node findable by path:
// attaching the node again brings them back with their old state (here a
// core that was down).
func TestReproRemoveRanksKeepsOrphans(t *testing.T) {
	x, err := New(tinyNodes(2, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetStatus("/m0/node1/socket0/core1", false); err != nil {
		t.Fatal(err)
	}
	if err := x.RemoveRanks("1"); err != nil {
		t.Fatal(err)
	}
	doc := `{"graph": {"nodes": [` +
		`{"id": "0", "metadata": {"type": "cluster", "basename": "m", "name": "m0", "id": 0, "rank": -1, "paths": {"containment": "/m0"}}}, ` +
		`{"id": "100", "metadata": {"type": "node", "basename": "node", "name": "node1", "id": 1, "rank": 1, "paths": {"containment": "/m0/node1"}}}, ` +
		`{"id": "101", "metadata": {"type": "socket", "basename": "socket", "name": "socket0", "id": 0, "rank": -1, "paths": {"containment": "/m0/node1/socket0"}}}, ` +
		`{"id": "102", "metadata": {"type": "core", "basename": "core", "name": "core0", "id": 0, "rank": -1, "paths": {"containment": "/m0/node1/socket0/core0"}}}, ` +
		`{"id": "103", "metadata": {"type": "core", "basename": "core", "name": "core1", "id": 1, "rank": -1, "paths": {"containment": "/m0/node1/socket0/core1"}}}], ` +
		`"edges": [{"source": "0", "target": "100"}, {"source": "100", "target": "101"}, {"source": "101", "target": "102"}, {"source": "101", "target": "103"}]}}`
	if err := x.Attach([]byte(doc)); err != nil {
		t.Fatal(err)
	}
	if out, _ := x.FindAt("status=down", "simple", 0); out != "" {
		t.Errorf("the node attached again has down vertices:\n%s", out)
	}
}

// TestReproRemoveRanksThenCancelLeaks: a job holds memory on two nodes of
// a rack; RemoveRanks of node1's rank, then Cancel: node0's memory stays
// booked for the cancelled job (the release untagged the rack, and Cancel
// no longer reaches node0).
func TestReproRemoveRanksThenCancelLeaks(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	r := b.MustAdd(c, "rack", 0)
	for i := range 3 {
		n := b.MustAdd(r, "node", int64(i), graph.WithRank(int64(i)))
		s := b.MustAdd(n, "socket", 0, graph.WithRank(int64(i)))
		b.MustAdd(s, "core", 0, graph.WithRank(int64(i)))
		b.MustAdd(s, "memory", 0, graph.WithRank(int64(i)), graph.WithSize(4), graph.WithUnit("GB"))
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 2, label: default, with: [{type: memory, count: 1}]}]", 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := x.RemoveRanks("1"); err != nil {
		t.Fatal(err)
	}
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	if held := jobLeafPaths(t, x, a.JobID); len(held) > 0 {
		t.Errorf("cancelled job %d still books %v (for ever: its duration is the whole window)", a.JobID, held)
	}
}

// TestReproUpdateRV1ExecNodeExclusive: Update from an execution-only R
// listing gpu1 of node0 gives an allocation that holds node0 exclusively,
// while another job holds gpu0 on node0.
func TestReproUpdateRV1ExecNodeExclusive(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	b.MustAdd(n, "core", 0, graph.WithRank(0))
	for k := range 2 {
		b.MustAdd(n, "gpu", int64(k), graph.WithRank(0))
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: gpu, count: 1}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	u, err := x.Update(5, []byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"gpu": "1"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 9}}`))
	if err != nil {
		return
	}
	for _, r := range u.Resources {
		if r.Type == "node" && r.Exclusive {
			t.Errorf("job %d holds %s exclusively while job %d holds %v", u.JobID, r.Path, a.JobID, jobLeafPaths(t, x, a.JobID))
		}
	}
}

// TestReproPartialCancelDropsAncestorExclusivity: a job holds node0 and
// node1 of rack0 whole; a partial cancel of node1 drops the job's
// exclusivity span on rack0 although it still holds node0, and a request
// for a whole rack then gets rack0 exclusively, over node0.
func TestReproPartialCancelDropsAncestorExclusivity(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	r := b.MustAdd(c, "rack", 0)
	for i := range 3 {
		n := b.MustAdd(r, "node", int64(i), graph.WithRank(int64(i)))
		b.MustAdd(n, "core", 0, graph.WithRank(int64(i)))
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: node, count: 2, exclusive: true, with: [{type: core, count: 1}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	node1 := filterR([]byte(R), func(p string, excl bool) bool { return excl && strings.HasPrefix(p, "/m0/rack0/node1") }, nil)
	if _, err := x.PartialCancel(a.JobID, node1); err != nil {
		t.Fatal(err)
	}
	held := jobLeafPaths(t, x, a.JobID)
	rack, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: rack, count: 1, with: [{type: node, count: 1, with: [{type: core, count: 1}]}]}]}]", 9), 0)
	if err != nil {
		return // refusing is correct: job 1 still holds node0 in rack0
	}
	for _, res := range rack.Resources {
		if res.Type == "rack" && res.Exclusive {
			t.Errorf("job %d holds %s exclusively while job %d holds %v", rack.JobID, res.Path, a.JobID, held)
		}
	}
}

// TestReproPartialCancelAcrossSocketsAtomic: the partial cancel of
// TestReproPartialCancelAcrossSockets, refused for its socket filter span,
// has released the listed cores before it fails: the job stays ALLOCATED
// while its cores are free for others (issue 13 item 1's outcome).
func TestReproPartialCancelAcrossSocketsAtomic(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	for si := range 2 {
		s := b.MustAdd(n, "socket", int64(si), graph.WithRank(0))
		for k := range 2 {
			b.MustAdd(s, "core", int64(si*2+k), graph.WithRank(0))
		}
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 2, label: default, with: [{type: core, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	R, _ := a.Render("rv1")
	cores := filterR([]byte(R), func(p string, excl bool) bool {
		return excl && strings.Contains(p, "/core") && !strings.HasSuffix(p, "core3")
	}, nil)
	before := digest(x)
	if _, err := x.PartialCancel(a.JobID, cores); err == nil {
		return
	}
	if after := digest(x); !bytes.Equal(before, after) {
		t.Errorf("the failed PartialCancel changed the state: %s", digestDiff(before, after))
	}
}

// TestReproRankPartialCancelOfAnotherRank: a job holds a gpu of node1 only;
// PartialCancel by rank 0, where it holds nothing, released the whole job
// (full, CANCELED, its gpu freed). (In the model test such a release also
// left the job's records behind.) It must fail changing nothing, or
// release nothing. (The first version gave both nodes a gpu and expected
// policy high to take node1's; it takes node0's, which rank 0 then
// rightly released whole.)
func TestReproRankPartialCancelOfAnotherRank(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	for i := range 2 {
		n := b.MustAdd(c, "node", int64(i), graph.WithRank(int64(i)))
		b.MustAdd(n, "core", 0, graph.WithRank(int64(i)))
		if i == 1 {
			b.MustAdd(n, "gpu", 0, graph.WithRank(int64(i)))
		}
	}
	x, err := New(b.Graph(), Options{Policy: "high"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: gpu, count: 1}]}]", 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	before := digest(x)
	full, err := x.PartialCancel(a.JobID, []byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 3153600000}}`))
	if err != nil {
		if after := digest(x); !bytes.Equal(before, after) {
			t.Errorf("the failed PartialCancel changed the state: %s", digestDiff(before, after))
		}
		return
	}
	if j, _ := x.Info(a.JobID); full || j.State != Allocated {
		t.Errorf("a partial cancel of rank 0, where job %d holds nothing, released the whole job (full=%v, %v; it still books %v)", a.JobID, full, j.State, jobLeafPaths(t, x, a.JobID))
	}
	if held := jobLeafPaths(t, x, a.JobID); !slices.Equal(held, []string{"/m0/node1/gpu0"}) {
		t.Errorf("after a partial cancel of rank 0, job %d books %v, want its gpu on node1", a.JobID, held)
	}
}

// TestReproRemoveThenAllocationLacksCluster: after Remove of a free core on
// node1, a node-exclusive match on node0 gives an allocation without the
// cluster vertex (whose pruning filter span could not be booked), so its R
// has an edge from a vertex it does not list and Update refuses it.
func TestReproRemoveThenAllocationLacksCluster(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	r := b.MustAdd(c, "rack", 0)
	for i, cores := range []int{2, 1} {
		n := b.MustAdd(r, "node", int64(i), graph.WithRank(int64(i)))
		for si := range 2 {
			s := b.MustAdd(n, "socket", int64(si), graph.WithRank(int64(i)))
			for k := range cores {
				b.MustAdd(s, "core", int64(si*cores+k), graph.WithRank(int64(i)))
			}
		}
	}
	x, err := New(b.Graph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Remove("/m0/rack0/node1/socket1/core1"); err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: node, count: 1, exclusive: true, with: [{type: socket, count: 1, with: [{type: core, count: 1}]}]}]", 6), 0)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, res := range a.Resources {
		paths = append(paths, res.Path)
	}
	if !slices.Contains(paths, "/m0") {
		t.Errorf("the allocation lacks the cluster vertex: %v", paths)
	}
	R, _ := a.Render("rv1")
	if err := x.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(a.JobID, []byte(R)); err != nil {
		t.Errorf("Update from the job's own R: %v", err)
	}
}
