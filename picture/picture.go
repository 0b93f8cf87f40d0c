package picture

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/match"
)

// Schedule is what a picture reads of a schedule: *match.Matcher has it.
type Schedule interface {
	Holds(v graph.VertexID, dst []match.Hold) []match.Hold
}

// Options choose what to draw.
type Options struct {
	// Subsystem is the subsystem whose edges are drawn; "" is
	// "containment", or the first subsystem with a root.
	Subsystem string
	// Root is the path (in Subsystem) of the subtree to draw; "" draws
	// from the subsystem's root.
	Root string
	// Depth limits the levels drawn below Root (0: all).
	Depth int
	// Schedule, when set, gives each vertex its state at time At.
	Schedule Schedule
	// At is the time, in seconds, that states refer to.
	At int64
	// Name is the graph's name ("" is the root vertex's name).
	Name string
}

// State is a vertex's state at a time.
type State string

// The states.
const (
	Free      State = "free"      // nothing booked on or below it
	Partial   State = "partial"   // something below it is booked
	Allocated State = "allocated" // units of it are allocated
	Reserved  State = "reserved"  // units of it are reserved, now or later
	Down      State = "down"      // it or an ancestor is down
)

// Vertex is one drawn vertex.
type Vertex struct {
	ID         graph.VertexID
	Type, Name string
	Path       string
	Size       int64
	Rank       int64
	State      State
	// Booked is the units booked on the vertex itself at the time.
	Booked int64
	// Jobs lists the jobs holding the vertex or something below it, by id
	// (jobs whose bookings end before the time are left out).
	Jobs []uint64
}

// Edge is one drawn edge.
type Edge struct{ From, To graph.VertexID }

// Walk returns the vertices (in depth-first order from the root) and
// edges that the options select, with their states.
func Walk(g *graph.Graph, o Options) ([]Vertex, []Edge, error) {
	sub, ok := subsystem(g, o.Subsystem)
	if !ok {
		return nil, nil, fmt.Errorf("picture: no subsystem %q with a root", o.Subsystem)
	}
	root := g.Root(sub)
	if o.Root != "" {
		root = graph.NoVertex
		for _, v := range g.ByPath(o.Root) {
			if p, _ := g.V(v).PathIn(sub); p == o.Root {
				root = v
				break
			}
		}
		if root == graph.NoVertex {
			return nil, nil, fmt.Errorf("picture: no vertex at path %q", o.Root)
		}
	}
	type item struct {
		v     graph.VertexID
		depth int
		down  bool
	}
	var vs []Vertex
	var es []Edge
	seen := make([]bool, g.NumVertices())
	seen[root] = true
	downAbove := false
	for _, a := range ancestors(g, sub, root) {
		downAbove = downAbove || g.V(a).Status != graph.StatusUp
	}
	stack := []item{{root, 0, downAbove}}
	var holds []match.Hold
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		vx := g.V(it.v)
		down := it.down || vx.Status != graph.StatusUp
		pv := Vertex{ID: it.v, Type: g.TypeName(it.v), Name: vx.Name, Size: vx.Size, Rank: vx.Rank, State: Free}
		pv.Path, _ = vx.PathIn(sub)
		if o.Schedule != nil {
			holds = o.Schedule.Holds(it.v, holds[:0])
			own, resv, below := false, false, false
			for _, h := range holds {
				if h.End <= o.At {
					continue
				}
				pv.Jobs = append(pv.Jobs, h.Job)
				current := h.Start <= o.At
				switch {
				case h.Own && h.Reserved:
					resv = true
					if current {
						pv.Booked += h.Units
					}
				case h.Own && current:
					own = true
					pv.Booked += h.Units
				case current:
					below = true
				}
			}
			switch {
			case own:
				pv.State = Allocated
			case resv:
				pv.State = Reserved
			case below:
				pv.State = Partial
			}
		}
		if down {
			pv.State = Down
		}
		vs = append(vs, pv)
		if o.Depth > 0 && it.depth >= o.Depth {
			continue
		}
		out := g.Out(it.v)
		for i := len(out) - 1; i >= 0; i-- { // push in reverse: visit in edge order
			h := out[i]
			if h.Subsystem != sub || !g.E(h.Edge).Live() {
				continue
			}
			es = append(es, Edge{it.v, h.Other})
			if !seen[h.Other] {
				seen[h.Other] = true
				stack = append(stack, item{h.Other, it.depth + 1, down})
			}
		}
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].From != es[j].From {
			return es[i].From < es[j].From
		}
		return es[i].To < es[j].To
	})
	return vs, es, nil
}

func subsystem(g *graph.Graph, name string) (graph.SubsystemID, bool) {
	if name == "" {
		if id, ok := g.Subsystems.Lookup("containment"); ok && g.Root(graph.SubsystemID(id)) != graph.NoVertex {
			return graph.SubsystemID(id), true
		}
		for _, s := range g.RootSubsystems() {
			return s, true
		}
		return 0, false
	}
	id, ok := g.Subsystems.Lookup(name)
	if !ok || g.Root(graph.SubsystemID(id)) == graph.NoVertex {
		return 0, false
	}
	return graph.SubsystemID(id), true
}

// ancestors returns v's ancestors in sub, nearest first (bounded by the
// number of vertices, whatever the graph's shape).
func ancestors(g *graph.Graph, sub graph.SubsystemID, v graph.VertexID) []graph.VertexID {
	var out []graph.VertexID
	for n := 0; n < g.NumVertices(); n++ {
		p := graph.NoVertex
		for _, h := range g.In(v) {
			if h.Subsystem == sub && g.E(h.Edge).Live() {
				p = h.Other
				break
			}
		}
		if p == graph.NoVertex {
			break
		}
		out = append(out, p)
		v = p
	}
	return out
}

var fill = map[State]string{Free: "white", Partial: "lightyellow", Allocated: "salmon", Reserved: "lightblue", Down: "gray70"}

// label is the text shown in a vertex: name, units booked of a pool, state
// and jobs.
func label(v Vertex) string {
	var b strings.Builder
	b.WriteString(v.Name)
	if v.Size > 1 {
		fmt.Fprintf(&b, " (%d/%d)", v.Booked, v.Size)
	}
	if v.State != Free {
		b.WriteString("\n")
		b.WriteString(string(v.State))
	}
	if len(v.Jobs) > 0 {
		b.WriteString("\njobs ")
		b.WriteString(jobList(v.Jobs))
	}
	return b.String()
}

func jobList(jobs []uint64) string {
	s := make([]string, len(jobs))
	for i, j := range jobs {
		s[i] = strconv.FormatUint(j, 10)
	}
	return strings.Join(s, ",")
}

// DOT writes the selected part of g as a Graphviz digraph: one box per
// vertex, filled by state (white free, light yellow partly used, salmon
// allocated, light blue reserved, gray down) and labelled with its name,
// the booked units of a pool, its state and jobs; the attributes type,
// path, state and jobs carry the same for programs.
func DOT(w io.Writer, g *graph.Graph, o Options) error {
	vs, es, err := Walk(g, o)
	if err != nil {
		return err
	}
	name := o.Name
	if name == "" && len(vs) > 0 {
		name = vs[0].Name
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(name))
	bw.WriteString("  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n")
	for _, v := range vs {
		fmt.Fprintf(bw, "  v%d [label=%s, fillcolor=%s, type=%s, path=%s, state=%s",
			v.ID, dotQuote(label(v)), fill[v.State], dotQuote(v.Type), dotQuote(v.Path), dotQuote(string(v.State)))
		if len(v.Jobs) > 0 {
			fmt.Fprintf(bw, ", jobs=%s", dotQuote(jobList(v.Jobs)))
		}
		bw.WriteString("];\n")
	}
	for _, e := range es {
		fmt.Fprintf(bw, "  v%d -> v%d;\n", e.From, e.To)
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// GraphML writes the selected part of g as a GraphML document: a directed
// graph whose nodes carry type, name, path, size, rank, state and jobs.
func GraphML(w io.Writer, g *graph.Graph, o Options) error {
	vs, es, err := Walk(g, o)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="name" for="node" attr.name="name" attr.type="string"/>
  <key id="path" for="node" attr.name="path" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"/>
  <key id="rank" for="node" attr.name="rank" attr.type="long"/>
  <key id="state" for="node" attr.name="state" attr.type="string"/>
  <key id="jobs" for="node" attr.name="jobs" attr.type="string"/>
`)
	fmt.Fprintf(bw, "  <graph id=%s edgedefault=\"directed\">\n", xmlAttr(o.Name))
	for _, v := range vs {
		fmt.Fprintf(bw, "    <node id=\"v%d\">\n", v.ID)
		for _, kv := range [][2]string{{"type", v.Type}, {"name", v.Name}, {"path", v.Path},
			{"size", strconv.FormatInt(v.Size, 10)}, {"rank", strconv.FormatInt(v.Rank, 10)},
			{"state", string(v.State)}, {"jobs", jobList(v.Jobs)}} {
			fmt.Fprintf(bw, "      <data key=\"%s\">%s</data>\n", kv[0], xmlText(kv[1]))
		}
		bw.WriteString("    </node>\n")
	}
	for i, e := range es {
		fmt.Fprintf(bw, "    <edge id=\"e%d\" source=\"v%d\" target=\"v%d\"/>\n", i, e.From, e.To)
	}
	bw.WriteString("  </graph>\n</graphml>\n")
	return bw.Flush()
}

var xmlEsc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

func xmlText(s string) string { return xmlEsc.Replace(s) }
func xmlAttr(s string) string {
	if s == "" {
		s = "G"
	}
	return `"` + xmlEsc.Replace(s) + `"`
}

var dotEsc = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// dotQuote is a DOT double-quoted string ("\n" is a line break in labels).
func dotQuote(s string) string { return `"` + dotEsc.Replace(s) + `"` }
