package fluxcli

import (
	"errors"
	"strings"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
)

// Sentinel errors for errors.Is. Every error a ReapiClient method returns
// is an *Error, which matches the sentinel of its errno.
var (
	// ErrBusy (EBUSY): the request fits the graph but not now.
	ErrBusy = match.ErrBusy
	// ErrUnsatisfiable (ENODEV): the request can never be met by the graph.
	ErrUnsatisfiable = match.ErrUnsatisfiable
	// ErrInvalid (EINVAL, EOVERFLOW, ERANGE, EPROTO): a bad argument,
	// jobspec, R, option or graph document.
	ErrInvalid = match.ErrInvalid
	// ErrNotFound (ENOENT): an unknown job, path or rank.
	ErrNotFound = match.ErrNotFound
	// ErrExists (EEXIST): a job id that is already allocated or reserved.
	ErrExists = gofluxion.ErrExists
	// ErrNotSupported (ENOTSUP): the operation is not available for the
	// context's configuration (an update in a load format whose reader
	// cannot read R).
	ErrNotSupported = errors.New("operation not supported")
	// ErrNoContext: the client has no context (the zero ReapiClient, a nil
	// *ReapiClient, or a client after Destroy).
	ErrNoContext = errors.New("fluxcli: no resource API context (use NewReapiClient)")
	// ErrNotInitialized: the context has no resource graph yet (call
	// InitContext first).
	ErrNotInitialized = errors.New("fluxcli: resource API context not initialized (call InitContext)")
)

// Error is the error of a failed ReapiClient call.
type Error struct {
	// Op names the operation as Fluxion's C API does: "initialize",
	// "match_allocate", "match_satisfy", "update_allocate", "cancel",
	// "partial_cancel", "info", "stat", "find", "set_status", "get_status",
	// "set_rank_status", "get_rank_status", "add_subgraph",
	// "remove_subgraph", "clone".
	Op string
	// Errno is the errno Fluxion reports (EBUSY, ENODEV, EINVAL, ENOENT,
	// EEXIST, EOVERFLOW, EPROTO, ...).
	Errno match.Errno
	// Msg is the text this call added to the client's error message
	// (GetErrMsg), in Fluxion's wording; it may be empty.
	Msg string
	// Err is the underlying error, if any: a *match.Error, a
	// *jobspec.Error, a reader error (*jgf.Error, *rv1.Error, *grug.Error,
	// ...) or one of ErrNoContext and ErrNotInitialized.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("fluxcli: ")
	switch {
	case e.Msg != "":
		b.WriteString(oneLine(e.Msg))
		b.WriteString(" (")
		b.WriteString(e.Errno.String())
		b.WriteString(")")
	case e.Err != nil:
		b.WriteString(e.Op)
		b.WriteString(": ")
		b.WriteString(strings.TrimPrefix(e.Err.Error(), "fluxcli: "))
	default:
		b.WriteString(e.Op)
		b.WriteString(": ")
		b.WriteString(e.Errno.String())
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is maps the errno onto the sentinel errors (ErrBusy, ErrUnsatisfiable,
// ErrInvalid, ErrNotFound, ErrExists, ErrNotSupported).
func (e *Error) Is(target error) bool {
	switch target {
	case ErrBusy:
		return e.Errno == match.EBUSY
	case ErrUnsatisfiable:
		return e.Errno == match.ENODEV || (e.Errno == match.ENOENT && isMatchOp(e.Op))
	case ErrInvalid:
		switch e.Errno {
		case match.EINVAL, match.EOVERFLOW, match.ERANGE, match.EPROTO:
			return true
		}
	case ErrNotFound:
		return e.Errno == match.ENOENT && !isMatchOp(e.Op)
	case ErrExists:
		return e.Errno == match.EEXIST
	case ErrNotSupported:
		return e.Errno == match.ENOTSUP || e.Errno == match.ENOSYS
	}
	return false
}

func isMatchOp(op string) bool { return op == "match_allocate" || op == "match_satisfy" }

// oneLine joins the lines of an accumulated message with "; ".
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

// errnoOf returns the errno carried by err (EINVAL if none).
func errnoOf(err error) match.Errno {
	var me *match.Error
	if errors.As(err, &me) && me.Errno != 0 {
		return me.Errno
	}
	return match.EINVAL
}

// fluxionText returns the text Fluxion's reader or traverser reports for
// err, ending in a newline where Fluxion's does ("" for a traverser error
// without a message).
func fluxionText(err error) string {
	var me *match.Error
	if errors.As(err, &me) {
		return me.Msg
	}
	var je *jgf.Error
	if errors.As(err, &je) {
		return je.Fluxion()
	}
	var fe interface{ Fluxion() string }
	if errors.As(err, &fe) {
		if s := fe.Fluxion(); s != "" {
			return s
		}
	}
	return err.Error() + "\n"
}

// readerText is the reader error text as resource-query prints it after
// "resource_query_t: ERROR: " (no trailing newline).
func readerText(err error) string {
	var fe interface{ Fluxion() string }
	if errors.As(err, &fe) {
		if s := strings.TrimSuffix(fe.Fluxion(), "\n"); s != "" {
			return s
		}
	}
	return err.Error()
}
