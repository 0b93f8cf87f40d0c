package gofluxion

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

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

// ErrSnapshot wraps every error of reading a snapshot.
var ErrSnapshot = errors.New("bad snapshot")

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
		return fmt.Errorf("gofluxion: snapshot: %w", err)
	}
	zw := gzip.NewWriter(w)
	bw := bufio.NewWriter(zw)
	if err := json.NewEncoder(bw).Encode(&doc); err != nil {
		return fmt.Errorf("gofluxion: snapshot: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("gofluxion: snapshot: %w", err)
	}
	return zw.Close()
}

// Restore reads a snapshot written by Snapshot and returns a new Matcher
// with the saved Options. Every error wraps ErrSnapshot. The match
// statistics of Stat start again from zero.
func Restore(r io.Reader) (*Matcher, error) {
	x, _, err := restoreWith(r)
	return x, err
}

// restoreWith is Restore that also returns a child's grant.
func restoreWith(r io.Reader) (*Matcher, *Grant, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("gofluxion: %w: not a gzip stream: %v", ErrSnapshot, err)
	}
	var doc snapshotDoc
	dec := json.NewDecoder(zr)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, fmt.Errorf("gofluxion: %w: %v", ErrSnapshot, err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return nil, nil, fmt.Errorf("gofluxion: %w: %v", ErrSnapshot, err)
	}
	if doc.Format != snapshotFormat {
		return nil, nil, fmt.Errorf("gofluxion: %w: format %q, want %q", ErrSnapshot, doc.Format, snapshotFormat)
	}
	if doc.Version != SnapshotVersion {
		return nil, nil, fmt.Errorf("gofluxion: %w: version %d, this build reads version %d", ErrSnapshot, doc.Version, SnapshotVersion)
	}
	if doc.Matcher == nil {
		return nil, nil, fmt.Errorf("gofluxion: %w: no matcher state", ErrSnapshot)
	}
	m, err := match.Restore(doc.Matcher)
	if err != nil {
		return nil, nil, fmt.Errorf("gofluxion: %w: %v", ErrSnapshot, err)
	}
	x := wrap(m, doc.Options)
	for _, j := range doc.Jobs {
		st, ok := map[string]JobState{"ALLOCATED": Allocated, "RESERVED": Reserved, "CANCELED": Canceled}[j.State]
		if !ok {
			return nil, nil, fmt.Errorf("gofluxion: %w: job %d has state %q", ErrSnapshot, j.ID, j.State)
		}
		x.jobs[j.ID] = &Job{ID: j.ID, State: st, Start: j.Start, End: j.End, Overhead: durationNS(j.Overhead)}
	}
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
	return nil
}

func durationNS(n int64) time.Duration { return time.Duration(n) }
