// Reservations: EASY backfill for waiting gangs, in queue order.

package plugin

import (
	"maps"
	"slices"
	"sort"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/gofluxion/gofluxion"
)

// reservation is a waiting gang's booking at the earliest time it fits.
type reservation struct {
	key   string
	prio  int32
	since time.Time
	shape Shape
	req   Request
	hosts []string
	dur   int64
	job   uint64 // 0 while not booked
	at    int64
	where string
}

// before orders reservations as the queue does: higher priority, then
// older, then by key.
func (r *reservation) before(o *reservation) bool {
	if r.prio != o.prio {
		return r.prio > o.prio
	}
	if !r.since.Equal(o.since) {
		return r.since.Before(o.since)
	}
	return r.key < o.key
}

// gangRank is what orders gangs for reservations: the highest priority of
// their pods, and the creation of the oldest.
func gangRank(pods []*v1.Pod) (int32, time.Time) {
	var prio int32
	var since time.Time
	for i, p := range pods {
		pr := int32(0)
		if p.Spec.Priority != nil {
			pr = *p.Spec.Priority
		}
		if i == 0 || pr > prio {
			prio = pr
		}
		if t := p.CreationTimestamp.Time; i == 0 || t.Before(since) {
			since = t
		}
	}
	return prio, since
}

// mayReserveLocked decides whether a gang gets a reservation: while fewer
// than ReservationDepth are held, or by taking the place of a later gang.
func (c *Cluster) mayReserveLocked(r *reservation) bool {
	depth := c.args.ReservationDepth
	if depth < 1 {
		return false
	}
	if len(c.resv) < depth {
		return true
	}
	var worst *reservation
	for _, o := range c.resv {
		if worst == nil || worst.before(o) {
			worst = o
		}
	}
	if !r.before(worst) {
		return false
	}
	c.cancelResvLocked(worst)
	delete(c.resv, worst.key)
	return true
}

// reserveLocked books r at the earliest time it fits (Fluxion's
// allocate-or-else-reserve) in the scopes its request allows: for a
// required level the vertex where it fits first, otherwise anywhere.
func (c *Cluster) reserveLocked(r *reservation, now int64) error {
	shapes := []Shape{r.shape}
	var sc scope
	if r.req.Required != "" {
		scopes, pe := c.scopesLocked(shapes, r.req, r.hosts, true)
		if pe != nil {
			return pe
		}
		sc = scopes[0]
		if len(scopes) > 1 {
			best := int64(-1)
			for _, s := range scopes {
				js := s.form(r.req, &r.shape, r.hosts, r.dur, false).Jobspec(r.shape.Demand, len(r.shape.Pods))
				res, err := c.fm().Match(gofluxion.WithoutAllocatingFuture, js, 0, now)
				if err == nil && (best < 0 || res.Start < best) {
					best, sc = res.Start, s
				}
			}
		}
	}
	js := sc.form(r.req, &r.shape, r.hosts, r.dur, false).Jobspec(r.shape.Demand, len(r.shape.Pods))
	id := c.nextRes
	res, err := c.fm().Match(gofluxion.AllocateOrElseReserve, js, id, now)
	if err != nil {
		return err
	}
	c.nextRes++
	r.job, r.at = id, res.Start
	sel, err := res.selection()
	if err != nil {
		return err
	}
	r.where = describeWhere(sel, c.args)
	if sc.label != "" && sc.top == "" {
		r.where = sc.label
	}
	return nil
}

// reserveInOrderLocked reserves r before the reservations of the gangs
// that come after it in the queue (those are made again after it).
func (c *Cluster) reserveInOrderLocked(r *reservation, now int64) error {
	var later []*reservation
	for _, o := range c.resv {
		if r.before(o) {
			later = append(later, o)
			c.cancelResvLocked(o)
		}
	}
	sort.Slice(later, func(i, j int) bool { return later[i].before(later[j]) })
	err := c.reserveLocked(r, now)
	if err == nil {
		c.resv[r.key] = r
	}
	for _, o := range later {
		if oerr := c.reserveLocked(o, now); oerr != nil {
			c.log.V(2).Info("reservation dropped", "gang", o.key, "err", oerr)
			delete(c.resv, o.key)
		}
	}
	return err
}

func (c *Cluster) cancelResvLocked(r *reservation) {
	if r.job != 0 {
		if err := c.fm().Cancel(r.job); err != nil {
			c.log.Error(err, "cancel failed", "job", r.job)
		}
		r.job = 0
	}
}

// dropReservationsLocked gives every reservation back (to be recomputed
// before the next match).
func (c *Cluster) dropReservationsLocked() {
	for _, r := range c.resv {
		c.cancelResvLocked(r)
	}
	if len(c.resv) > 0 {
		c.dirty = true
	}
}

// recomputeLocked makes every reservation again, in queue order: after
// pods ended or nodes changed they may start earlier (or elsewhere).
func (c *Cluster) recomputeLocked(now int64) {
	c.dirty = false
	rs := slices.Collect(maps.Values(c.resv))
	sort.Slice(rs, func(i, j int) bool { return rs[i].before(rs[j]) })
	for _, r := range rs {
		c.cancelResvLocked(r)
	}
	for _, r := range rs {
		if err := c.reserveLocked(r, now); err != nil {
			c.log.V(2).Info("reservation dropped", "gang", r.key, "err", err)
			delete(c.resv, r.key)
		}
	}
}

// Reservation reports the reservation a gang holds.
func (c *Cluster) Reservation(key string) (at time.Time, where string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.resv[key]
	if r == nil || r.job == 0 {
		return time.Time{}, "", false
	}
	return time.Unix(r.at, 0).UTC(), r.where, true
}

// ForgetGang drops a gang's reservation (its pods are gone).
func (c *Cluster) ForgetGang(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.resv[key]; r != nil {
		c.cancelResvLocked(r)
		delete(c.resv, key)
		c.dirty = true
	}
	delete(c.waiting, key)
	delete(c.rejects, key)
}
