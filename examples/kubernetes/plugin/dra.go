package plugin

// DRA devices as graph vertices (work in progress, not wired: see the
// README's "DRA (work in progress)").
//
//	<node>/numa<z>/device-<driver>-<dev>                 node-local, NUMA known
//	<node>/numa<z>/pcieroot-<r>/device-<driver>-<dev>    …and its PCIe root known
//	<node>/numa0/…                                      NUMA unknown: the node's first zone
//	<lca>/pool-<driver>-<pool>/device-<driver>-<dev>     network-attached
//
// A device's vertex type is its driver's name ("gpu.example.com"), so a
// claim request (whose class names one driver) asks for that type. A
// network-attached device (slice or device with nodeSelector, allNodes or
// perDeviceNodeSelection) sits under a pool vertex placed below the
// deepest vertex holding every node it reaches (the cluster for allNodes),
// the nodes listed in the pool's gofluxion.io/nodes property.
//
// Attributes become properties, named fully qualified (an unqualified
// name belongs to the driver's domain, as in the DRA API) with their value
// printed; capacities become properties too ("capacity:<name>" = value in
// base units) since every device vertex has size 1 (a device is taken
// whole, as the pod leaves are).

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// Standard attributes (k8s.io/dynamic-resource-allocation/deviceattribute):
// the NUMA node and PCIe root of a device. A driver-qualified "numaNode"
// or "pcieRoot" is read when the standard one is absent.
const (
	attrNUMANode = "resource.kubernetes.io/numaNode"
	attrPCIeRoot = "resource.kubernetes.io/pcieRoot"

	// draNodesProperty lists (comma separated, sorted) the nodes a pool
	// vertex reaches; "*" for allNodes.
	draNodesProperty = "gofluxion.io/nodes"
	// pcieRootType is the vertex type of a PCIe root: matchAttribute on
	// the pcieRoot attribute becomes "one pcieroot vertex".
	pcieRootType = "pcieroot"

	// maxDevicesPerSlice bounds a slice's devices (the API allows 128;
	// 1024 leaves room for later API versions without trusting input).
	maxDevicesPerSlice = 1024
	maxDRAName         = 253
)

// attrValue is one attribute value, typed as in the API.
type attrValue struct {
	Kind byte // 'i' int, 'b' bool, 's' string, 'v' version
	Int  int64
	Bool bool
	Str  string // string or version
}

func (a attrValue) String() string {
	switch a.Kind {
	case 'i':
		return strconv.FormatInt(a.Int, 10)
	case 'b':
		return strconv.FormatBool(a.Bool)
	}
	return a.Str
}

// draDevice is one device published by a ResourceSlice.
type draDevice struct {
	Driver, Pool, Name string
	// Node is the node of a node-local device; "" when network-attached.
	Node string
	// Nodes are the nodes a network-attached device reaches, sorted;
	// AllNodes: every node.
	Nodes    []string
	AllNodes bool
	NUMA     int // -1: unknown
	PCIeRoot string
	Attrs    map[string]attrValue // fully qualified name → value
	Capacity map[string]int64     // fully qualified name → base units
}

// key identifies a device across slice updates.
func (d *draDevice) key() string { return d.Driver + "/" + d.Pool + "/" + d.Name }

// poolKey identifies the pool vertex of a network-attached device: its
// driver, pool and the nodes it reaches.
func (d *draDevice) poolKey() string {
	if d.AllNodes {
		return d.Driver + "/" + d.Pool + "/*"
	}
	return d.Driver + "/" + d.Pool + "/" + strings.Join(d.Nodes, ",")
}

// qualify names an attribute or capacity fully: unqualified names belong
// to the driver's domain.
func qualify(driver string, name resourceapi.QualifiedName) string {
	if strings.Contains(string(name), "/") {
		return string(name)
	}
	return driver + "/" + string(name)
}

func convAttr(a resourceapi.DeviceAttribute) (attrValue, bool) {
	switch {
	case a.IntValue != nil:
		return attrValue{Kind: 'i', Int: *a.IntValue}, true
	case a.BoolValue != nil:
		return attrValue{Kind: 'b', Bool: *a.BoolValue}, true
	case a.StringValue != nil:
		return attrValue{Kind: 's', Str: *a.StringValue}, true
	case a.VersionValue != nil:
		return attrValue{Kind: 'v', Str: *a.VersionValue}, true
	}
	// list values: not usable as a property (and not by the CEL forms
	// translated); skipped.
	return attrValue{}, false
}

// devicesFromSlices reads the devices of ResourceSlices. nodes are the
// cluster's nodes (for node selectors). Devices come out sorted by key.
// A bad slice is reported with its name and skipped; the others are read.
// As in the DRA API, only the slices of a pool's newest generation count
// (older ones are being replaced); a device published twice is taken from
// the slice whose name sorts first, so input order does not matter.
func devicesFromSlices(rs []*resourceapi.ResourceSlice, nodes []*v1.Node) ([]*draDevice, []error) {
	var out []*draDevice
	var errs []error
	seen := map[string]bool{}
	gen := map[string]int64{}
	poolOf := func(s *resourceapi.ResourceSlice) string { return s.Spec.Driver + "/" + s.Spec.Pool.Name }
	for _, s := range rs {
		if g, ok := gen[poolOf(s)]; !ok || s.Spec.Pool.Generation > g {
			gen[poolOf(s)] = s.Spec.Pool.Generation
		}
	}
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b *resourceapi.ResourceSlice) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range rs {
		if s.Spec.Pool.Generation < gen[poolOf(s)] {
			continue
		}
		ds, err := devicesFromSlice(s, nodes)
		if err != nil {
			errs = append(errs, fmt.Errorf("resourceslice %q: %w", s.Name, err))
			continue
		}
		for _, d := range ds {
			if seen[d.key()] {
				errs = append(errs, fmt.Errorf("resourceslice %q: device %q published twice", s.Name, d.key()))
				continue
			}
			seen[d.key()] = true
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, errs
}

func devicesFromSlice(s *resourceapi.ResourceSlice, nodes []*v1.Node) ([]*draDevice, error) {
	sp := &s.Spec
	if sp.Driver == "" || len(sp.Driver) > maxDRAName {
		return nil, fmt.Errorf("bad driver name %q", sp.Driver)
	}
	if len(sp.Devices) > maxDevicesPerSlice {
		return nil, fmt.Errorf("%d devices, more than %d", len(sp.Devices), maxDevicesPerSlice)
	}
	out := make([]*draDevice, 0, len(sp.Devices))
	for i := range sp.Devices {
		dv := &sp.Devices[i]
		if dv.Name == "" || len(dv.Name) > maxDRAName {
			return nil, fmt.Errorf("device %d: bad name %q", i, dv.Name)
		}
		d := &draDevice{Driver: sp.Driver, Pool: sp.Pool.Name, Name: dv.Name, NUMA: -1,
			Attrs: map[string]attrValue{}, Capacity: map[string]int64{}}
		// where: the slice's, or the device's own with perDeviceNodeSelection
		nodeName, sel, all := sp.NodeName, sp.NodeSelector, sp.AllNodes
		if sp.PerDeviceNodeSelection != nil && *sp.PerDeviceNodeSelection {
			nodeName, sel, all = dv.NodeName, dv.NodeSelector, dv.AllNodes
		}
		switch {
		case nodeName != nil && *nodeName != "":
			d.Node = *nodeName
		case all != nil && *all:
			d.AllNodes = true
		case sel != nil:
			ns, err := nodeaffinity.NewNodeSelector(sel)
			if err != nil {
				return nil, fmt.Errorf("device %q: node selector: %w", dv.Name, err)
			}
			for _, n := range nodes {
				if ns.Match(n) {
					d.Nodes = append(d.Nodes, n.Name)
				}
			}
			slices.Sort(d.Nodes)
		default:
			return nil, fmt.Errorf("device %q: no node, node selector or allNodes", dv.Name)
		}
		for name, a := range dv.Attributes {
			if v, ok := convAttr(a); ok {
				d.Attrs[qualify(sp.Driver, name)] = v
			}
		}
		for name, c := range dv.Capacity {
			d.Capacity[qualify(sp.Driver, name)] = c.Value.Value()
		}
		d.NUMA = numaOf(d)
		d.PCIeRoot = pcieRootOf(d)
		out = append(out, d)
	}
	return out, nil
}

func numaOf(d *draDevice) int {
	for _, k := range []string{attrNUMANode, d.Driver + "/numaNode", d.Driver + "/numa"} {
		if v, ok := d.Attrs[k]; ok && v.Kind == 'i' && v.Int >= 0 && v.Int < MaxZones {
			return int(v.Int)
		}
	}
	return -1
}

func pcieRootOf(d *draDevice) string {
	for _, k := range []string{attrPCIeRoot, d.Driver + "/pcieRoot"} {
		if v, ok := d.Attrs[k]; ok && v.Kind == 's' && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// draVertex is one vertex the devices add to the graph.
type draVertex struct {
	Type, Name string
	Path       string // containment path
	Parent     string // parent's path (a vertex of the cluster model or another draVertex)
	Props      map[string]string
	Device     string // the device's key, "" for pool and pcieroot vertices
}

// nodeZones tells where a node sits: its path and the number of its NUMA
// zones (see place).
type nodeZones func(node string) (path string, zones int, ok bool)

// deviceVertices lays devices out (see the top of this file). Devices of
// nodes the cluster does not know yet (or network devices reaching none)
// are left out and returned, to be laid out again when their node comes.
// The result is sorted by path, so it does not depend on input order.
func deviceVertices(devs []*draDevice, where nodeZones) (vs []draVertex, pending []string) {
	added := map[string]bool{}
	add := func(v draVertex) {
		if !added[v.Path] {
			added[v.Path] = true
			vs = append(vs, v)
		}
	}
	for _, d := range devs {
		var parent string
		if d.Node != "" {
			path, zones, ok := where(d.Node)
			if !ok {
				pending = append(pending, d.key())
				continue
			}
			z := 0
			if d.NUMA >= 0 && d.NUMA < zones {
				z = d.NUMA
			}
			parent = path + "/numa" + strconv.Itoa(z)
			if d.PCIeRoot != "" {
				r := draVertex{Type: pcieRootType, Name: pcieRootType + "-" + safeName(d.PCIeRoot), Parent: parent}
				r.Path = parent + "/" + r.Name
				r.Props = map[string]string{attrPCIeRoot: d.PCIeRoot}
				add(r)
				parent = r.Path
			}
		} else {
			var lca string
			var names []string
			if d.AllNodes {
				lca, names = clusterPath, []string{"*"}
			} else {
				for _, n := range d.Nodes {
					path, _, ok := where(n)
					if !ok {
						continue
					}
					names = append(names, n)
					lca = commonParent(lca, path[:strings.LastIndex(path, "/")])
				}
			}
			if len(names) == 0 {
				pending = append(pending, d.key())
				continue
			}
			p := draVertex{Type: "pool", Name: "pool-" + safeName(d.Driver) + "-" + safeName(d.Pool), Parent: lca,
				Props: map[string]string{draNodesProperty: strings.Join(names, ","), "dra.driver": d.Driver, "dra.pool": d.Pool}}
			p.Path = lca + "/" + p.Name
			if prev := slices.IndexFunc(vs, func(v draVertex) bool { return v.Path == p.Path }); prev >= 0 && vs[prev].Props[draNodesProperty] != p.Props[draNodesProperty] {
				// one pool, devices reaching different nodes: one pool
				// vertex per set of nodes
				p.Name += "-" + strconv.FormatInt(hashLevel(p.Props[draNodesProperty])&0xffff, 16)
				p.Path = lca + "/" + p.Name
			}
			add(p)
			parent = p.Path
		}
		v := draVertex{Type: d.Driver, Name: "device-" + safeName(d.Pool) + "-" + safeName(d.Name), Parent: parent, Device: d.key(),
			Props: map[string]string{"dra.driver": d.Driver, "dra.pool": d.Pool, "dra.device": d.Name}}
		v.Path = parent + "/" + v.Name
		for k, a := range d.Attrs {
			v.Props[k] = a.String()
		}
		for k, c := range d.Capacity {
			v.Props["capacity:"+k] = strconv.FormatInt(c, 10)
		}
		add(v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Path < vs[j].Path })
	return vs, pending
}

// commonParent is the deepest common ancestor path of two paths ("" is
// none yet).
func commonParent(a, b string) string {
	if a == "" {
		return b
	}
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	n := 0
	for n < len(as) && n < len(bs) && as[n] == bs[n] {
		n++
	}
	if n <= 1 {
		return clusterPath
	}
	return strings.Join(as[:n], "/")
}

// safeName keeps a name usable in a path: '/' (only in pool names and
// PCIe roots) becomes '_'.
func safeName(s string) string { return strings.ReplaceAll(s, "/", "_") }

// deviceChange is what a slice update does to one device vertex.
type deviceChange struct {
	Device   string
	Op       string // "add", "remove", "move", "update" (properties only)
	From, To string // paths
}

// diffDevices compares two layouts by device key, in key order. A device
// whose path changed moves (its booking follows it, as a pod's leaves do
// when their node moves); a device gone is removed, its booking kept on
// the pod until the pod ends (as for a deleted node).
func diffDevices(old, cur []draVertex) []deviceChange {
	type ent struct {
		path  string
		props map[string]string
	}
	o, c := map[string]ent{}, map[string]ent{}
	var keys []string
	for _, v := range old {
		if v.Device != "" {
			o[v.Device] = ent{v.Path, v.Props}
			keys = append(keys, v.Device)
		}
	}
	for _, v := range cur {
		if v.Device != "" {
			c[v.Device] = ent{v.Path, v.Props}
			if _, ok := o[v.Device]; !ok {
				keys = append(keys, v.Device)
			}
		}
	}
	slices.Sort(keys)
	var out []deviceChange
	for _, k := range keys {
		a, inOld := o[k]
		b, inCur := c[k]
		switch {
		case !inCur:
			out = append(out, deviceChange{Device: k, Op: "remove", From: a.path})
		case !inOld:
			out = append(out, deviceChange{Device: k, Op: "add", To: b.path})
		case a.path != b.path:
			out = append(out, deviceChange{Device: k, Op: "move", From: a.path, To: b.path})
		case !mapsEqual(a.props, b.props):
			out = append(out, deviceChange{Device: k, Op: "update", From: a.path, To: b.path})
		}
	}
	return out
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// devBase starts the uniq_ids of DRA vertices (above the level vertices').
const devBase = int64(1) << 57

// appendDeviceJGF adds the vertices of deviceVertices to a JGF document
// whose other vertices are already in it. ids maps the paths of the
// document's vertices to their JGF ids; the DRA vertices are added to it.
// Uniq_ids hash the path (probing past vertices of the document), so a
// vertex keeps its id while its path stays. A vertex whose parent is not
// in the document is an error naming it, and the document is then left
// unfinished (the caller drops it).
//
// A vertex takes its parent's rank: a node-local device has its node's, a
// pool's devices have -1 (they belong to no node).
func appendDeviceJGF(d *jgfDoc, vs []draVertex, ids map[string]string, used map[int64]bool) error {
	rank := make(map[string]int64, len(d.Graph.Nodes))
	for _, n := range d.Graph.Nodes {
		rank[n.ID] = n.Metadata.Rank
	}
	for _, v := range vs { // sorted by path: parents first
		parent, ok := ids[v.Parent]
		if !ok {
			return fmt.Errorf("dra vertex %s: parent %s not in the graph", v.Path, v.Parent)
		}
		u := devBase + (hashLevel(v.Path)-levelBase)&levelMask
		for used[u] {
			u = devBase + (u-devBase+1)&levelMask
		}
		used[u] = true
		r, ok := rank[parent]
		if !ok || v.Type == "pool" {
			r = -1
		}
		m := jgfMeta{Type: v.Type, Name: v.Name, ID: u & levelMask, UniqID: u, Rank: r, Size: 1,
			Properties: v.Props, Paths: map[string]string{"containment": v.Path}}
		id := d.add(m)
		rank[id] = r
		d.edge(parent, id)
		ids[v.Path] = id
	}
	return nil
}
