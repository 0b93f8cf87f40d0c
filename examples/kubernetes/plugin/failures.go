// Failures: nodes a later Filter rejected for a gang (excluded from its
// next matches until they change), bounded retries with backoff, and the
// domain of a gang's bound members, where its replacements go.

package plugin

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

const (
	// rejectionTTL bounds how long a rejected node stays excluded
	// without a change the plugin sees (the rejecting plugin's own state,
	// volumes or ports, may change unseen).
	rejectionTTL = 10 * 60
	// freeRejections is how many rejections a gang may take back to
	// back before it backs off: 2^k seconds after the k-th, at most
	// maxRejectionBackoff.
	freeRejections      = 2
	maxRejectionBackoff = 60
)

// rejection is what later filters said about a gang's picks.
type rejection struct {
	nodes map[string]string // node → the plugin that rejected it
	at    map[string]int64  // node → when (Unix s)
	n     int               // rejections since the last change that could help
	until int64             // no new match before (Unix s)
}

// Rejected records that a later filter (plugin) rejected node, where the
// gang key's match had pinned one of its pods: the node is left out of the
// gang's next matches until it changes (its labels, taints, capacity or
// status, or a pod on it goes), for at most ten minutes; and after a few
// rejections in a row the gang backs off before it is matched again.
func (c *Cluster) Rejected(key, node, plugin string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rejects[key]
	if r == nil {
		r = &rejection{nodes: map[string]string{}, at: map[string]int64{}}
		c.rejects[key] = r
	}
	now := c.now().Unix()
	r.nodes[node], r.at[node] = plugin, now
	r.n++
	if r.n > freeRejections {
		r.until = now + min(int64(1)<<min(r.n-freeRejections, 10), maxRejectionBackoff)
	}
	c.log.V(2).Info("node rejected for a gang by a later filter", "gang", key, "node", node, "plugin", plugin, "rejections", r.n)
}

// clearRejectedLocked forgets the rejections of a node that changed in a
// way that could help, and the backoff of the gangs it held back.
func (c *Cluster) clearRejectedLocked(node string) {
	for key, r := range c.rejects {
		if _, ok := r.nodes[node]; ok {
			delete(r.nodes, node)
			delete(r.at, node)
			r.n, r.until = 0, 0
			if len(r.nodes) == 0 {
				delete(c.rejects, key)
			}
		}
	}
}

// excludedLocked applies a gang's rejections to its hosts (nil: every
// node): it returns the hosts left, a note naming the excluded nodes and
// their plugins (for the gang's event), and a PlaceError while the gang
// backs off.
func (c *Cluster) excludedLocked(key string, hosts []string, now int64) ([]string, string, *PlaceError) {
	r := c.rejects[key]
	if r == nil {
		return hosts, "", nil
	}
	for n, t := range r.at {
		if now-t > rejectionTTL {
			delete(r.nodes, n)
			delete(r.at, n)
		}
	}
	if len(r.nodes) == 0 {
		delete(c.rejects, key)
		return hosts, "", nil
	}
	var notes []string
	for _, n := range slices.Sorted(maps.Keys(r.nodes)) {
		if len(notes) == 4 {
			notes = append(notes, "…")
			break
		}
		notes = append(notes, n+" (by "+r.nodes[n]+")")
	}
	note := " (nodes later filters rejected for this gang left out: " + strings.Join(notes, ", ") + ")"
	if now < r.until {
		return nil, note, &PlaceError{
			Reason:  fmt.Sprintf("rejected %d times in a row by later filters; backing off until %s%s", r.n, time.Unix(r.until, 0).UTC().Format("15:04:05 MST"), note),
			RetryAt: time.Unix(r.until, 0).UTC(),
		}
	}
	if hosts == nil {
		hosts = slices.Sorted(maps.Keys(c.nodes))
	}
	left := make([]string, 0, len(hosts))
	for _, h := range hosts {
		if _, bad := r.nodes[h]; !bad {
			left = append(left, h)
		}
	}
	return left, note, nil
}

// siblingDomainLocked returns the nodes under the vertex of level typ
// that holds most of a gang's bound members (on nodes, ties to the first
// vertex by path), and names it ("rack r1"); nil when none is known.
func (c *Cluster) siblingDomainLocked(typ string, bound []string) ([]string, string) {
	depth := c.args.levelIndex(typ)
	if depth < 0 || len(bound) == 0 {
		return nil, ""
	}
	count := map[*levelVertex]int{}
	var best *levelVertex
	for _, n := range bound {
		ns := c.nodes[n]
		if ns == nil || ns.levels[depth].typ != typ {
			continue
		}
		lv := ns.levels[depth]
		count[lv]++
		if best == nil || count[lv] > count[best] || (count[lv] == count[best] && lv.path < best.path) {
			best = lv
		}
	}
	if best == nil {
		return nil, ""
	}
	var hosts []string
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		if c.nodes[name].levels[depth] == best {
			hosts = append(hosts, name)
		}
	}
	return hosts, typ + " " + best.name
}

// withoutLocked returns hosts (nil: every node) without the nodes of
// drop.
func (c *Cluster) withoutLocked(hosts, drop []string) []string {
	if hosts == nil {
		hosts = slices.Sorted(maps.Keys(c.nodes))
	}
	return slices.DeleteFunc(slices.Clone(hosts), func(h string) bool { return slices.Contains(drop, h) })
}

// intersect keeps the hosts of a that are in b (a nil: every node).
func intersect(a, b []string) []string {
	if a == nil {
		return b
	}
	in := make(map[string]bool, len(a))
	for _, h := range a {
		in[h] = true
	}
	out := make([]string, 0, len(b))
	for _, h := range b {
		if in[h] {
			out = append(out, h)
		}
	}
	return out
}
