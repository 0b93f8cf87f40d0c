package server_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/client"
	"github.com/gofluxion/gofluxion/service/server"
)

// The process tests run gofluxiond as a child process: the test binary
// itself, re-executed with GOFLUXIOND_MAIN=1.
func TestMain(m *testing.M) {
	if os.Getenv("GOFLUXIOND_MAIN") == "1" {
		os.Exit(server.Main(os.Args[1:], os.Stderr))
	}
	os.Exit(m.Run())
}

// creds are the credentials of the tests' clients (CA, certificate, key,
// token): empty for plaintext; a test that runs its servers with TLS sets
// them with useCreds. The process tests are not parallel.
var creds client.Options

// useCreds makes the test's clients use o's credentials until it ends.
func useCreds(t testing.TB, o client.Options) {
	old := creds
	creds = client.Options{CA: o.CA, Cert: o.Cert, Key: o.Key, Token: o.Token}
	t.Cleanup(func() { creds = old })
}

// withCreds adds the tests' credentials to o.
func withCreds(o client.Options) client.Options {
	o.CA, o.Cert, o.Key, o.Token = creds.CA, creds.Cert, creds.Key, creds.Token
	return o
}

// freePort returns a loopback address that was free a moment ago, for a
// child process to listen on. It is chosen below the kernel's ephemeral
// range (32768-60999 by default): a port from that range, free when the
// test looked, can be taken before the child binds it by any outgoing
// connection's local end (the replicas' and clients' own), which made
// restarts fail with "address already in use". No port is handed out
// twice in one test process.
func freePort(t testing.TB) string {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := 20000 + rand.IntN(12000)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return l.Addr().String()
	}
	t.Fatal("no free port in 20000-31999")
	return ""
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// daemon is one gofluxiond child process.
type daemon struct {
	t    testing.TB
	args []string
	addr string
	cmd  *exec.Cmd
	log  *syncBuf
	done chan struct{}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startDaemon(t testing.TB, addr string, args ...string) *daemon {
	t.Helper()
	d := &daemon{t: t, args: append([]string{"-listen", addr}, args...), addr: addr, log: &syncBuf{}}
	d.start()
	t.Cleanup(func() { d.kill(syscall.SIGKILL) })
	return d
}

func (d *daemon) start() {
	d.t.Helper()
	cmd := exec.Command(os.Args[0], d.args...)
	cmd.Env = append(os.Environ(), "GOFLUXIOND_MAIN=1")
	cmd.Stderr = d.log
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.cmd, d.done = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(d.done) }()
}

// kill sends sig and waits for the process to end.
func (d *daemon) kill(sig syscall.Signal) {
	if d.cmd == nil {
		return
	}
	_ = d.cmd.Process.Signal(sig)
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		<-d.done
	}
	d.cmd = nil
}

// waitServing waits until the daemon answers Cluster.
func (d *daemon) waitServing(timeout time.Duration) {
	d.t.Helper()
	c, err := client.Dial([]string{d.addr}, withCreds(client.Options{Timeout: timeout, AttemptTimeout: time.Second}))
	if err != nil {
		d.t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Cluster(context.Background()); err != nil {
		d.t.Fatalf("%s not serving: %v\n%s", d.addr, err, d.log.String())
	}
}

func (d *daemon) String() string { return fmt.Sprintf("gofluxiond %s", strings.Join(d.args, " ")) }
