package main

import (
	"fmt"
	"strings"
)

// Policy is the queue side: it decides what to submit when, in which
// order, and which jobs hold reservations. It sees jobs (their size,
// walltime and place in the queue) and the Dispatcher's answers, never the
// resource graph: where a job runs is the Dispatcher's (the Matcher's)
// business.
type Policy interface {
	Name() string
	// Schedule is called at every event (a submission or a completion)
	// with the waiting jobs in submission order. It returns the jobs it
	// started now.
	Schedule(now int64, queue []*Job, d *Dispatcher) ([]*Job, error)
}

// Policies lists the policies by name.
var Policies = map[string]func() Policy{
	"fcfs":         func() Policy { return &FCFS{} },
	"easy":         func() Policy { return &EASY{} },
	"conservative": func() Policy { return &Conservative{} },
}

// PolicyNames is the order in which -policy all runs them.
var PolicyNames = []string{"fcfs", "easy", "conservative"}

// NewPolicy returns the policy called name.
func NewPolicy(name string) (Policy, error) {
	f, ok := Policies[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (want %s or all)", name, strings.Join(PolicyNames, ", "))
	}
	return f(), nil
}

// FCFS starts jobs strictly in submission order: the first job that does
// not fit now blocks everything behind it, so no job starts before an
// earlier one.
type FCFS struct{}

func (*FCFS) Name() string { return "fcfs" }

func (*FCFS) Schedule(now int64, queue []*Job, d *Dispatcher) ([]*Job, error) {
	var started []*Job
	for _, j := range queue {
		ok, err := d.TryStart(j, now)
		if err != nil || !ok {
			return started, err
		}
		started = append(started, j)
	}
	return started, nil
}

// EASY is FCFS with EASY backfill: jobs start in order while they fit;
// the first that does not fit (the head) gets a reservation at the
// earliest time it fits; then any later job may start now if it fits
// around everything booked, the head's reservation included, so
// backfilling never delays the head. The reservation is dropped and
// recomputed at every event, since jobs end before their walltime.
type EASY struct {
	head *Job // the job holding the reservation
}

func (*EASY) Name() string { return "easy" }

func (p *EASY) Schedule(now int64, queue []*Job, d *Dispatcher) ([]*Job, error) {
	if p.head != nil {
		if err := d.Unreserve(p.head); err != nil {
			return nil, err
		}
		p.head = nil
	}
	var started []*Job
	for i, j := range queue {
		start, err := d.StartOrReserve(j, now)
		if err != nil {
			return started, err
		}
		if start == now {
			started = append(started, j)
			continue
		}
		p.head = j
		for _, b := range queue[i+1:] {
			ok, err := d.TryStart(b, now)
			if err != nil {
				return started, err
			}
			if ok {
				started = append(started, b)
			}
		}
		break
	}
	return started, nil
}

// Conservative is conservative backfill: every waiting job, in order,
// starts now or gets a reservation at the earliest time it fits around
// the reservations of the jobs before it. A job may only start ahead of
// an earlier one if it delays no reservation. All reservations are
// recomputed at every event.
type Conservative struct {
	held []*Job
}

func (*Conservative) Name() string { return "conservative" }

func (p *Conservative) Schedule(now int64, queue []*Job, d *Dispatcher) ([]*Job, error) {
	for _, j := range p.held {
		if err := d.Unreserve(j); err != nil {
			return nil, err
		}
	}
	p.held = p.held[:0]
	var started []*Job
	for _, j := range queue {
		start, err := d.StartOrReserve(j, now)
		if err != nil {
			return started, err
		}
		if start == now {
			started = append(started, j)
		} else {
			p.held = append(p.held, j)
		}
	}
	return started, nil
}
