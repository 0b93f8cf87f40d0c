package jgf

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/jsonw"
)

// ErrSingleVertex is returned by Render when exactly one of nodes and
// edges is empty (a one-vertex selection): Fluxion cannot render that and
// keeps the content for the next rendering.
var ErrSingleVertex = errors.New("jgf: cannot render a graph with vertices but no edges (or edges but no vertices)")

// Writer renders a match as a JSON Graph Format document (spec formats.md
// §5.3), or in shorthand form, where everything below an exclusively
// taken vertex is left out (§5.4).
type Writer struct {
	// Status makes the writer include each vertex's status when it is not
	// up (Fluxion's writer never does; graph exports need it to round-trip).
	Status    bool
	shorthand bool
	nodes     []string
	edges     []string
	// omitted is set when the writer first leaves something out and is
	// never cleared: like Fluxion's, every later rendering carries the
	// "writer" key, whether or not it left anything out itself.
	omitted bool
	buf     jsonw.Buf
}

// NewWriter returns a "jgf" writer.
func NewWriter() *Writer { return &Writer{} }

// NewShorthandWriter returns a "jgf_shorthand" writer.
func NewShorthandWriter() *Writer { return &Writer{shorthand: true} }

// Vertex renders one emitted vertex.
func (w *Writer) Vertex(g *graph.Graph, v *emit.Vertex) {
	if w.shorthand && v.ExclParent {
		w.omitted = true
		return
	}
	s := VertexJSON(&w.buf, g, v)
	if w.Status {
		if st := g.V(v.ID).Status; st != graph.StatusUp {
			// Insert "status" right after "rank" (the reader takes any order).
			s = insertAfterRank(s, st)
		}
	}
	w.nodes = append(w.nodes, s)
}

func insertAfterRank(s string, st graph.Status) string {
	i := strings.Index(s, `"rank": `)
	if i < 0 {
		return s
	}
	j := strings.IndexAny(s[i+8:], ",}") + i + 8
	return s[:j] + `, "status": ` + strconv.FormatInt(int64(st), 10) + s[j:]
}

// VertexJSON renders the JGF node object of an emitted vertex.
func VertexJSON(b *jsonw.Buf, g *graph.Graph, v *emit.Vertex) string {
	vx := g.V(v.ID)
	b.Reset()
	b.Open('{')
	b.Key("id")
	b.String(strconv.FormatInt(vx.UniqID, 10))
	b.Key("metadata")
	b.Open('{')
	typ := g.Types.Name(int32(vx.Type))
	b.Key("type")
	b.String(typ)
	if vx.Basename != typ {
		b.Key("basename")
		b.String(vx.Basename)
	}
	if vx.Name != vx.Basename+strconv.FormatInt(vx.ID, 10) {
		b.Key("name")
		b.String(vx.Name)
	}
	b.Key("id")
	b.Int(vx.ID)
	b.Key("rank")
	b.Int(vx.Rank)
	if len(vx.Props()) > 0 {
		b.Key("properties")
		b.Open('{')
		for _, p := range vx.Props() {
			b.Key(p.Key)
			b.String(p.Value)
		}
		b.Close('}')
	}
	if vx.Unit() != "" {
		b.Key("unit")
		b.String(vx.Unit())
	}
	if v.Exclusive {
		b.Key("exclusive")
		b.Bool(true)
	}
	if v.Needs != 1 {
		b.Key("size")
		b.Int(v.Needs)
	}
	if len(vx.Paths) > 0 {
		b.Key("paths")
		b.Open('{')
		for _, p := range vx.Paths {
			b.Key(g.SubsystemName(p.Subsystem))
			b.String(p.Path)
		}
		b.Close('}')
	}
	if v.Label != "" {
		b.Key("ephemeral")
		b.Open('{')
		b.Key("label")
		b.String(v.Label)
		b.Close('}')
	}
	if len(v.AgFilter) > 0 {
		b.Key("agfilter")
		b.Open('{')
		for _, a := range v.AgFilter {
			b.Key(a.Type)
			b.String("used:" + strconv.FormatInt(a.Used, 10) + ", total:" + strconv.FormatInt(a.Total, 10))
		}
		b.Close('}')
	}
	b.Close('}')
	b.Close('}')
	return string(b.B)
}

// Edge renders one emitted edge.
func (w *Writer) Edge(g *graph.Graph, e graph.EdgeID, exclParent bool) {
	if w.shorthand && exclParent {
		w.omitted = true
		return
	}
	ed := g.E(e)
	b := &w.buf
	b.Reset()
	b.Open('{')
	b.Key("source")
	b.String(strconv.FormatInt(g.V(ed.Src).UniqID, 10))
	b.Key("target")
	b.String(strconv.FormatInt(g.V(ed.Dst).UniqID, 10))
	if ed.Subsystem != graph.Containment {
		b.Key("metadata")
		b.Open('{')
		b.Key("subsystem")
		b.String(g.SubsystemName(ed.Subsystem))
		b.Close('}')
	}
	b.Close('}')
	w.edges = append(w.edges, string(b.B))
}

func (w *Writer) Times(int64, int64)  {}
func (w *Writer) Attr(string, string) {}

// Empty reports whether nothing is pending.
func (w *Writer) Empty() bool { return len(w.nodes) == 0 && len(w.edges) == 0 }

// JSON renders the pending content as one JSON object without a trailing
// newline and empties the writer. It returns "" when nothing is pending.
func (w *Writer) JSON() (string, error) {
	if w.Empty() {
		return "", nil
	}
	if len(w.nodes) == 0 || len(w.edges) == 0 {
		return "", ErrSingleVertex
	}
	var b jsonw.Buf
	b.Open('{')
	b.Key("graph")
	b.Open('{')
	b.Key("nodes")
	b.Open('[')
	for _, n := range w.nodes {
		b.Raw(n)
	}
	b.Close(']')
	b.Key("edges")
	b.Open('[')
	for _, e := range w.edges {
		b.Raw(e)
	}
	b.Close(']')
	b.Close('}')
	if w.omitted {
		b.Key("writer")
		b.String("fluxion:jgf_shorthand")
	}
	b.Close('}')
	w.nodes, w.edges = w.nodes[:0], w.edges[:0]
	return string(b.B), nil
}

// Render returns the JSON document and a newline, or "" when empty.
func (w *Writer) Render() (string, error) {
	s, err := w.JSON()
	if err != nil || s == "" {
		return s, err
	}
	return s + "\n", nil
}
