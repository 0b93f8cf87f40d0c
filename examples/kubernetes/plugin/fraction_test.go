package plugin

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
)

func withChunks(cpu, mem string) func(*Args) {
	return func(a *Args) { a.CPUChunk, a.MemoryChunk = cpu, mem }
}

// placeOne places and binds a single pod; it reports whether it fit.
func placeOne(t *testing.T, c *Cluster, p *v1.Pod) bool {
	t.Helper()
	pl, err := c.Place(p.Namespace+"/"+p.Name, []*v1.Pod{p}, nil)
	if err != nil {
		return false
	}
	bindAll(t, c, pl, []*v1.Pod{p})
	return true
}

// TestMillicorePacking: with cpuChunk 100m, 40 pods of 100m share one
// 4-core node, as NodeResourcesFit packs them; with the default (whole
// cores) 4 do. After a restart the bookings replay exactly.
func TestMillicorePacking(t *testing.T) {
	for _, tc := range []struct {
		chunk string
		fit   int
	}{{"100m", 40}, {"1", 4}} {
		t.Run(tc.chunk, func(t *testing.T) {
			mut := withChunks(tc.chunk, "64Mi")
			c := newCluster(t, mut)
			n := node("n0", 4, 16, 0)
			addNodes(c, n)
			var bound []*v1.Pod
			for i := range 41 {
				p := pod(fmt.Sprintf("p%d", i), "", 0, 100, 64, 0)
				if !placeOne(t, c, p) {
					break
				}
				b := p.DeepCopy()
				ann, _ := c.Annotations(p.UID)
				b.Annotations, b.Spec.NodeName = ann, "n0"
				bound = append(bound, b)
			}
			if len(bound) != tc.fit {
				t.Fatalf("%d pods of 100m fit a 4-core node, want %d", len(bound), tc.fit)
			}
			// restart: the Rs replay, leaving the same free vertices
			r := newCluster(t, mut)
			r.Load([]*v1.Node{n}, bound)
			fa, _ := c.Free("n0")
			fb, _ := r.Free("n0")
			if fa != fb || fa.Core != 0 {
				t.Errorf("free %v before the restart, %v after", fa, fb)
			}
			if placeOne(t, r, pod("late", "", 0, 100, 64, 0)) {
				t.Error("a pod fits the full node after the restart")
			}
		})
	}
}

// TestFitOracle compares the plugin's answers with NodeResourcesFit's for
// random nodes (any allocatable), foreign pods (any request) and our pods
// (requests in whole chunks: 100m, 64Mi), one pod at a time: the plugin
// places a pod exactly when NodeResourcesFit says it fits. Requests off
// the chunks round up (a 150m pod takes 200m): the documented difference.
func TestFitOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	opts := noderesources.ResourceRequestsOptions{}
	fits, full := 0, 0
	for trial := range 30 {
		c := newCluster(t, withChunks("100m", "64Mi"))
		n := node("n0", 0, 0, 0)
		n.Status.Allocatable[v1.ResourceCPU] = *resource.NewMilliQuantity(100+rng.Int64N(8000), resource.DecimalSI)
		n.Status.Allocatable[v1.ResourceMemory] = *resource.NewQuantity(64<<20+rng.Int64N(8<<30), resource.BinarySI)
		n.Status.Capacity = n.Status.Allocatable
		addNodes(c, n)
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		for i := range 3 * int(rng.IntN(2)) {
			f := pod(fmt.Sprintf("f%d-%d", trial, i), "", 0, rng.Int64N(1500), rng.Int64N(1024), 0)
			f.Spec.SchedulerName, f.Spec.NodeName = "default-scheduler", "n0"
			f.Status.Phase = v1.PodRunning
			c.SetPod(f)
			ni.AddPod(f)
		}
		for i := range 40 {
			p := pod(fmt.Sprintf("p%d-%d", trial, i), "", 0, 100*(1+rng.Int64N(8)), 64*(1+rng.Int64N(12)), 0)
			want := len(noderesources.Fits(p, ni, nil, opts)) == 0
			got := placeOne(t, c, p)
			if got != want {
				t.Errorf("trial %d pod %d (%s cpu, %s memory) on %s cpu, %s memory: placed %v, NodeResourcesFit %v",
					trial, i, p.Spec.Containers[0].Resources.Requests.Cpu(), p.Spec.Containers[0].Resources.Requests.Memory(),
					n.Status.Allocatable.Cpu(), n.Status.Allocatable.Memory(), got, want)
				break
			}
			if !got {
				full++
			} else {
				fits++
				b := p.DeepCopy()
				b.Spec.NodeName = "n0"
				ni.AddPod(b)
			}
		}
	}
	if fits < 100 || full < 100 {
		t.Errorf("%d pods fit, %d did not: the trials test too little", fits, full)
	}
}

func TestCPUChunkArg(t *testing.T) {
	for v, ok := range map[string]bool{"1": true, "100m": true, "250m": true, "1m": true, "300m": false, "2": false, "0": false, "x": false} {
		a := &Args{CPUChunk: v}
		a.SetDefaults()
		if err := a.Validate(); (err == nil) != ok {
			t.Errorf("cpuChunk %q: %v, want valid %v", v, err, ok)
		}
	}
	a := &Args{}
	a.SetDefaults()
	if ch := a.chunks(); ch != (chunks{MilliCPU: 1000, Bytes: 1 << 30}) {
		t.Errorf("default chunks %+v", ch)
	}
}

// TestNUMASingleChunks: with cpuChunk 100m, NodeResourceTopology zones
// are cut into 100m vertices too, and numa: single pods of 2500m pack
// three to an 8-core zone, each within one zone.
func TestNUMASingleChunks(t *testing.T) {
	c := newCluster(t, withChunks("100m", "1Gi"))
	addNodes(c, node("numa", 16, 32, 0))
	zs, err := zonesFromNRT(nrtObject("numa", [3]string{"8", "16Gi", "0"}, [3]string{"8", "16Gi", "0"}), gpuName, c.chunk)
	if err != nil {
		t.Fatal(err)
	}
	if len(zs) != 2 || zs[0] != (units{Core: 80, Mem: 16}) {
		t.Fatalf("zones %v, want 80 core vertices and 16 memory vertices each", zs)
	}
	c.SetNUMA("numa", zs)
	perZone := map[string]int{}
	for i := range 7 {
		p := withLabel([]*v1.Pod{pod(fmt.Sprintf("s%d", i), "", 0, 2500, 1024, 0)}, KeyNUMA, "single")[0]
		if !placeOne(t, c, p) {
			if i != 6 {
				t.Fatalf("pod %d of 2500m does not fit", i)
			}
			continue
		}
		if i == 6 {
			t.Fatal("a 7th pod of 2500m fits two 8-core zones within one zone each")
		}
		ann, _ := c.Annotations(p.UID)
		in := 0
		for _, zn := range []string{"numa0", "numa1"} {
			if strings.Contains(ann[AnnotationR], "/numa/"+zn+"/") {
				perZone[zn]++
				in++
			}
		}
		if in != 1 {
			t.Fatalf("%s spans %d zones", p.Name, in)
		}
	}
	if perZone["numa0"] != 3 || perZone["numa1"] != 3 {
		t.Errorf("pods per zone %v, want 3 and 3", perZone)
	}
}
