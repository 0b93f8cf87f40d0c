package benchmarks

import (
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/randstream"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// allPolicies are the ten built-in policies.
var allPolicies = []string{"first", "firstnodex", "high", "low", "hinode", "lonode", "hinodex", "lonodex", "locality", "variation"}

// target runs a random stream on a matcher (randstream.Target).
type target struct {
	g     *graph.Graph
	m     *match.Matcher
	w     *emit.Simple
	cache map[string]*jobspec.Jobspec
	errs  map[string]error
}

func newTarget(g *graph.Graph, m *match.Matcher) *target {
	return &target{g: g, m: m, w: emit.NewSimple(), cache: map[string]*jobspec.Jobspec{}, errs: map[string]error{}}
}

var kindOps = map[randstream.Kind]match.Op{
	randstream.Allocate:              match.Allocate,
	randstream.AllocateOrElseReserve: match.AllocateOrElseReserve,
	randstream.Satisfiability:        match.Satisfiability,
}

// Match parses the jobspec once per text (so the matcher's resolved request
// cache works as in a stream of one jobspec) and renders the selection.
func (t *target) Match(kind randstream.Kind, doc string, jobid uint64, now int64) (int64, string, error) {
	js, ok := t.cache[doc]
	if !ok {
		var err error
		js, err = ParseJobspec(t.g, doc)
		t.cache[doc], t.errs[doc] = js, err
	}
	if err := t.errs[doc]; err != nil {
		return 0, "", err
	}
	at, err := t.m.Match(kindOps[kind], js, jobid, now, t.w)
	out, _ := t.w.Render()
	return at, out, err
}

func (t *target) Cancel(jobid uint64) error { return t.m.Cancel(jobid) }

func (t *target) PartialCancel(jobid uint64, ranks []int64) (bool, error) {
	return t.m.PartialCancel(jobid, ranks)
}
