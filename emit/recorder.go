package emit

import "github.com/gofluxion/gofluxion/graph"

// Recorder is a Writer that keeps what it is given so it can be replayed
// into any other writer later: a selection can then be rendered in every
// format, any number of times.
type Recorder struct {
	events     []event
	vertices   []Vertex
	start, end int64
	timed      bool
	attrs      [][2]string
}

type event struct {
	vertex     int // index into vertices, or -1 for an edge
	edge       graph.EdgeID
	exclParent bool
}

func (r *Recorder) Vertex(g *graph.Graph, v *Vertex) {
	c := *v
	c.AgFilter = append([]AgFilter(nil), v.AgFilter...)
	r.vertices = append(r.vertices, c)
	r.events = append(r.events, event{vertex: len(r.vertices) - 1})
}

func (r *Recorder) Edge(g *graph.Graph, e graph.EdgeID, exclParent bool) {
	r.events = append(r.events, event{vertex: -1, edge: e, exclParent: exclParent})
}

func (r *Recorder) Times(start, end int64) { r.start, r.end, r.timed = start, end, true }

func (r *Recorder) Attr(key, value string) { r.attrs = append(r.attrs, [2]string{key, value}) }

// Render returns "": a Recorder renders nothing itself (see Replay).
func (r *Recorder) Render() (string, error) { return "", nil }

// Vertices returns the recorded vertices in emission order.
func (r *Recorder) Vertices() []Vertex { return r.vertices }

// Edges returns the recorded edges in emission order.
func (r *Recorder) Edges() []graph.EdgeID {
	var out []graph.EdgeID
	for _, e := range r.events {
		if e.vertex < 0 {
			out = append(out, e.edge)
		}
	}
	return out
}

// Window returns the recorded start and end times, if any.
func (r *Recorder) Window() (start, end int64, ok bool) { return r.start, r.end, r.timed }

// Empty reports whether nothing was recorded.
func (r *Recorder) Empty() bool { return len(r.events) == 0 }

// Reset forgets everything recorded.
func (r *Recorder) Reset() {
	r.events, r.vertices, r.attrs = r.events[:0], r.vertices[:0], r.attrs[:0]
	r.timed = false
}

// Replay feeds the recording to w in the original order.
func (r *Recorder) Replay(g *graph.Graph, w Writer) {
	for _, e := range r.events {
		if e.vertex >= 0 {
			v := r.vertices[e.vertex]
			w.Vertex(g, &v)
		} else {
			w.Edge(g, e.edge, e.exclParent)
		}
	}
	if r.timed {
		w.Times(r.start, r.end)
	}
	for _, a := range r.attrs {
		w.Attr(a[0], a[1])
	}
}
