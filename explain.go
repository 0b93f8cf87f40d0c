package gofluxion

import (
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// Explanation says why a request does (not) fit: FitsNow, Satisfiable,
// one Level per request of the jobspec (needed count, candidates found at
// the asked time and when everything is free) and Reason, one sentence
// about the level that falls short. See match.Explanation.
type Explanation = match.Explanation

// Explain reports, per level of the jobspec, how many candidates were
// needed and how many the graph offers at time at and when everything is
// free, so a scheduler can say "needs 4 node (with 2 gpu each): 3 found
// now, 8 when free" instead of just "unsatisfiable". It books nothing and
// runs concurrently with other read-only queries.
func (x *Matcher) Explain(js *jobspec.Jobspec, at int64) (*Explanation, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := x.view()
	defer x.views.Put(v)
	return v.Explain(js, at)
}
