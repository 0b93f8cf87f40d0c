package main

import (
	"fmt"
	"slices"

	"github.com/gofluxion/gofluxion"
)

// Result is the outcome of one simulation.
type Result struct {
	Policy string
	Jobs   []*Job // in submission order

	Makespan    int64   // from time 0 to the last job's end
	Utilisation float64 // core-seconds used / core-seconds available over the makespan
	MeanWait    float64 // seconds from submission to start
	MaxWait     int64
	Backfilled  int // jobs that started while a job submitted before them waited
	Calls       int // Matcher operations
}

// Simulate replays trace on a fresh Matcher over cluster c with policy p
// (and the Matcher's match policy matchPolicy). The simulated clock jumps
// from event to event (submissions and real job ends); at each event the
// ended jobs are cancelled, the new ones queued, and the policy asked
// what to start. Time is only ever the `at` argument of the Matcher.
func Simulate(c Cluster, trace []TraceJob, p Policy, matchPolicy string) (*Result, error) {
	g, err := gofluxion.ReadGraph(gofluxion.FormatGRUG, c.GRUG(), "")
	if err != nil {
		return nil, err
	}
	m, err := gofluxion.New(g, gofluxion.Options{Policy: matchPolicy})
	if err != nil {
		return nil, err
	}
	d := &Dispatcher{m: m}

	jobs := make([]*Job, len(trace))
	for i, t := range trace {
		if i > 0 && t.Submit < trace[i-1].Submit {
			return nil, fmt.Errorf("trace is not in submission order at job %d", t.ID)
		}
		js, err := m.ParseJobspec([]byte(t.Jobspec(c)))
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", t.ID, err)
		}
		if err := m.Satisfiable(js); err != nil {
			return nil, fmt.Errorf("job %d (%s) can never run on this cluster: %w", t.ID, t.Size(), err)
		}
		jobs[i] = &Job{TraceJob: t, spec: js, Start: -1, Promise: -1}
	}

	var queue, running []*Job
	next, done := 0, 0
	for done < len(jobs) {
		// The next event: a submission or the end of a running job.
		now := int64(-1)
		if next < len(jobs) {
			now = jobs[next].Submit
		}
		for _, j := range running {
			if now < 0 || j.End < now {
				now = j.End
			}
		}
		if now < 0 {
			return nil, fmt.Errorf("%s: stuck with %d jobs waiting and none running", p.Name(), len(queue))
		}
		// Jobs that ended by now release their resources.
		var err error
		running = slices.DeleteFunc(running, func(j *Job) bool {
			if j.End > now || err != nil {
				return false
			}
			err = d.finish(j)
			done++
			return true
		})
		if err != nil {
			return nil, err
		}
		if err := d.expire(now); err != nil {
			return nil, err
		}
		for next < len(jobs) && jobs[next].Submit <= now {
			queue = append(queue, jobs[next])
			next++
		}
		started, err := p.Schedule(now, queue, d)
		if err != nil {
			return nil, fmt.Errorf("%s at t=%d: %w", p.Name(), now, err)
		}
		for _, j := range started {
			if j.Start >= 0 {
				return nil, fmt.Errorf("%s started job %d twice", p.Name(), j.ID)
			}
			j.Start, j.End = now, now+j.Runtime
			running = append(running, j)
		}
		// Keep the waiting jobs in order; a started job was backfilled if
		// an earlier one is still waiting.
		waiting := false
		queue = slices.DeleteFunc(queue, func(j *Job) bool {
			if j.Start < 0 {
				waiting = true
				return false
			}
			j.Backfilled = waiting
			return true
		})
	}
	return summarise(c, p.Name(), jobs, d.Calls), nil
}

func summarise(c Cluster, policy string, jobs []*Job, calls int) *Result {
	r := &Result{Policy: policy, Jobs: jobs, Calls: calls}
	var used float64
	var wait int64
	for _, j := range jobs {
		r.Makespan = max(r.Makespan, j.End)
		w := j.Start - j.Submit
		wait += w
		r.MaxWait = max(r.MaxWait, w)
		used += float64(j.Cores) * float64(j.Runtime)
		if j.Backfilled {
			r.Backfilled++
		}
	}
	if len(jobs) > 0 {
		r.MeanWait = float64(wait) / float64(len(jobs))
	}
	if r.Makespan > 0 {
		r.Utilisation = used / (float64(c.TotalCores()) * float64(r.Makespan))
	}
	return r
}
