package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -g dot|graphml -o BASENAME writes the graph at exit.
func TestGraphOutput(t *testing.T) {
	dir := t.TempDir()
	spec, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "jobspecs", "core.yaml"))
	for _, tc := range []struct {
		args       []string
		file, head string
	}{
		{[]string{"-o", filepath.Join(dir, "x")}, "x.dot", "digraph "},
		{[]string{"-g", "dot", "-o", filepath.Join(dir, "y")}, "y.dot", "digraph "},
		{[]string{"--graph-format=graphml", "--graph-output", filepath.Join(dir, "z")}, "z.graphml", "<?xml"},
	} {
		var so, se strings.Builder
		cmds := "match allocate " + spec + "\nquit\n"
		if code := run(tc.args, strings.NewReader(cmds), &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, se.String())
		}
		data, err := os.ReadFile(filepath.Join(dir, tc.file))
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !strings.HasPrefix(string(data), tc.head) || !strings.Contains(string(data), "allocated") {
			t.Errorf("%v: %s starts %q", tc.args, tc.file, string(data[:min(len(data), 80)]))
		}
	}
	// No -o, no file.
	var so, se strings.Builder
	if code := run([]string{"-g", "graphml"}, strings.NewReader("quit\n"), &so, &se); code != 0 {
		t.Fatal(se.String())
	}
	// An unwritable basename is an error at exit.
	if code := run([]string{"-o", filepath.Join(dir, "no", "such", "dir")}, strings.NewReader("quit\n"), &so, &se); code != 1 || !strings.Contains(se.String(), "can't write the graph") {
		t.Errorf("unwritable -o: exit %d, %q", code, se.String())
	}
}
