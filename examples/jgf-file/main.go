// Command jgf-file matches one jobspec against a resource graph read from a
// JSON Graph Format (JGF) file and prints the allocation.
//
//	jgf-file GRAPH.json JOBSPEC.yaml [-format rv1] [-policy first] [-op allocate]
//
// With no files it runs on an embedded example (example/tiny.json, two
// nodes with 4 cores, a gpu and 16 GB each, and example/job.yaml, a
// 2-node job), saying so on stderr:
//
//	go run ./examples/jgf-file -format pretty_simple
//
// Flags may come before, between or after the two files. The allocation is
// printed on stdout in the chosen match format (simple, pretty_simple, jgf,
// jgf_shorthand, rlite, rv1, rv1_nosched, rv1_shorthand). On failure it
// prints one line on stderr and exits 1, telling a request that this graph
// can never hold (unsatisfiable) from one that fits the graph but not in its
// current state (busy: resources down). Bad flags exit 2.
//
//	go run ./examples/jgf-file graph.json job.yaml -format simple
package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gofluxion/gofluxion"
)

// The ways a match can fail, for errors.Is.
var (
	// errUnsatisfiable: the graph can never hold the request.
	errUnsatisfiable = errors.New("unsatisfiable")
	// errBusy: the request fits the graph, but not now.
	errBusy = errors.New("busy")
	// errUsage: bad command line.
	errUsage = errors.New("usage: jgf-file GRAPH.json JOBSPEC.yaml [-format rv1] [-policy first] [-op allocate]")
)

// The embedded example, used when no files are given.
var (
	//go:embed example/tiny.json
	exampleGraph []byte
	//go:embed example/job.yaml
	exampleJob []byte
)

// ops are the match operations by their resource-query names.
var ops = map[string]gofluxion.Op{
	"allocate":                     gofluxion.Allocate,
	"allocate_orelse_reserve":      gofluxion.AllocateOrElseReserve,
	"allocate_with_satisfiability": gofluxion.AllocateWithSatisfiability,
	"satisfiability":               gofluxion.Satisfiability,
}

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "jgf-file:", err)
		os.Exit(1)
	}
}

func run(args []string, out, stderr io.Writer) error {
	fs := flag.NewFlagSet("jgf-file", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "rv1", "match format: "+strings.Join(gofluxion.MatchFormats(), ", "))
	policy := fs.String("policy", "first", "match policy: first, high, low, hinode, lonode, hinodex, lonodex, firstnodex, locality, variation")
	opName := fs.String("op", "allocate", "operation: allocate, allocate_orelse_reserve, allocate_with_satisfiability, satisfiability")
	// Parse flags wherever they are among the two file arguments.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				fmt.Fprintln(out, errUsage)
				fs.PrintDefaults()
				return err
			}
			return fmt.Errorf("%w (%v)", errUsage, err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	op, ok := ops[*opName]
	if !ok {
		return fmt.Errorf("%w (unknown -op %q)", errUsage, *opName)
	}
	var graphFile, jobFile string
	var graphData, jobData []byte
	switch len(files) {
	case 0:
		fmt.Fprintln(stderr, "jgf-file: no files given: matching the embedded example/job.yaml against example/tiny.json")
		graphFile, jobFile, graphData, jobData = "example/tiny.json", "example/job.yaml", exampleGraph, exampleJob
	case 2:
		graphFile, jobFile = files[0], files[1]
		var err error
		if graphData, err = os.ReadFile(graphFile); err != nil {
			return fmt.Errorf("reading the graph: %w", err)
		}
		if jobData, err = os.ReadFile(jobFile); err != nil {
			return fmt.Errorf("reading the jobspec: %w", err)
		}
	default:
		return errUsage
	}

	// The graph: JGF, whatever the file's extension.
	g, err := gofluxion.ReadGraph(gofluxion.FormatJGF, graphData, "")
	if err != nil {
		return fmt.Errorf("%s: not a valid JGF resource graph: %w", graphFile, err)
	}
	m, err := gofluxion.New(g, gofluxion.Options{Policy: *policy, Format: *format})
	if err != nil {
		return err
	}

	// The jobspec, checked against the graph's resource types.
	js, err := m.ParseJobspec(jobData)
	if err != nil {
		return fmt.Errorf("%s: invalid jobspec: %w", jobFile, err)
	}

	a, err := m.Match(op, js, 0)
	if err != nil {
		return classify(err, graphFile)
	}
	if a == nil { // satisfiability: nothing is selected
		fmt.Fprintf(out, "satisfiable: %s can hold this request\n", graphFile)
		return nil
	}
	s, err := a.Render(*format)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err = io.WriteString(out, s)
	return err
}

// classify explains a failed match: the Matcher tells a request that the
// graph can never hold (ErrUnsatisfiable) from one that fits it but not in
// its current state (ErrBusy).
func classify(err error, graphFile string) error {
	switch {
	case errors.Is(err, gofluxion.ErrUnsatisfiable):
		return fmt.Errorf("%w: %s can never hold this request (%v)", errUnsatisfiable, graphFile, err)
	case errors.Is(err, gofluxion.ErrBusy):
		return fmt.Errorf("%w: the request fits %s but not now: resources are down or in use (%v)", errBusy, graphFile, err)
	}
	return err
}
