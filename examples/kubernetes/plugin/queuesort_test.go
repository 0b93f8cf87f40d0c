package plugin

import (
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// The queue order: priority, then the gang's creation time, then the gang
// (members together), then queue entry; the in-tree PrioritySort would put
// a retried old gang behind younger ones.
func TestQueueSort(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	queued := func(name, group string, prio int32, created, entered int) fwk.QueuedEntityInfo {
		p := pod(name, group, 1, 100, 1, 0)
		p.Spec.Priority = &prio
		p.CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(created) * time.Second))
		return &framework.QueuedPodInfo{PodInfo: &framework.PodInfo{Pod: p}, QueueingParams: framework.QueueingParams{Timestamp: t0.Add(time.Duration(entered) * time.Second)}}
	}
	group := func(name string, prio int32, created, entered int) fwk.QueuedEntityInfo {
		pg := gangPodGroup(name, 2)
		pg.Spec.Priority = &prio
		pg.CreationTimestamp = metav1.NewTime(t0.Add(time.Duration(created) * time.Second))
		return &framework.QueuedPodGroupInfo{
			PodGroupInfo:   &framework.PodGroupInfo{Namespace: "default", Name: name, Type: fwk.PodGroupKeyType, PodGroup: pg, UnscheduledPods: []*v1.Pod{}},
			QueueingParams: framework.QueueingParams{Timestamp: t0.Add(time.Duration(entered) * time.Second)},
		}
	}
	name := func(e fwk.QueuedEntityInfo) string {
		switch q := e.(type) {
		case *framework.QueuedPodInfo:
			return q.Pod.Name
		case *framework.QueuedPodGroupInfo:
			return "pg:" + q.Name
		}
		return "?"
	}
	es := []fwk.QueuedEntityInfo{
		queued("young-0", "young", 0, 50, 1), // young gang, entered first
		queued("old-1", "old", 0, 10, 90),    // old gang, retried: entered late
		queued("high", "", 5, 99, 99),        // higher priority wins over age
		group("pgold", 0, 5, 80),             // a native gang, oldest of priority 0
		queued("old-0", "old", 0, 10, 70),
		queued("young-1", "young", 0, 50, 2),
	}
	var qs QueueSort
	slices.SortStableFunc(es, func(a, b fwk.QueuedEntityInfo) int {
		if qs.Less(a, b) {
			return -1
		}
		if qs.Less(b, a) {
			return 1
		}
		return 0
	})
	var got []string
	for _, e := range es {
		got = append(got, name(e))
	}
	want := []string{"high", "pg:pgold", "old-0", "old-1", "young-0", "young-1"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}
