package server

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/internal/testcerts"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
)

// TestRaftTransportPeers: the Raft transport over mutual TLS talks only
// to peers whose certificate the CA verifies and whose role is admin. A
// connection with no certificate, a scheduler's certificate or another
// CA's gets no answer; a replica's gets raft's.
func TestRaftTransportPeers(t *testing.T) {
	dir := t.TempDir()
	ca, _ := testcerts.NewCA(dir, "ca")
	other, _ := testcerts.NewCA(dir, "other")
	replica, _ := ca.Issue(dir, "replica")
	sched, _ := ca.Issue(dir, "scheduler-plugin")
	os.Mkdir(filepath.Join(dir, "o"), 0o700)
	forged, _ := other.Issue(filepath.Join(dir, "o"), "replica")
	roles := filepath.Join(dir, "roles")
	os.WriteFile(roles, []byte("admin cert replica\nscheduler cert scheduler-plugin\n"), 0o600)
	sec, err := NewSecurity(ca.File, replica.Cert, replica.Key, roles)
	if err != nil {
		t.Fatal(err)
	}
	logger := hclog.NewNullLogger()
	a, err := tlsTransport("127.0.0.1:0", "", sec, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer a.(*raft.NetworkTransport).Close()
	go func() {
		for rpc := range a.Consumer() {
			rpc.Respond(&raft.RequestVoteResponse{Term: 7}, nil)
		}
	}()
	b, err := tlsTransport("127.0.0.1:0", "", sec, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer b.(*raft.NetworkTransport).Close()
	var resp raft.RequestVoteResponse
	if err := b.RequestVote("a", a.LocalAddr(), &raft.RequestVoteRequest{Term: 7}, &resp); err != nil || resp.Term != 7 {
		t.Fatalf("replica to replica: %v %+v", err, resp)
	}

	pool := x509.NewCertPool()
	pem, _ := os.ReadFile(ca.File)
	pool.AppendCertsFromPEM(pem)
	for name, p := range map[string]*testcerts.Pair{"no certificate": nil, "scheduler": &sched, "other CA": &forged} {
		cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
		if p != nil {
			c, err := tls.LoadX509KeyPair(p.Cert, p.Key)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Certificates = []tls.Certificate{c}
		}
		conn, err := tls.Dial("tcp", string(a.LocalAddr()), cfg)
		if err != nil {
			continue // refused at the handshake
		}
		conn.SetDeadline(time.Now().Add(5 * time.Second))
		// raft's RPC framing: a type byte then msgpack; the server must
		// close the connection before answering anything.
		conn.Write([]byte{1, 0x80})
		var buf [1]byte
		if n, err := conn.Read(buf[:]); err == nil || n > 0 {
			t.Errorf("%s: the Raft transport answered", name)
		}
		conn.Close()
	}
}

// TestRaftHandshakeTimeout: a connection to the Raft port that never
// completes a TLS handshake is closed after handshakeTimeout.
func TestRaftHandshakeTimeout(t *testing.T) {
	old := handshakeTimeout
	handshakeTimeout = 200 * time.Millisecond
	defer func() { handshakeTimeout = old }()
	dir := t.TempDir()
	ca, _ := testcerts.NewCA(dir, "ca")
	replica, _ := ca.Issue(dir, "replica")
	sec, err := NewSecurity(ca.File, replica.Cert, replica.Key, "")
	if err != nil {
		t.Fatal(err)
	}
	a, err := tlsTransport("127.0.0.1:0", "", sec, hclog.NewNullLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer a.(*raft.NetworkTransport).Close()
	conn, err := net.Dial("tcp", string(a.LocalAddr()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	t0 := time.Now()
	var buf [1]byte
	_, err = conn.Read(buf[:])
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept a silent connection open")
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("closed after %v", d)
	}
}
