// Package gonumgraph exposes a resource graph to gonum
// (gonum.org/v1/gonum/graph): one subsystem of a *graph.Graph as a
// graph.Directed, so gonum's algorithms (paths, topological order,
// connectivity…) run on it, and its DOT encoder draws it (DOT).
//
// This is the only package of the module that imports gonum; the core
// packages stay standard-library only (a test checks both). For drawings
// with schedule state, see package picture.
package gonumgraph

import (
	"fmt"
	"strconv"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/encoding"
	"gonum.org/v1/gonum/graph/encoding/dot"
	"gonum.org/v1/gonum/graph/iterator"

	rgraph "github.com/gofluxion/gofluxion/graph"
)

// Graph is one subsystem of a resource graph as a gonum graph.Directed:
// its nodes are the vertices reachable from the subsystem's root (node id
// = vertex id) and its edges the live edges of the subsystem between
// them. It is a view taken when New is called: do not change the
// resource graph while using it.
type Graph struct {
	g     *rgraph.Graph
	sub   rgraph.SubsystemID
	live  []bool
	nodes []graph.Node // by ascending id
	from  map[int64][]graph.Node
	to    map[int64][]graph.Node
}

var _ graph.Directed = (*Graph)(nil)

// Node is a resource vertex as a gonum node. It carries DOT attributes:
// its name as the DOT id, and its type, path, size and rank.
type Node struct {
	g  *rgraph.Graph
	id rgraph.VertexID
}

// ID returns the vertex id.
func (n Node) ID() int64 { return int64(n.id) }

// Vertex returns the resource vertex.
func (n Node) Vertex() *rgraph.Vertex { return n.g.V(n.id) }

// DOTID is the vertex's name followed by its id, unique in the graph.
func (n Node) DOTID() string { return n.g.V(n.id).Name + "_" + strconv.Itoa(int(n.id)) }

// Attributes are the DOT attributes of the vertex.
func (n Node) Attributes() []encoding.Attribute {
	v := n.g.V(n.id)
	path := ""
	if len(v.Paths) > 0 {
		path = v.Paths[0].Path
	}
	return []encoding.Attribute{
		{Key: "label", Value: strconv.Quote(v.Name)},
		{Key: "type", Value: strconv.Quote(n.g.TypeName(n.id))},
		{Key: "path", Value: strconv.Quote(path)},
		{Key: "size", Value: strconv.FormatInt(v.Size, 10)},
		{Key: "rank", Value: strconv.FormatInt(v.Rank, 10)},
	}
}

// Edge is a resource edge as a gonum edge.
type Edge struct{ F, T Node }

// From returns the parent.
func (e Edge) From() graph.Node { return e.F }

// To returns the child.
func (e Edge) To() graph.Node { return e.T }

// ReversedEdge returns the edge the other way round.
func (e Edge) ReversedEdge() graph.Edge { return Edge{F: e.T, T: e.F} }

// New returns subsystem sub of g ("" is containment) as a gonum graph.
func New(g *rgraph.Graph, sub string) (*Graph, error) {
	if sub == "" {
		sub = "containment"
	}
	id, ok := g.Subsystems.Lookup(sub)
	if !ok || g.Root(rgraph.SubsystemID(id)) == rgraph.NoVertex {
		return nil, fmt.Errorf("gonumgraph: no subsystem %q with a root", sub)
	}
	x := &Graph{g: g, sub: rgraph.SubsystemID(id), live: make([]bool, g.NumVertices()),
		from: map[int64][]graph.Node{}, to: map[int64][]graph.Node{}}
	root := g.Root(x.sub)
	x.live[root] = true
	stack := []rgraph.VertexID{root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, h := range g.Out(v) {
			if h.Subsystem != x.sub || !g.E(h.Edge).Live() {
				continue
			}
			x.from[int64(v)] = append(x.from[int64(v)], Node{g, h.Other})
			x.to[int64(h.Other)] = append(x.to[int64(h.Other)], Node{g, v})
			if !x.live[h.Other] {
				x.live[h.Other] = true
				stack = append(stack, h.Other)
			}
		}
	}
	for v, ok := range x.live {
		if ok {
			x.nodes = append(x.nodes, Node{g, rgraph.VertexID(v)})
		}
	}
	return x, nil
}

func (x *Graph) has(id int64) bool { return id >= 0 && id < int64(len(x.live)) && x.live[id] }

// Node returns the node with the given id, or nil.
func (x *Graph) Node(id int64) graph.Node {
	if !x.has(id) {
		return nil
	}
	return Node{x.g, rgraph.VertexID(id)}
}

// Nodes returns every node, by ascending id.
func (x *Graph) Nodes() graph.Nodes { return iterator.NewOrderedNodes(x.nodes) }

// From returns the children of id.
func (x *Graph) From(id int64) graph.Nodes {
	if l := x.from[id]; len(l) > 0 {
		return iterator.NewOrderedNodes(l)
	}
	return graph.Empty
}

// To returns the parents of id.
func (x *Graph) To(id int64) graph.Nodes {
	if l := x.to[id]; len(l) > 0 {
		return iterator.NewOrderedNodes(l)
	}
	return graph.Empty
}

// HasEdgeFromTo reports whether u is a parent of v.
func (x *Graph) HasEdgeFromTo(uid, vid int64) bool {
	for _, n := range x.from[uid] {
		if n.ID() == vid {
			return true
		}
	}
	return false
}

// HasEdgeBetween reports whether an edge joins x and y either way.
func (x *Graph) HasEdgeBetween(xid, yid int64) bool {
	return x.HasEdgeFromTo(xid, yid) || x.HasEdgeFromTo(yid, xid)
}

// Edge returns the edge from u to v, or nil.
func (x *Graph) Edge(uid, vid int64) graph.Edge {
	if !x.HasEdgeFromTo(uid, vid) {
		return nil
	}
	return Edge{F: Node{x.g, rgraph.VertexID(uid)}, T: Node{x.g, rgraph.VertexID(vid)}}
}

// DOT encodes the graph with gonum's DOT encoder, as a digraph called
// name.
func DOT(x *Graph, name string) ([]byte, error) {
	return dot.Marshal(x, name, "", "  ")
}
