package main

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The small trace the tests replay: fixed seed, a small cluster.
var (
	testCluster = Cluster{Nodes: 8, Cores: 16}
	testJobs    = 120
	testSeed    = uint64(1)
	testLoad    = 1.2
)

func simulateAll(t *testing.T, c Cluster, trace []TraceJob) map[string]*Result {
	t.Helper()
	out := map[string]*Result{}
	for _, name := range PolicyNames {
		p, err := NewPolicy(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Simulate(c, trace, p, "first")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = r
	}
	return out
}

// TestInvariants checks every policy's schedule on a few seeds.
func TestInvariants(t *testing.T) {
	for _, seed := range []uint64{testSeed, 2, 3} {
		trace := GenerateTrace(testCluster, testJobs, seed, testLoad)
		for name, r := range simulateAll(t, testCluster, trace) {
			t.Run(fmt.Sprintf("%s/seed%d", name, seed), func(t *testing.T) {
				checkSchedule(t, testCluster, trace, r)
			})
		}
	}
}

func checkSchedule(t *testing.T, c Cluster, trace []TraceJob, r *Result) {
	if len(r.Jobs) != len(trace) {
		t.Fatalf("%d jobs in the result, %d in the trace", len(r.Jobs), len(trace))
	}
	seen := map[uint64]bool{}
	for i, j := range r.Jobs {
		if j.TraceJob != trace[i] {
			t.Errorf("job %d: result %+v, trace %+v", j.ID, j.TraceJob, trace[i])
		}
		// Every job runs exactly once, not before it is submitted, for
		// its real runtime, on the resources it asked for.
		if seen[j.ID] {
			t.Errorf("job %d appears twice", j.ID)
		}
		seen[j.ID] = true
		if j.Start < 0 {
			t.Errorf("job %d never ran", j.ID)
			continue
		}
		if j.Start < j.Submit {
			t.Errorf("job %d starts at %d, before its submission at %d", j.ID, j.Start, j.Submit)
		}
		if j.End != j.Start+j.Runtime || j.Runtime > j.Walltime || j.Runtime < 1 {
			t.Errorf("job %d: [%d, %d) runtime %d walltime %d", j.ID, j.Start, j.End, j.Runtime, j.Walltime)
		}
		wantCores, wantHosts := j.TraceJob.Cores, 1
		if j.Nodes > 0 {
			wantCores, wantHosts = j.Nodes*c.Cores, j.Nodes
		}
		if j.Cores != wantCores || len(j.Hosts) != wantHosts {
			t.Errorf("job %d (%s) got %d cores on %v", j.ID, j.Size(), j.Cores, j.Hosts)
		}
		if j.Promise >= 0 && r.Policy == "easy" && j.Start > j.Promise {
			// EASY: backfilling never delays the job holding the reservation.
			t.Errorf("easy: job %d was promised t=%d but started at %d", j.ID, j.Promise, j.Start)
		}
	}
	// No node is ever over-committed: at every start, the jobs running on
	// each node fit on it, and an exclusive job runs alone.
	for _, j := range r.Jobs {
		cores := map[string]int{}
		excl := map[string]int{}
		for _, k := range r.Jobs {
			if k.Start > j.Start || k.End <= j.Start {
				continue
			}
			for _, h := range k.Hosts {
				if k.Nodes > 0 {
					excl[h]++
				}
				cores[h] += k.Cores / len(k.Hosts)
			}
		}
		for h, n := range cores {
			if n > c.Cores || excl[h] > 1 || (excl[h] == 1 && n != c.Cores) {
				t.Fatalf("t=%d: %s over-committed: %d cores, %d exclusive jobs", j.Start, h, n, excl[h])
			}
		}
	}
	switch r.Policy {
	case "fcfs":
		// Plain FCFS: no job starts before an earlier one.
		for i := 1; i < len(r.Jobs); i++ {
			if r.Jobs[i].Start < r.Jobs[i-1].Start {
				t.Errorf("fcfs: job %d starts at %d, before job %d at %d", r.Jobs[i].ID, r.Jobs[i].Start, r.Jobs[i-1].ID, r.Jobs[i-1].Start)
			}
		}
		if r.Backfilled != 0 {
			t.Errorf("fcfs backfilled %d jobs", r.Backfilled)
		}
	default:
		if r.Backfilled == 0 {
			t.Errorf("%s backfilled nothing on a loaded trace", r.Policy)
		}
	}
	if !(r.Utilisation > 0 && r.Utilisation <= 1) {
		t.Errorf("utilisation %v not in (0, 1]", r.Utilisation)
	}
	if r.MeanWait < 0 || float64(r.MaxWait) < r.MeanWait {
		t.Errorf("mean wait %v, max wait %v", r.MeanWait, r.MaxWait)
	}
}

// TestBackfillHelps: on the fixed seed, backfilling shortens the makespan
// and the mean wait.
func TestBackfillHelps(t *testing.T) {
	trace := GenerateTrace(testCluster, testJobs, testSeed, testLoad)
	rs := simulateAll(t, testCluster, trace)
	fcfs := rs["fcfs"]
	for _, name := range []string{"easy", "conservative"} {
		r := rs[name]
		if r.Makespan > fcfs.Makespan {
			t.Errorf("%s makespan %d > fcfs makespan %d", name, r.Makespan, fcfs.Makespan)
		}
		if r.MeanWait >= fcfs.MeanWait {
			t.Errorf("%s mean wait %.0f >= fcfs mean wait %.0f", name, r.MeanWait, fcfs.MeanWait)
		}
	}
}

// TestDeterministic: the same seed gives the same trace and schedules;
// another seed a different trace.
func TestDeterministic(t *testing.T) {
	a := GenerateTrace(testCluster, 40, 7, testLoad)
	b := GenerateTrace(testCluster, 40, 7, testLoad)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different traces")
	}
	if reflect.DeepEqual(a, GenerateTrace(testCluster, 40, 8, testLoad)) {
		t.Fatal("different seeds, same trace")
	}
	ra, rb := simulateAll(t, testCluster, a), simulateAll(t, testCluster, b)
	for _, name := range PolicyNames {
		for i := range ra[name].Jobs {
			x, y := ra[name].Jobs[i], rb[name].Jobs[i]
			if x.Start != y.Start || !reflect.DeepEqual(x.Hosts, y.Hosts) {
				t.Errorf("%s job %d: run 1 at %d on %v, run 2 at %d on %v", name, x.ID, x.Start, x.Hosts, y.Start, y.Hosts)
			}
		}
	}
}

// TestUnsatisfiable: a job the cluster can never hold is an error, not a
// queue that never drains.
func TestUnsatisfiable(t *testing.T) {
	trace := []TraceJob{{ID: 1, Nodes: testCluster.Nodes + 1, Walltime: 60, Runtime: 60}}
	_, err := Simulate(testCluster, trace, &EASY{}, "first")
	if err == nil || !strings.Contains(err.Error(), "can never run") {
		t.Fatalf("got %v, want a 'can never run' error", err)
	}
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"-jobs", "60", "-seed", "1", "-nodes", "8", "-cores", "16"}, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{"cluster: 8 nodes x 16 cores", "trace:   60 jobs (seed 1", "\nfcfs ", "\neasy ", "\nconservative ", "easy vs fcfs: makespan "} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}

	out.Reset()
	if err := run([]string{"-jobs", "10", "-policy", "easy", "-v"}, &out); err != nil {
		t.Fatalf("run -policy easy -v: %v", err)
	}
	if s := out.String(); strings.Contains(s, "\nfcfs ") || strings.Count(s, "\n") < 10+6 {
		t.Errorf("-policy easy -v output:\n%s", s)
	}

	for _, args := range [][]string{{"-policy", "sjf"}, {"-jobs", "0"}, {"-nosuchflag"}, {"extra"}} {
		out.Reset()
		if err := run(args, &out); err == nil {
			t.Errorf("run %q: no error", args)
		}
	}
	if err := run([]string{"-jobs", "0"}, &out); !errors.Is(err, errUsage) {
		t.Errorf("run -jobs 0: %v, want errUsage", err)
	}
}
