package main

import (
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// Job is a trace job inside one simulation.
type Job struct {
	TraceJob
	spec *jobspec.Jobspec

	Start, End int64    // when it really ran: [Start, End), End = Start+Runtime
	Cores      int      // cores the Matcher gave it
	Hosts      []string // and the nodes they are on
	Backfilled bool     // it started while a job submitted before it waited
	// Promise is the start of the first reservation the job got (-1: it
	// never had one).
	Promise int64
}

// Dispatcher is the dispatch side: it owns the Matcher and decides where
// (and, for a reservation, when) a job runs. It knows nothing of queues.
// A Policy talks to it only through TryStart, StartOrReserve and
// Unreserve. The matcher is a gofluxion.Interface: the in-process
// *gofluxion.Matcher here, or the matcher service's client (module
// service) with no other change.
type Dispatcher struct {
	m gofluxion.Interface
	// Calls counts the Matcher operations (Match and Cancel; not the
	// expire sweep).
	Calls int
}

// TryStart starts j at now if it fits now around everything booked
// (running jobs and reservations); it reports false if it does not.
func (d *Dispatcher) TryStart(j *Job, now int64) (bool, error) {
	d.Calls++
	a, err := d.m.MatchWithID(gofluxion.Allocate, j.spec, j.ID, now)
	if errors.Is(err, gofluxion.ErrBusy) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("job %d: %w", j.ID, err)
	}
	j.Cores, j.Hosts = place(a)
	return true, nil
}

// StartOrReserve starts j at now, or else reserves it at the earliest
// later time it fits (AllocateOrElseReserve), and returns that start: now
// means it runs. A reservation blocks its resources for [start, start +
// walltime) against every later TryStart and StartOrReserve.
func (d *Dispatcher) StartOrReserve(j *Job, now int64) (int64, error) {
	d.Calls++
	a, err := d.m.MatchWithID(gofluxion.AllocateOrElseReserve, j.spec, j.ID, now)
	if err != nil {
		return 0, fmt.Errorf("job %d: %w", j.ID, err)
	}
	if a.Reserved {
		if j.Promise < 0 {
			j.Promise = a.Start
		}
		return a.Start, nil
	}
	j.Cores, j.Hosts = place(a)
	return now, nil
}

// Unreserve drops j's reservation.
func (d *Dispatcher) Unreserve(j *Job) error {
	d.Calls++
	if err := d.m.Cancel(j.ID); err != nil {
		return fmt.Errorf("unreserve job %d: %w", j.ID, err)
	}
	return nil
}

// finish releases a job that has ended (the simulator calls it when the
// clock passes the job's real end, before its walltime if it ended early).
func (d *Dispatcher) finish(j *Job) error {
	d.Calls++
	if err := d.m.Cancel(j.ID); err != nil {
		return fmt.Errorf("finish job %d: %w", j.ID, err)
	}
	return nil
}

// expire sweeps the jobs whose booked window (their walltime) has ended:
// a job holds its resources until it is canceled, even past its end (as
// in Fluxion), so one whose end event were missed would block its cores
// for ever. Here finish cancels every job at its real end, before its
// walltime, so the sweep must find nothing: it reports a job it had to
// free as an error. A scheduler fed by real events calls
// gofluxion.ExpireJobs at every tick. It is not counted in Calls.
func (d *Dispatcher) expire(now int64) error {
	ids, err := gofluxion.ExpireJobs(d.m, now)
	if err != nil {
		return fmt.Errorf("expire: %w", err)
	}
	if len(ids) > 0 {
		return fmt.Errorf("jobs %v outlived their walltime without an end event", ids)
	}
	return nil
}

// place reads an allocation: how many cores (a whole node counts all
// its cores) on which nodes.
func place(a *gofluxion.Allocation) (cores int, hosts []string) {
	for _, r := range a.Resources {
		switch r.Type {
		case "core":
			cores += int(r.Units)
		case "node":
			hosts = append(hosts, r.Name)
		}
	}
	return cores, hosts
}
