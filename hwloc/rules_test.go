package hwloc

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

var update = flag.Bool("update", false, "rewrite the testdata/rules golden files")

// The fixtures in testdata/rules are small topologies written for this
// package, one for each rule by which the reader shapes the hwloc tree
// (doc.go); each says in a comment what it shows.
func ruleFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/rules/*.xml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return files
}

// render lists the vertices in creation order, one line each: path, type,
// basename, id, size and properties.
func render(g *graph.Graph) string {
	var b strings.Builder
	for _, f := range facts(g) {
		fmt.Fprintf(&b, "%s %s %s %d %d", f.path, f.typ, f.basename, f.id, f.size)
		if f.props != "" {
			b.WriteString(" " + f.props)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestRules(t *testing.T) {
	for _, file := range ruleFixtures(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".xml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Read(data, "")
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, g, "")
			got := render(g)
			golden := strings.TrimSuffix(file, ".xml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestCacheAllowlist: the allowlist names caches by level, as Fluxion's
// -W does (L1cache, L2cache, L3cache); the type name "cache" keeps none.
func TestCacheAllowlist(t *testing.T) {
	data, err := os.ReadFile("testdata/rules/caches-shared.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		allow string
		want  int // cache vertices
	}{
		{"cluster,node,socket,L3cache,core", 4},
		{"cluster,node,socket,L3cache,L2cache,L1cache,core", 4}, // L1/L2 add no structure
		{"cluster,node,socket,L2cache,core", 0},
		{"cluster,node,socket,cache,core", 0},
		{"", 4},
	} {
		g, err := Read(data, c.allow)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, g, c.allow)
		n := 0
		for v := graph.VertexID(0); int(v) < g.NumVertices(); v++ {
			if g.TypeName(v) == "cache" {
				n++
				if p, _ := g.V(v).PathIn(graph.Containment); !strings.HasPrefix(p, "/cluster0/fix1/socket") {
					t.Errorf("%q: cache at %s", c.allow, p)
				}
			}
		}
		if n != c.want {
			t.Errorf("%q: %d cache vertices, want %d", c.allow, n, c.want)
		}
	}
}

// TestAgainstHwloc is a differential test against hwloc itself: when
// hwloc's lstopo-no-graphics is installed, every fixture (and every XML of
// the shared corpus, when present) is loaded by hwloc with the filters
// Fluxion's reader sees and written back as hwloc 2 XML; reading that
// already shaped topology must give the same graph as reading the
// original. It skips without lstopo-no-graphics.
func TestAgainstHwloc(t *testing.T) {
	lstopo, err := exec.LookPath("lstopo-no-graphics")
	if err != nil {
		t.Skip("lstopo-no-graphics (Debian package hwloc-nox) not installed")
	}
	files := ruleFixtures(t)
	if !testing.Short() {
		for _, pat := range []string{hwlocDir + "/*/*/*.xml", hwlocDir + "/*/*/*/*.xml",
			"../../shared/conformance-flex/data/flex/*/*.xml"} {
			m, _ := filepath.Glob(pat)
			files = append(files, m...)
		}
	}
	for _, file := range files {
		out, err := exec.Command(lstopo, "-i", file, "--filter", "cache:structure", "--filter", "icache:none",
			"--filter", "io:important", "--of", "xml", "-").Output()
		if err != nil {
			t.Errorf("%s: lstopo: %v", file, err)
			continue
		}
		orig, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, allow := range []string{"", "cluster,node,socket,L3cache,core,gpu,storage"} {
			g1, err := Read(orig, allow)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			g2, err := Read(bytes.Clone(out), allow)
			if err != nil {
				t.Fatalf("%s (hwloc's): %v", file, err)
			}
			if a, b := facts(g1), facts(g2); !slices.Equal(a, b) {
				t.Errorf("%s -W %q: differs from hwloc's topology:\nours  %v\nhwloc %v", file, allow, a, b)
			}
		}
	}
}
