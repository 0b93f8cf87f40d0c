package gofluxion

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
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
//	 "next_job": N}
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
	// Grant is a child instance's grant (hierarchy.go), absent otherwise.
	Grant *Grant `json:"grant,omitempty"`
}

type snapJob struct {
	ID       uint64 `json:"id"`
	State    string `json:"state"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Overhead int64  `json:"overhead_ns"`
}

// Snapshot writes the Matcher's complete state (graph, allocations,
// reservations, statuses, job table and job-id counter) to w.
func (x *Matcher) Snapshot(w io.Writer) error { return x.snapshotWith(w, nil) }

func (x *Matcher) snapshotWith(w io.Writer, grant *Grant) error {
	x.mu.RLock()
	st, err := x.m.State()
	doc := snapshotDoc{Format: snapshotFormat, Version: SnapshotVersion, Options: x.opts, Matcher: st, Next: x.next, Grant: grant}
	for _, j := range x.jobsLocked() {
		doc.Jobs = append(doc.Jobs, snapJob{j.ID, j.State.String(), j.Start, j.End, int64(j.Overhead)})
	}
	x.mu.RUnlock()
	if err != nil {
		return newError("snapshot", ErrSnapshot, err, "%v", err)
	}
	zw := gzip.NewWriter(w)
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
// appears twice and the next automatic id is above every id in the table.
// The match statistics of Stat start again from zero.
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
	lr := &limitedReader{r: zr, n: restoreMaxBytes}
	var doc snapshotDoc
	dec := json.NewDecoder(lr)
	dec.DisallowUnknownFields()
	err = dec.Decode(&doc)
	if err == nil {
		_, err = io.Copy(io.Discard, lr)
	}
	if lr.over {
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
	jobs := make(map[uint64]*Job, len(doc.Jobs))
	for _, j := range doc.Jobs {
		st, ok := map[string]JobState{"ALLOCATED": Allocated, "RESERVED": Reserved, "CANCELED": Canceled}[j.State]
		switch {
		case !ok:
			return bad(nil, "job %d has state %q", j.ID, j.State)
		case jobs[j.ID] != nil:
			return bad(nil, "job %d appears twice in the job table", j.ID)
		case j.ID >= doc.Next:
			return bad(nil, "job %d is not below the next job id %d", j.ID, doc.Next)
		}
		jobs[j.ID] = &Job{ID: j.ID, State: st, Start: j.Start, End: j.End, Overhead: durationNS(j.Overhead)}
	}
	for _, vj := range doc.Matcher.Jobs {
		for _, js := range vj.Jobs {
			if j := jobs[js.Job]; j == nil || j.State == Canceled {
				return bad(nil, "vertex %d holds resources for job %d, which is not allocated or reserved in the job table", vj.Vertex, js.Job)
			}
		}
	}
	m, err := match.Restore(doc.Matcher)
	if err != nil {
		return bad(err, "%v", err)
	}
	x := wrap(m, doc.Options)
	x.jobs = jobs
	x.next = max(doc.Next, 1)
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
	x.m, x.opts, x.jobs, x.next, x.stats = y.m, y.opts, y.jobs, y.next, Stats{}
	x.jobsShared.Store(false)
	return nil
}

// limitedReader reads at most n bytes of r and notes whether r had more.
type limitedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			l.over = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

func durationNS(n int64) time.Duration { return time.Duration(n) }

// restoreMaxBytes bounds a decompressed snapshot (a variable for tests).
var restoreMaxBytes int64 = graph.DefaultMaxInputBytes
