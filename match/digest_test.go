package match

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Observable digests of a matcher's schedule, read from its side tables
// (planners, exclusivity checkers, pruning filters, per-vertex job records
// and the dynamic child order), for tests that compare states.

// defaultProbes are the times digest looks at: the boundaries the unit
// tests use (durations 1, 10, 50, 100, 3600 from 0 or from multiples).
var defaultProbes = []int64{0, 1, 9, 10, 49, 50, 51, 99, 100, 101, 199, 200, 201, 299, 300, 349, 350, 599, 600,
	3599, 3600, 3601, 7199, 7200, 7201, 10799, 10800, 10801, GraphEnd - 1, GraphEnd}

// digest is the schedule (not the dynamic order, which Fluxion does not
// restore on cancel) at the default probe times.
func digest(m *Matcher) string { return stateDigest(m, defaultProbes, false) }

// stateDigest renders, for every vertex, the free units of its planner,
// exclusivity checker and pruning filter at each probe time, the planners'
// span and point counts, and its job records with span presence; with
// order it adds the dynamic-order weights and child order.
func stateDigest(m *Matcher, probes []int64, order bool) string {
	var b strings.Builder
	for v := range graph.VertexID(m.g.NumVertices()) {
		fmt.Fprintf(&b, "v%d", v)
		p := m.plan(v)
		fmt.Fprintf(&b, " plans(%d,%d)", p.NumSpans(), p.NumPoints())
		for _, t := range probes {
			a, err := p.AvailAt(t)
			fmt.Fprintf(&b, " %d%s", a, errMark(err))
		}
		x := m.xplan(v)
		fmt.Fprintf(&b, " xchk(%d,%d)", x.NumSpans(), x.NumPoints())
		for _, t := range probes {
			a, err := x.AvailAt(t)
			fmt.Fprintf(&b, " %d%s", xCheckerTotal-a, errMark(err))
		}
		if f := m.filter(0, v); f.ok() {
			fmt.Fprintf(&b, " filt(%d)", f.NumSpans())
			for i := 0; i < f.Len(); i++ {
				fmt.Fprintf(&b, " %d:%d/", f.Type(i), f.Total(i))
				for _, t := range probes {
					a, err := f.AvailAt(t, i)
					fmt.Fprintf(&b, " %d%s", a, errMark(err))
				}
			}
		}
		for _, r := range m.jobsOf(v).l {
			fmt.Fprintf(&b, " job%d{a%v r%v x%v f%v t%v}", r.job, r.alloc != 0, r.resv != 0, r.xspan != 0, r.fspan >= 0, r.tagged)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "nodesUp %d\n", m.nodesUp)
	if order {
		fmt.Fprintf(&b, "weights %v\n", weightsOf(m))
		for v := range m.g.NumVertices() {
			l := m.childOrder(graph.VertexID(v)).list()
			if len(l) == 0 {
				continue
			}
			fmt.Fprintf(&b, "out%d", v)
			for _, e := range l {
				fmt.Fprintf(&b, " %d:%d", e.edge, e.weight)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// rawDigest also includes the span ids of the job records: a failed match
// must not even renumber anything.
func rawDigest(m *Matcher, probes []int64) string {
	var b strings.Builder
	b.WriteString(stateDigest(m, probes, true))
	for v := range graph.VertexID(m.g.NumVertices()) {
		for _, r := range m.jobsOf(v).l {
			fmt.Fprintf(&b, "v%d %+v\n", v, r)
		}
	}
	return b.String()
}

func errMark(err error) string {
	if err != nil {
		return "!"
	}
	return ""
}

// diffDigests returns the first differing lines of two digests.
func diffDigests(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(la), len(lb)) && len(out) < 6; i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
	}
	return strings.Join(out, "\n")
}

// parents returns every vertex's dominant parent (NoVertex for the root).
func parents(g *graph.Graph) []graph.VertexID {
	p := make([]graph.VertexID, g.NumVertices())
	for v := range p {
		p[v] = graph.NoVertex
		for _, h := range g.In(graph.VertexID(v)) {
			if h.Subsystem == graph.Containment {
				p[v] = h.Other
				break
			}
		}
	}
	return p
}

// sortedProbes turns a set of boundary times into sorted probe times
// (each boundary and the second before it).
func sortedProbes(set map[int64]bool) []int64 {
	var l []int64
	for t := range set {
		l = append(l, t)
		if t > 0 {
			l = append(l, t-1)
		}
	}
	l = append(l, 0)
	slices.Sort(l)
	return slices.Compact(l)
}

// weightsOf lists the dynamic-order weight of every edge.
func weightsOf(m *Matcher) []uint64 {
	w := make([]uint64, m.g.NumEdges())
	for e := range w {
		w[e] = m.weight(graph.EdgeID(e))
	}
	return w
}

// Test-only reads of a planner.
func (r rPlanner) AvailAt(t int64) (int64, error) { return r.p.AvailAt(t) }
func (r rPlanner) NumSpans() int                  { return r.p.NumSpans() }
func (r rPlanner) NumPoints() int                 { return r.p.NumPoints() }
