package gofluxion

import "errors"

// Finished jobs. As in Fluxion, a job holds its resources until it is
// canceled, even past the end of its window: a job that ended without a
// Cancel keeps blocking what it booked for Allocate and
// AllocateOrElseReserve at every later time. A scheduler that cancels
// each job when it ends never meets this; Expire is the sweep for the
// jobs it missed.

// Expire cancels every job (allocated or reserved) whose window has ended
// by time at (End <= at) and returns their ids in ascending order. It is
// one operation: no other operation runs between its cancels. Call it
// with the current time before matching, so that a loop retrying on
// ErrBusy is not blocked for ever by jobs nobody canceled.
func (x *Matcher) Expire(at int64) ([]uint64, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	defer x.releases.Add(1) // see ReleaseGeneration
	var ids []uint64
	for _, j := range x.jobsLocked() {
		if j.State == Canceled || j.End > at {
			continue
		}
		if err := x.m.Cancel(j.ID); err != nil {
			return ids, fromMatch("expire", err)
		}
		x.wjobs()[j.ID].State = Canceled
		ids = append(ids, j.ID)
	}
	return ids, nil
}

// Expire cancels the child's jobs whose window has ended by time at, as
// Matcher.Expire.
func (c *Child) Expire(at int64) ([]uint64, error) { return c.m.Expire(at) }

// ExpireJobs is Matcher.Expire for any Interface: m's own Expire when it
// has one (a *Matcher, a *Child), else a Cancel of each ended job the job
// table lists (the service client), in which a job another caller
// canceled meanwhile is skipped.
func ExpireJobs(m Interface, at int64) ([]uint64, error) {
	if e, ok := m.(interface {
		Expire(int64) ([]uint64, error)
	}); ok {
		return e.Expire(at)
	}
	jobs, err := m.JobTable()
	if err != nil {
		return nil, relabel(err, "expire")
	}
	var ids []uint64
	for _, j := range jobs {
		if j.State == Canceled || j.End > at {
			continue
		}
		if err := m.Cancel(j.ID); err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return ids, relabel(err, "expire")
		}
		ids = append(ids, j.ID)
	}
	return ids, nil
}
