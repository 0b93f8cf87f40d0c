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
	// Schedule, when set, gives each vertex its state at time At (not
	// encoded in JSON: a matcher drawing itself sets its own).
	Schedule Schedule `json:"-"`
	// At is the time, in seconds, that states refer to.
	At int64
	// Name is the graph's name ("" is the root vertex's name).
	Name string
	// Full makes DOT and GraphML draw every selected vertex. Without it a
	// selection of more than MaxVertices vertices is drawn collapsed:
	// nothing below the nodes, each node labelled with the units of each
	// type below it that are in use at At (Collapsed).
	Full bool
	// MaxVertices is the size above which DOT and GraphML collapse a
	// selection (0: DefaultMaxVertices).
	MaxVertices int
	// MaxJobs bounds the job ids a label lists, running and later each
	// (0: DefaultMaxJobs); the rest is counted ("job 4 +57 later").
	MaxJobs int
}

// Defaults of Options.
const (
	DefaultMaxVertices = 120
	DefaultMaxJobs     = 3
)

// State is a vertex's state at a time.
type State string

// The states.
//
// A state is what holds at the picture's time At: a reservation that has
// started by then runs, so it counts as allocated, and a vertex that runs
// a job now is allocated (or partly used) whatever is reserved on it for
// later. Vertex.Later lists the jobs booked for later.
const (
	Free      State = "free"      // nothing booked on or below it at the time
	Partial   State = "partial"   // something below it is booked at the time
	Allocated State = "allocated" // units of it are booked at the time
	Reserved  State = "reserved"  // free at the time, units of it booked later
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
	// (jobs whose bookings end before the time are left out): those of
	// Running, then those of Later.
	Jobs []uint64
	// Running lists the jobs holding the vertex or something below it at
	// the time; Later those whose bookings start after it.
	Running, Later []uint64
	// Collapsed, in a collapsed drawing (see Options.Full), gives a node's
	// units below it by type (sorted), with those in use at the time.
	Collapsed []TypeUse
}

// TypeUse counts the units of one type below a collapsed node.
type TypeUse struct {
	Type       string
	Used, Size int64
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
			own, ownLater, below := false, false, false
			for _, h := range holds {
				if h.End <= o.At {
					continue
				}
				if h.Start <= o.At { // runs at the time
					pv.Running = append(pv.Running, h.Job)
					if h.Own {
						own = true
						pv.Booked += h.Units
					} else {
						below = true
					}
					continue
				}
				pv.Later = append(pv.Later, h.Job)
				ownLater = ownLater || h.Own
			}
			pv.Jobs = append(append(pv.Jobs, pv.Running...), pv.Later...)
			switch {
			case own:
				pv.State = Allocated
			case below:
				pv.State = Partial
			case ownLater:
				pv.State = Reserved
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
// (and "reserved later" when something is booked later too), the jobs
// running and the jobs booked later, at most max ids of each, and a
// collapsed node's units by type.
func label(v Vertex, max int) string {
	var b strings.Builder
	b.WriteString(v.Name)
	if v.Size > 1 {
		fmt.Fprintf(&b, " (%d/%d)", v.Booked, v.Size)
	}
	state := ""
	if v.State != Free {
		state = string(v.State)
	}
	if len(v.Later) > 0 && v.State != Reserved && v.State != Down {
		if state != "" {
			state += ", "
		}
		state += "reserved later"
	}
	if state != "" {
		b.WriteString("\n")
		b.WriteString(state)
	}
	if len(v.Running) > 0 {
		b.WriteString("\n")
		b.WriteString(boundedJobs(v.Running, max, ""))
	}
	if len(v.Later) > 0 {
		b.WriteString("\n")
		b.WriteString(boundedJobs(v.Later, max, " later"))
	}
	for i, u := range v.Collapsed {
		if i%2 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString(" · ")
		}
		fmt.Fprintf(&b, "%s %d/%d", u.Type, u.Used, u.Size)
	}
	return b.String()
}

// boundedJobs lists at most max job ids: "job 4", "jobs 1,2,3 +5",
// "job 4 +57 later" (max 1).
func boundedJobs(jobs []uint64, max int, suffix string) string {
	shown := jobs
	if len(shown) > max {
		shown = shown[:max]
	}
	word := "job "
	if len(shown) > 1 {
		word = "jobs "
	}
	s := word + jobList(shown)
	if n := len(jobs) - len(shown); n > 0 {
		s += " +" + strconv.Itoa(n)
	}
	if suffix != "" {
		s += suffix
	}
	return s
}

// draw returns what DOT and GraphML draw: the selection, collapsed below
// its nodes when it is big and not Full.
func draw(g *graph.Graph, o Options) ([]Vertex, []Edge, error) {
	vs, es, err := Walk(g, o)
	if err != nil || o.Full {
		return vs, es, err
	}
	limit := o.MaxVertices
	if limit <= 0 {
		limit = DefaultMaxVertices
	}
	if len(vs) <= limit {
		return vs, es, nil
	}
	cvs, ces := collapse(g, vs, es)
	return cvs, ces, nil
}

// collapse keeps the vertices down to the nodes (vertices of type node)
// and folds each node's subtree into counts by type of its leaves. A
// selection without nodes is kept whole.
func collapse(g *graph.Graph, vs []Vertex, es []Edge) ([]Vertex, []Edge) {
	parent := map[graph.VertexID]graph.VertexID{}
	for _, e := range es {
		if _, ok := parent[e.To]; !ok {
			parent[e.To] = e.From
		}
	}
	hasChild := map[graph.VertexID]bool{}
	for _, e := range es {
		hasChild[e.From] = true
	}
	index := map[graph.VertexID]int{}
	for i, v := range vs {
		index[v.ID] = i
	}
	// owner: the node a vertex is below (itself for a node), or -1.
	owner := make([]int, len(vs))
	for i, v := range vs { // depth-first order: parents come first
		owner[i] = -1
		if v.Type == "node" {
			owner[i] = i
			continue
		}
		if p, ok := parent[v.ID]; ok {
			if pi, ok := index[p]; ok && pi < i {
				owner[i] = owner[pi]
			}
		}
	}
	nodes := 0
	for i := range vs {
		if owner[i] == i {
			nodes++
		}
	}
	if nodes == 0 {
		return vs, es
	}
	var out []Vertex
	kept := map[graph.VertexID]int{}
	uses := map[int]map[string]*TypeUse{}
	for i, v := range vs {
		switch o := owner[i]; {
		case o < 0 || o == i:
			kept[v.ID] = len(out)
			out = append(out, v)
		case !hasChild[v.ID]:
			m := uses[o]
			if m == nil {
				m = map[string]*TypeUse{}
				uses[o] = m
			}
			u := m[v.Type]
			if u == nil {
				u = &TypeUse{Type: v.Type}
				m[v.Type] = u
			}
			u.Size += v.Size
			u.Used += min(v.Booked, v.Size)
		}
	}
	for o, m := range uses {
		k := kept[vs[o].ID]
		for _, u := range m {
			out[k].Collapsed = append(out[k].Collapsed, *u)
		}
		sort.Slice(out[k].Collapsed, func(a, b int) bool { return out[k].Collapsed[a].Type < out[k].Collapsed[b].Type })
	}
	var ces []Edge
	for _, e := range es {
		_, a := kept[e.From]
		_, b := kept[e.To]
		if a && b {
			ces = append(ces, e)
		}
	}
	return out, ces
}

func jobList(jobs []uint64) string {
	s := make([]string, len(jobs))
	for i, j := range jobs {
		s[i] = strconv.FormatUint(j, 10)
	}
	return strings.Join(s, ",")
}

// DOT writes the selected part of g as a Graphviz digraph: one box per
// vertex, filled by its state at o.At (white free, light yellow partly
// used, salmon allocated, light blue reserved for later only, gray down),
// outlined in blue when something is reserved on or below it for later
// too, and labelled with its name, the booked units of a pool, its state,
// the jobs running and those booked later (at most o.MaxJobs ids each)
// and, collapsed, a node's units by type; the attributes type, path,
// state, jobs (running) and later carry the same for programs. A big
// selection is drawn collapsed below its nodes (see Options.Full).
func DOT(w io.Writer, g *graph.Graph, o Options) error {
	vs, es, err := draw(g, o)
	if err != nil {
		return err
	}
	max := o.MaxJobs
	if max <= 0 {
		max = DefaultMaxJobs
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
			v.ID, dotQuote(label(v, max)), fill[v.State], dotQuote(v.Type), dotQuote(v.Path), dotQuote(string(v.State)))
		if len(v.Later) > 0 && v.State != Reserved && v.State != Down {
			bw.WriteString(", color=blue, penwidth=2") // reserved later too
		}
		if len(v.Running) > 0 {
			fmt.Fprintf(bw, ", jobs=%s", dotQuote(jobList(v.Running)))
		}
		if len(v.Later) > 0 {
			fmt.Fprintf(bw, ", later=%s", dotQuote(jobList(v.Later)))
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
// graph whose nodes carry type, name, path, size, rank, state, jobs
// (running at o.At), later (booked after it) and, collapsed, below (a
// node's units by type, "core 3/32,gpu 0/2"). A big selection is drawn
// collapsed as by DOT.
func GraphML(w io.Writer, g *graph.Graph, o Options) error {
	vs, es, err := draw(g, o)
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
  <key id="later" for="node" attr.name="later" attr.type="string"/>
  <key id="below" for="node" attr.name="below" attr.type="string"/>
`)
	fmt.Fprintf(bw, "  <graph id=%s edgedefault=\"directed\">\n", xmlAttr(o.Name))
	for _, v := range vs {
		fmt.Fprintf(bw, "    <node id=\"v%d\">\n", v.ID)
		for _, kv := range [][2]string{{"type", v.Type}, {"name", v.Name}, {"path", v.Path},
			{"size", strconv.FormatInt(v.Size, 10)}, {"rank", strconv.FormatInt(v.Rank, 10)},
			{"state", string(v.State)}, {"jobs", jobList(v.Running)}, {"later", jobList(v.Later)}, {"below", useList(v.Collapsed)}} {
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

// useList writes a collapsed node's counts: "core 3/32,gpu 0/2".
func useList(us []TypeUse) string {
	s := make([]string, len(us))
	for i, u := range us {
		s[i] = fmt.Sprintf("%s %d/%d", u.Type, u.Used, u.Size)
	}
	return strings.Join(s, ",")
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
