package wire

import (
	"errors"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/service/pb"
)

// kinds maps the error kinds of pb.Error to the library's sentinels.
var kinds = []struct {
	kind string
	err  error
}{
	{"busy", gofluxion.ErrBusy},
	{"unsatisfiable", gofluxion.ErrUnsatisfiable},
	{"invalid", gofluxion.ErrInvalid},
	{"not_found", gofluxion.ErrNotFound},
	{"exists", gofluxion.ErrExists},
	{"snapshot", gofluxion.ErrSnapshot},
}

// ToPB turns an error of the library into its wire form (nil for nil).
func ToPB(err error) *pb.Error {
	if err == nil {
		return nil
	}
	e := &pb.Error{Message: err.Error()}
	var ge *gofluxion.Error
	if errors.As(err, &ge) {
		e.Op, e.Msg = ge.Op, ge.Msg
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			e.Kind = k.kind
			break
		}
	}
	return e
}

// Error is an error of a remote matcher: its message, and the sentinel it
// wraps on the server, so errors.Is works as with a local Matcher.
type Error struct {
	Msg      string
	Sentinel error // nil when the server's error wrapped none
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Sentinel }

// FromPB turns a wire error back into an error (nil for nil): the
// *gofluxion.Error the server had (without its lower-layer cause), or an
// *Error wrapping the sentinel of its kind.
func FromPB(e *pb.Error) error {
	if e == nil {
		return nil
	}
	var sentinel error
	for _, k := range kinds {
		if k.kind == e.Kind {
			sentinel = k.err
		}
	}
	if e.Op != "" && sentinel != nil {
		return &gofluxion.Error{Op: e.Op, Kind: sentinel, Msg: e.Msg}
	}
	return &Error{Msg: e.Message, Sentinel: sentinel}
}

// RetryWindow is how long after the first attempt of an operation a
// client may still retry it. The state machine refuses a retry it cannot
// answer when a session was evicted within that window (the retry may
// belong to it); clients stop retrying before, at RetryWindow/2, leaving
// the other half for clock differences between successive leaders.
const RetryWindow = 10 * time.Minute

// ErrOutcomeUnknown is the error of an operation whose retry the server
// refused because the session that could tell whether its first attempt
// was applied is gone: the operation may or may not have been applied.
var ErrOutcomeUnknown = errors.New("outcome unknown: the server no longer knows whether this retried operation was applied; check with Info")

// OutcomeUnknownReason is the ErrorInfo reason of the gRPC status
// (FAILED_PRECONDITION) that carries ErrOutcomeUnknown.
const OutcomeUnknownReason = "OUTCOME_UNKNOWN"

// RequestBytesHeader is the metadata key in which a client declares the
// size of its request message, so that the server reserves that much of
// its budget of request bytes in flight instead of the largest message.
const RequestBytesHeader = "gofluxion-request-bytes"
