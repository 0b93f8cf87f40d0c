package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion/match"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/hwloc"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/rv1"
)

// defaultGraph is the cluster loaded when no -L is given: our own small
// recipe, so `go run ./cmd/resource-query` works on a fresh checkout.
//
//go:embed default.graphml
var defaultGraph []byte

// loadGraph reads a graph document in the given load format.
func loadGraph(format string, data []byte, allowlist string) (*graph.Graph, error) {
	switch format {
	case "grug":
		return grug.Read(data)
	case "hwloc":
		return hwloc.Read(data, allowlist)
	case "jgf", "jgf_shorthand":
		return jgf.Read(data)
	case "rv1exec", "rv1exec_force":
		return rv1.ReadExec(data)
	}
	return nil, fmt.Errorf("load format %s is not supported yet", format)
}

// readerText is the text Fluxion's reader would report for err.
func readerText(err error) string {
	var ge *grug.Error
	if errors.As(err, &ge) {
		return ge.Fluxion()
	}
	var je *jgf.Error
	if errors.As(err, &je) {
		return strings.TrimSuffix(je.Fluxion(), "\n")
	}
	return err.Error()
}

// newWriter creates the match writer for a -F format.
func newWriter(format string) (emit.Writer, error) {
	switch format {
	case "simple":
		return emit.NewSimple(), nil
	case "pretty_simple":
		return emit.NewPrettySimple(), nil
	case "jgf":
		return jgf.NewWriter(), nil
	case "jgf_shorthand":
		return jgf.NewShorthandWriter(), nil
	case "rlite":
		return rv1.NewWriter(rv1.RLite), nil
	case "rv1":
		return rv1.NewWriter(rv1.RV1), nil
	case "rv1_nosched":
		return rv1.NewWriter(rv1.RV1NoSched), nil
	case "rv1_shorthand":
		return rv1.NewWriter(rv1.RV1Shorthand), nil
	}
	return nil, fmt.Errorf("match format %s is not supported yet", format)
}

// dispatchMore handles the commands of later formats and graph changes.
func (c *cli) dispatchMore(name string, args []string) {
	switch name {
	case "find":
		c.cmdFind(args)
	case "update":
		c.cmdUpdate(args)
	case "attach":
		c.cmdAttach(args)
	case "remove":
		c.cmdRemove(args)
	case "partial-cancel":
		c.cmdPartialCancel(args)
	}
}

func (c *cli) cmdFind(args []string) {
	if len(args) < 2 {
		c.errf("ERROR: malformed command: \n")
		return
	}
	expr := strings.Join(args[1:], " ")
	if err := c.m.Find(expr, time.Now().Unix(), c.w); err != nil {
		var me *match.Error
		if errors.As(err, &me) {
			c.errf("find%s", me.Msg)
		}
		return
	}
	s, err := c.w.Render()
	if err != nil {
		c.errf("find: ERROR: find writer emit: %s\n", match.EINVAL)
		return
	}
	c.outf("%s", s)
	c.outf("INFO: =============================\n")
	c.outf("INFO: EXPRESSION=\"%s\"\n", expr)
	c.outf("INFO: =============================\n")
}
