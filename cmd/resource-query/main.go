// Command resource-query is a command-line driver of the matcher with the
// flags, command language and output of Fluxion's resource-query, so that
// Fluxion's own test suite runs against gofluxion. Run it with no -L to try
// it on a small embedded cluster:
//
//	go run ./cmd/resource-query
//	resource-query> match allocate examples/jobspecs/node-1-core.yaml
//
// See `resource-query -h` and `help` at the prompt.
package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion"
)

const usageText = `usage: resource-query [OPTIONS…]

Command-line tool that reads a resource graph and matches jobspecs against it.

OPTIONS:
    -h, --help
            Display this usage information

    -L, --load-file=filepath
            Input file from which to load the resource graph data store
            (default: an embedded example cluster)

    -f, --load-format=<grug|hwloc|jgf|jgf_shorthand|rv1exec|rv1exec_force>
            Format of the load file (default=grug)

    -W, --load-allowlist=<resource1[,resource2[,resource3...]]>
            Allowlist of resource types to be loaded (hwloc only)

    -S, --match-subsystems=<CA|IBA|IBBA|PFS1BA|PA|C+IBA|C+PFS1BA|C+PA|IB+IBBA|C+P+IBA|VA|V+PFS1BA|ALL>
            Set the predefined matcher to use (default=CA)

    -P, --match-policy=<low|high|lonode|hinode|lonodex|hinodex|first|firstnodex|locality|variation|"custom option string">
            Set the resource match selection policy (default=first)

    -T, --traverser-policy=<simple|flexible>
            Set the traverser (default=simple)

    -F, --match-format=<simple|pretty_simple|jgf|jgf_shorthand|rlite|rv1|rv1_nosched|rv1_shorthand>
            Specify the emit format of the matched resource set (default=simple)

    -p, --prune-filters=<HL-resource1:LL-resource1[,HL-resource2:LL-resource2...]...]>
            Install a planner-based filter at each High-Level (HL) resource
            vertex which tracks the state of the Low-Level (LL) resources
            in aggregate (default=ALL:core,ALL:node)

    -g, --graph-format=<dot|graphml>
            Format of the graph written at exit with -o (default=dot)

    -o, --graph-output=<basename>
            At exit, write the dominant subsystem's graph, with the state
            of every vertex, to basename.dot or basename.graphml

    -t, --test-output=<filename>
            Write the result of each command to filename

    -r, --reserve-vtx-vec=<size>
            Capacity hint (accepted for compatibility; no effect)

    -e, --elapse-time
            Print the elapse time per match command

    -d, --disable-prompt
            Don't print the prompt

    --max-vertices=<n>, --max-depth=<n>, --max-path-bytes=<n>, --max-input-bytes=<n>
            Limits of the graph reader (gofluxion only; default 8388608
            vertices, depth 256, 1 GiB of vertex paths, a 1 GiB load file)
`

type options struct {
	loadFile       string
	loadFormat     string
	allowlist      string
	subsystems     string
	policy         string
	traverser      string
	matchFormat    string
	pruneFilters   string
	pruneSet       bool
	testOutput     string
	elapse         bool
	disablePrompt  bool
	reserveVtxVec  int
	graphFormat    string
	graphOutputSet bool
	graphOutput    string // -o: the basename of the graph written at exit
	// limits are the reader's limits (--max-*, ours: Fluxion has none);
	// a zero field takes the library's default.
	limits gofluxion.Limits
}

// Codes of the long-only options (no short form: above ASCII).
const (
	optMaxVertices = 0x80 + iota
	optMaxDepth
	optMaxPathBytes
	optMaxInputBytes
)

var longOpts = map[string]byte{
	"load-file": 'L', "load-format": 'f', "load-allowlist": 'W', "match-subsystems": 'S',
	"match-policy": 'P', "traverser-policy": 'T', "match-format": 'F', "graph-format": 'g',
	"graph-output": 'o', "prune-filters": 'p', "test-output": 't', "reserve-vtx-vec": 'r',
	"elapse-time": 'e', "disable-prompt": 'd', "help": 'h',
	"max-vertices": optMaxVertices, "max-depth": optMaxDepth, "max-path-bytes": optMaxPathBytes, "max-input-bytes": optMaxInputBytes,
}

const argOpts = "LfWSPTFgoptr\x80\x81\x82\x83"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageError prints msg and the usage text and returns exit status 1.
func usageError(stderr io.Writer, msg string) int {
	if msg != "" {
		fmt.Fprintln(stderr, msg)
	}
	fmt.Fprint(stderr, usageText)
	return 1
}

// parseArgs is a small getopt_long: clustered short options, attached or
// separate arguments, --long=value and --long value.
func parseArgs(args []string, stderr io.Writer) (*options, int) {
	o := &options{loadFormat: "grug", subsystems: "CA", policy: "first", traverser: "simple", matchFormat: "simple", graphFormat: "dot"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var opt byte
		var val string
		hasVal := false
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, v, eq := strings.Cut(a[2:], "=")
			c, ok := longOpts[name]
			if !ok {
				// getopt accepts unambiguous prefixes of long names.
				n := 0
				for k, cc := range longOpts {
					if strings.HasPrefix(k, name) {
						c, n = cc, n+1
					}
				}
				if n != 1 {
					return nil, usageError(stderr, "resource-query: unrecognized option '"+a+"'")
				}
			}
			opt = c
			if strings.IndexByte(argOpts, c) >= 0 {
				if eq {
					val, hasVal = v, true
				} else if i+1 < len(args) {
					i++
					val, hasVal = args[i], true
				} else {
					return nil, usageError(stderr, "resource-query: option '"+a+"' requires an argument")
				}
			} else if eq {
				return nil, usageError(stderr, "resource-query: option '--"+name+"' doesn't allow an argument")
			}
			if code := o.apply(opt, val, hasVal, stderr); code >= 0 {
				return nil, code
			}
		case strings.HasPrefix(a, "-") && len(a) > 1 && a != "--":
			for j := 1; j < len(a); j++ {
				c := a[j]
				if c < 0x80 && strings.IndexByte(argOpts, c) >= 0 {
					if j+1 < len(a) {
						val = a[j+1:]
					} else if i+1 < len(args) {
						i++
						val = args[i]
					} else {
						return nil, usageError(stderr, "resource-query: option requires an argument -- '"+string(c)+"'")
					}
					if code := o.apply(c, val, true, stderr); code >= 0 {
						return nil, code
					}
					break
				}
				if strings.IndexByte("edh", c) < 0 {
					return nil, usageError(stderr, "resource-query: invalid option -- '"+string(c)+"'")
				}
				if code := o.apply(c, "", false, stderr); code >= 0 {
					return nil, code
				}
			}
		default:
			return nil, usageError(stderr, "")
		}
	}
	return o, -1
}

// limitFlags names the flag of each long-only limit option.
var limitFlags = map[byte]string{optMaxVertices: "max-vertices", optMaxDepth: "max-depth", optMaxPathBytes: "max-path-bytes", optMaxInputBytes: "max-input-bytes"}

var (
	loadFormats  = []string{"grug", "hwloc", "jgf", "jgf_shorthand", "rv1exec", "rv1exec_force"}
	matchFormats = []string{"simple", "pretty_simple", "jgf", "jgf_shorthand", "rlite", "rv1", "rv1_nosched", "rv1_shorthand"}
)

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// apply records one option; it returns an exit status, or -1 to go on.
func (o *options) apply(c byte, v string, _ bool, stderr io.Writer) int {
	switch c {
	case 'h':
		fmt.Fprint(stderr, usageText)
		return 0
	case 'L':
		st, err := os.Stat(v)
		if err != nil {
			return usageError(stderr, "[ERROR] file does not exist for --load-file: "+v)
		}
		if st.IsDir() {
			return usageError(stderr, "[ERROR] path passed to --load-file is a directory: "+v)
		}
		o.loadFile = v
	case 'f':
		if !contains(loadFormats, v) {
			return usageError(stderr, "[ERROR] unknown format for --load-format: "+v)
		}
		o.loadFormat = v
	case 'W':
		if strings.TrimSpace(v) != "" {
			o.allowlist += "cluster," + v
		}
	case 'S':
		o.subsystems = v
	case 'P':
		o.policy = v
	case 'T':
		o.traverser = v
	case 'F':
		if !contains(matchFormats, v) {
			return usageError(stderr, "[ERROR] unknown format for --match-format: "+v)
		}
		o.matchFormat = v
	case 'g':
		if v != "dot" && v != "graphml" {
			return usageError(stderr, "[ERROR] unknown format for --graph-format: "+v)
		}
		o.graphFormat = v
	case 'o':
		o.graphOutputSet = true
		o.graphOutput = v
	case 'p':
		if strings.TrimSpace(v) != "" {
			if o.pruneSet {
				o.pruneFilters += "," + v
			} else {
				o.pruneFilters = v
			}
			o.pruneSet = true
		}
	case 't':
		o.testOutput = v
	case 'r':
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 2000000 {
			fmt.Fprintln(stderr, "WARN: out of range specified for --reserve-vtx-vec: "+v)
			n = 0
		}
		o.reserveVtxVec = n
	case optMaxVertices, optMaxDepth, optMaxPathBytes, optMaxInputBytes:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 || n > math.MaxInt32 && c != optMaxPathBytes && c != optMaxInputBytes {
			return usageError(stderr, "[ERROR] not a positive integer in range for --"+limitFlags[c]+": "+v)
		}
		switch c {
		case optMaxVertices:
			o.limits.MaxVertices = int(n)
		case optMaxDepth:
			o.limits.MaxDepth = int(n)
		case optMaxPathBytes:
			o.limits.MaxPathBytes = n
		case optMaxInputBytes:
			o.limits.MaxInputBytes = n
		}
	case 'e':
		o.elapse = true
	case 'd':
		o.disablePrompt = true
	}
	return -1
}
