// Command quickstart is gofluxion in one page: it loads the embedded demo
// cluster, matches three jobspecs written inline, prints each allocation as
// an RFC 20 R (rv1) and as Fluxion's "simple" tree, books a request that
// does not fit now as a reservation, cancels a job and lists what is still
// allocated.
//
//	go run ./examples/quickstart       # short output
//	go run ./examples/quickstart -v    # every R and tree verbatim
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion"
)

// The requests, as canonical jobspecs (Flux RFC 14). Durations are in
// seconds of simulated time; the matcher has no clock.
var requests = []struct{ what, yaml string }{
	{"one core for an hour", `
version: 1
resources:
  - type: slot
    count: 1
    label: default
    with:
      - type: core
        count: 1
attributes:
  system:
    duration: 3600
tasks:
  - command: ["app"]
    slot: default
    count: {per_slot: 1}
`},
	{"a socket with 8 cores, a gpu and 32 GB for two hours", `
version: 1
resources:
  - type: slot
    count: 1
    label: default
    with:
      - type: socket
        count: 1
        with:
          - {type: core, count: 8}
          - {type: gpu, count: 1}
          - {type: memory, count: 32}
attributes:
  system:
    duration: 7200
tasks:
  - command: ["app"]
    slot: default
    count: {per_slot: 1}
`},
	{"two whole nodes for ten minutes", `
version: 1
resources:
  - type: node
    count: 2
    exclusive: true
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: socket
            count: 2
            with:
              - {type: core, count: 16}
attributes:
  system:
    duration: 600
tasks:
  - command: ["app"]
    slot: default
    count: {per_slot: 1}
`},
}

// wholeCluster asks for all eight nodes: it cannot start while the jobs
// above run, so AllocateOrElseReserve books it for later.
const wholeCluster = `
version: 1
resources:
  - type: node
    count: 8
    exclusive: true
    with:
      - type: slot
        count: 1
        label: default
        with:
          - {type: core, count: 1}
attributes:
  system:
    duration: 600
tasks:
  - command: ["app"]
    slot: default
    count: {per_slot: 1}
`

func main() {
	err := run(os.Args[1:], os.Stdout)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("bad usage")

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	fs.SetOutput(out)
	verbose := fs.Bool("v", false, "print every R and simple tree verbatim")
	policy := fs.String("policy", "", "match policy: first (the default), high, low, hinode, lonode, …")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(out, "usage: quickstart [-v] [-policy P]")
		return errUsage
	}

	// 1. A graph and a Matcher over it, with default options unless
	// -policy says otherwise. The Matcher owns the graph and its schedule
	// from now on.
	m, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: *policy})
	if err != nil {
		return err
	}
	st := m.Stat()
	name := *policy
	if name == "" {
		name = "first (the default)"
	}
	fmt.Fprintf(out, "demo cluster: %d vertices, %d edges; match policy %s; now = 0\n", st.Vertices, st.Edges, name)

	// 2. Match each request at time 0: allocate now, or else reserve the
	// earliest later start.
	for _, r := range requests {
		js, err := m.ParseJobspec([]byte(r.yaml))
		if err != nil {
			return fmt.Errorf("%s: %w", r.what, err)
		}
		a, err := m.Match(gofluxion.AllocateOrElseReserve, js, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", r.what, err)
		}
		fmt.Fprintf(out, "\njob %d, %s: %s\n", a.JobID, r.what, when(a))
		R, err := a.Render("rv1")
		if err != nil {
			return err
		}
		tree, err := a.Render("simple")
		if err != nil {
			return err
		}
		if !*verbose {
			if R, err = abridgeR(R); err != nil {
				return err
			}
			tree = fold(tree)
		}
		fmt.Fprintf(out, "rv1:\n  %s\nsimple:\n%s", R, tree)
	}

	// 3. A request that does not fit now gets a reservation.
	js, err := m.ParseJobspec([]byte(wholeCluster))
	if err != nil {
		return err
	}
	a, err := m.Match(gofluxion.AllocateOrElseReserve, js, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "\njob %d, all eight nodes for ten minutes: %s\n", a.JobID, when(a))

	// 4. Cancel the two-node job and ask what is allocated now.
	if err := m.Cancel(3); err != nil {
		return err
	}
	found, err := m.Find("sched-now=allocated", "simple")
	if err != nil {
		return err
	}
	if !*verbose {
		found = fold(found)
	}
	fmt.Fprintf(out, "\ncancel job 3; find sched-now=allocated:\n%s", found)

	fmt.Fprintln(out, "\njobs:")
	for _, j := range m.Jobs() {
		fmt.Fprintf(out, "  %d %-9s [%d, %d)\n", j.ID, j.State, j.Start, j.End)
	}
	return nil
}

// when describes an allocation's window.
func when(a *gofluxion.Allocation) string {
	if a.Reserved {
		return fmt.Sprintf("reserved for [%d, %d)", a.Start, a.End)
	}
	return fmt.Sprintf("allocated now, [%d, %d)", a.Start, a.End)
}

// abridgeR keeps an rv1 R's version and execution parts verbatim and
// replaces its scheduling part (a JGF of every selected vertex) with a
// count.
func abridgeR(R string) (string, error) {
	var doc struct {
		Version    int             `json:"version"`
		Execution  json.RawMessage `json:"execution"`
		Scheduling struct {
			Graph struct {
				Nodes []json.RawMessage `json:"nodes"`
				Edges []json.RawMessage `json:"edges"`
			} `json:"graph"`
		} `json:"scheduling"`
	}
	if err := json.Unmarshal([]byte(R), &doc); err != nil {
		return "", fmt.Errorf("rv1 output: %w", err)
	}
	return fmt.Sprintf(`{"version": %d, "execution": %s, "scheduling": …JGF of %d vertices and %d edges (-v prints it)…}`,
		doc.Version, doc.Execution, len(doc.Scheduling.Graph.Nodes), len(doc.Scheduling.Graph.Edges)), nil
}

// fold shortens a simple tree: three or more consecutive sibling lines
// that differ only in a vertex number ("core16[1:x]" … "core31[1:x]")
// become one line, "core16 … core31 (16 × [1:x])".
func fold(tree string) string {
	type line struct{ indent, stem, num, tag string }
	parse := func(s string) (line, bool) {
		i := strings.IndexFunc(s, func(r rune) bool { return r != ' ' && r != '-' })
		j := strings.LastIndexByte(s, '[')
		if i < 0 || j <= i {
			return line{}, false
		}
		name := s[i:j]
		k := len(strings.TrimRight(name, "0123456789"))
		if k == len(name) {
			return line{}, false
		}
		return line{s[:i], name[:k], name[k:], s[j:]}, true
	}
	lines := strings.SplitAfter(tree, "\n")
	var b bytes.Buffer
	for i := 0; i < len(lines); {
		first, ok := parse(strings.TrimSuffix(lines[i], "\n"))
		n := 1
		for ok && i+n < len(lines) {
			next, ok2 := parse(strings.TrimSuffix(lines[i+n], "\n"))
			if !ok2 || next.indent != first.indent || next.stem != first.stem || next.tag != first.tag {
				break
			}
			n++
		}
		if n < 3 {
			for _, l := range lines[i : i+n] {
				b.WriteString(l)
			}
			i += n
			continue
		}
		last, _ := parse(strings.TrimSuffix(lines[i+n-1], "\n"))
		fmt.Fprintf(&b, "%s%s%s … %s%s (%s × %s)\n", first.indent, first.stem, first.num, last.stem, last.num, strconv.Itoa(n), first.tag)
		i += n
	}
	return b.String()
}
