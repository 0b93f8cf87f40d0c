package plugin

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
)

// The device vertices load into gofluxion with the plugin's node graph,
// and a claim whose requests share a matchAttribute on the PCIe root is
// matched by Fluxion to devices under one root: n1's root A has one GPU
// and root B two, so two GPUs come from root B; n2 has one GPU per root,
// so a second such pod does not fit anywhere.
func TestDRAMatchSameRoot(t *testing.T) {
	rack := &levelVertex{typ: "rack", name: "a", path: clusterPath + "/a", uniq: hashLevel(clusterPath + "/a")}
	places := []place{
		{name: "n1", sid: 1, levels: []*levelVertex{rack}, path: clusterPath + "/a/n1", zones: []units{{Core: 4}}},
		{name: "n2", sid: 2, levels: []*levelVertex{rack}, path: clusterPath + "/a/n2", zones: []units{{Core: 4}}},
	}
	var d jgfDoc
	seen := map[int64]bool{}
	for i := range places {
		places[i].appendJGF(&d, nil, seen)
	}
	ids := map[string]string{}
	for i, n := range d.Graph.Nodes {
		ids[n.Metadata.Paths["containment"]] = n.ID
		d.Graph.Nodes[i].Metadata.Status = 0 // up
	}
	rs := []*resourceapi.ResourceSlice{
		nodeSlice("s1", "n1", gpuDev("gpu0", 0, "A", "80Gi"), gpuDev("gpu1", 0, "B", "80Gi"), gpuDev("gpu2", 0, "B", "80Gi")),
		nodeSlice("s2", "n2", gpuDev("gpu0", 0, "A", "80Gi"), gpuDev("gpu1", 0, "B", "80Gi")),
	}
	devs, errs := devicesFromSlices(rs, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	where := func(n string) (string, int, bool) {
		for _, p := range places {
			if p.name == n {
				return p.path, len(p.zones), true
			}
		}
		return "", 0, false
	}
	vs, pending := deviceVertices(devs, where)
	if len(pending) > 0 {
		t.Fatal(pending)
	}
	if err := appendDeviceJGF(&d, vs, ids, map[int64]bool{}); err != nil {
		t.Fatal(err)
	}
	// a vertex whose parent is unknown is refused, naming it
	if err := appendDeviceJGF(&jgfDoc{}, vs[:1], map[string]string{}, map[int64]bool{}); err == nil || !strings.Contains(err.Error(), "parent "+vs[0].Parent) {
		t.Fatalf("unknown parent: %v", err)
	}
	b, _ := json.Marshal(&d)
	g, err := gofluxion.ReadGraph("jgf", b, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := gofluxion.New(g, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}

	reqs, err := claimWorld().podDeviceRequests(claimPod(podClaim("train", "two-gpus-one-root")))
	if err != nil {
		t.Fatal(err)
	}
	// no NIC devices here: keep the GPU request of the group only
	reqs = slices.DeleteFunc(reqs, func(r draRequest) bool { return r.Driver != "gpu.example.com" })
	frag, err := jobspecFragment(reqs)
	if err != nil {
		t.Fatal(err)
	}
	js := jobspec.New(0, jobspec.Res("node", 1, jobspec.Res("numa", 1, jobspec.Slot("task", 1, append([]*jobspec.Resource{jobspec.Res("core", 1)}, frag...)...))))
	a, err := m.Match(match.Allocate, js, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range a.Resources {
		if r.Type == "gpu.example.com" {
			got = append(got, r.Path)
			if r.Rank != 1 {
				t.Errorf("%s: rank %d, want n1's 1", r.Path, r.Rank)
			}
		}
	}
	slices.Sort(got)
	want := []string{"/cluster0/a/n1/numa0/pcieroot-B/device-n1-gpu1", "/cluster0/a/n1/numa0/pcieroot-B/device-n1-gpu2"}
	if !slices.Equal(got, want) {
		t.Fatalf("devices %v, want %v", got, want)
	}
	// only n1's root B has two GPUs: a second pod does not fit now
	if _, err := m.Match(match.Allocate, js, 0); !errors.Is(err, gofluxion.ErrBusy) {
		t.Fatalf("second pod: %v", err)
	}
}

func podClaim(name, template string) v1.PodResourceClaim {
	return v1.PodResourceClaim{Name: name, ResourceClaimTemplateName: ptr(template)}
}
