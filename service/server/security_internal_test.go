package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/internal/testcerts"
)

// TestSecurityFlags: which flag sets gofluxiond accepts (without
// listening: the refusals are also tested through Main).
func TestSecurityFlags(t *testing.T) {
	dir := t.TempDir()
	ca, err := testcerts.NewCA(dir, "ca")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.Issue(dir, "replica")
	if err != nil {
		t.Fatal(err)
	}
	roles := filepath.Join(dir, "roles")
	os.WriteFile(roles, []byte("admin token x\n"), 0o600)
	for _, tc := range []struct {
		c     config
		error string // "" accepted
	}{
		{config{mode: "standalone", listen: "127.0.0.1:7070"}, ""},
		{config{mode: "standalone", listen: "localhost:7070"}, ""},
		{config{mode: "standalone", listen: "[::1]:7070"}, ""},
		{config{mode: "raft", listen: "127.0.0.1:7070", raftAddr: "127.0.0.1:7080"}, ""},
		{config{mode: "standalone", listen: "0.0.0.0:7070"}, "refusing to listen on 0.0.0.0:7070 without credentials"},
		{config{mode: "standalone", listen: "10.1.2.3:7070"}, "refusing to listen"},
		{config{mode: "standalone", listen: "0.0.0.0:7070", insecure: true}, ""},
		{config{mode: "standalone", listen: "0.0.0.0:7070", cert: p.Cert, key: p.Key, ca: ca.File}, ""},
		{config{mode: "standalone", listen: "0.0.0.0:7070", cert: p.Cert, key: p.Key, roles: roles}, ""},
		{config{mode: "standalone", listen: "0.0.0.0:7070", cert: p.Cert, key: p.Key}, "refusing to listen"},
		{config{mode: "standalone", listen: "0.0.0.0:7070", ca: ca.File}, "TLS needs -cert and -key"},
		{config{mode: "raft", listen: "0.0.0.0:7070", raftAddr: "0.0.0.0:7080", cert: p.Cert, key: p.Key, ca: ca.File}, ""},
		{config{mode: "raft", listen: "0.0.0.0:7070", raftAddr: "0.0.0.0:7080", cert: p.Cert, key: p.Key, roles: roles}, "refusing to bind the Raft transport"},
		{config{mode: "raft", listen: "127.0.0.1:7070", raftAddr: "0.0.0.0:7080"}, "refusing to bind the Raft transport"},
		{config{mode: "raft", listen: "0.0.0.0:7070", raftAddr: "0.0.0.0:7080", insecure: true}, ""},
		{config{mode: "standalone", listen: "127.0.0.1:7070", cert: p.Cert, key: p.Key, roles: filepath.Join(dir, "missing")}, "roles:"},
		{config{mode: "standalone", listen: "127.0.0.1:7070", roles: roles}, "-roles needs TLS"},
	} {
		_, err := tc.c.security()
		switch {
		case tc.error == "" && err != nil:
			t.Errorf("%+v: %v", tc.c, err)
		case tc.error != "" && (err == nil || !strings.Contains(err.Error(), tc.error)):
			t.Errorf("%+v: error %v, want %q", tc.c, err, tc.error)
		}
	}
}

// TestParseRoles: the roles file's grammar, and errors naming the line.
func TestParseRoles(t *testing.T) {
	rs, err := ParseRoles("f", []byte("# c\n\nadmin cert a # x\nreader cert a\nreader token t\nscheduler token-sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rs.certs["a"] != RoleAdmin {
		t.Errorf("a has %v: the highest grant wins", rs.certs["a"])
	}
	if rs.tokenRole("t") != RoleReader || rs.tokenRole("") != RoleScheduler || rs.tokenRole("u") != RoleNone {
		t.Errorf("tokens: %v %v %v", rs.tokenRole("t"), rs.tokenRole(""), rs.tokenRole("u"))
	}
	for _, tc := range []struct{ in, want string }{
		{"admin cert", "f:1: want ROLE KIND VALUE, got 2 fields"},
		{"\nroot cert a", `f:2: unknown role "root"`},
		{"admin key a", `f:1: unknown kind "key"`},
		{"admin token-sha256 abc", "f:1: token-sha256 needs 64 hexadecimal digits"},
		{"admin cert a b", "got 4 fields"},
	} {
		if _, err := ParseRoles("f", []byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseRoles: the parser never panics, and what it accepts has only
// known roles.
func FuzzParseRoles(f *testing.F) {
	f.Add([]byte("admin cert a\nreader token t # c\n"))
	f.Add([]byte("scheduler token-sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"))
	f.Add([]byte("# only\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ParseRoles("f", data)
		if err != nil {
			return
		}
		for _, r := range rs.certs {
			if r < RoleReader || r > RoleAdmin {
				t.Fatal(r)
			}
		}
	})
}

// TestWatchLogsBadReload: a roles file that stops parsing is logged, the
// previous roles stay, and the repair is logged too.
func TestWatchLogsBadReload(t *testing.T) {
	dir := t.TempDir()
	ca, _ := testcerts.NewCA(dir, "ca")
	p, _ := ca.Issue(dir, "replica")
	roles := filepath.Join(dir, "roles")
	os.WriteFile(roles, []byte("admin cert replica\n"), 0o600)
	sec, err := NewSecurity(ca.File, p.Cert, p.Key, roles)
	if err != nil {
		t.Fatal(err)
	}
	logs := make(chan string, 10)
	stop := make(chan struct{})
	defer close(stop)
	go sec.Watch(func(f string, a ...any) { logs <- fmt.Sprintf(f, a...) }, 50*time.Millisecond, stop)
	os.WriteFile(roles, []byte("root cert replica\n"), 0o600)
	if l := <-logs; !strings.Contains(l, "failed") || !strings.Contains(l, `unknown role "root"`) {
		t.Fatalf("log %q", l)
	}
	if r := sec.Auth.current().certs["replica"]; r != RoleAdmin {
		t.Fatalf("the previous roles were dropped: %v", r)
	}
	os.WriteFile(roles, []byte("reader cert replica\n"), 0o600)
	if l := <-logs; l != "credentials reloaded" {
		t.Fatalf("log %q", l)
	}
	if r := sec.Auth.current().certs["replica"]; r != RoleReader {
		t.Fatalf("the new roles were not loaded: %v", r)
	}
}
