package emit

import (
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Vertex is one emitted vertex.
type Vertex struct {
	ID         graph.VertexID
	Needs      int64 // units taken (the whole vertex size for find)
	Exclusive  bool
	ExclParent bool // the parent was taken exclusively
	Level      int  // depth from the root, root = 1
	Label      string
	AgFilter   []AgFilter // find in agfilter mode only
}

// AgFilter is one pruning-filter figure reported by find's agfilter mode.
type AgFilter struct {
	Type        string
	Used, Total int64
}

// Writer accumulates one match (or find) and renders it.
type Writer interface {
	Vertex(g *graph.Graph, v *Vertex)
	Edge(g *graph.Graph, e graph.EdgeID, exclParent bool)
	// Times records the start and end of the allocation.
	Times(start, end int64)
	// Attr records a job attribute (the queue).
	Attr(key, value string)
	// Render returns the accumulated output and empties the writer. On
	// error the content is kept and prepended to the next rendering, as
	// Fluxion's writers do.
	Render() (string, error)
}

// Simple renders one line per vertex: indentation by level, name,
// [needs:x|s] (spec formats.md §5.1).
type Simple struct {
	buf    []byte
	pretty bool
	lines  []string
}

// NewSimple returns the "simple" writer.
func NewSimple() *Simple { return &Simple{} }

// NewPrettySimple returns the "pretty_simple" writer: [needs:exclusive] /
// [needs:shared] and the lines in reverse emission order (root first).
func NewPrettySimple() *Simple { return &Simple{pretty: true} }

func (w *Simple) Vertex(g *graph.Graph, v *Vertex) {
	b := w.buf[:0]
	if !w.pretty {
		b = w.buf
	}
	b = append(b, "      "...)
	for i := 0; i < v.Level; i++ {
		b = append(b, "---"...)
	}
	b = append(b, g.V(v.ID).Name...)
	b = append(b, '[')
	b = strconv.AppendInt(b, v.Needs, 10)
	switch {
	case w.pretty && v.Exclusive:
		b = append(b, ":exclusive]\n"...)
	case w.pretty:
		b = append(b, ":shared]\n"...)
	case v.Exclusive:
		b = append(b, ":x]\n"...)
	default:
		b = append(b, ":s]\n"...)
	}
	if w.pretty {
		w.lines = append(w.lines, string(b))
		w.buf = b
		return
	}
	w.buf = b
}

func (w *Simple) Edge(*graph.Graph, graph.EdgeID, bool) {}
func (w *Simple) Times(int64, int64)                    {}
func (w *Simple) Attr(string, string)                   {}

func (w *Simple) Render() (string, error) {
	if w.pretty {
		var sb strings.Builder
		for i := len(w.lines) - 1; i >= 0; i-- {
			sb.WriteString(w.lines[i])
		}
		w.lines = w.lines[:0]
		return sb.String(), nil
	}
	s := string(w.buf)
	w.buf = w.buf[:0]
	return s, nil
}

// Discard is a Writer that drops everything: for probes and benchmarks
// that need a selection made but not rendered.
var Discard Writer = discard{}

type discard struct{}

func (discard) Vertex(*graph.Graph, *Vertex)          {}
func (discard) Edge(*graph.Graph, graph.EdgeID, bool) {}
func (discard) Times(int64, int64)                    {}
func (discard) Attr(string, string)                   {}
func (discard) Render() (string, error)               { return "", nil }
