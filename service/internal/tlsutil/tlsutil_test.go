package tlsutil_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/service/internal/testcerts"
	"github.com/gofluxion/gofluxion/service/internal/tlsutil"
)

// TestReloaderErrors: bad files are named, and a reload that fails keeps
// the previous certificate (a half-written file during a rotation).
func TestReloaderErrors(t *testing.T) {
	dir := t.TempDir()
	ca, _ := testcerts.NewCA(dir, "ca")
	p, _ := ca.Issue(dir, "a")
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("not pem"), 0o600)
	for _, tc := range []struct {
		f    tlsutil.Files
		want string
	}{
		{tlsutil.Files{Cert: p.Cert}, "needs both"},
		{tlsutil.Files{Key: p.Key}, "needs both"},
		{tlsutil.Files{Cert: p.Cert, Key: junk}, junk},
		{tlsutil.Files{CA: junk}, "CA " + junk},
		{tlsutil.Files{CA: junk}, "no PEM certificate"},
		{tlsutil.Files{CA: filepath.Join(dir, "missing")}, "missing"},
	} {
		if _, err := tlsutil.NewReloader(tc.f); err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.f, err, tc.want)
		}
	}

	cert := filepath.Join(dir, "tls.crt")
	data, _ := os.ReadFile(p.Cert)
	os.WriteFile(cert, data, 0o600)
	r, err := tlsutil.NewReloader(tlsutil.Files{CA: ca.File, Cert: cert, Key: p.Key})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cert, data[:len(data)/2], 0o600) // half written
	time.Sleep(1100 * time.Millisecond)
	c := r.ClientConfig("x", nil)
	got, err := c.GetClientCertificate(nil)
	if err != nil || got == nil || len(got.Certificate) == 0 {
		t.Fatalf("the previous certificate was dropped: %v", err)
	}
	if r.Err() == nil {
		t.Fatal("the failed reload is not reported")
	}
}
