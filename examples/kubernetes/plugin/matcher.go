package plugin

import (
	"fmt"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Matcher is the seam between the plugin and Fluxion: the only operations
// the plugin needs, in terms of documents (jobspecs, JGF, Rs) and plain
// results. NewMatcher makes it over any Backend: the gofluxion Matcher in
// process, or the matcher service's client (Args.Matcher); WithMatcher
// can give another implementation. Errors wrap gofluxion.ErrBusy or
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

// Backend is a gofluxion matcher as the plugin uses it: gofluxion.Interface,
// which the in-process *gofluxion.Matcher and the matcher service's client
// (module github.com/gofluxion/gofluxion/service, package client) both
// implement, and the graph edits node events need. Its counts come from
// Stat() (the Matcher) or Stats() (the client) when it has one.
type Backend interface {
	gofluxion.Interface
	// Attach grows the graph with a JGF subgraph.
	Attach(jgf []byte) error
	// Remove removes the subgraph at path.
	Remove(path string) error
}

// fluxMatcher is the seam over a Backend: in process (newLocalMatcher) or
// remote (newRemoteMatcher).
type fluxMatcher struct {
	b Backend
	// parsed jobspecs by text: a gang's pods, and pods alike, ask again
	// and again
	js map[string]*jobspec.Jobspec
}

const jobspecCache = 256

// NewMatcher returns the plugin's seam over a Backend.
func NewMatcher(b Backend) Matcher { return newFluxMatcher(b) }

func newFluxMatcher(b Backend) *fluxMatcher {
	return &fluxMatcher{b: b, js: map[string]*jobspec.Jobspec{}}
}

// pluginTypes are the types the plugin's graph uses, for args.
func pluginTypes(a *Args) []string {
	return append(append([]string{"node", "numa", "slot", unlabelledType}, leafTypes...), a.levelTypes()...)
}

// newLocalMatcher makes a matcher in process over the cluster vertex
// alone, with the graph's own types known so that jobspecs naming them
// parse before the first node arrives.
func newLocalMatcher(a *Args) (*fluxMatcher, error) {
	b := graph.NewBuilder()
	b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithRank(-1))
	g := b.Graph()
	for _, t := range pluginTypes(a) {
		g.Type(t)
	}
	m, err := gofluxion.New(g, a.matcherOptions())
	if err != nil {
		return nil, err
	}
	return newFluxMatcher(m), nil
}

// parse parses a jobspec, or returns it parsed before (types are only
// ever added to the graph, so a parse stays valid).
func (l *fluxMatcher) parse(text []byte) (*jobspec.Jobspec, error) {
	if js, ok := l.js[string(text)]; ok {
		return js, nil
	}
	js, err := l.b.ParseJobspec(text)
	if err != nil {
		return nil, err
	}
	if len(l.js) >= jobspecCache {
		clear(l.js)
	}
	l.js[string(text)] = js
	return js, nil
}

func (l *fluxMatcher) Match(op gofluxion.Op, jobspec []byte, id uint64, at int64) (*MatchResult, error) {
	js, err := l.parse(jobspec)
	if err != nil {
		return nil, err
	}
	var a *gofluxion.Allocation
	if id == 0 {
		a, err = l.b.Match(op, js, at)
	} else {
		a, err = l.b.MatchWithID(op, js, id, at)
	}
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("match of job %d: no allocation returned", id)
	}
	res := &MatchResult{Start: a.Start, End: a.End, Selected: make([]Selected, len(a.Resources))}
	for i, r := range a.Resources {
		res.Selected[i] = Selected{Path: r.Path, Type: r.Type, Name: r.Name, ID: r.ID}
	}
	return res, nil
}

func (l *fluxMatcher) Explain(jobspec []byte, at int64) (string, bool, error) {
	js, err := l.parse(jobspec)
	if err != nil {
		return "", false, err
	}
	e, err := l.b.Explain(js, at)
	if err != nil {
		return "", false, err
	}
	return e.Reason(), e.Satisfiable, nil
}

func (l *fluxMatcher) Update(id uint64, r []byte) error {
	_, err := l.b.Update(id, r)
	return err
}

func (l *fluxMatcher) Cancel(id uint64) error               { return l.b.Cancel(id) }
func (l *fluxMatcher) Attach(jgf []byte) error              { return l.b.Attach(jgf) }
func (l *fluxMatcher) Remove(path string) error             { return l.b.Remove(path) }
func (l *fluxMatcher) SetStatus(path string, up bool) error { return l.b.SetStatus(path, up) }
func (l *fluxMatcher) Vertices() int                        { return l.stats().Vertices }
func (l *fluxMatcher) Jobs() int                            { return l.stats().Jobs }

// stats are the Backend's counts (-1 when it cannot give them).
func (l *fluxMatcher) stats() gofluxion.Stats {
	switch b := l.b.(type) {
	case interface{ Stat() gofluxion.Stats }:
		return b.Stat()
	case interface {
		Stats() (gofluxion.Stats, error)
	}:
		if s, err := b.Stats(); err == nil {
			return s
		}
	}
	return gofluxion.Stats{Vertices: -1, Jobs: -1}
}
