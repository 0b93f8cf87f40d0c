package wire

import (
	"errors"

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
