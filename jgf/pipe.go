package jgf

import (
	"sync/atomic"

	"github.com/gofluxion/gofluxion/graph"
)

// Read decodes and builds at the same time: a goroutine decodes the bytes
// and checks each node and edge (decoder), and hands them over in batches,
// in document order, to the builder, which applies Fluxion's loading
// rules to the graph. Only the builder touches the graph, and it meets
// every node and edge in the order a sequential reader would, so the
// result and the errors are the same; the two halves only overlap in time
// (on a machine with a second core).

const batchLen = 256

// batch is a run of consecutive nodes, or of consecutive edges.
type batch struct {
	first int // index of the first node or edge
	nodes []Node
	edges []handedEdge
	// the blocks the nodes' paths and properties, and the edges'
	// endpoints, are cut from
	paths []Path
	props []graph.Property
	buf   []byte
	// where the decoder was after the batch: for the builder's estimate
	// of what is still to come
	pos, arrayStart int
}

// handedEdge is an edge as decoded and checked (err set if malformed).
type handedEdge struct {
	src, tgt []byte
	sub      string
	err      *Error
}

type pipe struct {
	out  chan *batch // full batches, in order
	free chan *batch // batches the builder is done with
	// stop is set by the builder after its first error: the decoder then
	// only checks the rest of the document for syntax.
	stop atomic.Bool
}

func newPipe() *pipe {
	p := &pipe{out: make(chan *batch, 4), free: make(chan *batch, 8)}
	for range 6 {
		p.free <- &batch{nodes: make([]Node, 0, batchLen), edges: make([]handedEdge, 0, batchLen)}
	}
	return p
}

// handNode returns the slot of node i in the current batch.
func (d *decoder) handNode(i int) *Node {
	if d.cur != nil && (len(d.cur.nodes) == batchLen || len(d.cur.edges) > 0) {
		d.send()
	}
	if d.cur == nil {
		d.cur = <-d.pipe.free
		d.cur.first = i
	}
	d.cur.nodes = append(d.cur.nodes, Node{})
	return &d.cur.nodes[len(d.cur.nodes)-1]
}

// handEdge adds edge j to the current batch, with copies of its
// endpoints (the decoder's buffers are reused).
func (d *decoder) handEdge(j int, src, tgt []byte, sub string, err *Error) {
	if d.cur != nil && (len(d.cur.edges) == batchLen || len(d.cur.nodes) > 0) {
		d.send()
	}
	if d.cur == nil {
		d.cur = <-d.pipe.free
		d.cur.first = j
	}
	b := d.cur
	n := len(b.buf)
	b.buf = append(append(b.buf, src...), tgt...)
	e := handedEdge{sub: sub, err: err}
	if err == nil {
		e.src, e.tgt = b.buf[n:n+len(src)], b.buf[n+len(src):len(b.buf)]
	}
	b.edges = append(b.edges, e)
}

// send hands the current batch over.
func (d *decoder) send() {
	if d.cur == nil {
		return
	}
	d.cur.pos = d.sc.pos
	d.cur.arrayStart = d.nodesStart
	if len(d.cur.edges) > 0 {
		d.cur.arrayStart = d.edgesStart
	}
	d.pipe.out <- d.cur
	d.cur = nil
}

// produce runs the decoder and closes the pipe.
func (d *decoder) produce() {
	d.run()
	d.send()
	close(d.pipe.out)
}

// consume builds every batch of p until p is closed. It returns the first
// error in Fluxion's order (after which it only drains p). size is the
// length of the input, for the estimates of what is still to come.
func (b *builder) consume(p *pipe, size int) *Error {
	var err *Error
	var c room
	for bt := range p.out {
		if err == nil {
			if len(bt.nodes) > 0 {
				for k := range bt.nodes {
					if b.created >= c.vertices {
						c.reserveVertices(b, bt, size)
					}
					if err = b.node(bt.first+k, &bt.nodes[k]); err != nil {
						break
					}
				}
			} else {
				for k := range bt.edges {
					if b.g.NumEdges() >= c.edges {
						c.reserveEdges(b, bt, size)
					}
					e := &bt.edges[k]
					if err = e.err; err == nil {
						err = b.edgeBytes(bt.first+k, e.src, e.tgt, e.sub)
					}
					if err != nil {
						break
					}
				}
			}
			if err != nil {
				p.stop.Store(true)
			}
		}
		clear(bt.nodes) // let go of the strings
		bt.nodes, bt.edges = bt.nodes[:0], bt.edges[:0]
		clear(bt.paths)
		clear(bt.props)
		bt.paths, bt.props, bt.buf = bt.paths[:0], bt.props[:0], bt.buf[:0]
		p.free <- bt
	}
	return err
}

// room is what the builder has reserved in the graph.
type room struct {
	vertices, edges int
	pathsSized      bool
}

// reserveVertices makes room in the graph for the vertices still to come,
// estimated from the bytes left after the batch: they hold the rest of the
// nodes and, after them, about one edge per node (a tree) of at least 40
// bytes (the shortest edges written, {"source": "0", "target": "1"},
// are 39). The first estimate, after the first batch, also sizes the path
// index. An estimate that falls short is followed by growing a quarter at
// a time, not by the bytes left (which the edges may take already): a
// small step each time would copy the whole graph each time.
func (c *room) reserveVertices(b *builder, bt *batch, size int) {
	const edgeBytes = 40
	n := b.created
	est := 1024
	if done := bt.first + len(bt.nodes); n > 0 && done > 0 {
		per := max((bt.pos-bt.arrayStart)/done, 1)
		est = max((size-bt.pos-edgeBytes*n)/(per+edgeBytes), n/4, 1024)
		// never room for more than the document may create (a hostile
		// document of tiny nodes then bulk would reserve for millions)
		est = max(min(est, b.opts.maxVertices()-n), 0)
		if !c.pathsSized {
			b.g.ReservePaths(est)
			c.pathsSized = true
		}
	}
	b.g.Reserve(est, 0)
	c.vertices = n + est
}

// reserveEdges makes room for the edges still to come: first one per
// vertex, then as many as the bytes left hold at the size of the edges so
// far.
func (c *room) reserveEdges(b *builder, bt *batch, size int) {
	n := b.g.NumEdges()
	est := max(b.g.NumVertices(), 1024)
	if done := bt.first + len(bt.edges); n > 0 && done > 0 {
		per := max((bt.pos-bt.arrayStart)/done, 1)
		est = min(max((size-bt.pos)/per+1, 1024), max(n, 1024))
	}
	b.g.Reserve(0, est)
	c.edges = n + est
}
