package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/internal/idset"
)

// Issue 13 item 3: `remove 0-9223372036854775805 false` expanded the set
// and died out of memory. Fluxion walks the ranks in order and fails at
// the first one the graph lacks, so only the ranks up to it matter: the
// output is that of the set cut there, and costs nothing more.
func TestRemoveHugeRankSetBounded(t *testing.T) {
	jobs := strings.Repeat("match allocate testdata/jobspecs/nodes-exclusive.yaml\n", 2)
	after := "find sched-now=allocated\nfind status=up\ninfo 1\ninfo 2\nquit\n"
	for _, c := range []struct{ huge, cut string }{
		{"0-9223372036854775805", "0-8"},
		{"3,99-9223372036854775805", "3,99"},
		{"9-9223372036854775805", "9"},
		{"1,3,5,7,9-100000000", "1,3,5,7,9"},
	} {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		out, so, se, _ := runCLI(t, nil, jobs+"remove "+c.huge+" false\n"+after)
		runtime.ReadMemStats(&b)
		out += "\n--stdout--\n" + so + "\n--stderr--\n" + se
		want, so, se, _ := runCLI(t, nil, jobs+"remove "+c.cut+" false\n"+after)
		want += "\n--stdout--\n" + so + "\n--stderr--\n" + se
		if scrub(out) != scrub(want) {
			t.Errorf("remove %s false:\n%s", c.huge, diffLines(scrub(want), scrub(out)))
		}
		if !strings.Contains(out, "not found in by_rank map") {
			t.Errorf("remove %s false: no failure in\n%s", c.huge, out)
		}
		if n := b.TotalAlloc - a.TotalAlloc; n > 64<<20 {
			t.Errorf("remove %s false allocated %d bytes", c.huge, n)
		}
	}
}

func TestRemovalOrder(t *testing.T) {
	known, _ := idset.Parse("0-7,10")
	for _, c := range []struct{ set, want string }{
		{"", ""},
		{"3", "3"},
		{"0-7", "0-7"},
		{"0-9223372036854775806", "0-8"},
		{"3,99", "3,99"},
		{"10,12-20", "10,12"},
		{"5-9", "5-8"},
		{"8-9223372036854775806", "8"},
	} {
		set, err := idset.Parse(c.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := idset.Encode(removalOrder(set, known)); got != c.want {
			t.Errorf("removalOrder(%s) = %s, want %s", c.set, got, c.want)
		}
	}
}

// Issue 13 item 6: a find of 8M nested parentheses overflowed the stack.
func TestFindDeepNestingBounded(t *testing.T) {
	deep := strings.Repeat("(", 4<<20) + "status=up" + strings.Repeat(")", 4<<20)
	out, _, stderr, code := runCLI(t, nil, "find "+deep+"\nfind status=down\nquit\n")
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	if want := "findfind: criteria nest parentheses more than 256 deep.\n"; !strings.Contains(out+stderr, want) {
		t.Errorf("output %q, stderr %q: want %q", clipped(out), clipped(stderr), want)
	}
}

func clipped(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// Issue 22 item 2: the 65,536×64 benchmark graph (4,259,841 vertices)
// failed to load with Fluxion's generic "error in reading grug string",
// naming no limit. The default now holds it, and a graph beyond a limit
// gets a message naming the limit and the flag that raises it.
func TestLoadLimits(t *testing.T) {
	if n := 1 + 65536*(1+64); graph.DefaultMaxVertices < n {
		t.Errorf("graph.DefaultMaxVertices %d < %d, the 65,536×64 cluster", graph.DefaultMaxVertices, n)
	}
	dir := t.TempDir()
	grugFile := filepath.Join(dir, "c.graphml")
	if err := os.WriteFile(grugFile, []byte(grug.Cluster("c", 10, 100)), 0o644); err != nil { // 1,011 vertices
		t.Fatal(err)
	}
	g, err := grug.Read(grug.Cluster("c", 10, 100))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := gofluxion.WriteJGF(g)
	if err != nil {
		t.Fatal(err)
	}
	jgfFile := filepath.Join(dir, "c.json")
	if err := os.WriteFile(jgfFile, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	jobspecFile, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "jobspecs", "core.yaml"))
	const generic = "error in reading grug string"
	for _, c := range []struct {
		name string
		args []string
		want string // in stderr; "" when the graph loads
	}{
		{"grug vertices", []string{"-L", grugFile, "--max-vertices=1000"}, "limit of 1000 vertices (--max-vertices); raise it with --max-vertices=N\nERROR: error generating resources\n"},
		{"grug vertices separate", []string{"-L", grugFile, "--max-vertices", "1000"}, "(--max-vertices); raise it with --max-vertices=N\n"},
		{"grug fits", []string{"-L", grugFile, "--max-vertices=1011"}, ""},
		{"grug depth", []string{"-L", grugFile, "--max-depth=1"}, "(the depth limit --max-depth); raise it with --max-depth=N\n"},
		{"grug paths", []string{"-L", grugFile, "--max-path-bytes=100"}, "(--max-path-bytes); raise it with --max-path-bytes=N\n"},
		{"input bytes", []string{"-L", grugFile, "--max-input-bytes=100"}, "more than 100 bytes (--max-input-bytes); raise it with --max-input-bytes=N\n"},
		{"jgf vertices", []string{"-f", "jgf", "-L", jgfFile, "--max-vertices=1000"}, "(--max-vertices); raise it with --max-vertices=N\n"},
		{"jgf fits", []string{"-f", "jgf", "-L", jgfFile, "--max-vertices=1011"}, ""},
		{"jgf input bytes", []string{"-f", "jgf", "-L", jgfFile, "--max-input-bytes=1000"}, "(--max-input-bytes); raise it with --max-input-bytes=N\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := run(append(c.args, "-d"), strings.NewReader("match allocate "+jobspecFile+"\nquit\n"), &so, &se)
			if c.want == "" {
				if code != 0 || !strings.Contains(so.String(), "core") {
					t.Errorf("exit %d, stdout %q, stderr %q: want a loaded graph and a match", code, clipped(so.String()), se.String())
				}
				return
			}
			if code != 1 || !strings.Contains(se.String(), c.want) || strings.Contains(se.String(), generic) {
				t.Errorf("exit %d, stderr %q: want status 1 and %q", code, se.String(), c.want)
			}
		})
	}
	for _, bad := range []string{"0", "-5", "x", "99999999999"} {
		var so, se bytes.Buffer
		if code := run([]string{"--max-vertices=" + bad}, strings.NewReader("quit\n"), &so, &se); code != 1 || !strings.Contains(se.String(), "--max-vertices: "+bad) {
			t.Errorf("--max-vertices=%s: exit %d, stderr %q", bad, code, clipped(se.String()))
		}
	}
	// No short form: the codes of the long options are not letters.
	var so, se bytes.Buffer
	if code := run([]string{"-\x80", "5"}, strings.NewReader("quit\n"), &so, &se); code != 1 || !strings.Contains(se.String(), "invalid option") {
		t.Errorf("-\\x80: exit %d, stderr %q", code, clipped(se.String()))
	}
}
