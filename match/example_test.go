package match_test

import (
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// buildCluster makes cluster0 → node0,node1 → socket0,socket1 → 4 cores
// each (core ids local to the node), creating vertices level by level as the
// GRUG reader does.
func buildCluster() *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	var nodes, sockets []graph.VertexID
	for i := int64(0); i < 2; i++ {
		nodes = append(nodes, b.MustAdd(c, "node", i))
	}
	for _, n := range nodes {
		for i := int64(0); i < 2; i++ {
			sockets = append(sockets, b.MustAdd(n, "socket", i))
		}
	}
	for j, s := range sockets {
		for i := int64(0); i < 4; i++ {
			b.MustAdd(s, "core", int64(j%2)*4+i)
		}
	}
	return b.Graph()
}

// parse parses a jobspec, accepting only types the graph knows.
func parse(g *graph.Graph, yaml string) *jobspec.Jobspec {
	js, err := jobspec.Parse([]byte(yaml), jobspec.Options{KnownType: func(t string) bool {
		_, ok := g.Types.Lookup(t)
		return ok
	}})
	if err != nil {
		panic(err)
	}
	return js
}

// request is node[1] → slot[1] → socket[1] → core[n] for one hour.
func request(g *graph.Graph, ncores int) *jobspec.Jobspec {
	return parse(g, fmt.Sprintf(`version: 9999
resources:
  - type: node
    count: 1
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: socket
            count: 1
            with:
              - type: core
                count: %d
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`, ncores))
}

func Example() {
	g := buildCluster()
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		panic(err)
	}
	js := request(g, 2)
	w := emit.NewSimple()

	// Job 1: "high" prefers the highest ids: node1, socket1, cores 6-7. The
	// slot's contents are exclusive (x), the vertices above are shared (s).
	at, err := m.Match(match.Allocate, js, 1, 0, w)
	r, _ := w.Render()
	fmt.Printf("job 1 at %d, err %v\n%s", at, err, r)

	// Jobs 2-4 take the three other sockets; job 5 finds none free.
	for job := uint64(2); job <= 4; job++ {
		if _, err := m.Match(match.Allocate, js, job, 0, w); err != nil {
			panic(err)
		}
		w.Render()
	}
	_, err = m.Match(match.Allocate, js, 5, 0, w)
	fmt.Println("job 5 busy:", errors.Is(err, match.ErrBusy))

	// Reserve instead: the sockets are free again when job 1 ends.
	at, err = m.Match(match.AllocateOrElseReserve, js, 6, 0, w)
	r, _ = w.Render()
	fmt.Printf("job 6 reserved at %d, err %v\n%s", at, err, r)

	// Five cores per socket can never be found: unsatisfiable, not busy.
	_, err = m.Match(match.AllocateWithSatisfiability, request(g, 5), 7, 0, w)
	fmt.Println("job 7 unsatisfiable:", errors.Is(err, match.ErrUnsatisfiable), errors.Is(err, match.ErrBusy))

	// Cancelling job 1 frees its socket now.
	if err := m.Cancel(1); err != nil {
		panic(err)
	}
	at, err = m.Match(match.Allocate, js, 8, 0, w)
	r, _ = w.Render()
	fmt.Printf("job 8 at %d, err %v\n%s", at, err, r)
	// Output:
	// job 1 at 0, err <nil>
	//       ------------core6[1:x]
	//       ------------core7[1:x]
	//       ---------socket1[1:x]
	//       ------node1[1:s]
	//       ---cluster0[1:s]
	// job 5 busy: true
	// job 6 reserved at 3600, err <nil>
	//       ------------core6[1:x]
	//       ------------core7[1:x]
	//       ---------socket1[1:x]
	//       ------node1[1:s]
	//       ---cluster0[1:s]
	// job 7 unsatisfiable: true false
	// job 8 at 0, err <nil>
	//       ------------core6[1:x]
	//       ------------core7[1:x]
	//       ---------socket1[1:x]
	//       ------node1[1:s]
	//       ---cluster0[1:s]
}

// Find lists the vertices that satisfy a criteria expression, with their
// ancestors, through any writer.
func ExampleMatcher_Find() {
	g := buildCluster()
	m, err := match.New(g, match.Options{Policy: "low"})
	if err != nil {
		panic(err)
	}
	w := emit.NewSimple()
	if _, err := m.Match(match.Allocate, request(g, 1), 1, 0, w); err != nil {
		panic(err)
	}
	w.Render()

	for _, expr := range []string{"jobid-alloc=1", "sched-now=allocated and names=socket0", "status=down or"} {
		err := m.Find(expr, 0, w)
		out, _ := w.Render()
		fmt.Printf("%s: err=%v\n%s", expr, err, out)
	}
	// Output:
	// jobid-alloc=1: err=<nil>
	//       ------------core0[1:x]
	//       ---------socket0[1:x]
	//       ------node0[1:x]
	//       ---cluster0[1:x]
	// sched-now=allocated and names=socket0: err=<nil>
	//       ---------socket0[1:x]
	//       ------node0[1:x]
	//       ---cluster0[1:x]
	// status=down or: err=find: Invalid argument: find: invalid criteria: status=down or.
}

// CountVisits gives the visit counts of Fluxion's exhaustive walk, which
// resource-query prints with -e; the match itself walks best-first and
// visits fewer vertices, and Visits reports the counted ones after it.
func ExampleMatcher_CountVisits() {
	g := buildCluster()
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		panic(err)
	}
	js := request(g, 2)
	pre, post := m.CountVisits(match.Allocate, js, 1, 0)
	fmt.Println("counted:", pre, post)
	if _, err := m.Match(match.Allocate, js, 1, 0, emit.Discard); err != nil {
		panic(err)
	}
	fmt.Println(m.Visits())

	// Without CountVisits, Visits reports the best-first walk's own visits.
	m2, _ := match.New(g, match.Options{Policy: "high"})
	if _, err := m2.Match(match.Allocate, js, 1, 0, emit.Discard); err != nil {
		panic(err)
	}
	fmt.Println(m2.Visits())
	// Output:
	// counted: 23 23
	// 23 23
	// 4 4
}
