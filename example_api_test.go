package gofluxion_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Never versus not now: a retry loop on ErrBusy ends, because a request
// that could not fit even an empty graph is ErrUnsatisfiable.
func ExampleMatcher_Match_unsatisfiable() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	nodes := func(n uint32) *jobspec.Jobspec {
		return jobspec.New(time.Hour, jobspec.Res("node", n).Exclusively())
	}
	m.Match(gofluxion.Allocate, nodes(8), 0) // the whole cluster, for an hour

	_, err := m.Match(gofluxion.Allocate, nodes(2), 0)
	fmt.Println(errors.Is(err, gofluxion.ErrBusy), err)
	_, err = m.Match(gofluxion.Allocate, nodes(9), 0)
	fmt.Println(errors.Is(err, gofluxion.ErrUnsatisfiable), err)
	// Output:
	// true gofluxion: match: the request does not fit at time 0 (resources are busy or down)
	// true gofluxion: match: the request can never be satisfied by this graph, even with everything free and up
}

// Jobspecs built in Go, validated on the way in: times are seconds on the
// caller's timeline, durations a time.Duration rounded up to seconds.
func Example_buildJobspec() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyLow})
	js := jobspec.New(90*time.Minute,
		jobspec.Res("node", 2, jobspec.Res("socket", 1, jobspec.Slot("task", 1, jobspec.Res("core", 4), jobspec.Res("gpu", 1)))))
	a, err := m.Match(gofluxion.Allocate, js, 1000)
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Nodes(), a.Start, a.End)

	_, err = m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 0)), 0)
	fmt.Println(errors.Is(err, gofluxion.ErrInvalid), err)
	// Output:
	// [node0 node1] 1000 6400
	// true gofluxion: match: invalid jobspec: resources[0].count.min: "min" must be greater than zero
}

// Every error is an *Error whose Kind is the one sentinel it matches; the
// lower layer's error stays reachable.
func ExampleError() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	err := m.SetStatus("/demo0/rack9", false)
	var e *gofluxion.Error
	if errors.As(err, &e) {
		fmt.Println(e.Op, e.Kind == gofluxion.ErrNotFound, errors.Is(err, gofluxion.ErrInvalid))
	}
	fmt.Println(err)
	// Output:
	// set status true false
	// gofluxion: set status: no resource at path "/demo0/rack9"
}

func ExampleAllocation_Nodes() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyFirst})
	a, _ := m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 3).Exclusively()), 0)
	fmt.Println(a.Nodes())
	// Output: [node5 node6 node7]
}

func ExampleAllocation_ByNode() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyLow})
	js := jobspec.New(time.Hour, jobspec.Res("node", 2, jobspec.Res("socket", 1,
		jobspec.Slot("task", 1, jobspec.Res("core", 6), jobspec.Res("gpu", 1), jobspec.Res("memory", 2)))))
	a, _ := m.Match(gofluxion.Allocate, js, 0)
	for _, n := range a.ByNode() {
		fmt.Printf("%s (rank %d): %d cores, %d gpus, %d GB\n", n.Name, n.Rank, n.Cores, n.GPUs, n.Memory)
	}
	// Output:
	// node0 (rank 0): 6 cores, 1 gpus, 16 GB
	// node1 (rank 1): 6 cores, 1 gpus, 16 GB
}

func ExampleMatcher_Usage() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyLow})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 6).Exclusively()), 0)
	m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Hour, jobspec.Res("node", 4).Exclusively()), 0)
	m.SetStatus("/demo0/rack1/node7", false)
	for _, at := range []int64{0, 3600} {
		for _, u := range m.Usage(at) {
			if u.Type == "node" || u.Type == "core" {
				fmt.Printf("t=%d %s: %d total, %d allocated, %d reserved, %d down, %d free\n",
					at, u.Type, u.Total, u.Allocated, u.Reserved, u.Down, u.Free)
			}
		}
	}
	// Output:
	// t=0 core: 256 total, 192 allocated, 128 reserved, 32 down, 32 free
	// t=0 node: 8 total, 6 allocated, 4 reserved, 1 down, 1 free
	// t=3600 core: 256 total, 128 allocated, 0 reserved, 32 down, 96 free
	// t=3600 node: 8 total, 4 allocated, 0 reserved, 1 down, 3 free
}

// NodeUsage says, per node, what is in use at a time and which jobs run
// there now or are booked there for later.
func ExampleMatcher_NodeUsage() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyLow})
	m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("core", 12))))), 0)
	m.Match(gofluxion.AllocateOrElseReserve, jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively()), 0)
	for _, n := range m.NodeUsage(0)[:2] {
		for _, u := range n.Usage {
			if u.Type == "core" {
				fmt.Printf("%s: %d of %d cores in use, %d reserved later; running %v, later %v\n",
					n.Name, u.Allocated, u.Total, u.Reserved, n.Running, n.Later)
			}
		}
	}
	j, _ := m.Info(1)
	fmt.Println("job 1 on", j.Nodes)
	// Output:
	// node0: 12 of 32 cores in use, 32 reserved later; running [1], later [2]
	// node1: 0 of 32 cores in use, 32 reserved later; running [], later [2]
	// job 1 on node0
}

// A dry run shows what would be picked and changes nothing: the next
// allocation is the one it would have been anyway.
func ExampleMatcher_Match_dryRun() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyFirst})
	js := jobspec.New(time.Hour, jobspec.Res("socket", 1, jobspec.Slot("task", 1, jobspec.Res("core", 4))))
	look, _ := m.Match(gofluxion.WithoutAllocating, js, 0)
	got, _ := m.Match(gofluxion.Allocate, js, 0)
	fmt.Println(look.JobID, got.JobID, look.Resources[0].Path == got.Resources[0].Path)
	// Output: 0 1 true
}

// Policies by name: first (the default) takes node7 first on the demo
// graph, low takes node0.
func ExamplePolicies() {
	for _, p := range []string{gofluxion.PolicyFirst, gofluxion.PolicyHigh, gofluxion.PolicyLow} {
		m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: p})
		a, _ := m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 1).Exclusively()), 0)
		fmt.Println(p, a.Nodes())
	}
	// Output:
	// first [node7]
	// high [node7]
	// low [node0]
}

// For a gang, Explain names the outer count that falls short, then the
// level inside each node that does.
func ExampleMatcher_Explain_gang() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	gpu := jobspec.New(time.Hour, jobspec.Res("socket", 1, jobspec.Slot("task", 1, jobspec.Res("gpu", 1))))
	gang := jobspec.New(time.Hour, jobspec.Res("node", 4, jobspec.Res("socket", 2, jobspec.Slot("task", 1, jobspec.Res("gpu", 1)))))
	for _, busy := range []int{8, 4} { // then 12 of the 16 gpus taken
		for i := 0; i < busy; i++ {
			m.Match(gofluxion.Allocate, gpu, 0)
		}
		e, _ := m.Explain(gang, 0)
		fmt.Println(e.Reason())
	}
	// Output:
	// needs 4 node (with 2 socket, 1 gpu each): 3 found now, 8 when free
	// needs 4 node (with 2 socket, 1 gpu each): 0 found now, 8 when free; needs 2 socket (with 1 gpu each): 1 found now, 2 when free
}
