package grug

import (
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
)

// Texts Fluxion's GRUG reader puts into its error message.
const (
	fluxionReadError     = "error in reading grug string; "
	fluxionUnknownMethod = "unknown generation method; "
)

// Error is the error returned by every failing function of this package.
type Error struct {
	// Line is the 1-based line of the input the error refers to, or 0 when
	// it is not known.
	Line int
	// Reason describes the problem.
	Reason string

	fluxion string
	err     error
}

// Unwrap returns the underlying error (for example a file system error from
// ReadFile), if any.
func (e *Error) Unwrap() error { return e.err }

// Error returns "grug: line N: reason", or "grug: reason" without a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return "grug: line " + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return "grug: " + e.Reason
}

// Fluxion returns the reader error text Fluxion reports for the same
// failure (resource-query prints it after "resource_query_t: ERROR: "):
// "error in reading grug string; " for a document that cannot be read
// (malformed XML or GraphML, bad keys or values), and "unknown generation
// method; " once per recipe tree edge with an unknown gen_method.
//
// Failures that Fluxion does not diagnose (it would crash, e.g. an id
// computation dividing by zero) also report "error in reading grug
// string; ".
func (e *Error) Fluxion() string {
	if e.fluxion == "" {
		return fluxionReadError
	}
	return e.fluxion
}

func readErr(line int, reason string) *Error {
	return &Error{Line: line, Reason: reason, fluxion: fluxionReadError}
}

// limitErr is the error for a recipe that exceeds a graph.ReadLimits
// limit (errors.Is(err, graph.ErrLimit)).
func limitErr(line int, reason string) *Error {
	return &Error{Line: line, Reason: reason, fluxion: fluxionReadError, err: graph.ErrLimit}
}
