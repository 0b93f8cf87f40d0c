package policy

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLocalityRunsModel compares locality's run set, over several
// top-level requests of one match, with the simple model: every score a
// one-point run, all runs sorted by lower bound and merged when they
// overlap or touch.
func TestLocalityRunsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for iter := 0; iter < 500; iter++ {
		p := newLocality()
		var model []run
		for call := 0; call < 1+rng.IntN(3); call++ {
			var scores []int64
			for i := rng.IntN(40); i > 0; i-- {
				scores = append(scores, int64(rng.IntN(60))-5)
			}
			for _, s := range scores {
				model = append(model, run{s, s})
			}
			slices.SortFunc(model, func(a, b run) int { return cmp.Compare(a.lo, b.lo) })
			merged := model[:0]
			for _, r := range model {
				if n := len(merged); n > 0 && r.lo <= merged[n-1].hi+1 {
					merged[n-1].hi = max(merged[n-1].hi, r.hi)
					continue
				}
				merged = append(merged, r)
			}
			model = merged
			o := p.GraphOrder(scores).(*runOrder)
			if !slices.Equal(o.runs, model) {
				t.Fatalf("iter %d call %d: runs %v, model %v", iter, call, o.runs, model)
			}
		}
	}
}
