package benchmarks

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/match"
)

var policies = []string{"first", "high", "low"}

// TestStreamSmall runs jobspec A and jobspec B streams on a 16×4 cluster
// under every policy: every match must succeed until the cluster is full
// and the next one must fail with ErrBusy.
func TestStreamSmall(t *testing.T) {
	s := Size{Nodes: 16, Cores: 4}
	g, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != s.Vertices() {
		t.Fatalf("%d vertices, want %d", g.NumVertices(), s.Vertices())
	}
	a, err := JobspecCore(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := JobspecNodeExclusive(g, s.Cores)
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range policies {
		for _, c := range []struct {
			name string
			fits int // jobs that fill the cluster
		}{{"core", s.Nodes * s.Cores}, {"node-exclusive", s.Nodes}} {
			js := a
			if c.name == "node-exclusive" {
				js = b
			}
			t.Run(pol+"/"+c.name, func(t *testing.T) {
				lat, err := Stream(g, pol, js, 10*c.fits)
				if len(lat) != c.fits {
					t.Errorf("%d matches succeeded, want %d (err %v)", len(lat), c.fits, err)
				}
				if !errors.Is(err, match.ErrBusy) {
					t.Errorf("stream ended with %v, want ErrBusy", err)
				}
				// A stream shorter than the capacity ends without error.
				lat, err = Stream(g, pol, js, c.fits)
				if err != nil || len(lat) != c.fits {
					t.Errorf("stream of %d jobs: %d matches, %v", c.fits, len(lat), err)
				}
			})
		}
	}
}

// TestStreamDistinct checks that a jobspec-A stream on 16×4 gives every job
// its own core and that a node-exclusive stream gives every job a whole
// node of its own, reading the simple writer's output.
func TestStreamDistinct(t *testing.T) {
	s := Size{Nodes: 16, Cores: 4}
	g, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := JobspecCore(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := JobspecNodeExclusive(g, s.Cores)
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range policies {
		t.Run(pol, func(t *testing.T) {
			m, err := match.New(g, match.Options{Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			w := emit.NewSimple()
			seen := map[string]int{}
			for j := 1; j <= s.Nodes*s.Cores; j++ {
				if _, err := m.Match(match.Allocate, a, uint64(j), 0, w); err != nil {
					t.Fatalf("job %d: %v", j, err)
				}
				out, err := w.Render()
				if err != nil {
					t.Fatal(err)
				}
				cores := cores(out)
				if len(cores) != 1 {
					t.Fatalf("job %d got %v:\n%s", j, cores, out)
				}
				if prev, ok := seen[cores[0]]; ok {
					t.Fatalf("jobs %d and %d both got %s", prev, j, cores[0])
				}
				seen[cores[0]] = j
			}

			m, err = match.New(g, match.Options{Policy: pol})
			if err != nil {
				t.Fatal(err)
			}
			nodes := map[string]int{}
			for j := 1; j <= s.Nodes; j++ {
				if _, err := m.Match(match.Allocate, b, uint64(j), 0, w); err != nil {
					t.Fatalf("node-exclusive job %d: %v", j, err)
				}
				out, err := w.Render()
				if err != nil {
					t.Fatal(err)
				}
				cores := cores(out)
				if len(cores) != s.Cores || !exclNode.MatchString(out) {
					t.Fatalf("node-exclusive job %d got %v:\n%s", j, cores, out)
				}
				node, _, _ := strings.Cut(cores[0], "/")
				for _, c := range cores {
					if n, _, _ := strings.Cut(c, "/"); n != node {
						t.Fatalf("node-exclusive job %d spans nodes: %v", j, cores)
					}
				}
				if prev, ok := nodes[node]; ok {
					t.Fatalf("node-exclusive jobs %d and %d both got %s", prev, j, node)
				}
				nodes[node] = j
			}
		})
	}
}

// exclNode matches a node taken exclusively in a simple-writer rendering.
var exclNode = regexp.MustCompile(`(?m)-node[0-9]+\[1:x\]$`)

// cores lists the cores of a simple-writer rendering as "node/core": the
// lines are in post-order, so a node line follows its cores.
func cores(out string) []string {
	var pending, all []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name := strings.TrimLeft(strings.TrimSpace(line), "-")
		name, _, _ = strings.Cut(name, "[")
		switch {
		case strings.HasPrefix(name, "core"):
			pending = append(pending, name)
		case strings.HasPrefix(name, "node"):
			for _, c := range pending {
				all = append(all, name+"/"+c)
			}
			pending = pending[:0]
		}
	}
	return all
}
