package gofluxion_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jobspec"
)

// FuzzRestore feeds Restore hostile snapshot documents (the JSON inside the
// gzip stream): it must refuse them with ErrSnapshot or ErrLimit, never
// panic, and a Matcher it accepts must work (match, cancel, snapshot again).
//
// Each input is also read as a program of structure-aware mutations of a
// valid snapshot (mutateSnapshot: numbers changed, keys dropped, records
// dropped, duplicated or swapped between vertices and jobs), which reach
// the derived state Restore checks far more often than byte mutations
// of the JSON do. A mutated snapshot Restore accepts must be a state the
// Matcher itself stands by: its own snapshot restores again, and every
// job in its table cancels, leaving nothing booked.
//
//	go test -run '^$' -fuzz FuzzRestore -fuzztime 60s
func FuzzRestore(f *testing.F) {
	// A tiny graph keeps documents small: the fuzzer's mutations and
	// minimization are slow on large inputs.
	g, err := gofluxion.ReadGraph("grug", grug.Cluster("tiny", 2, 2), "")
	if err != nil {
		f.Fatal(err)
	}
	m, err := gofluxion.New(g, gofluxion.Options{})
	if err != nil {
		f.Fatal(err)
	}
	js := jobspec.New(time.Hour, jobspec.Slot("default", 1, jobspec.Res("core", 1)))
	f.Add(snapshotJSON(f, m))
	for range 3 {
		if _, err := m.Match(gofluxion.Allocate, js, 0); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := m.Match(gofluxion.AllocateOrElseReserve, js, 10); err != nil {
		f.Fatal(err)
	}
	if err := m.Cancel(2); err != nil {
		f.Fatal(err)
	}
	if _, err := m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Hour, jobspec.Res("node", 1).Exclusively()), 20); err != nil {
		f.Fatal(err)
	}
	if _, err := m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Slot("s", 1, jobspec.Res("core", 1)))), 30); err != nil {
		f.Fatal(err)
	}
	if err := m.SetStatus("/tiny0/node1", false); err != nil {
		f.Fatal(err)
	}
	valid := snapshotJSON(f, m)
	f.Add(valid)
	f.Add([]byte(`{"format":"gofluxion-snapshot","version":1,"matcher":{}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		restoreMutated(t, valid, doc, js)
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(doc)
		zw.Close()
		x, err := gofluxion.Restore(&z)
		if err != nil {
			if !errors.Is(err, gofluxion.ErrSnapshot) && !errors.Is(err, gofluxion.ErrLimit) {
				t.Fatalf("Restore error %v matches neither ErrSnapshot nor ErrLimit", err)
			}
			return
		}
		if a, err := x.Match(gofluxion.Allocate, js, 0); err == nil {
			if err := x.Cancel(a.JobID); err != nil {
				t.Fatalf("cancel of a job just matched: %v", err)
			}
		}
		if err := x.Snapshot(io.Discard); err != nil {
			t.Fatalf("snapshot of a restored matcher: %v", err)
		}
	})
}

// snapshotJSON returns the JSON document inside m's snapshot.
func snapshotJSON(tb testing.TB, m *gofluxion.Matcher) []byte {
	var b bytes.Buffer
	if err := m.Snapshot(&b); err != nil {
		tb.Fatal(err)
	}
	return gunzip(tb, b.Bytes())
}

// gunzip returns the document inside a gzip stream (a snapshot).
func gunzip(tb testing.TB, z []byte) []byte {
	tb.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatal(err)
	}
	return doc
}

// restoreMutated applies the mutation program prog to the valid snapshot
// document and checks what Restore makes of it.
func restoreMutated(t *testing.T, valid, prog []byte, js *jobspec.Jobspec) {
	var doc any
	if err := json.Unmarshal(valid, &doc); err != nil {
		t.Fatal(err)
	}
	doc = mutateSnapshot(doc, prog)
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	x, err := gofluxion.Restore(&z)
	if err != nil {
		if !errors.Is(err, gofluxion.ErrSnapshot) {
			t.Fatalf("Restore error %v does not match ErrSnapshot", err)
		}
		return
	}
	var again bytes.Buffer
	if err := x.Snapshot(&again); err != nil {
		t.Fatalf("snapshot of an accepted state: %v", err)
	}
	if _, err := gofluxion.Restore(&again); err != nil {
		t.Fatalf("Restore accepted a state whose own snapshot it refuses: %v\n%s", err, data)
	}
	var starts []int64
	for _, j := range x.Jobs() {
		if j.State == gofluxion.Canceled {
			continue
		}
		starts = append(starts, j.Start)
		if err := x.Cancel(j.ID); err != nil {
			t.Fatalf("cancel of job %d of an accepted state: %v\n%s", j.ID, err, data)
		}
	}
	for _, at := range append(starts, 0) {
		for _, u := range x.Usage(at) {
			if u.Allocated != 0 || u.Reserved != 0 {
				t.Fatalf("after cancelling every job, %+v at %d\n%s", u, at, data)
			}
		}
	}
	if a, err := x.Match(gofluxion.Allocate, js, 0); err == nil {
		if err := x.Cancel(a.JobID); err != nil {
			t.Fatalf("cancel of a job just matched: %v", err)
		}
	}
}

// mutateSnapshot applies a program of structure-aware mutations to a
// decoded snapshot: each step takes three bytes, (what, where, value);
// at most 32 steps, while the document stays within twice its size.
// where picks one of the document's values in a fixed walk order (object
// keys sorted), preferring the matcher's job records, and what says what
// to do with it.
func mutateSnapshot(doc any, prog []byte) any {
	size := -1
	for steps := 0; len(prog) >= 3 && steps < 32; steps++ {
		what, where, val := prog[0], int(prog[1]), int64(int8(prog[2]))
		prog = prog[3:]
		var slots []slot
		collect(doc, "", &slots)
		if size < 0 {
			size = len(slots)
		} else if len(slots) > 2*size {
			break // copies of copies would grow the document without bound
		}
		var focus []slot
		for _, s := range slots {
			if strings.Contains(s.path, "/matcher/jobs/") || strings.HasSuffix(s.path, "/nodes_up") || strings.HasPrefix(s.path, "/jobs/") {
				focus = append(focus, s)
			}
		}
		if what&0x80 == 0 && len(focus) > 0 {
			slots = focus
		}
		if len(slots) == 0 {
			return doc
		}
		s := slots[where%len(slots)]
		other := slots[(where*7+int(val)%len(slots)+len(slots))%len(slots)]
		switch what % 6 {
		case 0: // change a number
			if n, ok := s.get().(float64); ok {
				s.set(n + float64(val))
			}
		case 1: // replace a number by a small one
			if _, ok := s.get().(float64); ok {
				s.set(float64(val))
			}
		case 2: // drop a key or an element
			s.drop()
		case 3: // copy another value of the same kind here
			if fmt.Sprintf("%T", s.get()) == fmt.Sprintf("%T", other.get()) {
				s.set(clone(other.get()))
			}
		case 4: // duplicate an element of an array
			s.dup()
		case 5: // flip a boolean, or set one where a number was
			switch v := s.get().(type) {
			case bool:
				s.set(!v)
			case float64:
				s.set(v == 0)
			}
		}
	}
	return doc
}

// slot is one value of a decoded JSON document and how to change it.
type slot struct {
	path   string
	parent any    // the object holding it (arr == nil)
	key    string // its key there
	arr    *[]any // or the array holding it
	idx    int    // at this index
}

func (s slot) get() any {
	if s.arr != nil {
		return (*s.arr)[s.idx]
	}
	return s.parent.(map[string]any)[s.key]
}

func (s slot) set(v any) {
	if s.arr != nil {
		(*s.arr)[s.idx] = v
		return
	}
	s.parent.(map[string]any)[s.key] = v
}

func (s slot) drop() {
	if s.arr != nil {
		*s.arr = append((*s.arr)[:s.idx:s.idx], (*s.arr)[s.idx+1:]...)
		return
	}
	delete(s.parent.(map[string]any), s.key)
}

func (s slot) dup() {
	if s.arr != nil {
		*s.arr = append((*s.arr)[:s.idx+1:s.idx+1], (*s.arr)[s.idx:]...)
	}
}

// collect lists every value below v (arrays are replaced by pointers to
// their slices in their parents, so that slots can change their length).
func collect(v any, path string, out *[]slot) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			*out = append(*out, slot{path: path + "/" + k, parent: x, key: k})
			if arr, ok := x[k].([]any); ok {
				p := &arr
				x[k] = p
				collectArr(p, path+"/"+k, out)
				continue
			}
			collect(x[k], path+"/"+k, out)
		}
	case *[]any:
		collectArr(x, path, out)
	}
}

func collectArr(p *[]any, path string, out *[]slot) {
	for i := range *p {
		*out = append(*out, slot{path: path + "/" + strconv.Itoa(i), arr: p, idx: i})
		if arr, ok := (*p)[i].([]any); ok {
			q := &arr
			(*p)[i] = q
			collectArr(q, path+"/"+strconv.Itoa(i), out)
			continue
		}
		collect((*p)[i], path+"/"+strconv.Itoa(i), out)
	}
}

// clone deep-copies a decoded JSON value.
func clone(v any) any {
	data, _ := json.Marshal(v)
	var out any
	json.Unmarshal(data, &out)
	return out
}
