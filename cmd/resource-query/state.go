package main

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gofluxion/gofluxion/internal/idset"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/rv1"
)

// strtoll parses like C's strtoll(s, NULL, 10): leading blanks, a sign,
// then digits; anything unparsable gives 0, and values out of range are
// clamped to the int64 range.
func strtoll(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n uint64
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if n > (1<<63-d)/10 {
			n = 1 << 63 // saturated: beyond any int64
			break
		}
		n = n*10 + d
	}
	switch {
	case neg && n >= 1<<63:
		return math.MinInt64
	case neg:
		return -int64(n)
	case n >= 1<<63:
		return math.MaxInt64
	}
	return int64(n)
}

// errText returns the Fluxion text of a reader or matcher error.
func errText(err error) string {
	var je *jgf.Error
	if errors.As(err, &je) {
		return je.Fluxion()
	}
	var me *match.Error
	if errors.As(err, &me) {
		return me.Msg
	}
	return err.Error() + "\n"
}

func (c *cli) cmdUpdate(args []string) {
	if len(args) != 7 {
		c.errf("ERROR: malformed command\n")
		return
	}
	if args[1] != "allocate" && args[1] != "reserve" {
		c.errf("ERROR: unknown subcmd %s\n", args[1])
		return
	}
	reader := args[2]
	if reader != "jgf" && reader != "jgf_shorthand" && reader != "rv1exec" {
		c.errf("ERROR: unsupported reader %s\n", reader)
		return
	}
	data, err := readFile(args[3])
	if err != nil {
		c.errf("ERROR: can't open %s\n", args[3])
		return
	}
	jobid := uint64(strtoll(args[4]))
	at, dur := strtoll(args[5]), strtoll(args[6])
	if j, ok := c.jobs[jobid]; ok && (j.state == "ALLOCATED" || j.state == "RESERVED") {
		c.errf("ERROR: existing Jobid \n")
		return
	}
	if at < 0 || dur == 0 {
		c.errf("ERROR: invalid time (%d, %d)\n", at, dur)
		return
	}
	switch reader {
	case "rv1exec":
		var r *rv1.R
		if r, err = rv1.ParseR(data); err == nil {
			err = c.m.UpdateRV1Exec(r, jobid, at, dur, c.w)
		}
	default:
		var doc *jgf.Document
		if doc, err = fluxionJGF.Parse(data); err == nil {
			err = c.m.UpdateJGF(doc, reader == "jgf_shorthand", jobid, at, dur, c.w)
		}
	}
	rendered := ""
	if err == nil {
		// Fluxion ignores a writer that fails to render (a vertex with a
		// negative rank left over from an earlier failed emission): the
		// update stands and prints no R.
		var rerr error
		if rendered, rerr = c.w.Render(); rerr != nil {
			c.errf("ERROR: update writer emit: %s\n", match.EINVAL)
		}
	}
	if err != nil {
		c.errf("ERROR: traverser run () returned error \n")
		if t := errText(err); t != "" {
			c.errf("ERROR: %s", t)
		}
	}
	c.outf("%s", rendered)
	c.outf("INFO: =============================\n")
	if err == nil {
		c.outf("INFO: JOBID=%d\n", jobid)
		state := "ALLOCATED"
		if at != 0 {
			state = "RESERVED"
		}
		c.outf("INFO: RESOURCES=%s\n", state)
		if at == 0 {
			c.outf("INFO: SCHEDULED AT=Now\n")
		} else {
			c.outf("INFO: SCHEDULED AT=%d\n", at)
		}
		c.jobs[jobid] = &job{id: jobid, state: "ALLOCATED", at: at, file: args[3]}
	} else {
		c.outf("INFO: No matching resources found\n")
		c.outf("INFO: JOBID=%d\n", jobid)
	}
	c.outf("INFO: =============================\n")
	c.advance(jobid)
}

func (c *cli) cmdAttach(args []string) {
	if len(args) != 2 {
		c.errf("ERROR: malformed command\n")
		return
	}
	data, err := readFile(args[1])
	if err != nil {
		c.errf("ERROR: can't open %s\n", args[1])
		return
	}
	doc, err := fluxionJGF.Parse(data)
	if err == nil {
		err = c.m.Attach(doc)
	}
	if err != nil {
		c.errf("ERROR: can't attach JGF subgraph \n")
		c.errf("ERROR: add_subgraph: ERROR: add subgraph error: %s\nadd_subgraph: ERROR: reader returned error: %s\n\n", match.EINVAL, errText(err))
	}
}

func (c *cli) cmdRemove(args []string) {
	if len(args) != 3 {
		c.errf("ERROR: malformed command\n")
		return
	}
	switch args[2] {
	case "true":
		if err := c.m.RemovePath(args[1]); err != nil {
			c.errf("ERROR: can't remove subgraph \n")
			if t := errText(err); t != "" {
				// Where Fluxion would hang (a socket), say why.
				c.errf("ERROR: %s", t)
				return
			}
			c.errf("ERROR: remove_subgraph: ERROR: remove_subgraph error: %s\nremove_subgraph: ERROR: traverser returned error: \n\n", match.ENOTTY)
		}
	case "false":
		set, err := idset.Parse(args[1])
		if err != nil {
			c.errf("ERROR: failed to decode ranks.\n")
			return
		}
		if err := c.m.RemoveRanks(removalOrder(set, c.m.KnownRanks())); err != nil {
			c.errf("ERROR: can't partial cancel subgraph \n")
			c.errf("ERROR: %s", errText(err))
		}
	default:
		c.errf("ERROR: invalid path boolean input \n")
	}
}

// removalOrder returns the ranks of set that Fluxion's remove walks
// through: in ascending order, up to and including the first one the
// graph lacks (known are the graph's ranks), where the removal fails. The
// set is never expanded further: it may name 2^63 ranks.
func removalOrder(set, known idset.Set) []int64 {
	upTo := set
	if miss, ok := set.Difference(known).Min(); ok {
		upTo = set.Intersect(idset.FromRanges(idset.Range{Lo: 0, Hi: miss}))
	}
	return upTo.Values() // at most the known ranks and the missing one
}

func (c *cli) cmdPartialCancel(args []string) {
	if len(args) != 4 && len(args) != 5 {
		c.errf("ERROR: malformed command\n")
		return
	}
	reader := args[2]
	if reader != "jgf" && reader != "rv1exec" {
		c.errf("ERROR: unsupported reader %s\n", reader)
		return
	}
	data, err := readFile(args[3])
	if err != nil {
		c.errf("ERROR: can't open %s\n", args[3])
		return
	}
	id := uint64(strtoll(args[1]))
	j, ok := c.jobs[id]
	if !ok || (j.state != "ALLOCATED" && j.state != "RESERVED") {
		c.errf("ERROR: nonexistent job %d\n", id)
		return
	}
	if j.state == "RESERVED" {
		c.errf("ERROR: reservations not currently supported by partial cancel\n")
		return
	}
	var full bool
	if reader == "rv1exec" {
		var r *rv1.R
		if r, err = rv1.ParseR(data); err == nil {
			full, err = c.m.PartialCancel(id, r.Ranks())
		}
	} else {
		var doc *jgf.Document
		if doc, err = fluxionJGF.Parse(data); err == nil {
			full, err = c.m.PartialCancelJGF(id, doc)
		}
	}
	if err != nil {
		fmt.Fprint(c.stdout, errText(err))
		c.errf("ERROR: error encountered while removing job %d\n", id)
	} else if full {
		j.state = "CANCELED"
	}
	// Fluxion prints the counters after a failed partial cancel too.
	if len(args) == 5 && args[4] == "stats" {
		c.outf("INFO: =============================\n")
		c.outf("INFO: PARTIAL CANCEL PREORDER COUNT=\"0\"\n")
		c.outf("INFO: PARTIAL CANCEL POSTORDER COUNT=\"0\"\n")
		c.outf("INFO: =============================\n")
	}
}
