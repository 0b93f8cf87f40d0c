package gofluxion

import (
	_ "embed"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/rv1"
)

// Load formats (Fluxion's -f / load_format names).
const (
	FormatGRUG         = "grug"
	FormatJGF          = "jgf"
	FormatJGFShorthand = "jgf_shorthand"
	FormatRV1Exec      = "rv1exec"
	FormatRV1ExecForce = "rv1exec_force"
	FormatHwloc        = "hwloc"
)

// LoadFormats lists the accepted load formats.
func LoadFormats() []string {
	return []string{FormatGRUG, FormatHwloc, FormatJGF, FormatJGFShorthand, FormatRV1Exec, FormatRV1ExecForce}
}

// MatchFormats lists the writers by name (Fluxion's -F / match_format).
func MatchFormats() []string {
	return []string{"simple", "pretty_simple", "jgf", "jgf_shorthand", "rlite", "rv1", "rv1_nosched", "rv1_shorthand"}
}

//go:embed demo.graphml
var demoGraph []byte

// DemoGraphML returns the GRUG recipe of the embedded demo cluster: 2 racks
// × 4 nodes × 2 sockets, each socket with 16 cores, a gpu and 4 × 16 GB of
// memory.
func DemoGraphML() []byte { return append([]byte(nil), demoGraph...) }

// DemoGraph builds the embedded demo cluster (see DemoGraphML): 363
// vertices, paths such as /demo0/rack0/node3/socket1/core17, nodes node0
// to node7 with ranks 0 to 7 (the only vertices with a rank). Each call
// returns a new graph.
func DemoGraph() *graph.Graph {
	g, err := grug.Read(demoGraph)
	if err != nil {
		panic("gofluxion: embedded demo graph: " + err.Error()) // a broken build, not user input
	}
	return g
}

// ReadGraph builds a resource graph from a document in one of the load
// formats ("" is GRUG; jgf_shorthand reads as jgf, rv1exec_force as
// rv1exec). allowlist (hwloc only) names the resource types to keep, comma
// separated; empty keeps every supported type. Errors match ErrInvalid.
// The default Limits apply (see Limits.ReadGraph).
//
// Unlike Fluxion's, the readers are strict: JGF is read by jgf.Read (see
// jgf.Options for what it refuses that Fluxion loads), and an rv1exec
// nodelist that names a host twice is refused, naming the host (Fluxion
// makes two nodes with one path, which path lookups take for one).
func ReadGraph(format string, data []byte, allowlist string) (*graph.Graph, error) {
	return Limits{}.ReadGraph(format, data, allowlist)
}

// ReadGraphFile reads a graph file, choosing the format from its extension:
// .json is JGF, .xml hwloc, anything else (.graphml) GRUG. Errors are
// prefixed with the path and wrap the file system's (errors.Is(err,
// fs.ErrNotExist)): a missing file is ErrNotFound, an unreadable one or a
// bad document ErrInvalid. The default Limits apply (see
// Limits.ReadGraphFile).
func ReadGraphFile(path string) (*graph.Graph, error) { return Limits{}.ReadGraphFile(path) }

// NewWriter returns a fresh writer for a match format (one of
// MatchFormats), for the lower layers that write selections to an
// emit.Writer, such as match.Matcher. Matcher and Allocation users pass
// format names instead.
func NewWriter(format string) (emit.Writer, error) {
	switch format {
	case "simple":
		return emit.NewSimple(), nil
	case "pretty_simple":
		return emit.NewPrettySimple(), nil
	case "jgf":
		return jgf.NewWriter(), nil
	case "jgf_shorthand":
		return jgf.NewShorthandWriter(), nil
	case "rlite":
		return rv1.NewWriter(rv1.RLite), nil
	case "rv1":
		return rv1.NewWriter(rv1.RV1), nil
	case "rv1_nosched":
		return rv1.NewWriter(rv1.RV1NoSched), nil
	case "rv1_shorthand":
		return rv1.NewWriter(rv1.RV1Shorthand), nil
	}
	return nil, invalidf("new writer", "unknown match format %q (want one of %s)", format, strings.Join(MatchFormats(), ", "))
}
