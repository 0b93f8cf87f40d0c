package rv1

import (
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/hostlist"
	"github.com/gofluxion/gofluxion/internal/idset"
)

// MaxVertices bounds the ranks of an R read by ParseR and the size of a
// graph built by ReadExec and Graph (a clear error instead of exhausting
// memory on an absurd document): graph.DefaultMaxVertices.
// ReadExecLimited and GraphLimited take other limits.
const MaxVertices = graph.DefaultMaxVertices

// R is the execution part of an RFC 20 R document (spec formats.md §3),
// as read by the rv1exec reader. Other members (e.g. "scheduling") are
// ignored.
type R struct {
	Version int64
	// RLite holds the R_lite entries in document order.
	RLite []Entry
	// Nodelist holds the host lists as written (each is validated); their
	// concatenated expansion is Hosts.
	Nodelist []string
	// Properties in document order: each names the ranks whose node
	// vertex gets the property (with an empty value).
	Properties []Property
	// Starttime and Expiration are read when they are numbers (0
	// otherwise); loading ignores them.
	Starttime, Expiration float64
}

// Entry is one R_lite entry: the ranks it covers and, per child type in
// document order, the ids of the children each of those ranks has.
type Entry struct {
	Rank     idset.Set
	Children []Child
}

// Child is one member of an entry's "children" object.
type Child struct {
	Type string
	IDs  idset.Set
}

// Property is one member of the "properties" object.
type Property struct {
	Name  string
	Ranks idset.Set
}

// Error is the error returned by ParseR, ReadExec and (*R).Graph.
type Error struct {
	// Reason describes the problem.
	Reason string

	fluxion string
	err     error
}

// Error returns "rv1exec: reason".
func (e *Error) Error() string { return "rv1exec: " + e.Reason }

// Fluxion returns the text Fluxion's rv1exec reader reports for the same
// failure, where the specification gives one (a duplicate vertex:
// "add_or_update: found duplicate vertex in graph for <name>.\n"), and ""
// otherwise (Fluxion reports no text at all for unparsable JSON; for the
// other structural errors its text is not known).
func (e *Error) Fluxion() string { return e.fluxion }

// Unwrap returns graph.ErrLimit for a document that exceeds a
// graph.ReadLimits limit, and nil otherwise.
func (e *Error) Unwrap() error { return e.err }

func errorf(reason string) *Error { return &Error{Reason: reason} }

// limitErr is the error for a document that exceeds a graph.ReadLimits
// limit (errors.Is(err, graph.ErrLimit)).
func limitErr(reason string) *Error { return &Error{Reason: reason, err: graph.ErrLimit} }

// ReadExec reads an rv1exec document (RFC 20 R; only "version" and
// "execution" are used) into a new graph: ParseR followed by Graph, under
// the default graph.ReadLimits.
func ReadExec(data []byte) (*graph.Graph, error) { return ReadExecLimited(data, graph.ReadLimits{}) }

// ReadExecLimited is ReadExec under the limits l (zero fields take the
// defaults): the document's size, the number of ranks and of vertices
// (MaxVertices) and the total length of the host names and vertex paths
// (MaxPathBytes) are checked before anything is built. The graph is two
// levels deep below its root, whatever the document.
func ReadExecLimited(data []byte, l graph.ReadLimits) (*graph.Graph, error) {
	l = l.WithDefaults()
	if int64(len(data)) > l.MaxInputBytes {
		return nil, limitErr("the document is " + strconv.Itoa(len(data)) + " bytes, more than the limit of " + strconv.FormatInt(l.MaxInputBytes, 10) + " (graph.ReadLimits.MaxInputBytes)")
	}
	r, err := parseR(data, l.MaxVertices)
	if err != nil {
		return nil, err
	}
	return r.GraphLimited(l)
}

// ParseR decodes and validates an R document: version 1, an "execution"
// object with an "R_lite" array of {"rank": IDSET, "children": {TYPE:
// IDSET, ...}} objects and a "nodelist" array of host lists, and an
// optional "properties" object of {NAME: IDSET}. A child TYPE must be
// non-empty, must not contain "/" (it becomes a path component) and must
// not be cluster or node (the types of the vertices the reader makes
// above the children). At most MaxVertices ranks. Errors are *Error.
func ParseR(data []byte) (*R, error) { return parseR(data, MaxVertices) }

func parseR(data []byte, maxRanks int) (*R, error) {
	root, err := decodeJSON(data)
	if err != nil {
		return nil, errorf(err.Error())
	}
	if root.kind != 'o' {
		return nil, errorf("the document is not a JSON object")
	}
	r := &R{}
	ver := root.get("version")
	switch {
	case ver == nil:
		return nil, errorf(`missing "version"`)
	case !ver.isInt():
		return nil, errorf(`"version" is ` + ver.kindName() + ", not an integer")
	}
	r.Version, _ = ver.num.Int64()
	if r.Version != 1 {
		return nil, errorf("unsupported version " + strconv.FormatInt(r.Version, 10) + " (must be 1)")
	}
	exec := root.get("execution")
	if exec == nil || exec.kind != 'o' {
		return nil, errorf(`missing or non-object "execution"`)
	}
	rl := exec.get("R_lite")
	if rl == nil || rl.kind != 'a' {
		return nil, errorf(`missing or non-array "execution.R_lite"`)
	}
	for i, e := range rl.arr {
		where := "R_lite[" + strconv.Itoa(i) + "]"
		if e.kind != 'o' {
			return nil, errorf(where + " is " + e.kindName() + ", not an object")
		}
		rank, err := parseIDSet(e.get("rank"), where+".rank")
		if err != nil {
			return nil, err
		}
		ent := Entry{Rank: rank}
		ch := e.get("children")
		if ch == nil || ch.kind != 'o' {
			return nil, errorf("missing or non-object " + where + ".children")
		}
		for k, typ := range ch.keys {
			if reason := badChildType(typ); reason != "" {
				return nil, errorf(where + ".children: invalid child type " + strconv.Quote(typ) + ": " + reason)
			}
			ids, err := parseIDSet(ch.vals[k], where+".children."+typ)
			if err != nil {
				return nil, err
			}
			ent.Children = append(ent.Children, Child{Type: typ, IDs: ids})
		}
		r.RLite = append(r.RLite, ent)
	}
	if n := r.RankSet().Len(); n > int64(maxRanks) {
		return nil, limitErr("R_lite names " + strconv.FormatInt(n, 10) + " ranks (more than the limit of " + strconv.Itoa(maxRanks) + ")")
	}
	nl := exec.get("nodelist")
	if nl == nil || nl.kind != 'a' {
		return nil, errorf(`missing or non-array "execution.nodelist"`)
	}
	for i, h := range nl.arr {
		where := "nodelist[" + strconv.Itoa(i) + "]"
		if h.kind != 's' {
			return nil, errorf(where + " is " + h.kindName() + ", not a string")
		}
		if _, err := hostlist.Parse(h.str); err != nil {
			return nil, errorf(where + ": " + err.Error())
		}
		r.Nodelist = append(r.Nodelist, h.str)
	}
	if p := exec.get("properties"); p != nil {
		if p.kind != 'o' {
			return nil, errorf(`"execution.properties" is ` + p.kindName() + ", not an object")
		}
		for k, name := range p.keys {
			ranks, err := parseIDSet(p.vals[k], "properties."+name)
			if err != nil {
				return nil, err
			}
			r.Properties = append(r.Properties, Property{Name: name, Ranks: ranks})
		}
	}
	for _, t := range []struct {
		key string
		dst *float64
	}{{"starttime", &r.Starttime}, {"expiration", &r.Expiration}} {
		if v := exec.get(t.key); v != nil && v.kind == 'n' {
			*t.dst, _ = v.num.Float64()
		}
	}
	return r, nil
}

// badChildType says why typ cannot be the type of an R_lite child, or "".
// Fluxion accepts these and builds nonsense: a vertex with an empty type or
// name, a path with an extra component, a second cluster or a node below
// a node.
func badChildType(typ string) string {
	switch {
	case typ == "":
		return "a type must not be empty"
	case strings.Contains(typ, "/"):
		return `a type must not contain "/" (it is a path component)`
	case typ == "cluster" || typ == "node":
		return "the reader makes the " + typ + " vertices itself"
	}
	return ""
}

func parseIDSet(v *jnode, where string) (idset.Set, *Error) {
	if v == nil {
		return idset.Set{}, errorf("missing " + where)
	}
	if v.kind != 's' {
		return idset.Set{}, errorf(where + " is " + v.kindName() + ", not an idset string")
	}
	s, err := idset.Parse(v.str)
	if err != nil {
		return idset.Set{}, errorf(where + ": " + err.Error())
	}
	return s, nil
}

// RankSet returns the union of the ranks of all R_lite entries.
func (r *R) RankSet() idset.Set {
	var s idset.Set
	for _, e := range r.RLite {
		s = s.Union(e.Rank)
	}
	return s
}

// Ranks returns the ranks of all R_lite entries, ascending and without
// duplicates (ParseR rejects an R with more than MaxVertices of them).
func (r *R) Ranks() []int64 { return r.RankSet().Values() }

// Hosts returns the concatenated expansion of the node lists: the k-th
// host belongs to the k-th smallest rank. At most MaxVertices hosts and
// graph.DefaultMaxPathBytes bytes of names.
func (r *R) Hosts() ([]string, error) {
	return r.hosts(graph.ReadLimits{}.WithDefaults())
}

func (r *R) hosts(l graph.ReadLimits) ([]string, error) {
	var n, bytes uint64
	lists := make([]*hostlist.Set, len(r.Nodelist))
	for i, hl := range r.Nodelist {
		h, err := hostlist.Parse(hl)
		if err != nil {
			return nil, errorf("nodelist[" + strconv.Itoa(i) + "]: " + err.Error())
		}
		lists[i] = h
		// Len and Bytes saturate, so the sums cannot wrap past the limits.
		if n += min(h.Len(), uint64(l.MaxVertices)+1); n > uint64(l.MaxVertices) {
			return nil, limitErr("nodelist has more than " + strconv.Itoa(l.MaxVertices) + " hosts")
		}
		if bytes += min(h.Bytes(), uint64(l.MaxPathBytes)+1); bytes > uint64(l.MaxPathBytes) {
			return nil, limitErr("the host names of the nodelist exceed the limit of " + strconv.FormatInt(l.MaxPathBytes, 10) + " bytes (graph.ReadLimits.MaxPathBytes)")
		}
	}
	hosts := make([]string, 0, n)
	for i, h := range lists {
		names, err := h.Hosts()
		if err != nil {
			return nil, errorf("nodelist[" + strconv.Itoa(i) + "]: " + err.Error())
		}
		hosts = append(hosts, names...)
	}
	return hosts, nil
}

// vertexCount is the number of vertices Graph would create (saturating
// above max).
func (r *R) vertexCount(max int64) int64 {
	n := int64(1)
	for _, e := range r.RLite {
		per := int64(1)
		for _, c := range e.Children {
			per += c.IDs.Len()
			if per > max {
				return max + 1
			}
		}
		if nr := e.Rank.Len(); nr > 0 && per > (max+1-n)/nr {
			return max + 1
		}
		n += e.Rank.Len() * per
	}
	return n
}

// pathBytes is the total length of the paths Graph would build (saturating
// above max): "/cluster0", then per rank "/cluster0/<host>" and, per child,
// that followed by "/<type><id>".
func (r *R) pathBytes(hostOf map[int64]string, max int64) int64 {
	n := int64(len("/cluster0"))
	for _, e := range r.RLite {
		for rank := range e.Rank.All() {
			npath := int64(len("/cluster0/") + len(hostOf[rank]))
			n += npath
			if n > max {
				return max + 1
			}
			for _, c := range e.Children {
				// ids have at most 19 digits
				k, per := c.IDs.Len(), npath+1+int64(len(c.Type))+19
				if k > 0 && per > (max-n)/k {
					return max + 1
				}
				n += k * per
			}
		}
	}
	return n
}

// Graph builds the resource graph of r (spec formats.md §3): a root
// cluster0 (type cluster, id 0, rank -1, path /cluster0); then for each
// R_lite entry in order and each of its ranks ascending, the node vertex
// of that rank's host (name = host, basename = host without its trailing
// digits, id = those digits or -1, path /cluster0/<host>) with an edge
// from the root, and its children: per type in document order, per id
// ascending, a vertex <type><id> at /cluster0/<host>/<type><id> with an
// edge from the node. Every vertex has size 1 and the rank of its entry
// (uniq_id = vertex index); all edges are containment edges. Properties
// are set, with empty values, on the node vertices of their ranks (ranks
// without a node are ignored).
//
// The ranks of all entries, as a set, must be exactly as many as the
// hosts of the node lists. A vertex equal (path, rank, id, size, type) to
// one created before is Fluxion's duplicate vertex error (e.g. a rank
// listed by two entries). Graph applies the default graph.ReadLimits.
func (r *R) Graph() (*graph.Graph, error) { return r.GraphLimited(graph.ReadLimits{}) }

// GraphLimited is Graph under the limits l (zero fields take the
// defaults): at most l.MaxVertices vertices and l.MaxPathBytes bytes of
// paths, checked before anything is built.
func (r *R) GraphLimited(l graph.ReadLimits) (*graph.Graph, error) {
	l = l.WithDefaults()
	ranks := r.RankSet()
	var nhosts uint64
	for i, hl := range r.Nodelist {
		h, err := hostlist.Parse(hl)
		if err != nil {
			return nil, errorf("nodelist[" + strconv.Itoa(i) + "]: " + err.Error())
		}
		nhosts += h.Len()
	}
	if uint64(ranks.Len()) != nhosts {
		return nil, errorf("nodelist has " + strconv.FormatUint(nhosts, 10) + " hosts for " + strconv.FormatInt(ranks.Len(), 10) + " ranks")
	}
	maxV := int64(l.MaxVertices)
	nv := r.vertexCount(maxV)
	if nv > maxV {
		return nil, limitErr("the R describes more than " + strconv.Itoa(l.MaxVertices) + " vertices (the limit graph.ReadLimits.MaxVertices)")
	}
	hosts, err := r.hosts(l)
	if err != nil {
		return nil, err
	}
	hostOf := make(map[int64]string, len(hosts))
	k := 0
	for rank := range ranks.All() {
		hostOf[rank] = hosts[k]
		k++
	}
	if r.pathBytes(hostOf, l.MaxPathBytes) > l.MaxPathBytes {
		return nil, limitErr("the vertex paths exceed the limit of " + strconv.FormatInt(l.MaxPathBytes, 10) + " bytes (graph.ReadLimits.MaxPathBytes)")
	}
	propsOf := map[int64][]string{}
	for _, p := range r.Properties {
		for rank := range ranks.All() {
			if p.Ranks.Contains(rank) {
				propsOf[rank] = append(propsOf[rank], p.Name)
			}
		}
	}

	g := graph.New()
	g.Grow(int(nv))
	hint := make([]graph.PathHint, 1) // of the path looked up, for AddVertexHinted
	add := func(vx graph.Vertex, path string) (graph.VertexID, error) {
		for _, u := range g.ByPathHint(path, &hint[0]) {
			ux := g.V(u)
			if ux.Rank == vx.Rank && ux.ID == vx.ID && ux.Size == vx.Size && ux.Type == vx.Type {
				return graph.NoVertex, &Error{
					Reason:  "duplicate vertex " + vx.Name + " at " + path + " (rank " + strconv.FormatInt(vx.Rank, 10) + ")",
					fluxion: "add_or_update: found duplicate vertex in graph for " + vx.Name + ".\n",
				}
			}
		}
		vx.UniqID = int64(g.NumVertices())
		vx.Paths = []graph.Path{{Subsystem: graph.Containment, Path: path}}
		return g.AddVertexHinted(vx, hint), nil
	}
	root, _ := add(graph.Vertex{Type: graph.TypeCluster, Rank: -1, ID: 0, Size: 1, Basename: "cluster", Name: "cluster0"}, "/cluster0")
	if err := g.SetRoot(graph.Containment, root); err != nil {
		return nil, errorf(err.Error())
	}
	for _, e := range r.RLite {
		for rank := range e.Rank.All() {
			host := hostOf[rank]
			digits := trailingDigits(host)
			id := int64(-1)
			if digits != "" {
				if id, err = strconv.ParseInt(digits, 10, 64); err != nil {
					return nil, errorf("host " + strconv.Quote(host) + ": numeric suffix out of the 64-bit range")
				}
			}
			nvx := graph.Vertex{Type: graph.TypeNode, Rank: rank, ID: id, Size: 1, Basename: host[:len(host)-len(digits)], Name: host}
			for _, p := range propsOf[rank] {
				nvx.SetProp(p, "")
			}
			npath := "/cluster0/" + host
			node, err := add(nvx, npath)
			if err != nil {
				return nil, err
			}
			g.AddEdge(root, node, graph.Containment)
			for _, c := range e.Children {
				if c.IDs.Empty() {
					continue
				}
				t := g.Type(c.Type) // types are interned in creation order
				for cid := range c.IDs.All() {
					name := c.Type + strconv.FormatInt(cid, 10)
					v, err := add(graph.Vertex{Type: t, Rank: rank, ID: cid, Size: 1, Basename: c.Type, Name: name}, npath+"/"+name)
					if err != nil {
						return nil, err
					}
					g.AddEdge(node, v, graph.Containment)
				}
			}
		}
	}
	return g, nil
}

// trailingDigits returns the maximal run of decimal digits ending s.
func trailingDigits(s string) string {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	return s[i:]
}
