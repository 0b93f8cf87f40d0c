package gofluxion

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/hwloc"
	"github.com/gofluxion/gofluxion/internal/idset"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/rv1"
)

// ErrLimit is wrapped by every error that refuses an input for exceeding
// one of the Limits (together with ErrInvalid for the Matcher's
// arguments), and by Match's error once job id 2^64-1 was used (the
// automatic ids are exhausted).
var ErrLimit = graph.ErrLimit

// Limits bound every input of the package, so that a small hostile input
// (a 5 KB recipe asking for 10^8 cores, a rank set of 2^63 ranks, a find
// expression of a million parentheses) is a clear error wrapping ErrLimit
// that changes nothing, instead of exhausting memory or the stack. The
// zero value selects the defaults, and so does a zero (or negative) field.
// The defaults are far above any real machine and far below what a
// server's memory holds: a graph costs about 400 bytes a vertex, a Matcher
// about 250 more, so 8,388,608 vertices take some 5.5 GB.
//
// Set them in Options.Limits for a Matcher, or call ReadGraph and
// ReadGraphFile on a Limits value. resource-query and reapi/fluxcli use
// the defaults.
type Limits struct {
	// MaxInputBytes bounds one document (ReadGraph, ReadGraphFile stops
	// reading there, Attach, ParseJobspec, the R of Update and
	// PartialCancel) and one string argument (Find criteria, rank sets). Default 1 GiB (graph.DefaultMaxInputBytes).
	MaxInputBytes int64
	// MaxVertices bounds the vertices a reader creates from one document
	// (ReadGraph, Attach): a GRUG recipe is checked before each
	// generation step allocates, an rv1exec R before anything is built.
	// Default 8,388,608 (graph.DefaultMaxVertices), twice the 65,536-node
	// × 64-core benchmark cluster.
	MaxVertices int
	// MaxDepth bounds nesting: the depth of the graph a GRUG recipe or an
	// hwloc topology describes, and the parentheses of a Find expression
	// (whose parser recurses once per level). Default 256
	// (graph.DefaultMaxDepth); real topologies are under 30 deep.
	MaxDepth int
	// MaxPathBytes bounds the total length of the vertex paths a reader
	// builds from one document (every path repeats its ancestors' names,
	// so long names or deep nesting make it grow faster than the
	// document). Default 1 GiB (graph.DefaultMaxPathBytes), 128 bytes a
	// vertex at the default MaxVertices.
	MaxPathBytes int64
	// MaxRankSet bounds the ranks a rank set given to SetRankStatus or
	// RemoveRanks may name, counted on its ranges (a set is never
	// expanded beyond the graph's ranks). Default: MaxVertices, as no graph
	// can have more ranks than vertices.
	MaxRankSet int64
}

// withDefaults returns l with its defaults filled in.
func (l Limits) withDefaults() Limits {
	r := l.readLimits()
	l.MaxInputBytes, l.MaxVertices, l.MaxDepth, l.MaxPathBytes = r.MaxInputBytes, r.MaxVertices, r.MaxDepth, r.MaxPathBytes
	if l.MaxRankSet <= 0 {
		l.MaxRankSet = int64(l.MaxVertices)
	}
	return l
}

func (l Limits) readLimits() graph.ReadLimits {
	return graph.ReadLimits{MaxInputBytes: l.MaxInputBytes, MaxVertices: l.MaxVertices, MaxDepth: l.MaxDepth, MaxPathBytes: l.MaxPathBytes}.WithDefaults()
}

// argError is a bad argument found below the operation that reports it
// (which wraps it in an *Error with its own prefix): its text is the
// message alone, and it matches ErrInvalid, and ErrLimit when limit.
type argError struct {
	msg   string
	limit bool
}

func (e *argError) Error() string { return e.msg }

func (e *argError) Is(target error) bool {
	return target == ErrInvalid || e.limit && target == ErrLimit
}

// limitError is the error of an argument that exceeds a limit.
func limitError(format string, args ...any) error {
	return &argError{msg: fmt.Sprintf(format, args...), limit: true}
}

// rootLimitNames names, in a reader's limit error seen through the
// package, the field of Limits that sets the limit.
var rootLimitNames = strings.NewReplacer(
	"the limit graph.ReadLimits.", "Limits.",
	"the depth limit graph.ReadLimits.", "Limits.",
	"graph.ReadLimits.", "Limits.",
	"Options.MaxVertices", "Limits.MaxVertices",
	"Options.MaxInputBytes", "Limits.MaxInputBytes",
)

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:61] + "..."
}

// checkInput refuses an argument of n bytes above MaxInputBytes.
func (l Limits) checkInput(what string, n int) error {
	if max := l.withDefaults().MaxInputBytes; int64(n) > max {
		return limitError("%s is %d bytes, more than Limits.MaxInputBytes (%d)", what, n, max)
	}
	return nil
}

// ReadGraph is the package's ReadGraph under the limits l.
func (l Limits) ReadGraph(format string, data []byte, allowlist string) (*graph.Graph, error) {
	g, err := l.readGraph(format, data, allowlist)
	if err != nil {
		return nil, fromMatch("read graph", err)
	}
	return g, nil
}

func (l Limits) readGraph(format string, data []byte, allowlist string) (*graph.Graph, error) {
	rl := l.readLimits()
	if int64(len(data)) > rl.MaxInputBytes {
		return nil, limitError("the %s document is %d bytes, more than Limits.MaxInputBytes (%d)", cmp.Or(format, FormatGRUG), len(data), rl.MaxInputBytes)
	}
	switch format {
	case FormatGRUG, "":
		return grug.ReadLimited(data, rl)
	case FormatJGF, FormatJGFShorthand:
		return jgf.Limits(rl).Read(data)
	case FormatRV1Exec, FormatRV1ExecForce:
		g, err := rv1.ReadExecLimited(data, rl)
		if err != nil {
			return nil, err
		}
		return g, uniqueHosts(g)
	case FormatHwloc:
		return hwloc.ReadLimited(data, allowlist, rl)
	}
	return nil, fmt.Errorf("gofluxion: unknown load format %q (want one of %s)", format, strings.Join(LoadFormats(), ", "))
}

// uniqueHosts refuses an rv1exec graph whose nodelist names a host twice:
// its nodes would share one path, which path lookups (SetStatus, Remove,
// find names=) take for one resource. Fluxion loads it (resource-query
// does too: the conformance corpus has such Rs).
func uniqueHosts(g *graph.Graph) error {
	for _, v := range g.ByType(graph.TypeNode) {
		vx := g.V(v)
		if len(vx.Paths) == 0 {
			continue
		}
		if vs := g.ByPath(vx.Paths[0].Path); len(vs) > 1 && vs[0] == v {
			return &argError{msg: fmt.Sprintf("rv1exec: the nodelist names host %s twice (ranks %d and %d)", vx.Name, vx.Rank, g.V(vs[1]).Rank)}
		}
	}
	return nil
}

// ReadGraphFile is the package's ReadGraphFile under the limits l: it
// reads at most MaxInputBytes of the file.
func (l Limits) ReadGraphFile(path string) (*graph.Graph, error) {
	g, err := l.readGraphFile(path)
	if err != nil {
		return nil, fromMatch("read graph", err)
	}
	return g, nil
}

func (l Limits) readGraphFile(path string) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	max := l.readLimits().MaxInputBytes
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		if _, ok := err.(*os.PathError); !ok { // a file's errors name it already
			err = &os.PathError{Op: "read", Path: path, Err: err}
		}
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, limitError("%s: more than Limits.MaxInputBytes (%d bytes)", path, max)
	}
	format := FormatGRUG
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		format = FormatJGF
	case ".xml":
		format = FormatHwloc
	}
	g, err := l.readGraph(format, data, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// checkAttach refuses a JGF document for Attach that is too large, before
// it is parsed, or that has more nodes than MaxVertices.
func (l Limits) checkAttach(data []byte) (*jgf.Document, error) {
	if err := l.checkInput("the JGF document to attach", len(data)); err != nil {
		return nil, err
	}
	doc, err := jgf.Parse(data)
	if err != nil {
		return nil, err
	}
	if max := l.withDefaults().MaxVertices; len(doc.Nodes) > max {
		return nil, limitError("the JGF document to attach has %d nodes, more than Limits.MaxVertices (%d)", len(doc.Nodes), max)
	}
	return doc, nil
}

// checkFind refuses find criteria that are too long or nest parentheses
// too deep, before the recursive parser sees them.
func (l Limits) checkFind(criteria string) error {
	if err := l.checkInput("the find criteria", len(criteria)); err != nil {
		return err
	}
	if d, max := match.CriteriaDepth(criteria), l.withDefaults().MaxDepth; d > max {
		return limitError("find criteria nest parentheses %d deep, more than Limits.MaxDepth (%d)", d, max)
	}
	return nil
}

// rankSel is a rank set given to SetRankStatus or RemoveRanks, split
// against the graph's ranks.
type rankSel struct {
	set     idset.Set
	known   []int64   // the ranks of set the graph has, ascending
	missing idset.Set // the others
}

// rankSet parses ranks (an idset) and splits it against the graph's
// ranks, never expanding it beyond them.
func (l Limits) rankSet(m *match.Matcher, ranks string) (rankSel, error) {
	if err := l.checkInput("the rank set", len(ranks)); err != nil {
		return rankSel{}, err
	}
	set, err := idset.Parse(ranks)
	if err != nil {
		return rankSel{}, &argError{msg: fmt.Sprintf("ranks %q are not an idset like 0-3,7", clip(ranks))}
	}
	if n, max := set.Len(), l.withDefaults().MaxRankSet; n > max {
		return rankSel{}, limitError("rank set %s names %d ranks, more than Limits.MaxRankSet (%d)", clip(ranks), n, max)
	}
	have := m.KnownRanks()
	return rankSel{set, set.Intersect(have).Values(), set.Difference(have)}, nil
}

// errMissingRanks is RemoveRanks' error for ranks the graph does not have.
func errMissingRanks(missing idset.Set) error {
	return newError("remove ranks", ErrNotFound, nil, "the graph has no rank %s", clip(missing.String()))
}
