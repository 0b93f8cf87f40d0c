package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// milliConfig is schedulerConfig with core vertices of 100m and memory
// vertices of 64Mi, for the profile gofluxion-milli.
var milliConfig = strings.NewReplacer(
	"resourceName: gofluxion-scheduler", "resourceName: gofluxion-milli",
	"schedulerName: gofluxion\n", "schedulerName: gofluxion-milli\n",
	"policy: lonode\n", "policy: lonode\n          cpuChunk: 100m\n          memoryChunk: 64Mi\n",
).Replace(schedulerConfig)

// millicorePacking: with cpuChunk 100m, 40 single pods of 100m cpu and
// 64Mi bind to one 4-core node, as NodeResourcesFit packs them, and a
// 41st waits with our explanation; after kill -9 and a restart the
// scheduler replays the 40 Rs and still refuses the 41st, and binds it
// once a pod is gone. The main scheduler is stopped meanwhile: a pod's R
// is meant for the scheduler that wrote it.
func millicorePacking(t *testing.T, k kube, main, milli *scheduler, wait time.Duration) {
	if strings.Count(milliConfig, "gofluxion-milli") != 2 || !strings.Contains(milliConfig, "cpuChunk: 100m") {
		t.Fatalf("milliConfig did not derive from schedulerConfig:\n%s", milliConfig)
	}
	t.Cleanup(func() {
		k.cleanup([]string{"mc-n0"}, "mc-")
		milli.kill()
		main.start()
	})
	main.kill()
	milli.start()
	k.addNode("mc-n0", 4, 16, 0)
	create := func(name string) {
		p := podSpec(name, "", 0, 0, 0, 0)
		p.Spec.SchedulerName = "gofluxion-milli"
		// only mc-n0, whatever nodes an earlier failed subtest left behind
		p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "mc-n0"}
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(100, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(64<<20, resource.BinarySI),
		}
		if _, err := k.cs.CoreV1().Pods("default").Create(k.ctx(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var pods []string
	for i := range 40 {
		pods = append(pods, fmt.Sprintf("mc-%d", i))
		create(pods[i])
	}
	pl := k.waitBound(pods, wait)
	for p, n := range pl {
		if n != "mc-n0" {
			t.Fatalf("%s on %s", p, n)
		}
	}
	k.checkCapacity()
	create("mc-late")
	msg := k.waitEvent([]string{"mc-late"}, "needs 1 node (with 1 core, 1 memory each): 0 found now, 1 when free", wait)
	t.Logf("41st pod: %s", msg)
	k.requireNoneBound([]string{"mc-late"}, time.Second)

	milli.kill()
	milli.start()
	k.requireNoneBound([]string{"mc-late"}, 5*time.Second)
	if !milli.logContains(`"state rebuilt"`) {
		t.Error("the restarted scheduler did not log its rebuilt state")
	}
	k.deletePods(pods[:1])
	k.waitBound([]string{"mc-late"}, wait)
	k.checkCapacity()
}
