package plugin

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/klog/v2"

	"github.com/gofluxion/gofluxion"
)

const (
	zoneLabel = "topology.kubernetes.io/zone"
	rackLabel = "topology.gofluxion.io/rack"
)

// zoneRack is the topology of most tests here: zone, then rack.
func zoneRack(a *Args) {
	a.Topology = &Topology{Levels: []Level{{Type: "zone", Label: zoneLabel}, {Type: "rack", Label: rackLabel}}}
}

// lnode is a node in a zone and a rack ("" leaves the label out).
func lnode(name, zone, rack string, cores, gib, gpus int64) *v1.Node {
	n := node(name, cores, gib, gpus)
	if zone != "" {
		n.Labels[zoneLabel] = zone
	}
	if rack != "" {
		n.Labels[rackLabel] = rack
	}
	return n
}

// clock is a settable time for the Cluster.
type clock struct{ t time.Time }

func (c *clock) now() time.Time             { return c.t }
func (c *clock) advance(d time.Duration)    { c.t = c.t.Add(d) }
func withClock(c *Cluster, k *clock) *clock { c.now = k.now; return k }

func newClock() *clock { return &clock{time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC)} }

func TestArgsTopology(t *testing.T) {
	lv := func(levels ...Level) *Topology { return &Topology{Levels: levels} }
	for _, tc := range []struct {
		args Args
		bad  string
	}{
		{Args{Topology: lv()}, ""},
		{Args{Topology: lv(Level{"zone", zoneLabel}, Level{"block", "cloud.google.com/gce-topology-block"}, Level{"rack", rackLabel})}, ""},
		{Args{Topology: lv(Level{"Rack", rackLabel})}, "topology.levels[0].type"},
		{Args{Topology: lv(Level{"node", rackLabel})}, "the graph uses this type itself"},
		{Args{Topology: lv(Level{"numa", rackLabel})}, "the graph uses this type itself"},
		{Args{Topology: lv(Level{"", rackLabel})}, "topology.levels[0].type: Required"},
		{Args{Topology: lv(Level{"rack", ""})}, "topology.levels[0].label: Required"},
		{Args{Topology: lv(Level{"rack", "not a label"})}, "topology.levels[0].label"},
		{Args{Topology: lv(Level{"rack", rackLabel}, Level{"rack", zoneLabel})}, "topology.levels[1].type: Duplicate"},
		{Args{Topology: lv(Level{"zone", rackLabel}, Level{"rack", rackLabel})}, "topology.levels[1].label: Duplicate"},
		{Args{Topology: lv(slices.Repeat([]Level{{"a", "a"}}, 9)...)}, "must have at most 8"},
		{Args{NUMA: "hwloc"}, "args.numa"},
		{Args{DefaultWalltimeSeconds: -1}, "defaultWalltimeSeconds"},
		{Args{ReservationDepth: -2}, "reservationDepth"},
		{Args{ReservationDepth: -1}, ""},
	} {
		a := tc.args
		a.SetDefaults()
		err := a.Validate()
		if (err != nil) != (tc.bad != "") || (err != nil && !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("%+v: %v", tc.args.Topology, err)
		}
	}
	// the example, as YAML in a KubeSchedulerConfiguration
	raw := "topology:\n  levels:\n  - {type: zone, label: topology.kubernetes.io/zone}\n  - {type: block, label: cloud.google.com/gce-topology-block}\n  - {type: rack, label: topology.gofluxion.io/rack}\n"
	a, err := DecodeArgs(&runtime.Unknown{Raw: []byte(raw), ContentType: runtime.ContentTypeYAML})
	if err != nil || len(a.Topology.Levels) != 3 || a.Topology.Levels[1].Type != "block" {
		t.Fatalf("%+v %v", a, err)
	}
	if _, err := DecodeArgs(&runtime.Unknown{Raw: []byte("topology:\n  levels:\n  - {type: node, label: x}\n"), ContentType: runtime.ContentTypeYAML}); err == nil ||
		!strings.Contains(err.Error(), `args.topology.levels[0].type: Invalid value: "node"`) {
		t.Errorf("a bad level list is not a clear error: %v", err)
	}
	// the default: zone from topology.kubernetes.io/zone
	d, _ := DecodeArgs(nil)
	if len(d.Topology.Levels) != 1 || d.Topology.Levels[0] != (Level{"zone", zoneLabel}) {
		t.Errorf("default levels %+v", d.Topology.Levels)
	}
}

func TestGraphFromLabels(t *testing.T) {
	c := newCluster(t, zoneRack)
	base := c.Stats().Vertices
	addNodes(c, lnode("a", "z1", "r1", 2, 1, 0), lnode("b", "z1", "", 2, 1, 0), lnode("c", "", "r9", 2, 1, 0))
	for n, want := range map[string]string{
		"a": "/cluster0/z1/r1/a",
		"b": "/cluster0/z1/(unlabelled)/b",
		"c": "/cluster0/(unlabelled)/r9/c",
	} {
		if got, _ := c.NodePath(n); got != want {
			t.Errorf("%s: path %s, want %s", n, got, want)
		}
	}
	// 3 nodes × (node, numa0, 2 cores, 1 memory) + z1, r1, (unlabelled) under z1, (unlabelled), r9
	if got := c.Stats().Vertices - base; got != 3*5+5 {
		t.Errorf("%d vertices", got)
	}
	// the level vertices go with their last node
	for _, n := range []string{"a", "b", "c"} {
		c.DeleteNode(n)
	}
	if got := c.Stats().Vertices; got != base {
		t.Errorf("%d vertices left, want %d", got, base)
	}
	// a rack-required gang never uses unlabelled nodes
	addNodes(c, lnode("u1", "z1", "", 2, 1, 0), lnode("u2", "z1", "", 2, 1, 0))
	_, err := c.Place("default/g", withLabel(gangPods("g", 2, 1000, 0, 0), KeyRequired, "rack"), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Unresolvable || !strings.Contains(pe.Reason, "needs 1 rack (with 2 node, 1 core each): 0 found now") {
		t.Errorf("unlabelled nodes used as a rack: %v", err)
	}
}

func withLabel(pods []*v1.Pod, key, val string) []*v1.Pod {
	for _, p := range pods {
		p.Labels[key] = val
	}
	return pods
}

func withDeadline(pods []*v1.Pod, secs int64) []*v1.Pod {
	for _, p := range pods {
		p.Spec.ActiveDeadlineSeconds = &secs
	}
	return pods
}

// Label changes move a node; its running pods keep job ids and leaves.
func TestLabelMoveKeepsBookings(t *testing.T) {
	c := newCluster(t, zoneRack)
	addNodes(c, lnode("a", "z1", "r1", 4, 4, 1), lnode("b", "z1", "r1", 4, 4, 1))
	one := []*v1.Pod{pod("one", "", 0, 3000, 1024, 1)}
	pl, err := c.Place("default/one", one, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	bound := bindAll(t, c, pl, one)
	before, _ := c.Free("a")
	ann, _ := c.Annotations(one[0].UID)
	c.SetNode(lnode("a", "z2", "r7", 4, 4, 1))
	if p, _ := c.NodePath("a"); p != "/cluster0/z2/r7/a" {
		t.Fatalf("not moved: %s", p)
	}
	after, _ := c.Free("a")
	ann2, _ := c.Annotations(one[0].UID)
	if before != after || after != (units{Core: 1, Mem: 3}) || ann2[AnnotationJobID] != ann[AnnotationJobID] {
		t.Errorf("bookings changed: free %v → %v, job %s → %s", before, after, ann[AnnotationJobID], ann2[AnnotationJobID])
	}
	if !strings.Contains(ann2[AnnotationR], "/cluster0/z2/r7/a/numa0/core0") {
		t.Errorf("R not at the new path: %s", ann2[AnnotationR])
	}
	// and a restart from the old R (old path) books the same leaves
	r := newCluster(t, zoneRack)
	r.Load([]*v1.Node{lnode("a", "z2", "r7", 4, 4, 1)}, bound)
	if f, _ := r.Free("a"); f != after {
		t.Errorf("after a restart: free %v, want %v", f, after)
	}
	c.DeletePod(bound[0].UID)
	if f, _ := c.Free("a"); f != (units{Core: 4, GPU: 1, Mem: 4}) {
		t.Errorf("after delete: %v", f)
	}
}

func nrtObject(name string, zones ...[3]string) *unstructured.Unstructured {
	var zs []any
	for i, z := range zones {
		zs = append(zs, map[string]any{
			"name": fmt.Sprintf("node-%d", i), "type": "Node",
			"resources": []any{
				map[string]any{"name": "cpu", "capacity": z[0], "allocatable": z[0], "available": z[0]},
				map[string]any{"name": "memory", "capacity": z[1], "allocatable": z[1], "available": z[1]},
				map[string]any{"name": "nvidia.com/gpu", "capacity": z[2], "allocatable": z[2], "available": z[2]},
			},
		})
	}
	// a zone that is not a NUMA node is ignored
	zs = append(zs, map[string]any{"name": "core-0", "type": "Core"})
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "topology.node.k8s.io/v1alpha2", "kind": "NodeResourceTopology",
		"metadata": map[string]any{"name": name}, "zones": zs,
	}}
}

func TestZonesFromNRT(t *testing.T) {
	u := nrtObject("a", [3]string{"8", "16Gi", "1"}, [3]string{"7500m", "16Gi", "0"})
	zs, err := ZonesFromNRT(u, gpuName, 1<<30)
	if err != nil || !slices.Equal(zs, []units{{8, 1, 16}, {7, 0, 16}}) {
		t.Fatalf("%v %v", zs, err)
	}
	// natural order of zone names
	u.Object["zones"] = []any{
		map[string]any{"name": "node-10", "type": "Node", "resources": []any{map[string]any{"name": "cpu", "allocatable": "10"}}},
		map[string]any{"name": "node-2", "type": "Node", "resources": []any{map[string]any{"name": "cpu", "allocatable": "2"}}},
	}
	if zs, _ := ZonesFromNRT(u, gpuName, 1<<30); !slices.Equal(zs, []units{{Core: 2}, {Core: 10}}) {
		t.Errorf("order %v", zs)
	}
	for _, bad := range []struct {
		zones any
		msg   string
	}{
		{[]any{"x"}, "zones[0] is not an object"},
		{[]any{map[string]any{"type": "Node"}}, "zones[0] has no name"},
		{[]any{map[string]any{"name": "n0", "type": "Node", "resources": []any{map[string]any{"name": "cpu", "allocatable": "lots"}}}}, "zones[0] (n0).resources[0] (cpu).allocatable"},
		{[]any{map[string]any{"name": "n0", "type": "Node", "resources": []any{map[string]any{"name": "cpu"}}}}, "allocatable: missing"},
	} {
		u.Object["zones"] = bad.zones
		if _, err := ZonesFromNRT(u, gpuName, 1<<30); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%v: %v", bad.zones, err)
		}
	}
	// zones are trimmed, last first, to what the node offers
	if got := fitZones(units{10, 1, 20}, []units{{8, 1, 16}, {8, 1, 16}}); !slices.Equal(got, []units{{8, 1, 16}, {2, 0, 4}}) {
		t.Errorf("fit %v", got)
	}
	if got := fitZones(units{10, 1, 20}, nil); !slices.Equal(got, []units{{10, 1, 20}}) {
		t.Errorf("no zones: %v", got)
	}
}

func TestNUMASingle(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("flat", 16, 32, 2), node("numa", 16, 32, 2))
	zs, err := ZonesFromNRT(nrtObject("numa", [3]string{"8", "16Gi", "1"}, [3]string{"8", "16Gi", "1"}), gpuName, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	c.SetNUMA("numa", zs)
	if p, _ := c.NodePath("numa"); p != "/cluster0/(unlabelled)/numa" {
		t.Fatal(p)
	}
	// numa: single only uses nodes with zones, and each pod within one
	pods := withLabel(gangPods("s", 2, 6000, 4096, 1), KeyNUMA, "single")
	withLabel(pods, KeyPodsPerNode, "any")
	pl, err := c.Place("default/s", pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	bindAll(t, c, pl, pods)
	zonesUsed := sets.New[string]()
	for _, p := range pods {
		if pl.Nodes[p.UID] != "numa" {
			t.Fatalf("%s on %s", p.Name, pl.Nodes[p.UID])
		}
		ann, _ := c.Annotations(p.UID)
		var z []string
		for _, zn := range []string{"numa0", "numa1"} {
			if strings.Contains(ann[AnnotationR], "/numa/"+zn+"/") {
				z = append(z, zn)
			}
		}
		if len(z) != 1 {
			t.Fatalf("%s spans zones %v", p.Name, z)
		}
		zonesUsed.Insert(z[0])
	}
	if zonesUsed.Len() != 2 {
		t.Errorf("two 6-core pods in one 8-core zone: %v", zonesUsed)
	}
	// a pod bigger than any zone can never be numa: single
	_, err = c.Place("default/big", withLabel([]*v1.Pod{pod("big", "", 0, 10000, 0, 0)}, KeyNUMA, "single"), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Unresolvable {
		t.Errorf("10 cores in an 8-core zone: %v", err)
	}
	// without numa: single it goes to a node without zones; on a node with
	// zones every pod stays within one zone (as the kubelet's
	// single-numa-node policy would)
	pl, err = c.Place("default/flat", []*v1.Pod{pod("flat", "", 0, 10000, 0, 0)}, nil)
	if err != nil || pl.Nodes["uid-flat"] != "flat" {
		t.Errorf("10 cores: %v %v", pl, err)
	}
	// no NRT anywhere: numa: single never fits
	c2 := newCluster(t)
	addNodes(c2, node("flat", 16, 32, 2))
	if _, err := c2.Place("default/s", withLabel([]*v1.Pod{pod("s", "", 0, 1000, 0, 0)}, KeyNUMA, "single"), nil); !errors.As(err, &pe) || !pe.Unresolvable {
		t.Errorf("numa: single without NRT: %v", err)
	}
	// zones going away put the node back to one zone, bookings kept
	free, _ := c.Free("numa")
	c.SetNUMA("numa", nil)
	if f, _ := c.Free("numa"); f != free {
		t.Errorf("free %v → %v", free, f)
	}
}

func TestRequestParsing(t *testing.T) {
	a := &Args{}
	zoneRack(a)
	a.SetDefaults()
	for _, tc := range []struct {
		labels map[string]string
		want   Request
		bad    string
	}{
		{nil, Request{}, ""},
		{map[string]string{KeyRequired: "rack"}, Request{Required: "rack"}, ""},
		{map[string]string{KeyPreferred: "zone", KeyNUMA: "single", KeyPodsPerNode: "any"}, Request{Preferred: "zone", NUMA: true, Pack: true}, ""},
		{map[string]string{KeyRequired: "rak"}, Request{}, `gofluxion.io/topology-required: unknown level "rak" (levels: zone, rack)`},
		{map[string]string{KeyPreferred: "node"}, Request{}, `unknown level "node"`},
		{map[string]string{KeyNUMA: "double"}, Request{}, `gofluxion.io/numa: unknown value "double" (want single)`},
		{map[string]string{KeyPodsPerNode: "2"}, Request{}, `unknown value "2" (want 1 or any)`},
		{map[string]string{KeyRequired: "rack", KeyPreferred: "zone"}, Request{}, "both"},
	} {
		p := pod("p", "", 0, 1000, 0, 0)
		for k, v := range tc.labels {
			p.Labels[k] = v
		}
		got, err := a.parseRequest([]*v1.Pod{p})
		var re *RequestError
		if (err != nil) != (tc.bad != "") || (err != nil && (!errors.As(err, &re) || !strings.Contains(err.Error(), tc.bad))) || (err == nil && got != tc.want) {
			t.Errorf("%v: %+v %v", tc.labels, got, err)
		}
	}
	// members must agree; an annotation wins over a label
	p1, p2 := pod("p1", "", 0, 1000, 0, 0), pod("p2", "", 0, 1000, 0, 0)
	p1.Labels[KeyRequired] = "rack"
	if _, err := a.parseRequest([]*v1.Pod{p1, p2}); err == nil || !strings.Contains(err.Error(), "ask for different topologies") {
		t.Errorf("disagreeing members: %v", err)
	}
	p2.Annotations = map[string]string{KeyRequired: "rack"}
	if _, err := a.parseRequest([]*v1.Pod{p1, p2}); err != nil {
		t.Error(err)
	}
	// durations
	d30 := int64(30)
	for _, tc := range []struct {
		deadline *int64
		wall     string
		def      int64
		want     int64
		bad      bool
	}{
		{&d30, "2h", 5, 30, false},
		{nil, "90m", 5, 5400, false},
		{nil, "3600", 5, 3600, false},
		{nil, "1.5s", 0, 2, false},
		{nil, "", 5, 5, false},
		{nil, "", 0, 0, false},
		{nil, "soon", 0, 0, true},
		{nil, "-4", 0, 0, true},
	} {
		p := pod("p", "", 0, 1000, 0, 0)
		p.Spec.ActiveDeadlineSeconds = tc.deadline
		if tc.wall != "" {
			p.Annotations = map[string]string{KeyWalltime: tc.wall}
		}
		a.DefaultWalltimeSeconds = tc.def
		got, err := a.podDuration(p)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("%v %q %d: %d %v", tc.deadline, tc.wall, tc.def, got, err)
		}
	}
}

// The documented mapping of requests to jobspecs (README), exactly.
func TestJobspecMapping(t *testing.T) {
	d := units{Core: 8, GPU: 1, Mem: 16}
	for _, tc := range []struct {
		f    Form
		want string
	}{
		{Form{}, `{"attributes":{"system":{"duration":0}},"resources":[{"type":"node","count":4,"with":[{"type":"numa","count":1,"with":[{"type":"slot","count":1,"label":"pod","with":[{"type":"core","count":8},{"type":"gpu","count":1},{"type":"memory","count":16}]}]}]}],"tasks":[{"command":["pod"],"count":{"per_slot":"1"},"slot":"pod"}],"version":1}`},
		{Form{Top: "rack", Duration: 3600}, `{"attributes":{"system":{"duration":3600}},"resources":[{"type":"rack","count":1,"with":[{"type":"node","count":4,"with":[{"type":"numa","count":1,"with":[{"type":"slot","count":1,"label":"pod","with":[{"type":"core","count":8},{"type":"gpu","count":1},{"type":"memory","count":16}]}]}]}]}],"tasks":[{"command":["pod"],"count":{"per_slot":"1"},"slot":"pod"}],"version":1}`},
		{Form{Pack: true, Hosts: []string{"n1", "n2"}}, `{"attributes":{"system":{"constraints":{"hostlist":["n1","n2"]},"duration":0}},"resources":[{"type":"slot","count":4,"label":"pod","with":[{"type":"core","count":8},{"type":"gpu","count":1},{"type":"memory","count":16}]}],"tasks":[{"command":["pod"],"count":{"per_slot":"1"},"slot":"pod"}],"version":1}`},
		{Form{NUMA: true, Hosts: []string{"n1"}}, `{"attributes":{"system":{"constraints":{"and":[{"hostlist":["n1"]},{"properties":["gofluxion.io/nrt"]}]},"duration":0}},"resources":[{"type":"node","count":4,"with":[{"type":"numa","count":1,"with":[{"type":"slot","count":1,"label":"pod","with":[{"type":"core","count":8},{"type":"gpu","count":1},{"type":"memory","count":16}]}]}]}],"tasks":[{"command":["pod"],"count":{"per_slot":"1"},"slot":"pod"}],"version":1}`},
	} {
		if got := string(tc.f.Jobspec(d, 4)); got != tc.want {
			t.Errorf("%+v:\n got %s\nwant %s", tc.f, got, tc.want)
		}
	}
}

// racks for the topology tests: zone z1 has rack r1 with 3 free nodes;
// zone z2 has racks r2 and r3 with 2 free nodes each (more in total, fewer
// per rack); everything else is busy.
func rackCluster(t *testing.T) *Cluster {
	c := newCluster(t, zoneRack)
	addNodes(c,
		lnode("r1-a", "z1", "r1", 4, 4, 0), lnode("r1-b", "z1", "r1", 4, 4, 0), lnode("r1-c", "z1", "r1", 4, 4, 0),
		lnode("r2-a", "z2", "r2", 4, 4, 0), lnode("r2-b", "z2", "r2", 4, 4, 0),
		lnode("r3-a", "z2", "r3", 4, 4, 0), lnode("r3-b", "z2", "r3", 4, 4, 0),
		lnode("r4-a", "z2", "r4", 4, 4, 0))
	busy := pod("busy", "", 0, 4000, 0, 0)
	busy.Spec.NodeName = "r4-a"
	c.SetPod(busy)
	return c
}

func nodesOf(pl *Placement) []string {
	s := sets.List(distinct(pl))
	return s
}

func TestTopologyRequired(t *testing.T) {
	c := rackCluster(t)
	pods := withLabel(gangPods("g", 3, 2000, 0, 0), KeyRequired, "rack")
	pl, err := c.Place("default/g", pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := nodesOf(pl); !slices.Equal(got, []string{"r1-a", "r1-b", "r1-c"}) || pl.Scope != "rack r1" {
		t.Errorf("placed on %v (%s)", got, pl.Scope)
	}
	// 4 pods: no rack has 4 nodes: never
	_, err = c.Place("default/h", withLabel(gangPods("h", 4, 1000, 0, 0), KeyRequired, "rack"), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Unresolvable || !strings.Contains(pe.Reason, "needs 1 rack") {
		t.Errorf("4 pods in a rack: %v", err)
	}
	// zone-required (not the lowest level): through the hosts of each zone
	pl, err = c.Place("default/z", withLabel(gangPods("z", 4, 1000, 0, 0), KeyRequired, "zone"), nil)
	if err != nil || !slices.Equal(nodesOf(pl), []string{"r2-a", "r2-b", "r3-a", "r3-b"}) || pl.Scope != "zone z2" {
		t.Errorf("zone-required: %v %v", pl, err)
	}
	// packed, rack-required: 6 pods of 2 cores in r2 (2 nodes × 2 pods) cannot; in a rack with room, yes
	c2 := rackCluster(t)
	pl, err = c2.Place("default/p", withLabel(withLabel(gangPods("p", 6, 2000, 0, 0), KeyRequired, "rack"), KeyPodsPerNode, "any"), nil)
	if err != nil || !slices.Equal(nodesOf(pl), []string{"r1-a", "r1-b", "r1-c"}) {
		t.Errorf("packed rack-required: %v %v", pl, err)
	}
}

func TestTopologyPreferred(t *testing.T) {
	c := rackCluster(t)
	// 4 pods: no rack fits, zone z2 does
	pl, err := c.Place("default/g", withLabel(gangPods("g", 4, 2000, 0, 0), KeyPreferred, "rack"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := nodesOf(pl); !slices.Equal(got, []string{"r2-a", "r2-b", "r3-a", "r3-b"}) || pl.Scope != "zone z2" {
		t.Errorf("placed on %v (%s)", got, pl.Scope)
	}
	// 3 more: rack r1
	pl, err = c.Place("default/h", withLabel(gangPods("h", 3, 2000, 0, 0), KeyPreferred, "rack"), nil)
	if err != nil || pl.Scope != "rack r1" {
		t.Errorf("rack r1: %v %v", pl, err)
	}
	// 5: no rack, no zone: anywhere
	c1 := rackCluster(t)
	pl, err = c1.Place("default/a", withLabel(gangPods("a", 5, 2000, 0, 0), KeyPreferred, "rack"), nil)
	if err != nil || pl.Scope != "" || len(pl.Nodes) != 5 {
		t.Errorf("anywhere: %v %v", pl, err)
	}
	// 2 pods preferring a rack get one
	c2 := rackCluster(t)
	pl, err = c2.Place("default/k", withLabel(gangPods("k", 2, 2000, 0, 0), KeyPreferred, "rack"), nil)
	if err != nil || !strings.HasPrefix(pl.Scope, "rack r") {
		t.Errorf("preferred rack: %v %v", pl, err)
	}
}

func TestPacking(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 8, 8, 0), node("b", 8, 8, 0))
	if _, err := c.Place("default/s", gangPods("s", 6, 2000, 0, 0), nil); err == nil {
		t.Fatal("6 spread pods on 2 nodes")
	}
	pods := withLabel(gangPods("p", 6, 2000, 0, 0), KeyPodsPerNode, "any")
	pl, err := c.Place("default/p", pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, n := range pl.Nodes {
		per[n]++
	}
	if per["a"]+per["b"] != 6 || per["a"] > 4 || per["b"] > 4 {
		t.Errorf("packed %v", per)
	}
	fa, _ := c.Free("a")
	fb, _ := c.Free("b")
	if fa.Core+fb.Core != 4 {
		t.Errorf("free %v %v", fa, fb)
	}
}

// EASY backfill: the first waiting gang holds a reservation; pods that end
// before it starts use its resources, others do not; the reservation
// moves earlier when work ends early; a later gang gets none.
func TestReservation(t *testing.T) {
	c := newCluster(t)
	k := withClock(c, newClock())
	for i := range 4 {
		addNodes(c, node(fmt.Sprintf("n%d", i), 4, 4, 0))
	}
	// running: 4 one-node pods for 10 minutes
	var running []*v1.Pod
	for i := range 4 {
		p := withDeadline([]*v1.Pod{pod(fmt.Sprintf("run-%d", i), "", 0, 4000, 0, 0)}, 600)
		pl, err := c.Place("default/"+p[0].Name, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		running = append(running, bindAll(t, c, pl, p)...)
	}
	k.advance(time.Minute)
	big := withDeadline(gangPods("big", 4, 4000, 0, 0), 3600)
	_, err := c.Place("default/big", big, nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Reserved || pe.Unresolvable {
		t.Fatalf("big: %v", err)
	}
	if !pe.At.Equal(time.Date(2026, 12, 1, 14, 10, 0, 0, time.UTC)) || !pe.Moved ||
		!strings.HasPrefix(pe.Reason, "reserved at 14:10:00 UTC (in 9m0s) on nodes n0, n1, n2, n3; now: needs 4 node (with 4 core each): 0 found now, 4 when free") {
		t.Errorf("reservation: %v at %v on %s", pe.Reason, pe.At, pe.Where)
	}
	// one running pod ends early: the reservation moves earlier? no, the
	// others still run until 14:10; a pod ending at 14:05 backfills
	c.DeletePod(running[0].UID)
	short := withDeadline([]*v1.Pod{pod("short", "", 0, 4000, 0, 0)}, 240)
	pl, err := c.Place("default/short", short, nil)
	if err != nil {
		t.Fatalf("a pod ending before the reservation does not backfill: %v", err)
	}
	shortBound := bindAll(t, c, pl, short)
	// one that would end after it, or has no duration, does not
	for _, p := range [][]*v1.Pod{
		withDeadline([]*v1.Pod{pod("long", "", 0, 1000, 0, 0)}, 900),
		{pod("forever", "", 0, 1000, 0, 0)},
	} {
		if _, err := c.Place("default/"+p[0].Name, p, nil); !errors.As(err, &pe) || pe.Reserved || pe.Unresolvable {
			t.Errorf("%s used reserved resources or reserved: %v", p[0].Name, err)
		}
	}
	if at, where, ok := c.Reservation("default/big"); !ok || at.Format("15:04") != "14:10" || where != "nodes n0, n1, n2, n3" {
		t.Errorf("reservation kept? %v %s %v", at, where, ok)
	}
	// a later gang waits without a reservation (depth 1)
	later := withDeadline(gangPods("later", 4, 4000, 0, 0), 60)
	later[0].CreationTimestamp.Time = k.t
	if _, err := c.Place("default/later", later, nil); !errors.As(err, &pe) || pe.Reserved {
		t.Errorf("a second reservation: %v", err)
	}
	// all running pods end at 14:03: the reservation moves to the end of
	// the backfilled pod (14:05)
	k.advance(2 * time.Minute)
	for _, p := range running[1:] {
		c.DeletePod(p.UID)
	}
	if _, err := c.Place("default/big", big, nil); !errors.As(err, &pe) || !pe.Reserved || pe.At.Format("15:04") != "14:05" || !pe.Moved {
		t.Errorf("not recomputed earlier: %v", err)
	}
	if _, err := c.Place("default/later", later, nil); err == nil {
		t.Error("the later gang jumped the reservation")
	}
	// the backfilled pod ends: the big gang goes, before the later one
	c.DeletePod(shortBound[0].UID)
	if _, err := c.Place("default/big", big, nil); err != nil {
		t.Errorf("big after the others ended: %v", err)
	}
	if c.Stats().Reservations != 0 {
		t.Errorf("reservations %d", c.Stats().Reservations)
	}
	// a higher-priority gang takes the reservation from a lower one
	c2 := newCluster(t)
	withClock(c2, newClock())
	addNodes(c2, node("n0", 4, 4, 0))
	blk := withDeadline([]*v1.Pod{pod("blk", "", 0, 4000, 0, 0)}, 600)
	pl, _ = c2.Place("default/blk", blk, nil)
	bindAll(t, c2, pl, blk)
	low := withDeadline([]*v1.Pod{pod("low", "", 0, 4000, 0, 0)}, 60)
	high := withDeadline([]*v1.Pod{pod("high", "", 0, 4000, 0, 0)}, 60)
	prio := int32(100)
	high[0].Spec.Priority = &prio
	c2.Place("default/low", low, nil)
	c2.Place("default/high", high, nil)
	if _, _, ok := c2.Reservation("default/high"); !ok {
		t.Error("the higher-priority gang has no reservation")
	}
	if _, _, ok := c2.Reservation("default/low"); ok {
		t.Error("the lower-priority gang kept its reservation")
	}
}

// A pod past its duration still holds its resources: it is booked until
// it ends, and a reservation counting on its end is recomputed.
func TestOverrun(t *testing.T) {
	c := newCluster(t)
	k := withClock(c, newClock())
	addNodes(c, node("n0", 4, 4, 0))
	run := withDeadline([]*v1.Pod{pod("run", "", 0, 4000, 0, 0)}, 60)
	pl, _ := c.Place("default/run", run, nil)
	bound := bindAll(t, c, pl, run)
	if ann, _ := c.Annotations(bound[0].UID); ann[AnnotationEnd] != "2026-12-01T14:01:00Z" {
		t.Errorf("end annotation %v", ann)
	}
	g := withDeadline([]*v1.Pod{pod("g", "", 0, 4000, 0, 0)}, 60)
	if _, err := c.Place("default/g", g, nil); err == nil {
		t.Fatal("placed on a busy node")
	}
	if at, _, ok := c.Reservation("default/g"); !ok || at.Format("15:04") != "14:01" {
		t.Fatalf("reservation %v %v", at, ok)
	}
	k.advance(2 * time.Minute) // the pod runs on
	_, err := c.Place("default/g", g, nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || pe.Reserved {
		t.Errorf("placed or reserved over an overrunning pod: %v", err)
	}
	c.DeletePod(bound[0].UID)
	if _, err := c.Place("default/g", g, nil); err != nil {
		t.Error(err)
	}
}

func TestReservationOnARack(t *testing.T) {
	c := rackCluster(t)
	withClock(c, newClock())
	// fill r1 for 5 minutes
	var fill []*v1.Pod
	for _, n := range []string{"r1-a", "r1-b", "r1-c"} {
		p := withDeadline([]*v1.Pod{pod("f-"+n, "", 0, 4000, 0, 0)}, 300)
		pl, err := c.Place("default/f-"+n, p, []string{n})
		if err != nil {
			t.Fatal(err)
		}
		fill = append(fill, bindAll(t, c, pl, p)...)
	}
	_, err := c.Place("default/g", withLabel(gangPods("g", 3, 1000, 0, 0), KeyRequired, "rack"), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Reserved || pe.Where != "rack r1" || !strings.Contains(pe.Reason, "reserved at 14:05:00 UTC (in 5m0s) on rack r1") {
		t.Errorf("rack reservation: %v", err)
	}
	_ = fill
}

func TestMetrics(t *testing.T) {
	RegisterMetrics()
	c := newCluster(t)
	addNodes(c, node("n0", 4, 4, 0))
	c.Place("default/a", []*v1.Pod{pod("a", "", 0, 1000, 0, 0)}, nil)
	c.Place("default/b", []*v1.Pod{pod("b", "", 0, 8000, 0, 0)}, nil)
	mfs, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, mf := range mfs {
		got[mf.GetName()] = true
	}
	for _, n := range []string{"scheduler_gofluxion_match_duration_seconds", "scheduler_gofluxion_gangs_waiting",
		"scheduler_gofluxion_reservations", "scheduler_gofluxion_graph_vertices"} {
		if !got[n] {
			t.Errorf("metric %s not registered", n)
		}
	}
}

// countingMatcher wraps the in-process matcher behind the seam; with
// jgfOnly it answers matches with a JGF only, as a remote matcher might.
type countingMatcher struct {
	*fluxMatcher
	matches int
	jgfOnly bool
}

func (m *countingMatcher) Match(op gofluxion.Op, js []byte, id uint64, at int64) (*MatchResult, error) {
	m.matches++
	if !m.jgfOnly {
		return m.fluxMatcher.Match(op, js, id, at)
	}
	j, err := m.b.ParseJobspec(js)
	if err != nil {
		return nil, err
	}
	var a *gofluxion.Allocation
	if id == 0 {
		a, err = m.b.Match(op, j, at)
	} else {
		a, err = m.b.MatchWithID(op, j, id, at)
	}
	if err != nil {
		return nil, err
	}
	r, err := a.Render("jgf")
	return &MatchResult{Start: a.Start, End: a.End, JGF: r}, err
}

// Every match goes through plugin.Matcher: another implementation can
// stand in for the in-process one.
func TestMatcherSeam(t *testing.T) {
	a := &Args{}
	a.SetDefaults()
	for _, jgfOnly := range []bool{false, true} {
		lm, err := newLocalMatcher(a)
		if err != nil {
			t.Fatal(err)
		}
		cm := &countingMatcher{fluxMatcher: lm, jgfOnly: jgfOnly}
		c := NewClusterWith(a, cm, klog.Background())
		withClock(c, newClock())
		addNodes(c, lnode("n0", "z", "", 4, 4, 0), lnode("n1", "z", "", 4, 4, 0))
		pl, err := c.Place("default/g", withDeadline(gangPods("g", 2, 1000, 0, 0), 60), nil)
		if err != nil || cm.matches != 1 || len(distinct(pl)) != 2 {
			t.Fatalf("jgf only %v: %v %v, %d matches", jgfOnly, pl, err, cm.matches)
		}
		if c.Stats().Vertices != lm.Vertices() {
			t.Error("stats not from the seam")
		}
		// a reservation's place is read from the selection too
		_, err = c.Place("default/h", []*v1.Pod{pod("h", "", 0, 4000, 0, 0)}, nil)
		var pe *PlaceError
		if !errors.As(err, &pe) || !pe.Reserved || pe.Where != "zone z" {
			t.Errorf("jgf only %v: %v", jgfOnly, err)
		}
	}
}
