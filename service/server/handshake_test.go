package server_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/server"
)

// TestIdleConnectionClosed: a connection that never starts its handshake
// is closed after server.HandshakeTimeout (grpc's default, 120 s, let idle
// connections pile up and exhaust file descriptors; found by a hostile
// test).
func TestIdleConnectionClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the handshake timeout")
	}
	addr := freePort(t)
	d := startDaemon(t, addr, "-mode", "standalone", "-data", t.TempDir(), "-graph", "demo")
	d.waitServing(30 * time.Second)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	conn.SetReadDeadline(start.Add(server.HandshakeTimeout + 20*time.Second))
	_, err = io.Copy(io.Discard, conn) // the server's preface, then EOF when it closes
	took := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("idle connection still open after %v", took)
	}
	if took < server.HandshakeTimeout/2 {
		t.Fatalf("idle connection closed after %v, before the handshake timeout %v (err %v)", took, server.HandshakeTimeout, err)
	}
	t.Logf("idle connection closed after %v (%v)", took, err)
}
