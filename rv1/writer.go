package rv1

import (
	"errors"
	"sort"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/hostlist"
	"github.com/gofluxion/gofluxion/internal/idset"
	"github.com/gofluxion/gofluxion/internal/introsort"
	"github.com/gofluxion/gofluxion/internal/jsonw"
	"github.com/gofluxion/gofluxion/jgf"
)

// ErrEmpty is returned when no node carries any core or gpu: there is no
// R_lite to render (Fluxion fails with EINVAL).
var ErrEmpty = errors.New("rv1: nothing to render: no core or gpu under a node")

// ErrNegativeRank is returned when an emitted node has a negative rank.
var ErrNegativeRank = errors.New("rv1: a node with a negative rank cannot be rendered")

type record struct {
	rank int64
	name string
}

// rlite gathers core and gpu ids per node into R_lite entries (spec
// formats.md §5.5).
type rlite struct {
	pending [2][]int64 // core, gpu
	sigs    map[string][]record
	props   map[string][]int64
}

func (r *rlite) vertex(g *graph.Graph, v *emit.Vertex) {
	vx := g.V(v.ID)
	switch vx.Type {
	case graph.TypeCore:
		r.pending[0] = append(r.pending[0], vx.ID)
	case graph.TypeGPU:
		r.pending[1] = append(r.pending[1], vx.ID)
	case graph.TypeNode, graph.TypeStorageNode:
		if len(r.pending[0]) == 0 && len(r.pending[1]) == 0 {
			return
		}
		var b jsonw.Buf
		b.Open('{')
		for i, key := range [2]string{"core", "gpu"} {
			if len(r.pending[i]) > 0 {
				b.Key(key)
				b.String(idset.Encode(r.pending[i]))
				r.pending[i] = r.pending[i][:0]
			}
		}
		b.Close('}')
		if r.sigs == nil {
			r.sigs = map[string][]record{}
			r.props = map[string][]int64{}
		}
		sig := string(b.B)
		r.sigs[sig] = append(r.sigs[sig], record{vx.Rank, vx.Name})
		for _, p := range vx.Props() {
			k := p.Key
			if p.Value != "" {
				k += "=" + p.Value
			}
			r.props[k] = append(r.props[k], vx.Rank)
		}
	}
}

func (r *rlite) empty() bool { return len(r.sigs) == 0 }

func (r *rlite) reset() {
	clear(r.sigs)
	clear(r.props)
}

func sortRecords(l []record) {
	introsort.Sort(l, func(a, b *record) bool { return a.rank < b.rank })
}

// render writes the R_lite array; it also returns the hosts in rank order.
func (r *rlite) render(b *jsonw.Buf) ([]string, error) {
	keys := make([]string, 0, len(r.sigs))
	for k := range r.sigs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var all []record
	b.Open('[')
	for _, k := range keys {
		recs := r.sigs[k]
		sortRecords(recs)
		ranks := make([]int64, 0, len(recs))
		for _, rec := range recs {
			if rec.rank < 0 {
				return nil, ErrNegativeRank
			}
			ranks = append(ranks, rec.rank)
		}
		all = append(all, recs...)
		b.Open('{')
		b.Key("rank")
		b.String(idset.Encode(ranks))
		b.Key("children")
		b.Raw(k)
		b.Close('}')
	}
	b.Close(']')
	sortRecords(all)
	hosts := make([]string, len(all))
	for i, rec := range all {
		hosts[i] = rec.name
	}
	return hosts, nil
}

// Format selects one of the R writers.
type Format int

const (
	// RLite renders only the R_lite array.
	RLite Format = iota
	// RV1NoSched renders an RFC 20 R without the scheduling key.
	RV1NoSched
	// RV1 renders an RFC 20 R with a JGF scheduling key.
	RV1
	// RV1Shorthand is RV1 with a jgf_shorthand scheduling key.
	RV1Shorthand
)

// Writer renders a match as R (spec formats.md §5.5-§5.8).
type Writer struct {
	format     Format
	rl         rlite
	jgf        *jgf.Writer
	start, end int64
	queue      string
}

// NewWriter returns a writer for one of the R formats.
func NewWriter(f Format) *Writer {
	w := &Writer{format: f}
	switch f {
	case RV1:
		w.jgf = jgf.NewWriter()
	case RV1Shorthand:
		w.jgf = jgf.NewShorthandWriter()
	}
	return w
}

func (w *Writer) Vertex(g *graph.Graph, v *emit.Vertex) {
	w.rl.vertex(g, v)
	if w.jgf != nil {
		w.jgf.Vertex(g, v)
	}
}

func (w *Writer) Edge(g *graph.Graph, e graph.EdgeID, exclParent bool) {
	if w.jgf != nil {
		w.jgf.Edge(g, e, exclParent)
	}
}

// Times records starttime and expiration.
func (w *Writer) Times(start, end int64) { w.start, w.end = start, end }

// Attr records the queue; like Fluxion's writer it is never cleared.
func (w *Writer) Attr(key, value string) {
	if key == "queue" {
		w.queue = value
	}
}

// Render renders the pending R and empties the writer.
func (w *Writer) Render() (string, error) {
	if w.rl.empty() {
		// Only the bare R_lite writer fails; the R writers print nothing
		// and (for rv1) keep their JGF part for the next rendering.
		if w.format == RLite {
			return "", ErrEmpty
		}
		return "", nil
	}
	var b jsonw.Buf
	if w.format == RLite {
		if _, err := w.rl.render(&b); err != nil {
			return "", err
		}
		w.rl.reset()
		return string(b.B) + "\n", nil
	}
	b.Open('{')
	b.Key("version")
	b.Int(1)
	b.Key("execution")
	b.Open('{')
	b.Key("R_lite")
	hosts, err := w.rl.render(&b)
	if err != nil {
		return "", err
	}
	b.Key("nodelist")
	b.Open('[')
	b.String(hostlist.Encode(hosts))
	b.Close(']')
	if len(w.rl.props) > 0 {
		keys := make([]string, 0, len(w.rl.props))
		for k := range w.rl.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.Key("properties")
		b.Open('{')
		for _, k := range keys {
			b.Key(k)
			b.String(idset.Encode(w.rl.props[k]))
		}
		b.Close('}')
	}
	b.Key("starttime")
	b.Int(w.start)
	b.Key("expiration")
	b.Int(w.end)
	b.Close('}')
	if w.jgf != nil {
		s, err := w.jgf.JSON()
		if err != nil {
			return "", err
		}
		if s == "" {
			return "", ErrEmpty
		}
		b.Key("scheduling")
		b.Raw(s)
	}
	if w.queue != "" && w.format != RV1NoSched {
		b.Key("attributes")
		b.Open('{')
		b.Key("system")
		b.Open('{')
		b.Key("scheduler")
		b.Open('{')
		b.Key("queue")
		b.String(w.queue)
		b.Close('}')
		b.Close('}')
		b.Close('}')
	}
	b.Close('}')
	w.rl.reset()
	return string(b.B) + "\n", nil
}
