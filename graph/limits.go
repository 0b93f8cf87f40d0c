package graph

import "errors"

// ErrLimit is wrapped by the errors of readers (grug, hwloc, rv1) that
// refuse a document for exceeding one of their ReadLimits.
var ErrLimit = errors.New("limit exceeded")

// Defaults of ReadLimits (and of gofluxion.Limits). They are above the
// largest machines and benchmark clusters and far below what exhausts a
// server's memory: a graph costs about 400 bytes per vertex, and a
// Matcher about 250 more, so DefaultMaxVertices vertices take some 5.5 GB.
const (
	// DefaultMaxInputBytes bounds one input document: 1 GiB.
	DefaultMaxInputBytes = 1 << 30
	// DefaultMaxVertices bounds the vertices a reader creates: 8,388,608,
	// twice the 65,536-node × 64-core benchmark cluster (4,259,841
	// vertices) and some eight times the largest machines of today
	// (10,000 nodes of 100 vertices each is 1,000,000).
	DefaultMaxVertices = 1 << 23
	// DefaultMaxDepth bounds nesting: the depth of a graph a reader
	// builds and the nesting of an input (hwloc objects, a GRUG recipe's
	// generation walk, parentheses of a find expression). Real topologies
	// are under 30 deep.
	DefaultMaxDepth = 256
	// DefaultMaxPathBytes bounds the total length of the vertex paths a
	// reader builds: 1 GiB, 128 bytes a vertex at DefaultMaxVertices
	// (real paths such as /cluster0/rack3/node123/socket1/core17 are
	// under 100). Paths repeat every ancestor's name, so without this
	// bound deep graphs or long names cost memory quadratic in the input.
	DefaultMaxPathBytes = 1 << 30
)

// ReadLimits bound what a reader may build from one document, so that a
// small hostile document gets a clear error instead of exhausting memory
// or time. A zero field takes its default (DefaultMaxVertices, ...);
// negative values are treated as zero.
type ReadLimits struct {
	// MaxInputBytes bounds the size of the document (ReadFile functions
	// stop reading there).
	MaxInputBytes int64
	// MaxVertices bounds the vertices created (GRUG also counts, against
	// it, the vertex pairs its ASSOCIATE edges examine; hwloc counts every
	// object of the document, kept or not).
	MaxVertices int
	// MaxDepth bounds the depth of the graph built and the nesting of the
	// document (hwloc objects, a GRUG recipe's generation walk).
	MaxDepth int
	// MaxPathBytes bounds the total length of the vertex paths built.
	MaxPathBytes int64
}

// WithDefaults returns l with every zero (or negative) field set to its
// default.
func (l ReadLimits) WithDefaults() ReadLimits {
	if l.MaxInputBytes <= 0 {
		l.MaxInputBytes = DefaultMaxInputBytes
	}
	if l.MaxVertices <= 0 {
		l.MaxVertices = DefaultMaxVertices
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxPathBytes <= 0 {
		l.MaxPathBytes = DefaultMaxPathBytes
	}
	return l
}
