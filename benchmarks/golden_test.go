package benchmarks

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/match"
)

var updateStreams = flag.Bool("update-streams", false, "rewrite testdata/streams.golden")

// TestStreamGolden pins the decisions of whole benchmark streams: the full
// simple-format output of a 1024×32 stream under each policy (and of the
// node-exclusive stream) must hash to the values recorded before any
// performance work. Optimisations may change how fast the matcher decides,
// never what it decides.
func TestStreamGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("long stream test skipped in -short mode")
	}
	g, err := grug.Read(grug.Cluster("bench", 1024, 32))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range []struct {
		name, policy, yaml string
		jobs               int
	}{
		{"core-first", "first", JobspecCoreYAML, 8192},
		{"core-high", "high", JobspecCoreYAML, 512},
		{"core-low", "low", JobspecCoreYAML, 512},
		{"core-hinode", "hinode", JobspecCoreYAML, 512},
		{"core-lonode", "lonode", JobspecCoreYAML, 512},
		{"node-first", "first", JobspecNodeExclusiveYAML(32), 1024},
		{"node-high", "high", JobspecNodeExclusiveYAML(32), 1024},
		{"node-low", "low", JobspecNodeExclusiveYAML(32), 1024},
	} {
		m, err := match.New(g, match.Options{Policy: c.policy})
		if err != nil {
			t.Fatal(err)
		}
		js, err := ParseJobspec(g, c.yaml)
		if err != nil {
			t.Fatal(err)
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
		lines = append(lines, fmt.Sprintf("%s %d %x", c.name, n, h.Sum(nil)))
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
