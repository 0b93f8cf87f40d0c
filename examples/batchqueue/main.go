// Command batchqueue simulates a batch queue on top of gofluxion: a
// workload trace (seeded, reproducible) is replayed on a cluster whose
// GRUG recipe is built in code, under FCFS, FCFS with EASY backfill and
// conservative backfill, and the schedules are compared.
//
// The queue policy (policy.go) decides what to submit when; the Matcher,
// behind a Dispatcher (dispatch.go), decides where. Simulated time is the
// Matcher's `at` argument: Match(op, jobspec, now) books at now or reserves
// later, and a job is cancelled when the clock passes its real end.
//
//	go run ./examples/batchqueue
//	go run ./examples/batchqueue -jobs 500 -seed 7 -policy easy -v
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	err := run(os.Args[1:], os.Stdout)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "batchqueue:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("bad usage")

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("batchqueue", flag.ContinueOnError)
	fs.SetOutput(out)
	n := fs.Int("jobs", 200, "number of jobs in the trace")
	seed := fs.Uint64("seed", 1, "random seed of the trace")
	policy := fs.String("policy", "all", "queue policy: fcfs, easy, conservative or all")
	nodes := fs.Int("nodes", 16, "nodes in the cluster")
	cores := fs.Int("cores", 32, "cores per node")
	load := fs.Float64("load", 1.2, "offered load (core-seconds asked per core-second available)")
	match := fs.String("match-policy", "first", "the Matcher's match policy (where jobs go)")
	verbose := fs.Bool("v", false, "print every job's schedule")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 || *n < 1 || *nodes < 1 || *cores < 1 || *load <= 0 {
		fmt.Fprintln(out, "usage: batchqueue [-jobs N] [-seed S] [-policy P] [-nodes N] [-cores C] [-load L] [-match-policy P] [-v]")
		return errUsage
	}
	names := PolicyNames
	if *policy != "all" {
		if _, err := NewPolicy(*policy); err != nil {
			return err
		}
		names = []string{*policy}
	}

	c := Cluster{Nodes: *nodes, Cores: *cores}
	trace := GenerateTrace(c, *n, *seed, *load)
	nodeJobs := 0
	for _, t := range trace {
		if t.Nodes > 0 {
			nodeJobs++
		}
	}
	fmt.Fprintf(out, "cluster: %d nodes x %d cores (GRUG built in code), match policy %s\n", c.Nodes, c.Cores, *match)
	fmt.Fprintf(out, "trace:   %d jobs (seed %d, offered load %.2f): %d core jobs on one node, %d whole-node jobs; last submission at t=%d\n\n",
		len(trace), *seed, *load, len(trace)-nodeJobs, nodeJobs, trace[len(trace)-1].Submit)

	var results []*Result
	for _, name := range names {
		p, _ := NewPolicy(name)
		r, err := Simulate(c, trace, p, *match)
		if err != nil {
			return err
		}
		results = append(results, r)
	}

	fmt.Fprintf(out, "%-13s %10s %12s %11s %10s %11s %9s\n", "policy", "makespan", "utilisation", "mean wait", "max wait", "backfilled", "matcher")
	fmt.Fprintf(out, "%-13s %10s %12s %11s %10s %11s %9s\n", "", "(s)", "", "(s)", "(s)", "(jobs)", "(calls)")
	for _, r := range results {
		fmt.Fprintf(out, "%-13s %10d %11.1f%% %11.0f %10d %11d %9d\n",
			r.Policy, r.Makespan, 100*r.Utilisation, r.MeanWait, r.MaxWait, r.Backfilled, r.Calls)
	}
	if len(results) > 1 {
		base := results[0]
		for _, r := range results[1:] {
			fmt.Fprintf(out, "\n%s vs %s: makespan %+.1f%%, mean wait %+.1f%%", r.Policy, base.Policy,
				pct(float64(r.Makespan), float64(base.Makespan)), pct(r.MeanWait, base.MeanWait))
		}
		fmt.Fprintln(out)
	}

	if *verbose {
		for _, r := range results {
			fmt.Fprintf(out, "\n%s:\n%6s %8s %-9s %8s %8s %8s %8s  %s\n", r.Policy, "job", "submit", "size", "walltime", "runtime", "start", "wait", "nodes")
			for _, j := range r.Jobs {
				mark := ""
				if j.Backfilled {
					mark = " (backfilled)"
				}
				fmt.Fprintf(out, "%6d %8d %-9s %8d %8d %8d %8d  %s%s\n", j.ID, j.Submit, j.Size(), j.Walltime, j.Runtime, j.Start, j.Start-j.Submit, strings.Join(j.Hosts, ","), mark)
			}
		}
	}
	return nil
}

func pct(x, base float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * (x - base) / base
}
