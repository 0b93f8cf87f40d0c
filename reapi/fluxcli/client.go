package fluxcli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/policy"
	"github.com/gofluxion/gofluxion/reapi/types"
	"github.com/gofluxion/gofluxion/rv1"
)

// Job modes reported by Info.
const (
	ModeAllocated = "ALLOCATED"
	ModeReserved  = "RESERVED"
	ModeCanceled  = "CANCELED"
)

// WithoutAllocatingJobID is the job id Match returns for the
// without_allocating operations: Fluxion uses −1 (2^64−1 as its unsigned
// job id).
const WithoutAllocatingJobID int64 = -1

// noAllocID is WithoutAllocatingJobID as the matcher's unsigned job id.
const noAllocID uint64 = math.MaxUint64

// ReapiClient is a resource API context: one resource graph with its
// schedule, one match policy, one traverser, one match writer, the job
// table, the job id counter and the accumulated error message.
//
// Create it with NewReapiClient and give it a graph with InitContext. A
// ReapiClient is safe for concurrent use by multiple goroutines (calls run
// one at a time), and clients are fully independent of each other. The
// zero ReapiClient has no context, like a fluxion-go client whose C
// context is missing: its methods fail with ErrNoContext.
type ReapiClient struct {
	mu  sync.Mutex
	ctx *reapiCtx
}

// reapiCtx is what fluxion-go's C context holds.
type reapiCtx struct {
	errmsg strings.Builder
	rq     *resourceQuery // nil until InitContext succeeds
}

// resourceQuery is an initialized context.
type resourceQuery struct {
	opts     Options
	m        *match.Matcher
	w        emit.Writer
	jobs     map[uint64]*jobInfo
	counter  uint64
	loadTime float64

	// Timing of the operations that created a job (matches that booked,
	// updates), in seconds.
	nTimed           int64
	minT, maxT, avgT float64
}

type jobInfo struct {
	mode     string
	at       int64
	overhead float64
}

// NewReapiClient creates a client with an empty context; call InitContext
// to load a resource graph into it.
func NewReapiClient() *ReapiClient {
	return &ReapiClient{ctx: &reapiCtx{}}
}

// Destroy releases the context. Later calls fail with ErrNoContext;
// Destroy itself may be called again.
func (cli *ReapiClient) Destroy() {
	if cli == nil {
		return
	}
	cli.mu.Lock()
	cli.ctx = nil
	cli.mu.Unlock()
}

// HasContext reports whether the client has a context: true from
// NewReapiClient until Destroy (whether or not InitContext succeeded).
func (cli *ReapiClient) HasContext() bool {
	if cli == nil {
		return false
	}
	cli.mu.Lock()
	defer cli.mu.Unlock()
	return cli.ctx != nil
}

// enter locks the client and returns its context, or unlocks it and
// returns an error when there is no context (or, with needInit, no graph).
// On success the caller must call cli.mu.Unlock.
func (cli *ReapiClient) enter(op string, needInit bool) (*reapiCtx, error) {
	if cli == nil {
		return nil, &Error{Op: op, Errno: match.EINVAL, Err: ErrNoContext}
	}
	cli.mu.Lock()
	c := cli.ctx
	if c == nil {
		cli.mu.Unlock()
		return nil, &Error{Op: op, Errno: match.EINVAL, Err: ErrNoContext}
	}
	if needInit && c.rq == nil {
		cli.mu.Unlock()
		return nil, &Error{Op: op, Errno: match.EINVAL, Err: ErrNotInitialized}
	}
	return c, nil
}

// fail appends msg to the error message and returns the call's error.
func (c *reapiCtx) fail(op string, errno match.Errno, msg string, cause error) *Error {
	c.errmsg.WriteString(msg)
	return &Error{Op: op, Errno: errno, Msg: msg, Err: cause}
}

// GetErrMsg returns the error text accumulated since the last
// ClearErrMsg, in Fluxion's wording ("" without a context).
func (cli *ReapiClient) GetErrMsg() string {
	c, err := cli.enter("get_err_msg", false)
	if err != nil {
		return ""
	}
	defer cli.mu.Unlock()
	return c.errmsg.String()
}

// ClearErrMsg clears the accumulated error text.
func (cli *ReapiClient) ClearErrMsg() {
	c, err := cli.enter("clear_err_msg", false)
	if err != nil {
		return
	}
	defer cli.mu.Unlock()
	c.errmsg.Reset()
}

// Options returns the options the context was initialized with.
func (cli *ReapiClient) Options() (Options, error) {
	c, err := cli.enter("options", true)
	if err != nil {
		return Options{}, err
	}
	defer cli.mu.Unlock()
	return c.rq.opts, nil
}

// InitContext loads the resource graph document rgraph (in the options'
// load_format, "grug" by default) into the context and configures it from
// options, a JSON object (see the package documentation for its members
// and defaults; "{}" selects every default). The job id counter starts at
// 1. On failure the context keeps its previous state and the error text
// (also added to GetErrMsg) is prefixed with
// "reapi_cli_initialize: Runtime error: ".
func (cli *ReapiClient) InitContext(rgraph string, options string) error {
	c, err := cli.enter("initialize", false)
	if err != nil {
		return err
	}
	defer cli.mu.Unlock()
	const prefix = "reapi_cli_initialize: Runtime error: "
	fail := func(msg string, cause error) error {
		return c.fail("initialize", match.EPROTO, prefix+msg, cause)
	}
	opts, perr := parseOptions(options)
	if perr != nil {
		return fail("resource_query_t: ERROR: can't set resource graph parameters\n", perr)
	}
	if opts.LoadFormat == "" {
		opts.LoadFormat = DetectLoadFormat(rgraph)
	}
	if _, err := policy.New(opts.MatcherPolicy); err != nil {
		return fail("resource_query_t: ERROR: can't create matcher\n", err)
	}
	if opts.TraverserPolicy != "simple" && opts.TraverserPolicy != "flexible" {
		return fail("initialize_matchers_and_traversers: ERROR: can't initialize traverser\n",
			fmt.Errorf("unknown traverser_policy %q (want simple or flexible)", opts.TraverserPolicy))
	}
	if !knownLoadFormat(opts.LoadFormat) {
		return fail("resource_query_t: ERROR: can't create reader\n",
			fmt.Errorf("unknown load_format %q (want one of %s)", opts.LoadFormat, strings.Join(gofluxion.LoadFormats(), ", ")))
	}
	allowlist := ""
	if opts.LoadAllowlist != "" {
		if opts.LoadFormat == gofluxion.FormatHwloc {
			allowlist = opts.LoadAllowlist
		} else {
			c.errmsg.WriteString("WARN: allowlist unsupported\n")
		}
	}
	start := time.Now()
	g, err := readGraph(opts.LoadFormat, []byte(rgraph), allowlist)
	if err != nil {
		return fail("resource_query_t: ERROR: "+readerText(err)+"\nERROR: error generating resources\n", err)
	}
	loadTime := time.Since(start).Seconds()
	if _, ok := match.SubsystemNames(opts.MatcherName); !ok {
		return fail("initialize_matchers_and_traversers: ERROR: can't set subsystems\n",
			fmt.Errorf("unknown matcher_name %q", opts.MatcherName))
	}
	m, err := match.New(g, match.Options{
		Policy:         opts.MatcherPolicy,
		Subsystems:     opts.MatcherName,
		Traverser:      opts.TraverserPolicy,
		PruneFilters:   opts.PruneFilters,
		NoPruneFilters: strings.TrimSpace(opts.PruneFilters) == "",
		// Fluxion's answers, but a failed operation changes nothing.
		FluxionQuirks: true,
	})
	if err != nil {
		stage := "traverser"
		var ce *match.ConfigError
		if errors.As(err, &ce) {
			stage = ce.Stage
		}
		switch stage {
		case "policy":
			return fail("resource_query_t: ERROR: can't create matcher\n", err)
		case "subsystems":
			return fail("initialize_matchers_and_traversers: ERROR: can't set subsystems\n", err)
		case "prune":
			return fail("initialize_matchers_and_traversers: ERROR: can't set pruning filters\n", err)
		}
		return fail("initialize_matchers_and_traversers: ERROR: can't initialize traverser\n", err)
	}
	w, err := gofluxion.NewWriter(opts.EffectiveMatchFormat)
	if err != nil {
		return fail("initialize_matchers_and_traversers: ERROR: can't create match writers\n", err)
	}
	c.rq = &resourceQuery{
		opts:     opts,
		m:        m,
		w:        w,
		jobs:     map[uint64]*jobInfo{},
		counter:  1,
		loadTime: loadTime,
	}
	return nil
}

func knownLoadFormat(f string) bool {
	for _, x := range gofluxion.LoadFormats() {
		if x == f {
			return true
		}
	}
	return false
}

// inUse reports whether job id is allocated or reserved.
func (rq *resourceQuery) inUse(id uint64) bool {
	j := rq.jobs[id]
	return j != nil && (j.mode == ModeAllocated || j.mode == ModeReserved)
}

func (rq *resourceQuery) record(id uint64, mode string, at int64, overhead float64) {
	rq.jobs[id] = &jobInfo{mode: mode, at: at, overhead: overhead}
	if rq.nTimed == 0 || overhead < rq.minT {
		rq.minT = overhead
	}
	rq.maxT = max(rq.maxT, overhead)
	rq.avgT = (rq.avgT*float64(rq.nTimed) + overhead) / float64(rq.nTimed+1)
	rq.nTimed++
}

// parseJobspec parses a jobspec against the graph's resource types.
// jobspec.Validate is not applied: Parse already bounds the tree and
// rejects unknown (so empty) types, and the one thing more Validate
// rejects, "count: 0", Fluxion accepts and never satisfies, which this
// client reproduces.
func (rq *resourceQuery) parseJobspec(text string) (*jobspec.Jobspec, error) {
	known := rq.m.Graph().Types
	return jobspec.Parse([]byte(text), jobspec.Options{KnownType: func(t string) bool { _, ok := known.Lookup(t); return ok }})
}

// countingWriter counts the vertices one operation emits.
type countingWriter struct {
	emit.Writer
	n int
}

func (w *countingWriter) Vertex(g *graph.Graph, v *emit.Vertex) {
	w.n++
	w.Writer.Vertex(g, v)
}

// render renders w after an operation that emitted n vertices. A rendering
// failure is an error only when the operation emitted something; otherwise
// the result is "" (api.md: R is empty when nothing was emitted) and what
// the writer could not render stays pending, as in Fluxion.
func render(w emit.Writer, n int) (string, error) {
	s, err := w.Render()
	if err != nil {
		if n == 0 {
			return "", nil
		}
		return "", err
	}
	return s, nil
}

func toOp(m types.MatchType) (match.Op, bool) {
	switch m {
	case types.MatchAllocate:
		return match.Allocate, true
	case types.MatchAllocateWithSatisfiability:
		return match.AllocateWithSatisfiability, true
	case types.MatchAllocateOrElseReserve:
		return match.AllocateOrElseReserve, true
	case types.MatchSatisfiability:
		return match.Satisfiability, true
	case types.MatchWithoutAllocating:
		return match.WithoutAllocating, true
	case types.MatchWithoutAllocatingFuture:
		return match.WithoutAllocatingFuture, true
	}
	return 0, false
}

func consumesID(op match.Op) bool {
	return op != match.Satisfiability && op != match.WithoutAllocating && op != match.WithoutAllocatingFuture
}

// Match matches jobspec (canonical jobspec V1, YAML or JSON) with the
// operation matchOp at time 0, using the job id counter as the job id
// (−1 for the without_allocating operations).
//
// It returns whether the job was reserved rather than allocated, the
// selected resources rendered in the context's match format (empty if
// nothing was selected), the start time (0 = now), the elapsed time in
// seconds and the job id. A successful allocation or reservation is
// recorded in the job table (see Info). The counter is incremented after
// every match except satisfiability and without_allocating*, including
// matches that failed with ErrBusy or ErrUnsatisfiable, but not after a
// jobspec error or another failure.
//
// Errors are *Error values: test them with errors.Is(err, ErrBusy) (not
// now), errors.Is(err, ErrUnsatisfiable) (never) or ErrInvalid (bad
// jobspec or operation).
func (cli *ReapiClient) Match(match_op types.MatchType, jobspec string) (reserved bool, allocated string, at int64, overhead float64, jobid int64, err error) {
	c, err := cli.enter("match_allocate", true)
	if err != nil {
		return false, "", 0, 0, 0, err
	}
	defer cli.mu.Unlock()
	reserved, allocated, at, overhead, id, err := c.matchAllocate(match_op, jobspec, 0, false)
	return reserved, allocated, at, overhead, int64(id), err
}

// MatchAllocate is Match with MatchAllocateOrElseReserve when
// orelseReserve is true and MatchAllocate otherwise.
func (cli *ReapiClient) MatchAllocate(orelse_reserve bool, jobspec string) (reserved bool, allocated string, at int64, overhead float64, jobid int64, err error) {
	op := types.MatchAllocate
	if orelse_reserve {
		op = types.MatchAllocateOrElseReserve
	}
	return cli.Match(op, jobspec)
}

// MatchWithJobID is Match with a job id chosen by the caller (Fluxion's
// match_with_jobid). The id must not be allocated or reserved already
// (ErrExists), nor negative (ErrInvalid). The counter still advances as
// for Match. (fluxion-go has no such method; this one is gofluxion's.)
func (cli *ReapiClient) MatchWithJobID(matchOp types.MatchType, jobspec string, jobid int64) (reserved bool, allocated string, at int64, overhead float64, id int64, err error) {
	c, err := cli.enter("match_allocate", true)
	if err != nil {
		return false, "", 0, 0, 0, err
	}
	defer cli.mu.Unlock()
	if jobid < 0 {
		return false, "", 0, 0, jobid, &Error{Op: "match_allocate", Errno: match.EOVERFLOW, Err: fmt.Errorf("job id %d is negative", jobid)}
	}
	reserved, allocated, at, overhead, u, err := c.matchAllocate(matchOp, jobspec, uint64(jobid), true)
	return reserved, allocated, at, overhead, int64(u), err
}

// MatchSatisfy reports whether jobspec could ever be allocated on the
// graph (ignoring what is booked and what is down). An unsatisfiable
// request is an answer (false, nil), not an error; errors are reserved for
// a bad jobspec and other failures. Nothing is booked and no job id is
// consumed.
func (cli *ReapiClient) MatchSatisfy(jobspec string) (sat bool, overhead float64, err error) {
	c, err := cli.enter("match_satisfy", true)
	if err != nil {
		return false, 0, err
	}
	defer cli.mu.Unlock()
	start := time.Now()
	_, _, _, _, _, err = c.matchAllocate(types.MatchSatisfiability, jobspec, 0, false)
	overhead = time.Since(start).Seconds()
	if err == nil {
		return true, overhead, nil
	}
	if errors.Is(err, ErrUnsatisfiable) {
		return false, overhead, nil
	}
	var e *Error
	if errors.As(err, &e) {
		e.Op = "match_satisfy"
	}
	return false, overhead, err
}

// matchAllocate is api.md §3.
func (c *reapiCtx) matchAllocate(mt types.MatchType, text string, jobid uint64, withID bool) (reserved bool, R string, at int64, ov float64, id uint64, err error) {
	const op = "match_allocate"
	rq := c.rq
	start := time.Now()
	if !withID {
		// Fluxion would silently reuse an id that an update booked; skip it.
		for rq.inUse(rq.counter) {
			rq.counter++
		}
		jobid = rq.counter
	}
	mop, ok := toOp(mt)
	if !ok {
		msg := "match_allocate: ERROR: Invalid Match Option: " + strconv.Itoa(int(mt)) + "\n"
		return false, "", 0, 0, jobid, c.fail(op, match.EINVAL, msg, fmt.Errorf("invalid match type %d", int(mt)))
	}
	if mop == match.WithoutAllocating || mop == match.WithoutAllocatingFuture {
		jobid = noAllocID
	}
	js, perr := rq.parseJobspec(text)
	if perr != nil {
		msg := "match_allocate: ERROR: Jobspec error for " + strconv.FormatUint(rq.counter, 10) + ": " + perr.Error() + "\n"
		return false, "", 0, 0, jobid, c.fail(op, match.EINVAL, msg, perr)
	}
	if withID && consumesID(mop) && rq.inUse(jobid) {
		msg := "match_allocate: ERROR: existing jobid " + strconv.FormatUint(jobid, 10) + "\n"
		return false, "", 0, 0, jobid, c.fail(op, match.EEXIST, msg, ErrExists)
	}
	w := &countingWriter{Writer: rq.w}
	got, merr := rq.m.Match(mop, js, jobid, 0, w)
	var failure *Error
	if merr != nil {
		var me *match.Error
		errno := match.EINVAL
		text := ""
		if errors.As(merr, &me) {
			errno, text = me.Errno, me.Msg
		}
		msg := ""
		if text != "" {
			msg = "match_allocate: ERROR: " + text + "\n"
		} else if errno != match.EBUSY && errno != match.ENODEV {
			msg = "match_allocate: ERROR: traverser: " + errno.String() + "\n"
		}
		failure = c.fail(op, errno, msg, merr)
		if errno != match.EBUSY && errno != match.ENODEV {
			return false, "", 0, 0, jobid, failure
		}
	}
	R, rerr := render(rq.w, w.n)
	if rerr != nil {
		// The selection cannot be rendered: undo the booking, so that a
		// failed call leaves the schedule as it was.
		if mop.Books() {
			_ = rq.m.Cancel(jobid)
		}
		msg := "match_allocate: ERROR: match writer emit: " + match.EINVAL.String() + "\n"
		return false, "", 0, 0, jobid, c.fail(op, match.EINVAL, msg, rerr)
	}
	ov = time.Since(start).Seconds()
	if failure == nil {
		at = got
		if mop.Books() {
			reserved = at != 0
			mode := ModeAllocated
			if reserved {
				mode = ModeReserved
			}
			rq.record(jobid, mode, at, ov)
		}
	}
	if consumesID(mop) {
		rq.counter++
	}
	if failure != nil {
		return false, R, 0, ov, jobid, failure
	}
	return reserved, R, at, ov, jobid, nil
}

// UpdateAllocate books an allocation made elsewhere (for example by a
// scheduler before a restart) as job jobid, from its R, and returns the
// start time, the elapsed seconds and the R rendered in the context's
// match format.
//
// R is either an RFC 20 envelope ({"version": 1, "execution": {...},
// "scheduling": JGF?}), whose execution.starttime gives the start time
// and expiration − starttime the duration, and whose scheduling part (or,
// without one, its execution part, read as rv1exec) is applied; or a
// document in the context's load format (jgf, jgf_shorthand, rv1exec),
// applied at time 0 for the whole graph window. The job is recorded as
// ALLOCATED, even when it starts later. The job id counter is not changed.
// A negative jobid is an EOVERFLOW error (ErrInvalid), as in Cancel, which
// could not cancel the job; Fluxion books it.
func (cli *ReapiClient) UpdateAllocate(jobid int, r string) (at int64, overhead float64, r_out string, err error) {
	c, err := cli.enter("update_allocate", true)
	if err != nil {
		return 0, 0, "", err
	}
	defer cli.mu.Unlock()
	if jobid < 0 {
		// Cancel refuses such ids (EOVERFLOW): the job could never be
		// canceled. Fluxion books it.
		return 0, 0, "", &Error{Op: "update_allocate", Errno: match.EOVERFLOW, Err: fmt.Errorf("job id %d is negative", jobid)}
	}
	return c.updateAllocate(uint64(jobid), r)
}

func (c *reapiCtx) updateAllocate(id uint64, R string) (at int64, ov float64, Rout string, err error) {
	const op = "update_allocate"
	rq := c.rq
	start := time.Now()
	if rq.inUse(id) {
		msg := "update_allocate: ERROR: existing jobid " + strconv.FormatUint(id, 10) + "\n"
		return 0, 0, "", c.fail(op, match.EEXIST, msg, ErrExists)
	}
	if R == "" {
		return 0, 0, "", c.fail(op, match.EINVAL, "", errors.New("empty R"))
	}
	in, errno, msg, cause := classifyUpdate(R, rq.opts.LoadFormat)
	if cause != nil {
		return 0, 0, "", c.fail(op, errno, msg, cause)
	}
	w := &countingWriter{Writer: rq.w}
	if uerr := in.update(rq.m, id, w); uerr != nil {
		text := fluxionText(uerr)
		errno := errnoOf(uerr)
		if text == "" {
			text = errno.String() + "\n"
		}
		return 0, 0, "", c.fail(op, errno, "update_allocate: ERROR: "+text, uerr)
	}
	Rout, rerr := render(rq.w, w.n)
	if rerr != nil {
		_ = rq.m.Cancel(id)
		msg := "update_allocate: ERROR: match writer emit: " + match.EINVAL.String() + "\n"
		return 0, 0, "", c.fail(op, match.EINVAL, msg, rerr)
	}
	ov = time.Since(start).Seconds()
	rq.record(id, ModeAllocated, in.at, ov)
	return in.at, ov, Rout, nil
}

// Cancel releases everything job jobid holds; the job stays in the job
// table as CANCELED. An unknown job (never matched, or already canceled)
// adds "cancel: ERROR: nonexistent job <id>" to the error message and is
// an ErrNotFound error unless noentOK. A negative id (above INT64_MAX as
// an unsigned id) is an EOVERFLOW error.
func (cli *ReapiClient) Cancel(jobid int64, noent_ok bool) (err error) {
	c, err := cli.enter("cancel", true)
	if err != nil {
		return err
	}
	defer cli.mu.Unlock()
	const op = "cancel"
	rq := c.rq
	if jobid < 0 {
		return &Error{Op: op, Errno: match.EOVERFLOW, Err: fmt.Errorf("job id %d is above INT64_MAX", uint64(jobid))}
	}
	id := uint64(jobid)
	if !rq.inUse(id) {
		msg := "cancel: ERROR: nonexistent job " + strconv.FormatUint(id, 10) + "\n"
		c.errmsg.WriteString(msg)
		if noent_ok {
			return nil
		}
		return &Error{Op: op, Errno: match.ENOENT, Msg: msg}
	}
	if cerr := rq.m.Cancel(id); cerr != nil {
		msg := "cancel: ERROR: error encountered while removing job " + strconv.FormatUint(id, 10) + "\n"
		return c.fail(op, errnoOf(cerr), msg, cerr)
	}
	rq.jobs[id].mode = ModeCanceled
	return nil
}

// PartialCancel releases the part of allocated job jobid that R lists: the
// ranks of an RFC 20 R without a scheduling part, or the vertices of its
// JGF scheduling part. It reports whether that released the whole job,
// which then becomes CANCELED. A job that is not allocated (unknown,
// reserved or canceled) adds "cancel: WARNING: can't find allocation for
// jobid: <id>" to the error message and is an ErrNotFound error unless
// noentOK (then the result is false, nil).
func (cli *ReapiClient) PartialCancel(jobid int64, r string, noent_ok bool) (bool, error) {
	R := r
	c, err := cli.enter("partial_cancel", true)
	if err != nil {
		return false, err
	}
	defer cli.mu.Unlock()
	const op = "partial_cancel"
	rq := c.rq
	id := uint64(jobid)
	j := rq.jobs[id]
	if j == nil || j.mode != ModeAllocated {
		msg := "cancel: WARNING: can't find allocation for jobid: " + strconv.FormatUint(id, 10) + "\n"
		c.errmsg.WriteString(msg)
		if noent_ok {
			return false, nil
		}
		return false, &Error{Op: op, Errno: match.ENOENT, Msg: msg}
	}
	in, errno, msg, cause := classifyPartial(R)
	if cause != nil {
		return false, c.fail(op, errno, msg, cause)
	}
	full, perr := in.partialCancel(rq.m, id)
	if perr != nil {
		msg := fluxionText(perr) + "cancel: ERROR: error encountered while removing job " + strconv.FormatUint(id, 10) + "\n"
		return false, c.fail(op, errnoOf(perr), msg, perr)
	}
	if full {
		j.mode = ModeCanceled
	}
	return full, nil
}

// Info returns the job table entry of jobid, in fluxion-go's order:
// whether it is reserved, its start time (seconds from the context's time
// 0), the elapsed seconds of the operation that created it and its mode
// (ALLOCATED, RESERVED or CANCELED). An unknown job adds
// "info: ERROR: nonexistent job <id>" to the error message (ErrNotFound).
func (cli *ReapiClient) Info(jobid int64) (reserved bool, at int64, overhead float64, mode string, err error) {
	c, err := cli.enter("info", true)
	if err != nil {
		return false, 0, 0, "", err
	}
	defer cli.mu.Unlock()
	id := uint64(jobid)
	j := c.rq.jobs[id]
	if j == nil {
		msg := "info: ERROR: nonexistent job " + strconv.FormatUint(id, 10) + "\n"
		return false, 0, 0, "", c.fail("info", match.ENOENT, msg, nil)
	}
	return j.mode == ModeReserved, j.at, j.overhead, j.mode, nil
}

// Stat summarises the context: the number of vertices (V) and live edges
// (E) of the graph, the number of jobs in the job table (J, canceled ones
// included), the graph load time and the minimum, maximum and average
// elapsed time of the operations that created a job (successful booking
// matches and updates), all in seconds (0 when there was none). Fluxion's
// C API returns ENOSYS here; this binding reports the figures.
func (cli *ReapiClient) Stat() (v int64, e int64, jobs int64, load float64, min float64, max float64, avg float64, err error) {
	c, err := cli.enter("stat", true)
	if err != nil {
		return 0, 0, 0, 0, 0, 0, 0, err
	}
	defer cli.mu.Unlock()
	rq := c.rq
	g := rq.m.Graph()
	return int64(g.NumVertices()), int64(g.LiveEdges()), int64(len(rq.jobs)), rq.loadTime, rq.minT, rq.maxT, rq.avgT, nil
}

// Clone returns an independent copy of the client: graph, statuses,
// allocations, reservations, job table and counter are copied; the match
// writer is fresh (nothing pending) and the error message empty. Later
// calls on either client do not affect the other.
func (cli *ReapiClient) Clone() (*ReapiClient, error) {
	c, err := cli.enter("clone", true)
	if err != nil {
		return nil, err
	}
	defer cli.mu.Unlock()
	rq := c.rq
	w, err := gofluxion.NewWriter(rq.opts.EffectiveMatchFormat)
	if err != nil {
		return nil, &Error{Op: "clone", Errno: match.EINVAL, Err: err}
	}
	n := *rq
	n.m = rq.m.Clone()
	n.w = w
	n.jobs = make(map[uint64]*jobInfo, len(rq.jobs))
	for id, j := range rq.jobs {
		cj := *j
		n.jobs[id] = &cj
	}
	return &ReapiClient{ctx: &reapiCtx{rq: &n}}, nil
}

// fluxionJGF is the JGF reader of InitContext (see readGraph).
var fluxionJGF = jgf.Options{Fluxion: true}

// readGraph is gofluxion.ReadGraph, except that it loads what Fluxion
// loads where the library refuses it: JGF by Fluxion's rules (see
// jgf.Options.Fluxion) and an rv1exec nodelist that names a host twice.
func readGraph(format string, data []byte, allowlist string) (*graph.Graph, error) {
	if format == gofluxion.FormatJGF || format == gofluxion.FormatJGFShorthand {
		// Fluxion's acceptance: two-way edge lists (fluxion-go's own
		// test data), cycles, second parents and wrapped sizes load as
		// in Fluxion, and the matcher answers as Fluxion does on them.
		return fluxionJGF.Read(data)
	}
	if format == gofluxion.FormatRV1Exec || format == gofluxion.FormatRV1ExecForce {
		if g, err := rv1.ReadExec(data); err == nil {
			return g, nil
		}
	}
	return gofluxion.ReadGraph(format, data, allowlist)
}
