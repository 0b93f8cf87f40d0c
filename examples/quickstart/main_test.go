package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/quickstart.golden")

// TestGolden runs the example as `go run ./examples/quickstart` does and
// compares its output with testdata/quickstart.golden (go test -update
// rewrites it).
func TestGolden(t *testing.T) {
	var out bytes.Buffer
	if err := run(nil, &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	golden := filepath.Join("testdata", "quickstart.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", golden, diff(string(want), got))
	}
}

// TestVerbose checks that -v prints every R verbatim: each "rv1:" line is
// a complete RFC 20 R with its scheduling graph.
func TestVerbose(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-v"}, &out); err != nil {
		t.Fatalf("run -v: %v", err)
	}
	lines := strings.Split(out.String(), "\n")
	var rs int
	for i, l := range lines {
		if l != "rv1:" || i+1 == len(lines) {
			continue
		}
		rs++
		var R struct {
			Version   int `json:"version"`
			Execution struct {
				Nodelist []string `json:"nodelist"`
			} `json:"execution"`
			Scheduling struct {
				Graph struct {
					Nodes []json.RawMessage `json:"nodes"`
				} `json:"graph"`
			} `json:"scheduling"`
		}
		if err := json.Unmarshal([]byte(lines[i+1]), &R); err != nil {
			t.Fatalf("R %d is not JSON: %v\n%s", rs, err, lines[i+1])
		}
		if R.Version != 1 || len(R.Execution.Nodelist) == 0 || len(R.Scheduling.Graph.Nodes) == 0 {
			t.Errorf("R %d is incomplete: %s", rs, lines[i+1])
		}
	}
	if rs != len(requests) {
		t.Errorf("got %d Rs, want %d", rs, len(requests))
	}
	if strings.Contains(out.String(), " … ") {
		t.Errorf("-v output is folded:\n%s", out.String())
	}
}

func TestBadArgs(t *testing.T) {
	for _, args := range [][]string{{"-policy", "nosuch"}, {"-x"}, {"extra"}} {
		var out bytes.Buffer
		if err := run(args, &out); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
	var out bytes.Buffer
	if err := run([]string{"-policy", "high"}, &out); err != nil || !strings.HasPrefix(out.String(), "demo cluster: 363 vertices, 362 edges; match policy high;") {
		t.Errorf("run -policy high: %v\n%s", err, out.String())
	}
}

func TestFold(t *testing.T) {
	in := "      ---core0[1:x]\n      ---core1[1:x]\n      ---core2[1:x]\n" +
		"      ---gpu0[1:x]\n      ---gpu1[1:x]\n" +
		"      ---memory0[16:x]\n      ---memory1[16:x]\n      ---memory2[8:x]\n" +
		"      demo0[1:s]\n"
	want := "      ---core0 … core2 (3 × [1:x])\n" +
		"      ---gpu0[1:x]\n      ---gpu1[1:x]\n" +
		"      ---memory0[16:x]\n      ---memory1[16:x]\n      ---memory2[8:x]\n" +
		"      demo0[1:s]\n"
	if got := fold(in); got != want {
		t.Errorf("fold:\n%s\nwant:\n%s", got, want)
	}
}

// diff reports the first differing line.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return ""
}
