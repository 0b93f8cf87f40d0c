package main

import (
	"errors"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/grug"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/rv1"
)

// defaultGraph is the cluster loaded when no -L is given: gofluxion's own
// small demo recipe, so `go run ./cmd/resource-query` works on a fresh
// checkout.
var defaultGraph = gofluxion.DemoGraphML()

// fluxionJGF is the JGF reader of update and attach: it accepts what
// Fluxion accepts (negative sizes wrap, cycles and second parents load),
// where the library's default reader is strict.
var fluxionJGF = jgf.Options{Fluxion: true}

// loadGraph reads a graph document in the given load format under the
// reader limits l.
func loadGraph(format string, data []byte, allowlist string, l gofluxion.Limits) (*graph.Graph, error) {
	if format == gofluxion.FormatJGF || format == gofluxion.FormatJGFShorthand {
		o := fluxionJGF
		o.MaxVertices, o.MaxInputBytes = l.MaxVertices, l.MaxInputBytes
		return o.Read(data)
	}
	if format == gofluxion.FormatRV1Exec || format == gofluxion.FormatRV1ExecForce {
		// Fluxion loads a nodelist that names a host twice; the library
		// refuses it. Other errors are the library's.
		if g, err := rv1.ReadExec(data); err == nil {
			return g, nil
		}
	}
	return l.ReadGraph(format, data, allowlist)
}

// limitText is the start-up message for a graph that exceeds one of the
// reader's limits. Fluxion has no such limits and would load the graph,
// so the message is ours: the reader's own, with the limit named by the
// flag that raises it.
func limitText(err error) string {
	msg := err.Error()
	var ge *grug.Error
	var je *jgf.Error
	if errors.As(err, &ge) {
		msg = ge.Error()
	} else if errors.As(err, &je) {
		msg = je.Error()
	}
	flag := ""
	for _, f := range []struct{ field, flag string }{
		{"MaxVertices", "--max-vertices"}, {"MaxDepth", "--max-depth"},
		{"MaxPathBytes", "--max-path-bytes"}, {"MaxInputBytes", "--max-input-bytes"},
	} {
		for _, prefix := range []string{"graph.ReadLimits.", "Options.", "Limits."} {
			if strings.Contains(msg, prefix+f.field) {
				msg = strings.ReplaceAll(msg, prefix+f.field, f.flag)
				flag = f.flag
			}
		}
	}
	if flag == "" {
		return msg
	}
	return msg + "; raise it with " + flag + "=N"
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
func newWriter(format string) (emit.Writer, error) { return gofluxion.NewWriter(format) }

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

// renderErrno is the errno of a failed rendering: a JGF graph with vertices
// but no edges fails with ENOENT (a match then prints "Unsatisfiable
// request"), everything else with EINVAL.
func renderErrno(err error) match.Errno {
	if errors.Is(err, jgf.ErrSingleVertex) {
		return match.ENOENT
	}
	return match.EINVAL
}
