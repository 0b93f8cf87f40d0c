package gofluxion

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// The sentinel errors. Every error the package returns matches exactly one
// of them with errors.Is.
var (
	// ErrBusy: the request would fit the graph, but not at the asked time:
	// what it needs is booked or down. Retrying later can succeed.
	ErrBusy = match.ErrBusy
	// ErrUnsatisfiable: the request would not fit even on an empty graph
	// with every vertex up. Retrying is pointless.
	ErrUnsatisfiable = match.ErrUnsatisfiable
	// ErrInvalid: a bad argument: an invalid jobspec, duration, op, R,
	// option, format name, idset or graph document. An input refused for
	// exceeding one of the Limits also matches ErrLimit, which refines it,
	// as does a Match once the automatic job ids are exhausted.
	ErrInvalid = match.ErrInvalid
	// ErrNotFound: an unknown job, resource path, rank or file.
	ErrNotFound = match.ErrNotFound
	// ErrExists: a job id that is already allocated or reserved.
	ErrExists = errors.New("job id already in use")
	// ErrSnapshot: a snapshot that cannot be read back, or a failure to
	// write one.
	ErrSnapshot = errors.New("bad snapshot")
)

// sentinels lists the sentinels above: an *Error matches only its Kind
// among them, whatever its cause says.
var sentinels = []error{ErrBusy, ErrUnsatisfiable, ErrInvalid, ErrNotFound, ErrExists, ErrSnapshot}

// Error is the error of a failed operation. errors.Is(err, Kind) holds and
// no other sentinel matches. The lower layer's error, when there is one, is
// reachable with errors.As: a *match.Error (with Fluxion's errno and
// message), a *jobspec.Error (with the path of the bad entry), a reader's
// error, or a file system error (which errors.Is also sees, for example
// fs.ErrNotExist).
type Error struct {
	Op   string // the operation: "match", "cancel", "read graph"…
	Kind error  // the sentinel
	Msg  string // what went wrong
	Err  error  // the lower layer's error, or nil
}

func (e *Error) Error() string { return "gofluxion: " + e.Op + ": " + e.Msg }

// Is reports whether target is the error's Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause, seen through a filter that hides the sentinel
// the cause itself would match (a match.Error with errno ENODEV is still
// ErrBusy when the request would fit an empty graph).
func (e *Error) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return cause{e.Err}
}

type cause struct{ err error }

func (c cause) Error() string { return c.err.Error() }

func (c cause) As(target any) bool { return errors.As(c.err, target) }

func (c cause) Is(target error) bool {
	for _, s := range sentinels {
		if target == s {
			return false
		}
	}
	return errors.Is(c.err, target)
}

func newError(op string, kind error, cause error, format string, args ...any) *Error {
	return &Error{Op: op, Kind: kind, Msg: fmt.Sprintf(format, args...), Err: cause}
}

func invalidf(op, format string, args ...any) *Error {
	return newError(op, ErrInvalid, nil, format, args...)
}

// describe turns a Fluxion message (possibly several lines, each ending
// in "\n" or ".") into one Go-style clause, without the "op: " prefix
// the *Error of op already has.
func describe(op, msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "ERROR: ")
		l = strings.TrimPrefix(l, op+": ")
		l = strings.TrimSuffix(l, ".")
		if l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// fromMatch converts a lower layer's error into an *Error of operation op.
// A *match.Error's errno picks the sentinel: EBUSY ErrBusy, ENODEV
// ErrUnsatisfiable, ENOENT ErrNotFound (ErrUnsatisfiable for a match),
// EEXIST ErrExists, anything else ErrInvalid. Other errors (readers',
// jobspecs') are ErrInvalid.
func fromMatch(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	var me *match.Error
	if !errors.As(err, &me) {
		var je *jobspec.Error
		if errors.As(err, &je) {
			return newError(op, ErrInvalid, err, "invalid jobspec: %s", je.Detail())
		}
		if errors.Is(err, fs.ErrNotExist) {
			return newError(op, ErrNotFound, err, "%v", err)
		}
		kind := ErrInvalid
		for _, s := range sentinels {
			if errors.Is(err, s) {
				kind = s
				break
			}
		}
		msg := strings.TrimPrefix(err.Error(), "gofluxion: ")
		if errors.Is(err, ErrLimit) {
			msg = rootLimitNames.Replace(msg)
		}
		return newError(op, kind, err, "%s", strings.TrimPrefix(msg, op+": "))
	}
	kind, what := ErrInvalid, "invalid argument"
	switch me.Errno {
	case match.EBUSY:
		kind, what = ErrBusy, "resources busy"
	case match.ENODEV:
		kind, what = ErrUnsatisfiable, "the request can never be satisfied by this graph"
	case match.ENOENT:
		kind, what = ErrNotFound, "not found"
		if me.Op == "match" {
			kind, what = ErrUnsatisfiable, "the request can never be satisfied by this graph"
		}
	case match.EEXIST:
		kind, what = ErrExists, "already exists"
	case match.ENOMEM:
		what = "too large"
	case match.ENOTSUP, match.ENOSYS:
		what = "not supported"
	}
	if d := describe(op, me.Msg); d != "" {
		what = d
	}
	return newError(op, kind, err, "%s", what)
}

// relabel returns err with its operation renamed to op when it is an
// *Error (such as NewWriter's, reported by another operation).
func relabel(err error, op string) error {
	if e, ok := err.(*Error); ok {
		c := *e
		c.Op = op
		return &c
	}
	return fromMatch(op, err)
}
