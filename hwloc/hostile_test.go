package hwloc

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Hostile documents cost memory in proportion to their size: the bytes
// allocated while reading (the graph included) stay under a multiple of
// the document's length. A machine with a long cpuset and many v1 NUMA
// children normalized the machine's cpuset once per child (quadratic: a
// 276 KB document took minutes), and finding the levels allocated a new
// list of the objects not yet placed for every level (objects beside a
// chain of 250 nested Groups: 1,300 bytes per document byte).
func TestHostileWorkIsLinear(t *testing.T) {
	cases := []struct {
		name string
		doc  string
	}{
		{"long parent cpuset, many v1 NUMA children", `<topology><object type="Machine" cpuset="0x1` + strings.Repeat(",", 100000) + `">` +
			strings.Repeat(`<object type="NUMANode" cpuset="0x2"/>`, 200) + `</object></topology>`},
		{"objects beside 250 nested groups", `<topology><object type="Machine">` + strings.Repeat(`<object type="PU"/>`, 20000) +
			strings.Repeat(`<object type="Group"><object type="Core"/>`, 250) + strings.Repeat(`</object>`, 250) + `</object></topology>`},
	}
	for _, c := range cases {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if _, err := Read([]byte(c.doc), ""); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		runtime.ReadMemStats(&after)
		if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(400*len(c.doc)); got > limit {
			t.Errorf("%s: %d bytes allocated for a %d-byte document (limit %d)", c.name, got, len(c.doc), limit)
		}
	}
}

// BenchmarkReadHostile reads documents whose cost grew faster than their
// size: ns/op must grow about linearly with n (a machine of n one-core
// Groups, which hwloc merges away, rewrote the machine's child list once
// per Group: quadratic), and the objects beside nested Groups (time
// objects x levels, memory linear).
func BenchmarkReadHostile(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		docs := map[string]string{
			"one-core groups": `<topology><object type="Machine">` + strings.Repeat(`<object type="Group"><object type="Core"/></object>`, n) + `</object></topology>`,
			"beside nested groups": `<topology><object type="Machine">` + strings.Repeat(`<object type="PU"/>`, n) +
				strings.Repeat(`<object type="Group"><object type="Core"/>`, 100) + strings.Repeat(`</object>`, 100) + `</object></topology>`,
		}
		for _, name := range []string{"one-core groups", "beside nested groups"} {
			doc := []byte(docs[name])
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Read(doc, ""); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
