package plugin

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/service/client"
)

// A remote matcher is the gofluxion matcher service (gofluxiond, module
// github.com/gofluxion/gofluxion/service) reached through its Go client,
// which implements gofluxion.Interface as the in-process Matcher does: the
// plugin's decisions are the same, each operation an RPC answered once it
// is durable (fsynced stand-alone, committed replicated).
//
// The plugin owns the service's state. Its own state (pods, gangs,
// reservations, the bookings of others' pods) is rebuilt from the API
// server at start, as in process, so at start it empties the service
// (cancels every job, removes every vertex below the cluster vertex) and
// attaches the nodes again. One scheduler only may use a service at a time.

// newRemoteMatcher dials the service of a.Matcher, checks that its graph
// is one the plugin can own (a cluster vertex at the root) and empties it.
// The client is returned for Close.
func newRemoteMatcher(ctx context.Context, a *Args) (*fluxMatcher, *client.Client, error) {
	ma := a.Matcher
	cl, err := client.Dial(ma.addresses(), client.Options{Timeout: time.Duration(ma.TimeoutSeconds) * time.Second})
	if err != nil {
		return nil, nil, fmt.Errorf("matcher %s: %w", ma.Address, err)
	}
	// each call bounded by the client's timeout (ctx has no deadline)
	if err := resetRemote(cl.With(ctx)); err != nil {
		cl.Close()
		return nil, nil, fmt.Errorf("matcher %s: %w", ma.Address, err)
	}
	return newFluxMatcher(cl), cl, nil
}

// resetRemote empties the service's graph down to its cluster vertex and
// cancels every job, from a snapshot of its state (read whole: the graph
// of thousands of nodes is too big for one find answer).
func resetRemote(b *client.Bound) error {
	st, err := b.Stats()
	if err != nil {
		return fmt.Errorf("cannot reach the matcher service: %w", err)
	}
	if st.Vertices == 1 && st.Jobs == 0 {
		return checkRoot(b)
	}
	var buf bytes.Buffer
	if err := b.Snapshot(&buf); err != nil {
		return fmt.Errorf("reading the service's state: %w", err)
	}
	m, err := gofluxion.Restore(&buf)
	if err != nil {
		return fmt.Errorf("reading the service's state: %w", err)
	}
	g := m.Graph()
	sub := g.Subsystem("containment")
	root := g.Root(sub)
	var rootPath string
	if root != graph.NoVertex && g.TypeName(root) == "cluster" {
		rootPath, _ = g.V(root).PathIn(sub)
	}
	if rootPath != clusterPath {
		// checked before anything changes
		return fmt.Errorf("the service's graph is not the plugin's (no cluster vertex at %s): start gofluxiond with -graph empty", clusterPath)
	}
	for _, j := range m.Jobs() {
		if j.State == gofluxion.Canceled {
			continue
		}
		if err := b.Cancel(j.ID); err != nil {
			return fmt.Errorf("emptying the service: cancel of job %d: %w", j.ID, err)
		}
	}
	for _, h := range g.Out(root) {
		if h.Subsystem != sub || !g.E(h.Edge).Live() {
			continue
		}
		p, ok := g.V(h.Other).PathIn(sub)
		if !ok {
			continue
		}
		if err := b.Remove(p); err != nil {
			return fmt.Errorf("emptying the service: remove of %s: %w", p, err)
		}
	}
	return checkRoot(b)
}

// checkRoot checks that the service's graph is the plugin's: one cluster
// vertex at /cluster0 (and nothing else, after resetRemote).
func checkRoot(b *client.Bound) error {
	st, err := b.Stats()
	if err != nil {
		return err
	}
	_, err = b.Status(clusterPath)
	if err != nil || st.Vertices != 1 || st.Jobs != 0 {
		return fmt.Errorf("the service's graph is not the plugin's (%d vertices, %d jobs, %s: %v): start gofluxiond with -graph empty",
			st.Vertices, st.Jobs, clusterPath, err)
	}
	return nil
}

// addresses lists the replicas' addresses.
func (m *MatcherArgs) addresses() []string {
	var out []string
	for _, a := range strings.Split(m.Address, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
