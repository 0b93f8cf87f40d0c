// Gangs between placement and binding: Permit, cancel, sweep, bound.

package plugin

import (
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
)

type gang struct {
	id        string
	key       string
	members   []types.UID
	permitted sets.Set[types.UID]
	allowed   bool
	created   time.Time
}

// Assignment returns the node a placed pod is pinned to.
func (c *Cluster) Assignment(uid types.UID) (node string, gangID string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.pods[uid]
	if ps == nil {
		return "", "", false
	}
	if ps.gang != nil {
		gangID = ps.gang.id
	}
	return ps.node, gangID, true
}

// Permit records that a pod reached Permit. When the whole gang has, it
// returns the members to let go (waiting ones) and allow = true.
func (c *Cluster) Permit(uid types.UID) (others []types.UID, allow bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.pods[uid]
	if ps == nil {
		return nil, false, fmt.Errorf("pod %s was not placed by %s", uid, Name)
	}
	g := ps.gang
	if g == nil || g.allowed {
		return nil, true, nil
	}
	g.permitted.Insert(uid)
	if g.permitted.Len() < len(g.members) {
		return nil, false, nil
	}
	g.allowed = true
	for _, m := range g.members {
		if m != uid {
			others = append(others, m)
		}
	}
	return others, true, nil
}

// Cancel releases a pod that failed after it was placed. Before the gang
// was let through Permit the whole gang is canceled and the other members
// are returned (to be rejected); after, only this pod's job.
func (c *Cluster) Cancel(uid types.UID) []types.UID {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.pods[uid]
	if ps == nil || ps.bound {
		return nil
	}
	c.dirty = true
	if ps.gang != nil && !ps.gang.allowed {
		return c.cancelGangLocked(ps.gang)
	}
	c.dropPodLocked(ps)
	return nil
}

func (c *Cluster) cancelGangLocked(g *gang) []types.UID {
	var drop []*podState
	for _, uid := range g.members {
		if ps := c.pods[uid]; ps != nil && !ps.bound {
			drop = append(drop, ps)
		}
	}
	others := make([]types.UID, 0, len(drop))
	for _, ps := range drop {
		others = append(others, ps.uid)
		c.dropPodLocked(ps)
	}
	delete(c.gangs, g.id)
	return others
}

// Sweep cancels gangs placed more than age ago that never got through
// Permit (a safety net: the framework's Permit timeout normally does it).
func (c *Cluster) Sweep(age time.Duration) []types.UID {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []types.UID
	for _, id := range slices.Sorted(maps.Keys(c.gangs)) {
		g := c.gangs[id]
		if !g.allowed && c.now().Sub(g.created) > age {
			out = append(out, c.cancelGangLocked(g)...)
		}
	}
	return out
}

// Bound records that a placed pod was bound.
func (c *Cluster) Bound(uid types.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps := c.pods[uid]; ps != nil && !ps.bound {
		c.markBoundLocked(ps)
	}
}

func (c *Cluster) markBoundLocked(ps *podState) {
	ps.bound = true
	if g := ps.gang; g != nil {
		ps.gang = nil
		g.members = slices.DeleteFunc(g.members, func(u types.UID) bool { return u == ps.uid })
		if len(g.members) == 0 {
			delete(c.gangs, g.id)
		}
	}
}

// GroupCounts reports, for a gang's pods, how many we hold bound and how
// many are placed and on their way.
func (c *Cluster) GroupCounts(members []*v1.Pod) (bound, inflight int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range members {
		if ps := c.pods[p.UID]; ps != nil {
			if ps.bound {
				bound++
			} else {
				inflight++
			}
		}
	}
	return bound, inflight
}
