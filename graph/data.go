package graph

import (
	"fmt"
	"slices"
	"strings"
)

// Data is a plain, serialisable copy of a graph: every vertex and edge
// slot (removed edges included, so ids keep their meaning), the interning
// tables and the indexes exactly as they are (they can differ from what
// the vertices alone imply once subgraphs were removed and attached).
type Data struct {
	Types      []string     `json:"types"`
	Subsystems []string     `json:"subsystems"`
	Vertices   []VertexData `json:"vertices"`
	Edges      []EdgeData   `json:"edges"`
	Roots      []VertexID   `json:"roots"`
	ByType     [][]VertexID `json:"by_type"`
	ByName     []IndexEntry `json:"by_name"`
	ByRank     []RankEntry  `json:"by_rank"`
	ByPath     []IndexEntry `json:"by_path"`
	NodeRank   int64        `json:"node_rank"`
}

// VertexData is one vertex of Data.
type VertexData struct {
	Type     TypeID      `json:"t"`
	Status   Status      `json:"st,omitempty"`
	Rank     int64       `json:"r"`
	ID       int64       `json:"id"`
	UniqID   int64       `json:"u"`
	Size     int64       `json:"sz"`
	Basename string      `json:"b"`
	Name     string      `json:"n"`
	Unit     string      `json:"un,omitempty"`
	Props    [][2]string `json:"pr,omitempty"`
	Paths    []PathData  `json:"p,omitempty"`
}

// PathData is one path of a vertex.
type PathData struct {
	Subsystem SubsystemID `json:"s"`
	Path      string      `json:"p"`
}

// EdgeData is one edge slot of Data.
type EdgeData struct {
	Src       VertexID    `json:"s"`
	Dst       VertexID    `json:"d"`
	Subsystem SubsystemID `json:"ss,omitempty"`
	Removed   bool        `json:"x,omitempty"`
}

// IndexEntry is one key of a name or path index.
type IndexEntry struct {
	Key      string     `json:"k"`
	Vertices []VertexID `json:"v"`
}

// RankEntry is one key of the rank index.
type RankEntry struct {
	Rank     int64      `json:"k"`
	Vertices []VertexID `json:"v"`
}

// Export returns a serialisable copy of g. Index entries come out in key
// order, so the same graph always exports the same way.
func (g *Graph) Export() *Data {
	d := &Data{
		Types:      slices.Clone(g.Types.list),
		Subsystems: slices.Clone(g.Subsystems.list),
		Vertices:   make([]VertexData, len(g.vertices)),
		Edges:      make([]EdgeData, len(g.edges)),
		Roots:      slices.Clone(g.roots),
		ByType:     make([][]VertexID, len(g.byType)),
		NodeRank:   g.nodeRank,
	}
	for i := range g.vertices {
		v := &g.vertices[i]
		vd := VertexData{Type: v.Type, Status: v.Status, Rank: v.Rank, ID: v.ID, UniqID: v.UniqID, Size: v.Size,
			Basename: v.Basename, Name: v.Name, Unit: v.Unit()}
		for _, p := range v.Props() {
			vd.Props = append(vd.Props, [2]string{p.Key, p.Value})
		}
		for _, p := range v.Paths {
			vd.Paths = append(vd.Paths, PathData(p))
		}
		d.Vertices[i] = vd
	}
	for i, e := range g.edges {
		d.Edges[i] = EdgeData{Src: e.Src, Dst: e.Dst, Subsystem: e.Subsystem, Removed: e.dead}
	}
	for t, l := range g.byType {
		d.ByType[t] = slices.Clone(l)
	}
	for _, k := range sortedKeys(g.byName) {
		d.ByName = append(d.ByName, IndexEntry{k, slices.Clone(g.byName[k])})
	}
	g.eachPath(func(p string, l []VertexID) { d.ByPath = append(d.ByPath, IndexEntry{p, slices.Clone(l)}) })
	slices.SortFunc(d.ByPath, func(a, b IndexEntry) int { return strings.Compare(a.Key, b.Key) })
	ranks := make([]int64, 0, len(g.byRank))
	for r := range g.byRank {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	for _, r := range ranks {
		d.ByRank = append(d.ByRank, RankEntry{r, slices.Clone(g.byRank[r])})
	}
	return d
}

func sortedKeys(m map[string][]VertexID) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Import rebuilds a graph from d, checking that every reference is in
// range. Adjacency lists are rebuilt in edge id order without the removed
// edges, which is the order the original graph had.
func Import(d *Data) (*Graph, error) {
	nv, ne := len(d.Vertices), len(d.Edges)
	nt, ns := len(d.Types), len(d.Subsystems)
	if nt < len(typePrefix) || !slices.Equal(d.Types[:len(typePrefix)], typePrefix) {
		return nil, fmt.Errorf("graph: type table does not start with the fixed prefix")
	}
	if ns < 1 || d.Subsystems[0] != subsystemPrefix[0] {
		return nil, fmt.Errorf("graph: subsystem table does not start with containment")
	}
	g := &Graph{
		Types:      NewNames(d.Types...),
		Subsystems: NewNames(d.Subsystems...),
		vertices:   make([]Vertex, nv),
		edges:      make([]Edge, ne),
		roots:      slices.Clone(d.Roots),
		byType:     make([][]VertexID, len(d.ByType)),
		byName:     make(map[string][]VertexID, len(d.ByName)),
		byRank:     make(map[int64][]VertexID, len(d.ByRank)),
		pidx:       newPathIndex(),
		nodeRank:   d.NodeRank,
	}
	if g.Types.Len() != nt || g.Subsystems.Len() != ns {
		return nil, fmt.Errorf("graph: duplicate names in the type or subsystem table")
	}
	okV := func(v VertexID) bool { return v >= 0 && int(v) < nv }
	for i, vd := range d.Vertices {
		if vd.Type < 0 || int(vd.Type) >= nt {
			return nil, fmt.Errorf("graph: vertex %d: type %d out of range", i, vd.Type)
		}
		v := Vertex{Type: vd.Type, Status: vd.Status, Rank: vd.Rank, ID: vd.ID, UniqID: vd.UniqID, Size: vd.Size,
			Basename: vd.Basename, Name: vd.Name}
		var props []Property
		for _, p := range vd.Props {
			props = append(props, Property{p[0], p[1]})
		}
		if !slices.IsSortedFunc(props, cmpProp) {
			return nil, fmt.Errorf("graph: vertex %d: properties not sorted by key", i)
		}
		v.SetUnit(vd.Unit)
		v.SetProps(props)
		for _, p := range vd.Paths {
			if p.Subsystem < 0 || int(p.Subsystem) >= ns {
				return nil, fmt.Errorf("graph: vertex %d: subsystem %d out of range", i, p.Subsystem)
			}
			v.Paths = append(v.Paths, Path(p))
		}
		g.vertices[i] = v
	}
	g.out.lists = make([]adjList, nv)
	g.in.lists = make([]adjList, nv)
	for i, ed := range d.Edges {
		if !okV(ed.Src) || !okV(ed.Dst) || ed.Subsystem < 0 || int(ed.Subsystem) >= ns {
			return nil, fmt.Errorf("graph: edge %d out of range", i)
		}
		g.edges[i] = Edge{Src: ed.Src, Dst: ed.Dst, Subsystem: ed.Subsystem, dead: ed.Removed}
		if !ed.Removed {
			g.out.add(ed.Src, Half{EdgeID(i), ed.Dst, ed.Subsystem})
			g.in.add(ed.Dst, Half{EdgeID(i), ed.Src, ed.Subsystem})
		}
	}
	g.out.compact()
	g.in.compact()
	for _, r := range g.roots {
		if r != NoVertex && !okV(r) {
			return nil, fmt.Errorf("graph: root %d out of range", r)
		}
	}
	check := func(what string, l []VertexID) error {
		for _, v := range l {
			if !okV(v) {
				return fmt.Errorf("graph: %s index refers to vertex %d out of range", what, v)
			}
		}
		return nil
	}
	for t, l := range d.ByType {
		if err := check("type", l); err != nil {
			return nil, err
		}
		g.byType[t] = slices.Clone(l)
	}
	for _, e := range d.ByName {
		if err := check("name", e.Vertices); err != nil {
			return nil, err
		}
		g.byName[e.Key] = slices.Clone(e.Vertices)
	}
	for _, e := range d.ByRank {
		if err := check("rank", e.Vertices); err != nil {
			return nil, err
		}
		g.byRank[e.Rank] = slices.Clone(e.Vertices)
	}
	for _, e := range d.ByPath {
		if err := check("path", e.Vertices); err != nil {
			return nil, err
		}
		g.setPathList(e.Key, e.Vertices)
	}
	return g, nil
}
