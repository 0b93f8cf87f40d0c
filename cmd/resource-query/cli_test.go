package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// timing matches the parts of the output that carry measured times.
var timing = regexp.MustCompile(`(ELAPSE=|Graph Load Time: |Match Time: )[0-9.e+-]+|(INFO: \d+, [A-Z]+, \d+, [^,]+, )[0-9.e+-]+`)

func scrub(s string) string { return timing.ReplaceAllString(s, "${1}${2}<time>") }

// runCLI runs the command in the repository root (so testdata paths in
// commands resolve) and returns the -t output, stdout, stderr and status.
func runCLI(t *testing.T, args []string, cmds string) (out, stdout, stderr string, code int) {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	wd, _ := os.Getwd()
	if err := os.Chdir(root); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	tfile := filepath.Join(t.TempDir(), "out")
	var so, se bytes.Buffer
	code = run(append(append([]string{}, args...), "-t", tfile), strings.NewReader(cmds), &so, &se)
	b, _ := os.ReadFile(tfile)
	return string(b), so.String(), se.String(), code
}

func TestGolden(t *testing.T) {
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.cmds"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		cmds string
	}{
		{"demo-first", nil, string(demo)},
		{"demo-high-pretty", []string{"-P", "high", "-F", "pretty_simple"}, string(demo)},
		{"demo-low-jgf", []string{"-P", "low", "-F", "jgf"}, string(demo)},
		{"demo-lonodex-rv1", []string{"-P", "lonodex", "-F", "rv1"}, string(demo)},
		{"demo-hinode-rlite", []string{"-P", "hinode", "-F", "rlite"}, string(demo)},
		{"visits", []string{"-P", "high", "-e"}, "match allocate testdata/jobspecs/core.yaml\nmatch satisfiability testdata/jobspecs/too-big.yaml\ncancel 1 stats\nquit\n"},
		{"errors", nil, strings.Join([]string{
			"match allocate", "match bogus testdata/jobspecs/core.yaml", "match allocate /nonexistent.yaml",
			"multi-match allocate testdata/jobspecs/core.yaml", "cancel 99", "info 99", "set-status /demo0/rack0 sideways",
			"set-status /nope down", "get-status /nope", "find status=down and", "frobnicate", "help quit", "help nope",
			"set-property /demo0/rack0/node0 novalue", "set-property /demo0/rack0/node0 perf=fast",
			"get-property /demo0/rack0/node0", "get-property /demo0/rack0", "quit",
		}, "\n")},
		// A rendering that fails for a vertex without edges fails the
		// match with ENOENT ("Unsatisfiable request", counter kept), and
		// its content, kept for the next rendering, fails that one too.
		{"render-enoent", []string{"-F", "jgf_shorthand"}, strings.Join([]string{
			"match allocate testdata/jobspecs/cluster-exclusive.yaml", "match allocate testdata/jobspecs/core.yaml", "quit",
		}, "\n")},
		{"status", []string{"-P", "high"}, strings.Join([]string{
			"set-status /demo0/rack1 down", "get-status /demo0/rack1", "match allocate testdata/jobspecs/nodes-exclusive.yaml",
			"match allocate testdata/jobspecs/nodes-exclusive.yaml", "find status=down", "set-status /demo0/rack1 up",
			"match allocate testdata/jobspecs/nodes-exclusive.yaml", "list", "stat", "quit",
		}, "\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, so, se, code := runCLI(t, tc.args, tc.cmds)
			got := scrub("== args: " + strings.Join(tc.args, " ") + "\n== exit: " + strconv.Itoa(code) +
				"\n== out\n" + out + "== stdout\n" + so + "== stderr\n" + se)
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run go test -update after checking):\n%s", path, diffLines(string(want), got))
			}
		})
	}
}

// diffLines shows the first differing line.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n- " + a + "\n+ " + b
		}
	}
	return ""
}

func TestStartupErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"bad policy", []string{"-P", "medium"}, 1, ": Runtime error: resource_query_t: ERROR: can't create matcher\n\n"},
		{"bad prune", []string{"-p", "core"}, 1, ": Runtime error: initialize_matchers_and_traversers: ERROR: can't set pruning filters\n\n"},
		{"missing subsystem", []string{"-S", "PA"}, 1, ": Runtime error: initialize_matchers_and_traversers: ERROR: can't initialize traverser\n\n"},
		{"bad format", []string{"-F", "xml"}, 1, "[ERROR] unknown format for --match-format: xml\n"},
		{"bad load format", []string{"-f", "csv"}, 1, "[ERROR] unknown format for --load-format: csv\n"},
		{"missing file", []string{"-L", "/nonexistent/graph.graphml"}, 1, "[ERROR] file does not exist for --load-file: /nonexistent/graph.graphml\n"},
		{"directory", []string{"-L", "/"}, 1, "[ERROR] path passed to --load-file is a directory: /\n"},
		{"stray argument", []string{"extra"}, 1, ""},
		{"unknown option", []string{"--bogus"}, 1, "resource-query: unrecognized option '--bogus'\n"},
		{"help", []string{"-h"}, 0, ""},
		{"bad grug", []string{"-L", filepath.Join("testdata", "bad.graphml")}, 1, ": Runtime error: resource_query_t: ERROR: error in reading grug string; \nERROR: error generating resources\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := run(tc.args, strings.NewReader("quit\n"), &so, &se)
			if code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
			if !strings.HasPrefix(se.String(), tc.stderr) {
				t.Errorf("stderr %q, want prefix %q", se.String(), tc.stderr)
			}
		})
	}
}

// FuzzCommands feeds arbitrary command text to the command loop on the
// embedded graph: nothing may panic.
func FuzzCommands(f *testing.F) {
	for _, s := range []string{
		"match allocate testdata/jobspecs/core.yaml\nquit\n",
		"find status=up and (names=node0 or sched-now=free)\n",
		"cancel 1 stats\ninfo 1\nlist\nstat\n",
		"set-property /demo0/rack0/node0 a=b\nget-property /demo0/rack0/node0\n",
		"set-status /demo0/rack0 down\nget-status /demo0/rack0\nmatch satisfiability testdata/jobspecs/core.yaml\n",
		"multi-match allocate testdata/jobspecs/core.yaml testdata/jobspecs/core.yaml\n",
		"help\nhelp m\n# comment\n\n\tq\n",
		// hostile (issue 13): huge rank sets, deep find nesting
		"remove 0-9223372036854775805 false\nfind status=up\n",
		"remove 3,99 false\nremove 1-100000000 false\n",
		"find " + strings.Repeat("(", 300) + "status=up" + strings.Repeat(")", 300) + "\n",
	} {
		f.Add(s)
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	f.Fuzz(func(t *testing.T, cmds string) {
		wd, _ := os.Getwd()
		if err := os.Chdir(root); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		var so, se bytes.Buffer
		if code := run([]string{"-d"}, strings.NewReader(cmds), &so, &se); code != 0 {
			t.Fatalf("exit status %d", code)
		}
	})
}
