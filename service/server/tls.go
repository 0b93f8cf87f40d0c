package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofluxion/gofluxion/service/internal/tlsutil"
	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Security is how gofluxiond authenticates: TLS material (nil for
// plaintext) and who may call what.
type Security struct {
	// TLS is the replica's certificate and the CA that verifies clients
	// and peers. Nil: plaintext gRPC and Raft.
	TLS  *tlsutil.Reloader
	Auth *Authorizer
}

// NewSecurity builds the security of a server from its files: ca, cert
// and key (PEM) and a roles file (see Roles). Any of them may be empty.
func NewSecurity(ca, cert, key, rolesFile string) (*Security, error) {
	s := &Security{}
	if rolesFile != "" && (cert == "" || key == "") {
		return nil, errors.New("-roles needs TLS (-cert and -key): certificates and bearer tokens are only checked over TLS")
	}
	if ca != "" || cert != "" || key != "" {
		if cert == "" || key == "" {
			return nil, errors.New("TLS needs -cert and -key (and -ca to verify clients and peers)")
		}
		r, err := tlsutil.NewReloader(tlsutil.Files{CA: ca, Cert: cert, Key: key})
		if err != nil {
			return nil, err
		}
		s.TLS = r
	}
	a, err := NewAuthorizer(rolesFile, ca != "")
	if err != nil {
		return nil, err
	}
	s.Auth = a
	return s, nil
}

// Watch reloads the certificate, CA and roles files when they change,
// every interval until stop is closed, and logs a reload that fails (the
// previous material stays in use) and the one that mends it.
func (s *Security) Watch(logf func(string, ...any), interval time.Duration, stop <-chan struct{}) {
	last := ""
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		var errs []error
		if s.TLS != nil {
			errs = append(errs, s.TLS.Check())
		}
		errs = append(errs, s.Auth.Check())
		msg := ""
		if err := errors.Join(errs...); err != nil {
			msg = err.Error()
		}
		if msg != last {
			if msg == "" {
				logf("credentials reloaded")
			} else {
				logf("reloading credentials failed, the previous ones stay in use: %s", msg)
			}
			last = msg
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// Credentialed reports whether clients must authenticate over TLS: a
// server certificate, and client certificates or bearer tokens checked.
func (s *Security) Credentialed() bool {
	return s != nil && s.TLS != nil && !s.Auth.Open()
}

// ServerOptions are the gRPC server options: TLS (client certificates
// verified when given, so that bearer-token clients can connect too) and
// the authorisation interceptors.
func (s *Security) ServerOptions() []grpc.ServerOption {
	if s == nil {
		return nil
	}
	var out []grpc.ServerOption
	if s.TLS != nil {
		out = append(out, grpc.Creds(lingerCreds{credentials.NewTLS(s.TLS.ServerConfig(tls.VerifyClientCertIfGiven, nil))}))
	}
	if s.Auth != nil && !s.Auth.Open() {
		out = append(out, grpc.ChainUnaryInterceptor(s.Auth.UnaryInterceptor()), grpc.ChainStreamInterceptor(s.Auth.StreamInterceptor()))
	}
	return out
}

// lingerCreds are TLS server credentials that, when a handshake fails,
// read what the client already sent before closing. With TLS 1.3 the
// client finishes its side before the server checks the client's
// certificate and starts writing; closing on unread data resets the
// connection, and the client would see "broken pipe" instead of the
// alert that says its certificate was refused (which the client, and
// gofluxionctl's "denied" exit code, rely on).
type lingerCreds struct {
	credentials.TransportCredentials
}

func (c lingerCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	lc := &lingerConn{Conn: conn}
	lc.handshaking.Store(true)
	out, ai, err := c.TransportCredentials.ServerHandshake(lc)
	lc.handshaking.Store(false)
	return out, ai, err
}

// lingerConn drains the peer's data before closing while the handshake
// runs (the TLS credentials close the connection when it fails).
type lingerConn struct {
	net.Conn
	handshaking atomic.Bool
}

func (c *lingerConn) Close() error {
	if c.handshaking.Load() {
		if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite() // the alert is out: FIN after it
		}
		_ = c.Conn.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		_, _ = io.Copy(io.Discard, io.LimitReader(c.Conn, 1<<16))
	}
	return c.Conn.Close()
}

func (c lingerCreds) Clone() credentials.TransportCredentials {
	return lingerCreds{c.TransportCredentials.Clone()}
}

// DialCredentials are the credentials a replica uses to call another one
// (Join): its own certificate as a client certificate.
func (s *Security) DialCredentials() credentials.TransportCredentials {
	if s == nil || s.TLS == nil {
		return insecureCreds()
	}
	return s.TLS.Credentials()
}

// peerVerifier accepts a Raft connection only from a peer whose verified
// certificate has the admin role: a scheduler's or reader's certificate
// from the same CA does not make a replica.
func (s *Security) peerVerifier() func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
			return errors.New("raft: the peer has no verified certificate")
		}
		c := cs.VerifiedChains[0][0]
		if r := s.Auth.CertRole(c); r < RoleAdmin {
			return fmt.Errorf("raft: the peer's certificate (%v) has role %s, a replica needs admin", certIdentities(c), r)
		}
		return nil
	}
}

// isLoopback reports whether a listen address (host:port) is on the
// loopback interface only. An empty host (all interfaces) is not.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tlsTransport is raft's network transport over mutual TLS: both ends
// present a certificate the CA verifies, with the admin role.
func tlsTransport(bind, advertise string, sec *Security, logger hclog.Logger) (raft.Transport, error) {
	if sec.TLS == nil || !sec.TLS.HasCA() {
		return nil, errors.New("raft over TLS needs -cert, -key and -ca")
	}
	l, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, err
	}
	var adv net.Addr = l.Addr()
	if advertise != "" {
		adv = nameAddr(advertise)
	} else if ta, ok := adv.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		l.Close()
		return nil, fmt.Errorf("raft: %s is not an address other replicas can reach: give -raft-advertise", bind)
	}
	verify := sec.peerVerifier()
	stream := &tlsStream{
		Listener: &handshakeListener{tls.NewListener(l, sec.TLS.ServerConfig(tls.RequireAndVerifyClientCert, verify)), handshakeTimeout},
		addr:     adv,
		dial: func(address string, timeout time.Duration) (net.Conn, error) {
			return sec.TLS.Dial(address, timeout, verify)
		},
	}
	return raft.NewNetworkTransportWithLogger(stream, 3, 10*time.Second, logger), nil
}

// handshakeTimeout bounds an incoming Raft connection's TLS handshake, so
// that a connection that never completes one does not hold a goroutine.
var handshakeTimeout = 10 * time.Second

// handshakeListener makes its connections finish the TLS handshake
// within handshakeTimeout, on their first Read (in the transport's
// goroutine for the connection, not in the accept loop).
type handshakeListener struct {
	net.Listener
	timeout time.Duration
}

func (l *handshakeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &handshakeConn{Conn: c.(*tls.Conn), timeout: l.timeout}, nil
}

type handshakeConn struct {
	*tls.Conn
	timeout time.Duration
	once    sync.Once
	err     error
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		c.err = c.Conn.HandshakeContext(ctx)
		cancel()
	})
	if c.err != nil {
		return 0, c.err
	}
	return c.Conn.Read(p)
}

type tlsStream struct {
	net.Listener
	addr net.Addr
	dial func(string, time.Duration) (net.Conn, error)
}

func (s *tlsStream) Addr() net.Addr { return s.addr }

func (s *tlsStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	return s.dial(string(address), timeout)
}
