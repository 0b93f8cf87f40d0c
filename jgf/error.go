package jgf

import (
	"strconv"
	"strings"
)

// Error is the error returned by every failing function of this package's
// reader (Parse, Load, Read, ReadFile).
type Error struct {
	// Node is the index of the JGF node the error is about, or -1.
	Node int
	// NodeID is the outer "id" of that node, when it has one.
	NodeID string
	// Edge is the index of the JGF edge the error is about, or -1.
	Edge int
	// Line and Column locate a JSON syntax error (jansson conventions:
	// lines from 1, columns from 0 at the start of a line); 0 otherwise.
	Line, Column int
	// Reason describes the problem.
	Reason string
	// Crash reports that Fluxion does not report this failure cleanly:
	// it aborts with an uncaught exception (a property value that is not a
	// string, an integer out of the 64-bit range). Fluxion() then returns
	// a text in Fluxion's style that Fluxion itself never prints.
	Crash bool
	// Strict reports an error of the strict reader only (see
	// Options.Fluxion): Fluxion accepts the document. Fluxion() then
	// returns a text in Fluxion's style that Fluxion never prints.
	Strict bool

	fluxion string
	err     error
}

// Error returns a message naming the node (index and id), the edge index
// or the JSON position the problem was found at.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("jgf: ")
	switch {
	case e.Node >= 0:
		b.WriteString("node ")
		b.WriteString(strconv.Itoa(e.Node))
		if e.NodeID != "" {
			b.WriteString(" (id ")
			b.WriteString(strconv.Quote(e.NodeID))
			b.WriteString(")")
		}
		b.WriteString(": ")
	case e.Edge >= 0:
		b.WriteString("edge ")
		b.WriteString(strconv.Itoa(e.Edge))
		b.WriteString(": ")
	case e.Line > 0:
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(", column ")
		b.WriteString(strconv.Itoa(e.Column))
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Fluxion returns the text Fluxion's JGF reader reports for the same
// failure, exactly (including the trailing newline where Fluxion has one;
// the duplicate out-edge error has none), e.g.
// "fill_fetcher: malformed metadata in an JGF node for 1\n".
func (e *Error) Fluxion() string { return e.fluxion }

// Unwrap returns the underlying error: a file system error from ReadFile,
// or ErrLimit when the document exceeds a limit of the reader's Options.
func (e *Error) Unwrap() error { return e.err }

func docErr(reason, fluxion string) *Error {
	return &Error{Node: -1, Edge: -1, Reason: reason, fluxion: fluxion}
}

func nodeErr(i int, id, reason, fluxion string) *Error {
	return &Error{Node: i, NodeID: id, Edge: -1, Reason: reason, fluxion: fluxion}
}

func edgeErr(i int, reason, fluxion string) *Error {
	return &Error{Node: -1, Edge: i, Reason: reason, fluxion: fluxion}
}

// strictNodeErr is a node error of the strict reader only.
func strictNodeErr(i int, id, reason, fluxion string) *Error {
	e := nodeErr(i, id, reason, fluxion)
	e.Strict = true
	return e
}

// strictEdgeErr is an edge error of the strict reader only.
func strictEdgeErr(i int, reason, fluxion string) *Error {
	e := edgeErr(i, reason, fluxion)
	e.Strict = true
	return e
}
