package jgf

import (
	"os"
	"strconv"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/boundedio"
)

// Defaults of the reader's limits: those of graph.ReadLimits, which the
// other readers use (far above any real machine, far below what exhausts
// a server).
const (
	// DefaultMaxInputBytes bounds one JGF document: 1 GiB.
	DefaultMaxInputBytes = graph.DefaultMaxInputBytes
	// DefaultMaxVertices bounds the vertices one document may create and
	// the nodes it may list: 8,388,608 (the 65,536×64 benchmark cluster
	// has 4,259,841 vertices; its JGF document is about 780 MB).
	DefaultMaxVertices = graph.DefaultMaxVertices
)

// ErrLimit is wrapped by the *Error a reader returns when a document
// exceeds one of the limits of its Options (errors.Is(err, jgf.ErrLimit)).
// It is graph.ErrLimit, which the other readers' limit errors wrap too.
var ErrLimit = graph.ErrLimit

// Limits returns options with the limits of l (its MaxInputBytes and
// MaxVertices; the JGF reader needs no depth or path limit: what it builds
// is linear in the document, and nothing recurses on it).
func Limits(l graph.ReadLimits) Options {
	return Options{MaxInputBytes: l.MaxInputBytes, MaxVertices: l.MaxVertices}
}

// Options configure the reader. The zero value is the library's default:
// strict, with the default limits. Package-level Read, ReadFile and Parse
// use it.
type Options struct {
	// Fluxion makes the reader accept every document Fluxion's reader
	// accepts, quirks included (resource-query uses it): a size that is
	// negative or does not fit in 32 bits wraps to an unsigned 32-bit
	// number, and self-loops, cycles, vertices with two containment
	// parents or none, type clashes and repeated node ranks are loaded as
	// given.
	//
	// The default (strict) reader rejects them, with an *Error naming the
	// node and field or the edge:
	//   - a "size" other than the sentinel -1 outside [0, 2^32);
	//   - an edge from a vertex to itself (any subsystem);
	//   - a second containment edge into a vertex (a vertex has one
	//     parent in the containment tree; attaching counts the edges the
	//     graph already has);
	//   - a cycle in any subsystem, through the edges this document adds;
	//   - a new vertex with a containment path that is neither the root
	//     nor any vertex's containment child;
	//   - a vertex reused by path and rank but given another type;
	//   - in Load (attach): a new node-type vertex with the rank of
	//     another node-type vertex.
	// Such errors have Strict set; in every other respect both readers
	// agree, error texts included, except for two-way edge lists.
	//
	// Two-way edge lists: older Flux writers (and fluxion-go's test data)
	// list each containment edge twice, parent to child and child to
	// parent (relation "in", or none). Fluxion loads both edges; the
	// strict reader skips a containment edge from a vertex to its parent
	// by path (the target's containment path is the source's without its
	// last element) and checks at the end that the downward edge is there
	// too, so it builds the tree the document describes. Fluxion's matches
	// on the two-way graph and on that tree were the same in our checks
	// (every policy, allocate and reserve); the pruning filters of leaf
	// types may differ (Fluxion counts a vertex with an upward edge as no
	// leaf), and with them visit counts.
	Fluxion bool

	// MaxInputBytes bounds the size of a document in bytes (ReadFile stops
	// reading past it). 0 or negative means DefaultMaxInputBytes.
	MaxInputBytes int64
	// MaxVertices bounds the nodes a document may list and the vertices
	// one read or load may create. 0 or negative means
	// DefaultMaxVertices.
	MaxVertices int
}

func (o Options) maxInput() int64 {
	if o.MaxInputBytes <= 0 {
		return DefaultMaxInputBytes
	}
	return o.MaxInputBytes
}

func (o Options) maxVertices() int {
	if o.MaxVertices <= 0 {
		return DefaultMaxVertices
	}
	return o.MaxVertices
}

// inputLimitErr is the error for a document of n bytes (or more) over the
// limit.
func (o Options) inputLimitErr(n int64, atLeast bool) *Error {
	more := ""
	if atLeast {
		more = "more than "
	}
	max := strconv.FormatInt(o.maxInput(), 10)
	e := docErr("the document has "+more+strconv.FormatInt(n, 10)+" bytes, over the limit of "+max+" (Options.MaxInputBytes)",
		"fetch_jgf: the JGF document exceeds the reader's limit of "+max+" bytes.\n")
	e.err = ErrLimit
	return e
}

func (o Options) nodesLimitErr(i int, id string) *Error {
	max := strconv.Itoa(o.maxVertices())
	e := nodeErr(i, id, "the document lists more than "+max+" nodes (Options.MaxVertices)",
		"fill_fetcher: the JGF document lists more than "+max+" nodes.\n")
	e.err = ErrLimit
	return e
}

func (o Options) verticesLimitErr(i int, id string) *Error {
	max := strconv.Itoa(o.maxVertices())
	e := nodeErr(i, id, "creating this vertex exceeds the limit of "+max+" new vertices (Options.MaxVertices)",
		"add_vtx: the JGF document creates more than "+max+" vertices.\n")
	e.err = ErrLimit
	return e
}

// readFile reads path, but at most one byte past the input limit.
func (o Options) readFile(path string) ([]byte, *Error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileErr(err)
	}
	defer f.Close()
	max := o.maxInput()
	size := int64(512)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > max {
			return nil, o.inputLimitErr(st.Size(), false)
		}
		size += st.Size()
	}
	data, err := boundedio.ReadAll(f, size, max)
	if err != nil {
		return nil, fileErr(err)
	}
	if int64(len(data)) > max {
		return nil, o.inputLimitErr(int64(len(data)), true)
	}
	return data, nil
}

func fileErr(err error) *Error {
	return &Error{Node: -1, Edge: -1, Reason: err.Error(), fluxion: fluxJSON + "'[' or '{' expected near end of file: <string>@1:0.\n", err: err}
}
