package gofluxion

import (
	"io"

	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/picture"
)

// Interface is what callers use of a matcher. The in-process *Matcher
// implements it, and so does the client of the matcher service (module
// github.com/gofluxion/gofluxion/service, package client), so a caller
// switches between a matcher in its own process, one in another process
// and a replicated one by changing the constructor:
//
//	var m gofluxion.Interface
//	m, err = gofluxion.New(g, gofluxion.Options{})                 // in process
//	m, err = client.Dial([]string{"a:7070", "b:7070", "c:7070"}) // remote (service/client)
//
// (client.Dial(addrs []string, opts ...client.Options) returns a
// *client.Client, which implements Interface.)
//
// Operations take their time as a parameter (seconds), so the same calls
// in the same order give the same decisions wherever the matcher runs.
// Callers that also want Attach, Remove, Stat, Clone and the rest of the
// Matcher's methods use *Matcher directly.
type Interface interface {
	// ParseJobspec parses a canonical jobspec (YAML or JSON) against the
	// matcher's graph.
	ParseJobspec(data []byte) (*jobspec.Jobspec, error)
	// Match runs op for js at time at with an automatic job id.
	Match(op Op, js *jobspec.Jobspec, at int64) (*Allocation, error)
	// MatchWithID is Match with a caller-chosen job id.
	MatchWithID(op Op, js *jobspec.Jobspec, id uint64, at int64) (*Allocation, error)
	// Satisfiable reports whether js could ever be allocated.
	Satisfiable(js *jobspec.Jobspec) error
	// Explain says per level of js why it does (not) fit at time at.
	Explain(js *jobspec.Jobspec, at int64) (*Explanation, error)
	// Cancel releases everything job id holds.
	Cancel(id uint64) error
	// PartialCancel releases the part of job id that R lists.
	PartialCancel(id uint64, R []byte) (full bool, err error)
	// Update books an allocation made elsewhere, given as an R.
	Update(id uint64, R []byte) (*Allocation, error)
	// Info returns the job table entry of id.
	Info(id uint64) (Job, error)
	// JobTable returns the job table in ascending id order (Jobs, with
	// the error a remote matcher can meet).
	JobTable() ([]Job, error)
	// FindAt renders the vertices that satisfy a find criteria expression.
	FindAt(criteria, format string, now int64) (string, error)
	// Status reports whether the vertex at path is up.
	Status(path string) (up bool, err error)
	// SetStatus marks the vertices at path up or down.
	SetStatus(path string, up bool) error
	// Snapshot writes the complete state, for Restore.
	Snapshot(w io.Writer) error
	// UsageAt reports how the units of each type are used at time at
	// (Matcher.Usage).
	UsageAt(at int64) ([]Usage, error)
	// WriteDOT draws the graph with each vertex's state at opts.At
	// (package picture; opts.Schedule is the matcher's own).
	WriteDOT(w io.Writer, opts picture.Options) error
}

var _ Interface = (*Matcher)(nil)

// JobTable returns Jobs and a nil error: it is Jobs for Interface, whose
// remote implementations can fail to read the table.
func (x *Matcher) JobTable() ([]Job, error) { return x.Jobs(), nil }
