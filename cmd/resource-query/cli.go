package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/boundedio"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/policy"
)

// job is one entry of the job table.
type job struct {
	id       uint64
	state    string // ALLOCATED, RESERVED, CANCELED
	at       int64
	file     string
	overhead float64
}

type cli struct {
	o       *options
	out     io.Writer // the -t file, else stdout
	stdout  io.Writer
	stderr  io.Writer
	g       *graph.Graph
	m       *match.Matcher
	w       emit.Writer
	jobs    map[uint64]*job
	counter uint64
	// spent is set once job id 2^64-1 was used: the counter does not wrap
	// to 0 (Fluxion's does); further matches fail.
	spent   bool
	jscache map[string]jscached
	// timing statistics (only update changes them, as in Fluxion)
	nMatched               int
	minTime, maxTime, avgT float64
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, code := parseArgs(args, stderr)
	if code >= 0 {
		return code
	}
	c := &cli{o: o, out: stdout, stdout: stdout, stderr: stderr, jobs: map[uint64]*job{}, jscache: map[string]jscached{}, counter: 1, minTime: math.MaxFloat64}
	if err := c.startup(); err != nil {
		fmt.Fprintf(stderr, ": Runtime error: %s\n", err.Error())
		return 1
	}
	if o.testOutput != "" {
		f, err := os.Create(o.testOutput)
		if err != nil {
			fmt.Fprintf(stderr, ": Runtime error: can't open %s: %v\n", o.testOutput, err)
			return 1
		}
		defer f.Close()
		c.out = f
	}
	c.loop(stdin)
	return c.writeGraph()
}

// startupError carries Fluxion's start-up message (ending in a newline).
type startupError struct{ msg string }

func (e *startupError) Error() string { return e.msg }

func (c *cli) startup() error {
	o := c.o
	if _, err := policy.New(o.policy); err != nil {
		return &startupError{"resource_query_t: ERROR: can't create matcher\n"}
	}
	data := defaultGraph
	if o.loadFile != "" {
		max := maxFileBytes
		if o.limits.MaxInputBytes > 0 {
			max = o.limits.MaxInputBytes
		}
		b, err := readFileMax(o.loadFile, max)
		switch {
		case err == nil:
			data = b
		case errors.Is(err, graph.ErrLimit):
			return &startupError{"resource_query_t: ERROR: " + err.Error() + "; raise it with --max-input-bytes=N\nERROR: error generating resources\n"}
		default:
			data = nil
		}
	}
	// The graph and the matcher are built at once and live on: collecting
	// while they grow only marks them again, and takes a core from the
	// reader's two goroutines. So the collector waits for a heap five
	// times the live one (not twice) until they are built: for a JGF
	// graph, whose document is most of the live heap then, that is no
	// collection at all, and no more memory at the peak (what they
	// allocate is nearly all kept).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	start := time.Now()
	g, err := loadGraph(o.loadFormat, data, o.allowlist, o.limits)
	if errors.Is(err, graph.ErrLimit) {
		return &startupError{"resource_query_t: ERROR: " + limitText(err) + "\nERROR: error generating resources\n"}
	}
	if err != nil {
		return &startupError{"resource_query_t: ERROR: " + readerText(err) + "\nERROR: error generating resources\n"}
	}
	loadTime := time.Since(start).Seconds()
	// The fidelity instrument: Fluxion's quirks, and the state Fluxion
	// leaves behind after a failed operation.
	mopts := match.Options{Policy: o.policy, Subsystems: o.subsystems, Traverser: o.traverser, PruneFilters: o.pruneFilters,
		FluxionQuirks: true, FluxionFailures: true}
	if _, ok := match.SubsystemNames(o.subsystems); !ok {
		return &startupError{"initialize_matchers_and_traversers: ERROR: can't set subsystems\n"}
	}
	m, err := match.New(g, mopts)
	if err != nil {
		var ce *match.ConfigError
		stage := "traverser"
		if errors.As(err, &ce) {
			stage = ce.Stage
		}
		switch stage {
		case "policy":
			return &startupError{"resource_query_t: ERROR: can't create matcher\n"}
		case "subsystems":
			return &startupError{"initialize_matchers_and_traversers: ERROR: can't set subsystems\n"}
		case "prune":
			return &startupError{"initialize_matchers_and_traversers: ERROR: can't set pruning filters\n"}
		}
		return &startupError{"initialize_matchers_and_traversers: ERROR: can't initialize traverser\n"}
	}
	// Commands come from a file in every test: Fluxion's terminal check
	// leaves ENOTTY in errno, which failures that set no code report.
	m.SetErrno(match.ENOTTY)
	w, err := newWriter(o.matchFormat)
	if err != nil {
		return &startupError{"initialize_matchers_and_traversers: ERROR: can't create match writers\n"}
	}
	c.g, c.m, c.w = g, m, w
	if o.elapse {
		types, names, paths := g.IndexSizes()
		fmt.Fprintf(c.stdout, "INFO: Graph Load Time: %s\n", fmtDouble(loadTime))
		fmt.Fprintf(c.stdout, "INFO: Vertex Count: %d\n", g.NumVertices())
		fmt.Fprintf(c.stdout, "INFO: Edge Count: %d\n", g.LiveEdges())
		fmt.Fprintf(c.stdout, "INFO: by_type Key-Value Pairs: %d\n", types)
		fmt.Fprintf(c.stdout, "INFO: by_name Key-Value Pairs: %d\n", names)
		fmt.Fprintf(c.stdout, "INFO: by_path Key-Value Pairs: %d\n", paths)
		for _, r := range g.Ranks() {
			fmt.Fprintf(c.stdout, "INFO: number of vertices with rank %d: %d\n", r, len(g.ByRank(r)))
		}
	}
	return nil
}

// fmtDouble prints like a default C++ ostream: 6 significant digits.
func fmtDouble(f float64) string {
	return strconv.FormatFloat(f, 'g', 6, 64)
}

// command table in Fluxion's order; the first name or abbreviation that
// matches wins (so "j" is attach, and remove needs its full name).
var commands = []struct {
	name, abbr, desc string
}{
	{"match", "m", "Allocate or reserve matching resources (subcmd: allocate | allocate_with_satisfiability | allocate_orelse_reserve | satisfiability | without_allocating | without_allocating_future)"},
	{"multi-match", "M", "Allocate or reserve for multiple jobspecs (subcmd: allocate | allocate_with_satisfiability | allocate_orelse_reserve | satisfiability | without_allocating | without_allocating_future)"},
	{"update", "u", "Update resource database with RV1 or JGF (subcmd: allocate | reserve)"},
	{"attach", "j", "Attach a JGF subgraph to the resource graph"},
	{"remove", "j", "Remove a subgraph by path or by ranks"},
	{"find", "f", "Find resources matched with criteria (predicates: status={up|down} sched-now={allocated|free} sched-future={reserved|free} jobid-alloc=<jobid> jobid-reserved=<jobid> jobid-span=<jobid> jobid-tag=<jobid> agfilter={true|false} names=<hostlist> property=<name>)"},
	{"cancel", "c", "Cancel an allocation or reservation"},
	{"partial-cancel", "pc", "Partially release an allocation"},
	{"set-property", "p", "Add a property to a resource"},
	{"get-property", "g", "Get all properties of a resource"},
	{"set-status", "t", "Set up/down status of a resource vertex"},
	{"get-status", "e", "Get up/down status of a resource vertex"},
	{"list", "l", "List all jobs"},
	{"info", "i", "Print info on a jobid"},
	{"stat", "s", "Print overall performance statistics"},
	{"cat", "a", "Print the jobspec file"},
	{"help", "h", "Print help message"},
	{"quit", "q", "Quit the session"},
}

func lookupCommand(tok string) string {
	for _, cmd := range commands {
		if tok == cmd.name || tok == cmd.abbr {
			return cmd.name
		}
	}
	return ""
}

// readFile reads a file named on the command line or in a command, at most
// graph.DefaultMaxInputBytes of it: a jobspec or graph named /dev/zero or
// a fifo must not exhaust memory.
func readFile(path string) ([]byte, error) { return readFileMax(path, maxFileBytes) }

// readFileMax is readFile with the bound maxFileBytes.
func readFileMax(path string, maxFileBytes int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A regular file is read into one buffer of its size (and a byte, to
	// see the end), not grown step by step: a graph file of 44 MB would
	// cost twice that in copies and garbage.
	var size int64
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = min(fi.Size(), maxFileBytes) + 1
	}
	data, err := boundedio.ReadAll(f, size, maxFileBytes)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxFileBytes {
		return nil, fmt.Errorf("%s: %w: more than %d bytes (--max-input-bytes)", path, graph.ErrLimit, maxFileBytes)
	}
	return data, nil
}

// maxFileBytes is readFile's bound (a variable for tests).
var maxFileBytes int64 = graph.DefaultMaxInputBytes

// maxLine bounds a command line: Fluxion's line editor has no bound, but a
// line this long is no command (a find expression is bounded far below).
const maxLine = 16 << 20

// readLine returns the next line of r without its newline; a line longer
// than maxLine is skipped whole and reported as tooLong. err is io.EOF at
// the end of the input (after a last line without a newline, if any).
func readLine(r *bufio.Reader) (line string, tooLong bool, err error) {
	var b []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(b)+len(chunk) > maxLine+1 {
				tooLong, b = true, nil
			} else {
				b = append(b, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (len(b) > 0 || tooLong) && err == io.EOF {
			err = nil
		}
		return strings.TrimSuffix(string(b), "\n"), tooLong, err
	}
}

func (c *cli) loop(stdin io.Reader) {
	r := bufio.NewReaderSize(stdin, 64*1024)
	for {
		line, tooLong, err := readLine(r)
		if err != nil {
			if err != io.EOF {
				c.errf("ERROR: can't read commands: %v\n", err)
			}
			return
		}
		if tooLong {
			c.errf("ERROR: command line longer than %d bytes skipped\n", maxLine)
			continue
		}
		args := strings.Fields(line)
		if len(args) == 0 {
			continue
		}
		// Fluxion's line editor checks the terminal before each line,
		// leaving ENOTTY in errno when commands come from a file.
		c.m.SetErrno(match.ENOTTY)
		name := lookupCommand(args[0])
		if name == "quit" {
			return
		}
		c.dispatch(name, args)
	}
}

func (c *cli) errf(format string, a ...any) { fmt.Fprintf(c.stderr, format, a...) }
func (c *cli) outf(format string, a ...any) { fmt.Fprintf(c.out, format, a...) }

func (c *cli) dispatch(name string, args []string) {
	switch name {
	case "match":
		c.cmdMatch(args)
	case "multi-match":
		c.cmdMultiMatch(args)
	case "cancel":
		c.cmdCancel(args)
	case "set-property":
		c.cmdSetProperty(args)
	case "get-property":
		c.cmdGetProperty(args)
	case "set-status":
		c.cmdSetStatus(args)
	case "get-status":
		c.cmdGetStatus(args)
	case "list":
		c.cmdList()
	case "info":
		c.cmdInfo(args)
	case "stat":
		c.cmdStat()
	case "cat":
		c.cmdCat(args)
	case "help":
		c.cmdHelp(args)
	default:
		c.dispatchMore(name, args)
	}
}

func (c *cli) cmdMatch(args []string) {
	if len(args) != 3 {
		c.errf("ERROR: malformed command\n")
		return
	}
	op, ok := match.ParseOp(args[1])
	if !ok {
		c.errf("ERROR: unknown subcmd %s\n", args[1])
		return
	}
	data, err := readFile(args[2])
	if err != nil {
		c.errf("ERROR: can't open %s\n", args[2])
		return
	}
	c.matchOne(op, args[2], data)
}

func (c *cli) cmdMultiMatch(args []string) {
	if len(args) < 4 {
		c.errf("ERROR: malformed command\n")
		return
	}
	op, ok := match.ParseOp(args[1])
	if !ok {
		c.errf("ERROR: unknown subcmd %s\n", args[1])
		return
	}
	for _, f := range args[2:] {
		data, err := readFile(f)
		if err != nil {
			c.errf("ERROR: can't open %s\n", f)
			continue
		}
		if !c.matchOne(op, f, data) {
			return
		}
	}
}

// matchOne runs one match as Fluxion's match_allocate and prints its block;
// it reports whether the match succeeded.
func (c *cli) matchOne(op match.Op, file string, data []byte) bool {
	if c.spent {
		c.errf("match_allocate: ERROR: no job id left (2^64-1 was the last)\n")
		return false
	}
	jobid := c.counter
	start := time.Now()
	var errno match.Errno
	rc := 0
	var at int64
	var rendered string
	js, perr := c.parseJobspec(data)
	skipRest := false
	if perr != nil {
		c.errf("match_allocate: ERROR: Jobspec error for %d: %s\n", c.counter, perr.Error())
		rc, errno, skipRest = -1, match.EINVAL, true
	} else {
		var err error
		if c.o.elapse {
			// The visit counts -e prints are those of Fluxion's exhaustive
			// walk, which the matcher's best-first walk does not make:
			// they are counted by a separate pass, kept out of ELAPSE.
			t0 := time.Now()
			c.m.CountVisits(op, js, jobid, 0)
			start = start.Add(time.Since(t0))
		}
		at, err = c.m.Match(op, js, jobid, 0, c.w)
		if err != nil {
			rc = -1
			var me *match.Error
			errors.As(err, &me)
			errno = me.Errno
			if me.Msg != "" {
				c.errf("match_allocate: ERROR: %s\n", me.Msg)
			} else if errno != match.EBUSY && errno != match.ENODEV {
				c.errf("match_allocate: ERROR: traverser: %s\n", errno)
			}
			if errno != match.EBUSY && errno != match.ENODEV {
				skipRest = true
			}
		}
		if !skipRest {
			s, rerr := c.w.Render()
			if rerr != nil {
				errno = renderErrno(rerr)
				c.errf("match_allocate: ERROR: match writer emit: %s\n", errno)
				rc, skipRest = -1, true
			} else {
				rendered = s
			}
		}
	}
	elapsed := time.Since(start).Seconds()
	if skipRest {
		elapsed = 0
	} else {
		if rc == 0 && op.Books() {
			state := "ALLOCATED"
			if at != 0 {
				state = "RESERVED"
			}
			c.jobs[jobid] = &job{id: jobid, state: state, at: at, file: file, overhead: elapsed}
		}
		if op.Books() {
			c.advance(jobid)
		}
	}
	c.outf("%s", rendered)
	pre, post := c.m.Visits()
	if op == match.Satisfiability {
		c.outf("INFO: =============================\n")
		if rc != 0 && (errno == match.ENODEV || errno == match.ENOENT) {
			c.outf("INFO: Unsatisfiable request\n")
		} else {
			c.outf("INFO: Satisfiable request\n")
		}
		c.outf("INFO: =============================\n")
		if c.o.elapse {
			fmt.Fprintf(c.stdout, "INFO: ELAPSE=%f\n", elapsed)
			fmt.Fprintf(c.stdout, "INFO: PREORDER VISIT COUNT=%d\n", pre)
			fmt.Fprintf(c.stdout, "INFO: POSTORDER VISIT COUNT=%d\n", post)
		}
		return rc == 0
	}
	c.outf("INFO: =============================\n")
	if rc == 0 {
		c.outf("INFO: JOBID=%d\n", jobid)
		res := "ALLOCATED"
		switch {
		case op == match.WithoutAllocating || op == match.WithoutAllocatingFuture:
			res = "MATCHED"
		case at != 0:
			res = "RESERVED"
		}
		c.outf("INFO: RESOURCES=%s\n", res)
		if at == 0 {
			c.outf("INFO: SCHEDULED AT=Now\n")
		} else {
			c.outf("INFO: SCHEDULED AT=%d\n", at)
		}
		if c.o.elapse {
			fmt.Fprintf(c.stdout, "INFO: ELAPSE=%f\n", elapsed)
			fmt.Fprintf(c.stdout, "INFO: PREORDER VISIT COUNT=%d\n", pre)
			fmt.Fprintf(c.stdout, "INFO: POSTORDER VISIT COUNT=%d\n", post)
		}
	} else {
		c.outf("INFO: No matching resources found\n")
		if errno == match.ENODEV || errno == match.ENOENT {
			c.outf("INFO: Unsatisfiable request\n")
		}
		c.outf("INFO: JOBID=%d\n", jobid)
		if c.o.elapse {
			c.outf("INFO: ELAPSE=%f\n", elapsed)
			fmt.Fprintf(c.stdout, "INFO: PREORDER VISIT COUNT=%d\n", pre)
			fmt.Fprintf(c.stdout, "INFO: POSTORDER VISIT COUNT=%d\n", post)
		}
	}
	c.outf("INFO: =============================\n")
	return rc == 0
}

// parseJobspec parses a jobspec, reusing the result for identical text:
// parsing is deterministic (the type table is frozen after load), and a
// stream of the same jobspec then also reuses the matcher's resolved
// request tree.
func (c *cli) parseJobspec(data []byte) (*jobspec.Jobspec, error) {
	if e, ok := c.jscache[string(data)]; ok {
		return e.js, e.err
	}
	js, err := jobspec.Parse(data, jobspec.Options{KnownType: func(t string) bool { _, ok := c.g.Types.Lookup(t); return ok }})
	if len(c.jscache) >= 64 {
		clear(c.jscache)
	}
	c.jscache[string(data)] = jscached{js, err}
	return js, err
}

type jscached struct {
	js  *jobspec.Jobspec
	err error
}

func parseJobID(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

func (c *cli) cmdCancel(args []string) {
	if len(args) != 2 && len(args) != 3 {
		c.errf("ERROR: malformed command\n")
		return
	}
	id, _ := parseJobID(args[1])
	j, ok := c.jobs[id]
	if !ok || (j.state != "ALLOCATED" && j.state != "RESERVED") {
		c.errf("cancel: ERROR: nonexistent job %s\n", args[1])
		return
	}
	if err := c.m.Cancel(id); err != nil {
		c.errf("cancel: ERROR: error encountered while removing job %d\n", id)
		return
	}
	j.state = "CANCELED"
	if len(args) == 3 && args[2] == "stats" {
		pre, post := c.m.Visits()
		c.outf("INFO: =============================\n")
		c.outf("INFO: CANCEL PREORDER COUNT=\"%d\"\n", pre)
		c.outf("INFO: CANCEL POSTORDER COUNT=\"%d\"\n", post)
		c.outf("INFO: =============================\n")
	}
}

func (c *cli) cmdSetProperty(args []string) {
	if len(args) != 3 {
		c.errf("ERROR: malformed command\n")
		return
	}
	path, kv := args[1], args[2]
	i := strings.IndexByte(kv, '=')
	if i <= 0 || i == len(kv)-1 {
		c.outf("Incorrect input format. \nPlease use `set-property <resource> PROPERTY=VALUE`.\n")
		return
	}
	vs := c.g.ByPath(path)
	if len(vs) == 0 {
		c.outf("Couldn't find path %s in resource graph.\n", path)
		return
	}
	for _, v := range vs {
		c.m.SetProperty(v, kv[:i], kv[i+1:])
	}
}

func (c *cli) cmdGetProperty(args []string) {
	if len(args) != 2 {
		c.errf("ERROR: malformed command\n")
		return
	}
	path := args[1]
	vs := c.g.ByPath(path)
	if len(vs) == 0 {
		c.outf("Could not find path %s in resource graph.\n", path)
		return
	}
	for _, v := range vs {
		vx := c.g.V(v)
		if len(vx.Props()) == 0 {
			c.outf("No properties were found for %s (vtx's uniq_id=%d).\n", path, vx.UniqID)
			continue
		}
		for _, p := range vx.Props() {
			c.outf("%s=%s\n", p.Key, p.Value)
		}
	}
}

func (c *cli) cmdSetStatus(args []string) {
	if len(args) != 3 {
		c.errf("ERROR: malformed command\n")
		return
	}
	path := args[1]
	if len(c.g.ByPath(path)) == 0 {
		c.outf("Could not find path %s in resource graph.\n", path)
		return
	}
	var st graph.Status
	switch args[2] {
	case "up":
		st = graph.StatusUp
	case "down":
		st = graph.StatusDown
	default:
		c.errf("ERROR: unrecognized status\n")
		return
	}
	if err := c.m.SetStatus(path, st); err != nil {
		c.errf("%s\n", err)
	}
}

func (c *cli) cmdGetStatus(args []string) {
	if len(args) != 2 {
		c.errf("ERROR: malformed command\n")
		return
	}
	path := args[1]
	vs := c.g.ByPath(path)
	if len(vs) == 0 {
		c.outf("Could not find path %s in resource graph.\n", path)
		return
	}
	for _, v := range vs {
		s := "up"
		if c.g.V(v).Status != graph.StatusUp {
			s = "down"
		}
		c.outf("%s is %s\n", path, s)
	}
}

func (c *cli) jobLine(j *job) string {
	return fmt.Sprintf("INFO: %d, %s, %d, %s, %s\n", j.id, j.state, j.at, j.file, fmtDouble(j.overhead))
}

func (c *cli) cmdList() {
	ids := make([]uint64, 0, len(c.jobs))
	for id := range c.jobs {
		ids = append(ids, id)
	}
	sortU64(ids)
	for _, id := range ids {
		fmt.Fprint(c.stdout, c.jobLine(c.jobs[id]))
	}
}

func sortU64(l []uint64) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j-1] > l[j]; j-- {
			l[j-1], l[j] = l[j], l[j-1]
		}
	}
}

func (c *cli) cmdInfo(args []string) {
	if len(args) != 2 {
		c.errf("ERROR: malformed command\n")
		return
	}
	id, _ := parseJobID(args[1])
	j, ok := c.jobs[id]
	if !ok {
		c.errf("info: ERROR: nonexistent job %s\n", args[1])
		return
	}
	fmt.Fprint(c.stdout, c.jobLine(j))
}

func (c *cli) cmdStat() {
	fmt.Fprintf(c.stdout, "INFO: Num. of Jobs Matched: %d\n", c.nMatched)
	mn := c.minTime
	if len(c.jobs) == 0 {
		mn = 0
	}
	fmt.Fprintf(c.stdout, "INFO: Min. Match Time: %s\n", fmtDouble(mn))
	fmt.Fprintf(c.stdout, "INFO: Max. Match Time: %s\n", fmtDouble(c.maxTime))
	fmt.Fprintf(c.stdout, "INFO: Avg. Match Time: %s\n", fmtDouble(c.avgT))
}

func (c *cli) cmdCat(args []string) {
	if len(args) != 2 {
		c.errf("ERROR: malformed command\n")
		return
	}
	data, err := readFile(args[1])
	if err != nil {
		c.errf("ERROR: can't open %s\n", args[1])
		return
	}
	s := string(data)
	s = strings.TrimSuffix(s, "\n")
	for _, line := range strings.Split(s, "\n") {
		fmt.Fprintln(c.stdout, line)
	}
	fmt.Fprintf(c.stdout, "INFO: Jobspec in %s\n", args[1])
}

func (c *cli) cmdHelp(args []string) {
	if len(args) == 1 {
		for _, cmd := range commands {
			fmt.Fprintf(c.stdout, "INFO: %s (%s) -- %s\n", cmd.name, cmd.abbr, cmd.desc)
		}
		return
	}
	found := false
	for _, cmd := range commands {
		if args[1] == cmd.name || args[1] == cmd.abbr {
			fmt.Fprintf(c.stdout, "INFO: %s (%s) -- %s\n", cmd.name, cmd.abbr, cmd.desc)
			found = true
		}
	}
	if !found {
		c.errf("ERROR: unknown command: %s\n", args[1])
	}
}

// advance moves the job counter past jobid; past 2^64-1 no id is left.
func (c *cli) advance(jobid uint64) {
	if jobid == math.MaxUint64 {
		c.spent = true
		return
	}
	c.counter = jobid + 1
}
