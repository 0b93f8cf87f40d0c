package jgf

import (
	"os"
	"path/filepath"
	"testing"
)

func TestScratch(t *testing.T) {
	files, _ := filepath.Glob("../../shared/conformance/data/resource/jgfs/*.json")
	f2, _ := filepath.Glob("../../shared/conformance/data/resource/jgfs/elastic/*.json")
	for _, f := range append(files, f2...) {
		data, _ := os.ReadFile(f)
		g, err := Read(data)
		if err != nil {
			t.Logf("%s: %v / %q", f, err, err.(*Error).Fluxion())
			continue
		}
		t.Logf("%s: %d vertices %d edges roots %v types %d subs %d", f, g.NumVertices(), g.NumEdges(), g.RootSubsystems(), g.Types.Len(), g.Subsystems.Len())
	}
}
