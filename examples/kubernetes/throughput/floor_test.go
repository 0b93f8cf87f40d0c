package throughput

import (
	"context"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

// floorName is a trivial gang plugin: the least any gang plugin costs in
// the kube-scheduler framework, the floor under GoFluxion's figures. Each
// pod carries the node it goes to (label floorNode, set by the benchmark),
// PreFilter pins it there in O(1) (PreFilterResult), Filter accepts that
// node only, and Permit holds the gang's pods until min-member of them
// have arrived, then lets them all go: the same extension points and the
// same narrowing as GoFluxion, with no matching and no bookkeeping.
const (
	floorName = "Floor"
	floorNode = "floor.gofluxion.io/node"
)

type floor struct {
	h       fwk.Handle
	mu      sync.Mutex
	waiting map[string][]types.UID // gang → pods at Permit
}

var (
	_ fwk.PreFilterPlugin = &floor{}
	_ fwk.FilterPlugin    = &floor{}
	_ fwk.PermitPlugin    = &floor{}
)

func newFloor(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return &floor{h: h, waiting: map[string][]types.UID{}}, nil
}

func (f *floor) Name() string { return floorName }

func (f *floor) PreFilter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	return &fwk.PreFilterResult{NodeNames: sets.New(pod.Labels[floorNode])}, nil
}

func (f *floor) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func (f *floor) Filter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if ni.Node().Name != pod.Labels[floorNode] {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable)
	}
	return nil
}

func (f *floor) Permit(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	g := pod.Labels[plugin.DefaultGroupLabel]
	need, _ := strconv.Atoi(pod.Labels[plugin.DefaultMinMemberKey])
	if g == "" || need <= 1 {
		return nil, 0
	}
	f.mu.Lock()
	f.waiting[g] = append(f.waiting[g], pod.UID)
	ready := len(f.waiting[g]) >= need
	var others []types.UID
	if ready {
		others = f.waiting[g]
		delete(f.waiting, g)
	}
	f.mu.Unlock()
	if !ready {
		return fwk.NewStatus(fwk.Wait), time.Minute
	}
	for _, uid := range others {
		if wp := f.h.GetWaitingPod(uid); wp != nil {
			wp.Allow(floorName)
		}
	}
	return nil, 0
}
