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
		size               Size     // zero: 1024×32
		op                 match.Op // zero: Allocate
	}
	// The first lines were recorded before the scoring work began (stage
	// 1); the "all-" lines add every policy over the bench stream lengths.
	cases := []streamCase{
		{name: "core-first", policy: "first", yaml: JobspecCoreYAML, jobs: 8192},
		{name: "core-high", policy: "high", yaml: JobspecCoreYAML, jobs: 512},
		{name: "core-low", policy: "low", yaml: JobspecCoreYAML, jobs: 512},
		{name: "core-hinode", policy: "hinode", yaml: JobspecCoreYAML, jobs: 512},
		{name: "core-lonode", policy: "lonode", yaml: JobspecCoreYAML, jobs: 512},
		{name: "node-first", policy: "first", yaml: JobspecNodeExclusiveYAML(32), jobs: 1024},
		{name: "node-high", policy: "high", yaml: JobspecNodeExclusiveYAML(32), jobs: 1024},
		{name: "node-low", policy: "low", yaml: JobspecNodeExclusiveYAML(32), jobs: 1024},
	}
	for _, p := range allPolicies {
		cases = append(cases,
			streamCase{name: "all-core-" + p, policy: p, yaml: JobspecCoreYAML, jobs: goldenCoreJobs},
			streamCase{name: "all-node-" + p, policy: p, yaml: JobspecNodeExclusiveYAML(32), jobs: 1024})
	}
	// Deep queues (stage 3, recorded before its work began): streams of
	// allocate_orelse_reserve one-core jobs far beyond the cluster's
	// cores, so that most jobs are reservations stacked in layers.
	for _, d := range deepStreams(false) {
		cases = append(cases, streamCase{d.name, d.policy, JobspecCoreYAML, d.jobs, d.size, match.AllocateOrElseReserve})
	}
	graphs := map[Size]*graph.Graph{{1024, 32, 0}: g}
	for _, c := range cases {
		if c.size != (Size{}) && graphs[c.size] == nil {
			if graphs[c.size], err = Load(c.size); err != nil {
				t.Fatal(err)
			}
		}
	}
	lines := make([]string, len(cases))
	parallel(len(cases), func(i int) {
		c := cases[i]
		g := graphs[c.size]
		if c.size == (Size{}) {
			g = graphs[Size{1024, 32, 0}]
		}
		line, err := hashStream(g, c.name, c.policy, c.yaml, c.op, c.jobs)
		if err != nil {
			t.Error(err)
		}
		lines[i] = line
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

// hashStream runs jobs+1 matches op of the jobspec yaml as jobs 1, 2, …
// on a fresh matcher of g under policy, and returns the golden line
// "name matched sha256": the hash covers every job id, start time, error
// and simple-format output.
func hashStream(g *graph.Graph, name, policy, yaml string, op match.Op, jobs int) (string, error) {
	m, err := match.New(g, match.Options{Policy: policy})
	if err != nil {
		return "", err
	}
	js, err := ParseJobspec(g, yaml)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := emit.NewSimple()
	n := 0
	for j := 1; j <= jobs+1; j++ {
		at, err := m.Match(op, js, uint64(j), 0, w)
		s, _ := w.Render()
		fmt.Fprintf(h, "%d %d %v\n%s", j, at, err, s)
		if err == nil {
			n++
		}
	}
	return fmt.Sprintf("%s %d %x", name, n, h.Sum(nil)), nil
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
