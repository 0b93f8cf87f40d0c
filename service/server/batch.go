package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/state"
	"github.com/hashicorp/raft"
	"google.golang.org/protobuf/proto"
)

// Batched Raft proposals. Operations that arrive while the leader is busy
// (storing and fsyncing the previous entries) wait in a queue; the
// proposer takes everything queued and proposes it as one Raft log entry,
// so many operations share one log append, one fsync per replica and one
// replication round. A lone operation is an entry of its own, encoded as
// before (the Op's protobuf encoding).
//
// A batch entry is [0x00 'B'][uvarint n] then n times [uvarint len][Op].
// No Op encoding starts with a zero byte (field number 0 does not exist)
// and an empty Op is not proposed, so the two encodings cannot be
// confused. The state machine applies a batch's operations in order, each
// at its own operation index, with its own result and session lookup:
// exactly what applying them as n entries would do.

const (
	// MaxEntryOps is the default bound on the operations of one entry.
	MaxEntryOps = 256
	// maxEntryBytes stops adding operations to an entry past this size
	// (one large operation still goes alone, up to maxRecord).
	maxEntryBytes = 1 << 20
	batchMagic0   = 0x00
	batchMagic1   = 'B'
)

// EncodeEntry is the log entry of ops (each a marshalled Op): the Op
// itself for one, a batch for several.
func EncodeEntry(ops [][]byte) []byte {
	if len(ops) == 1 {
		return ops[0]
	}
	n := 2 + binary.MaxVarintLen64
	for _, o := range ops {
		n += binary.MaxVarintLen64 + len(o)
	}
	b := make([]byte, 0, n)
	b = append(b, batchMagic0, batchMagic1)
	b = binary.AppendUvarint(b, uint64(len(ops)))
	for _, o := range ops {
		b = binary.AppendUvarint(b, uint64(len(o)))
		b = append(b, o...)
	}
	return b
}

// EntryOps decodes a Raft log entry's operations: one for a plain entry,
// several for a batch.
func EntryOps(data []byte) ([]*pb.Op, error) {
	if len(data) < 2 || data[0] != batchMagic0 || data[1] != batchMagic1 {
		op := &pb.Op{}
		if err := proto.Unmarshal(data, op); err != nil {
			return nil, err
		}
		return []*pb.Op{op}, nil
	}
	b := data[2:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > uint64(len(b)) {
		return nil, errors.New("batch entry: bad operation count")
	}
	b = b[k:]
	ops := make([]*pb.Op, 0, n)
	for i := range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, fmt.Errorf("batch entry: operation %d: bad length", i)
		}
		op := &pb.Op{}
		if err := proto.Unmarshal(b[k:k+int(l)], op); err != nil {
			return nil, fmt.Errorf("batch entry: operation %d: %w", i, err)
		}
		ops = append(ops, op)
		b = b[k+int(l):]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("batch entry: %d bytes after the last operation", len(b))
	}
	return ops, nil
}

// ApplyEntry applies a log entry's operations to st, each at the index
// after the last one applied, and returns their results (one per
// operation; an undecodable entry fails the same way on every replica,
// changing nothing). Operation indexes count operations, not entries: a
// Result's Index is the operation's own, whatever entry carried it.
func ApplyEntry(st *state.State, data []byte) []*pb.Result {
	ops, err := EntryOps(data)
	if err != nil {
		return []*pb.Result{{Index: st.Applied(), Error: &pb.Error{Kind: "invalid", Message: "undecodable log entry: " + err.Error()}}}
	}
	out := make([]*pb.Result, len(ops))
	for i, op := range ops {
		out[i] = st.Apply(st.Applied()+1, op)
	}
	return out
}

// proposal is one operation waiting for its entry to commit.
type proposal struct {
	data []byte
	res  *pb.Result
	err  error // raft's error for the entry
	done chan struct{}
}

// proposer batches the operations queued in in into log entries.
type proposer struct {
	r       *raft.Raft
	in      chan *proposal
	stop    chan struct{}
	timeout time.Duration
	maxOps  int
	entries atomic.Uint64 // entries proposed (for the benchmark's figures)
	ops     atomic.Uint64
}

func (p *proposer) run() {
	for {
		var first *proposal
		select {
		case first = <-p.in:
		case <-p.stop:
			return
		}
		batch := []*proposal{first}
		size := len(first.data)
	fill:
		for len(batch) < p.maxOps && size < maxEntryBytes {
			select {
			case q := <-p.in:
				batch = append(batch, q)
				size += len(q.data)
			default:
				break fill
			}
		}
		datas := make([][]byte, len(batch))
		for i, q := range batch {
			datas[i] = q.data
		}
		// Apply blocks until the leader's loop takes the entry: meanwhile
		// the next batch gathers in the queue.
		f := p.r.Apply(EncodeEntry(datas), p.timeout)
		p.entries.Add(1)
		p.ops.Add(uint64(len(batch)))
		go answer(f, batch)
	}
}

// answer hands each operation of a committed entry its result.
func answer(f raft.ApplyFuture, batch []*proposal) {
	err := f.Error()
	var res []*pb.Result
	if err == nil {
		res, _ = f.Response().([]*pb.Result)
		if len(res) != len(batch) {
			err = fmt.Errorf("the state machine returned %d results for %d operations", len(res), len(batch))
		}
	}
	for i, q := range batch {
		if err != nil {
			q.err = err
		} else {
			q.res = res[i]
		}
		close(q.done)
	}
}
