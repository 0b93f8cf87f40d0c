package gofluxion

import (
	"bytes"
	"io"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/picture"
)

// WriteDOT draws the Matcher's graph, or the part opts select, as a
// Graphviz digraph with each vertex's state at opts.At (seconds): free,
// partly used, allocated, reserved or down, and the jobs holding it (see
// package picture). opts.Schedule is the Matcher's own.
func (x *Matcher) WriteDOT(w io.Writer, opts picture.Options) error {
	return x.draw(w, opts, picture.DOT)
}

// WriteGraphML is WriteDOT in GraphML.
func (x *Matcher) WriteGraphML(w io.Writer, opts picture.Options) error {
	return x.draw(w, opts, picture.GraphML)
}

func (x *Matcher) draw(w io.Writer, opts picture.Options, f func(io.Writer, *graph.Graph, picture.Options) error) error {
	var b bytes.Buffer
	x.mu.RLock()
	opts.Schedule = x.m
	err := f(&b, x.m.Graph(), opts)
	x.mu.RUnlock()
	if err != nil {
		return newError("draw", ErrInvalid, err, "%s", strings.TrimPrefix(err.Error(), "picture: "))
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return newError("draw", ErrInvalid, err, "%v", err)
	}
	return nil
}
