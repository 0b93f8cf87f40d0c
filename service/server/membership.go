package server

import (
	"io"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// Safe membership. Join adds a replica as a non-voter: it receives the
// log but does not count in the quorum. The leader watches how far each
// non-voter has replicated (the match index of its successful
// AppendEntries and InstallSnapshot answers, seen by the transport) and
// promotes it to voter once that is within PromoteLag entries of its own
// last index. A Join naming an address where no replica listens leaves a
// non-voter that never answers, is never promoted, and never changes the
// quorum; Leave removes it.

// progress is the leader's view of each peer's match index.
type progress struct {
	mu    sync.Mutex
	match map[raft.ServerID]seen
}

type seen struct {
	index uint64
	at    time.Time
}

func (p *progress) record(id raft.ServerID, index uint64) {
	p.mu.Lock()
	p.match[id] = seen{index, time.Now()}
	p.mu.Unlock()
}

func (p *progress) touch(id raft.ServerID) {
	p.mu.Lock()
	if s, ok := p.match[id]; ok {
		s.at = time.Now()
		p.match[id] = s
	}
	p.mu.Unlock()
}

func (p *progress) get(id raft.ServerID) (seen, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.match[id]
	return s, ok
}

// trackedTransport records the match index of each successful
// replication call; the rest is the wrapped transport.
type trackedTransport struct {
	raft.Transport
	p *progress
}

// trackedPreVote is trackedTransport for transports that support
// pre-vote (raft looks for the method).
type trackedPreVote struct{ *trackedTransport }

func (t trackedPreVote) RequestPreVote(id raft.ServerID, target raft.ServerAddress, args *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.Transport.(raft.WithPreVote).RequestPreVote(id, target, args, resp)
}

func track(t raft.Transport, p *progress) raft.Transport {
	tt := &trackedTransport{t, p}
	if _, ok := t.(raft.WithPreVote); ok {
		return trackedPreVote{tt}
	}
	return tt
}

func (t *trackedTransport) observe(id raft.ServerID, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) {
	if resp == nil || !resp.Success {
		return
	}
	if args.PrevLogEntry > 0 || len(args.Entries) > 0 {
		t.p.record(id, args.PrevLogEntry+uint64(len(args.Entries)))
	} else {
		// A heartbeat carries no position (PrevLogEntry 0, no entries),
		// but says the peer is still there with what it had: an idle
		// leader's non-voter that caught up stays fresh.
		t.p.touch(id)
	}
}

func (t *trackedTransport) AppendEntries(id raft.ServerID, target raft.ServerAddress, args *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	err := t.Transport.AppendEntries(id, target, args, resp)
	if err == nil {
		t.observe(id, args, resp)
	}
	return err
}

func (t *trackedTransport) InstallSnapshot(id raft.ServerID, target raft.ServerAddress, args *raft.InstallSnapshotRequest, resp *raft.InstallSnapshotResponse, data io.Reader) error {
	err := t.Transport.InstallSnapshot(id, target, args, resp, data)
	if err == nil && resp.Success {
		t.p.record(id, args.LastLogIndex)
	}
	return err
}

func (t *trackedTransport) AppendEntriesPipeline(id raft.ServerID, target raft.ServerAddress) (raft.AppendPipeline, error) {
	in, err := t.Transport.AppendEntriesPipeline(id, target)
	if err != nil {
		return nil, err
	}
	p := &trackedPipeline{AppendPipeline: in, out: make(chan raft.AppendFuture, 128), done: make(chan struct{})}
	go p.relay(t, id)
	return p, nil
}

// trackedPipeline relays the wrapped pipeline's answers, observing them.
type trackedPipeline struct {
	raft.AppendPipeline
	out  chan raft.AppendFuture
	done chan struct{}
	once sync.Once
}

func (p *trackedPipeline) relay(t *trackedTransport, id raft.ServerID) {
	in := p.AppendPipeline.Consumer()
	for {
		select {
		case f := <-in:
			if f.Error() == nil {
				t.observe(id, f.Request(), f.Response())
			}
			select {
			case p.out <- f:
			case <-p.done:
				return
			}
		case <-p.done:
			return
		}
	}
}

func (p *trackedPipeline) Consumer() <-chan raft.AppendFuture { return p.out }

func (p *trackedPipeline) Close() error {
	p.once.Do(func() { close(p.done) })
	return p.AppendPipeline.Close()
}

// promoter runs on every replica and acts while it leads: every interval
// it promotes the non-voters that have caught up.
func (b *Replicated) promoter(interval time.Duration, logger hclog.Logger) {
	defer close(b.promoted)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		if b.r.State() != raft.Leader {
			continue
		}
		f := b.r.GetConfiguration()
		if f.Error() != nil {
			continue
		}
		last := b.r.LastIndex()
		for _, s := range f.Configuration().Servers {
			if s.Suffrage != raft.Nonvoter {
				continue
			}
			m, ok := b.progress.get(s.ID)
			// Fresh (seen within a few intervals) and close behind.
			if !ok || time.Since(m.at) > 10*interval+2*time.Second || m.index+b.opts.PromoteLag < last {
				continue
			}
			if err := b.r.AddVoter(s.ID, s.Address, f.Index(), b.opts.ApplyTimeout).Error(); err != nil {
				logger.Warn("promote to voter", "id", s.ID, "error", err)
				break // the configuration changed: look again next time
			}
			logger.Info("promoted to voter: caught up", "id", s.ID, "match", m.index, "last", last)
			break
		}
	}
}
