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
	"sync"
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
// A journal record is [length uint32][crc32c uint32][index uint64][Op],
// big-endian, the CRC covering index and Op. The committer writes a batch
// of records, fsyncs the journal, then applies the batch and replies: an
// operation is acknowledged only once it is on disk, and it is applied in
// the order it is written. On start the snapshot is loaded and the journal
// replayed up to its first torn or corrupt record (the tail a crash
// interrupted, never acknowledged), which is cut off.

const (
	snapshotFile = "snapshot"
	journalFile  = "journal"
	// maxRecord bounds one record (a jobspec or an R of 64 MiB).
	maxRecord = 64 << 20
	maxBatch  = 512
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
	Metrics       *Metrics
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
}

// OpenStandalone loads the state from opts.Dir (snapshot, then journal)
// and starts the committer.
func OpenStandalone(opts StandaloneOptions) (*Standalone, error) {
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 10000
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, err
	}
	s := &Standalone{opts: opts, reqs: make(chan *pending, 4096), stop: make(chan struct{}), stopped: make(chan struct{})}
	sf, err := os.Open(filepath.Join(opts.Dir, snapshotFile))
	switch {
	case err == nil:
		s.st = state.New(nil)
		err = s.st.Restore(bufio.NewReader(sf))
		sf.Close()
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", snapshotFile, err)
		}
	case errors.Is(err, os.ErrNotExist):
		if opts.Initial == nil {
			return nil, fmt.Errorf("%s has no snapshot and no initial graph was given", opts.Dir)
		}
		m, err := opts.Initial()
		if err != nil {
			return nil, err
		}
		s.st = state.New(m)
	default:
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(opts.Dir, journalFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	s.f = f
	if err := s.replay(); err != nil {
		f.Close()
		return nil, err
	}
	s.next = s.st.Applied() + 1
	go s.commit()
	return s, nil
}

// replay applies the journal's records after the snapshot and cuts the
// journal after the last good one.
func (s *Standalone) replay() error {
	r := bufio.NewReader(s.f)
	var good int64
	var n int
	for {
		idx, op, size, err := readRecord(r)
		if err != nil {
			break // end of file, or the torn tail of a crash
		}
		good += size
		if idx > s.st.Applied() {
			s.st.Apply(idx, op)
			n++
		}
	}
	if err := s.f.Truncate(good); err != nil {
		return err
	}
	if _, err := s.f.Seek(good, io.SeekStart); err != nil {
		return err
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.Replayed.Add(float64(n))
	}
	return s.f.Sync()
}

func readRecord(r *bufio.Reader) (uint64, *pb.Op, int64, error) {
	var hdr [8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, 0, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n < 8 || n > maxRecord {
		return 0, nil, 0, fmt.Errorf("bad record length %d", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, 0, err
	}
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(hdr[4:]) {
		return 0, nil, 0, fmt.Errorf("bad record checksum")
	}
	op := &pb.Op{}
	if err := proto.Unmarshal(body[8:], op); err != nil {
		return 0, nil, 0, err
	}
	return binary.BigEndian.Uint64(body[:8]), op, int64(8 + n), nil
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
	if err := s.f.Truncate(0); err != nil {
		return err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if s.opts.Metrics != nil {
		s.opts.Metrics.Snapshots.Inc()
	}
	return s.f.Sync()
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
			return s.f.Close()
		}
	}
}
