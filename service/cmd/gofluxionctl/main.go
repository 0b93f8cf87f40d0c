// Command gofluxionctl talks to a gofluxion matcher service (see
// `gofluxionctl help`, and the exit codes below).
//
//	gofluxionctl [-s ADDR,...] [-timeout 5s] [-ca F -cert F -key F] [-token T] COMMAND [ARGS]
//
// Exit codes: 0 done; 1 failed (an invalid request, a job not found, a
// server error); 2 bad command line; 3 busy (it does not fit now); 4
// never fits (not even on the whole free graph); 5 unreachable (no
// replica answered within -timeout); 6 denied (no credentials, a role too
// low, or a certificate refused).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/service/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitBusy        = 3
	exitNeverFits   = 4
	exitUnreachable = 5
	exitDenied      = 6
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// command is a subcommand: its arguments, one line of help, and what it
// does.
type command struct {
	name, args, help string
	do               func(e *env, args []string) error
}

// env is what a command runs with.
type env struct {
	c       *client.Client
	ctx     context.Context
	out     io.Writer
	timeout time.Duration
}

var commands []command

func init() {
	commands = []command{
		{"help", "", "list the commands, the flags and the exit codes", nil},
		{"cluster", "", "the answering replica's view of the cluster: role, leader, members, applied index", cmdCluster},
		{"stats", "", "count the graph's vertices and edges and the jobs", cmdStats},
		{"jobs", "", "list the jobs: id, state, start, end, nodes", cmdJobs},
		{"usage", "[AT]", "units per type at time AT (default 0): in use, reserved for later, down, free", cmdUsage},
		{"info", "JOBID", "one job's state, start and end", cmdInfo},
		{"find", "CRITERIA [FORMAT]", "the resources matching a criteria expression (format simple by default)", cmdFind},
		{"explain", "JOBSPEC-FILE [AT]", "why a jobspec fits or not at time AT (default 0), level by level", cmdExplain},
		{"match", "[-o FORMAT] JOBSPEC-FILE AT [OP]", "book a jobspec (OP allocate_orelse_reserve by default); a one-line summary, or the R with -o rv1|jgf|...", cmdMatch},
		{"cancel", "JOBID", "cancel a job", cmdCancel},
		{"join", "ID RAFT-ADDR GRPC-ADDR", "add a replica (admin): a non-voter until it has caught up", cmdJoin},
		{"leave", "REPLICA-ID", "remove a replica (admin)", cmdLeave},
		{"snapshot", "FILE", "download the whole state to FILE (admin)", cmdSnapshot},
	}
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: gofluxionctl [flags] COMMAND [ARGS]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-45s %s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, `
Exit codes:
  0  done
  1  failed (an invalid request, a job not found, a server error)
  2  bad command line
  3  busy: it does not fit now (it may later)
  4  never fits, not even on the whole free graph
  5  unreachable: no replica answered within -timeout
  6  denied: no credentials, a role too low, or a certificate refused
`)
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gofluxionctl", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addrs := fs.String("s", "127.0.0.1:7070", "service addresses, comma separated")
	stale := fs.Bool("stale", false, "let a follower answer queries (its state may lag)")
	timeout := fs.Duration("timeout", 5*time.Second, "give up after this long (all retries included)")
	ca := fs.String("ca", "", "PEM CA bundle that verifies the server (TLS); the system roots if -cert is given without it")
	cert := fs.String("cert", "", "PEM client certificate (mutual TLS)")
	key := fs.String("key", "", "PEM key of -cert")
	token := fs.String("token", "", "bearer token (needs TLS); default $GOFLUXION_TOKEN")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout, fs)
			return exitOK
		}
		fmt.Fprintln(stderr, "gofluxionctl:", err)
		usage(stderr, fs)
		return exitUsage
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fmt.Fprintln(stderr, "gofluxionctl: no command")
		usage(stderr, fs)
		return exitUsage
	}
	if rest[0] == "help" || rest[0] == "-h" {
		usage(stdout, fs)
		return exitOK
	}
	var cmd *command
	for i := range commands {
		if commands[i].name == rest[0] {
			cmd = &commands[i]
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "gofluxionctl: unknown command %q (gofluxionctl help lists them)\n", rest[0])
		return exitUsage
	}
	if *token == "" {
		*token = os.Getenv("GOFLUXION_TOKEN")
	}
	c, err := client.Dial(strings.Split(*addrs, ","), client.Options{StaleReads: *stale, Timeout: *timeout,
		AttemptTimeout: min(*timeout, 5*time.Second), CA: *ca, Cert: *cert, Key: *key, Token: *token})
	if err != nil {
		fmt.Fprintln(stderr, "gofluxionctl:", err)
		return exitUsage
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	err = cmd.do(&env{c: c, ctx: ctx, out: stdout, timeout: *timeout}, rest[1:])
	code := exitCode(err)
	switch {
	case err == nil:
	case code == exitUnreachable:
		fmt.Fprintf(stderr, "gofluxionctl: %s: unreachable: no answer from %s within %v (%v)\n", cmd.name, *addrs, *timeout, err)
	case code == exitDenied:
		fmt.Fprintf(stderr, "gofluxionctl: %s: denied: %v\n", cmd.name, err)
	case code == exitUsage:
		fmt.Fprintf(stderr, "gofluxionctl: %s: %v\nusage: gofluxionctl %s %s\n", cmd.name, err, cmd.name, cmd.args)
	default:
		fmt.Fprintf(stderr, "gofluxionctl: %s: %v\n", cmd.name, err)
	}
	return code
}

// usageError is a bad command line.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitCode maps an error to the exit code documented above.
func exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case client.HandshakeFailed(err):
		return exitDenied
	}
	switch status.Code(err) {
	case codes.Unauthenticated, codes.PermissionDenied:
		return exitDenied
	case codes.Unavailable, codes.DeadlineExceeded:
		return exitUnreachable
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return exitUnreachable
	case errors.Is(err, gofluxion.ErrUnsatisfiable):
		return exitNeverFits
	case errors.Is(err, gofluxion.ErrBusy):
		return exitBusy
	}
	return exitFailed
}

func need(args []string, min, max int) error {
	if len(args) < min || len(args) > max {
		if min == max {
			return usagef("wants %d argument(s), got %d", min, len(args))
		}
		return usagef("wants %d to %d arguments, got %d", min, max, len(args))
	}
	return nil
}

func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usagef("job id %q is not a number", s)
	}
	return id, nil
}

// optAt parses the optional time args[i], 0 when absent.
func optAt(args []string, i int) (int64, error) {
	if len(args) <= i {
		return 0, nil
	}
	return parseAt(args[i])
}

func parseAt(s string) (int64, error) {
	at, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, usagef("time %q is not a number of seconds", s)
	}
	return at, nil
}

func cmdCluster(e *env, args []string) error {
	if err := need(args, 0, 0); err != nil {
		return err
	}
	i, err := e.c.Cluster(e.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.out, protojson.Format(i))
	return nil
}

func cmdStats(e *env, args []string) error {
	if err := need(args, 0, 0); err != nil {
		return err
	}
	st, err := e.c.With(e.ctx).Stats()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.out, "vertices %d\nedges %d\njobs %d\n", st.Vertices, st.Edges, st.Jobs)
	return nil
}

func cmdJobs(e *env, args []string) error {
	if err := need(args, 0, 0); err != nil {
		return err
	}
	jobs, err := e.c.With(e.ctx).JobTable()
	if err != nil {
		return err
	}
	for _, j := range jobs {
		fmt.Fprintf(e.out, "%d\t%s\t%d\t%d\t%s\n", j.ID, j.State, j.Start, j.End, j.Nodes)
	}
	return nil
}

func cmdUsage(e *env, args []string) error {
	if err := need(args, 0, 1); err != nil {
		return err
	}
	at, err := optAt(args, 0)
	if err != nil {
		return err
	}
	us, err := e.c.With(e.ctx).UsageAt(at)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.out, "TYPE\tTOTAL\tIN-USE\tRESERVED\tDOWN\tFREE\n")
	for _, u := range us {
		fmt.Fprintf(e.out, "%s\t%d\t%d\t%d\t%d\t%d\n", u.Type, u.Total, u.Allocated, u.Reserved, u.Down, u.Free)
	}
	return nil
}

func cmdInfo(e *env, args []string) error {
	if err := need(args, 1, 1); err != nil {
		return err
	}
	id, err := parseID(args[0])
	if err != nil {
		return err
	}
	j, err := e.c.With(e.ctx).Info(id)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.out, "job %d %s [%d, %d)\n", j.ID, strings.ToLower(j.State.String()), j.Start, j.End)
	return nil
}

func cmdFind(e *env, args []string) error {
	if err := need(args, 1, 2); err != nil {
		return err
	}
	format := "simple"
	if len(args) > 1 {
		format = args[1]
	}
	out, err := e.c.With(e.ctx).FindAt(args[0], format, 0)
	if err != nil {
		return err
	}
	fmt.Fprint(e.out, out)
	return nil
}

func cmdExplain(e *env, args []string) error {
	if err := need(args, 1, 2); err != nil {
		return err
	}
	at, err := optAt(args, 1)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	b := e.c.With(e.ctx)
	js, err := b.ParseJobspec(data)
	if err != nil {
		return err
	}
	x, err := b.Explain(js, at)
	if err != nil {
		return err
	}
	switch {
	case x.FitsNow:
		fmt.Fprintf(e.out, "fits at %d\n", at)
	case x.Satisfiable:
		fmt.Fprintf(e.out, "busy at %d: %s\n", at, x.Reason())
	default:
		fmt.Fprintf(e.out, "never fits: %s\n", x.Reason())
	}
	for _, l := range x.Levels {
		cause := l.Cause()
		if cause != "" {
			cause = "  <- " + cause
		}
		fmt.Fprintf(e.out, "  %s%s: needs %d, %s now, %s when free%s\n", strings.Repeat("  ", l.Depth), l.Path, l.Needed, found(l.FoundNow), found(l.FoundFree), cause)
	}
	return nil
}

func found(n int64) string {
	if n < 0 {
		return "not reached"
	}
	return strconv.FormatInt(n, 10)
}

func cmdMatch(e *env, args []string) error {
	fs := flag.NewFlagSet("match", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("o", "summary", "output: summary, or an R format (rv1, jgf, ...)")
	if err := fs.Parse(args); err != nil {
		return usagef("%v", err)
	}
	args = fs.Args()
	if err := need(args, 2, 3); err != nil {
		return err
	}
	at, err := parseAt(args[1])
	if err != nil {
		return err
	}
	op := gofluxion.AllocateOrElseReserve
	if len(args) > 2 {
		o, ok := match.ParseOp(args[2])
		if !ok {
			return usagef("unknown match op %q", args[2])
		}
		op = o
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	b := e.c.With(e.ctx)
	js, err := b.ParseJobspec(data)
	if err != nil {
		return err
	}
	a, err := b.Match(op, js, at)
	if err != nil {
		return err
	}
	if a == nil { // satisfiability: nothing booked
		fmt.Fprintln(e.out, "satisfiable")
		return nil
	}
	if *format == "summary" {
		fmt.Fprintln(e.out, summary(a))
		return nil
	}
	r, err := a.Render(*format)
	if err != nil {
		return err
	}
	fmt.Fprint(e.out, r)
	if !strings.HasSuffix(r, "\n") {
		fmt.Fprintln(e.out)
	}
	return nil
}

// summary is one line about an allocation: "job 3 allocated [0, 3600) on
// 2 nodes (node0 node1): 4 cores, 1 gpu, 16 memory".
func summary(a *gofluxion.Allocation) string {
	what := "allocated"
	if a.Reserved {
		what = "reserved"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "job %d %s [%d, %d)", a.JobID, what, a.Start, a.End)
	uses := a.ByNode()
	if len(uses) > 0 {
		names := make([]string, 0, len(uses))
		for _, u := range uses {
			names = append(names, u.Name)
		}
		list := strings.Join(names, " ")
		if len(names) > 8 {
			list = strings.Join(names[:8], " ") + fmt.Sprintf(" +%d more", len(names)-8)
		}
		fmt.Fprintf(&b, " on %d node%s (%s)", len(uses), plural(len(uses)), list)
	}
	var cores, gpus, mem int64
	other := map[string]int64{}
	for _, u := range uses {
		cores, gpus, mem = cores+u.Cores, gpus+u.GPUs, mem+u.Memory
		for t, n := range u.Other {
			other[t] += n
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int64
		name string
	}{{cores, "core"}, {gpus, "gpu"}, {mem, "memory"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.name+plural(int(p.n))))
		}
	}
	types := make([]string, 0, len(other))
	for t := range other {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		parts = append(parts, fmt.Sprintf("%d %s", other[t], t))
	}
	if len(parts) > 0 {
		b.WriteString(": " + strings.Join(parts, ", "))
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func cmdCancel(e *env, args []string) error {
	if err := need(args, 1, 1); err != nil {
		return err
	}
	id, err := parseID(args[0])
	if err != nil {
		return err
	}
	if err := e.c.With(e.ctx).Cancel(id); err != nil {
		return err
	}
	fmt.Fprintf(e.out, "job %d canceled\n", id)
	return nil
}

func cmdJoin(e *env, args []string) error {
	if err := need(args, 3, 3); err != nil {
		return err
	}
	i, err := e.c.Join(e.ctx, args[0], args[1], args[2])
	if err != nil {
		return err
	}
	fmt.Fprintln(e.out, protojson.Format(i))
	return nil
}

func cmdLeave(e *env, args []string) error {
	if err := need(args, 1, 1); err != nil {
		return err
	}
	i, err := e.c.Leave(e.ctx, args[0])
	if err != nil {
		return err
	}
	fmt.Fprintln(e.out, protojson.Format(i))
	return nil
}

func cmdSnapshot(e *env, args []string) error {
	if err := need(args, 1, 1); err != nil {
		return err
	}
	f, err := os.Create(args[0])
	if err != nil {
		return err
	}
	if err := e.c.With(e.ctx).Snapshot(f); err != nil {
		f.Close()
		os.Remove(args[0])
		return err
	}
	return f.Close()
}
