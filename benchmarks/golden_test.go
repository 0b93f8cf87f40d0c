package benchmarks

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/internal/randstream"
	"github.com/gofluxion/gofluxion/match"
)

var updateStreams = flag.Bool("update-streams", false, "rewrite testdata/streams.golden")

// TestStreamGolden pins the decisions of whole benchmark streams and of
// random mixed streams: the full simple-format output of 1024×32 streams
// under every policy (allocate-only and node-exclusive), and of
// goldenStreams random streams per policy on small random graphs, must hash
// to the values recorded before any performance work. Optimisations may
// change how fast the matcher decides, never what it decides.
func TestStreamGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("long stream test skipped in -short mode")
	}
	g, err := grug.Read(grug.Cluster("bench", 1024, 32))
	if err != nil {
		t.Fatal(err)
	}
	type streamCase struct {
		name, policy, yaml string
		jobs               int
	}
	// The first lines were recorded before the scoring work began (stage
	// 1); the "all-" lines add every policy over the bench stream lengths.
	cases := []streamCase{
		{"core-first", "first", JobspecCoreYAML, 8192},
		{"core-high", "high", JobspecCoreYAML, 512},
		{"core-low", "low", JobspecCoreYAML, 512},
		{"core-hinode", "hinode", JobspecCoreYAML, 512},
		{"core-lonode", "lonode", JobspecCoreYAML, 512},
		{"node-first", "first", JobspecNodeExclusiveYAML(32), 1024},
		{"node-high", "high", JobspecNodeExclusiveYAML(32), 1024},
		{"node-low", "low", JobspecNodeExclusiveYAML(32), 1024},
	}
	for _, p := range allPolicies {
		cases = append(cases,
			streamCase{"all-core-" + p, p, JobspecCoreYAML, goldenCoreJobs},
			streamCase{"all-node-" + p, p, JobspecNodeExclusiveYAML(32), 1024})
	}
	lines := make([]string, len(cases))
	parallel(len(cases), func(i int) {
		c := cases[i]
		m, err := match.New(g, match.Options{Policy: c.policy})
		if err != nil {
			t.Error(err)
			return
		}
		js, err := ParseJobspec(g, c.yaml)
		if err != nil {
			t.Error(err)
			return
		}
		h := sha256.New()
		w := emit.NewSimple()
		n := 0
		for j := 1; j <= c.jobs+1; j++ {
			at, err := m.Match(match.Allocate, js, uint64(j), 0, w)
			s, _ := w.Render()
			fmt.Fprintf(h, "%d %d %v\n%s", j, at, err, s)
			if err == nil {
				n++
			}
		}
		lines[i] = fmt.Sprintf("%s %d %x", c.name, n, h.Sum(nil))
	})
	for _, p := range allPolicies {
		lines = append(lines, randomGolden(t, p))
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "streams.golden")
	if *updateStreams {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("stream decisions changed:\ngot:\n%swant:\n%s", got, want)
	}
}

// goldenCoreJobs is the length of the jobspec-A golden streams: the bench
// stream of 1024×32.
const goldenCoreJobs = 8192

// goldenStreams is the number of random mixed streams per policy, of
// goldenOps operations each.
const (
	goldenStreams = 200
	goldenOps     = 80
)

// randomGolden hashes goldenStreams random mixed streams under policy: the
// stream of seed s runs on the random graph of seed s.
func randomGolden(t *testing.T, policy string) string {
	h := sha256.New()
	booked := 0
	for s := int64(1); s <= goldenStreams; s++ {
		rng := rand.New(rand.NewSource(s))
		g := randstream.Graph(rng, randstream.Small)
		ops := randstream.Ops(rng, goldenOps, len(g.ByType(graph.TypeNode)))
		m, err := match.New(g, match.Options{Policy: policy})
		if err != nil {
			t.Fatal(err)
		}
		booked += randstream.Run(newTarget(g, m), ops, h)
	}
	return fmt.Sprintf("random-%s %d %x", policy, booked, h.Sum(nil))
}

// parallel runs f(0..n-1) on GOMAXPROCS goroutines.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < runtime.GOMAXPROCS(0); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
