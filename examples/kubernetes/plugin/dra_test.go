package plugin

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func gpuDev(name string, numa int64, root string, mem string) resourceapi.Device {
	d := resourceapi.Device{Name: name,
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model":      {StringValue: ptr("H100")},
			"driver":     {VersionValue: ptr("550.54.15")},
			"index":      {IntValue: ptr(int64(0))},
			"mig":        {BoolValue: ptr(false)},
			"uuids":      {StringValues: []string{"a", "b"}}, // a list: skipped
			attrNUMANode: {IntValue: ptr(numa)},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory": {Value: resource.MustParse(mem)},
		}}
	if numa < 0 {
		delete(d.Attributes, attrNUMANode)
	}
	if root != "" {
		d.Attributes[attrPCIeRoot] = resourceapi.DeviceAttribute{StringValue: ptr(root)}
	}
	return d
}

func nodeSlice(name, node string, devs ...resourceapi.Device) *resourceapi.ResourceSlice {
	return &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{Driver: "gpu.example.com", Pool: resourceapi.ResourcePool{Name: node},
			NodeName: ptr(node), Devices: devs}}
}

func labelled(name string, labels map[string]string) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

// twoRacks: n1, n2 in rack a; n3 in rack b; n1 has 2 zones.
func twoRacks(node string) (string, int, bool) {
	switch node {
	case "n1":
		return "/cluster0/a/n1", 2, true
	case "n2":
		return "/cluster0/a/n2", 1, true
	case "n3":
		return "/cluster0/b/n3", 1, true
	}
	return "", 0, false
}

func TestDevicesFromSlices(t *testing.T) {
	nodes := []*v1.Node{labelled("n1", map[string]string{"rack": "a"}), labelled("n2", map[string]string{"rack": "a"}), labelled("n3", map[string]string{"rack": "b"})}
	nic := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "fabric"},
		Spec: resourceapi.ResourceSliceSpec{Driver: "net.example.com", Pool: resourceapi.ResourcePool{Name: "fab/a"},
			NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
				{Key: "rack", Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}}}},
			Devices: []resourceapi.Device{{Name: "link0"}}}}
	global := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "global"},
		Spec: resourceapi.ResourceSliceSpec{Driver: "net.example.com", Pool: resourceapi.ResourcePool{Name: "g"},
			AllNodes: ptr(true), Devices: []resourceapi.Device{{Name: "x"}}}}
	perDev := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "perdev"},
		Spec: resourceapi.ResourceSliceSpec{Driver: "fpga.example.com", Pool: resourceapi.ResourcePool{Name: "p"},
			PerDeviceNodeSelection: ptr(true), Devices: []resourceapi.Device{{Name: "f0", NodeName: ptr("n3")}, {Name: "f1", NodeName: ptr("n9")}}}}
	rs := []*resourceapi.ResourceSlice{
		perDev, global, nic,
		nodeSlice("s1", "n1", gpuDev("gpu0", 0, "pci0000:00", "80Gi"), gpuDev("gpu1", 1, "pci0000:80", "80Gi"), gpuDev("gpu2", 1, "pci0000:80", "80Gi")),
		nodeSlice("s2", "n2", gpuDev("gpu0", -1, "", "40Gi")),
		nodeSlice("bad", "n2", resourceapi.Device{}),
		nodeSlice("zdup", "n1", gpuDev("gpu0", 0, "", "1")),
		nodeSlice("old", "n1", gpuDev("gpu9", 0, "", "1")), // an older generation of pool n1: ignored
	}
	for _, s := range rs {
		if s.Spec.Pool.Name == "n1" && s.Name != "old" {
			s.Spec.Pool.Generation = 2
		}
	}
	devs, errs := devicesFromSlices(rs, nodes)
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), `resourceslice "bad": device 0: bad name`) ||
		!strings.Contains(errs[1].Error(), `resourceslice "zdup": device "gpu.example.com/n1/gpu0" published twice`) {
		t.Fatalf("errors: %v", errs)
	}
	d := devs[slicesIndex(devs, "gpu.example.com/n1/gpu1")]
	if d.NUMA != 1 || d.PCIeRoot != "pci0000:80" || d.Attrs["gpu.example.com/model"].String() != "H100" ||
		d.Attrs["gpu.example.com/driver"].Kind != 'v' || d.Capacity["gpu.example.com/memory"] != 80<<30 {
		t.Fatalf("device: %+v", d)
	}
	for _, d := range devs {
		if d.Name == "gpu9" {
			t.Fatal("device of an older pool generation kept")
		}
	}
	if _, ok := d.Attrs["gpu.example.com/uuids"]; ok {
		t.Fatal("list attribute kept")
	}
	if d := devs[slicesIndex(devs, "net.example.com/fab/a/link0")]; strings.Join(d.Nodes, ",") != "n1,n2" || d.Node != "" {
		t.Fatalf("nic: %+v", d)
	}

	vs, pending := deviceVertices(devs, twoRacks)
	if strings.Join(pending, ",") != "fpga.example.com/p/f1" {
		t.Fatalf("pending %v", pending)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Type+" "+v.Path)
	}
	want := []string{
		"pool /cluster0/a/pool-net.example.com-fab_a",
		"net.example.com /cluster0/a/pool-net.example.com-fab_a/device-fab_a-link0",
		"gpu.example.com /cluster0/a/n1/numa0/pcieroot-pci0000:00/device-n1-gpu0",
		"pcieroot /cluster0/a/n1/numa0/pcieroot-pci0000:00",
		"gpu.example.com /cluster0/a/n1/numa1/pcieroot-pci0000:80/device-n1-gpu1",
		"gpu.example.com /cluster0/a/n1/numa1/pcieroot-pci0000:80/device-n1-gpu2",
		"pcieroot /cluster0/a/n1/numa1/pcieroot-pci0000:80",
		"gpu.example.com /cluster0/a/n2/numa0/device-n2-gpu0",
		"fpga.example.com /cluster0/b/n3/numa0/device-p-f0",
		"pool /cluster0/pool-net.example.com-g",
		"net.example.com /cluster0/pool-net.example.com-g/device-g-x",
	}
	sortByPath(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("vertices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, v := range vs {
		if v.Name == "pool-net.example.com-fab_a" && v.Props[draNodesProperty] != "n1,n2" {
			t.Fatalf("pool props %v", v.Props)
		}
		if v.Path == "/cluster0/a/n1/numa1/pcieroot-pci0000:80/device-n1-gpu1" &&
			(v.Props["gpu.example.com/model"] != "H100" || v.Props["capacity:gpu.example.com/memory"] != "85899345920" || v.Props[attrNUMANode] != "1") {
			t.Fatalf("device props %v", v.Props)
		}
	}
	// input order does not matter
	rev := slicesReverse(rs)
	devs2, _ := devicesFromSlices(rev, nodes)
	vs2, _ := deviceVertices(devs2, twoRacks)
	if d := diffDevices(vs, vs2); len(d) != 0 || len(vs2) != len(vs) {
		t.Fatalf("order changed the layout: %v", d)
	}
}

// A zone the node does not have, or no NUMA attribute: the first zone.
func TestDeviceVerticesNUMAFallback(t *testing.T) {
	devs, _ := devicesFromSlices([]*resourceapi.ResourceSlice{nodeSlice("s", "n2", gpuDev("g", 3, "", "1"))}, nil)
	vs, _ := deviceVertices(devs, twoRacks)
	if len(vs) != 1 || vs[0].Path != "/cluster0/a/n2/numa0/device-n2-g" {
		t.Fatalf("%+v", vs)
	}
}

func TestDiffDevices(t *testing.T) {
	before := []*resourceapi.ResourceSlice{nodeSlice("s1", "n1", gpuDev("gpu0", 0, "", "80Gi"), gpuDev("gpu1", 0, "", "80Gi"), gpuDev("gpu2", 0, "", "80Gi"))}
	// driver restart: gpu1 reported on NUMA 1, gpu2 gone, gpu3 new, gpu0's memory changed
	after := []*resourceapi.ResourceSlice{nodeSlice("s1", "n1", gpuDev("gpu0", 0, "", "40Gi"), gpuDev("gpu1", 1, "", "80Gi"), gpuDev("gpu3", 0, "", "80Gi"))}
	lay := func(rs []*resourceapi.ResourceSlice) []draVertex {
		devs, errs := devicesFromSlices(rs, nil)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		vs, _ := deviceVertices(devs, twoRacks)
		return vs
	}
	var got []string
	for _, c := range diffDevices(lay(before), lay(after)) {
		got = append(got, c.Op+" "+c.Device+" "+c.From+" "+c.To)
	}
	want := []string{
		"update gpu.example.com/n1/gpu0 /cluster0/a/n1/numa0/device-n1-gpu0 /cluster0/a/n1/numa0/device-n1-gpu0",
		"move gpu.example.com/n1/gpu1 /cluster0/a/n1/numa0/device-n1-gpu1 /cluster0/a/n1/numa1/device-n1-gpu1",
		"remove gpu.example.com/n1/gpu2 /cluster0/a/n1/numa0/device-n1-gpu2 ",
		"add gpu.example.com/n1/gpu3  /cluster0/a/n1/numa0/device-n1-gpu3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestDevicesFromSlicesRefused(t *testing.T) {
	for name, s := range map[string]*resourceapi.ResourceSlice{
		"no driver": {Spec: resourceapi.ResourceSliceSpec{NodeName: ptr("n1"), Devices: []resourceapi.Device{{Name: "a"}}}},
		"no node":   {Spec: resourceapi.ResourceSliceSpec{Driver: "d", Devices: []resourceapi.Device{{Name: "a"}}}},
		"too many":  {Spec: resourceapi.ResourceSliceSpec{Driver: "d", NodeName: ptr("n1"), Devices: make([]resourceapi.Device, maxDevicesPerSlice+1)}},
		"bad selector": {Spec: resourceapi.ResourceSliceSpec{Driver: "d", NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: "k", Operator: "Bogus"}}}}},
			Devices: []resourceapi.Device{{Name: "a"}}}},
	} {
		s.Name = "s"
		if devs, errs := devicesFromSlices([]*resourceapi.ResourceSlice{s}, nil); len(errs) != 1 || len(devs) != 0 || !strings.Contains(errs[0].Error(), `resourceslice "s"`) {
			t.Errorf("%s: %v %v", name, devs, errs)
		}
	}
}

func slicesIndex(devs []*draDevice, key string) int {
	for i, d := range devs {
		if d.key() == key {
			return i
		}
	}
	panic("no device " + key)
}

func slicesReverse[T any](s []T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// sortByPath sorts "type path" lines by path.
func sortByPath(l []string) {
	path := func(s string) string { return s[strings.Index(s, " ")+1:] }
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && path(l[j]) < path(l[j-1]); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}
