package benchmarks

import (
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/match"
)

// BenchmarkMatchChurn measures the steady state of a running scheduler: the
// cluster is half full and each op cancels the oldest job and allocates a
// new one. Every vertex has been booked before, so allocs/op shows what a
// match allocates once warm (the target is zero), for every policy.
func BenchmarkMatchChurn(b *testing.B) {
	for _, policy := range allPolicies {
		for _, s := range []Size{{Nodes: 256, Cores: 32}, {Nodes: 1024, Cores: 32}} {
			if policy != "first" && s.Nodes > 256 {
				continue
			}
			b.Run(policy+"/"+s.String(), func(b *testing.B) {
				g, err := Load(s)
				if err != nil {
					b.Fatal(err)
				}
				js, err := JobspecCore(g)
				if err != nil {
					b.Fatal(err)
				}
				m, err := match.New(g, match.Options{Policy: policy})
				if err != nil {
					b.Fatal(err)
				}
				half := uint64(s.Nodes * s.Cores / 2)
				if strings.HasSuffix(policy, "nodex") {
					half = uint64(s.Nodes / 2) // every job takes a whole node
				}
				w := emit.Discard
				// Warm up: fill half the cluster, then churn through the whole
				// cluster once so every vertex has been booked and released.
				next := uint64(1)
				for ; next <= half; next++ {
					if _, err := m.Match(match.Allocate, js, next, 0, w); err != nil {
						b.Fatalf("fill job %d: %v", next, err)
					}
				}
				churn := func() {
					if err := m.Cancel(next - half); err != nil {
						b.Fatalf("cancel %d: %v", next-half, err)
					}
					if _, err := m.Match(match.Allocate, js, next, 0, w); err != nil {
						b.Fatalf("job %d: %v", next, err)
					}
					next++
				}
				for range 2 * int(half) {
					churn()
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					churn()
				}
			})
		}
	}
}
