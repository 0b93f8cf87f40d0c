package match_test

import (
	"math/rand"
	"testing"

	"github.com/gofluxion/gofluxion/match"
)

// TestAttachRemoveBlocked is TestAttachRemove under the dynamic policies
// with every list in blocks (jobs.go): attach and remove rewrite stored
// child orders, blocked ones included.
func TestAttachRemoveBlocked(t *testing.T) {
	defer match.SetBlockThresholds(2, 2, 2)()
	rng := rand.New(rand.NewSource(4242))
	rounds := 0
	for range 60 {
		r, _ := runAttachRemove(t, attachCase{seed: rng.Int63(), policy: pick(rng, dynamicPolicies...)})
		rounds += r
	}
	if rounds == 0 {
		t.Error("nothing was attached")
	}
}
