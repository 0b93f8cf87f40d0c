package benchmarks

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/match"
)

// DeepLongEnv is the environment variable that adds the long deep-queue
// streams (100,000 jobs on 256×32 and 4096×64) to the golden and
// differential tests: GOFLUXION_DEEP_LONG=1 go test ./benchmarks.
const DeepLongEnv = "GOFLUXION_DEEP_LONG"

// deepLong reports whether GOFLUXION_DEEP_LONG=1 is set.
func deepLong() bool { return os.Getenv(DeepLongEnv) == "1" }

// deepPolicies are the policies of the deep-queue streams (issue 22).
var deepPolicies = []string{"first", "high", "lonode", "hinodex"}

// deepStream is one deep queue: jobs allocate_orelse_reserve matches of
// jobspec A under policy on a size cluster.
type deepStream struct {
	name, policy string
	size         Size
	jobs         int
}

// deepStreams returns the deep-queue streams: with long false the ones
// of the default golden test (256×32 eight layers deep, 512×64 two
// layers; hinodex, whose one-core jobs each take a node, 64 and 8
// layers), with long true the opt-in ones (100,000 jobs on 256×32 and
// 4096×64; hinodex 32,768 on 256×32, 16,384 on 4096×64).
func deepStreams(long bool) []deepStream {
	type sz struct {
		s             Size
		jobs, nodexJs int
	}
	sizes := []sz{{Size{256, 32, 0}, 65536, 16384}, {Size{512, 64, 0}, 65536, 4096}}
	if long {
		sizes = []sz{{Size{256, 32, 0}, 100000, 32768}, {Size{4096, 64, 0}, 100000, 16384}}
	}
	var out []deepStream
	for _, z := range sizes {
		for _, p := range deepPolicies {
			n := z.jobs
			if p == "hinodex" {
				n = z.nodexJs
			}
			out = append(out, deepStream{"deep-" + z.s.String() + "-" + p, p, z.s, n})
		}
	}
	return out
}

var updateDeepLong = flag.Bool("update-deep-long", false, "rewrite testdata/deep-long.golden (with GOFLUXION_DEEP_LONG=1)")

// TestDeepStreamGoldenLong pins the decisions of the long deep queues
// (deepStreams(true)), like TestStreamGolden the short ones. Opt-in:
// GOFLUXION_DEEP_LONG=1 go test ./benchmarks -run DeepStreamGoldenLong
// (about a minute and 1 GiB).
func TestDeepStreamGoldenLong(t *testing.T) {
	if !deepLong() {
		t.Skip("set " + DeepLongEnv + "=1 to run the long deep-queue streams")
	}
	streams := deepStreams(true)
	graphs := map[Size]*graph.Graph{}
	for _, d := range streams {
		if graphs[d.size] == nil {
			g, err := Load(d.size)
			if err != nil {
				t.Fatal(err)
			}
			graphs[d.size] = g
		}
	}
	lines := make([]string, len(streams))
	parallel(len(streams), func(i int) {
		d := streams[i]
		line, err := hashStream(graphs[d.size], d.name, d.policy, JobspecCoreYAML, match.AllocateOrElseReserve, d.jobs)
		if err != nil {
			t.Error(err)
		}
		lines[i] = line
	})
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", "deep-long.golden")
	if *updateDeepLong {
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
		t.Errorf("deep stream decisions changed:\ngot:\n%swant:\n%s", got, want)
	}
}
