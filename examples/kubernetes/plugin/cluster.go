// The Cluster: the plugin's state and its lock, construction, start-up
// recovery (Load) and read-only summaries. Its methods are split by
// concern: nodes.go (the cluster model: nodes → graph vertices),
// pods.go (bookings of pods, ours and others'), place.go (a gang's
// request → a match), gang.go (gangs between placement and binding),
// reservation.go (waiting gangs' reservations), annotations.go (what is
// written on pods).

package plugin

import (
	"slices"
	"sort"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
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

// Cluster is the plugin's view of the cluster: a Matcher over the graph
// of the cluster's nodes, what our pods hold, what pods placed by others
// use, the gangs in flight and the reservations of waiting gangs. It has
// no framework dependency, so it is driven directly by unit tests. All
// methods are safe for concurrent use.
type Cluster struct {
	mu      sync.Mutex
	args    *Args
	chunk   chunks
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

	taints    map[string]*taintRef // by TaintProperty
	taintList []*taintRef          // taints sorted by property; nil: to make
	taintCmp  bool                 // the TaintTolerationComparisonOperators gate

	rejects map[string]*rejection // gang key → what later filters rejected

	// perPodJobs is the reference mode (tests): each placed pod is booked
	// on its own with update, as before gangs were booked by their match.
	perPodJobs bool
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
		args: args, chunk: args.chunks(), gpuRes: v1.ResourceName(args.GPUResource), m: m,
		nodes: map[string]*nodeState{}, sids: map[int64]string{}, hints: map[string]int64{},
		levels: map[string]*levelVertex{}, luniq: map[int64]bool{}, nrt: map[string][]units{},
		pods: map[types.UID]*podState{}, foreign: map[types.UID]*foreignPod{},
		parked: map[string]map[types.UID]*v1.Pod{}, gangs: map[string]*gang{},
		resv: map[string]*reservation{}, waiting: map[string]int64{}, taints: map[string]*taintRef{}, rejects: map[string]*rejection{},
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

// lastMatchTook is Stats().LastMatch alone (for benchmarks).
func (c *Cluster) lastMatchTook() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastMatch
}
