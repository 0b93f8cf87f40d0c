package fluxcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/idset"
	"github.com/gofluxion/gofluxion/internal/jsonw"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
)

// Find returns, as compact JSON, the resources that satisfy the criteria
// expression (for example "status=down", "sched-now=allocated",
// "jobid-alloc=3 and names=node[0-1]"), with their ancestors, rendered by
// the context's match writer: for the simple formats a JSON string holding
// the text lines, for jgf the graph object, for the rv1 forms the R
// object, and null when nothing matches. Invalid criteria add
// "findfind: invalid criteria: <criteria>." to the error message
// (ErrInvalid).
func (cli *ReapiClient) Find(criteria string) (string, error) {
	return cli.find(criteria, "", false)
}

// FindWithFormat is Find rendered by a fresh writer of the given match
// format (simple, pretty_simple, jgf, jgf_shorthand, rlite, rv1,
// rv1_nosched, rv1_shorthand). An unknown format adds
// "find: ERROR: unknown match format '<format>'" to the error message
// (ErrInvalid).
func (cli *ReapiClient) FindWithFormat(criteria, format string) (string, error) {
	return cli.find(criteria, format, true)
}

func (cli *ReapiClient) find(criteria, format string, withFormat bool) (string, error) {
	c, err := cli.enter("find", true)
	if err != nil {
		return "", err
	}
	defer cli.mu.Unlock()
	const op = "find"
	rq := c.rq
	w, name := rq.w, rq.opts.EffectiveMatchFormat
	if withFormat {
		if !knownMatchFormat(format) {
			msg := "find: ERROR: unknown match format '" + format + "'\n"
			return "", c.fail(op, match.EINVAL, msg, errors.New("unknown match format "+format))
		}
		if w, err = gofluxion.NewWriter(format); err != nil {
			return "", &Error{Op: op, Errno: match.EINVAL, Err: err}
		}
		name = format
	}
	if ferr := rq.m.Find(criteria, time.Now().Unix(), w); ferr != nil {
		errno := errnoOf(ferr)
		msg := "find" + fluxionText(ferr)
		if msg == "find" {
			msg = "find: ERROR: traverser: " + errno.String() + "\n"
		}
		return "", c.fail(op, errno, msg, ferr)
	}
	s, rerr := w.Render()
	if rerr != nil {
		msg := "find: ERROR: find writer emit: " + match.EINVAL.String() + "\n"
		return "", c.fail(op, match.EINVAL, msg, rerr)
	}
	return jsonValue(s, name), nil
}

// jsonValue is the compact JSON value of a writer's rendering.
func jsonValue(s, format string) string {
	if s == "" {
		return "null"
	}
	if format == "simple" || format == "pretty_simple" {
		return string(jsonw.AppendString(nil, s))
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(strings.TrimSpace(s))); err != nil {
		return strings.TrimSpace(s)
	}
	return b.String()
}

// parseStatus accepts "up" and "down" in any case.
func parseStatus(s string) (graph.Status, bool) {
	switch {
	case strings.EqualFold(s, "up"):
		return graph.StatusUp, true
	case strings.EqualFold(s, "down"):
		return graph.StatusDown, true
	}
	return 0, false
}

func statusName(st graph.Status) string {
	if st == graph.StatusUp {
		return "up"
	}
	return "down"
}

// SetStatus marks the vertices at a containment path (for example
// "/cluster0/node1") "up" or "down" (any case). Down vertices and
// everything below them are not allocated. An unknown path adds
// "set_status: mark: could not find subtree path (<path>) in resource
// graph." to the error message (ErrInvalid).
func (cli *ReapiClient) SetStatus(path string, status string) error {
	c, err := cli.enter("set_status", true)
	if err != nil {
		return err
	}
	defer cli.mu.Unlock()
	const op = "set_status"
	st, ok := parseStatus(status)
	if !ok {
		msg := "set_status: unrecognized status: " + status + "\n"
		return c.fail(op, match.EINVAL, msg, errors.New("status must be up or down"))
	}
	if serr := c.rq.m.SetStatus(path, st); serr != nil {
		return c.fail(op, errnoOf(serr), "set_status: "+fluxionText(serr), serr)
	}
	return nil
}

// GetStatus returns the status ("up" or "down") of the first vertex at a
// path. An unknown path adds "get_status: resource path not found: <path>"
// to the error message (ErrNotFound).
func (cli *ReapiClient) GetStatus(path string) (string, error) {
	c, err := cli.enter("get_status", true)
	if err != nil {
		return "", err
	}
	defer cli.mu.Unlock()
	g := c.rq.m.Graph()
	vs := g.ByPath(path)
	if len(vs) == 0 {
		msg := "get_status: resource path not found: " + path + "\n"
		return "", c.fail("get_status", match.ENOENT, msg, nil)
	}
	return statusName(g.V(vs[0]).Status), nil
}

// SetRankStatus marks the nodes of ranks (an RFC 22 idset such as
// "0-3,7", or "all" for every rank of the graph) "up" or "down". Unknown
// ranks are ignored. An empty idset adds "empty idset string", an invalid
// one "invalid idset string: <ranks>" to the error message (ErrInvalid).
func (cli *ReapiClient) SetRankStatus(ranks string, status string) error {
	c, err := cli.enter("set_rank_status", true)
	if err != nil {
		return err
	}
	defer cli.mu.Unlock()
	const op = "set_rank_status"
	st, ok := parseStatus(status)
	if !ok {
		msg := "set_rank_status: unrecognized status: " + status + "\n"
		return c.fail(op, match.EINVAL, msg, errors.New("status must be up or down"))
	}
	g := c.rq.m.Graph()
	var ids []int64
	switch {
	case ranks == "all":
		for _, r := range g.Ranks() {
			if r >= 0 && len(g.ByRank(r)) > 0 {
				ids = append(ids, r)
			}
		}
	case ranks == "":
		return c.fail(op, match.EINVAL, "empty idset string\n", errors.New("empty idset"))
	default:
		set, perr := idset.Parse(ranks)
		if perr != nil {
			return c.fail(op, match.EINVAL, "invalid idset string: "+ranks+"\n", perr)
		}
		if set.Empty() {
			return c.fail(op, match.EINVAL, "empty idset string\n", errors.New("empty idset"))
		}
		// Unknown ranks are ignored: never expand the set (it may name
		// 2^63 ranks) beyond the graph's.
		ids = set.Intersect(c.rq.m.KnownRanks()).Values()
	}
	c.rq.m.SetRankStatus(ids, st)
	return nil
}

// GetRankStatus returns the status ("up" or "down") of the node (or
// storage_node) vertex of one rank. Errors (added to the error message):
// "must specify exactly one rank, got <rank>" (ErrInvalid), "rank not
// found: <rank>" and "no node vertex at rank: <rank>" (ErrNotFound).
func (cli *ReapiClient) GetRankStatus(rank string) (string, error) {
	c, err := cli.enter("get_rank_status", true)
	if err != nil {
		return "", err
	}
	defer cli.mu.Unlock()
	const op = "get_rank_status"
	set, perr := idset.Parse(rank)
	if perr != nil {
		return "", c.fail(op, match.EINVAL, "invalid idset string: "+rank+"\n", perr)
	}
	if set.Len() != 1 {
		return "", c.fail(op, match.EINVAL, "must specify exactly one rank, got "+rank+"\n", nil)
	}
	r := set.Values()[0]
	g := c.rq.m.Graph()
	if len(g.ByRank(r)) == 0 {
		return "", c.fail(op, match.ENOENT, "rank not found: "+rank+"\n", nil)
	}
	st, ok := c.rq.m.RankStatus(r)
	if !ok {
		return "", c.fail(op, match.ENOENT, "no node vertex at rank: "+rank+"\n", nil)
	}
	return statusName(st), nil
}

// AddSubgraph grows the graph with a JGF subgraph: vertices whose paths
// (and rank) already exist are reused, the others are added under them,
// and the pruning filters are recomputed. On failure the graph is
// unchanged and the error message gets
// "add_subgraph: ERROR: add subgraph error: <strerror>" and the reader's
// text.
func (cli *ReapiClient) AddSubgraph(jgfText string) error {
	c, err := cli.enter("add_subgraph", true)
	if err != nil {
		return err
	}
	defer cli.mu.Unlock()
	doc, aerr := jgf.Parse([]byte(jgfText))
	if aerr == nil {
		aerr = c.rq.m.Attach(doc)
	}
	if aerr != nil {
		msg := "add_subgraph: ERROR: add subgraph error: " + match.EINVAL.String() + "\n" +
			"add_subgraph: ERROR: reader returned error: " + fluxionText(aerr) + "\n\n"
		return c.fail("add_subgraph", match.EINVAL, msg, aerr)
	}
	return nil
}

// RemoveSubgraph removes the subgraph rooted at the (last) vertex at path.
// Jobs are not canceled: what they hold there simply disappears from the
// graph. An unknown path is an ErrNotFound error.
func (cli *ReapiClient) RemoveSubgraph(path string) error {
	c, err := cli.enter("remove_subgraph", true)
	if err != nil {
		return err
	}
	defer cli.mu.Unlock()
	if rerr := c.rq.m.RemovePath(path); rerr != nil {
		errno := errnoOf(rerr)
		text := ""
		var me *match.Error
		if errors.As(rerr, &me) {
			text = strings.TrimSuffix(me.Msg, "\n")
		}
		msg := "remove_subgraph: ERROR: remove_subgraph error: " + errno.String() + "\n" +
			"remove_subgraph: ERROR: traverser returned error: " + text + "\n\n"
		return c.fail("remove_subgraph", errno, msg, rerr)
	}
	return nil
}
