package gofluxion_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
)

// poolNode is one node holding a cpu pool of 4000 units (millicores) and
// 50 unit vertices of type pod.
func poolNode() string {
	meta := func(id int, typ, name string, size int, path string, rank int) string {
		return fmt.Sprintf(`{"id":"%d","metadata":{"type":%q,"name":%q,"id":0,"uniq_id":%d,"rank":%d,"size":%d,"paths":{"containment":%q}}}`, id, typ, name, id, rank, size, path)
	}
	edge := func(s, t int) string {
		return fmt.Sprintf(`{"source":"%d","target":"%d","metadata":{"subsystem":"containment"}}`, s, t)
	}
	nodes := []string{meta(0, "cluster", "c0", 1, "/c0", -1), meta(1, "node", "n0", 1, "/c0/n0", 0), meta(2, "cpu", "cpu0", 4000, "/c0/n0/cpu0", 0)}
	edges := []string{edge(0, 1), edge(1, 2)}
	for i := range 50 {
		nodes = append(nodes, strings.Replace(meta(10+i, "pod", fmt.Sprintf("pod%d", i), 1, fmt.Sprintf("/c0/n0/pod%d", i), 0), `"id":0,`, fmt.Sprintf(`"id":%d,`, i), 1))
		edges = append(edges, edge(1, 10+i))
	}
	return `{"graph":{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(edges, ",") + `]}}`
}

// TestPoolSharesInSlots pins why a per-node millicore pool cannot be
// shared by pods today (issue 25, item 4; the Kubernetes plugin's design
// note "Fractional resources"): like Fluxion, a pool vertex matched inside
// a slot is exclusive and taken whole (its R says size 4000 for cpu[100]),
// and a non-exclusive pool beside a slot never matches. Unit vertices in
// slots pack and replay.
func TestPoolSharesInSlots(t *testing.T) {
	for _, tc := range []struct {
		name, res string
		fits      int    // matches that succeed, one after another
		inR       string // in the first R
		never     bool   // the first match is ErrUnsatisfiable
	}{
		{"pool in slot", "[{type: slot, count: 1, label: p, with: [{type: cpu, count: 100}]}]", 1, `"size": 4000`, false},
		{"pool in node slot", "[{type: node, count: 1, with: [{type: slot, count: 1, label: p, with: [{type: cpu, count: 100}]}]}]", 1, `"size": 4000`, false},
		{"shared pool beside slot", "[{type: node, count: 1, exclusive: false, with: [{type: cpu, count: 100, exclusive: false}, {type: slot, count: 1, label: p, with: [{type: pod, count: 1}]}]}]", 0, "", true},
		{"unit vertices", "[{type: node, count: 1, with: [{type: slot, count: 1, label: p, with: [{type: pod, count: 1}]}]}]", 50, `"type": "pod"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := gofluxion.ReadGraph("jgf", []byte(poolNode()), "")
			if err != nil {
				t.Fatal(err)
			}
			m, err := gofluxion.New(g, gofluxion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			js, err := m.ParseJobspec([]byte("version: 1\nresources: " + tc.res + "\nattributes: {system: {duration: 3600}}\ntasks: [{command: [app], slot: p, count: {per_slot: 1}}]\n"))
			if err != nil {
				t.Fatal(err)
			}
			var rs []string
			for i := 1; i <= 60; i++ {
				a, err := m.MatchWithID(gofluxion.Allocate, js, uint64(i), 0)
				if err != nil {
					if i == 1 && tc.never != errors.Is(err, gofluxion.ErrUnsatisfiable) {
						t.Errorf("first match: %v, want unsatisfiable %v", err, tc.never)
					}
					break
				}
				r, err := a.Render("jgf")
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			if len(rs) != tc.fits {
				t.Fatalf("%d matches fit, want %d", len(rs), tc.fits)
			}
			if len(rs) == 0 {
				return
			}
			if !strings.Contains(rs[0], tc.inR) {
				t.Errorf("R %s lacks %s", rs[0], tc.inR)
			}
			// Every R replays on a fresh graph, and then nothing more fits.
			g2, _ := gofluxion.ReadGraph("jgf", []byte(poolNode()), "")
			m2, _ := gofluxion.New(g2, gofluxion.Options{})
			for i, r := range rs {
				if _, err := m2.Update(uint64(i+1), []byte(r)); err != nil {
					t.Fatalf("Update %d: %v", i+1, err)
				}
			}
			if _, err := m2.MatchWithID(gofluxion.Allocate, js, 99, 0); !errors.Is(err, gofluxion.ErrBusy) {
				t.Errorf("after the replay another match: %v, want busy", err)
			}
		})
	}
}
