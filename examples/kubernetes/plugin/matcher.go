package plugin

import (
	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
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
	// id.
	Update(id uint64, r []byte) error
	Cancel(id uint64) error
	Attach(jgf []byte) error
	Remove(path string) error
	SetStatus(path string, up bool) error
	// Vertices and Jobs count the graph's vertices and the live jobs.
	Vertices() int
	Jobs() int
}

// MatchResult is a successful match: its window and the selected
// vertices (an implementation may give the JGF instead).
type MatchResult struct {
	Start, End int64
	Selected   []Selected
	JGF        string
}

// Selected is one selected vertex: its containment path, type, name and
// id among its type.
type Selected struct {
	Path, Type, Name string
	ID               int64
}

// selection returns the selected vertices, from the JGF when an
// implementation gave only that.
func (r *MatchResult) selection() ([]Selected, error) {
	if r.Selected != nil || r.JGF == "" {
		return r.Selected, nil
	}
	d, err := parseJGFR([]byte(r.JGF))
	if err != nil {
		return nil, err
	}
	out := make([]Selected, 0, len(d.Graph.Nodes))
	for i := range d.Graph.Nodes {
		n := &d.Graph.Nodes[i]
		id, _ := n.num("id")
		out = append(out, Selected{Path: n.path(), Type: n.typ(), Name: n.name(), ID: id})
	}
	return out, nil
}

// localMatcher is the gofluxion Matcher in process: the only place the
// plugin uses it.
type localMatcher struct {
	m *gofluxion.Matcher
	// parsed jobspecs by text: a gang's pods, and pods alike, ask again
	// and again
	js map[string]*jobspec.Jobspec
}

const jobspecCache = 256

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
	return &localMatcher{m: m, js: map[string]*jobspec.Jobspec{}}, nil
}

// parse parses a jobspec, or returns it parsed before (types are only
// ever added to the graph, so a parse stays valid).
func (l *localMatcher) parse(text []byte) (*jobspec.Jobspec, error) {
	if js, ok := l.js[string(text)]; ok {
		return js, nil
	}
	js, err := l.m.ParseJobspec(text)
	if err != nil {
		return nil, err
	}
	if len(l.js) >= jobspecCache {
		clear(l.js)
	}
	l.js[string(text)] = js
	return js, nil
}

func (l *localMatcher) Match(op gofluxion.Op, jobspec []byte, id uint64, at int64) (*MatchResult, error) {
	js, err := l.parse(jobspec)
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
	res := &MatchResult{Start: a.Start, End: a.End, Selected: make([]Selected, len(a.Resources))}
	for i, r := range a.Resources {
		res.Selected[i] = Selected{Path: r.Path, Type: r.Type, Name: r.Name, ID: r.ID}
	}
	return res, nil
}

func (l *localMatcher) Explain(jobspec []byte, at int64) (string, bool, error) {
	js, err := l.parse(jobspec)
	if err != nil {
		return "", false, err
	}
	e, err := l.m.Explain(js, at)
	if err != nil {
		return "", false, err
	}
	return e.Reason(), e.Satisfiable, nil
}

func (l *localMatcher) Update(id uint64, r []byte) error {
	_, err := l.m.Update(id, r)
	return err
}

func (l *localMatcher) Cancel(id uint64) error               { return l.m.Cancel(id) }
func (l *localMatcher) Attach(jgf []byte) error              { return l.m.Attach(jgf) }
func (l *localMatcher) Remove(path string) error             { return l.m.Remove(path) }
func (l *localMatcher) SetStatus(path string, up bool) error { return l.m.SetStatus(path, up) }
func (l *localMatcher) Vertices() int                        { return l.m.Stat().Vertices }
func (l *localMatcher) Jobs() int                            { return l.m.Stat().Jobs }
