package benchmarks

import (
	"testing"

	"github.com/gofluxion/gofluxion/policy"
)

// BenchmarkMatchAll: one match allocate per iteration under every policy,
// jobspec A (one core) and, with /x, jobspec B (a whole node), with a
// writer that keeps nothing (emit.Discard), so allocs/op is the matcher's
// own: 0 in the steady state. Sizes: 256×32, 1024×32, 4096×64, and
// 16384×64 with GOFLUXION_BENCH_HUGE=1. The stream restarts on a fresh
// matcher when the cluster is full.
func BenchmarkMatchAll(b *testing.B) {
	for _, s := range Sizes() {
		for _, pol := range allPolicies {
			for _, excl := range []bool{false, true} {
				name := pol + "/" + s.String()
				if excl {
					name += "/x"
				}
				b.Run(name, func(b *testing.B) {
					g := loadGraph(b, s)
					yaml := JobspecCoreYAML
					if excl {
						yaml = JobspecNodeExclusiveYAML(s.Cores)
					}
					js, err := ParseJobspec(g, yaml)
					if err != nil {
						b.Fatal(err)
					}
					benchStream(b, g, pol, js, streamJobs(pol, s, excl), true)
				})
			}
		}
	}
}

// streamJobs is the number of jobs that fit: nodes for whole-node jobs and
// node-exclusive policies, cores otherwise (capped at the size's stream).
func streamJobs(pol string, s Size, excl bool) int {
	p, _ := policy.New(pol)
	if excl || len(p.ExclusiveTypes()) > 0 {
		return s.Nodes
	}
	return min(s.Jobs, s.Nodes*s.Cores)
}
