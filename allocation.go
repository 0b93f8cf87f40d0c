package gofluxion

import (
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
)

// Allocation is the result of a successful match: which job got what, and
// when. It renders in every match format.
type Allocation struct {
	JobID uint64 // 0 for WithoutAllocating and WithoutAllocatingFuture
	// Reserved reports a reservation: the job starts later than asked.
	Reserved   bool
	Start, End int64 // the booked window [Start, End)
	// Resources lists the selected vertices in emission order (post-order:
	// children before their parent).
	Resources []Resource
	// Overhead is the wall time the match took.
	Overhead time.Duration

	g      *graph.Graph
	rec    *emit.Recorder
	format string
}

// Resource is one selected vertex of an Allocation.
type Resource struct {
	Path      string // containment (dominant) path, e.g. /demo0/rack0/node3
	Type      string
	Name      string
	ID        int64
	Rank      int64 // the broker rank, -1 when the vertex has none
	Units     int64 // units taken (a pool may be taken partly)
	Exclusive bool
}

func newAllocation(g *graph.Graph, rec *emit.Recorder, id uint64, start, at int64, format string) *Allocation {
	a := &Allocation{JobID: id, Reserved: start > at, Start: start, g: g, rec: rec, format: format}
	a.End = start
	for _, v := range rec.Vertices() {
		vx := g.V(v.ID)
		path := ""
		if len(vx.Paths) > 0 {
			path = vx.Paths[0].Path
		}
		a.Resources = append(a.Resources, Resource{
			Path: path, Type: g.TypeName(v.ID), Name: vx.Name, ID: vx.ID, Rank: vx.Rank,
			Units: v.Needs, Exclusive: v.Exclusive,
		})
	}
	if s, e, ok := rec.Window(); ok {
		a.Start, a.End = s, e
	}
	return a
}

// Render renders the allocation in a match format: simple, pretty_simple,
// jgf, jgf_shorthand, rlite, rv1, rv1_nosched or rv1_shorthand.
func (a *Allocation) Render(format string) (string, error) {
	w, err := NewWriter(format)
	if err != nil {
		return "", err
	}
	a.rec.Replay(a.g, w)
	return w.Render()
}

// String renders the allocation in the Matcher's default format (rv1
// unless Options.Format says otherwise); it returns "" if that fails.
func (a *Allocation) String() string {
	s, _ := a.Render(a.format)
	return s
}
