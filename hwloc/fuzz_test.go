package hwloc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte(v2Doc), "")
	f.Add([]byte(v2Doc), "cluster,node,core,storage")
	f.Add([]byte(`<topology><object type="Machine"><info name="HostName" value="x1"/>
<object type="NUMANode"><object type="Socket"><object type="Cache" depth="2" cache_size="4096">
<object type="Core"><object type="PU"/></object></object></object></object>
<object type="NUMANode"><object type="Core"/><object type="Core"/>
<object type="Bridge"><object type="OSDev" name="opencl0d1" osdev_type="5"/></object></object>
</object></topology>`), "cluster,socket,gpu")
	f.Add([]byte(`<topology><object type="System"><object type="Machine"/><object type="Misc"/></object></topology>`), ",")
	f.Add([]byte(`<topology version="2.0"><object type="Machine"><object type="MemCache"><object type="NUMANode"/></object></object></topology>`), "")
	f.Add([]byte(`<topology><object type="Cache" depth="0"/></topology>`), "")
	// hostile documents (issue 13): deep nesting, a long host name above
	// many objects
	f.Add([]byte(nestedGroups(40)), "")
	f.Add([]byte(`<topology><object type="Machine"><info name="HostName" value="`+strings.Repeat("h", 4096)+`"/>`+
		strings.Repeat(`<object type="PU"/>`, 300)+"</object></topology>"), "")
	// the rule fixtures (cpusets, v1 NUMA nodes, caches and groups that
	// hwloc merges away, DMA devices)
	files, _ := filepath.Glob("testdata/rules/*.xml")
	for i, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data, [...]string{"", "cluster,node,socket,L3cache,core,gpu,storage", "cluster,group,numanode,L2cache,pu"}[i%3])
		}
	}
	lim := graph.ReadLimits{MaxVertices: 5000, MaxDepth: 32, MaxPathBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte, allowlist string) {
		g, err := ReadLimited(data, allowlist, lim)
		if err != nil {
			var he *Error
			if !errors.As(err, &he) {
				t.Fatalf("%T %v is not an *Error", err, err)
			}
			if g != nil {
				t.Fatal("graph returned with an error")
			}
			return
		}
		if g.NumVertices() > lim.MaxVertices+1 {
			t.Fatalf("%d vertices under a limit of %d objects", g.NumVertices(), lim.MaxVertices)
		}
		checkInvariants(t, g, allowlist)
	})
}
