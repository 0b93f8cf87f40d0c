// Package testcerts makes certificate authorities and certificates with
// crypto/x509, for tests: a CA, and leaf certificates it signs for
// loopback (IP 127.0.0.1 and ::1, DNS localhost) usable both as server
// and as client certificates.
package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// CA is a certificate authority.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// File is the PEM file of the CA's certificate.
	File string
}

var serial atomic.Int64

func writePEM(path, typ string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
}

// NewCA makes a CA named name and writes its certificate to dir/name.pem.
func NewCA(dir, name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial.Add(1)),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ca := &CA{Cert: cert, key: key, File: filepath.Join(dir, name+".pem")}
	return ca, writePEM(ca.File, "CERTIFICATE", der)
}

// Pair names a certificate's and its key's PEM files.
type Pair struct{ Cert, Key string }

// Issue makes a certificate with Common Name cn for loopback, valid for
// both server and client authentication, and writes it and its key to
// dir/cn.crt and dir/cn.key.
func (ca *CA) Issue(dir, cn string) (Pair, error) {
	return ca.IssueFor(dir, cn, []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback})
}

// IssueFor is Issue with the given DNS names and IP addresses.
func (ca *CA) IssueFor(dir, cn string, dns []string, ips []net.IP) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return Pair{}, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Pair{}, err
	}
	p := Pair{Cert: filepath.Join(dir, cn+".crt"), Key: filepath.Join(dir, cn+".key")}
	if err := writePEM(p.Cert, "CERTIFICATE", der); err != nil {
		return Pair{}, err
	}
	return p, writePEM(p.Key, "PRIVATE KEY", kder)
}
