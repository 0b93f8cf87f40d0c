package main

import (
	"fmt"
	"os"

	"github.com/gofluxion/gofluxion/picture"
)

// writeGraph writes the dominant subsystem's graph to BASENAME.dot or
// BASENAME.graphml at exit when -o was given (Fluxion documents -g and -o
// but never writes the file). Vertices carry their state at time 0. It
// returns the exit status.
func (c *cli) writeGraph() int {
	if c.o.graphOutput == "" {
		return 0
	}
	name := c.o.graphOutput + "." + c.o.graphFormat
	f, err := os.Create(name)
	if err != nil {
		fmt.Fprintf(c.stderr, "ERROR: can't write the graph: %v\n", err)
		return 1
	}
	opts := picture.Options{Subsystem: c.g.SubsystemName(c.m.Dominant()), Schedule: c.m, Full: true}
	if c.o.graphFormat == "graphml" {
		err = picture.GraphML(f, c.g, opts)
	} else {
		err = picture.DOT(f, c.g, opts)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "ERROR: can't write the graph to %s: %v\n", name, err)
		return 1
	}
	return 0
}
