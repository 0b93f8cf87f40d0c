// The cluster model: nodes (and their NUMA zones and topology levels) as
// graph vertices, attached, re-attached, marked up or down, removed.

package plugin

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

type nodeState struct {
	place
	alloc    raw
	labels   map[string]string // the vertex's properties (vertexProps)
	taints   []v1.Taint
	up       bool
	why      string
	held     map[leaf]types.UID // leaves held by our pods
	extRaw   raw
	extJob   uint64
	extUnits units
	ext      []leaf
}

// schedulable tells whether a node can take new pods: not cordoned, and
// Ready. Taints do not take a node down: they are properties of its
// vertex, and each pod's request excludes the nodes whose taints it does
// not tolerate (see podTaintProps).
func schedulable(n *v1.Node) (bool, string) {
	if n.Spec.Unschedulable {
		return false, "cordoned"
	}
	ready := false
	for _, cond := range n.Status.Conditions {
		if cond.Type == v1.NodeReady {
			ready = cond.Status == v1.ConditionTrue
		}
	}
	if !ready {
		return false, "not ready"
	}
	return true, ""
}

// SetNode adds or updates a node: a new node is attached to the graph; a
// changed capacity, label set or NUMA layout re-attaches it where its
// labels put it now, our pods on it keeping their bookings (same job ids,
// same leaves); a change of schedulability marks it up or down.
func (c *Cluster) SetNode(n *v1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setNodeLocked(n)
}

// SetNUMA records the NUMA zones of a node's NodeResourceTopology (nil:
// it has none) and re-attaches the node if that changes its layout.
func (c *Cluster) SetNUMA(node string, zones []units) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Equal(c.nrt[node], zones) {
		return
	}
	if zones == nil {
		delete(c.nrt, node)
	} else {
		c.nrt[node] = slices.Clone(zones)
	}
	if ns := c.nodes[node]; ns != nil {
		c.reattachLocked(ns, ns.labels)
	}
}

func (c *Cluster) setNodeLocked(n *v1.Node) {
	alloc := nodeRaw(n, c.gpuRes)
	labels := c.vertexProps(n)
	ns := c.nodes[n.Name]
	if ns != nil && (ns.alloc != alloc || !maps.Equal(ns.labels, labels)) {
		c.log.V(2).Info("node changed, re-attaching", "node", n.Name)
		c.clearRejectedLocked(n.Name)
		ns.alloc = alloc
		if !c.reattachLocked(ns, labels) {
			c.setTaintsLocked(ns, nil)
			return
		}
	}
	if ns == nil {
		sid := c.pickSID(n.Name)
		ns = &nodeState{alloc: alloc, labels: labels, held: map[leaf]types.UID{}}
		ns.place = c.placeFor(n.Name, sid, alloc, labels)
		if err := c.attachLocked(ns); err != nil {
			c.log.Error(err, "attach failed", "node", n.Name)
			return
		}
		c.log.V(2).Info("node attached", "node", n.Name, "sid", sid, "path", ns.path, "zones", len(ns.zones))
		for _, p := range c.parked[n.Name] {
			c.setPodLocked(p)
		}
		delete(c.parked, n.Name)
	}
	up, why := schedulable(n)
	if up != ns.up {
		if err := c.fm().SetStatus(ns.path, up); err != nil {
			c.log.Error(err, "set status failed", "node", n.Name)
		}
		ns.up = up
		c.dirty = true
		c.clearRejectedLocked(n.Name)
		c.log.V(2).Info("node status", "node", n.Name, "up", up, "why", why)
	}
	ns.why = why
	c.setTaintsLocked(ns, n.Spec.Taints)
	c.rebookExtLocked(ns)
}

// placeFor computes where a node sits: its level vertices from its labels
// (created in the registry as needed, but not yet counted) and its zones.
func (c *Cluster) placeFor(name string, sid int64, alloc raw, labels map[string]string) place {
	p := place{name: name, sid: sid}
	path := clusterPath
	for _, l := range c.args.Topology.Levels {
		typ, val := l.Type, labels[l.Label]
		if val == "" {
			typ, val = unlabelledType, unlabelledName
		}
		path += "/" + val
		lv := c.levels[path]
		if lv == nil {
			u := hashLevel(path)
			for c.luniq[u] {
				u = nextLevel(u)
			}
			lv = &levelVertex{typ: typ, name: val, path: path, uniq: u}
		}
		p.levels = append(p.levels, lv)
	}
	p.path = path + "/" + name
	var zones []units
	if c.args.NUMA == "nrt" {
		zones = c.nrt[name]
	}
	p.nrt = len(zones) > 0
	p.zones = fitZones(capacity(alloc, c.chunk), zones)
	return p
}

// attachAllLocked attaches the nodes not in the graph yet in one JGF
// document: Fluxion's attach recomputes the pruning filters of the whole
// graph, so one attach per node would cost O(nodes × graph) at start-up.
// setNodeLocked then finds them attached and sets their status.
func (c *Cluster) attachAllLocked(nodes []*v1.Node) {
	var d jgfDoc
	seen := map[int64]bool{}
	var batch []*nodeState
	for _, n := range nodes {
		if c.nodes[n.Name] != nil {
			continue
		}
		alloc := nodeRaw(n, c.gpuRes)
		ns := &nodeState{alloc: alloc, labels: c.vertexProps(n), held: map[leaf]types.UID{}}
		ns.place = c.placeFor(n.Name, c.pickSID(n.Name), alloc, ns.labels)
		for _, lv := range ns.levels { // registered now, so that later nodes share them
			if c.levels[lv.path] == nil {
				c.levels[lv.path], c.luniq[lv.uniq] = lv, true
			}
		}
		c.sids[ns.sid] = n.Name
		ns.appendJGF(&d, ns.labels, seen)
		batch = append(batch, ns)
	}
	if len(batch) == 0 {
		return
	}
	b, _ := json.Marshal(&d)
	err := c.fm().Attach(b)
	for _, ns := range batch {
		delete(c.sids, ns.sid)
		if err != nil {
			continue
		}
		for _, lv := range ns.levels {
			lv.nodes++
		}
		c.nodes[ns.name], c.sids[ns.sid] = ns, ns.name
	}
	if err != nil {
		// one at a time then, each error logged by setNodeLocked
		c.log.Error(err, "attaching the nodes at once failed", "nodes", len(batch))
		for path, lv := range c.levels {
			if lv.nodes == 0 {
				delete(c.levels, path)
				delete(c.luniq, lv.uniq)
			}
		}
		return
	}
	c.dirty = true
	metricVertices.Set(float64(c.fm().Vertices()))
	c.log.V(2).Info("nodes attached", "nodes", len(batch))
}

// attachLocked attaches a node (down) and counts it in its level vertices.
func (c *Cluster) attachLocked(ns *nodeState) error {
	if err := c.fm().Attach(ns.nodeJGF(ns.labels)); err != nil {
		return err
	}
	for _, lv := range ns.levels {
		if c.levels[lv.path] == nil {
			c.levels[lv.path], c.luniq[lv.uniq] = lv, true
		}
		lv.nodes++
	}
	c.nodes[ns.name], c.sids[ns.sid] = ns, ns.name
	ns.up = false
	c.dirty = true
	metricVertices.Set(float64(c.fm().Vertices()))
	return nil
}

// removeLocked removes a node's vertices, and the level vertices left
// without nodes.
func (c *Cluster) removeLocked(ns *nodeState) {
	if ns.up {
		_ = c.fm().SetStatus(ns.path, false)
		ns.up = false
	}
	if err := c.fm().Remove(ns.path); err != nil {
		c.log.Error(err, "remove failed", "node", ns.name)
	}
	for i := len(ns.levels) - 1; i >= 0; i-- {
		lv := ns.levels[i]
		if lv.nodes--; lv.nodes == 0 {
			if err := c.fm().Remove(lv.path); err != nil {
				c.log.Error(err, "remove failed", "vertex", lv.path)
			}
			delete(c.levels, lv.path)
			delete(c.luniq, lv.uniq)
		}
	}
	delete(c.nodes, ns.name)
	delete(c.sids, ns.sid)
	c.dirty = true
	metricVertices.Set(float64(c.fm().Vertices()))
}

func (c *Cluster) pickSID(name string) int64 {
	if s, ok := c.hints[name]; ok {
		if _, used := c.sids[s]; !used {
			return s
		}
	}
	s := hashSID(name)
	for {
		if _, used := c.sids[s]; !used {
			return s
		}
		s = nextSID(s)
	}
}

// reattachLocked moves a node to where its labels and zones put it now.
// Our bound (or permitted) pods on it keep their job ids and leaves; gangs
// in flight on it are canceled (their pods are placed again). It reports
// whether the node is attached afterwards.
func (c *Cluster) reattachLocked(ns *nodeState, labels map[string]string) bool {
	c.dropReservationsLocked()
	c.cancelExtLocked(ns)
	var keep []*podState
	for _, ps := range c.podsOn(ns.name) {
		if ps.gang != nil && !ps.gang.allowed {
			c.cancelGangLocked(ps.gang)
			continue
		}
		c.unbookLocked(ps)
		keep = append(keep, ps)
	}
	up := ns.up
	c.removeLocked(ns)
	ns.labels = labels
	ns.place = c.placeFor(ns.name, ns.sid, ns.alloc, labels)
	if err := c.attachLocked(ns); err != nil {
		c.log.Error(err, "attach failed", "node", ns.name)
		for _, ps := range keep {
			c.dropPodStateLocked(ps)
		}
		return false
	}
	if up {
		if err := c.fm().SetStatus(ns.path, true); err == nil {
			ns.up = true
		}
	}
	c.log.V(2).Info("node re-attached", "node", ns.name, "path", ns.path, "zones", len(ns.zones), "nrt", ns.nrt, "pods", len(keep))
	for _, ps := range keep {
		if err := c.bookPodLocked(ns, ps); err != nil {
			c.log.Error(err, "cannot book the pod again after its node changed; counting its requests instead", "pod", klog.KRef(ps.ns, ps.name))
			c.dropPodStateLocked(ps)
			if ps.pod != nil {
				c.addForeignLocked(ns, ps.pod)
			}
		}
	}
	c.rebookExtLocked(ns)
	return true
}

func (c *Cluster) podsOn(node string) []*podState {
	var out []*podState
	for _, ps := range c.pods {
		if ps.node == node {
			out = append(out, ps)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].job < out[j].job })
	return out
}

// DeleteNode removes a node from the graph.
func (c *Cluster) DeleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ns := c.nodes[name]; ns != nil {
		c.detachLocked(ns)
	}
}

// detachLocked cancels every booking on the node and removes it. Our
// bound pods and the others' pods on it are parked: they are booked again
// if the node comes back.
func (c *Cluster) detachLocked(ns *nodeState) {
	c.dropReservationsLocked()
	c.cancelExtLocked(ns)
	park := map[types.UID]*v1.Pod{}
	for _, ps := range c.podsOn(ns.name) {
		if ps.bound && ps.pod != nil {
			park[ps.uid] = ps.pod
		}
		if ps.gang != nil && !ps.gang.allowed {
			c.cancelGangLocked(ps.gang)
			continue
		}
		c.dropPodLocked(ps)
	}
	for uid, f := range c.foreign {
		if f.node == ns.name {
			park[uid] = f.pod
			delete(c.foreign, uid)
		}
	}
	c.removeLocked(ns)
	c.setTaintsLocked(ns, nil)
	c.clearRejectedLocked(ns.name)
	if len(park) > 0 {
		if c.parked[ns.name] == nil {
			c.parked[ns.name] = map[types.UID]*v1.Pod{}
		}
		maps.Copy(c.parked[ns.name], park)
	}
	c.log.V(2).Info("node removed", "node", ns.name)
}

// zoneUsed counts what our pods and others' hold in zone z.
func (ns *nodeState) zoneUsed(z int) units {
	var u units
	for l := range ns.held {
		if ns.zoneOf(l.Type, l.ID) == z {
			u.addType(l.Type, 1)
		}
	}
	for _, l := range ns.ext {
		if ns.zoneOf(l.Type, l.ID) == z {
			u.addType(l.Type, 1)
		}
	}
	return u
}
