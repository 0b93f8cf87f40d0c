package server_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/internal/testcerts"
	"github.com/gofluxion/gofluxion/service/pb"
	"github.com/gofluxion/gofluxion/service/server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// pki is a test PKI: a CA, certificates it signs for each role, and a
// certificate from another CA.
type pki struct {
	dir                           string
	ca, otherCA                   *testcerts.CA
	server, admin, sched, reader  testcerts.Pair
	nobody, wrongCA               testcerts.Pair
	roles                         string
	adminTok, schedTok, readerTok string
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	p := &pki{dir: t.TempDir(), adminTok: "admin-secret", schedTok: "sched-secret", readerTok: "reader-secret"}
	var err error
	must := func(e error) {
		if e != nil {
			t.Fatal(e)
		}
	}
	p.ca, err = testcerts.NewCA(p.dir, "ca")
	must(err)
	p.otherCA, err = testcerts.NewCA(p.dir, "other-ca")
	must(err)
	for _, x := range []struct {
		pp *testcerts.Pair
		cn string
	}{{&p.server, "replica"}, {&p.admin, "ops"}, {&p.sched, "scheduler-plugin"}, {&p.reader, "dashboard"}, {&p.nobody, "stranger"}} {
		*x.pp, err = p.ca.Issue(p.dir, x.cn)
		must(err)
	}
	wdir := filepath.Join(p.dir, "wrong")
	must(os.Mkdir(wdir, 0o700))
	p.wrongCA, err = p.otherCA.Issue(wdir, "ops") // the admin's name, the wrong CA
	must(err)
	p.roles = filepath.Join(p.dir, "roles")
	must(os.WriteFile(p.roles, []byte(`# test roles
admin     cert   replica
admin     cert   ops
scheduler cert   scheduler-plugin
reader    cert   dashboard     # read only
admin     token  admin-secret
scheduler token  sched-secret
reader    token-sha256 `+sha256hex("reader-secret")+`
`), 0o600))
	return p
}

// serveSecure serves a stand-alone backend in process with sec.
func serveSecure(t testing.TB, sec *server.Security) string {
	t.Helper()
	b, err := server.OpenStandalone(server.StandaloneOptions{Dir: t.TempDir(), Initial: func() (*gofluxion.Matcher, error) {
		return gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	}})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(sec.ServerOptions()...)
	pb.RegisterMatcherServer(gs, &server.Service{B: b})
	go gs.Serve(lis)
	t.Cleanup(func() { gs.Stop(); b.Close() })
	return lis.Addr().String()
}

// rpcKinds are every RPC and, for Apply, every operation kind, with the
// role each needs.
var rpcKinds = []struct {
	name string
	need server.Role
	call func(ctx context.Context, c *client.Client) error
}{
	{"Apply match", server.RoleScheduler, func(ctx context.Context, c *client.Client) error {
		_, err := c.Apply(ctx, &pb.Op{Kind: &pb.Op_Match{Match: &pb.Match{Op: int32(gofluxion.Allocate), Jobspec: jobspecYAML(1, 10)}}})
		return err
	}},
	{"Apply cancel", server.RoleScheduler, applyKind(&pb.Op{Kind: &pb.Op_Cancel{Cancel: &pb.Cancel{Id: 99}}})},
	{"Apply partial cancel", server.RoleScheduler, applyKind(&pb.Op{Kind: &pb.Op_PartialCancel{PartialCancel: &pb.PartialCancel{Id: 99}}})},
	{"Apply update", server.RoleScheduler, applyKind(&pb.Op{Kind: &pb.Op_Update{Update: &pb.Update{Id: 99}}})},
	{"Apply set status", server.RoleScheduler, applyKind(&pb.Op{Kind: &pb.Op_SetStatus{SetStatus: &pb.SetStatus{Path: "/nowhere"}}})},
	{"Apply set rank status", server.RoleScheduler, applyKind(&pb.Op{Kind: &pb.Op_SetRankStatus{SetRankStatus: &pb.SetRankStatus{Ranks: "999"}}})},
	{"Apply attach", server.RoleAdmin, applyKind(&pb.Op{Kind: &pb.Op_Attach{Attach: &pb.Attach{}}})},
	{"Apply remove", server.RoleAdmin, applyKind(&pb.Op{Kind: &pb.Op_Remove{Remove: &pb.Remove{Path: "/nowhere"}}})},
	{"Apply remove ranks", server.RoleAdmin, applyKind(&pb.Op{Kind: &pb.Op_RemoveRanks{RemoveRanks: &pb.RemoveRanks{Ranks: "999"}}})},
	{"Query", server.RoleReader, func(ctx context.Context, c *client.Client) error {
		_, err := c.With(ctx).Stats()
		return err
	}},
	{"Cluster", server.RoleReader, func(ctx context.Context, c *client.Client) error {
		_, err := c.Cluster(ctx)
		return err
	}},
	{"Snapshot", server.RoleAdmin, func(ctx context.Context, c *client.Client) error {
		return c.With(ctx).Snapshot(io.Discard)
	}},
	{"Join", server.RoleAdmin, func(ctx context.Context, c *client.Client) error {
		_, err := c.Join(ctx, "x", "127.0.0.1:1", "127.0.0.1:1")
		return err
	}},
	{"Leave", server.RoleAdmin, func(ctx context.Context, c *client.Client) error {
		_, err := c.Leave(ctx, "x")
		return err
	}},
}

func applyKind(op *pb.Op) func(ctx context.Context, c *client.Client) error {
	return func(ctx context.Context, c *client.Client) error {
		_, err := c.Apply(ctx, op)
		return err
	}
}

// denied reports whether err is an authentication or authorisation
// refusal (what gofluxionctl reports as "denied").
func denied(err error) bool {
	c := status.Code(errors.Unwrap(err))
	if c == codes.OK {
		c = status.Code(err)
	}
	return c == codes.Unauthenticated || c == codes.PermissionDenied || client.HandshakeFailed(err) || client.HandshakeFailed(errors.Unwrap(err))
}

// TestAuthRoles: over mutual TLS with a roles file, every RPC kind is
// denied to a client without credentials, with a certificate of the
// wrong CA, with a certificate or token of no role, or of a role too
// low; and allowed (it may fail for its own reasons, not for auth) to
// clients whose role is enough.
func TestAuthRoles(t *testing.T) {
	p := newPKI(t)
	sec, err := server.NewSecurity(p.ca.File, p.server.Cert, p.server.Key, p.roles)
	if err != nil {
		t.Fatal(err)
	}
	addr := serveSecure(t, sec)
	type who struct {
		name string
		role server.Role
		opts client.Options
	}
	whos := []who{
		{"plaintext", server.RoleNone, client.Options{}},
		{"TLS, no certificate", server.RoleNone, client.Options{CA: p.ca.File}},
		{"wrong CA", server.RoleNone, client.Options{CA: p.ca.File, Cert: p.wrongCA.Cert, Key: p.wrongCA.Key}},
		{"certificate of no role", server.RoleNone, client.Options{CA: p.ca.File, Cert: p.nobody.Cert, Key: p.nobody.Key}},
		{"unknown token", server.RoleNone, client.Options{CA: p.ca.File, Token: "guess"}},
		{"reader certificate", server.RoleReader, client.Options{CA: p.ca.File, Cert: p.reader.Cert, Key: p.reader.Key}},
		{"reader token", server.RoleReader, client.Options{CA: p.ca.File, Token: p.readerTok}},
		{"scheduler certificate", server.RoleScheduler, client.Options{CA: p.ca.File, Cert: p.sched.Cert, Key: p.sched.Key}},
		{"scheduler token", server.RoleScheduler, client.Options{CA: p.ca.File, Token: p.schedTok}},
		{"admin certificate", server.RoleAdmin, client.Options{CA: p.ca.File, Cert: p.admin.Cert, Key: p.admin.Key}},
		{"admin token", server.RoleAdmin, client.Options{CA: p.ca.File, Token: p.adminTok}},
	}
	for _, w := range whos {
		t.Run(w.name, func(t *testing.T) {
			o := w.opts
			o.Timeout, o.AttemptTimeout = 3*time.Second, time.Second
			plain := o.CA == ""
			if plain {
				// A TLS server closes a plaintext connection: to the
				// client it looks like a server that does not answer.
				o.Timeout, o.AttemptTimeout = 500*time.Millisecond, 250*time.Millisecond
			}
			c, err := client.Dial([]string{addr}, o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for _, k := range rpcKinds {
				err := k.call(context.Background(), c)
				if w.role >= k.need {
					if denied(err) {
						t.Errorf("%s: denied to %s: %v", k.name, w.role, err)
					}
					if err != nil && strings.Contains(err.Error(), "deadline") {
						t.Errorf("%s: %v", k.name, err)
					}
				} else if plain {
					if err == nil || !strings.Contains(err.Error(), "server preface") {
						t.Errorf("%s: a plaintext client was not refused: %v", k.name, err)
					}
				} else if !denied(err) {
					t.Errorf("%s (needs %s): not denied to %s: %v", k.name, k.need, w.role, err)
				}
			}
		})
	}
}

// TestAuthCertOnlyNoRoles: with a client CA and no roles file, every
// certificate the CA verifies is admin, and a client without one (or
// with another CA's) is denied.
func TestAuthCertOnlyNoRoles(t *testing.T) {
	p := newPKI(t)
	sec, err := server.NewSecurity(p.ca.File, p.server.Cert, p.server.Key, "")
	if err != nil {
		t.Fatal(err)
	}
	addr := serveSecure(t, sec)
	dial := func(o client.Options) *client.Client {
		o.Timeout, o.AttemptTimeout = 3*time.Second, time.Second
		c, err := client.Dial([]string{addr}, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ok := dial(client.Options{CA: p.ca.File, Cert: p.nobody.Cert, Key: p.nobody.Key})
	if err := ok.With(context.Background()).Snapshot(io.Discard); err != nil {
		t.Errorf("a verified certificate is admin: %v", err)
	}
	for _, o := range []client.Options{{CA: p.ca.File}, {CA: p.ca.File, Cert: p.wrongCA.Cert, Key: p.wrongCA.Key}} {
		if _, err := dial(o).Cluster(context.Background()); !denied(err) {
			t.Errorf("%+v: not denied: %v", o, err)
		}
	}
}

// TestTLSReload: the server's certificate is reloaded when its files
// change. A client trusting only a new CA is refused until the server's
// files are replaced by a certificate of that CA, then served, without a
// restart.
func TestTLSReload(t *testing.T) {
	p := newPKI(t)
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	copyFile(t, p.server.Cert, cert)
	copyFile(t, p.server.Key, key)
	sec, err := server.NewSecurity(p.ca.File, cert, key, "")
	if err != nil {
		t.Fatal(err)
	}
	addr := serveSecure(t, sec)
	ndir := filepath.Join(dir, "new")
	os.Mkdir(ndir, 0o700)
	nca, err := testcerts.NewCA(ndir, "new-ca")
	if err != nil {
		t.Fatal(err)
	}
	np, err := nca.Issue(ndir, "replica")
	if err != nil {
		t.Fatal(err)
	}
	call := func() error {
		c, err := client.Dial([]string{addr}, client.Options{CA: nca.File, Cert: p.admin.Cert, Key: p.admin.Key, Timeout: 2 * time.Second, AttemptTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_, err = c.Cluster(context.Background())
		return err
	}
	if err := call(); err == nil {
		t.Fatal("a client trusting another CA was served")
	}
	copyFile(t, np.Cert, cert)
	copyFile(t, np.Key, key)
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := call()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new certificate was not loaded: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	// Write then rename, as a Secret volume update does.
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, to); err != nil {
		t.Fatal(err)
	}
}

// TestRefuseNonLoopbackWithoutCredentials: gofluxiond will not listen
// beyond loopback (gRPC or Raft) without credentials, and says why; it
// does with -insecure, or with credentials.
func TestRefuseNonLoopbackWithoutCredentials(t *testing.T) {
	p := newPKI(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"grpc on all interfaces", []string{"-listen", "0.0.0.0:0"}, "refusing to listen on 0.0.0.0:0 without credentials"},
		{"grpc on an empty host", []string{"-listen", ":0"}, "refusing to listen on :0"},
		{"TLS without client authentication", []string{"-listen", "0.0.0.0:0", "-cert", p.server.Cert, "-key", p.server.Key}, "refusing to listen"},
		{"raft on all interfaces", []string{"-mode", "raft", "-raft", "0.0.0.0:0"}, "refusing to bind the Raft transport on 0.0.0.0:0 without mutual TLS"},
		{"raft with tokens only", []string{"-mode", "raft", "-listen", "0.0.0.0:0", "-raft", "0.0.0.0:0", "-cert", p.server.Cert, "-key", p.server.Key, "-roles", p.roles}, "refusing to bind the Raft transport"},
		{"a key without a certificate", []string{"-key", p.server.Key}, "TLS needs -cert and -key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			args := append([]string{"-data", t.TempDir()}, tc.args...)
			if rc := server.Main(args, &stderr); rc != 2 {
				t.Fatalf("exit %d, want 2; %s", rc, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("stderr %q does not say %q", stderr.String(), tc.want)
			}
		})
	}
	// The cases it accepts are in TestSecurityFlags (package server):
	// tests listen on loopback only.
}

func sha256hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
