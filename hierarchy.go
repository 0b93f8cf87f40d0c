package gofluxion

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/picture"
)

// Hierarchical instances, as in Flux: a child instance receives part of
// its parent's resources (an allocation of the parent) and schedules
// inside it with a matcher of its own, whose graph is exactly what was
// granted. The two share no memory and no lock: the parent knows the child
// only as the jobs that booked its grant, and the child knows the parent
// only through Interface, so a parent can be in the same process or a
// matcher service elsewhere, and children match in parallel with each other
// and with their parent. Nesting works to any depth: a *Child is itself an
// Interface that grandchildren are made from.
//
// Time confines a child as space does: its jobs run inside its grant's
// window. The child's graph knows no time bounds, so Child checks every
// booking against the window (see Child.Match).

// Grant is what a child holds of its parent: the parent jobs that booked
// its resources. The first part is the allocation the child was made from;
// each Grow adds one. Fluxion books one span per job and vertex and a
// job's R once, so a Grow cannot be added to the first job's booking: it
// is a parent job of its own, listed here, and Child.Release cancels them
// all (once the child's own jobs are canceled).
type Grant struct {
	Parts []GrantPart `json:"parts"`
}

// GrantPart is one parent job of a grant.
type GrantPart struct {
	JobID uint64 `json:"job"` // the job id in the parent
	// Start and End bound the part's window [Start, End) in seconds. Every
	// part ends when the first one does.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// JGF is the scheduling JGF of the part as the parent booked it, less
	// what Shrink gave back.
	JGF string `json:"jgf"`
}

// Window returns the grant's window: from the latest part's start (the
// earliest time at which all of the child's resources are its own) to the
// common end.
func (g Grant) Window() (start, end int64) {
	for i, p := range g.Parts {
		if i == 0 || p.Start > start {
			start = p.Start
		}
		end = p.End
	}
	return start, end
}

// Child is a matcher that schedules inside a grant of its parent. It
// implements Interface, so grandchildren are made from it in turn. Its
// methods are safe for concurrent use.
//
// # A grant the parent took back
//
// The parent may cancel a grant's job (or lose it by Remove, RemoveRanks
// or RestoreFrom) while the child lives. Every operation of the child that
// books or decides (Match, MatchWithID, Update, Satisfiable, Explain,
// SetStatus, Grow, Shrink) first checks that the parent still holds every
// job of the grant over its part's window, and fails with ErrNotFound
// otherwise: the child can no longer book what its parent gave to others.
// Reads of the child's own state (Info, JobTable, FindAt, Status,
// ParseJobspec, Snapshot) and releases (Cancel, PartialCancel) work as
// before, and Release then succeeds: it cancels the child's own jobs
// (they hold nothing real any more) and gives back the parts the parent
// still holds.
//
// The check is cheap: a parent with a ReleaseGeneration method (a
// *Matcher, or a *Child for grandchildren) is asked for that number
// only, and for the grant's jobs only when it changed since the last
// check; other parents (the service client) are asked for each job of the
// grant (Info) at every checked operation. The check runs at the start of
// the operation: a cancel in the parent that races with a child's
// operation is seen by the child's next one.
type Child struct {
	m      *Matcher
	parent Interface
	mu     sync.Mutex // serialises the operations that check the grant
	grant  Grant
	// checked is the parent's ReleaseGeneration at the last successful
	// check of the grant (valid when haveGen).
	checked uint64
	haveGen bool
}

// generation is implemented by parents that count releases (see Child).
type generation interface{ ReleaseGeneration() uint64 }

// ReleaseGeneration is the child's own matcher's (see
// Matcher.ReleaseGeneration), for grandchildren.
func (c *Child) ReleaseGeneration() uint64 { return c.m.ReleaseGeneration() }

// checkGrant verifies that the parent still holds every part of the grant
// (see Child). The caller holds c.mu.
func (c *Child) checkGrant(op string) error {
	gp, hasGen := c.parent.(generation)
	var gen uint64
	if hasGen {
		gen = gp.ReleaseGeneration() // before the jobs are read
		if c.haveGen && gen == c.checked {
			return nil
		}
	}
	for _, p := range c.grant.Parts {
		j, err := c.parent.Info(p.JobID)
		if errors.Is(err, ErrNotFound) || (err == nil && j.State == Canceled) {
			c.haveGen = false
			return newError(op, ErrNotFound, nil, "the parent no longer holds job %d of the child's grant (canceled or removed there): release the child", p.JobID)
		}
		if err != nil {
			return relabel(err, op)
		}
		if p.Start < j.Start || p.End > j.End {
			c.haveGen = false
			return newError(op, ErrNotFound, nil, "the parent holds job %d of the child's grant only over [%d, %d), not [%d, %d): release the child", p.JobID, j.Start, j.End, p.Start, p.End)
		}
	}
	c.checked, c.haveGen = gen, hasGen
	return nil
}

// guarded runs f after checkGrant, under c.mu.
func (c *Child) guarded(op string, f func() error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkGrant(op); err != nil {
		return err
	}
	return f()
}

var _ Interface = (*Child)(nil)

// NewChild makes a child instance from a, an allocation that parent made
// (a.JobID is the parent's job). The child's graph is exactly the
// allocated subgraph, with the units allocated as vertex sizes; its jobs
// run inside a's window. parent must still hold job a.JobID over that
// window (ErrNotFound for an unknown or canceled job, such as an
// allocation of another matcher). Nothing stops two children being made
// from one allocation: each would schedule the same resources, so make one.
func NewChild(parent Interface, a *Allocation, opts Options) (*Child, error) {
	if a == nil || a.JobID == 0 {
		return nil, invalidf("child", "no allocation (a booking match of the parent)")
	}
	doc, err := a.Render("jgf")
	if err != nil {
		return nil, relabel(err, "child")
	}
	return newChild(parent, GrantPart{JobID: a.JobID, Start: a.Start, End: a.End, JGF: strings.TrimSpace(doc)}, opts)
}

// NewChildFromR makes a child instance from job id's R as the parent wrote
// it: an RFC 20 R with its scheduling JGF (the rv1 format), whose
// starttime and expiration give the window. parent must hold job id over
// that window, as for NewChild.
func NewChildFromR(parent Interface, id uint64, R []byte, opts Options) (*Child, error) {
	d, err := parseR("child", R)
	if err != nil {
		return nil, err
	}
	if !d.envelope || d.jgf == nil {
		return nil, invalidf("child", "R needs a scheduling JGF and an execution window (the rv1 format)")
	}
	var top struct {
		Scheduling json.RawMessage `json:"scheduling"`
	}
	if err := json.Unmarshal(R, &top); err != nil {
		return nil, newError("child", ErrInvalid, err, "R: %v", err)
	}
	return newChild(parent, GrantPart{JobID: id, Start: d.start, End: d.start + d.dur, JGF: string(top.Scheduling)}, opts)
}

// checkPart verifies that parent holds grant part p: its job is allocated
// or reserved there over a window that covers the part's. Otherwise the
// child would schedule resources its parent may give to others.
func checkPart(parent Interface, p GrantPart) error {
	j, err := parent.Info(p.JobID)
	if errors.Is(err, ErrNotFound) || (err == nil && j.State == Canceled) {
		return newError("child", ErrNotFound, nil, "the parent holds no job %d (the grant must be a live allocation or reservation of this parent)", p.JobID)
	}
	if err != nil {
		return relabel(err, "child")
	}
	if p.Start < j.Start || p.End > j.End {
		return invalidf("child", "grant window [%d, %d) is not inside parent job %d's window [%d, %d)", p.Start, p.End, p.JobID, j.Start, j.End)
	}
	// The grant may list only what the job holds (and its ancestors): an R
	// or allocation of another job or matcher would hand the child
	// resources the parent gives to others.
	want, err := parsePart(p.JGF)
	if err != nil {
		return nil // the reader reports it
	}
	out, err := parent.FindAt(fmt.Sprintf("jobid-alloc=%d or jobid-reserved=%d", p.JobID, p.JobID), "jgf", p.Start)
	if err != nil {
		return relabel(err, "child")
	}
	held := map[string]bool{}
	if strings.TrimSpace(out) != "" {
		got, err := parsePart(out)
		if err != nil {
			return newError("child", ErrInvalid, err, "reading what parent job %d holds: %v", p.JobID, err)
		}
		for _, n := range got.nodes {
			held[n.path] = true
		}
	}
	for _, n := range want.nodes {
		if !held[n.path] {
			return invalidf("child", "the grant lists %s, which parent job %d does not hold", n.path, p.JobID)
		}
	}
	return nil
}

func newChild(parent Interface, p GrantPart, opts Options) (*Child, error) {
	if parent == nil {
		return nil, invalidf("child", "no parent")
	}
	if p.End <= p.Start {
		return nil, invalidf("child", "empty window [%d, %d)", p.Start, p.End)
	}
	if err := checkPart(parent, p); err != nil {
		return nil, err
	}
	p.JGF = closedJGF(p.JGF)
	g, err := jgf.Read([]byte(p.JGF))
	if err != nil {
		return nil, relabel(err, "child")
	}
	m, err := New(g, opts)
	if err != nil {
		return nil, err
	}
	return &Child{m: m, parent: parent, grant: Grant{Parts: []GrantPart{p}}}, nil
}

// Parent returns the parent the child was made from (or restored with).
func (c *Child) Parent() Interface { return c.parent }

// Matcher returns the child's own matcher, for read-only queries beyond
// Interface (Stat, Jobs, Graph…). Changing its graph through it (Attach,
// Remove…) would take it out of its grant: use Grow and Shrink.
func (c *Child) Matcher() *Matcher { return c.m }

// Grant returns a copy of the child's grant.
func (c *Child) Grant() Grant {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Grant{Parts: slices.Clone(c.grant.Parts)}
}

// errOutside is the error of a booking that would leave the grant's window.
func errOutside(what string, start, end, gs, ge int64, sentinel error) error {
	return newError("child", sentinel, nil, "%s [%d, %d) is not inside the grant's window [%d, %d)", what, start, end, gs, ge)
}

// fit returns js with a duration that keeps a booking at time at inside
// the window (a zero duration, "the whole graph window" in a root
// instance, means "until the grant ends" in a child), or an error when it
// cannot.
func (c *Child) fit(js *jobspec.Jobspec, at int64) (*jobspec.Jobspec, error) {
	gs, ge := c.grant.Window()
	if js == nil {
		return nil, invalidf("child", "nil jobspec")
	}
	if at < gs || at >= ge {
		return nil, errOutside("time", at, at+1, gs, ge, ErrInvalid)
	}
	if js.Duration == 0 {
		cp := *js
		cp.Duration = float64(ge - at)
		return &cp, nil
	}
	d, ok := match.Duration(js.Duration)
	if !ok {
		return nil, invalidf("child", "bad duration %v", js.Duration)
	}
	if d > ge-at {
		return nil, errOutside("job window", at, at+d, gs, ge, ErrUnsatisfiable)
	}
	return js, nil
}

// Match is Matcher.Match inside the grant: at must lie in the grant's
// window (from the start of its latest part), a zero jobspec duration
// lasts until the grant ends, and a job that would end after the grant
// fails with ErrUnsatisfiable (a reservation that would, with ErrBusy).
func (c *Child) Match(op Op, js *jobspec.Jobspec, at int64) (*Allocation, error) {
	return c.match(op, js, 0, false, at)
}

// MatchWithID is Match with a caller-chosen job id.
func (c *Child) MatchWithID(op Op, js *jobspec.Jobspec, id uint64, at int64) (*Allocation, error) {
	return c.match(op, js, id, true, at)
}

func (c *Child) match(op Op, js *jobspec.Jobspec, id uint64, withID bool, at int64) (*Allocation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkGrant("child"); err != nil {
		return nil, err
	}
	if op == Satisfiability {
		return nil, c.m.satisfiable(js, at)
	}
	js, err := c.fit(js, at)
	if err != nil {
		return nil, err
	}
	run := func(op Op) (*Allocation, error) {
		if withID {
			return c.m.MatchWithID(op, js, id, at)
		}
		return c.m.Match(op, js, at)
	}
	_, ge := c.grant.Window()
	if op == AllocateOrElseReserve || op == WithoutAllocatingFuture {
		// A reservation may start late enough to end after the grant: try
		// without booking first, so that a refused one leaves no trace.
		dry, err := run(WithoutAllocatingFuture)
		if err != nil {
			return nil, err
		}
		if dry.End > ge || op == WithoutAllocatingFuture {
			if dry.End > ge {
				return nil, errOutside("reservation", dry.Start, dry.End, at, ge, ErrBusy)
			}
			return dry, nil
		}
	}
	a, err := run(op)
	if err != nil {
		return nil, err
	}
	if a.End > ge { // cannot happen after the dry run; kept as a guard
		if a.JobID != 0 {
			_ = c.m.Cancel(a.JobID)
		}
		return nil, errOutside("reservation", a.Start, a.End, at, ge, ErrBusy)
	}
	return a, nil
}

// Update books an R made elsewhere, as Matcher.Update, if its window lies
// inside the grant's.
func (c *Child) Update(id uint64, R []byte) (*Allocation, error) {
	d, err := parseR("update", R)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkGrant("update"); err != nil {
		return nil, err
	}
	if gs, ge := c.grant.Window(); d.start < gs || d.start+d.dur > ge {
		return nil, errOutside("R window", d.start, d.start+d.dur, gs, ge, ErrInvalid)
	}
	return c.m.Update(id, R)
}

// Satisfiable is Matcher.Satisfiable, once the grant is checked.
func (c *Child) Satisfiable(js *jobspec.Jobspec) error {
	return c.guarded("satisfiable", func() error { return c.m.Satisfiable(js) })
}

// Explain is Matcher.Explain, once the grant is checked.
func (c *Child) Explain(js *jobspec.Jobspec, at int64) (*Explanation, error) {
	var e *Explanation
	err := c.guarded("explain", func() (err error) {
		e, err = c.m.Explain(js, at)
		return err
	})
	return e, err
}

// SetStatus is Matcher.SetStatus, once the grant is checked.
func (c *Child) SetStatus(path string, up bool) error {
	return c.guarded("set status", func() error { return c.m.SetStatus(path, up) })
}

// The rest of Interface reads or releases, which cannot leave the grant.

func (c *Child) ParseJobspec(data []byte) (*jobspec.Jobspec, error) { return c.m.ParseJobspec(data) }
func (c *Child) Cancel(id uint64) error                             { return c.m.Cancel(id) }
func (c *Child) PartialCancel(id uint64, R []byte) (bool, error)    { return c.m.PartialCancel(id, R) }
func (c *Child) Info(id uint64) (Job, error)                        { return c.m.Info(id) }
func (c *Child) JobTable() ([]Job, error)                           { return c.m.JobTable() }
func (c *Child) FindAt(crit, format string, now int64) (string, error) {
	return c.m.FindAt(crit, format, now)
}
func (c *Child) Status(path string) (bool, error)  { return c.m.Status(path) }
func (c *Child) UsageAt(at int64) ([]Usage, error) { return c.m.UsageAt(at) }
func (c *Child) WriteDOT(w io.Writer, opts picture.Options) error {
	return c.m.WriteDOT(w, opts)
}

// Grow asks the parent to match js for the child at time at and attaches
// what it grants to the child's graph. The new part lasts from at until
// the grant ends (js's own duration is ignored). It returns the parent's
// allocation. On error nothing is granted: a booking the child could not
// attach is cancelled in the parent again.
func (c *Child) Grow(js *jobspec.Jobspec, at int64) (*Allocation, error) {
	if js == nil {
		return nil, invalidf("grow", "nil jobspec")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkGrant("grow"); err != nil {
		return nil, err
	}
	_, ge := c.grant.Window()
	if at >= ge {
		return nil, errOutside("grow at", at, at+1, 0, ge, ErrInvalid)
	}
	cp := *js
	cp.Duration = float64(ge - at)
	a, err := c.parent.Match(Allocate, &cp, at)
	if err != nil {
		return nil, relabel(err, "grow")
	}
	doc, err := a.Render("jgf")
	if err == nil {
		doc = closedJGF(doc)
		err = c.attachGrant([]byte(doc))
	}
	if err != nil {
		e := asError("grow", err)
		if cerr := c.parent.Cancel(a.JobID); cerr != nil {
			e = newError("grow", e.Kind, errors.Join(err, cerr), "%s; giving back parent job %d failed too: %v", e.Msg, a.JobID, cerr)
		}
		return nil, e
	}
	c.grant.Parts = append(c.grant.Parts, GrantPart{JobID: a.JobID, Start: a.Start, End: a.End, JGF: strings.TrimSpace(doc)})
	return a, nil
}

// attachGrant attaches a granted subgraph. A vertex the child already has
// must come with the same size: only shared containers (cluster, rack, a
// node shared with others) are granted twice, and Attach reuses them.
func (c *Child) attachGrant(doc []byte) error {
	d, err := jgf.Parse(doc)
	if err != nil {
		return err
	}
	c.m.mu.RLock()
	g := c.m.Graph()
	for _, n := range d.Nodes {
		for _, p := range n.Metadata.Paths {
			for _, v := range g.ByPath(p.Path) {
				if vx := g.V(v); vx.Size != n.Metadata.Size {
					c.m.mu.RUnlock()
					return invalidf("grow", "%s granted again with %d units (the child has %d): pools are granted once", p.Path, n.Metadata.Size, vx.Size)
				}
			}
		}
	}
	c.m.mu.RUnlock()
	return c.m.Attach(doc)
}

// partNode is one vertex of a part's JGF.
type partNode struct {
	raw       json.RawMessage
	id        string
	path      string
	exclusive bool
}

type partDoc struct {
	nodes []partNode
	edges []json.RawMessage
}

func parsePart(s string) (*partDoc, error) {
	var top struct {
		Graph struct {
			Nodes []json.RawMessage `json:"nodes"`
			Edges []json.RawMessage `json:"edges"`
		} `json:"graph"`
	}
	if err := json.Unmarshal([]byte(s), &top); err != nil {
		return nil, err
	}
	d := &partDoc{edges: top.Graph.Edges}
	for _, raw := range top.Graph.Nodes {
		var n struct {
			ID       string `json:"id"`
			Metadata struct {
				Exclusive bool              `json:"exclusive"`
				Paths     map[string]string `json:"paths"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			return nil, err
		}
		d.nodes = append(d.nodes, partNode{raw: raw, id: n.ID, path: n.Metadata.Paths["containment"], exclusive: n.Metadata.Exclusive})
	}
	return d, nil
}

// render writes the nodes that keep(n) accepts, with the edges between
// them (withEdges) or none (a partial-cancel R lists vertices only).
func (d *partDoc) render(keep func(partNode) bool, withEdges bool) string {
	ids := map[string]bool{}
	nodes := []json.RawMessage{}
	for _, n := range d.nodes {
		if keep(n) {
			nodes = append(nodes, n.raw)
			ids[n.id] = true
		}
	}
	edges := []json.RawMessage{}
	for _, raw := range d.edges {
		var e struct{ Source, Target string }
		if withEdges && json.Unmarshal(raw, &e) == nil && ids[e.Source] && ids[e.Target] {
			edges = append(edges, raw)
		}
	}
	b, _ := json.Marshal(map[string]any{"graph": map[string]any{"nodes": nodes, "edges": edges}})
	return string(b)
}

// closedJGF drops the edges of an allocation's JGF whose target was not
// emitted. Fluxion's writer can emit such an edge (seen after partial
// cancels: an exclusive socket's edge to a core that is not listed), and
// a graph cannot be read from it; the edge grants nothing.
func closedJGF(doc string) string {
	d, err := parsePart(doc)
	if err != nil {
		return doc // the reader reports it
	}
	ids := map[string]bool{}
	for _, n := range d.nodes {
		ids[n.id] = true
	}
	for _, raw := range d.edges {
		var e struct{ Source, Target string }
		if json.Unmarshal(raw, &e) != nil || !ids[e.Source] || !ids[e.Target] {
			return d.render(func(partNode) bool { return true }, true)
		}
	}
	return strings.TrimSpace(doc)
}

func under(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }

// Shrink gives the subgraph at path back to the parent: the child removes
// it from its graph, and the parent releases it from the jobs of the
// grant, a whole part with Cancel, else with PartialCancel. Nothing there
// may be booked by a job of the child (ErrBusy). Resources are given back
// as they were granted: path may not lie inside a vertex that was granted
// exclusively, such as one core of a whole socket (ErrInvalid). The shared
// containers above what is given back (a rack, a node shared with others)
// stay in the grant until their part is released whole.
//
// If the parent fails, the child has already removed the subgraph; the
// parts the parent did not release stay in the grant, so the grant still
// says what the parent holds for the child, and Release returns them.
func (c *Child) Shrink(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.checkGrant("shrink"); err != nil {
		return err
	}
	x := c.m
	x.mu.RLock()
	g := x.Graph()
	vs := g.ByPath(path)
	if len(vs) == 0 {
		x.mu.RUnlock()
		return newError("shrink", ErrNotFound, nil, "no resource at path %s", path)
	}
	if len(g.In(vs[len(vs)-1])) == 0 {
		x.mu.RUnlock()
		return invalidf("shrink", "%s is the child's root: use Release", path)
	}
	rec := &emit.Recorder{}
	v := x.view()
	err := v.Find("sched-now=allocated or sched-future=reserved", 0, rec)
	x.views.Put(v)
	if err != nil {
		x.mu.RUnlock()
		return err
	}
	for _, ev := range rec.Vertices() {
		if vx := g.V(ev.ID); len(vx.Paths) > 0 && under(vx.Paths[0].Path, path) {
			x.mu.RUnlock()
			return newError("shrink", ErrBusy, nil, "%s is booked by a job of the child", vx.Paths[0].Path)
		}
	}
	x.mu.RUnlock()

	docs := make([]*partDoc, len(c.grant.Parts))
	for i, p := range c.grant.Parts {
		d, err := parsePart(p.JGF)
		if err != nil {
			return newError("shrink", ErrInvalid, err, "part %d of the grant: %v", p.JobID, err)
		}
		for _, n := range d.nodes {
			// Inside an exclusively granted vertex: the parent can only
			// take it back whole.
			if n.exclusive && n.path != path && under(path, n.path) {
				return invalidf("shrink", "%s lies inside %s, granted whole: shrink that", path, n.path)
			}
		}
		docs[i] = d
	}
	if err := x.Remove(path); err != nil {
		return relabel(err, "shrink")
	}
	var errs []error
	keep := c.grant.Parts[:0]
	for i, p := range c.grant.Parts {
		d := docs[i]
		var gone, left int
		for _, n := range d.nodes {
			if n.exclusive {
				if under(n.path, path) {
					gone++
				} else {
					left++
				}
			}
		}
		switch {
		case left == 0:
			err = c.parent.Cancel(p.JobID)
		case gone > 0:
			_, err = c.parent.PartialCancel(p.JobID, []byte(d.render(func(n partNode) bool { return n.exclusive && under(n.path, path) }, false)))
		default:
			err = nil
		}
		if err != nil {
			errs = append(errs, relabel(err, "shrink"))
			keep = append(keep, p)
			continue
		}
		if left > 0 {
			p.JGF = d.render(func(n partNode) bool { return !under(n.path, path) }, true)
			keep = append(keep, p)
		}
	}
	c.grant.Parts = keep
	// Shared containers that no part lists any more (their part was
	// released whole) leave the child's graph too: nothing is below them.
	listed := map[string]bool{}
	for _, p := range keep {
		if d, err := parsePart(p.JGF); err == nil {
			for _, n := range d.nodes {
				listed[n.path] = true
			}
		}
	}
	var drop []string
	for _, d := range docs {
		for _, n := range d.nodes {
			if !listed[n.path] && !under(n.path, path) && !slices.Contains(drop, n.path) {
				drop = append(drop, n.path)
			}
		}
	}
	slices.SortFunc(drop, func(a, b string) int { return len(a) - len(b) })
	var removed []string
	for _, p := range drop {
		if slices.ContainsFunc(removed, func(r string) bool { return under(p, r) }) {
			continue
		}
		x.mu.RLock()
		vs := x.Graph().ByPath(p)
		isRoot := len(vs) > 0 && len(x.Graph().In(vs[len(vs)-1])) == 0
		x.mu.RUnlock()
		if len(vs) == 0 || isRoot {
			continue
		}
		if err := x.Remove(p); err == nil {
			removed = append(removed, p)
		}
	}
	return joinErrs("shrink", errs)
}

// asError is err as an *Error of operation op.
func asError(op string, err error) *Error {
	if e, ok := relabel(err, op).(*Error); ok {
		return e
	}
	kind := ErrInvalid
	for _, s := range sentinels {
		if errors.Is(err, s) {
			kind = s
			break
		}
	}
	return newError(op, kind, err, "%v", err)
}

// joinErrs reports the parent's failures as one *Error whose kind is the
// first one's.
func joinErrs(op string, errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	first := asError(op, errs[0])
	if len(errs) == 1 {
		return first
	}
	return newError(op, first.Kind, errors.Join(errs...), "%s (and %d more parent errors)", first.Msg, len(errs)-1)
}

// Release cancels every part of the grant in the parent. The child keeps
// its graph and job table but holds nothing any more.
//
// While a job of the child is allocated or reserved, Release refuses with
// ErrBusy and changes nothing, as Shrink does: the parent would give the
// resources to others while the child's job still holds them. Cancel the
// child's jobs first (grandchildren's grants included: they are jobs of
// the child). Once the parent took a part of the grant back (see Child),
// Release cancels the child's jobs itself and gives back the rest. Fluxion has no hierarchy of its own to compare with: this
// is the library's rule.
func (c *Child) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	lost := errors.Is(c.checkGrant("release"), ErrNotFound)
	var live []string
	for _, j := range c.m.Jobs() {
		if j.State == Canceled {
			continue
		}
		if lost {
			// The parent took the grant back: the child's jobs hold
			// nothing real any more.
			if err := c.m.Cancel(j.ID); err != nil {
				return relabel(err, "release")
			}
			continue
		}
		live = append(live, strconv.FormatUint(j.ID, 10))
	}
	if len(live) > 0 {
		if len(live) == 1 {
			return newError("release", ErrBusy, nil, "job %s of the child still holds resources: cancel it first", live[0])
		}
		return newError("release", ErrBusy, nil, "jobs %s of the child still hold resources: cancel them first", strings.Join(live, ", "))
	}
	var errs []error
	keep := c.grant.Parts[:0]
	for _, p := range c.grant.Parts {
		if err := c.parent.Cancel(p.JobID); err != nil && !errors.Is(err, ErrNotFound) {
			errs = append(errs, relabel(err, "release"))
			keep = append(keep, p)
		}
	}
	c.grant.Parts = keep
	return joinErrs("release", errs)
}

// Snapshot writes the child's complete state, its grant included, in the
// snapshot format of Matcher.Snapshot (Restore reads it as a plain
// Matcher; RestoreChild keeps the grant).
func (c *Child) Snapshot(w io.Writer) error {
	c.mu.Lock()
	g := Grant{Parts: slices.Clone(c.grant.Parts)}
	c.mu.Unlock()
	return c.m.snapshotWith(w, &g)
}

// RestoreChild reads a snapshot written by Child.Snapshot and returns the
// child with its grant, attached to parent (the parent's own state is its
// own: restore it separately, and first). A snapshot without a grant is
// refused (ErrSnapshot), and so is a grant whose jobs parent does not hold
// (ErrNotFound) over the grant's windows (ErrInvalid).
func RestoreChild(r io.Reader, parent Interface) (*Child, error) {
	if parent == nil {
		return nil, invalidf("child", "no parent")
	}
	m, g, err := restoreWith(r)
	if err != nil {
		return nil, err
	}
	if g == nil || len(g.Parts) == 0 {
		return nil, newError("restore", ErrSnapshot, nil, "not a child's snapshot (no grant)")
	}
	for _, p := range g.Parts {
		if err := checkPart(parent, p); err != nil {
			return nil, err
		}
	}
	return &Child{m: m, parent: parent, grant: *g}, nil
}
