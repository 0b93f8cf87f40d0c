// Queue order for gangs: GoFluxionQueueSort, an optional QueueSort plugin.

package plugin

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// QueueSortName is the QueueSort plugin's name in a configuration.
const QueueSortName = "GoFluxionQueueSort"

// QueueSort orders the active queue by gang: higher priority first, then
// the older gang (its PodGroup's creation time for a native gang, the
// pod's own for a pod of a label gang, whose members are created
// together; the gang label is the default gofluxion.io/group), then by gang name so a gang's members come out together,
// then by the time they entered the queue. The in-tree PrioritySort uses
// the time an entity entered the queue instead of its creation: a gang
// that was retried goes behind younger ones. With GenericWorkload on, the
// in-tree queue already keeps a PodGroup's members together as one entity
// with the PodGroup's priority; this plugin adds the creation-time order.
// A scheduler's profiles must all use the same QueueSort plugin.
type QueueSort struct{}

var _ fwk.QueueSortPlugin = QueueSort{}

// NewQueueSort is the QueueSort plugin's factory
// (app.WithPlugin(plugin.QueueSortName, plugin.NewQueueSort)).
func NewQueueSort(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return QueueSort{}, nil
}

// Name returns QueueSortName.
func (QueueSort) Name() string { return QueueSortName }

// Less says whether a goes before b.
func (QueueSort) Less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := a.GetPriority(), b.GetPriority()
	if pa != pb {
		return pa > pb
	}
	ca, ga := entityOrigin(a)
	cb, gb := entityOrigin(b)
	if !ca.Equal(&cb) {
		return ca.Before(&cb)
	}
	if ga != gb {
		return ga < gb
	}
	return a.GetTimestamp().Before(b.GetTimestamp())
}

// entityOrigin returns an entity's creation time and gang name.
func entityOrigin(e fwk.QueuedEntityInfo) (created metav1.Time, gang string) {
	switch q := e.(type) {
	case *framework.QueuedPodGroupInfo:
		if q.PodGroup != nil {
			return q.PodGroup.CreationTimestamp, q.PodGroup.Namespace + "/podgroup/" + q.PodGroup.Name
		}
	case *framework.QueuedPodInfo:
		if pod := q.GetPod(); pod != nil {
			if name, ok := podGroupOf(pod); ok {
				return pod.CreationTimestamp, nativeKey(pod.Namespace, name)
			}
			return pod.CreationTimestamp, pod.Namespace + "/" + pod.Labels[DefaultGroupLabel]
		}
	}
	return metav1.Time{}, ""
}
