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
//
// For a gang (a count of nodes with resources in each), Reason names the
// outer count that falls short first ("needs 4 node (with 2 gpu each): 2
// found now, 8 when free"), followed by the inner level that is short too,
// if any. at is in seconds, in the graph's window as for Match (ErrInvalid
// otherwise).
func (x *Matcher) Explain(js *jobspec.Jobspec, at int64) (*Explanation, error) {
	if err := checkRequest("explain", js); err != nil {
		return nil, err
	}
	if at < 0 || at >= match.GraphEnd {
		return nil, invalidf("explain", "time %d is outside the graph's window [0, %d) seconds", at, match.GraphEnd)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	v := x.view()
	defer x.views.Put(v)
	e, err := v.Explain(js, at)
	if err != nil {
		return nil, fromMatch("explain", err)
	}
	return e, nil
}
