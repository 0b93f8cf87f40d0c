package plugin

import (
	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
)

// Matcher is the seam between the plugin and Fluxion: the only operations
// the plugin needs, in terms of documents (jobspecs, JGF, Rs) and plain
// results, so that an implementation can run in process (localMatcher,
// the gofluxion Matcher) or elsewhere. Errors wrap gofluxion.ErrBusy or
// gofluxion.ErrUnsatisfiable where a match failed for those reasons.
// Calls are serialised by the Cluster.
type Matcher interface {
	// Match runs op for a canonical jobspec at time at (Unix seconds) as
	// job id (0 for the ops that book nothing), returning the selection
	// as a JGF and its window.
	Match(op gofluxion.Op, jobspec []byte, id uint64, at int64) (*MatchResult, error)
	// Explain says why a jobspec does not fit at time at.
	Explain(jobspec []byte, at int64) (reason string, satisfiable bool, err error)
	// Update books an R (JGF, or an RFC 20 envelope with a window) as job
	// id and returns it rendered in format (jgf or rv1).
	Update(id uint64, r []byte, format string) (string, error)
	Cancel(id uint64) error
	Attach(jgf []byte) error
	Remove(path string) error
	SetStatus(path string, up bool) error
	// Vertices and Jobs count the graph's vertices and the live jobs.
	Vertices() int
	Jobs() int
}

// MatchResult is a successful match.
type MatchResult struct {
	Start, End int64
	JGF        string
}

// localMatcher is the gofluxion Matcher in process: the only place the
// plugin uses it.
type localMatcher struct{ m *gofluxion.Matcher }

// newLocalMatcher makes a matcher over the cluster vertex alone, with the
// graph's own types known so that jobspecs naming them parse before the
// first node arrives.
func newLocalMatcher(a *Args) (*localMatcher, error) {
	b := graph.NewBuilder()
	b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithRank(-1))
	g := b.Graph()
	for _, t := range append(append([]string{"node", "numa", "slot", unlabelledType}, leafTypes...), a.levelTypes()...) {
		g.Type(t)
	}
	m, err := gofluxion.New(g, a.matcherOptions())
	if err != nil {
		return nil, err
	}
	return &localMatcher{m}, nil
}

func (l *localMatcher) Match(op gofluxion.Op, jobspec []byte, id uint64, at int64) (*MatchResult, error) {
	js, err := l.m.ParseJobspec(jobspec)
	if err != nil {
		return nil, err
	}
	var a *gofluxion.Allocation
	if id == 0 {
		a, err = l.m.Match(op, js, at)
	} else {
		a, err = l.m.MatchWithID(op, js, id, at)
	}
	if err != nil {
		return nil, err
	}
	r, err := a.Render("jgf")
	if err != nil {
		return nil, err
	}
	return &MatchResult{Start: a.Start, End: a.End, JGF: r}, nil
}

func (l *localMatcher) Explain(jobspec []byte, at int64) (string, bool, error) {
	js, err := l.m.ParseJobspec(jobspec)
	if err != nil {
		return "", false, err
	}
	e, err := l.m.Explain(js, at)
	if err != nil {
		return "", false, err
	}
	return e.Reason(), e.Satisfiable, nil
}

func (l *localMatcher) Update(id uint64, r []byte, format string) (string, error) {
	a, err := l.m.Update(id, r)
	if err != nil {
		return "", err
	}
	return a.Render(format)
}

func (l *localMatcher) Cancel(id uint64) error               { return l.m.Cancel(id) }
func (l *localMatcher) Attach(jgf []byte) error              { return l.m.Attach(jgf) }
func (l *localMatcher) Remove(path string) error             { return l.m.Remove(path) }
func (l *localMatcher) SetStatus(path string, up bool) error { return l.m.SetStatus(path, up) }
func (l *localMatcher) Vertices() int                        { return l.m.Stat().Vertices }
func (l *localMatcher) Jobs() int                            { return l.m.Stat().Jobs }
