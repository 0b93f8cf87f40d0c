package gofluxion

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// An Allocation travels between processes (the matcher service and its
// client) as a self-contained document: its exported fields, and what its
// renderings need, namely the emitted vertices and edges (with every
// attribute a writer reads) and the emission events in order. The
// receiving side gets an Allocation that renders every match format
// exactly as the sender's would, without the sender's graph.
const allocationWireVersion = 1

type wireAllocation struct {
	Version    int          `json:"version"`
	Fields     allocFields  `json:"fields"`
	Format     string       `json:"format"`
	Types      []string     `json:"types"`
	Subsystems []string     `json:"subsystems"`
	Vertices   []wireVertex `json:"vertices"`
	Edges      []wireEdge   `json:"edges"`
	Events     []wireEvent  `json:"events"`
	Times      *[2]int64    `json:"times,omitempty"`
	Attrs      [][2]string  `json:"attrs,omitempty"`
	// Leaf says, by Resources index, that the vertex has no children in
	// the sender's graph (the emitted subgraph cannot tell).
	Leaf []bool `json:"leaf,omitempty"`
}

// allocFields is Allocation without its methods, so that encoding/json
// carries every exported field (present and future) and only those.
type allocFields Allocation

type wireVertex struct {
	Type     int32       `json:"t"`
	Status   int64       `json:"st,omitempty"`
	Rank     int64       `json:"r"`
	ID       int64       `json:"id"`
	UniqID   int64       `json:"u"`
	Size     int64       `json:"sz"`
	Basename string      `json:"b"`
	Name     string      `json:"n"`
	Unit     string      `json:"un,omitempty"`
	Props    [][2]string `json:"pr,omitempty"`
	Paths    [][2]any    `json:"p,omitempty"` // [subsystem index, path]
}

type wireEdge struct {
	Src, Dst  int32
	Subsystem int32
}

// wireEvent is one writer call: a vertex (V set) or an edge.
type wireEvent struct {
	V          *emit.Vertex `json:"v,omitempty"`
	Edge       int32        `json:"e,omitempty"`
	ExclParent bool         `json:"x,omitempty"`
}

// capture records writer calls in order.
type capture struct {
	events []wireEvent
	times  *[2]int64
	attrs  [][2]string
	verts  map[graph.VertexID]int32
	edges  map[graph.EdgeID]int32
	g      *graph.Graph
	out    *wireAllocation
}

func (c *capture) vertex(v graph.VertexID) int32 {
	if i, ok := c.verts[v]; ok {
		return i
	}
	vx := c.g.V(v)
	w := wireVertex{Type: c.intern(&c.out.Types, c.g.TypeName(v)), Status: int64(vx.Status), Rank: vx.Rank, ID: vx.ID,
		UniqID: vx.UniqID, Size: vx.Size, Basename: vx.Basename, Name: vx.Name, Unit: vx.Unit()}
	for _, p := range vx.Props() {
		w.Props = append(w.Props, [2]string{p.Key, p.Value})
	}
	for _, p := range vx.Paths {
		w.Paths = append(w.Paths, [2]any{c.intern(&c.out.Subsystems, c.g.SubsystemName(p.Subsystem)), p.Path})
	}
	i := int32(len(c.out.Vertices))
	c.out.Vertices = append(c.out.Vertices, w)
	c.verts[v] = i
	return i
}

func (c *capture) intern(l *[]string, s string) int32 {
	if i := slices.Index(*l, s); i >= 0 {
		return int32(i)
	}
	*l = append(*l, s)
	return int32(len(*l) - 1)
}

func (c *capture) Vertex(g *graph.Graph, v *emit.Vertex) {
	cv := *v
	cv.ID = graph.VertexID(c.vertex(v.ID))
	c.events = append(c.events, wireEvent{V: &cv})
}

func (c *capture) Edge(g *graph.Graph, e graph.EdgeID, exclParent bool) {
	i, ok := c.edges[e]
	if !ok {
		ed := g.E(e)
		i = int32(len(c.out.Edges))
		c.out.Edges = append(c.out.Edges, wireEdge{c.vertex(ed.Src), c.vertex(ed.Dst), c.intern(&c.out.Subsystems, g.SubsystemName(ed.Subsystem))})
		c.edges[e] = i
	}
	c.events = append(c.events, wireEvent{Edge: i, ExclParent: exclParent})
}

func (c *capture) Times(start, end int64)  { c.times = &[2]int64{start, end} }
func (c *capture) Attr(key, value string)  { c.attrs = append(c.attrs, [2]string{key, value}) }
func (c *capture) Render() (string, error) { return "", nil }

// MarshalBinary encodes the allocation for another process (a versioned
// JSON document; see UnmarshalBinary). Allocations of a remote matcher
// encode the same way.
func (a *Allocation) MarshalBinary() ([]byte, error) {
	out := &wireAllocation{Version: allocationWireVersion, Fields: allocFields(*a), Format: a.format, Leaf: a.leaf}
	if a.rec != nil && a.g != nil {
		c := &capture{verts: map[graph.VertexID]int32{}, edges: map[graph.EdgeID]int32{}, g: a.g, out: out}
		if a.mu != nil {
			a.mu.RLock()
		}
		a.rec.Replay(a.g, c)
		if a.mu != nil {
			a.mu.RUnlock()
		}
		out.Events, out.Times, out.Attrs = c.events, c.times, c.attrs
	}
	return json.Marshal(out)
}

// UnmarshalBinary decodes an allocation written by MarshalBinary. The
// result renders every match format as the original did; it carries only
// the allocated part of the graph.
func (a *Allocation) UnmarshalBinary(data []byte) error {
	var in wireAllocation
	if err := json.Unmarshal(data, &in); err != nil {
		return newError("decode allocation", ErrInvalid, err, "%v", err)
	}
	if in.Version != allocationWireVersion {
		return invalidf("decode allocation", "version %d, want %d", in.Version, allocationWireVersion)
	}
	bad := func(what string, args ...any) error {
		return invalidf("decode allocation", what, args...)
	}
	g := graph.New()
	types := make([]graph.TypeID, len(in.Types))
	for i, t := range in.Types {
		types[i] = g.Type(t)
	}
	subs := make([]graph.SubsystemID, len(in.Subsystems))
	for i, s := range in.Subsystems {
		subs[i] = g.Subsystem(s)
	}
	for i, w := range in.Vertices {
		if w.Type < 0 || int(w.Type) >= len(types) {
			return bad("vertex %d has type %d", i, w.Type)
		}
		v := graph.Vertex{Type: types[w.Type], Status: graph.Status(w.Status), Rank: w.Rank, ID: w.ID, UniqID: w.UniqID,
			Size: w.Size, Basename: w.Basename, Name: w.Name}
		v.SetUnit(w.Unit)
		for _, p := range w.Props {
			v.SetProp(p[0], p[1])
		}
		id := g.AddVertex(v)
		for _, p := range w.Paths {
			s, ok1 := p[0].(float64)
			path, ok2 := p[1].(string)
			if !ok1 || !ok2 || s < 0 || int(s) >= len(subs) {
				return bad("vertex %d has a bad path", i)
			}
			g.AddPath(id, subs[int(s)], path)
		}
	}
	nv := int32(len(in.Vertices))
	for i, e := range in.Edges {
		if e.Src < 0 || e.Src >= nv || e.Dst < 0 || e.Dst >= nv || e.Subsystem < 0 || int(e.Subsystem) >= len(subs) {
			return bad("edge %d is out of range", i)
		}
		g.AddEdge(graph.VertexID(e.Src), graph.VertexID(e.Dst), subs[e.Subsystem])
	}
	rec := &emit.Recorder{}
	for i, ev := range in.Events {
		if ev.V != nil {
			if ev.V.ID < 0 || int32(ev.V.ID) >= nv {
				return bad("event %d names vertex %d", i, ev.V.ID)
			}
			if ev.V.Level < 0 || ev.V.Level > int(nv) { // a level is a depth in the emitted tree
				return bad("event %d has level %d", i, ev.V.Level)
			}
			rec.Vertex(g, ev.V)
			continue
		}
		if ev.Edge < 0 || int(ev.Edge) >= len(in.Edges) {
			return bad("event %d names edge %d", i, ev.Edge)
		}
		rec.Edge(g, graph.EdgeID(ev.Edge), ev.ExclParent)
	}
	if in.Times != nil {
		rec.Times(in.Times[0], in.Times[1])
	}
	for _, kv := range in.Attrs {
		rec.Attr(kv[0], kv[1])
	}
	if len(in.Leaf) != len(in.Fields.Resources) {
		return bad("%d leaf flags for %d resources", len(in.Leaf), len(in.Fields.Resources))
	}
	*a = Allocation(in.Fields)
	a.g, a.rec, a.format, a.leaf, a.mu = g, rec, in.Format, in.Leaf, &sync.RWMutex{}
	return nil
}
