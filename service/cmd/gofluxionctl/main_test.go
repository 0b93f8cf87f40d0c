package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/internal/testcerts"
	"github.com/gofluxion/gofluxion/service/internal/testserver"
	"github.com/gofluxion/gofluxion/service/server"
)

func demo() (*gofluxion.Matcher, error) {
	return gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
}

func ctl(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

// jobspecFile writes a jobspec of nodes nodes, each with 2 sockets of
// cores cores.
func jobspecFile(t *testing.T, nodes, cores int) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "js.yaml")
	os.WriteFile(f, fmt.Appendf(nil, `version: 1
resources: [{type: node, count: %d, with: [{type: socket, count: 2, with: [{type: slot, count: 1, label: default, with: [{type: core, count: %d}]}]}]}]
attributes: {system: {duration: 3600}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`, nodes, cores), 0o600)
	return f
}

// TestHelp: help, -h and -help list every command with one line each,
// and the exit codes.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"-help"}} {
		code, out, _ := ctl(args...)
		if code != 0 {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, c := range commands {
			re := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(strings.TrimSpace(c.name+" "+c.args)) + ` +\S.*$`)
			if !re.MatchString(out) {
				t.Errorf("%v: no line for %s:\n%s", args, c.name, out)
			}
		}
		for _, s := range []string{"-timeout", "-ca", "-cert", "-key", "-token", "6  denied", "5  unreachable", "4  never fits", "3  busy"} {
			if !strings.Contains(out, s) {
				t.Errorf("%v: no %q", args, s)
			}
		}
	}
	if code, _, e := ctl("frobnicate"); code != exitUsage || !strings.Contains(e, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, %q", code, e)
	}
	if code, _, _ := ctl(); code != exitUsage {
		t.Errorf("no command: exit %d", code)
	}
}

// TestUnreachable: against an address where nothing listens, a command
// gives up after -timeout with exit code 5.
func TestUnreachable(t *testing.T) {
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	t0 := time.Now()
	code, _, e := ctl("-s", addr, "-timeout", "300ms", "cluster")
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("took %v with -timeout 300ms", d)
	}
	if code != exitUnreachable || !strings.Contains(e, "unreachable") {
		t.Errorf("exit %d: %s", code, e)
	}
}

// TestCommands runs each command against a stand-alone server, with the
// exit codes of busy and never fits.
func TestCommands(t *testing.T) {
	s, err := testserver.Start(t.TempDir(), demo)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := func(args ...string) (int, string, string) { return ctl(append([]string{"-s", s.Addr}, args...)...) }
	two := jobspecFile(t, 2, 4)
	code, out, e := c("match", two, "0", "allocate")
	if code != 0 || !regexp.MustCompile(`^job 1 allocated \[0, 3600\) on 2 nodes \(node\d node\d\): 16 cores\n$`).MatchString(out) {
		t.Fatalf("match: exit %d, %q %s", code, out, e)
	}
	if code, out, e := c("match", "-o", "rv1", two, "0"); code != 0 || !strings.Contains(out, `"R_lite"`) {
		t.Errorf("match -o rv1: exit %d, %q %s", code, out, e)
	}
	if code, out, e := c("match", "-o", "jgf", two, "0"); code != 0 || !strings.Contains(out, `"graph"`) {
		t.Errorf("match -o jgf: exit %d, %q %s", code, out, e)
	}
	if code, out, _ := c("info", "1"); code != 0 || !strings.HasPrefix(out, "job 1 allocated [0, 3600)") {
		t.Errorf("info: exit %d, %q", code, out)
	}
	if code, out, _ := c("jobs"); code != 0 || strings.Count(out, "\n") != 3 {
		t.Errorf("jobs: exit %d, %q", code, out)
	}
	if code, out, _ := c("jobs"); code != 0 || !regexp.MustCompile(`(?m)^1\tALLOCATED\t0\t3600\tnode\d,node\d$`).MatchString(out) {
		t.Errorf("jobs: no nodes listed: exit %d, %q", code, out)
	}
	// Three jobs run at 0, each on 2 nodes with 8 cores.
	if code, out, e := c("usage"); code != 0 || !strings.Contains(out, "\ncore\t256\t48\t0\t0\t208\n") {
		t.Errorf("usage: exit %d, %q %s", code, out, e)
	}
	if code, out, e := c("usage", "x"); code != 2 || out != "" {
		t.Errorf("usage x: exit %d, %q %s", code, out, e)
	}
	if code, out, _ := c("stats"); code != 0 || !strings.Contains(out, "jobs 3") {
		t.Errorf("stats: exit %d, %q", code, out)
	}
	if code, out, _ := c("find", "status=up", "simple"); code != 0 || out == "" {
		t.Errorf("find: exit %d, %q", code, out)
	}
	if code, out, _ := c("cancel", "2"); code != 0 || out != "job 2 canceled\n" {
		t.Errorf("cancel: exit %d, %q", code, out)
	}
	if code, out, e := c("cluster"); code != 0 || !strings.Contains(out, "Standalone") {
		t.Errorf("cluster: exit %d, %q %s", code, out, e)
	}
	snap := filepath.Join(t.TempDir(), "snap")
	if code, _, e := c("snapshot", snap); code != 0 {
		t.Errorf("snapshot: exit %d, %s", code, e)
	} else if fi, err := os.Stat(snap); err != nil || fi.Size() == 0 {
		t.Errorf("snapshot: %v", err)
	}

	// Every core of every node, now: busy (allocate), exit 3.
	all := jobspecFile(t, 8, 16)
	if code, out, e := c("explain", all, "0"); code != 0 || !strings.HasPrefix(out, "busy at 0: needs 8 node") {
		t.Errorf("explain busy: exit %d, %q %s", code, out, e)
	}
	if code, _, e := c("match", all, "0", "allocate"); code != exitBusy {
		t.Errorf("busy: exit %d, %s", code, e)
	}
	// Nine nodes: never, exit 4.
	nine := jobspecFile(t, 9, 1)
	if code, out, _ := c("explain", nine); code != 0 || !strings.HasPrefix(out, "never fits: needs 9 node") {
		t.Errorf("explain never: exit %d, %q", code, out)
	}
	if code, _, e := c("match", nine, "0"); code != exitNeverFits {
		t.Errorf("never fits: exit %d, %s", code, e)
	}
	if code, out, _ := c("explain", jobspecFile(t, 1, 1)); code != 0 || out[:9] != "fits at 0" {
		t.Errorf("explain fits: exit %d, %q", code, out)
	}
	// Bad command lines, and a failure that is none of the above.
	for _, args := range [][]string{{"info"}, {"info", "x"}, {"match", two}, {"match", two, "zero"}, {"match", two, "0", "sometimes"}, {"match", "-q", two, "0"}, {"cancel", "1", "2"}} {
		if code, _, e := c(args...); code != exitUsage {
			t.Errorf("%v: exit %d, %s", args, code, e)
		}
	}
	if code, _, e := c("info", "99"); code != exitFailed || !strings.Contains(e, "99") {
		t.Errorf("info 99: exit %d, %s", code, e)
	}
}

// TestDenied: over TLS with roles, a command needing a role the
// credentials lack exits 6, as does one without credentials or with a
// certificate of another CA; with the role, it works.
func TestDenied(t *testing.T) {
	dir := t.TempDir()
	ca, _ := testcerts.NewCA(dir, "ca")
	srv, _ := ca.Issue(dir, "replica")
	rdr, _ := ca.Issue(dir, "dashboard")
	os.Mkdir(filepath.Join(dir, "o"), 0o700)
	other, _ := testcerts.NewCA(filepath.Join(dir, "o"), "other")
	forged, _ := other.Issue(filepath.Join(dir, "o"), "replica")
	roles := filepath.Join(dir, "roles")
	os.WriteFile(roles, []byte("admin cert replica\nreader cert dashboard\nscheduler token s3cret\n"), 0o600)
	sec, err := server.NewSecurity(ca.File, srv.Cert, srv.Key, roles)
	if err != nil {
		t.Fatal(err)
	}
	s, err := testserver.StartWith(t.TempDir(), demo, sec.ServerOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	js := jobspecFile(t, 1, 1)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"reader matches", []string{"-ca", ca.File, "-cert", rdr.Cert, "-key", rdr.Key, "match", js, "0"}, exitDenied},
		{"reader reads", []string{"-ca", ca.File, "-cert", rdr.Cert, "-key", rdr.Key, "jobs"}, exitOK},
		{"no credentials", []string{"-ca", ca.File, "jobs"}, exitDenied},
		{"other CA", []string{"-ca", ca.File, "-cert", forged.Cert, "-key", forged.Key, "jobs"}, exitDenied},
		{"scheduler token matches", []string{"-ca", ca.File, "-token", "s3cret", "match", js, "0"}, exitOK},
		{"scheduler token snapshots", []string{"-ca", ca.File, "-token", "s3cret", "snapshot", filepath.Join(dir, "snap")}, exitDenied},
		{"admin leaves", []string{"-ca", ca.File, "-cert", srv.Cert, "-key", srv.Key, "leave", "x"}, exitFailed}, // stand-alone: no membership
	} {
		args := append([]string{"-s", s.Addr, "-timeout", "3s"}, tc.args...)
		if code, _, e := ctl(args...); code != tc.want {
			t.Errorf("%s: exit %d, want %d: %s", tc.name, code, tc.want, e)
		}
	}
}
