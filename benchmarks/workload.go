package benchmarks

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// Size is one benchmark cluster: Nodes nodes of Cores cores each.
type Size struct {
	Nodes, Cores int
	// Jobs is the length of a jobspec-A stream on this cluster.
	Jobs int
}

// String returns the size as NxC, the sub-benchmark name.
func (s Size) String() string { return fmt.Sprintf("%dx%d", s.Nodes, s.Cores) }

// Vertices returns the number of vertices of the generated graph.
func (s Size) Vertices() int { return 1 + s.Nodes*(1+s.Cores) }

// HugeEnv is the environment variable that adds the 16384×64 cluster.
const HugeEnv = "GOFLUXION_BENCH_HUGE"

// Huge reports whether GOFLUXION_BENCH_HUGE=1 is set.
func Huge() bool { return os.Getenv(HugeEnv) == "1" }

// Standard sizes.
var (
	Size256x32   = Size{256, 32, 4096}
	Size1024x32  = Size{1024, 32, 8192}
	Size4096x64  = Size{4096, 64, 8192}
	Size16384x64 = Size{16384, 64, 8192}
)

// Sizes returns the benchmark sizes: 256×32, 1024×32, 4096×64, and
// 16384×64 when Huge is set.
func Sizes() []Size {
	s := []Size{Size256x32, Size1024x32, Size4096x64}
	if Huge() {
		s = append(s, Size16384x64)
	}
	return s
}

// Duration is the duration of every benchmark job, in seconds.
const Duration = 3600

// JobspecCoreYAML is jobspec A: cluster[1] → node[1] → slot[1] → core[1].
const JobspecCoreYAML = `version: 1
resources:
  - type: cluster
    count: 1
    with:
      - type: node
        count: 1
        with:
          - type: slot
            count: 1
            label: default
            with:
              - type: core
                count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

// JobspecNodeExclusiveYAML returns jobspec B for nodes of cores cores:
// cluster[1] → node[1] (exclusive) → slot[1] → core[cores].
func JobspecNodeExclusiveYAML(cores int) string {
	return fmt.Sprintf(`version: 1
resources:
  - type: cluster
    count: 1
    with:
      - type: node
        count: 1
        exclusive: true
        with:
          - type: slot
            count: 1
            label: default
            with:
              - type: core
                count: %d
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`, cores)
}

// Load generates and reads the cluster of size s.
func Load(s Size) (*graph.Graph, error) {
	return grug.Read(grug.Cluster("cluster", s.Nodes, s.Cores))
}

// ParseJobspec parses a jobspec for g, rejecting types g does not know, as
// resource-query does.
func ParseJobspec(g *graph.Graph, yaml string) (*jobspec.Jobspec, error) {
	return jobspec.Parse([]byte(yaml), jobspec.Options{KnownType: func(t string) bool {
		_, ok := g.Types.Lookup(t)
		return ok
	}})
}

// JobspecCore parses jobspec A for g.
func JobspecCore(g *graph.Graph) (*jobspec.Jobspec, error) {
	return ParseJobspec(g, JobspecCoreYAML)
}

// JobspecNodeExclusive parses jobspec B for g, whose nodes have cores
// cores.
func JobspecNodeExclusive(g *graph.Graph, cores int) (*jobspec.Jobspec, error) {
	return ParseJobspec(g, JobspecNodeExclusiveYAML(cores))
}

// errEmpty reports a successful match that emitted nothing.
var errEmpty = errors.New("match succeeded but emitted nothing")

// Allocate runs one "match allocate" of js as job jobid on m, emitting to
// w, and discards the rendered output. It fails if the match emitted
// nothing.
func Allocate(m *match.Matcher, js *jobspec.Jobspec, jobid uint64, w emit.Writer) error {
	if _, err := m.Match(match.Allocate, js, jobid, 0, w); err != nil {
		w.Render() // drop anything left behind
		return err
	}
	out, err := w.Render()
	if err != nil {
		return err
	}
	if out == "" {
		return errEmpty
	}
	return nil
}

// Stream creates a matcher for g with the given policy (default options
// otherwise) and allocates js as jobs 1, 2, … until jobs matches succeeded
// or one failed. It returns the latency of every successful match, measured
// around Matcher.Match and the rendering of its output, and the error of
// the failed match (nil if all jobs were allocated): errors.Is(err,
// match.ErrBusy) when the cluster is full.
func Stream(g *graph.Graph, policy string, js *jobspec.Jobspec, jobs int) ([]time.Duration, error) {
	m, err := match.New(g, match.Options{Policy: policy})
	if err != nil {
		return nil, err
	}
	return StreamOn(m, js, jobs, make([]time.Duration, 0, jobs))
}

// StreamOn runs a stream on an existing matcher, appending the latencies to
// lat. The job ids are 1…jobs, so m must not hold those jobs already.
func StreamOn(m *match.Matcher, js *jobspec.Jobspec, jobs int, lat []time.Duration) ([]time.Duration, error) {
	w := emit.NewSimple()
	for j := 1; j <= jobs; j++ {
		start := time.Now()
		err := Allocate(m, js, uint64(j), w)
		d := time.Since(start)
		if err != nil {
			return lat, fmt.Errorf("job %d: %w", j, err)
		}
		lat = append(lat, d)
	}
	return lat, nil
}
