package graph

// Option adjusts a vertex made by Builder.Add.
type Option func(*Vertex)

// WithBasename sets the name stem (default: the type).
func WithBasename(b string) Option { return func(v *Vertex) { v.Basename = b } }

// WithName sets the display name (default: basename + id).
func WithName(n string) Option { return func(v *Vertex) { v.Name = n } }

// WithSize sets the pool size (default 1).
func WithSize(n int64) Option { return func(v *Vertex) { v.Size = n } }

// WithUnit sets the unit label.
func WithUnit(u string) Option { return func(v *Vertex) { v.SetUnit(u) } }

// WithRank sets the broker rank (default: node vertices are numbered 0, 1, …
// in creation order, everything else gets -1, as the GRUG reader does).
func WithRank(r int64) Option { return func(v *Vertex) { v.Rank = r } }

// WithProperty adds a property.
func WithProperty(key, value string) Option { return func(v *Vertex) { v.SetProp(key, value) } }

// Builder makes a graph in code, one containment-style tree at a time:
// each vertex gets uniq_id = its index, a path below its parent's path and an
// edge from its parent.
type Builder struct {
	g   *Graph
	sub SubsystemID
}

// NewBuilder starts an empty graph whose vertices are added in subsystem
// "containment".
func NewBuilder() *Builder {
	g := New()
	return &Builder{g: g, sub: Containment}
}

// Graph returns the graph built so far.
func (b *Builder) Graph() *Graph { return b.g }

// Add creates a vertex of type typ and id under parent (NoVertex makes it the
// subsystem root) and returns it.
func (b *Builder) Add(parent VertexID, typ string, id int64, opts ...Option) (VertexID, error) {
	g := b.g
	t := g.Type(typ)
	v := Vertex{Type: t, ID: id, Basename: typ, Size: 1, Rank: -2}
	for _, o := range opts {
		o(&v)
	}
	if v.Name == "" {
		v.Name = DefaultName(v.Basename, v.ID)
	}
	if v.Rank == -2 {
		v.Rank = -1
		if t == TypeNode {
			v.Rank = g.NextNodeRank()
		}
	}
	prefix := ""
	if parent != NoVertex {
		p, _ := g.V(parent).PathIn(b.sub)
		prefix = p
	} else if g.Root(b.sub) != NoVertex {
		return NoVertex, g.SetRoot(b.sub, NoVertex)
	}
	v.UniqID = int64(g.NumVertices())
	v.Paths = []Path{{b.sub, prefix + "/" + v.Name}}
	id2 := g.AddVertex(v)
	if parent == NoVertex {
		if err := g.SetRoot(b.sub, id2); err != nil {
			return NoVertex, err
		}
	} else {
		g.AddEdge(parent, id2, b.sub)
	}
	return id2, nil
}

// MustAdd is Add for code that builds fixed graphs; it panics on a second
// root, which is a programming error in such code.
func (b *Builder) MustAdd(parent VertexID, typ string, id int64, opts ...Option) VertexID {
	v, err := b.Add(parent, typ, id, opts...)
	if err != nil {
		panic(err)
	}
	return v
}
