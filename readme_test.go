package gofluxion_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeBlock is a fenced block of README.md.
type readmeBlock struct {
	lang, text string
	line       int
}

// readmeBlocks returns the fenced blocks of a markdown document in order.
func readmeBlocks(doc string) []readmeBlock {
	var out []readmeBlock
	var cur *readmeBlock
	var body []string
	for i, l := range strings.Split(doc, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(t, "```"):
			cur = &readmeBlock{lang: strings.TrimSpace(strings.TrimPrefix(t, "```")), line: i + 1}
			body = body[:0]
		case cur != nil && t == "```":
			cur.text = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, l)
		}
	}
	return out
}

// Issue 21: every Go program in README.md compiles and runs against the
// demo graph, and prints what the "output" block right after it shows, so
// the README can never again show a request that cannot run. Each program
// is built as a package of this module (testdata/readme-N, which ./...
// skips) that exists only in a go build -overlay: nothing is written in
// the source tree, so the test runs in a read-only tree (the module
// cache, under go test all), leaves nothing behind when killed, and needs
// nothing beyond the module cache.
func TestREADMEPrograms(t *testing.T) {
	doc, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the README's programs with")
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	before := testdataNames(t)
	blocks := readmeBlocks(string(doc))
	ran := 0
	for i, b := range blocks {
		if b.lang != "go" {
			continue
		}
		if !strings.HasPrefix(b.text, "package main\n") {
			t.Errorf("README.md:%d: a go block must be a whole program (package main …) so this test can run it", b.line)
			continue
		}
		tmp := t.TempDir()
		src := filepath.Join(tmp, "main.go")
		if err := os.WriteFile(src, []byte(b.text), 0o644); err != nil {
			t.Fatal(err)
		}
		pkg := fmt.Sprintf("testdata/readme-%d", b.line)
		overlay, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(wd, filepath.FromSlash(pkg), "main.go"): src}})
		if err != nil {
			t.Fatal(err)
		}
		ov := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(ov, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(goBin, "run", "-overlay", ov, "./"+pkg)
		cmd.Env = append(os.Environ(), "GOPROXY=off")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("README.md:%d: the program fails: %v\n%s%s", b.line, err, stdout.String(), stderr.String())
			continue
		}
		ran++
		if i+1 < len(blocks) && blocks[i+1].lang == "output" {
			if got, want := stdout.String(), blocks[i+1].text; got != want {
				t.Errorf("README.md:%d: the program prints\n%s\nbut README.md:%d shows\n%s", b.line, got, blocks[i+1].line, want)
			}
		}
	}
	if ran == 0 {
		t.Error("README.md has no go program")
	}
	if after := testdataNames(t); after != before {
		t.Errorf("the test changed testdata/: %q, was %q", after, before)
	}
}

// testdataNames lists testdata/ (one level), to check nothing is left there.
func testdataNames(t *testing.T) string {
	es, err := os.ReadDir("testdata")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}
