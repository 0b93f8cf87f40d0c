package plugin

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// NRTResource is the NodeResourceTopology CRD that NFD's topology updater
// and the resource-topology-exporter publish, one cluster-scoped object
// per node, named after it. It is read as unstructured objects, so the
// plugin needs no module of its own for it.
var NRTResource = schema.GroupVersionResource{Group: "topology.node.k8s.io", Version: "v1alpha2", Resource: "noderesourcetopologies"}

// ZonesFromNRT reads the NUMA zones of a NodeResourceTopology: its zones
// of type Node, ordered by name (numerically where names end in digits,
// node-0 … node-10), each with its allocatable cpu (whole cores), memory
// (whole chunks) and gpus. Zones of other types (cores, caches) are
// ignored. A malformed object is an error naming what and where.
func ZonesFromNRT(u *unstructured.Unstructured, gpuRes v1.ResourceName, chunk int64) ([]units, error) {
	return zonesFromNRT(u, gpuRes, wholeCores(chunk))
}

// zonesFromNRT is ZonesFromNRT with core vertices of ch.MilliCPU.
func zonesFromNRT(u *unstructured.Unstructured, gpuRes v1.ResourceName, ch chunks) ([]units, error) {
	items, found, err := unstructured.NestedSlice(u.Object, "zones")
	if err != nil {
		return nil, fmt.Errorf("NodeResourceTopology %s: zones: %w", u.GetName(), err)
	}
	if !found {
		return nil, nil
	}
	type named struct {
		name string
		u    units
	}
	var zs []named
	for i, it := range items {
		z, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("NodeResourceTopology %s: zones[%d] is not an object", u.GetName(), i)
		}
		if t, _ := z["type"].(string); t != "Node" {
			continue
		}
		name, _ := z["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("NodeResourceTopology %s: zones[%d] has no name", u.GetName(), i)
		}
		res, _ := z["resources"].([]any)
		var zu units
		for j, r := range res {
			rm, ok := r.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("NodeResourceTopology %s: zones[%d].resources[%d] is not an object", u.GetName(), i, j)
			}
			rn, _ := rm["name"].(string)
			q, err := quantity(rm["allocatable"])
			if err != nil {
				return nil, fmt.Errorf("NodeResourceTopology %s: zones[%d] (%s).resources[%d] (%s).allocatable: %w", u.GetName(), i, name, j, rn, err)
			}
			switch v1.ResourceName(rn) {
			case v1.ResourceCPU:
				zu.Core = q.MilliValue() / ch.MilliCPU
			case v1.ResourceMemory:
				zu.Mem = q.Value() / ch.Bytes
			case gpuRes:
				zu.GPU = q.Value()
			}
		}
		zu = units{min(max(zu.Core, 0), maxLeaves), min(max(zu.GPU, 0), maxLeaves), min(max(zu.Mem, 0), maxLeaves)}
		zs = append(zs, named{name, zu})
	}
	if len(zs) > MaxZones {
		return nil, fmt.Errorf("NodeResourceTopology %s: %d NUMA zones, at most %d", u.GetName(), len(zs), MaxZones)
	}
	sort.SliceStable(zs, func(i, j int) bool { return natLess(zs[i].name, zs[j].name) })
	var out []units
	for _, z := range zs {
		out = append(out, z.u)
	}
	return out, nil
}

func quantity(v any) (resource.Quantity, error) {
	switch x := v.(type) {
	case string:
		return resource.ParseQuantity(x)
	case int64:
		return *resource.NewQuantity(x, resource.DecimalSI), nil
	case float64:
		return *resource.NewQuantity(int64(x), resource.DecimalSI), nil
	case nil:
		return resource.Quantity{}, fmt.Errorf("missing")
	}
	return resource.Quantity{}, fmt.Errorf("not a quantity: %v", v)
}

// natLess orders names by their text, then by a trailing number.
func natLess(a, b string) bool {
	sa, na := splitNum(a)
	sb, nb := splitNum(b)
	if sa != sb {
		return sa < sb
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

func splitNum(s string) (string, int64) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.ParseInt(s[i:], 10, 64)
	if err != nil {
		return s, -1
	}
	return strings.TrimRight(s[:i], "-_"), n
}

// followNRT keeps the nodes' NUMA zones current from their
// NodeResourceTopology objects. Where the CRD is not installed it checks
// again every minute, so installing it later works without a restart.
func (p *Plugin) followNRT(ctx context.Context, dc dynamic.Interface) {
	log := p.log.WithName("nrt")
	for {
		_, err := dc.Resource(NRTResource).List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			break
		}
		if apierrors.IsNotFound(err) {
			log.V(2).Info("no NodeResourceTopology CRD yet; nodes keep one NUMA zone each")
		} else {
			log.Error(err, "listing NodeResourceTopology objects")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(p.nrtRetry):
		}
	}
	f := dynamicinformer.NewDynamicSharedInformerFactory(dc, 0)
	inf := f.ForResource(NRTResource).Informer()
	set := func(o any) {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			return
		}
		zones, err := zonesFromNRT(u, p.c.gpuRes, p.c.chunk)
		if err != nil {
			log.Error(err, "ignoring a NodeResourceTopology")
			zones = nil
		}
		p.c.SetNUMA(u.GetName(), zones)
	}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, o any) { set(o) },
		DeleteFunc: func(o any) {
			if u, ok := unwrap(o).(*unstructured.Unstructured); ok {
				p.c.SetNUMA(u.GetName(), nil)
			}
		},
	})
	f.Start(ctx.Done())
	log.Info("following NodeResourceTopology objects", "resource", NRTResource.String())
	<-ctx.Done()
	f.Shutdown()
}
