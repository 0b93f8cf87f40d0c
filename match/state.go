package match

import (
	"fmt"
	"slices"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/planner"
)

// State is a serialisable copy of a Matcher: its options, graph, pruning
// configuration, every job's spans on every vertex, the dynamic child
// order's edge weights and the up-node count. Restore rebuilds a Matcher
// that decides exactly as the original would.
type State struct {
	Options Options      `json:"options"`
	Graph   *graph.Data  `json:"graph"`
	Prune   []PruneState `json:"prune"`
	Jobs    []VertexJobs `json:"jobs"`
	Weights []EdgeWeight `json:"weights,omitempty"`
	NodesUp int64        `json:"nodes_up"`
	// Exclusive lists the resource types every match takes exclusively
	// when it is more than the policy's (Options.FluxionQuirks).
	Exclusive []graph.TypeID `json:"exclusive,omitempty"`
}

// PruneState is the pruning configuration of one matcher subsystem.
type PruneState struct {
	Anchors []PruneAnchor  `json:"anchors"`
	Types   []graph.TypeID `json:"types"` // the pruning-type set
}

// PruneAnchor lists the types tracked below vertices of one type (-1…: the
// wildcard "*" is graph.TypeAny).
type PruneAnchor struct {
	Anchor graph.TypeID   `json:"anchor"`
	Types  []graph.TypeID `json:"types"`
}

// VertexJobs lists what jobs hold on one vertex.
type VertexJobs struct {
	Vertex graph.VertexID `json:"v"`
	Jobs   []JobSpans     `json:"j"`
}

// JobSpans is one job's state on one vertex; a span is [start, duration,
// planned] (the filter span has one planned count per filter member, -1
// for a member reduced away).
type JobSpans struct {
	Job    uint64  `json:"id"`
	Tagged bool    `json:"tag,omitempty"`
	Alloc  []int64 `json:"a,omitempty"`
	Resv   []int64 `json:"r,omitempty"`
	X      []int64 `json:"x,omitempty"`
	Filter []int64 `json:"f,omitempty"` // start, duration, counts...
}

// EdgeWeight is a non-default weight of the dynamic child order.
type EdgeWeight struct {
	Edge   graph.EdgeID `json:"e"`
	Weight uint64       `json:"w"`
}

func spanOf(p rPlanner, id int64) ([]int64, error) {
	if id == 0 {
		return nil, nil
	}
	s, d, n, err := p.SpanInfo(id)
	if err != nil {
		return nil, err
	}
	return []int64{s, d, n}, nil
}

// State returns a serialisable copy of m.
func (m *Matcher) State() (*State, error) {
	st := &State{Options: m.opts, Graph: m.g.Export(), NodesUp: m.nodesUp}
	if len(m.polExcl) > len(m.pol.ExclusiveTypes()) {
		st.Exclusive = slices.Clone(m.polExcl)
	}
	for _, p := range m.prune {
		ps := PruneState{}
		anchors := make([]graph.TypeID, 0, len(p.anchors))
		for a := range p.anchors {
			anchors = append(anchors, a)
		}
		slices.Sort(anchors)
		for _, a := range anchors {
			ps.Anchors = append(ps.Anchors, PruneAnchor{a, slices.Clone(p.anchors[a])})
		}
		for t, ok := range p.isPrune {
			if ok {
				ps.Types = append(ps.Types, graph.TypeID(t))
			}
		}
		st.Prune = append(st.Prune, ps)
	}
	for v := range graph.VertexID(m.g.NumVertices()) {
		recs := m.jobsOf(v)
		if recs.Len() == 0 {
			continue
		}
		vj := VertexJobs{Vertex: v}
		for i := range recs.Len() {
			r := recs.At(i)
			js := JobSpans{Job: r.job, Tagged: r.tagged}
			var err error
			if js.Alloc, err = spanOf(m.plan(v), r.alloc); err != nil {
				return nil, fmt.Errorf("vertex %d job %d: allocation span: %w", v, r.job, err)
			}
			if js.Resv, err = spanOf(m.plan(v), r.resv); err != nil {
				return nil, fmt.Errorf("vertex %d job %d: reservation span: %w", v, r.job, err)
			}
			if js.X, err = spanOf(m.xplan(v), r.xspan); err != nil {
				return nil, fmt.Errorf("vertex %d job %d: exclusivity span: %w", v, r.job, err)
			}
			if f := m.filter(0, v); r.fspan >= 0 && f.ok() {
				s, d, counts, err := f.SpanInfo(r.fspan)
				if err != nil {
					return nil, fmt.Errorf("vertex %d job %d: filter span: %w", v, r.job, err)
				}
				js.Filter = append([]int64{s, d}, counts...)
			}
			vj.Jobs = append(vj.Jobs, js)
		}
		st.Jobs = append(st.Jobs, vj)
	}
	for e := range graph.EdgeID(m.g.NumEdges()) {
		if w := m.weight(e); w != ^uint64(0) {
			st.Weights = append(st.Weights, EdgeWeight{e, w})
		}
	}
	return st, nil
}

// Restore rebuilds a Matcher from a State. Spans are booked again in the
// order the original vertex records list them, which reproduces every
// planner's availability exactly.
func Restore(st *State) (*Matcher, error) {
	if st == nil || st.Graph == nil {
		return nil, fmt.Errorf("match: restore: no graph in state")
	}
	g, err := graph.Import(st.Graph)
	if err != nil {
		return nil, fmt.Errorf("match: restore: %w", err)
	}
	m, err := newShell(g, st.Options, false)
	if err != nil {
		return nil, err
	}
	if err := m.checkRoots(); err != nil {
		return nil, err
	}
	if len(st.Prune) != len(m.subs) {
		return nil, fmt.Errorf("match: restore: %d pruning configurations for %d subsystems", len(st.Prune), len(m.subs))
	}
	nt := graph.TypeID(g.Types.Len())
	m.prune = make([]pruneConf, len(m.subs))
	for i, ps := range st.Prune {
		conf := &m.prune[i]
		conf.anchors = map[graph.TypeID][]graph.TypeID{}
		for _, a := range ps.Anchors {
			if a.Anchor < 0 || a.Anchor >= nt {
				return nil, fmt.Errorf("match: restore: pruning anchor %d out of range", a.Anchor)
			}
			for _, t := range a.Types {
				if t < 0 || t >= nt {
					return nil, fmt.Errorf("match: restore: pruning type %d out of range", t)
				}
			}
			conf.anchors[a.Anchor] = slices.Clone(a.Types)
		}
		for _, t := range ps.Types {
			if t < 0 || t >= nt {
				return nil, fmt.Errorf("match: restore: pruning type %d out of range", t)
			}
			conf.mark(t)
		}
	}
	for _, t := range st.Exclusive {
		if t < 0 || t >= nt {
			return nil, fmt.Errorf("match: restore: exclusive type %d out of range", t)
		}
	}
	m.keepExclusive(st.Exclusive)
	m.initState()
	m.fitScratch()
	m.prime()
	m.nodesUp = st.NodesUp
	nv := graph.VertexID(g.NumVertices())
	for _, vj := range st.Jobs {
		v := vj.Vertex
		if v < 0 || v >= nv {
			return nil, fmt.Errorf("match: restore: job records for vertex %d out of range", v)
		}
		for _, js := range vj.Jobs {
			rec := m.newJob(v, js.Job)
			rec.tagged = js.Tagged
			var err error
			if rec.alloc, err = addSpan(m.wplan(v), js.Alloc); err != nil {
				return nil, fmt.Errorf("match: restore: vertex %d job %d: %w", v, js.Job, err)
			}
			if rec.resv, err = addSpan(m.wplan(v), js.Resv); err != nil {
				return nil, fmt.Errorf("match: restore: vertex %d job %d: %w", v, js.Job, err)
			}
			if rec.xspan, err = addSpan(m.wxplan(v), js.X); err != nil {
				return nil, fmt.Errorf("match: restore: vertex %d job %d: %w", v, js.Job, err)
			}
			if js.Filter != nil {
				f := m.wfilter(0, v)
				if f == nil {
					// A vertex of a removed subgraph: no filter after
					// re-priming, and no walk reaches it any more.
					continue
				}
				if len(js.Filter) != 2+f.Len() {
					return nil, fmt.Errorf("match: restore: vertex %d job %d: filter span does not fit the filter", v, js.Job)
				}
				if rec.fspan, err = f.AddSpanMembers(js.Filter[0], js.Filter[1], js.Filter[2:]); err != nil {
					return nil, fmt.Errorf("match: restore: vertex %d job %d: filter span: %w", v, js.Job, err)
				}
			}
		}
	}
	ne := graph.EdgeID(g.NumEdges())
	for _, ew := range st.Weights {
		if ew.Edge < 0 || ew.Edge >= ne {
			return nil, fmt.Errorf("match: restore: weight of edge %d out of range", ew.Edge)
		}
		m.setWeight(ew.Edge, ew.Weight)
		if src := g.E(ew.Edge).Src; m.dynamic && m.derivedOrder(src) {
			m.worder(src) // a re-keyed order is stored
		}
	}
	for v := range graph.VertexID(nv) {
		if len(st.Weights) == 0 || m.derivedOrder(v) {
			continue
		}
		l := m.worder(v)
		for i := range l {
			l[i].weight = m.weight(l[i].edge)
		}
		sortOut(l)
	}
	return m, nil
}

func addSpan(p *planner.Planner, s []int64) (int64, error) {
	if s == nil {
		return 0, nil
	}
	if len(s) != 3 {
		return 0, fmt.Errorf("span %v is not [start, duration, planned]", s)
	}
	id, err := p.AddSpan(s[0], s[1], s[2])
	if err != nil {
		return 0, fmt.Errorf("span %v does not fit: %w", s, err)
	}
	return id, nil
}
