package gofluxion_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jobspec"
)

// FuzzRestore feeds Restore hostile snapshot documents (the JSON inside the
// gzip stream): it must refuse them with ErrSnapshot or ErrLimit, never
// panic, and a Matcher it accepts must work (match, cancel, snapshot again).
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
	f.Add(snapshotJSON(f, m))
	f.Add([]byte(`{"format":"gofluxion-snapshot","version":1,"matcher":{}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
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
