package main

import (
	"bufio"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The conformance ratchet: every case id listed in testdata/conformance must
// pass when Fluxion's corpus (../shared, beside the repository) is replayed
// against this command. Cases are only ever added to the lists.
var updateRatchet = flag.Bool("update-ratchet", false, "add newly passing conformance cases to the ratchet lists")

func sharedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("GOFLUXION_SHARED"); d != "" {
		return d
	}
	d, err := filepath.Abs(filepath.Join("..", "..", "..", "shared"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// buildCommand builds resource-query into a temporary directory.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "resource-query")
	out, err := exec.Command(goCommand(), "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// goCommand finds the go command: the one running the tests is first on
// PATH in every normal setup; GOROOT/bin is the fallback.
func goCommand() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

func readList(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s := strings.TrimSpace(sc.Text()); s != "" && !strings.HasPrefix(s, "#") {
			ids = append(ids, s)
		}
	}
	return ids
}

// runCorpus replays a corpus and returns the PASS and FAIL case ids and the
// summary line.
func runCorpus(t *testing.T, runsh, corpus, bin string) (pass, fail map[string]bool, summary string) {
	t.Helper()
	cmd := exec.Command("bash", runsh, "-c", corpus, "-j", "2", "-t", "300", bin)
	cmd.Dir = t.TempDir()
	out, _ := cmd.Output() // run.sh exits 1 when any case fails
	pass, fail = map[string]bool{}, map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "PASS":
			pass[f[1]] = true
		case len(f) >= 2 && f[0] == "FAIL":
			fail[f[1]] = true
		case strings.Contains(line, " passed, "):
			summary = line
		}
	}
	if summary == "" {
		t.Fatalf("run.sh printed no summary:\n%s", out)
	}
	return pass, fail, summary
}

func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("conformance replay skipped in -short mode")
	}
	shared := sharedDir(t)
	runsh := filepath.Join(shared, "conformance", "run.sh")
	if _, err := os.Stat(runsh); err != nil {
		t.Skipf("no conformance corpus at %s", shared)
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("run.sh needs jq")
	}
	bin := buildCommand(t)
	for _, c := range []struct{ name, corpus, list string }{
		{"upstream", filepath.Join(shared, "conformance"), "passing.txt"},
		{"random", filepath.Join(shared, "conformance-random"), "random-passing.txt"},
		{"ops", filepath.Join(shared, "conformance-ops"), "ops-passing.txt"},
		{"flex", filepath.Join(shared, "conformance-flex"), "flex-passing.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(c.corpus, "manifest.json")); err != nil {
				t.Skipf("no corpus at %s", c.corpus)
			}
			listPath := filepath.Join("..", "..", "testdata", "conformance", c.list)
			listed := readList(t, listPath)
			pass, fail, summary := runCorpus(t, runsh, c.corpus, bin)
			t.Logf("%s corpus: %s; %d cases on the ratchet list", c.name, summary, len(listed))
			for _, id := range listed {
				if !pass[id] {
					t.Errorf("ratchet: case %s is listed as passing but did not pass (failed: %v)", id, fail[id])
				}
			}
			var extra []string
			for id := range pass {
				if !slices.Contains(listed, id) {
					extra = append(extra, id)
				}
			}
			slices.Sort(extra)
			if len(extra) > 0 {
				t.Logf("%d passing cases are not on the ratchet list yet: %v", len(extra), extra)
				if *updateRatchet {
					all := append(listed, extra...)
					slices.Sort(all)
					if err := os.WriteFile(listPath, []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}
