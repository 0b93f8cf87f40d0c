package server_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/pb"
)

// The journal layout, read here independently of the server's code:
// a 20-byte header ("GFXJ", version, base index, crc), then records of
// [length uint32][crc uint32][index uint64][Op].
type rec struct {
	off   int64
	size  int64
	index uint64
}

func records(t *testing.T, path string) (base uint64, out []rec) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 20 || string(b[:4]) != "GFXJ" {
		t.Fatalf("%s: no journal header", path)
	}
	base = binary.BigEndian.Uint64(b[8:16])
	for off := int64(20); off < int64(len(b)); {
		n := int64(binary.BigEndian.Uint32(b[off:]))
		out = append(out, rec{off: off, size: 8 + n, index: binary.BigEndian.Uint64(b[off+8:])})
		off += 8 + n
	}
	return base, out
}

// runDaemon runs gofluxiond to its end (for a start that must fail, or
// an offline repair) and returns its exit code and output.
func runDaemon(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-listen", freePort(t)}, args...)...)
	cmd.Env = append(os.Environ(), "GOFLUXIOND_MAIN=1")
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("gofluxiond %q still running after a minute (it should have exited):\n%s", args, out.String())
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

// acknowledge commits n matches (one-core jobs one after the other in
// time, so each fits) and returns their results.
func acknowledge(t *testing.T, addr string, n int) []*pb.Result {
	t.Helper()
	c, err := client.Dial([]string{addr}, client.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []*pb.Result
	for i := range n {
		res, err := c.Apply(context.Background(), &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 10), At: int64(100 * i)}}})
		if err != nil || res.GetError() != nil {
			t.Fatalf("op %d: %v %v", i, err, res.GetError())
		}
		out = append(out, res)
	}
	return out
}

// served returns the applied index and the number of jobs of the server
// at addr.
func served(t *testing.T, addr string) (uint64, int) {
	t.Helper()
	c, err := client.Dial([]string{addr}, client.Options{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Cluster(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.JobTable()
	if err != nil {
		t.Fatal(err)
	}
	return info.GetAppliedIndex(), len(jobs)
}

// TestJournalCorruption acknowledges operations on a stand-alone server,
// kills it with SIGKILL, corrupts the journal on disk and restarts it. A
// bad record that is not the last one (the first, one in the middle, a
// zeroed length) makes the start fail naming the file, the byte offset
// and the record, and leaves the file as it was; a bad or torn final
// record is cut and the cut is logged; -repair-journal-at cuts where the
// operator says and keeps the bytes cut.
func TestJournalCorruption(t *testing.T) {
	const n = 40
	type tc struct {
		name string
		// corrupt changes the journal b (records recs) and returns the
		// offset and record number the start must name (0: it starts).
		corrupt func(b []byte, recs []rec) (bad []byte, off int64, record int)
		applied uint64 // after a start that succeeds
	}
	// The journal holds the Genesis (record 1, index 1) and the n
	// operations (records 2..n+1).
	cases := []tc{
		{name: "genesis record", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			b[recs[0].off+30] ^= 0x40
			return b, recs[0].off, 1
		}},
		{name: "first operation", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			b[recs[1].off+20] ^= 0x40
			return b, recs[1].off, 2
		}},
		{name: "middle record", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n/2]
			b[r.off+r.size/2] ^= 0x01
			return b, r.off, n/2 + 1
		}},
		{name: "middle record length", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n/3]
			binary.BigEndian.PutUint32(b[r.off:], 0)
			return b, r.off, n/3 + 1
		}},
		// A length corrupted upwards makes a middle record look like a
		// torn tail (it runs past the end of the file); the good records
		// after it say it is not.
		{name: "middle record length grown past the end", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n/2]
			binary.BigEndian.PutUint32(b[r.off:], uint32(r.size-8)+1<<20)
			return b, r.off, n/2 + 1
		}},
		{name: "second to last record length grown past the end", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n-1]
			b[r.off+1] ^= 0x04
			return b, r.off, n
		}},
		// A damaged magic makes the journal look like one written
		// before the header existed, and the header bytes a record
		// running past the end of the file.
		{name: "header magic", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			b[0] = 0
			return b, 0, 1
		}},
		{name: "second to last record", corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n-1]
			b[r.off+12] ^= 0xff // its index
			return b, r.off, n
		}},
		{name: "last record", applied: n, corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n]
			b[r.off+r.size-1] ^= 0x10
			return b, 0, 0
		}},
		{name: "torn last record", applied: n, corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			r := recs[n]
			return b[:r.off+r.size/2], 0, 0
		}},
		{name: "zeros after the last record", applied: n + 1, corrupt: func(b []byte, recs []rec) ([]byte, int64, int) {
			return append(b, make([]byte, 4096)...), 0, 0
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			addr := freePort(t)
			args := []string{"-mode", "standalone", "-data", dir, "-graph", "demo", "-snapshot-every", "100000"}
			d := startDaemon(t, addr, args...)
			d.waitServing(time.Minute)
			acknowledge(t, addr, n)
			d.kill(syscall.SIGKILL)

			path := filepath.Join(dir, "journal")
			_, recs := records(t, path)
			if len(recs) != n+1 {
				t.Fatalf("%d records, want %d", len(recs), n+1)
			}
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			bad, off, record := c.corrupt(bytes.Clone(orig), recs)
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			if record == 0 {
				d.start()
				d.waitServing(time.Minute)
				applied, jobs := served(t, addr)
				if applied != c.applied || jobs != int(c.applied)-1 {
					t.Fatalf("applied %d with %d jobs, want %d\n%s", applied, jobs, c.applied, d.log.String())
				}
				if c.applied <= n && !strings.Contains(d.log.String(), "cut the torn final record") {
					t.Fatalf("the cut is not logged:\n%s", d.log.String())
				}
				return
			}
			code, out := runDaemon(t, args...)
			if code == 0 {
				t.Fatalf("the server started on a journal corrupt at offset %d:\n%s", off, out)
			}
			for _, want := range []string{path, fmt.Sprintf("byte offset %d", off), fmt.Sprintf("record %d ", record), fmt.Sprintf("-repair-journal-at %d", off)} {
				if !strings.Contains(out, want) {
					t.Errorf("the error does not name %q:\n%s", want, out)
				}
			}
			if now, err := os.ReadFile(path); err != nil || !bytes.Equal(now, bad) {
				t.Fatalf("the refused start changed the journal (%v)", err)
			}

			// The operator decides to lose the bad record and the rest.
			code, out = runDaemon(t, "-data", dir, "-repair-journal-at", fmt.Sprint(off+1))
			if code == 0 {
				t.Fatalf("a repair at an offset inside a record succeeded:\n%s", out)
			}
			code, out = runDaemon(t, "-data", dir, "-repair-journal-at", fmt.Sprint(off))
			if code != 0 {
				t.Fatalf("repair at %d: exit %d\n%s", off, code, out)
			}
			kept, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("journal.cut-%d", off)))
			if err != nil || !bytes.Equal(kept, bad[off:]) {
				t.Fatalf("the bytes cut are not kept (%v)", err)
			}
			d.start()
			d.waitServing(time.Minute)
			applied, jobs := served(t, addr)
			// Records 1..record-1 are kept; without the Genesis, a new one
			// is written from the command line.
			want := uint64(max(record-1, 1))
			if applied != want || jobs != int(want)-1 {
				t.Fatalf("after the repair: applied %d with %d jobs, want %d and %d", applied, jobs, want, want-1)
			}
			acknowledge(t, addr, 1)
		})
	}
}

// TestSnapshotContinuity: a journal that does not continue the snapshot
// is refused, the files untouched: the snapshot deleted, replaced by an
// older one, replaced by a newer one (an older journal), or truncated.
// The crash the layout allows (a new snapshot, and the old journal it
// covers up to its index) starts.
func TestSnapshotContinuity(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr := freePort(t)
	snap, journal := filepath.Join(dir, "snapshot"), filepath.Join(dir, "journal")
	read := func(p string) []byte {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(s, j []byte) {
		t.Helper()
		os.Remove(snap)
		if s != nil {
			if err := os.WriteFile(snap, s, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(journal, j, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// phase runs a server snapshotting every `every` operations for n
	// operations, and stops it (SIGTERM: a snapshot taken after the last
	// answer is finished).
	phase := func(every, n int) {
		t.Helper()
		d := startDaemon(t, addr, "-mode", "standalone", "-data", dir, "-graph", "demo", "-snapshot-every", fmt.Sprint(every))
		d.waitServing(time.Minute)
		acknowledge(t, addr, n)
		d.kill(syscall.SIGTERM)
	}
	// Index 1 is the Genesis: the operations are 2, 3, ...
	phase(30, 45) // snapshot at 31, records 32..46
	s31, j31 := read(snap), read(journal)
	if base, recs := records(t, journal); base != 31 || len(recs) != 15 {
		t.Fatalf("journal continues %d with %d records, want 31 and 15", base, len(recs))
	}
	phase(100000, 16) // records 32..62
	jcov := read(journal)
	_, recs := records(t, journal)
	write(s31, jcov[:recs[len(recs)-1].off]) // back to index 61
	phase(1, 1)                              // snapshot at 62, empty journal
	s62, j62 := read(snap), read(journal)
	if base, recs := records(t, journal); base != 62 || len(recs) != 0 {
		t.Fatalf("journal continues %d with %d records, want 62 and 0", base, len(recs))
	}

	args := []string{"-mode", "standalone", "-data", dir, "-graph", "demo"}
	refused := func(name string, want ...string) {
		t.Helper()
		s0, _ := os.ReadFile(snap)
		j0 := read(journal)
		code, out := runDaemon(t, args...)
		if code == 0 {
			t.Fatalf("%s: the server started:\n%s", name, out)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the error does not say %q:\n%s", name, w, out)
			}
		}
		s1, _ := os.ReadFile(snap)
		if !bytes.Equal(s0, s1) || !bytes.Equal(j0, read(journal)) {
			t.Fatalf("%s: the refused start changed the files", name)
		}
	}
	write(nil, j62)
	refused("snapshot deleted, empty journal", journal, "continues index 62", "no snapshot")
	write(nil, j31)
	refused("snapshot deleted", journal, "continues index 31", "no snapshot")
	write(s31, j62)
	refused("older snapshot", "continues index 62", "snapshot at index 31")
	write(s62, j31)
	refused("newer snapshot", "snapshot at index 62 is newer")
	write(s62[:len(s62)/2], j62)
	refused("truncated snapshot", snap)
	write(s62, j62)
	os.Remove(journal)
	code, out := runDaemon(t, args...)
	if code == 0 || !strings.Contains(out, "journal is missing") {
		t.Fatalf("journal deleted: exit %d\n%s", code, out)
	}

	// A crash after the snapshot at 62 was renamed and before the new
	// journal was: the old journal (base 31, records 32..62) is covered.
	write(s62, jcov)
	d := startDaemon(t, addr, args...)
	d.waitServing(time.Minute)
	if applied, jobs := served(t, addr); applied != 62 || jobs != 61 {
		t.Fatalf("applied %d with %d jobs, want 62 and 61", applied, jobs)
	}
}

// TestDataDirInUse: a second server, or a repair, on the data directory
// of a running server is refused: both would write the one journal (each
// at its own offset), overwriting each other's acknowledged records. The
// running server goes on, and a restart after SIGKILL serves everything.
func TestDataDirInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr := freePort(t)
	args := []string{"-mode", "standalone", "-data", dir, "-graph", "demo"}
	d := startDaemon(t, addr, args...)
	d.waitServing(time.Minute)
	acknowledge(t, addr, 3)
	code, out := runDaemon(t, args...)
	if code == 0 || !strings.Contains(out, "in use by another gofluxiond") {
		t.Fatalf("a second server on %s: exit %d\n%s", dir, code, out)
	}
	_, recs := records(t, filepath.Join(dir, "journal"))
	code, out = runDaemon(t, "-data", dir, "-repair-journal-at", fmt.Sprint(recs[len(recs)-1].off))
	if code == 0 || !strings.Contains(out, "in use by another gofluxiond") {
		t.Fatalf("a repair of a running server's journal: exit %d\n%s", code, out)
	}
	acknowledge(t, addr, 3)
	d.kill(syscall.SIGKILL)
	d.start()
	d.waitServing(time.Minute)
	if applied, jobs := served(t, addr); applied != 7 || jobs != 6 {
		t.Fatalf("after a restart: applied %d with %d jobs, want 7 and 6", applied, jobs)
	}
}
