// Package tlsutil loads TLS certificates and CA bundles from files and
// reloads them when the files change, so an operator (or cert-manager)
// can rotate certificates without restarting the service. It builds the
// server side (gRPC and the Raft transport) and the client side (the Go
// client, gofluxionctl, a replica dialling its peers) configurations.
package tlsutil

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
)

// Files names the PEM files of one side of a TLS connection. CA verifies
// the other side (clients and peers on a server; the server on a client);
// Cert and Key are this side's certificate chain and private key.
type Files struct {
	CA, Cert, Key string
}

// Empty reports whether no file is named.
func (f Files) Empty() bool { return f.CA == "" && f.Cert == "" && f.Key == "" }

// checkEvery is how often the files' modification times are looked at.
const checkEvery = time.Second

// Reloader holds the certificate and CA pool loaded from Files and
// reloads them when a file's size or modification time changes. A reload
// that fails (a half-written file) keeps the previous material and is
// retried at the next check.
type Reloader struct {
	files Files
	mu    sync.Mutex
	stamp string // sizes and mtimes of the files last loaded
	next  time.Time
	cert  *tls.Certificate
	pool  *x509.CertPool
	err   error // the last reload's error (nil when it worked)
}

// NewReloader loads the files once; an error names the bad file.
func NewReloader(f Files) (*Reloader, error) {
	if (f.Cert == "") != (f.Key == "") {
		return nil, errors.New("tls: a certificate needs both a certificate file and a key file")
	}
	r := &Reloader{files: f}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

func stamp(names ...string) string {
	s := ""
	for _, n := range names {
		if n == "" {
			continue
		}
		if fi, err := os.Stat(n); err == nil {
			s += fmt.Sprintf("%s:%d:%d;", n, fi.Size(), fi.ModTime().UnixNano())
		} else {
			s += n + ":missing;"
		}
	}
	return s
}

func (r *Reloader) load() error {
	st := stamp(r.files.CA, r.files.Cert, r.files.Key)
	var cert *tls.Certificate
	if r.files.Cert != "" {
		c, err := tls.LoadX509KeyPair(r.files.Cert, r.files.Key)
		if err != nil {
			return fmt.Errorf("tls: certificate %s, key %s: %w", r.files.Cert, r.files.Key, err)
		}
		cert = &c
	}
	var pool *x509.CertPool
	if r.files.CA != "" {
		pem, err := os.ReadFile(r.files.CA)
		if err != nil {
			return fmt.Errorf("tls: CA: %w", err)
		}
		pool = x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("tls: CA %s: no PEM certificate in it", r.files.CA)
		}
	}
	r.cert, r.pool, r.stamp = cert, pool, st
	return nil
}

// current returns the certificate and pool, reloading them first when the
// files changed (looked at no more often than once a second).
func (r *Reloader) current() (*tls.Certificate, *x509.CertPool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.After(r.next) {
		r.next = now.Add(checkEvery)
		if stamp(r.files.CA, r.files.Cert, r.files.Key) != r.stamp {
			r.err = r.load()
		}
	}
	return r.cert, r.pool
}

// Check reloads the files if they changed and returns the error of the
// last reload (nil if it worked), for logs.
func (r *Reloader) Check() error {
	r.current()
	return r.Err()
}

// Err returns the error of the last reload that failed (nil if the last
// one worked), for logs.
func (r *Reloader) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// HasCert reports whether a certificate is configured.
func (r *Reloader) HasCert() bool { return r.files.Cert != "" }

// HasCA reports whether a CA is configured.
func (r *Reloader) HasCA() bool { return r.files.CA != "" }

// ServerConfig is a server's TLS configuration: its certificate, and
// client certificates verified against the CA (when there is one) with
// auth (tls.RequireAndVerifyClientCert for mutual TLS only,
// tls.VerifyClientCertIfGiven to let bearer-token clients in too). The
// certificate and CA are those of the files at the time of each
// handshake.
// verify, when not nil, is a further check of every connection (the
// Raft transport's: the peer's certificate must name a replica).
func (r *Reloader) ServerConfig(auth tls.ClientAuthType, verify func(tls.ConnectionState) error) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			cert, pool := r.current()
			if cert == nil {
				return nil, errors.New("tls: no server certificate")
			}
			c := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{*cert}, VerifyConnection: verify}
			if pool != nil {
				c.ClientCAs, c.ClientAuth = pool, auth
			}
			return c, nil
		},
	}
}

// ClientConfig is a client's TLS configuration for a server named
// serverName (a host name or an IP address, checked against the server
// certificate): the server verified against the CA (the system roots
// without one), and this side's certificate, if any, offered.
func (r *Reloader) ClientConfig(serverName string, verify func(tls.ConnectionState) error) *tls.Config {
	cert, pool := r.current()
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName, RootCAs: pool, VerifyConnection: verify}
	if cert != nil {
		c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	return c
}

// Dial opens a TLS connection to address (host:port) within timeout;
// verify as in ServerConfig.
func (r *Reloader) Dial(address string, timeout time.Duration, verify func(tls.ConnectionState) error) (net.Conn, error) {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: timeout}, Config: r.ClientConfig(host, verify)}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.DialContext(ctx, "tcp", address)
}

// Credentials are gRPC client transport credentials that take the
// certificate and CA as they are at each connection's handshake.
func (r *Reloader) Credentials() credentials.TransportCredentials {
	return &clientCreds{r: r}
}

type clientCreds struct {
	r        *Reloader
	override string
}

func (c *clientCreds) creds(authority string) credentials.TransportCredentials {
	name := c.override
	if name == "" {
		name = authority
		if h, _, err := net.SplitHostPort(authority); err == nil {
			name = h
		}
	}
	return credentials.NewTLS(c.r.ClientConfig(name, nil))
}

func (c *clientCreds) ClientHandshake(ctx context.Context, authority string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c.creds(authority).ClientHandshake(ctx, authority, conn)
}

func (c *clientCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return nil, nil, errors.New("tls: client credentials used on a server")
}

func (c *clientCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "tls", SecurityVersion: "1.2", ServerName: c.override}
}

func (c *clientCreds) Clone() credentials.TransportCredentials {
	cc := *c
	return &cc
}

//lint:ignore SA1019 part of the interface.
func (c *clientCreds) OverrideServerName(name string) error {
	c.override = name
	return nil
}
