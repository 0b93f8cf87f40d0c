package server

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/state"
)

// TestLargeGenesis: a Genesis too large for a journal record is kept in
// a snapshot at index 0, which a restart loads (with its configuration).
func TestLargeGenesis(t *testing.T) {
	defer func(n int) { maxGenesisRecord = n }(maxGenesisRecord)
	maxGenesisRecord = 100
	dir := t.TempDir()
	initial := func() (*gofluxion.Matcher, error) { return gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{}) }
	cfg := &state.Config{Graph: "demo", Policy: "first"}
	s, err := OpenStandalone(StandaloneOptions{Dir: dir, Initial: initial, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !s.State().HasGraph() || s.State().Applied() != 0 {
		t.Fatalf("graph %v, applied %d", s.State().HasGraph(), s.State().Applied())
	}
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, snapshotFile)); err != nil {
		t.Fatal(err)
	}
	s, err = OpenStandalone(StandaloneOptions{Dir: dir, Config: &state.Config{Policy: "low"}, Given: []string{"policy"}})
	if err == nil {
		s.Close()
		t.Fatal("a restart with another -policy started")
	}
	s, err = OpenStandalone(StandaloneOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c := s.State().Config(); c == nil || c.Policy != "first" || !s.State().HasGraph() {
		t.Fatalf("config %+v", c)
	}
}
