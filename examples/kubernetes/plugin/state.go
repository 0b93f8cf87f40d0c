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
	"github.com/gofluxion/gofluxion/graph"
)

// Pod annotations written at PreBind: the pod's Fluxion job id and its R.
// They are the plugin's only persistent state.
const (
	AnnotationJobID = "gofluxion.io/jobid"
	AnnotationR     = "gofluxion.io/R"
)

// extBase is the first job id of the bookings that stand for pods placed by
// others (volatile, rebuilt from the pods after a restart).
const extBase = uint64(1) << 62

// tempBase is the first job id of the bookings that hold one shape of a
// gang while the next shapes are matched.
const tempBase = uint64(1) << 61

// Cluster is the plugin's view of the cluster: the gofluxion Matcher over
// the graph of the cluster's nodes, what our pods hold, what pods placed by
// others use, and the gangs in flight. It has no framework dependency, so
// it is driven directly by unit tests. All methods are safe for concurrent
// use.
type Cluster struct {
	mu      sync.Mutex
	args    *Args
	chunk   int64
	gpuRes  v1.ResourceName
	m       *gofluxion.Matcher
	nodes   map[string]*nodeState
	sids    map[int64]string
	hints   map[string]int64 // node name → sid seen in an R
	pods    map[types.UID]*podState
	foreign map[types.UID]*foreignPod
	parked  map[string]map[types.UID]*v1.Pod // pods seen before their node
	gangs   map[string]*gang
	nextJob uint64
	nextExt uint64
	nextGID int
	log     klog.Logger
	now     func() time.Time

	lastMatch time.Duration
}

type nodeState struct {
	name     string
	sid      int64
	alloc    raw
	cap      units
	labels   map[string]string
	up       bool
	why      string
	held     map[leaf]types.UID // leaves held by our pods
	extRaw   raw
	extJob   uint64
	extUnits units
}

type podState struct {
	uid    types.UID
	ns     string
	name   string
	node   string
	job    uint64
	r      string
	leaves []leaf
	bound  bool
	gang   *gang
	pod    *v1.Pod
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

// NewCluster creates an empty Cluster for defaulted, validated args.
func NewCluster(args *Args, log klog.Logger) (*Cluster, error) {
	m, err := gofluxion.New(emptyGraph(), args.matcherOptions())
	if err != nil {
		return nil, err
	}
	return &Cluster{
		args: args, chunk: args.memoryChunk(), gpuRes: v1.ResourceName(args.GPUResource), m: m,
		nodes: map[string]*nodeState{}, sids: map[int64]string{}, hints: map[string]int64{},
		pods: map[types.UID]*podState{}, foreign: map[types.UID]*foreignPod{},
		parked: map[string]map[types.UID]*v1.Pod{}, gangs: map[string]*gang{},
		nextJob: 1, nextExt: extBase, log: log, now: time.Now,
	}, nil
}

// emptyGraph is the cluster vertex alone, with the leaf types known so
// that jobspecs naming them parse before the first node arrives.
func emptyGraph() *graph.Graph {
	b := graph.NewBuilder()
	b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithRank(-1))
	g := b.Graph()
	for _, t := range append([]string{"node", "slot"}, leafTypes...) {
		g.Type(t)
	}
	return g
}

// Matcher returns the underlying gofluxion Matcher (for inspection).
func (c *Cluster) Matcher() *gofluxion.Matcher { return c.m }

// Load replaces nothing: it feeds a full listing (start-up) in the order
// that makes recovery exact: the stable ids the Rs recorded, then the
// nodes, then our pods' Rs in job order, then the pods placed by others.
// Informer events for the same objects later are no-ops.
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
	if err != nil || id == 0 || id >= tempBase {
		return 0, "", false
	}
	return id, decodeR(r), true
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

// SetNode adds or updates a node: a new node is attached to the graph;
// a changed capacity or label set re-attaches it (our pods on it are
// booked again from their Rs); a change of schedulability marks it up or
// down.
func (c *Cluster) SetNode(n *v1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.setNodeLocked(n)
}

func (c *Cluster) setNodeLocked(n *v1.Node) {
	alloc := nodeRaw(n, c.gpuRes)
	capu := capacity(alloc, c.chunk)
	labels := maps.Clone(n.Labels)
	ns := c.nodes[n.Name]
	if ns != nil && (ns.cap != capu || !maps.Equal(ns.labels, labels)) {
		c.log.V(2).Info("node changed, re-attaching", "node", n.Name, "capacity", capu)
		c.detachLocked(ns, true)
		ns = nil
	}
	if ns == nil {
		sid := c.pickSID(n.Name)
		ns = &nodeState{name: n.Name, sid: sid, alloc: alloc, cap: capu, labels: labels, held: map[leaf]types.UID{}}
		if err := c.m.Attach(nodeJGF(n.Name, sid, capu, labels)); err != nil {
			c.log.Error(err, "attach failed", "node", n.Name)
			return
		}
		c.nodes[n.Name], c.sids[sid] = ns, n.Name
		ns.up = false
		c.log.V(2).Info("node attached", "node", n.Name, "sid", sid, "capacity", capu)
		for _, p := range c.parked[n.Name] {
			c.setPodLocked(p)
		}
		delete(c.parked, n.Name)
	}
	ns.alloc = alloc
	up, why := schedulable(n)
	if up != ns.up {
		if err := c.m.SetStatus(nodePath(n.Name), up); err != nil {
			c.log.Error(err, "set status failed", "node", n.Name)
		}
		ns.up = up
		c.log.V(2).Info("node status", "node", n.Name, "up", up, "why", why)
	}
	ns.why = why
	c.rebookExtLocked(ns)
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

// DeleteNode removes a node from the graph.
func (c *Cluster) DeleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ns := c.nodes[name]; ns != nil {
		c.detachLocked(ns, false)
	}
}

// detachLocked cancels every booking on the node and removes it. Our
// bound pods and the others' pods on it are parked: they are booked again
// if the node comes back (keep = a re-attach, which does that at once).
func (c *Cluster) detachLocked(ns *nodeState, keep bool) {
	c.cancelExtLocked(ns)
	park := map[types.UID]*v1.Pod{}
	for uid, ps := range c.pods {
		if ps.node != ns.name {
			continue
		}
		if ps.bound && ps.pod != nil {
			park[uid] = ps.pod
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
	if ns.up {
		_ = c.m.SetStatus(nodePath(ns.name), false)
	}
	if err := c.m.Remove(nodePath(ns.name)); err != nil {
		c.log.Error(err, "remove failed", "node", ns.name)
	}
	delete(c.nodes, ns.name)
	delete(c.sids, ns.sid)
	if keep {
		c.hints[ns.name] = ns.sid
	}
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
	req := podRaw(p, c.gpuRes)
	if f := c.foreign[p.UID]; f != nil {
		if f.node == node && f.req == req {
			f.pod = p
			return
		}
		c.nodes[f.node].extRaw = c.nodes[f.node].extRaw.sub(f.req)
	}
	c.foreign[p.UID] = &foreignPod{node: node, req: req, pod: p}
	ns.extRaw = ns.extRaw.add(req)
	c.rebookExtLocked(ns)
}

// replayLocked books an R made earlier (by us, or by the leader) as its
// job: Fluxion's update.
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
	c.cancelExtLocked(ns)
	defer c.rebookExtLocked(ns)
	if _, err := c.m.Update(job, []byte(r)); err != nil {
		return err
	}
	ps := &podState{uid: p.UID, ns: p.Namespace, name: p.Name, node: ns.name, job: job, r: r, leaves: s.Leaves, bound: true, pod: p}
	c.pods[p.UID] = ps
	for _, l := range s.Leaves {
		ns.held[l] = p.UID
	}
	c.nextJob = max(c.nextJob, job+1)
	delete(c.foreign, p.UID)
	c.log.V(3).Info("replayed R", "pod", klog.KObj(p), "job", job, "node", ns.name)
	return nil
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
		return nil
	}
	ps := c.pods[uid]
	if ps == nil {
		return nil
	}
	if ps.gang != nil && !ps.gang.allowed {
		return c.cancelGangLocked(ps.gang)
	}
	c.dropPodLocked(ps)
	return nil
}

// dropPodLocked cancels one pod's job.
func (c *Cluster) dropPodLocked(ps *podState) {
	if err := c.m.Cancel(ps.job); err != nil {
		c.log.Error(err, "cancel failed", "job", ps.job)
	}
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
		if err := c.m.Cancel(ns.extJob); err != nil {
			c.log.Error(err, "cancel failed", "job", ns.extJob)
		}
		ns.extJob, ns.extUnits = 0, units{}
	}
}

// rebookExtLocked books, as one job, as many free leaves of the node as
// the requests of pods placed by others use (the highest ids, away from
// where the policy places ours).
func (c *Cluster) rebookExtLocked(ns *nodeState) {
	need := used(ns.alloc, ns.extRaw, c.chunk)
	if ns.extJob != 0 && need == ns.extUnits {
		return
	}
	c.cancelExtLocked(ns)
	if need == (units{}) {
		return
	}
	var leaves []leaf
	var got units
	for _, t := range leafTypes {
		k := need.get(t)
		for i := ns.cap.get(t) - 1; i >= 0 && k > 0; i-- {
			l := leaf{t, i}
			if _, held := ns.held[l]; held {
				continue
			}
			leaves = append(leaves, l)
			k--
			switch t {
			case "core":
				got.Core++
			case "gpu":
				got.GPU++
			default:
				got.Mem++
			}
		}
	}
	if got != need {
		c.log.Info("pods placed by others use more than is free on the node", "node", ns.name, "need", need, "free", got)
	}
	if len(leaves) == 0 {
		return
	}
	id := c.nextExt
	c.nextExt++
	if _, err := c.m.Update(id, bookJGF(ns.name, ns.sid, leaves)); err != nil {
		c.log.Error(err, "booking the usage of others failed", "node", ns.name)
		return
	}
	ns.extJob, ns.extUnits = id, need
}

// PlaceError is a gang that cannot be placed now.
type PlaceError struct {
	// Reason is gofluxion's explanation, e.g. "needs 5 node (with 2 core,
	// 1 gpu each): 4 found now, only 4 exist".
	Reason string
	// Unresolvable: the gang can never fit this cluster (capacity), as
	// opposed to not fitting now (busy).
	Unresolvable bool
	Err          error
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

// Jobspec is the canonical jobspec (JSON) of one shape of a gang:
// node[N] → slot[1] → {core, gpu, memory}, so its N pods land on N
// distinct nodes; hosts, when not nil, restricts the nodes.
func Jobspec(s Shape, hosts []string) []byte {
	type res struct {
		Type  string `json:"type"`
		Count int64  `json:"count"`
		Label string `json:"label,omitempty"`
		With  []res  `json:"with,omitempty"`
	}
	var with []res
	for _, t := range leafTypes {
		if n := s.Demand.get(t); n > 0 {
			with = append(with, res{Type: t, Count: n})
		}
	}
	resources := []res{{Type: "node", Count: int64(len(s.Pods)), With: []res{{Type: "slot", Count: 1, Label: "pod", With: with}}}}
	tasks := []map[string]any{{"command": []string{"pod"}, "slot": "pod", "count": map[string]string{"per_slot": "1"}}}
	sys := map[string]any{"duration": 0}
	if hosts != nil {
		sys["constraints"] = map[string]any{"hostlist": hosts}
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "resources": resources, "tasks": tasks, "attributes": map[string]any{"system": sys}})
	return b
}

// Placement is where Place put a gang.
type Placement struct {
	GangID string
	Nodes  map[types.UID]string
	// Took is the time of the gang's matches (Fluxion's part).
	Took time.Duration
}

// Place matches pods as one gang, all or nothing. A gang of one shape (all
// pods request the same) is one jobspec, node[N] → slot[1] → {…}, matched
// once. Fluxion refuses sibling requests of the same type ("siblings in
// jobspec request same resource type"), so a gang of several shapes is one
// jobspec per shape, matched back to back (scarcest shape first) under the
// same lock, each booked until the last fits, and all released if one does
// not. Then every pod gets its own job, booked with update from its part
// of the selection, and is pinned to its node until it binds or the gang
// is canceled. hosts, when not nil, are the only nodes the gang may use.
func (c *Cluster) Place(key string, pods []*v1.Pod, hosts []string) (*Placement, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	shapes := c.shapes(pods)
	type picked struct {
		parts [][]byte
		sums  []rSummary
	}
	var got []picked
	var temps []uint64
	release := func() {
		for _, id := range temps {
			_ = c.m.Cancel(id)
		}
		temps = nil
	}
	start := time.Now()
	for i, s := range shapes {
		js, err := c.m.ParseJobspec(Jobspec(s, hosts))
		if err != nil {
			release()
			return nil, &PlaceError{Reason: "bad jobspec: " + err.Error(), Unresolvable: true, Err: err}
		}
		var a *gofluxion.Allocation
		if len(shapes) == 1 {
			a, err = c.m.Match(gofluxion.WithoutAllocating, js, 0)
		} else {
			a, err = c.m.MatchWithID(gofluxion.Allocate, js, tempBase+uint64(i), 0)
			if err == nil {
				temps = append(temps, tempBase+uint64(i))
			}
		}
		if err != nil {
			pe := &PlaceError{Reason: err.Error(), Err: err, Unresolvable: errors.Is(err, gofluxion.ErrUnsatisfiable)}
			if exp, xerr := c.m.Explain(js, 0); xerr == nil {
				if r := exp.Reason(); r != "" {
					pe.Reason = r
				}
				pe.Unresolvable = pe.Unresolvable || !exp.Satisfiable
			}
			if len(shapes) > 1 {
				pe.Reason = fmt.Sprintf("shape %d of %d (%d pods with %v): %s", i+1, len(shapes), len(s.Pods), s.Demand, pe.Reason)
			}
			release()
			return nil, pe
		}
		all, err := a.Render("jgf")
		if err != nil {
			release()
			return nil, err
		}
		parts, sums, err := splitShape([]byte(all), s.Demand, len(s.Pods))
		if err != nil {
			release()
			return nil, err
		}
		got = append(got, picked{parts, sums})
	}
	took := time.Since(start)
	c.lastMatch = took
	release()
	c.nextGID++
	g := &gang{id: key + "#" + strconv.Itoa(c.nextGID), key: key, permitted: sets.New[types.UID](), created: c.now()}
	pl := &Placement{GangID: g.id, Nodes: map[types.UID]string{}, Took: took}
	var done []*podState
	for si, s := range shapes {
		for i, p := range s.Pods {
			job := c.nextJob
			ua, err := c.m.Update(job, got[si].parts[i])
			if err == nil {
				var r string
				if r, err = ua.Render(c.args.RFormat); err == nil {
					c.nextJob++
					sum := got[si].sums[i]
					ps := &podState{uid: p.UID, ns: p.Namespace, name: p.Name, node: sum.Node, job: job, r: r, leaves: sum.Leaves, gang: g, pod: p}
					c.pods[p.UID] = ps
					ns := c.nodes[ps.node]
					for _, l := range ps.leaves {
						ns.held[l] = p.UID
					}
					g.members = append(g.members, p.UID)
					pl.Nodes[p.UID] = ps.node
					done = append(done, ps)
					continue
				}
			}
			for _, ps := range done {
				c.dropPodLocked(ps)
			}
			return nil, fmt.Errorf("booking pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	c.gangs[g.id] = g
	return pl, nil
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
	if ps.gang != nil && !ps.gang.allowed {
		return c.cancelGangLocked(ps.gang)
	}
	c.dropPodLocked(ps)
	return nil
}

func (c *Cluster) cancelGangLocked(g *gang) []types.UID {
	var others []types.UID
	for _, uid := range slices.Clone(g.members) {
		if ps := c.pods[uid]; ps != nil && !ps.bound {
			others = append(others, uid)
			c.dropPodLocked(ps)
		}
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
	for _, g := range c.gangs {
		if !g.allowed && c.now().Sub(g.created) > age {
			out = append(out, c.cancelGangLocked(g)...)
		}
	}
	return out
}

// Annotations returns what PreBind writes on a placed pod.
func (c *Cluster) Annotations(uid types.UID) (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.pods[uid]
	if ps == nil {
		return nil, fmt.Errorf("pod %s has no allocation", uid)
	}
	return map[string]string{AnnotationJobID: strconv.FormatUint(ps.job, 10), AnnotationR: encodeR(ps.r)}, nil
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

// GroupCounts reports, for a gang key, how many live pods we hold bound
// and how many are placed and on their way.
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
	// LastMatch is the time the last successful Place spent matching.
	LastMatch time.Duration
}

// Stats summarises the state.
func (c *Cluster) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := Stats{Nodes: len(c.nodes), OurPods: len(c.pods), Foreign: len(c.foreign), Gangs: len(c.gangs), Jobs: c.m.Stat().Jobs, LastMatch: c.lastMatch}
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
	f := ns.cap
	for l := range ns.held {
		switch l.Type {
		case "core":
			f.Core--
		case "gpu":
			f.GPU--
		default:
			f.Mem--
		}
	}
	f.Core -= ns.extUnits.Core
	f.GPU -= ns.extUnits.GPU
	f.Mem -= ns.extUnits.Mem
	return f, true
}

// encodeR / decodeR: Rs beyond 128 KiB are stored gzip+base64 (prefix
// "gz:"), keeping the pod's annotations well under their 256 KiB limit.
func encodeR(r string) string {
	if len(r) <= 128<<10 {
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
