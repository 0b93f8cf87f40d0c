package hwloc

import (
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
)

// Error is the error returned by every failing function of this package.
type Error struct {
	// Line is the 1-based line of the input the error refers to, or 0 when
	// it is not known.
	Line int
	// Reason describes the problem.
	Reason string

	err error
}

// Error returns "hwloc: line N: reason", or "hwloc: reason" without a line.
func (e *Error) Error() string {
	if e.Line > 0 {
		return "hwloc: line " + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return "hwloc: " + e.Reason
}

// Unwrap returns the underlying error (for example an *xml.SyntaxError),
// if any.
func (e *Error) Unwrap() error { return e.err }

func errAt(line int, reason string) *Error { return &Error{Line: line, Reason: reason} }

// limitErr is the error for a document that exceeds a graph.ReadLimits
// limit (errors.Is(err, graph.ErrLimit)).
func limitErr(line int, reason string) *Error {
	return &Error{Line: line, Reason: reason, err: graph.ErrLimit}
}
