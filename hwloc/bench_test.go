package hwloc

import (
	"fmt"
	"strings"
	"testing"
)

// bigV1 is an hwloc 1.x machine written for the benchmark: sockets NUMA
// nodes each (with a GPU), an L3 per 8 cores, per-core L2 and L1 caches
// and 4 PUs per core; 4 sockets of 64 cores make 1,900 objects.
func bigV1(sockets, cores int) string {
	var b strings.Builder
	all := sockets * cores * 4
	mask := func(from, n int) string { // an hwloc bitmap of PUs [from, from+n)
		words := make([]uint32, (all+31)/32)
		for i := from; i < from+n; i++ {
			words[i/32] |= 1 << (i % 32)
		}
		var s []string
		for i := len(words) - 1; i >= 0; i-- {
			s = append(s, fmt.Sprintf("0x%08x", words[i]))
		}
		return strings.Join(s, ",")
	}
	obj := func(typ string, from, n int, extra string) {
		fmt.Fprintf(&b, `<object type="%s" cpuset="%s" nodeset="0x1" %s>`, typ, mask(from, n), extra)
	}
	b.WriteString("<topology>\n")
	obj("Machine", 0, all, "")
	b.WriteString(`<info name="HostName" value="bench1"/>` + "\n")
	pu := 0
	for s := range sockets {
		obj("NUMANode", pu, cores*4, fmt.Sprintf(`os_index="%d" local_memory="1000"`, s))
		obj("Socket", pu, cores*4, "")
		for c := range cores {
			if c%8 == 0 {
				obj("Cache", pu, 32, `depth="3" cache_size="33554432"`)
			}
			obj("Cache", pu, 4, `depth="2" cache_size="1048576"`)
			obj("Cache", pu, 4, `depth="1" cache_size="32768"`)
			obj("Core", pu, 4, "")
			for range 4 {
				obj("PU", pu, 1, "")
				b.WriteString("</object>")
				pu++
			}
			b.WriteString("</object></object></object>\n")
			if c%8 == 7 {
				b.WriteString("</object>\n")
			}
		}
		b.WriteString("</object>")
		fmt.Fprintf(&b, `<object type="Bridge"><object type="PCIDev"><object type="OSDev" name="cuda%d" osdev_type="5"/></object></object>`, s)
		b.WriteString("</object>\n")
	}
	b.WriteString("</object></topology>\n")
	return b.String()
}

func BenchmarkRead(b *testing.B) {
	doc := []byte(bigV1(4, 64))
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(doc, ""); err != nil {
			b.Fatal(err)
		}
	}
}
