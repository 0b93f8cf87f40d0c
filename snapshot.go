package gofluxion

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"math"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/match"
)

// SnapshotVersion is the version of the snapshot format that Snapshot
// writes and Restore reads.
//
// A snapshot is a gzip-compressed JSON document:
//
//	{"format": "gofluxion-snapshot", "version": 1,
//	 "options": {...},                      // the Matcher's Options
//	 "matcher": {                           // match.State
//	   "options": {...}, "nodes_up": N,
//	   "graph": {types, subsystems, vertices, edges, roots, indexes},
//	   "prune": [{anchors, types}, ...],      // per matcher subsystem
//	   "jobs": [{"v": vertex, "j": [{"id": job, "tag": true,
//	            "a": [start, duration, units],   // allocation span
//	            "r": [...], "x": [...],          // reservation, exclusivity
//	            "f": [start, duration, counts...]}]}],  // pruning filter
//	   "weights": [{"e": edge, "w": weight}]},   // dynamic child order
//	 "jobs": [{"id", "state", "start", "end", "overhead_ns"}],
//	 "next_job": N,                         // the next automatic job id
//	 "job_ids_exhausted": true}              // instead, once 2^64-1 was used
//
// Restoring books every span again, so the restored Matcher's later
// decisions are byte-identical to the original's. A snapshot of another
// format version is refused.
const (
	snapshotFormat  = "gofluxion-snapshot"
	SnapshotVersion = 1
)

type snapshotDoc struct {
	Format  string       `json:"format"`
	Version int          `json:"version"`
	Options Options      `json:"options"`
	Matcher *match.State `json:"matcher"`
	Jobs    []snapJob    `json:"jobs"`
	Next    uint64       `json:"next_job"`
	// Exhausted: id 2^64-1 was used, Match has no automatic id left
	// (next_job is then 2^64-1 and every id is below it or it).
	Exhausted bool `json:"job_ids_exhausted,omitempty"`
	// Grant is a child instance's grant (hierarchy.go), absent otherwise.
	Grant *Grant `json:"grant,omitempty"`
}

type snapJob struct {
	ID       uint64 `json:"id"`
	State    string `json:"state"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Overhead int64  `json:"overhead_ns"`
	// Nodes is kept for canceled jobs only: a live job's list is derived
	// from its bookings on restore, a canceled job has none left.
	Nodes string `json:"nodes,omitempty"`
}

// Snapshot writes the Matcher's complete state (graph, allocations,
// reservations, statuses, job table and job-id counter) to w.
func (x *Matcher) Snapshot(w io.Writer) error { return x.snapshotWith(w, nil) }

func (x *Matcher) snapshotWith(w io.Writer, grant *Grant) error {
	x.mu.RLock()
	st, err := x.m.State()
	doc := snapshotDoc{Format: snapshotFormat, Version: SnapshotVersion, Options: x.opts, Matcher: st, Next: x.next, Grant: grant}
	if x.next == 0 {
		doc.Next, doc.Exhausted = math.MaxUint64, true
	}
	for _, j := range x.jobsLocked() {
		sj := snapJob{ID: j.ID, State: j.State.String(), Start: j.Start, End: j.End, Overhead: int64(j.Overhead)}
		if j.State == Canceled {
			sj.Nodes = j.Nodes
		}
		doc.Jobs = append(doc.Jobs, sj)
	}
	x.mu.RUnlock()
	if err != nil {
		return newError("snapshot", ErrSnapshot, err, "%v", err)
	}
	// BestSpeed: the default level spent most of a large snapshot's
	// time in deflate's match search, for a file about a third smaller.
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	bw := bufio.NewWriter(zw)
	if err := json.NewEncoder(bw).Encode(&doc); err != nil {
		return newError("snapshot", ErrSnapshot, err, "%v", err)
	}
	if err := bw.Flush(); err != nil {
		return newError("snapshot", ErrSnapshot, err, "%v", err)
	}
	if err := zw.Close(); err != nil {
		return newError("snapshot", ErrSnapshot, err, "%v", err)
	}
	return nil
}

// Restore reads a snapshot written by Snapshot and returns a new Matcher
// with the saved Options. Every error matches ErrSnapshot (and ErrLimit for
// a snapshot that decompresses to more than 1 GiB). Besides the
// format, Restore checks that the schedule and the job table agree: every
// job holding resources is allocated or reserved in the table, no job id
// appears twice, every window is non-empty and the next automatic id is
// above every id in the table (or the automatic ids are exhausted); and
// that the saved Options are ones New accepts that agree with the saved
// matcher state. What the matcher derives from its bookings (exclusivity
// and pruning-filter spans, tags, the count of nodes up) is checked
// against the bookings and the graph, never believed (see
// match.Matcher.CheckDerived). The match statistics of Stat start again
// from zero.
func Restore(r io.Reader) (*Matcher, error) {
	x, _, err := restoreWith(r)
	return x, err
}

// restoreWith is Restore that also returns a child's grant (hierarchy.go).
func restoreWith(r io.Reader) (*Matcher, *Grant, error) {
	bad := func(cause error, format string, args ...any) (*Matcher, *Grant, error) {
		return nil, nil, newError("restore", ErrSnapshot, cause, format, args...)
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return bad(err, "not a gzip stream: %v", err)
	}
	// A gzip stream expands about a thousandfold at most: bound what is
	// decompressed, so a small hostile file cannot exhaust memory.
	lr := &io.LimitedReader{R: zr, N: restoreMaxBytes + 1} // N reaches 0: more than the bound
	var doc snapshotDoc
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	err = dec.Decode(&doc)
	if err == nil {
		_, err = io.Copy(io.Discard, lr)
	}
	if lr.N == 0 {
		return nil, nil, newError("restore", ErrSnapshot, ErrLimit, "the snapshot decompresses to more than %d bytes", restoreMaxBytes)
	}
	if err != nil {
		return bad(err, "%v", err)
	}
	if doc.Format != snapshotFormat {
		return bad(nil, "format %q, want %q", doc.Format, snapshotFormat)
	}
	if doc.Version != SnapshotVersion {
		return bad(nil, "version %d, this build reads version %d", doc.Version, SnapshotVersion)
	}
	if doc.Matcher == nil {
		return bad(nil, "no matcher state")
	}
	// The root Options are saved beside the matcher's own: they must be
	// Options New accepts and agree with the state that decides.
	if doc.Options.Format == "" {
		doc.Options.Format = "rv1"
	}
	if _, err := NewWriter(doc.Options.Format); err != nil {
		return bad(err, "options: %v", err)
	}
	o, mo := doc.Options, doc.Matcher.Options
	differs := func(root, state string) bool { return root != "" && root != state }
	if differs(o.Policy, mo.Policy) || differs(o.Subsystems, mo.Subsystems) || differs(o.PruneFilters, mo.PruneFilters) ||
		differs(o.Traverser, mo.Traverser) || o.NoPruneFilters != mo.NoPruneFilters || o.Limits.withDefaults().MaxDepth != mo.MaxFindDepth {
		return bad(nil, "options %+v disagree with the matcher state's %+v", o, mo)
	}
	jobs := make(map[uint64]*Job, len(doc.Jobs))
	for _, j := range doc.Jobs {
		st, ok := map[string]JobState{"ALLOCATED": Allocated, "RESERVED": Reserved, "CANCELED": Canceled}[j.State]
		switch {
		case !ok:
			return bad(nil, "job %d has state %q", j.ID, j.State)
		case jobs[j.ID] != nil:
			return bad(nil, "job %d appears twice in the job table", j.ID)
		case j.ID >= doc.Next && !doc.Exhausted:
			return bad(nil, "job %d is not below the next job id %d", j.ID, doc.Next)
		case j.End <= j.Start:
			return bad(nil, "job %d has an empty window [%d, %d)", j.ID, j.Start, j.End)
		}
		jobs[j.ID] = &Job{ID: j.ID, State: st, Start: j.Start, End: j.End, Overhead: durationNS(j.Overhead)}
		if st == Canceled {
			jobs[j.ID].Nodes = j.Nodes
		}
	}
	for _, vj := range doc.Matcher.Jobs {
		for _, js := range vj.Jobs {
			if j := jobs[js.Job]; j == nil || j.State == Canceled {
				return bad(nil, "vertex %d holds resources for job %d, which is not allocated or reserved in the job table", vj.Vertex, js.Job)
			}
		}
	}
	if mo.FluxionQuirks || mo.FluxionFailures || len(doc.Matcher.Exclusive) > 0 {
		return bad(nil, "the matcher state has Fluxion quirk options, which a Matcher never has")
	}
	m, err := match.Restore(doc.Matcher)
	if err != nil {
		return bad(err, "%v", err)
	}
	// Derived state (exclusivity and filter spans, tags, the up-node
	// count) is checked against the primary state, never believed.
	windows := make(map[uint64]match.Window, len(jobs))
	for id, j := range jobs {
		if j.State != Canceled {
			windows[id] = match.Window{Start: j.Start, End: j.End, Reserved: j.State == Reserved}
		}
	}
	if err := m.CheckDerived(windows); err != nil {
		return bad(err, "%v", err)
	}
	x := wrap(m, doc.Options)
	x.jobs = jobs
	for id, nodes := range x.nodesOf() { // derived: from the bookings
		if j := jobs[id]; j != nil {
			j.Nodes = strings.Join(nodes, ",")
		}
	}
	x.next = max(doc.Next, 1)
	if doc.Exhausted {
		x.next = 0
	}
	return x, doc.Grant, nil
}

// RestoreFrom replaces x's state (graph, schedule, job table and Options)
// with a snapshot; on any error x is left unchanged. The match statistics
// of Stat start again from zero.
func (x *Matcher) RestoreFrom(r io.Reader) error {
	y, err := Restore(r)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.releases.Add(1)
	x.m, x.opts, x.jobs, x.next, x.stats = y.m, y.opts, y.jobs, y.next, Stats{}
	x.jobsShared.Store(false)
	return nil
}

func durationNS(n int64) time.Duration { return time.Duration(n) }

// restoreMaxBytes bounds a decompressed snapshot (a variable for tests).
var restoreMaxBytes int64 = graph.DefaultMaxInputBytes
