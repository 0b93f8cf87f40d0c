package server

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion/service/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// Role is what a client may do. Each role includes the ones below it:
// admin ⊃ scheduler ⊃ reader.
type Role int

const (
	// RoleNone may do nothing.
	RoleNone Role = iota
	// RoleReader may query (Query, Cluster).
	RoleReader
	// RoleScheduler may also match, cancel, partially cancel, update and
	// set the status of vertices and ranks.
	RoleScheduler
	// RoleAdmin may also change the graph (attach, remove, remove
	// ranks), download the state (Snapshot) and change the membership
	// (Join, Leave). Replicas need it to talk to each other.
	RoleAdmin
)

func (r Role) String() string {
	switch r {
	case RoleReader:
		return "reader"
	case RoleScheduler:
		return "scheduler"
	case RoleAdmin:
		return "admin"
	}
	return "none"
}

func parseRole(s string) (Role, bool) {
	switch s {
	case "reader":
		return RoleReader, true
	case "scheduler":
		return RoleScheduler, true
	case "admin":
		return RoleAdmin, true
	}
	return RoleNone, false
}

// requiredRole is the role a call needs: by method, and for Apply by the
// operation's kind. Anything unknown needs admin.
func requiredRole(method string, req any) Role {
	switch method {
	case pb.Matcher_Query_FullMethodName, pb.Matcher_Cluster_FullMethodName:
		return RoleReader
	case pb.Matcher_Apply_FullMethodName:
		op, _ := req.(*pb.Op)
		switch op.GetKind().(type) {
		case *pb.Op_Match, *pb.Op_Cancel, *pb.Op_PartialCancel, *pb.Op_Update, *pb.Op_SetStatus, *pb.Op_SetRankStatus:
			return RoleScheduler
		}
	}
	return RoleAdmin
}

// Roles maps client identities to roles. The file format, one grant a
// line ('#' starts a comment):
//
//	ROLE cert NAME           a client certificate (verified by -ca) whose
//	                         Subject Common Name, a DNS name or a URI SAN
//	                         is NAME
//	ROLE token SECRET        a bearer token (header "authorization:
//	                         Bearer SECRET")
//	ROLE token-sha256 HEX    a bearer token given by its SHA-256, so that
//	                         the file holds no secret
//
// with ROLE one of admin, scheduler, reader. A client with several grants
// gets the highest.
type Roles struct {
	certs  map[string]Role
	tokens map[[32]byte]Role
}

// ParseRoles parses a roles file's content; name is for errors.
func ParseRoles(name string, data []byte) (*Roles, error) {
	rs := &Roles{certs: map[string]Role{}, tokens: map[[32]byte]Role{}}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, 64<<10)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want ROLE KIND VALUE, got %d fields", name, line, len(f))
		}
		role, ok := parseRole(f[0])
		if !ok {
			return nil, fmt.Errorf("%s:%d: unknown role %q (admin, scheduler or reader)", name, line, f[0])
		}
		switch f[1] {
		case "cert":
			rs.certs[f[2]] = max(rs.certs[f[2]], role)
		case "token":
			h := sha256.Sum256([]byte(f[2]))
			rs.tokens[h] = max(rs.tokens[h], role)
		case "token-sha256":
			b, err := hex.DecodeString(f[2])
			if err != nil || len(b) != 32 {
				return nil, fmt.Errorf("%s:%d: token-sha256 needs 64 hexadecimal digits", name, line)
			}
			h := [32]byte(b)
			rs.tokens[h] = max(rs.tokens[h], role)
		default:
			return nil, fmt.Errorf("%s:%d: unknown kind %q (cert, token or token-sha256)", name, line, f[1])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rs, nil
}

// certIdentities are the names a certificate is known by in a roles file.
func certIdentities(c *x509.Certificate) []string {
	out := []string{}
	if c.Subject.CommonName != "" {
		out = append(out, c.Subject.CommonName)
	}
	out = append(out, c.DNSNames...)
	for _, u := range c.URIs {
		out = append(out, u.String())
	}
	return out
}

func (rs *Roles) certRole(c *x509.Certificate) Role {
	r := RoleNone
	for _, id := range certIdentities(c) {
		r = max(r, rs.certs[id])
	}
	return r
}

func (rs *Roles) tokenRole(tok string) Role {
	h := sha256.Sum256([]byte(tok))
	r := RoleNone
	// Constant time over the table: no early exit on a match.
	for k, v := range rs.tokens {
		if subtle.ConstantTimeCompare(k[:], h[:]) == 1 {
			r = max(r, v)
		}
	}
	return r
}

// Authorizer decides who may call what. With a roles file, clients get
// the roles it grants; without one but with a client CA, every
// certificate the CA verifies is admin; with neither, every call is
// allowed (development on loopback, or -insecure).
type Authorizer struct {
	file    string
	certsOK bool // a CA verifies client certificates
	mu      sync.Mutex
	roles   *Roles
	stamp   string
	next    time.Time
	err     error
}

// NewAuthorizer loads the roles file (if any). clientCA says whether
// client certificates are verified.
func NewAuthorizer(rolesFile string, clientCA bool) (*Authorizer, error) {
	a := &Authorizer{file: rolesFile, certsOK: clientCA}
	if rolesFile != "" {
		if err := a.load(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func fileStamp(name string) string {
	fi, err := os.Stat(name)
	if err != nil {
		return "missing"
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}

func (a *Authorizer) load() error {
	st := fileStamp(a.file)
	data, err := os.ReadFile(a.file)
	if err != nil {
		return fmt.Errorf("roles: %w", err)
	}
	rs, err := ParseRoles(a.file, data)
	if err != nil {
		return fmt.Errorf("roles: %w", err)
	}
	a.roles, a.stamp = rs, st
	return nil
}

// current returns the roles, reloading the file when it changed (a file
// that does not parse keeps the previous roles).
func (a *Authorizer) current() *Roles {
	a.mu.Lock()
	defer a.mu.Unlock()
	if now := time.Now(); now.After(a.next) {
		a.next = now.Add(time.Second)
		if fileStamp(a.file) != a.stamp {
			a.err = a.load()
		}
	}
	return a.roles
}

// Open reports whether every call is allowed (no credentials configured).
func (a *Authorizer) Open() bool { return a.file == "" && !a.certsOK }

// CertRole is the role of a verified certificate.
func (a *Authorizer) CertRole(c *x509.Certificate) Role {
	if a.file == "" {
		if a.certsOK {
			return RoleAdmin
		}
		return RoleNone
	}
	return a.current().certRole(c)
}

// role is the caller's role and whether it presented any credential.
func (a *Authorizer) role(ctx context.Context) (Role, bool) {
	r, presented := RoleNone, false
	if p, ok := peer.FromContext(ctx); ok {
		if ti, ok := p.AuthInfo.(credentials.TLSInfo); ok && len(ti.State.VerifiedChains) > 0 && len(ti.State.VerifiedChains[0]) > 0 {
			presented = true
			r = max(r, a.CertRole(ti.State.VerifiedChains[0][0]))
		}
	}
	if md, ok := metadata.FromIncomingContext(ctx); ok && a.file != "" {
		for _, v := range md.Get("authorization") {
			if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
				presented = true
				r = max(r, a.current().tokenRole(tok))
			}
		}
	}
	return r, presented
}

// check returns nil when the caller may make the call, else
// Unauthenticated (no credential) or PermissionDenied (a role too low).
func (a *Authorizer) check(ctx context.Context, method string, req any) error {
	if a == nil || a.Open() {
		return nil
	}
	need := requiredRole(method, req)
	have, presented := a.role(ctx)
	if have >= need {
		return nil
	}
	name := method[strings.LastIndexByte(method, '/')+1:]
	if op, ok := req.(*pb.Op); ok {
		name += " " + opKind(op)
	}
	if !presented {
		return status.Errorf(codes.Unauthenticated, "%s needs the %s role: no client certificate or bearer token", name, need)
	}
	return status.Errorf(codes.PermissionDenied, "%s needs the %s role; the caller has %s", name, need, have)
}

// UnaryInterceptor checks every unary call.
func (a *Authorizer) UnaryInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if err := a.check(ctx, info.FullMethod, req); err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

// StreamInterceptor checks every streaming call (they are all admin or
// reader calls: the role does not depend on the request).
func (a *Authorizer) StreamInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if err := a.check(ss.Context(), info.FullMethod, nil); err != nil {
			return err
		}
		return h(srv, ss)
	}
}

// Check reloads the roles file if it changed and returns the error of
// the last reload (nil if it worked).
func (a *Authorizer) Check() error {
	if a.file == "" {
		return nil
	}
	a.current()
	return a.Err()
}

// Err is the error of the last roles reload that failed (nil if it
// worked).
func (a *Authorizer) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}
