package server_test

import (
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/client"
)

// TestStandaloneCrash kills a stand-alone server with SIGKILL twice while
// 8 clients stream operations at it, and restarts it each time. Clients
// retry until answered (a retry is never applied twice). Afterwards every
// acknowledged operation is in the state: each client's answer is what an
// in-process replay of the acknowledged operations in commit order gives
// at that index, and the server's Find outputs and job table equal those of an
// in-process state machine that replays the acknowledged operations in
// commit order.
func TestStandaloneCrash(t *testing.T) {
	const nclients, perClient = 8, 250
	dir := filepath.Join(t.TempDir(), "data")
	addr := freePort(t)
	args := []string{"-mode", "standalone", "-data", dir, "-graph", "demo", "-snapshot-every", "300"}
	d := startDaemon(t, addr, args...)
	d.waitServing(time.Minute)

	total := int64(nclients * perClient)
	var kills atomic.Int32
	killAt := map[int64]bool{total / 4: true, total / 2: true}
	crash := make(chan struct{}, 2)
	done := make(chan struct{})
	go func() {
		for range crash {
			d.kill(syscall.SIGKILL)
			kills.Add(1)
			d.start()
		}
		close(done)
	}()
	acks := runClients(t, []string{addr}, nclients, perClient, func(n int64) {
		if killAt[n] {
			crash <- struct{}{}
		}
	})
	close(crash)
	<-done
	if kills.Load() != 2 {
		t.Fatalf("%d kills, want 2", kills.Load())
	}
	if int64(len(acks)) != total {
		t.Fatalf("%d answers, want %d", len(acks), total)
	}
	// Commit indexes are unique (replay checks it); a gap is a retry that
	// the server had already committed, journaled again and answered from
	// its session table.
	sort.Slice(acks, func(i, j int) bool { return acks[i].res.GetIndex() < acks[j].res.GetIndex() })
	if last := acks[len(acks)-1].res.GetIndex(); last > uint64(total)+uint64(nclients)*50 {
		t.Fatalf("last commit index %d for %d operations", last, total)
	}
	st := replay(t, acks)
	d.waitServing(time.Minute)
	c, err := client.Dial([]string{addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sameState(t, "restarted server", c, st)

	// A third restart, from the snapshot and journal alone, changes nothing.
	d.kill(syscall.SIGKILL)
	d.start()
	d.waitServing(time.Minute)
	sameState(t, "server restarted idle", c, st)
	t.Logf("%d operations, 2 crashes, %d jobs", total, len(st.Matcher().Jobs()))
}
