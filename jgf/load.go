package jgf

import (
	"github.com/gofluxion/gofluxion/graph"
)

// Read parses a JGF document and builds it into a new graph, with the
// default Options (strict). Errors are reported in Fluxion's order (node
// by node, then edge by edge) as *Error. Read does not keep data.
func Read(data []byte) (*graph.Graph, error) { return Options{}.Read(data) }

// Read is the package-level Read with the options o.
//
// The graph is built while the bytes are decoded, in one pass and without
// an intermediate copy of the document, when the document has the usual
// layout (one "graph" whose "nodes" come before its "edges"); others are
// decoded into a Document first. Both give the same result.
func (o Options) Read(data []byte) (*graph.Graph, error) {
	g, err := o.read(data)
	if err != nil {
		return nil, err
	}
	return g, nil
}

func (o Options) read(data []byte) (*graph.Graph, *Error) {
	if int64(len(data)) > o.maxInput() {
		return nil, o.inputLimitErr(int64(len(data)), false)
	}
	g := graph.New()
	s := &strs{}
	b := newBuilder(g, o, true, s, int64(len(data)/8))
	b.own = true
	p := newPipe()
	d := &decoder{sc: newScanner(data), opts: o, strs: s, ids: &arena{}, pipe: p}
	go d.produce()
	err := b.consume(p, len(d.sc.data))
	// The pipe is closed: the decoder is done.
	switch {
	case d.sc.bad:
		return nil, syntaxError(data)
	case d.irregular:
		return o.readDocument(data)
	}
	if err := d.missing(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	if !o.Fluxion {
		if err := b.strictEnd(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// readDocument is Read by way of a Document, for any layout.
func (o Options) readDocument(data []byte) (*graph.Graph, *Error) {
	doc, err := o.parse(data)
	if err != nil {
		return nil, err
	}
	g := graph.New()
	b := newBuilder(g, o, true, &strs{}, int64(len(data)/8))
	if err := b.run(doc); err != nil {
		return nil, err
	}
	return g, nil
}

// ReadFile is Read on the contents of the named file. A file that cannot
// be read yields an *Error wrapping the file system error; its Fluxion()
// text is the one for an empty document (what Fluxion's reader sees).
func ReadFile(path string) (*graph.Graph, error) { return Options{}.ReadFile(path) }

// ReadFile is the package-level ReadFile with the options o. It reads no
// more of the file than o.MaxInputBytes allows.
func (o Options) ReadFile(path string) (*graph.Graph, error) {
	data, err := o.readFile(path)
	if err != nil {
		return nil, err
	}
	return o.Read(data)
}

// Load builds doc into g (spec formats.md §2 "Loading NODEs", traversal.md
// §14.5) with the Options doc was parsed with (the default, strict, for a
// Document made otherwise): used both for the initial load (g empty) and
// for attach (grow).
//
// Nodes are processed in array order. A node one of whose paths is already
// in g's path index with a vertex of the same rank (including vertices
// created earlier by this load) is mapped to that vertex; otherwise a new
// vertex is appended (index = next index, uniq_id from the JGF), indexed
// by type, name, rank and every path, and made the root of each subsystem
// in which its path has exactly one '/'. Then, in array order, each edge
// with at least one endpoint created by this load is added (out-edge
// order = array order). Types and path subsystems of all nodes are
// interned in node order, edge subsystems when their edge is created.
//
// Load validates the whole document against g before changing anything,
// so a failed Load leaves g exactly as it was (no clone is made). The
// errors are those of Fluxion, in Fluxion's order, as *Error (then, for
// the strict reader, its own).
func Load(g *graph.Graph, doc *Document) error { return doc.opts.Load(g, doc) }

// Load is the package-level Load with the options o instead of those doc
// was parsed with.
func (o Options) Load(g *graph.Graph, doc *Document) error {
	b := newBuilder(g, o, false, &strs{}, 4*int64(len(doc.Nodes))+1024)
	if err := b.run(doc); err != nil {
		return err
	}
	b.apply()
	return nil
}

// run handles every node, then every edge of doc, then (strict reader)
// checks for cycles.
func (b *builder) run(doc *Document) *Error {
	b.doc = doc
	if !b.direct && len(b.chains) == 0 {
		// about one new vertex, and one path, a node: sized once, not
		// rehashed step by step
		n := min(len(doc.Nodes), b.opts.maxVertices())
		b.chains = make(map[string]chain, n)
		b.entries = make([]pathEntry, 0, n)
		b.newNodes = make([]int32, 0, n)
	}
	for i := range doc.Nodes {
		if err := b.node(i, &doc.Nodes[i]); err != nil {
			return err
		}
	}
	for j := range doc.Edges {
		if err := b.edgeOf(j, &doc.Edges[j]); err != nil {
			return err
		}
	}
	if !b.opts.Fluxion {
		return b.strictEnd()
	}
	return nil
}
