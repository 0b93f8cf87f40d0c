package match

import (
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/rv1"
)

// Applying an existing R (spec traversal.md §15): the reader part finds the
// R's vertices in the graph, books the exclusive ones and stamps the edges
// between them; the update walk then tags, books the exclusivity checkers and
// filters, and emits, exactly as after a match.

// booked remembers the planner spans a reader booked, to undo them on error.
type booked struct {
	v    graph.VertexID
	span int64
}

// checkUpdate is what the library checks before applying an R, beyond
// Fluxion: the job must hold nothing yet and the window must end within
// the graph's. Fluxion (FluxionFailures) books past the end of the window
// and over an existing job's records.
func (m *Matcher) checkUpdate(jobid uint64, at, duration int64) error {
	if m.opts.FluxionFailures {
		return nil
	}
	if m.holds(jobid) {
		return m.jobExists("update", jobid)
	}
	if duration > 0 && at >= 0 && (at > GraphEnd || duration > GraphEnd-at) {
		m.msg.WriteString("update: the window [" + strconv.FormatInt(at, 10) + ", " + strconv.FormatInt(at, 10) + "+" +
			strconv.FormatInt(duration, 10) + ") ends after the graph's end (" + strconv.FormatInt(GraphEnd, 10) + " s).\n")
		m.errno = EINVAL
		return m.opError("update")
	}
	if duration < 0 {
		m.msg.WriteString("update: negative duration (" + strconv.FormatInt(duration, 10) + ").\n")
		m.errno = EINVAL
		return m.opError("update")
	}
	return nil
}

func (m *Matcher) beginUpdate(jobid uint64, at, duration int64) {
	m.tick()
	m.cur.jobid = jobid
	m.cur.at, m.cur.now = at, at
	m.cur.duration = duration
	m.cur.atype = atAlloc
	m.cur.fromR = true
	m.cur.cons = nil
	m.cur.queue = ""
	m.resetExcl(nil)
	if m.exactUpdate() {
		// The R says what is exclusive: the policy's exclusive types
		// would emit the whole subtree of a vertex of such a type, also
		// what the R does not list and the reader did not book.
		clear(m.cur.excl)
	}
}

// exactUpdate reports whether an update from an R books exactly what it
// emits, the library's semantics (without FluxionQuirks): a vertex the R
// marks exclusive must be free of other jobs below it over the window, the
// policy's exclusive types do not extend the R, and an rv1exec R's node
// is exclusive only when booked whole. Fluxion (FluxionQuirks) emits the
// whole subtree of a vertex of an exclusive type, books none of what the
// R does not list, checks only the listed vertices' own planners, and
// marks every node of an rv1exec R exclusive.
func (m *Matcher) exactUpdate() bool { return !m.opts.FluxionQuirks && !m.opts.FluxionFailures }

// unavailable is the errno of an update over a vertex another job holds:
// Fluxion's EINVAL, or EBUSY for the library.
func (m *Matcher) unavailable() Errno {
	if m.exactUpdate() {
		return EBUSY
	}
	return EINVAL
}

// bookWhole books v's whole size for the current job, recording it as an
// allocation; it fails when v is not entirely free in the window.
// With exactUpdate, v must also have no other job below it (its
// exclusivity checker free over the window): taking it exclusively covers
// its whole subtree, listed in the R or not (attached since, say).
func (m *Matcher) bookWhole(v graph.VertexID, done *[]booked) bool {
	size := m.g.V(v).Size
	if m.exactUpdate() {
		if n, err := m.xplan(v).AvailDuring(m.cur.at, m.cur.duration); err != nil || n < xCheckerTotal {
			return false
		}
	}
	span, err := m.wplan(v).AddSpan(m.cur.at, m.cur.duration, size)
	if err != nil {
		return false
	}
	rec := m.newJob(v, m.cur.jobid)
	rec.alloc = span
	*done = append(*done, booked{v, span})
	return true
}

func (m *Matcher) undoBooked(done []booked) {
	for _, b := range done {
		m.wplan(b.v).RemSpan(b.span)
		m.releases++
		if rec := m.wjob(b.v, m.cur.jobid); rec != nil && rec.alloc == b.span {
			rec.alloc = 0
			m.dropIfEmpty(b.v, m.cur.jobid)
		}
	}
}

// finishUpdate runs the update walk if the reader connected the root.
func (m *Matcher) finishUpdate(w emit.Writer) int {
	if m.virtualEdge(m.dom).seq != m.seq {
		return 0
	}
	if m.update(w, false) != 0 {
		return -1
	}
	return 0
}

// isRootPath reports whether p names a subsystem root ("/x").
func isRootPath(p string) bool { return strings.Count(p, "/") == 1 }

// UpdateJGF applies an R in JGF form as job jobid running [at, at+duration)
// (resource-query's `update allocate jgf`). With shorthand, every exclusive
// vertex stands for its whole containment subtree (Fluxion cannot expand
// it on a graph read from JGF, see shorthandBlocked). On failure nothing
// is booked, unless FluxionFailures keeps Fluxion's half-done booking. It emits and books exactly the R's vertices; a vertex the R
// marks exclusive needs no other job below it over the window, and one
// another job holds fails with ErrBusy (see the package doc, "Updates
// book what they emit"; FluxionQuirks gives Fluxion's answers).
func (m *Matcher) UpdateJGF(doc *jgf.Document, shorthand bool, jobid uint64, at, duration int64, w emit.Writer) error {
	m.msg.Reset()
	m.beginOp()
	if at < 0 {
		m.errno = EINVAL
		return m.opError("update")
	}
	if err := m.checkUpdate(jobid, at, duration); err != nil {
		return err
	}
	m.beginUpdate(jobid, at, duration)
	if at < 0 || duration == 0 {
		m.msg.WriteString("update: invalid time (" + strconv.FormatInt(at, 10) + ", " + strconv.FormatInt(duration, 10) + ").\n")
		m.errno = EINVAL
		return m.opError("update")
	}
	g := m.g
	ids := make(map[string]graph.VertexID, len(doc.Nodes))
	idx := make(map[string]int, len(doc.Nodes))
	var done []booked
	fail := func(msg string) *Error {
		m.undoBooked(done)
		m.msg.WriteString(msg)
		m.errno = EINVAL
		return m.opError("update")
	}
	busy := func(v graph.VertexID) error {
		err := fail(g.V(v).Name + " is unavailable.\n")
		err.Errno = m.unavailable()
		return err
	}
	var listed map[graph.VertexID]bool
	if m.exactUpdate() {
		listed = make(map[graph.VertexID]bool, len(doc.Nodes))
	}
	for i := range doc.Nodes {
		n := &doc.Nodes[i]
		v, msg := m.findJGFVertex(n)
		if msg != "" {
			return fail(msg)
		}
		if listed != nil {
			if listed[v] {
				return fail("the R lists " + g.V(v).Name + " twice.\n")
			}
			listed[v] = true
		}
		ids[n.ID] = v
		idx[n.ID] = i
		if n.Metadata.Exclusive {
			if !m.bookWhole(v, &done) {
				return busy(v)
			}
			if shorthand {
				sub := m.collectSubtree(v, nil)[1:]
				if msg := m.shorthandBlocked(v, sub); msg != "" && !m.exactUpdate() {
					if m.opts.FluxionFailures {
						// Fluxion fails here and keeps what it booked so
						// far, this vertex included, under a job it never
						// records.
						m.msg.WriteString(msg)
						m.errno = EINVAL
						return m.opError("update")
					}
					return fail(msg)
				}
				for _, d := range sub {
					if !m.bookWhole(d, &done) {
						return busy(d)
					}
					if p := m.domParent(d); p != graph.NoVertex {
						if e, ok := g.FindEdge(p, d); ok {
							m.setStamp(e, stamp{seq: m.seq, needs: g.V(d).Size, excl: true})
						}
					}
				}
			}
		} else if a, err := m.plan(v).AvailDuring(at, duration); err != nil || a < g.V(v).Size {
			return busy(v)
		}
	}
	rootDone := false
	for i := range doc.Edges {
		e := &doc.Edges[i]
		src, ok1 := ids[e.Source]
		dst, ok2 := ids[e.Target]
		if !ok1 || !ok2 {
			return fail("source and/or target vertex not found" + e.Source + " -> " + e.Target + ".\n")
		}
		sn, tn := &doc.Nodes[idx[e.Source]], &doc.Nodes[idx[e.Target]]
		if !rootDone && len(sn.Metadata.Paths) > 0 && isRootPath(sn.Metadata.Paths[0].Path) {
			// The virtual in-edge of the root of that path's subsystem: an R
			// made under another dominant subsystem applies without
			// emission (spec §15 step 3).
			if id, ok := g.Subsystems.Lookup(sn.Metadata.Paths[0].Subsystem); ok {
				*m.virtualEdge(graph.SubsystemID(id)) = stamp{seq: m.seq, needs: sn.Metadata.Size, excl: sn.Metadata.Exclusive}
			}
			rootDone = true
		}
		ge, ok := g.FindEdge(src, dst)
		if !ok {
			return fail("JGF edge from " + e.Source + " to " + e.Target + " not found in resource graph.\n")
		}
		m.setStamp(ge, stamp{seq: m.seq, needs: tn.Metadata.Size, excl: tn.Metadata.Exclusive})
	}
	if m.finishUpdate(w) != 0 {
		m.undoBooked(done)
		return m.opError("update")
	}
	return nil
}

// shorthandBlocked returns Fluxion's error when it cannot expand the
// exclusive vertex v of a jgf_shorthand R into its subtree sub, else "".
// Found on Fluxion's outputs (conformance-flex): the expansion works on
// graphs whose vertices' unique ids are their creation indices (GRUG,
// hwloc and rv1exec readers) and fails on a JGF-loaded graph (unique ids
// from the file) with "update_tgt_edge: JGF edge ... not found", after
// booking v. A leaf (no subtree) is applied as in a plain JGF R.
func (m *Matcher) shorthandBlocked(v graph.VertexID, sub []graph.VertexID) string {
	if len(sub) == 0 {
		return ""
	}
	g := m.g
	if g.V(v).UniqID == int64(v) {
		ok := true
		for _, d := range sub {
			if g.V(d).UniqID != int64(d) {
				ok = false
				break
			}
		}
		if ok {
			return ""
		}
	}
	d := sub[0]
	return "update_tgt_edge: JGF edge from " + strconv.FormatInt(g.V(v).UniqID, 10) + " to " +
		strconv.FormatInt(g.V(d).UniqID, 10) + " not found in resource graph.\n"
}

// findJGFVertex finds the graph vertex a JGF node of an R describes; msg is
// Fluxion's error text when there is none or it differs.
func (m *Matcher) findJGFVertex(n *jgf.Node) (graph.VertexID, string) {
	g := m.g
	md := &n.Metadata
	v := graph.NoVertex
	for _, p := range md.Paths {
		found := graph.NoVertex
		for _, c := range g.ByPath(p.Path) {
			if g.V(c).Rank == md.Rank {
				found = c
				break
			}
		}
		if found == graph.NoVertex {
			return graph.NoVertex, "exist: inconsistent input vertex: nonexistent path (" + p.Path + ") " + n.ID + ".\n"
		}
		if v != graph.NoVertex && v != found {
			return graph.NoVertex, "find_vtx: inconsistent input vertex for " + n.ID + ".\n"
		}
		v = found
	}
	if v == graph.NoVertex {
		return graph.NoVertex, "find_vtx: inconsistent input vertex for " + n.ID + ".\n"
	}
	vx := g.V(v)
	if g.TypeName(v) != md.Type || vx.Basename != md.Basename || vx.Size != md.Size || vx.Rank != md.Rank ||
		vx.ID != md.ID || vx.Name != md.Name || !m.samePaths(vx, md.Paths) {
		return graph.NoVertex, "find_vtx: inconsistent input vertex for " + n.ID + ".\n"
	}
	return v, ""
}

func (m *Matcher) samePaths(vx *graph.Vertex, paths []jgf.Path) bool {
	if len(vx.Paths) != len(paths) {
		return false
	}
	for _, p := range paths {
		id, ok := m.g.Subsystems.Lookup(p.Subsystem)
		if !ok {
			return false
		}
		if got, ok := vx.PathIn(graph.SubsystemID(id)); !ok || got != p.Path {
			return false
		}
	}
	return true
}

// hostID is the number at the end of a host name (-1 if none).
func hostID(h string) int64 {
	i := len(h)
	for i > 0 && h[i-1] >= '0' && h[i-1] <= '9' {
		i--
	}
	if i == len(h) {
		return -1
	}
	n, err := strconv.ParseInt(h[i:], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// UpdateRV1Exec applies an RFC 20 R (its execution part) as job jobid
// running [at, at+duration) (resource-query's `update allocate rv1exec`).
// Like Fluxion it only fits graphs shaped like an rv1exec-loaded one: each
// host directly under the containment root, its resources directly under
// the host. On failure nothing is booked. A node is taken whole, and
// emitted exclusive, only when the R lists every other vertex of its rank
// (with FluxionQuirks it is emitted exclusive in any case).
func (m *Matcher) UpdateRV1Exec(r *rv1.R, jobid uint64, at, duration int64, w emit.Writer) error {
	m.msg.Reset()
	m.beginOp()
	if at < 0 {
		m.errno = EINVAL
		return m.opError("update")
	}
	if err := m.checkUpdate(jobid, at, duration); err != nil {
		return err
	}
	m.beginUpdate(jobid, at, duration)
	g := m.g
	root := g.Root(graph.Containment)
	if root == graph.NoVertex {
		m.errno = EINVAL
		return m.opError("update")
	}
	rootPath, _ := g.V(root).PathIn(graph.Containment)
	hosts, err := r.Hosts()
	if err != nil {
		m.msg.WriteString(err.Error() + "\n")
		m.errno = EINVAL
		return m.opError("update")
	}
	ranks := r.Ranks()
	hostOf := func(rank int64) string {
		for i, x := range ranks {
			if x == rank && i < len(hosts) {
				return hosts[i]
			}
		}
		return ""
	}
	var done []booked
	fail := func(msg string) *Error {
		m.undoBooked(done)
		m.msg.WriteString(msg)
		m.errno = EINVAL
		return m.opError("update")
	}
	find := func(path string, rank int64, ok func(*graph.Vertex) bool) graph.VertexID {
		for _, v := range g.ByPath(path) {
			if vx := g.V(v); vx.Rank == rank && ok(vx) {
				return v
			}
		}
		return graph.NoVertex
	}
	for _, ent := range r.RLite {
		for rank := range ent.Rank.All() {
			host := hostOf(rank)
			npath := rootPath + "/" + host
			node := find(npath, rank, func(vx *graph.Vertex) bool {
				return vx.Type == graph.TypeNode && vx.ID == hostID(host) && vx.Size == 1
			})
			if node == graph.NoVertex {
				return fail("add_or_update: couldn't find vertex in graph for " + host + ".\nunpack_rank: failed unpacking rank for " + host + ".\n")
			}
			nbooked := 0
			for _, ch := range ent.Children {
				for id := range ch.IDs.All() { // lazily: the first id the graph lacks ends the loop
					name := ch.Type + strconv.FormatInt(id, 10)
					v := find(npath+"/"+name, rank, func(vx *graph.Vertex) bool { return vx.Size == 1 })
					if v == graph.NoVertex {
						return fail("add_or_update: couldn't find vertex in graph for " + name + ".\nunpack_child: failed unpacking child for " + name + ".\n")
					}
					if a, err := m.plan(v).AvailDuring(at, duration); err != nil || a < g.V(v).Size || !m.bookWhole(v, &done) {
						err := fail("update_vertex: " + name + " is unavailable.\nunpack_child: failed unpacking child for " + name + ".\n")
						err.Errno = m.unavailable()
						return err
					}
					nbooked++
					if e, ok := g.FindEdge(node, v); ok {
						m.setStamp(e, stamp{seq: m.seq, needs: g.V(v).Size, excl: true})
					}
				}
			}
			// The host itself is taken whole only when the R lists every
			// other vertex of its rank. Fluxion marks it exclusive in any
			// case; the library only when it is taken whole.
			whole := nbooked == len(g.ByRank(rank))-1
			if whole && !m.bookWhole(node, &done) {
				err := fail("update_vertex: " + host + " is unavailable.\n")
				err.Errno = m.unavailable()
				return err
			}
			if e, ok := g.FindEdge(root, node); ok {
				m.setStamp(e, stamp{seq: m.seq, needs: g.V(node).Size, excl: whole || !m.exactUpdate()})
			}
		}
	}
	*m.virtualEdge(graph.Containment) = stamp{seq: m.seq, needs: g.V(root).Size, excl: false}
	if m.finishUpdate(w) != 0 {
		m.undoBooked(done)
		return m.opError("update")
	}
	return nil
}
