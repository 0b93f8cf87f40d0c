package main

import (
	"strings"
	"testing"
)

// Before: a command line over the scanner's 16 MiB buffer ended the
// session silently with status 0; the commands after it never ran.
func TestHostileLongCommandLineIsSkipped(t *testing.T) {
	cmds := "find " + strings.Repeat("a", maxLine+10) + "\nstat\nquit\n"
	_, stdout, stderr, code := runCLI(t, nil, cmds)
	if !strings.Contains(stderr, "command line longer than") {
		t.Errorf("stderr %q does not report the long line", stderr[:min(len(stderr), 200)])
	}
	if !strings.Contains(stdout, "Num. of Jobs Matched") {
		t.Errorf("stat after the long line did not run: stdout %q", stdout[:min(len(stdout), 200)])
	}
	if code != 0 {
		t.Errorf("status %d", code)
	}
}

// Before: "match allocate /dev/zero" (or cat, update, attach… of a fifo)
// read without bound until the process ran out of memory.
func TestHostileCommandFilesAreBounded(t *testing.T) {
	old := maxFileBytes
	maxFileBytes = 1 << 20
	defer func() { maxFileBytes = old }()
	for _, cmd := range []string{"match allocate /dev/zero", "cat /dev/zero", "attach /dev/zero"} {
		_, stdout, stderr, _ := runCLI(t, nil, cmd+"\nstat\nquit\n")
		if !strings.Contains(stderr, "can't open /dev/zero") {
			t.Errorf("%s: stderr %q", cmd, stderr[:min(len(stderr), 200)])
		}
		if !strings.Contains(stdout, "Num. of Jobs Matched") {
			t.Errorf("%s: stat did not run", cmd)
		}
	}
}
