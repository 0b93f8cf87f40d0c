// Bookings: our pods' jobs (on their own or in a gang's job, split when
// a member leaves), the usage of pods placed by others, pods that outlive
// their duration.

package plugin

import (
	"fmt"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

type podState struct {
	uid    types.UID
	ns     string
	name   string
	node   string
	job    uint64   // the pod's job id (written on it)
	in     *gangJob // the gang's job holding the pod's leaves, or nil: job does
	leaves []leaf
	start  int64 // Unix s: when its booking starts
	end    int64 // Unix s; 0: until the pod ends
	bound  bool
	gang   *gang
	pod    *v1.Pod
}

// gangJob is the Fluxion job a gang's match booked for the pods of one
// shape: no per-pod booking on the scheduling path. When a pod leaves it
// (it ends, its node changes, it outlives its duration) while others stay,
// the job is split, at the next operation on the matcher (flushLocked):
// canceled, and each pod left booked on its own with update, as the
// reference books every pod. (Fluxion's partial cancel would be cheaper,
// but it drops the job's spans that plan nothing from the pruning filters,
// whose first member drives the search for a reservation's start: the
// job's end would vanish from that search, and reservations would move.)
// A gang whose pods all leave before that is just canceled.
type gangJob struct {
	id      uint64
	members []*podState // the pods in it
	split   bool        // pending split
}

type foreignPod struct {
	node string
	req  raw
	pod  *v1.Pod
}

func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// SetPod accounts for a pod: a bound pod carrying our R is booked from
// it (recovery, or a standby following the leader), any other bound pod
// counts as used by others, and a finished pod releases what it held.
func (c *Cluster) SetPod(p *v1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setPodLocked(p)
}

func (c *Cluster) setPodLocked(p *v1.Pod) {
	if terminal(p) {
		c.forgetLocked(p.UID)
		return
	}
	node := p.Spec.NodeName
	if node == "" {
		return
	}
	if ps := c.pods[p.UID]; ps != nil {
		if ps.node == node {
			ps.pod = p
			if !ps.bound {
				c.markBoundLocked(ps)
			}
			return
		}
		c.log.Info("pod bound elsewhere than we placed it", "pod", klog.KObj(p), "ours", ps.node, "node", node)
		c.forgetLocked(p.UID)
	}
	ns := c.nodes[node]
	if ns == nil {
		if c.parked[node] == nil {
			c.parked[node] = map[types.UID]*v1.Pod{}
		}
		c.parked[node][p.UID] = p
		return
	}
	if job, r, ok := annotated(p); ok {
		if err := c.replayLocked(ns, p, job, r); err == nil {
			return
		} else {
			c.log.Error(err, "cannot replay the pod's R; counting its requests instead", "pod", klog.KObj(p), "job", job)
		}
	}
	c.addForeignLocked(ns, p)
}

func (c *Cluster) addForeignLocked(ns *nodeState, p *v1.Pod) {
	req := podRaw(p, c.gpuRes)
	if f := c.foreign[p.UID]; f != nil {
		if f.node == ns.name && f.req == req {
			f.pod = p
			return
		}
		if o := c.nodes[f.node]; o != nil {
			o.extRaw = o.extRaw.sub(f.req)
			c.rebookExtLocked(o)
		}
	}
	c.foreign[p.UID] = &foreignPod{node: ns.name, req: req, pod: p}
	ns.extRaw = ns.extRaw.add(req)
	c.rebookExtLocked(ns)
}

// replayLocked books again an R made earlier (by us, or by the leader):
// the leaves it names on its node, wherever the node sits in the graph
// now, as its job, until the end the pod carries.
func (c *Cluster) replayLocked(ns *nodeState, p *v1.Pod, job uint64, r string) error {
	d, err := parseJGFR([]byte(r))
	if err != nil {
		return err
	}
	s, err := summarize(d)
	if err != nil {
		return err
	}
	if s.Node != ns.name || s.SID != ns.sid {
		return fmt.Errorf("R is for node %s (id %d), the pod is on %s (id %d)", s.Node, s.SID, ns.name, ns.sid)
	}
	for _, other := range c.pods {
		if other.job == job {
			return fmt.Errorf("job id %d is already held by pod %s/%s", job, other.ns, other.name)
		}
	}
	ps := &podState{uid: p.UID, ns: p.Namespace, name: p.Name, node: ns.name, job: job, leaves: s.Leaves,
		end: annotatedEnd(p), bound: true, pod: p}
	c.cancelExtLocked(ns)
	defer c.rebookExtLocked(ns)
	if err := c.bookPodLocked(ns, ps); err != nil {
		c.dropReservationsLocked()
		if err = c.bookPodLocked(ns, ps); err != nil {
			return err
		}
	}
	c.pods[p.UID] = ps
	c.nextJob = max(c.nextJob, job+1)
	delete(c.foreign, p.UID)
	c.log.V(3).Info("replayed R", "pod", klog.KObj(p), "job", job, "node", ns.name)
	return nil
}

// bookPodLocked books a pod's leaves as its job: from now until its end,
// or until the end of time when it has none (or is past it).
func (c *Cluster) bookPodLocked(ns *nodeState, ps *podState) error {
	jgf, err := ns.bookJGF(ps.leaves)
	if err != nil {
		return err
	}
	now := c.now().Unix()
	doc := jgf
	if ps.end > now {
		doc = windowed(jgf, now, ps.end)
	} else {
		ps.end = 0
	}
	if err := c.fm().Update(ps.job, doc); err != nil {
		return err
	}
	ps.in, ps.start = nil, now
	c.holdLocked(ns, ps)
	return nil
}

// holdLocked records a booked pod's leaves on its node, and its end.
func (c *Cluster) holdLocked(ns *nodeState, ps *podState) {
	for _, l := range ps.leaves {
		ns.held[l] = ps.uid
	}
	if ps.end != 0 && (c.nextEnd == 0 || ps.end < c.nextEnd) {
		c.nextEnd = ps.end
	}
}

// windowed wraps a JGF in an RFC 20 envelope whose execution part gives
// the window [start, end): Fluxion's update books it then.
func windowed(jgf []byte, start, end int64) []byte {
	return []byte(fmt.Sprintf(`{"version":1,"execution":{"R_lite":[],"nodelist":[],"starttime":%d,"expiration":%d},"scheduling":%s}`, start, end, jgf))
}

// DeletePod releases what a deleted pod held. It returns the other
// members of its gang whose allocation was canceled with it (when the pod
// was placed but not yet bound), so the caller can reject them.
func (c *Cluster) DeletePod(uid types.UID) []types.UID {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forgetLocked(uid)
}

func (c *Cluster) forgetLocked(uid types.UID) []types.UID {
	for node, m := range c.parked {
		delete(m, uid)
		if len(m) == 0 {
			delete(c.parked, node)
		}
	}
	if f := c.foreign[uid]; f != nil {
		c.clearRejectedLocked(f.node)
		delete(c.foreign, uid)
		if ns := c.nodes[f.node]; ns != nil {
			ns.extRaw = ns.extRaw.sub(f.req)
			c.rebookExtLocked(ns)
		}
		c.dirty = true
		return nil
	}
	ps := c.pods[uid]
	if ps == nil {
		return nil
	}
	c.dirty = true
	if ps.bound {
		c.clearRejectedLocked(ps.node)
	}
	if ps.gang != nil && !ps.gang.allowed {
		return c.cancelGangLocked(ps.gang)
	}
	c.dropPodLocked(ps)
	return nil
}

// dropPodLocked releases one pod's booking and forgets it.
func (c *Cluster) dropPodLocked(ps *podState) {
	c.unbookLocked(ps)
	c.dropPodStateLocked(ps)
}

// unbookLocked releases what a pod holds: its own job; or, in a gang's
// job, the job when it is the last pod left, else its place in it (the
// job is split before the next matcher operation). A failure is logged:
// the pod's leaves are given up either way.
func (c *Cluster) unbookLocked(ps *podState) {
	// (a cancel needs no pending split done first: the jobs are distinct)
	gj := ps.in
	if gj == nil {
		if err := c.m.Cancel(ps.job); err != nil {
			c.log.Error(err, "cancel failed", "job", ps.job)
		}
		return
	}
	ps.in = nil
	gj.members = slices.DeleteFunc(gj.members, func(o *podState) bool { return o == ps })
	if len(gj.members) > 0 {
		if !gj.split {
			gj.split = true
			c.splits = append(c.splits, gj)
		}
		return
	}
	if gj.split {
		gj.split = false
		c.splits = slices.DeleteFunc(c.splits, func(o *gangJob) bool { return o == gj })
	}
	if err := c.m.Cancel(gj.id); err != nil {
		c.log.Error(err, "cancel failed", "job", gj.id)
	}
}

// fm returns the matcher once the pending splits are done: every matcher
// operation but the splits' own goes through it.
func (c *Cluster) fm() Matcher {
	if len(c.splits) > 0 {
		c.flushLocked()
	}
	return c.m
}

// flushLocked splits the gang jobs some pods left: each is canceled and
// its remaining pods booked on their own (same leaves, same end).
func (c *Cluster) flushLocked() {
	splits := c.splits
	c.splits = nil
	for _, gj := range splits {
		gj.split = false
		if err := c.m.Cancel(gj.id); err != nil {
			c.log.Error(err, "cancel failed", "job", gj.id)
		}
		for _, ps := range gj.members {
			ps.in = nil
			// the window the gang's job booked for it, even if it is over
			// (expireLocked books it further when it next runs)
			ns := c.nodes[ps.node]
			doc, err := ns.bookJGF(ps.leaves)
			if err == nil {
				if ps.end != 0 {
					doc = windowed(doc, ps.start, ps.end)
				}
				err = c.m.Update(ps.job, doc)
			}
			if err != nil {
				c.log.Error(err, "booking a pod of a gang on its own failed", "pod", klog.KRef(ps.ns, ps.name), "job", ps.job)
			}
		}
		gj.members = nil
	}
}

// dropPodStateLocked forgets a pod whose job is canceled.
func (c *Cluster) dropPodStateLocked(ps *podState) {
	if ns := c.nodes[ps.node]; ns != nil {
		for _, l := range ps.leaves {
			if ns.held[l] == ps.uid {
				delete(ns.held, l)
			}
		}
	}
	if g := ps.gang; g != nil {
		g.members = slices.DeleteFunc(g.members, func(u types.UID) bool { return u == ps.uid })
		g.permitted.Delete(ps.uid)
		if len(g.members) == 0 {
			delete(c.gangs, g.id)
		}
	}
	delete(c.pods, ps.uid)
}

func (c *Cluster) cancelExtLocked(ns *nodeState) {
	if ns.extJob != 0 {
		if err := c.fm().Cancel(ns.extJob); err != nil {
			c.log.Error(err, "cancel failed", "job", ns.extJob)
		}
		ns.extJob, ns.extUnits, ns.ext = 0, units{}, nil
	}
}

// rebookExtLocked books, as one job until the end of time, as many free
// leaves of the node as the requests of pods placed by others use (the
// highest ids, away from where the policy places ours).
func (c *Cluster) rebookExtLocked(ns *nodeState) {
	need := used(ns.alloc, ns.extRaw, c.chunk)
	if ns.extJob != 0 && need == ns.extUnits {
		return
	}
	c.cancelExtLocked(ns)
	if need == (units{}) {
		return
	}
	capu := ns.cap()
	var leaves []leaf
	var got units
	for _, t := range leafTypes {
		k := need.get(t)
		for i := capu.get(t) - 1; i >= 0 && k > 0; i-- {
			l := leaf{t, i}
			if _, held := ns.held[l]; held {
				continue
			}
			leaves = append(leaves, l)
			k--
			got.addType(t, 1)
		}
	}
	if got != need {
		c.log.Info("pods placed by others use more than is free on the node", "node", ns.name, "need", need, "free", got)
	}
	if len(leaves) == 0 {
		return
	}
	doc, err := ns.bookJGF(leaves)
	if err == nil {
		err = c.fm().Update(c.nextExt, doc)
		if err != nil && len(c.resv) > 0 {
			// a reservation holds some of these leaves later: the
			// others' pods are here now, so reservations give way
			c.dropReservationsLocked()
			err = c.fm().Update(c.nextExt, doc)
		}
	}
	if err != nil {
		c.log.Error(err, "booking the usage of others failed", "node", ns.name)
		return
	}
	ns.extJob, ns.extUnits, ns.ext = c.nextExt, need, leaves
	c.nextExt++
}

// expireLocked books the pods that outlived their duration until the end
// of time (they still hold their resources); reservations that counted on
// them ending are recomputed.
func (c *Cluster) expireLocked(now int64) {
	if c.nextEnd == 0 || now < c.nextEnd {
		return
	}
	var late []*podState
	c.nextEnd = 0
	for _, ps := range c.pods {
		switch {
		case ps.end == 0:
		case ps.end <= now:
			late = append(late, ps)
		case c.nextEnd == 0 || ps.end < c.nextEnd:
			c.nextEnd = ps.end
		}
	}
	if len(late) == 0 {
		return
	}
	sort.Slice(late, func(i, j int) bool { return late[i].job < late[j].job })
	c.dropReservationsLocked()
	for _, ps := range late {
		ns := c.nodes[ps.node]
		if ns == nil {
			continue
		}
		c.unbookLocked(ps)
		ps.end = 0
		if err := c.bookPodLocked(ns, ps); err != nil {
			c.log.Error(err, "cannot extend the booking of a pod past its end", "pod", klog.KRef(ps.ns, ps.name))
		}
	}
	c.log.V(2).Info("pods past their duration booked until they end", "pods", len(late))
}
