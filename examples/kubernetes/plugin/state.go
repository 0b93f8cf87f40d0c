package plugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/klog/v2"

	"github.com/gofluxion/gofluxion"
)

// Pod annotations written at PreBind: the pod's Fluxion job id, its R and,
// when the pod has a duration, the end of its booking (RFC 3339). They are
// the plugin's only persistent state.
const (
	AnnotationJobID = "gofluxion.io/jobid"
	AnnotationR     = "gofluxion.io/R"
	AnnotationEnd   = "gofluxion.io/end"
)

// Job id ranges: our pods count up from 1 (the id written on each pod,
// and the Fluxion job of a pod booked on its own); the Fluxion jobs of
// gangs (one per shape, booked by its match) from gangBase; reservations
// from resvBase; the temporary bookings of a heterogeneous gang's shapes
// (reference mode only) from tempBase; the bookings that stand for pods
// placed by others from extBase.
const (
	extBase  = uint64(1) << 62
	tempBase = uint64(1) << 61
	resvBase = uint64(1) << 60
	gangBase = uint64(1) << 59
)

// maxScopes bounds the level vertices tried for one topology request.
const maxScopes = 16

// Cluster is the plugin's view of the cluster: a Matcher over the graph
// of the cluster's nodes, what our pods hold, what pods placed by others
// use, the gangs in flight and the reservations of waiting gangs. It has
// no framework dependency, so it is driven directly by unit tests. All
// methods are safe for concurrent use.
type Cluster struct {
	mu      sync.Mutex
	args    *Args
	chunk   int64
	gpuRes  v1.ResourceName
	m       Matcher
	nodes   map[string]*nodeState
	sids    map[int64]string
	hints   map[string]int64 // node name → sid seen in an R
	levels  map[string]*levelVertex
	luniq   map[int64]bool
	nrt     map[string][]units // node → NUMA zones from its NodeResourceTopology
	pods    map[types.UID]*podState
	foreign map[types.UID]*foreignPod
	parked  map[string]map[types.UID]*v1.Pod // pods seen before their node
	gangs   map[string]*gang
	resv    map[string]*reservation // by gang key
	waiting map[string]int64        // gang key → last failed attempt (Unix s)
	dirty   bool                    // reservations to recompute
	nextJob uint64
	nextGJ  uint64
	splits  []*gangJob // gang jobs to split before the next matcher operation
	nextExt uint64
	nextRes uint64
	nextGID int
	nextEnd int64 // the earliest end of our pods' bookings
	log     klog.Logger
	now     func() time.Time

	lastMatch time.Duration

	// perPodJobs is the reference mode (tests): each placed pod is booked
	// on its own with update, as before gangs were booked by their match.
	perPodJobs bool
}

type nodeState struct {
	place
	alloc    raw
	labels   map[string]string
	up       bool
	why      string
	held     map[leaf]types.UID // leaves held by our pods
	extRaw   raw
	extJob   uint64
	extUnits units
	ext      []leaf
}

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

type gang struct {
	id        string
	key       string
	members   []types.UID
	permitted sets.Set[types.UID]
	allowed   bool
	created   time.Time
}

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

// NewCluster creates an empty Cluster for defaulted, validated args, with
// the gofluxion Matcher in process.
func NewCluster(args *Args, log klog.Logger) (*Cluster, error) {
	m, err := newLocalMatcher(args)
	if err != nil {
		return nil, err
	}
	return NewClusterWith(args, m, log), nil
}

// NewClusterWith creates an empty Cluster over a given Matcher.
func NewClusterWith(args *Args, m Matcher, log klog.Logger) *Cluster {
	return &Cluster{
		args: args, chunk: args.memoryChunk(), gpuRes: v1.ResourceName(args.GPUResource), m: m,
		nodes: map[string]*nodeState{}, sids: map[int64]string{}, hints: map[string]int64{},
		levels: map[string]*levelVertex{}, luniq: map[int64]bool{}, nrt: map[string][]units{},
		pods: map[types.UID]*podState{}, foreign: map[types.UID]*foreignPod{},
		parked: map[string]map[types.UID]*v1.Pod{}, gangs: map[string]*gang{},
		resv: map[string]*reservation{}, waiting: map[string]int64{},
		nextJob: 1, nextGJ: gangBase, nextExt: extBase, nextRes: resvBase, log: log, now: time.Now,
	}
}

// Load feeds a full listing (start-up) in the order that makes recovery
// exact: the stable ids the Rs recorded, then the nodes, then our pods'
// Rs in job order, then the pods placed by others. Informer events for the
// same objects later are no-ops.
func (c *Cluster) Load(nodes []*v1.Node, pods []*v1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	type ours struct {
		job uint64
		pod *v1.Pod
	}
	var mine []ours
	var others []*v1.Pod
	for _, p := range pods {
		if job, r, ok := annotated(p); ok && p.Spec.NodeName != "" {
			if d, err := parseJGFR([]byte(r)); err == nil {
				if s, err := summarize(d); err == nil && s.Node == p.Spec.NodeName {
					c.hints[s.Node] = s.SID
				}
			}
			mine = append(mine, ours{job, p})
		} else {
			others = append(others, p)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].job < mine[j].job })
	nodes = slices.Clone(nodes)
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	c.attachAllLocked(nodes)
	for _, n := range nodes {
		c.setNodeLocked(n)
	}
	for _, o := range mine {
		c.setPodLocked(o.pod)
	}
	for _, p := range others {
		c.setPodLocked(p)
	}
}

// annotated returns the job id and R a pod carries.
func annotated(p *v1.Pod) (uint64, string, bool) {
	js, ok1 := p.Annotations[AnnotationJobID]
	r, ok2 := p.Annotations[AnnotationR]
	if !ok1 || !ok2 {
		return 0, "", false
	}
	id, err := strconv.ParseUint(js, 10, 64)
	if err != nil || id == 0 || id >= resvBase {
		return 0, "", false
	}
	return id, decodeR(r), true
}

// annotatedEnd returns the end of a pod's booking (0: none).
func annotatedEnd(p *v1.Pod) int64 {
	if s, ok := p.Annotations[AnnotationEnd]; ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t.Unix()
		}
	}
	return 0
}

func terminal(p *v1.Pod) bool {
	return p.Status.Phase == v1.PodSucceeded || p.Status.Phase == v1.PodFailed
}

// schedulable tells whether a node can take new pods: not cordoned, Ready,
// and without a NoSchedule or NoExecute taint.
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
	for _, t := range n.Spec.Taints {
		if t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute {
			return false, "tainted " + t.Key + ":" + string(t.Effect)
		}
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
	labels := maps.Clone(n.Labels)
	ns := c.nodes[n.Name]
	if ns != nil && (ns.alloc != alloc || !maps.Equal(ns.labels, labels)) {
		c.log.V(2).Info("node changed, re-attaching", "node", n.Name)
		ns.alloc = alloc
		if !c.reattachLocked(ns, labels) {
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
		c.log.V(2).Info("node status", "node", n.Name, "up", up, "why", why)
	}
	ns.why = why
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
		ns := &nodeState{alloc: alloc, labels: maps.Clone(n.Labels), held: map[leaf]types.UID{}}
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
	if len(park) > 0 {
		if c.parked[ns.name] == nil {
			c.parked[ns.name] = map[types.UID]*v1.Pod{}
		}
		maps.Copy(c.parked[ns.name], park)
	}
	c.log.V(2).Info("node removed", "node", ns.name)
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

// PlaceError is a gang that cannot be placed now.
type PlaceError struct {
	// Reason is the explanation, e.g. "needs 5 node (with 2 core,
	// 1 gpu each): 4 found now, only 4 exist".
	Reason string
	// Unresolvable: the gang can never fit this cluster (capacity), or its
	// request is invalid, as opposed to not fitting now (busy).
	Unresolvable bool
	// Reserved: the gang holds a reservation starting At, on Where.
	Reserved bool
	At       time.Time
	Where    string
	// Moved: the reservation is new or changed since the last attempt.
	Moved bool
	Err   error
}

func (e *PlaceError) Error() string { return e.Reason }
func (e *PlaceError) Unwrap() error { return e.Err }

// Shape is the demand of one kind of pod of a gang.
type Shape struct {
	Demand units
	Pods   []*v1.Pod
}

// shapes groups pods by demand: one slot shape per distinct request.
func (c *Cluster) shapes(pods []*v1.Pod) []Shape {
	var out []Shape
	for _, p := range pods {
		d := demand(podRaw(p, c.gpuRes), c.chunk)
		i := slices.IndexFunc(out, func(s Shape) bool { return s.Demand == d })
		if i < 0 {
			out = append(out, Shape{Demand: d})
			i = len(out) - 1
		}
		out[i].Pods = append(out[i].Pods, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Demand, out[j].Demand
		if a.GPU != b.GPU {
			return a.GPU > b.GPU
		}
		if a.Core != b.Core {
			return a.Core > b.Core
		}
		return a.Mem > b.Mem
	})
	return out
}

// Placement is where Place put a gang.
type Placement struct {
	GangID string
	Nodes  map[types.UID]string
	// Took is the time of the gang's matches (Fluxion's part).
	Took time.Duration
	// Scope says where the gang went when it asked for a topology, e.g.
	// "rack r3".
	Scope string
}

// Place matches pods as one gang, all or nothing, now; or, when it does
// not fit now, reserves the earliest time it fits (EASY backfill: the
// first ReservationDepth waiting gangs in queue order hold one). A gang of
// one shape (all pods request the same) is one jobspec (see Form.Jobspec)
// matched once. Fluxion refuses sibling requests of the same type, so a
// gang of several shapes is one jobspec per shape, matched back to back
// (scarcest shape first) under the same lock, each booked until the last
// fits, and all released if one does not. Every pod then gets its own job,
// booked with update from its part of the selection for its own duration,
// and is pinned to its node until it binds or the gang is canceled. hosts,
// when not nil, are the only nodes the gang may use.
func (c *Cluster) Place(key string, pods []*v1.Pod, hosts []string) (*Placement, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	pl, err := c.placeLocked(key, pods, hosts)
	result := "placed"
	var pe *PlaceError
	switch {
	case errors.As(err, &pe) && pe.Reserved:
		result = "reserved"
	case errors.As(err, &pe):
		result = "unschedulable"
	case err != nil:
		result = "error"
	}
	metricMatch.WithLabelValues(result).Observe(time.Since(start).Seconds())
	now := c.now().Unix()
	if err == nil {
		delete(c.waiting, key)
	} else {
		c.waiting[key] = now
	}
	for k, t := range c.waiting {
		if now-t > 600 {
			delete(c.waiting, k)
		}
	}
	metricWaiting.Set(float64(len(c.waiting)))
	metricReservations.Set(float64(len(c.resv)))
	return pl, err
}

func (c *Cluster) placeLocked(key string, pods []*v1.Pod, hosts []string) (*Placement, error) {
	now := c.now().Unix()
	c.expireLocked(now)
	req, err := c.args.parseRequest(pods)
	if err != nil {
		return nil, &PlaceError{Reason: err.Error(), Unresolvable: true, Err: err}
	}
	var dur int64
	durs := make(map[types.UID]int64, len(pods))
	for i, p := range pods {
		d, err := c.args.podDuration(p)
		if err != nil {
			return nil, &PlaceError{Reason: err.Error(), Unresolvable: true, Err: err}
		}
		durs[p.UID] = d
		if i == 0 || (dur != 0 && (d == 0 || d > dur)) {
			dur = d
		}
	}
	shapes := c.shapes(pods)
	old := c.resv[key]
	if old != nil {
		// given back while the gang tries now; made again if it must wait
		c.cancelResvLocked(old)
		delete(c.resv, key)
	}
	if c.dirty {
		c.recomputeLocked(now)
	}
	start := time.Now()
	parts, jobs, scope, err := c.matchNowLocked(shapes, req, hosts, dur, now)
	took := time.Since(start)
	if err != nil {
		var pe *PlaceError
		if !errors.As(err, &pe) {
			return nil, err
		}
		if !pe.Unresolvable && len(shapes) == 1 {
			r := &reservation{key: key, shape: shapes[0], req: req, hosts: hosts, dur: dur}
			r.prio, r.since = gangRank(pods)
			if old != nil {
				r.since = old.since
			}
			if c.mayReserveLocked(r) {
				if c.reserveInOrderLocked(r, now) == nil {
					pe.Reserved, pe.At, pe.Where = true, time.Unix(r.at, 0).UTC(), r.where
					pe.Moved = old == nil || old.at != r.at || old.where != r.where
					pe.Reason = fmt.Sprintf("reserved at %s (in %v) on %s; now: %s",
						pe.At.Format("15:04:05 MST"), time.Duration(r.at-now)*time.Second, r.where, pe.Reason)
				}
			}
		}
		return nil, pe
	}
	c.lastMatch = took
	c.nextGID++
	g := &gang{id: key + "#" + strconv.Itoa(c.nextGID), key: key, permitted: sets.New[types.UID](), created: c.now()}
	pl := &Placement{GangID: g.id, Nodes: make(map[types.UID]string, len(pods)), Took: took, Scope: scope}
	// each pod gets its job id and its part of the selection, held in its
	// shape's gang job; a gang whose pods' durations differ (the gang's
	// match booked the longest) is booked pod by pod instead, each for its
	// own window
	uniform := true
	for _, p := range pods {
		uniform = uniform && durs[p.UID] == dur
	}
	if !uniform {
		for _, id := range jobs {
			if err := c.fm().Cancel(id); err != nil {
				c.log.Error(err, "cancel failed", "job", id)
			}
		}
		jobs = nil
	}
	all := make([]*podState, 0, len(pods))
	for si, s := range shapes {
		var gj *gangJob
		if jobs != nil {
			gj = &gangJob{id: jobs[si], members: make([]*podState, 0, len(s.Pods))}
		}
		for i, p := range s.Pods {
			part := parts[si][i]
			ps := &podState{uid: p.UID, ns: p.Namespace, name: p.Name, node: part.node, job: c.nextJob + uint64(len(all)),
				leaves: part.leaves, start: now, gang: g, pod: p}
			if d := durs[p.UID]; d > 0 {
				ps.end = now + d
			}
			if gj != nil {
				ps.in = gj
				gj.members = append(gj.members, ps)
				c.holdLocked(c.nodes[ps.node], ps)
			}
			all = append(all, ps)
		}
	}
	if jobs == nil {
		for i, ps := range all {
			if err := c.bookPodLocked(c.nodes[ps.node], ps); err != nil {
				for _, d := range all[:i] {
					c.dropPodLocked(d)
				}
				return nil, fmt.Errorf("booking pod %s/%s: %w", ps.ns, ps.name, err)
			}
		}
	}
	for _, ps := range all {
		c.pods[ps.uid] = ps
		g.members = append(g.members, ps.uid)
		pl.Nodes[ps.uid] = ps.node
	}
	c.nextJob += uint64(len(all))
	c.gangs[g.id] = g
	return pl, nil
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

// scope is one place to try a gang: under a level vertex (natively, top,
// or through the hosts below it), or anywhere.
type scope struct {
	label string // "rack r3", "" for anywhere
	top   string
	hosts []string // nil: no restriction beyond the gang's own
}

// matchNowLocked finds room for every shape now, trying the scopes the
// request allows in order. It returns each shape's parts.
func (c *Cluster) matchNowLocked(shapes []Shape, req Request, hosts []string, dur, now int64) ([][]podPart, []uint64, string, error) {
	scopes, perr := c.scopesLocked(shapes, req, hosts, false)
	var last *PlaceError
	for _, sc := range scopes {
		parts, jobs, where, err := c.tryShapesLocked(shapes, req, sc, hosts, dur, now)
		if err == nil {
			return parts, jobs, where, nil
		}
		var pe *PlaceError
		if !errors.As(err, &pe) {
			return nil, nil, "", err
		}
		last = pe
	}
	if perr != nil {
		return nil, nil, "", perr
	}
	if last == nil {
		last = &PlaceError{Reason: "nowhere to try"}
	}
	return nil, nil, "", last
}

// scopesLocked lists where a request may go, in order: for
// topology-required L, the vertices of L (natively when L is the lowest
// level and the gang is one spread shape, else each vertex that could hold
// the gang, tightest first); for topology-preferred L, the same for L, then
// each level up, then anywhere; otherwise anywhere. ever selects vertices
// by capacity instead of what is free now. A required level with no vertex
// that could hold the gang returns an error to report.
func (c *Cluster) scopesLocked(shapes []Shape, req Request, hosts []string, ever bool) ([]scope, *PlaceError) {
	levels := c.args.Topology.Levels
	native := len(shapes) == 1 && !req.Pack
	var out []scope
	add := func(typ string) int {
		i := c.args.levelIndex(typ)
		if native && i == len(levels)-1 {
			out = append(out, scope{label: typ, top: typ})
			return 1
		}
		cands := c.candidatesLocked(typ, shapes, req, hosts, ever)
		out = append(out, cands...)
		return len(cands)
	}
	switch {
	case req.Required != "":
		if add(req.Required) == 0 {
			pe := &PlaceError{Reason: fmt.Sprintf("no %s can hold the gang now", req.Required)}
			if len(c.candidatesLocked(req.Required, shapes, req, hosts, true)) == 0 {
				pe.Reason = fmt.Sprintf("no %s can ever hold the gang (not even empty)", req.Required)
				pe.Unresolvable = true
			}
			return nil, pe
		}
	case req.Preferred != "":
		for i := c.args.levelIndex(req.Preferred); i >= 0; i-- {
			add(levels[i].Type)
		}
		out = append(out, scope{})
	default:
		out = append(out, scope{})
	}
	return out, nil
}

// candidatesLocked returns the vertices of a level that could hold the
// gang (by the free, or with ever the total, whole vertices of their up
// nodes, zone by zone), tightest first, at most maxScopes.
func (c *Cluster) candidatesLocked(typ string, shapes []Shape, req Request, hosts []string, ever bool) []scope {
	depth := c.args.levelIndex(typ)
	allowed := func(string) bool { return true }
	if hosts != nil {
		hs := sets.New(hosts...)
		allowed = func(n string) bool { return hs.Has(n) }
	}
	type cand struct {
		lv    *levelVertex
		hosts []string
		fit   []int64 // per shape: pods that fit
		spare int64   // free cores beyond the gang's, for the tightest fit
	}
	byVertex := map[string]*cand{}
	var order []*cand
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		ns := c.nodes[name]
		lv := ns.levels[depth]
		if lv.typ != typ || !allowed(name) || (!ever && !ns.up) || (req.NUMA && !ns.nrt) {
			continue
		}
		cd := byVertex[lv.path]
		if cd == nil {
			cd = &cand{lv: lv, fit: make([]int64, len(shapes))}
			byVertex[lv.path] = cd
			order = append(order, cd)
		}
		cd.hosts = append(cd.hosts, name)
		nodeFit := make([]int64, len(shapes))
		for z, zu := range ns.zones {
			free := zu
			if !ever {
				free = zu.minus(ns.zoneUsed(z))
			}
			cd.spare += free.Core
			for si, s := range shapes {
				nodeFit[si] += free.times(s.Demand)
			}
		}
		for si := range shapes {
			if !req.Pack {
				nodeFit[si] = min(nodeFit[si], 1) // spread: one pod of a shape per node
			}
			cd.fit[si] += nodeFit[si]
		}
	}
	var out []*cand
	for _, cd := range order {
		ok := true
		for si, s := range shapes {
			if cd.fit[si] < int64(len(s.Pods)) {
				ok = false
			}
			cd.spare -= int64(len(s.Pods)) * s.Demand.Core
		}
		if ok {
			out = append(out, cd)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].spare < out[j].spare })
	var scopes []scope
	for _, cd := range out[:min(len(out), maxScopes)] {
		scopes = append(scopes, scope{label: typ + " " + cd.lv.name, hosts: cd.hosts})
	}
	return scopes
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

// form is the Form of a shape in a scope.
func (sc scope) form(req Request, hosts []string, dur int64) Form {
	f := Form{Top: sc.top, Pack: req.Pack, NUMA: req.NUMA, Hosts: hosts, Duration: dur}
	if sc.hosts != nil {
		f.Hosts = sc.hosts // already within the gang's hosts
	}
	if f.Hosts != nil && len(f.Hosts) == 0 {
		// a hostlist constraint cannot be empty: name no existing node
		f.Hosts = []string{"gofluxion-no-eligible-node"}
	}
	return f
}

// tryShapesLocked matches every shape in one scope now, all or nothing,
// each booked by its match as a gang job (their ids are returned; nothing
// stays booked when a shape does not fit). In the reference mode
// (perPodJobs) nothing stays booked: one shape is matched without
// allocating, several under temporary ids released at the end.
func (c *Cluster) tryShapesLocked(shapes []Shape, req Request, sc scope, hosts []string, dur, now int64) (parts [][]podPart, jobs []uint64, where string, err error) {
	where = sc.label
	defer func() {
		if err != nil || c.perPodJobs {
			for _, id := range jobs {
				_ = c.fm().Cancel(id)
			}
			jobs = nil
		}
	}()
	parts = make([][]podPart, len(shapes))
	f := sc.form(req, hosts, dur)
	for i, s := range shapes {
		js := f.Jobspec(s.Demand, len(s.Pods))
		var res *MatchResult
		var merr error
		switch {
		case c.perPodJobs && len(shapes) == 1:
			res, merr = c.fm().Match(gofluxion.WithoutAllocating, js, 0, now)
		default:
			id := tempBase + uint64(i)
			if !c.perPodJobs {
				id = c.nextGJ
				c.nextGJ++
			}
			res, merr = c.fm().Match(gofluxion.Allocate, js, id, now)
			if merr == nil {
				jobs = append(jobs, id)
			}
		}
		if merr != nil {
			pe := c.explainLocked(js, now, req, merr)
			if sc.label != "" && sc.top == "" {
				pe.Reason = sc.label + ": " + pe.Reason
			}
			if len(shapes) > 1 {
				pe.Reason = fmt.Sprintf("shape %d of %d (%d pods with %v): %s", i+1, len(shapes), len(s.Pods), s.Demand, pe.Reason)
			}
			return nil, jobs, "", pe
		}
		sel, err := res.selection()
		if err != nil {
			return nil, jobs, "", err
		}
		ps, err := splitMatch(sel, s.Demand, len(s.Pods))
		if err != nil {
			return nil, jobs, "", err
		}
		parts[i] = ps
		if sc.top != "" && i == 0 {
			where = describeWhere(sel, c.args)
		}
	}
	return parts, jobs, where, nil
}

// explainLocked turns a failed match into a PlaceError with gofluxion's
// explanation (the NUMA level every jobspec names is left out unless the
// gang asked for it).
func (c *Cluster) explainLocked(js []byte, now int64, req Request, err error) *PlaceError {
	pe := &PlaceError{Reason: err.Error(), Err: err, Unresolvable: errors.Is(err, gofluxion.ErrUnsatisfiable)}
	if reason, sat, xerr := c.fm().Explain(js, now); xerr == nil {
		if reason != "" {
			pe.Reason = reason
		}
		pe.Unresolvable = pe.Unresolvable || !sat
	}
	if !req.NUMA {
		pe.Reason = strings.Replace(pe.Reason, " 1 numa, ", " ", 1)
	}
	return pe
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
				js := s.form(r.req, r.hosts, r.dur).Jobspec(r.shape.Demand, len(r.shape.Pods))
				res, err := c.fm().Match(gofluxion.WithoutAllocatingFuture, js, 0, now)
				if err == nil && (best < 0 || res.Start < best) {
					best, sc = res.Start, s
				}
			}
		}
	}
	js := sc.form(r.req, r.hosts, r.dur).Jobspec(r.shape.Demand, len(r.shape.Pods))
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

// describeWhere names where a selection lies: the innermost level vertex
// holding all its nodes ("rack r3"), else its nodes.
func describeWhere(sel []Selected, a *Args) string {
	var paths [][]string
	var names []string
	for _, v := range sel {
		if v.Type == "node" {
			paths = append(paths, strings.Split(strings.TrimPrefix(v.Path, clusterPath+"/"), "/"))
			names = append(names, v.Name)
		}
	}
	if len(paths) == 0 {
		return "no node"
	}
	common := len(paths[0]) - 1
	for _, p := range paths[1:] {
		k := 0
		for k < common && k < len(p)-1 && p[k] == paths[0][k] {
			k++
		}
		common = k
	}
	if common > 0 && common <= len(a.Topology.Levels) && paths[0][common-1] != unlabelledName {
		return a.Topology.Levels[common-1].Type + " " + paths[0][common-1]
	}
	slices.Sort(names)
	names = slices.Compact(names)
	switch {
	case len(names) > 4:
		return fmt.Sprintf("%d nodes (%s, …)", len(names), strings.Join(names[:4], ", "))
	case len(names) > 1:
		return "nodes " + strings.Join(names, ", ")
	}
	return "node " + names[0]
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

// Annotations returns what PreBind writes on a placed pod: its job id, its
// R (rendered now, outside the lock: see renderR) and its end.
func (c *Cluster) Annotations(uid types.UID) (map[string]string, error) {
	a, err := c.allocation(uid)
	if err != nil {
		return nil, err
	}
	r := renderR(&a.pl, a.labels, a.leaves, c.args.RFormat, a.start, a.end)
	ann := map[string]string{AnnotationJobID: strconv.FormatUint(a.job, 10), AnnotationR: encodeR(r)}
	if a.end != 0 {
		ann[AnnotationEnd] = endAnnotation(a.end)
	}
	return ann, nil
}

// AnnotationPatch returns the JSON merge patch PreBind sends: the
// annotations Annotations returns (annotationPatch(Annotations(uid)), byte
// for byte), the R rendered straight into it in reused buffers.
func (c *Cluster) AnnotationPatch(uid types.UID) ([]byte, error) {
	a, err := c.allocation(uid)
	if err != nil {
		return nil, err
	}
	w := rWriters.Get().(*rWriter)
	defer rWriters.Put(w)
	w.out = w.appendR(w.out[:0], &a.pl, a.labels, a.leaves, c.args.RFormat, a.start, a.end)
	r := w.out
	if len(r) > maxPlainR {
		r = []byte(encodeR(string(r)))
	}
	// the keys in order, as annotationPatch sorts them
	const head = `{"metadata":{"annotations":{"` + AnnotationR + `":`
	b := append(make([]byte, 0, len(head)), head...)
	b = appendJSONBytes(b, r, 96)
	if a.end != 0 {
		b = append(b, `,"`+AnnotationEnd+`":"`...)
		b = append(b, endAnnotation(a.end)...)
		b = append(b, '"')
	}
	b = append(b, `,"`+AnnotationJobID+`":"`...)
	b = strconv.AppendUint(b, a.job, 10)
	return append(b, `"}}}`...), nil
}

// rWriters are the render buffers of PreBinds (which run in parallel).
var rWriters = sync.Pool{New: func() any { return new(rWriter) }}

func endAnnotation(end int64) string { return time.Unix(end, 0).UTC().Format(time.RFC3339) }

// allocated is what a placed pod's annotations are made of.
type allocated struct {
	pl         place
	labels     map[string]string
	leaves     []leaf
	job        uint64
	start, end int64
}

func (c *Cluster) allocation(uid types.UID) (allocated, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.pods[uid]
	var ns *nodeState
	if ps != nil {
		ns = c.nodes[ps.node]
	}
	if ns == nil {
		return allocated{}, fmt.Errorf("pod %s has no allocation", uid)
	}
	// the node's place and labels are replaced, never changed, when it
	// moves; the pod's leaves never change
	return allocated{pl: ns.place, labels: ns.labels, leaves: ps.leaves, job: ps.job, start: ps.start, end: ps.end}, nil
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

// Stats is a summary for tests and logs.
type Stats struct {
	Nodes, Up, OurPods, Foreign, Gangs int
	Jobs                               int
	Reservations, Vertices             int
	// LastMatch is the time the last successful Place spent matching.
	LastMatch time.Duration
}

// Stats summarises the state.
func (c *Cluster) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{Nodes: len(c.nodes), OurPods: len(c.pods), Foreign: len(c.foreign), Gangs: len(c.gangs),
		Jobs: c.fm().Jobs(), Reservations: len(c.resv), Vertices: c.fm().Vertices(), LastMatch: c.lastMatch}
	for _, ns := range c.nodes {
		if ns.up {
			s.Up++
		}
	}
	return s
}

// Free reports the free units of a node (for tests and the README).
func (c *Cluster) Free(node string) (units, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := c.nodes[node]
	if ns == nil {
		return units{}, false
	}
	f := ns.cap()
	for z := range ns.zones {
		f = f.minus(ns.zoneUsed(z))
	}
	return f, true
}

// NodePath reports where a node sits in the graph.
func (c *Cluster) NodePath(node string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := c.nodes[node]
	if ns == nil {
		return "", false
	}
	return ns.path, true
}

const maxPlainR = 128 << 10

// encodeR / decodeR: Rs beyond 128 KiB are stored gzip+base64 (prefix
// "gz:"), keeping the pod's annotations well under their 256 KiB limit.
func encodeR(r string) string {
	if len(r) <= maxPlainR {
		return r
	}
	return "gz:" + gz(r)
}

func decodeR(s string) string {
	if rest, ok := strings.CutPrefix(s, "gz:"); ok {
		if r, err := gunzip(rest); err == nil {
			return r
		}
	}
	return s
}

// lastMatchTook is Stats().LastMatch alone (for benchmarks).
func (c *Cluster) lastMatchTook() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastMatch
}
