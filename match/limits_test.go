package match

import (
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/rv1"
)

// An update R whose children name 2^63 cores used to expand them all
// (out of memory) before failing; now it fails at the first core the graph
// lacks, and books nothing.
func TestUpdateRV1ExecHugeChildSetBounded(t *testing.T) {
	g, err := rv1.ReadExec([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {"core": "0-3"}}], "nodelist": ["n[0-1]"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := rv1.ParseR([]byte(`{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-9223372036854775805"}}], "nodelist": ["n0"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	err = m.UpdateRV1Exec(r, 7, 0, 3600, emit.Discard)
	runtime.ReadMemStats(&b)
	if err == nil {
		t.Fatal("update succeeded")
	}
	if !strings.Contains(err.Error(), "couldn't find vertex in graph for core4") {
		t.Errorf("error %q", err)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 1<<20 {
		t.Errorf("the failed update allocated %d bytes", n)
	}
	w := emit.NewSimple()
	if err := m.Find("sched-now=allocated", 0, w); err != nil {
		t.Fatal(err)
	}
	if s, _ := w.Render(); s != "" {
		t.Errorf("the failed update booked:\n%s", s)
	}
}
