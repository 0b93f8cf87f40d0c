package server

import (
	"bufio"

	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Stand-alone mode keeps the state in a directory:
//
//	snapshot   the state machine at some index (state.Frozen)
//	journal    every operation after it, in commit order
//
// The journal starts with a header, [magic "GFXJ"][version uint32]
// [base uint64][crc32c uint32], base being the index of the snapshot it
// continues (0: the initial state). A record is [length uint32]
// [crc32c uint32][index uint64][Op], big-endian, the CRC covering index
// and Op, and the indexes run base+1, base+2, ... The committer writes a
// batch of records, fsyncs the journal, then applies the batch and
// replies: an operation is acknowledged only once it is on disk, and it is
// applied in the order it is written.
//
// On start the snapshot is loaded and the journal replayed. Only a bad
// final record (the torn tail of a crash, never acknowledged) is cut, and
// the cut is logged. Any other bad record, a gap in the indexes, or a
// journal that does not continue the snapshot (snapshot lost, older or
// newer) makes the start fail with a *JournalError naming the file, the
// byte offset and the record, and nothing is changed on disk: the
// operator decides, and repairs with RepairJournal (gofluxiond
// -repair-journal-at OFFSET), which keeps the bytes it cuts.

const (
	snapshotFile = "snapshot"
	journalFile  = "journal"
	// maxRecord bounds one record (a jobspec or an R of 64 MiB).
	maxRecord = 64 << 20
	maxBatch  = 512

	journalMagic   = "GFXJ"
	journalVersion = 2
	headerSize     = 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// StandaloneOptions configure a Standalone backend.
type StandaloneOptions struct {
	Dir string
	// Initial builds the matcher when Dir holds no snapshot yet.
	Initial func() (*gofluxion.Matcher, error)
	// SnapshotEvery is the number of operations between snapshots (the
	// journal is cut after each); default 10000.
	SnapshotEvery int
	// Sessions configures the session table of a state without a
	// configuration of its own (one made before the Genesis existed).
	Sessions state.Options
	// Config is the configuration of the command line: written in the
	// Genesis of a new journal, and compared, on the fields named in
	// Given, with the state's (a difference refuses the start).
	Config *state.Config
	Given  []string
	// Logf logs what the start changed (a torn tail cut); default none.
	Logf    func(format string, args ...any)
	Metrics *Metrics
}

type pending struct {
	op   *pb.Op
	data []byte
	res  *pb.Result
	err  error
	done chan struct{}
}

// Standalone is the stand-alone backend.
type Standalone struct {
	opts    StandaloneOptions
	st      *state.State
	f       *os.File
	next    uint64 // index of the next operation
	reqs    chan *pending
	stop    chan struct{}
	stopped chan struct{}
	mu      sync.Mutex
	broken  error // a failed write: no more operations are accepted
	since   int
	last    int64 // log time of the last batch (UnixNano), never decreasing
	lock    *os.File
	// Operations and fsyncs of the committer (syncs/ops is the group
	// commit's figure).
	ops, syncs atomic.Uint64
}

// Committed returns the operations committed and the journal fsyncs they
// took.
func (s *Standalone) Committed() (ops, syncs uint64) { return s.ops.Load(), s.syncs.Load() }

// JournalError is a journal that cannot be replayed as it is: a bad
// record that is not the last one, a gap in the indexes, or a journal that
// does not continue the snapshot. The server refuses to start and leaves
// the files as they are.
type JournalError struct {
	File   string
	Offset int64  // byte offset of the bad record (or header)
	Record int    // position of the record in the file, from 1 (0: the header)
	Index  uint64 // the log index expected there (0 when unknown)
	Reason string
}

func (e *JournalError) Error() string {
	if e.Record == 0 {
		return fmt.Sprintf("journal %s: %s; refusing to start, the files are left untouched "+
			"(put back the snapshot this journal continues; or, to lose what they hold, move both away)", e.File, e.Reason)
	}
	return fmt.Sprintf("journal %s: record %d (index %d) at byte offset %d: %s; refusing to start, the files are left untouched "+
		"(to drop this record and everything after it: gofluxiond -data %s -repair-journal-at %d)",
		e.File, e.Record, e.Index, e.Offset, e.Reason, filepath.Dir(e.File), e.Offset)
}

// OpenStandalone loads the state from opts.Dir (snapshot, then journal)
// and starts the committer.
func OpenStandalone(opts StandaloneOptions) (*Standalone, error) {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 10000
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	lock, err := lockDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	s, err := openStandalone(opts)
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		return nil, err
	}
	s.lock = lock
	return s, nil
}

func openStandalone(opts StandaloneOptions) (*Standalone, error) {
	s := &Standalone{opts: opts, reqs: make(chan *pending, 4096), stop: make(chan struct{}), stopped: make(chan struct{})}
	s.st = state.New(nil, opts.Sessions)
	path := filepath.Join(opts.Dir, journalFile)
	sf, err := os.Open(filepath.Join(opts.Dir, snapshotFile))
	haveSnap := err == nil
	switch {
	case err == nil:
		err = s.st.Restore(bufio.NewReader(sf))
		sf.Close()
		if err != nil {
			return nil, fmt.Errorf("load %s: %w (refusing to start; the files are left untouched)", filepath.Join(opts.Dir, snapshotFile), err)
		}
	case errors.Is(err, os.ErrNotExist):
		if legacyJournal(path) {
			// A journal of a version without Genesis: it continues the
			// initial graph of the command line.
			if opts.Initial == nil {
				return nil, fmt.Errorf("%s has no snapshot and no initial graph was given", opts.Dir)
			}
			m, err := opts.Initial()
			if err != nil {
				return nil, err
			}
			s.st = state.New(m, opts.Sessions)
		}
	default:
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o644)
	if errors.Is(err, os.ErrNotExist) {
		if haveSnap && s.st.Applied() > 0 {
			return nil, fmt.Errorf("journal %s is missing and the snapshot is at index %d: refusing to start (put the journal back)", path, s.st.Applied())
		}
		if err := s.newJournal(s.st.Applied()); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(path, os.O_RDWR, 0o644)
	}
	if err != nil {
		return nil, err
	}
	s.f = f
	if err := s.replay(path, haveSnap); err != nil {
		f.Close()
		return nil, err
	}
	if !s.st.HasGraph() {
		// A new journal (or one whose Genesis a crash cut): its first
		// record is the initial graph and configuration.
		if err := s.writeGenesis(); err != nil {
			f.Close()
			return nil, err
		}
	}
	s.next = s.st.Applied() + 1
	go s.commit()
	return s, nil
}

// legacyJournal reports whether path is a non-empty journal without a
// header (written before the header and the Genesis existed).
func legacyJournal(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	n, _ := io.ReadFull(f, b[:])
	return n > 0 && string(b[:n]) != journalMagic[:n]
}

// maxGenesisRecord bounds the Genesis written as a journal record (a
// variable for tests).
var maxGenesisRecord = maxRecord - 8

// writeGenesis journals and applies the Genesis made from the command
// line's graph and configuration.
func (s *Standalone) writeGenesis() error {
	if s.opts.Initial == nil {
		return fmt.Errorf("%s has no state and no initial graph was given", s.opts.Dir)
	}
	m, err := s.opts.Initial()
	if err != nil {
		return err
	}
	cfg := s.opts.Config
	if cfg == nil {
		cfg = &state.Config{}
	}
	op, err := state.NewGenesis(m, cfg)
	if err != nil {
		return err
	}
	op.Time = time.Now().UnixNano()
	data, err := proto.Marshal(op)
	if err != nil {
		return err
	}
	if len(data) > maxGenesisRecord {
		// Too large for a record: the Genesis goes into a snapshot at
		// index 0 instead (a crash before it is written leaves a fresh
		// directory again).
		if s.st.Applied() != 0 {
			return fmt.Errorf("the initial graph's snapshot is %d bytes, more than a journal record's %d", len(data), maxGenesisRecord)
		}
		if err := s.st.Init(op.GetGenesis()); err != nil {
			return err
		}
		return s.snapshot()
	}
	idx := s.st.Applied() + 1
	if _, err := s.f.Write(appendRecord(nil, idx, data)); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return err
	}
	if res := s.st.Apply(idx, op); res.GetError() != nil {
		return fmt.Errorf("genesis: %s", res.GetError().GetMessage())
	}
	return nil
}

// checkConfig refuses a state whose configuration differs from the
// command line's on the fields given there.
func checkConfig(have, want *state.Config, given []string) error {
	if have == nil || want == nil {
		return nil
	}
	if d := have.Differences(want, given); len(d) > 0 {
		return fmt.Errorf("refusing to start: the command line differs from the configuration the state was created with: %s "+
			"(leave these flags out to take the state's)", strings.Join(d, ", "))
	}
	return nil
}

// newJournal replaces the journal with an empty one continuing index base
// (journal.tmp, fsync, rename, fsync of the directory), so a crash leaves
// either journal whole.
func (s *Standalone) newJournal(base uint64) error {
	tmp := filepath.Join(s.opts.Dir, journalFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(journalHeader(base))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(s.opts.Dir, journalFile))
	}
	if err == nil {
		err = syncDir(s.opts.Dir)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func journalHeader(base uint64) []byte {
	b := make([]byte, headerSize)
	copy(b, journalMagic)
	binary.BigEndian.PutUint32(b[4:], journalVersion)
	binary.BigEndian.PutUint64(b[8:], base)
	binary.BigEndian.PutUint32(b[16:], crc32.Checksum(b[:16], castagnoli))
	return b
}

// scanned is one good record found by scanJournal.
type scanned struct {
	off    int64
	record int
	index  uint64
	op     *pb.Op
}

// journalScan is what scanJournal found.
type journalScan struct {
	hasHeader bool
	base      uint64
	first     uint64 // index of the first record (0: none)
	last      uint64 // index of the last good record (0: none)
	records   int    // good records
	end       int64  // offset after the last good record
	torn      *JournalError
}

// scanJournal reads the journal at path (of size bytes) from r and calls
// each on every good record in order. A bad record that is the last one
// (it runs to or past the end of the file, or only zero bytes follow it)
// is reported as torn; any other bad record, or a gap in the indexes, is
// a *JournalError.
func scanJournal(path string, r io.Reader, size int64, each func(scanned) error) (*journalScan, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	js := &journalScan{}
	var off int64
	if size >= 4 {
		magic, err := br.Peek(4)
		if err != nil {
			return nil, err
		}
		if string(magic) == journalMagic {
			var hdr [headerSize]byte
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				return nil, &JournalError{File: path, Reason: "truncated header"}
			}
			if crc32.Checksum(hdr[:16], castagnoli) != binary.BigEndian.Uint32(hdr[16:]) {
				return nil, &JournalError{File: path, Reason: "bad header checksum"}
			}
			if v := binary.BigEndian.Uint32(hdr[4:]); v != journalVersion {
				return nil, &JournalError{File: path, Reason: fmt.Sprintf("journal version %d, this server reads %d", v, journalVersion)}
			}
			js.hasHeader, js.base, off = true, binary.BigEndian.Uint64(hdr[8:]), headerSize
		}
	}
	js.end = off
	prev := js.base
	for rec := 1; off < size; rec++ {
		want := uint64(0)
		if js.hasHeader || js.records > 0 {
			want = prev + 1
		}
		bad := func(reason string) *JournalError {
			return &JournalError{File: path, Offset: off, Record: rec, Index: want, Reason: reason}
		}
		// torn reports whether only zeros follow (a file extended by a
		// write that never reached the disk).
		zerosAfter := func(skip int) bool {
			if _, err := br.Discard(skip); err != nil {
				return true
			}
			for {
				b, err := br.ReadByte()
				if err != nil {
					return true
				}
				if b != 0 {
					return false
				}
			}
		}
		if size-off < 8 {
			js.torn = bad(fmt.Sprintf("%d bytes, shorter than a record header", size-off))
			break
		}
		var hdr [8]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return nil, err
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		if n < 8 || n > maxRecord {
			e := bad(fmt.Sprintf("bad record length %d", n))
			if zerosAfter(0) && n == 0 {
				js.torn = e
				break
			}
			return nil, e
		}
		if off+8+n > size {
			// A torn write, or a length field corrupted upwards: the
			// second leaves good records after it, which must not be cut.
			tail := make([]byte, size-off-8) // < n <= maxRecord
			if _, err := io.ReadFull(br, tail); err != nil {
				return nil, err
			}
			if at, idx, ok := goodRecordIn(tail, prev, js.hasHeader || js.records > 0); ok {
				return nil, bad(fmt.Sprintf("bad record length %d: it runs past the end of the file, but a good record (index %d) follows at byte offset %d", n, idx, off+8+int64(at)))
			}
			js.torn = bad(fmt.Sprintf("record of %d bytes runs past the end of the file (%d bytes)", 8+n, size))
			break
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return nil, err
		}
		final := off+8+n == size
		if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(hdr[4:]) {
			e := bad("bad record checksum")
			if final || zerosAfter(0) {
				js.torn = e
				break
			}
			return nil, e
		}
		idx := binary.BigEndian.Uint64(body[:8])
		if want != 0 && idx != want {
			return nil, bad(fmt.Sprintf("the record holds index %d: the indexes are not contiguous", idx))
		}
		op := &pb.Op{}
		if err := proto.Unmarshal(body[8:], op); err != nil {
			return nil, bad(fmt.Sprintf("the operation does not decode: %v", err))
		}
		if err := each(scanned{off: off, record: rec, index: idx, op: op}); err != nil {
			return nil, err
		}
		if js.records == 0 {
			js.first = idx
		}
		js.records++
		js.last, prev = idx, idx
		off += 8 + n
		js.end = off
	}
	return js, nil
}

// goodRecordIn looks in b for a whole record with a good checksum whose
// index follows prev (when ordered; any index otherwise) and returns its
// offset in b and its index.
func goodRecordIn(b []byte, prev uint64, ordered bool) (int, uint64, bool) {
	// Every record takes at least 16 bytes, so the indexes that can
	// follow prev within b are few: a cheap filter before the checksum.
	maxIdx := prev + uint64(len(b))/16 + 1
	for p := 0; p+16 <= len(b); p++ {
		n := int(binary.BigEndian.Uint32(b[p:]))
		if n < 8 || n > maxRecord || n > len(b)-p-8 {
			continue
		}
		idx := binary.BigEndian.Uint64(b[p+8:])
		if ordered && (idx <= prev || idx > maxIdx) {
			continue
		}
		if crc32.Checksum(b[p+8:p+8+n], castagnoli) == binary.BigEndian.Uint32(b[p+4:]) {
			return p, idx, true
		}
	}
	return 0, 0, false
}

// replay applies the journal's records after the snapshot, checking that
// the journal continues it, and cuts a torn final record.
func (s *Standalone) replay(path string, haveSnap bool) error {
	fi, err := s.f.Stat()
	if err != nil {
		return err
	}
	applied := s.st.Applied()
	var n int
	// A first pass checks the whole file before anything is applied or
	// cut: a bad record or a discontinuity refuses the start.
	var genesis *state.Config
	js, err := scanJournal(path, s.f, fi.Size(), func(r scanned) error {
		if g := r.op.GetGenesis(); g != nil && genesis == nil && r.index > applied {
			genesis, _ = state.GenesisConfig(g)
		}
		return nil
	})
	if err != nil {
		return err
	}
	have := s.st.Config()
	if have == nil {
		have = genesis
	}
	if err := checkConfig(have, s.opts.Config, s.opts.Given); err != nil {
		return err
	}
	snapName := fmt.Sprintf("the snapshot at index %d", applied)
	if !haveSnap {
		snapName = "the initial state (there is no snapshot)"
	}
	refuse := func(reason string) error {
		return &JournalError{File: path, Offset: 0, Record: 0, Reason: reason}
	}
	switch {
	case js.hasHeader && js.base > applied:
		return refuse(fmt.Sprintf("the journal continues index %d but %s is older: the snapshot is lost or stale", js.base, snapName))
	case js.hasHeader && js.base < applied && js.last != applied:
		// Only a crash between writing the snapshot and starting the new
		// journal leaves a journal the snapshot covers, up to its index.
		return refuse(fmt.Sprintf("%s is newer than the journal (continuing index %d, last record %d)", snapName, js.base, js.last))
	case !js.hasHeader && js.records > 0 && js.first > applied+1:
		return refuse(fmt.Sprintf("the journal starts at index %d but %s: indexes %d..%d are missing (the snapshot is lost or stale)", js.first, snapName, applied+1, js.first-1))
	case !js.hasHeader && js.records > 0 && js.last < applied:
		return refuse(fmt.Sprintf("%s is newer than the journal (last record %d)", snapName, js.last))
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = scanJournal(path, s.f, js.end, func(r scanned) error {
		if r.index > s.st.Applied() {
			s.st.Apply(r.index, r.op)
			n++
		}
		return nil
	})
	if err != nil {
		return err
	}
	if js.torn != nil {
		s.opts.Logf("journal %s: cut the torn final record %d at byte offset %d (%s): %d bytes dropped, never acknowledged",
			path, js.torn.Record, js.torn.Offset, js.torn.Reason, fi.Size()-js.end)
		if err := s.f.Truncate(js.end); err != nil {
			return err
		}
	}
	if _, err := s.f.Seek(js.end, io.SeekStart); err != nil {
		return err
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.Replayed.Add(float64(n))
	}
	return s.f.Sync()
}

// RepairJournal cuts the journal in dir at byte offset off, the start of
// a record (as a *JournalError names it), after the operator has decided
// to lose that record and everything after it. The bytes cut are kept in
// journal.cut-OFFSET. The records before off must be good. It returns a
// description of what was cut.
func RepairJournal(dir string, off int64) (string, error) {
	path := filepath.Join(dir, journalFile)
	lock, err := lockDir(dir)
	if err != nil {
		return "", err
	}
	if lock != nil {
		defer lock.Close()
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if off < 0 || off > fi.Size() {
		return "", fmt.Errorf("journal %s has %d bytes: offset %d is outside it", path, fi.Size(), off)
	}
	js, err := scanJournal(path, f, off, func(scanned) error { return nil })
	if err != nil {
		return "", fmt.Errorf("the records before offset %d are not all good: %w", off, err)
	}
	if js.torn != nil || js.end != off {
		return "", fmt.Errorf("journal %s: offset %d is not the start of a record (the last good record before it ends at %d)", path, off, js.end)
	}
	cut := filepath.Join(dir, fmt.Sprintf("%s.cut-%d", journalFile, off))
	out, err := os.OpenFile(cut, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("keep the bytes cut: %w", err)
	}
	_, err = io.Copy(out, io.NewSectionReader(f, off, fi.Size()-off))
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("keep the bytes cut: %w", err)
	}
	if err := f.Truncate(off); err != nil {
		return "", err
	}
	if err := f.Sync(); err != nil {
		return "", err
	}
	return fmt.Sprintf("journal %s: cut at byte offset %d after %d good records (last index %d); %d bytes kept in %s",
		path, off, js.records, js.last, fi.Size()-off, cut), nil
}

func appendRecord(b []byte, idx uint64, data []byte) []byte {
	var hdr [16]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(8+len(data)))
	binary.BigEndian.PutUint64(hdr[8:], idx)
	crc := crc32.Update(crc32.Checksum(hdr[8:], castagnoli), castagnoli, data)
	binary.BigEndian.PutUint32(hdr[4:8], crc)
	return append(append(b, hdr[:]...), data...)
}

// commit is the committer: batches of operations written, fsynced,
// applied and answered in order.
func (s *Standalone) commit() {
	defer close(s.stopped)
	var buf []byte
	for {
		var batch []*pending
		select {
		case p := <-s.reqs:
			batch = append(batch, p)
		case <-s.stop:
			return
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case p := <-s.reqs:
				batch = append(batch, p)
			default:
				break fill
			}
		}
		buf = buf[:0]
		for i, p := range batch {
			buf = appendRecord(buf, s.next+uint64(i), p.data)
		}
		t0 := time.Now()
		_, err := s.f.Write(buf)
		if err == nil {
			err = s.f.Sync()
		}
		s.syncs.Add(1)
		s.ops.Add(uint64(len(batch)))
		if s.opts.Metrics != nil {
			s.opts.Metrics.Fsync.Observe(time.Since(t0).Seconds())
			s.opts.Metrics.Batch.Observe(float64(len(batch)))
		}
		if err != nil {
			// The journal's tail is unknown now: stop accepting, so that
			// nothing is acknowledged that a restart would not replay.
			s.mu.Lock()
			s.broken = fmt.Errorf("journal write: %w", err)
			s.mu.Unlock()
			for _, p := range batch {
				p.err = status.Error(codes.Unavailable, s.broken.Error())
				close(p.done)
			}
			continue
		}
		for _, p := range batch {
			p.res = s.st.Apply(s.next, p.op)
			s.next++
			close(p.done)
		}
		// A big batch (large Attach requests) leaves a big buffer: let it
		// go rather than hold it for good.
		if cap(buf) > 4<<20 {
			buf = nil
		}
		s.since += len(batch)
		if s.since >= s.opts.SnapshotEvery {
			s.since = 0
			if err := s.snapshot(); err != nil && s.opts.Metrics != nil {
				s.opts.Metrics.SnapshotErrors.Inc()
			}
		}
	}
}

// snapshot writes the state to snapshot.tmp, renames it over snapshot and
// empties the journal. A crash between the steps leaves records the new
// snapshot already covers, which replay skips by index.
func (s *Standalone) snapshot() error {
	fr := s.st.Freeze()
	tmp := filepath.Join(s.opts.Dir, snapshotFile+".tmp")
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = fr.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(s.opts.Dir, snapshotFile))
	}
	if err == nil {
		err = syncDir(s.opts.Dir)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// The new journal replaces the old one whole; a crash before the
	// rename leaves the old journal, whose records up to the snapshot's
	// index replay skips.
	err = s.newJournal(fr.Applied())
	var nf *os.File
	if err == nil {
		nf, err = os.OpenFile(filepath.Join(s.opts.Dir, journalFile), os.O_RDWR, 0o644)
	}
	if err == nil {
		_, err = nf.Seek(0, io.SeekEnd)
	}
	if err != nil {
		// Which journal a restart finds is unknown now: accept nothing
		// more, so nothing is acknowledged that it would not replay.
		if nf != nil {
			nf.Close()
		}
		s.mu.Lock()
		s.broken = fmt.Errorf("new journal after the snapshot: %w", err)
		s.mu.Unlock()
		return err
	}
	s.f.Close()
	s.f = nf
	if s.opts.Metrics != nil {
		s.opts.Metrics.Snapshots.Inc()
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Apply implements Backend.
func (s *Standalone) Apply(ctx context.Context, op *pb.Op) (*pb.Result, error) {
	s.mu.Lock()
	broken := s.broken
	s.mu.Unlock()
	if broken != nil {
		return nil, status.Error(codes.Unavailable, broken.Error())
	}
	op.Time = time.Now().UnixNano() // the log time, from the server only
	data, err := proto.Marshal(op)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if len(data) > maxRecord-8 {
		return nil, status.Errorf(codes.InvalidArgument, "operation of %d bytes is larger than %d", len(data), maxRecord-8)
	}
	p := &pending{op: op, data: data, done: make(chan struct{})}
	select {
	case s.reqs <- p:
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-s.stop:
		return nil, status.Error(codes.Unavailable, "shutting down")
	}
	// Once queued the operation is committed whatever the caller does:
	// wait for it, so the answer is never lost on our side.
	<-p.done
	return p.res, p.err
}

// Read implements Backend: one process, always current.
func (s *Standalone) Read(ctx context.Context, stale bool) (*state.State, error) { return s.st, nil }

// State returns the state machine.
func (s *Standalone) State() *state.State { return s.st }

// Cluster implements Backend.
func (s *Standalone) Cluster() *pb.ClusterInfo {
	return &pb.ClusterInfo{Mode: "standalone", State: "Standalone", AppliedIndex: s.st.Applied()}
}

// Join implements Backend.
func (s *Standalone) Join(context.Context, string, string, string) error {
	return status.Error(codes.FailedPrecondition, "a stand-alone server has no replicas")
}

// Leave implements Backend.
func (s *Standalone) Leave(context.Context, string) error {
	return status.Error(codes.FailedPrecondition, "a stand-alone server has no replicas")
}

// Ready implements Backend.
func (s *Standalone) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken == nil
}

// Close stops the committer (operations queued and not yet written are
// refused) and closes the journal.
func (s *Standalone) Close() error {
	close(s.stop)
	<-s.stopped
	for {
		select {
		case p := <-s.reqs:
			p.err = status.Error(codes.Unavailable, "shutting down")
			close(p.done)
		default:
			err := s.f.Close()
			if s.lock != nil {
				s.lock.Close()
			}
			return err
		}
	}
}
