package plugin

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/gofluxion/gofluxion/internal/jsonw"
)

// libraryR is the reference for renderR: gofluxion's own rendering of the
// allocation made by updating a fresh matcher, over the same node, with
// the pod's JGF (what the plugin did for every pod before gangs were
// booked by their match).
func libraryR(t *testing.T, mutate func(*Args), n *v1.Node, zones []units, leaves []leaf, format string, start, end int64) (string, *nodeState) {
	t.Helper()
	c := newCluster(t, mutate, func(a *Args) { a.RFormat = format })
	if zones != nil {
		c.SetNUMA(n.Name, zones)
	}
	addNodes(c, n)
	ns := c.nodes[n.Name]
	doc, err := ns.bookJGF(leaves)
	if err != nil {
		t.Fatal(err)
	}
	if end != 0 {
		doc = windowed(doc, start, end)
	}
	a, err := inproc(c).Update(1, doc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := a.Render(format)
	if err != nil {
		t.Fatal(err)
	}
	return r, ns
}

// renderR writes, byte for byte, what gofluxion renders for a pod's update
// (random pods on nodes with and without levels, labels, NUMA zones).
func TestRenderRMatchesGofluxion(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC).Unix()
	for i := range 200 {
		mutate := func(*Args) {}
		if i%3 != 0 {
			mutate = zoneRack
		}
		zone, rack := "", ""
		if i%4 != 0 {
			zone = fmt.Sprintf("z%d", rng.IntN(3))
		}
		if i%5 != 0 {
			rack = fmt.Sprintf("rack-%02d", rng.IntN(20))
		}
		cores, gib, gpus := int64(2+rng.IntN(30)), int64(1+rng.IntN(64)), int64(rng.IntN(5))
		n := lnode(fmt.Sprintf("node-%04d", rng.IntN(10000)), zone, rack, cores, gib, gpus)
		if i%7 == 0 {
			n.Labels["empty"] = ""
			n.Labels["a.example.com/x"] = "y"
		}
		var zones []units
		if i%2 == 0 {
			half := units{Core: cores / 2, GPU: gpus / 2, Mem: gib / 2}
			zones = []units{half, units{Core: cores, GPU: gpus, Mem: gib}.minus(half)}
		}
		capu := capacity(nodeRaw(n, gpuName), wholeCores(1<<30))
		var ls []leaf
		for _, t := range leafTypes {
			if k := capu.get(t); k > 0 && rng.IntN(3) > 0 {
				lo := rng.Int64N(k)
				for id := lo; id < min(k, lo+1+rng.Int64N(4)); id++ {
					ls = append(ls, leaf{t, id})
				}
			}
		}
		if len(ls) == 0 {
			ls = []leaf{{"core", 0}}
		}
		rng.Shuffle(len(ls), func(a, b int) { ls[a], ls[b] = ls[b], ls[a] })
		var s, e int64
		if i%2 == 1 {
			s, e = start, start+int64(1+rng.IntN(86400))
		}
		for _, format := range []string{"jgf", "rv1"} {
			want, ns := libraryR(t, mutate, n, zones, ls, format, s, e)
			got := renderR(&ns.place, ns.labels, ls, format, s, e)
			if got != want {
				t.Fatalf("case %d %s (leaves %v):\n got %s\nwant %s", i, format, ls, got, want)
			}
		}
	}
}

// annotationPatch is the merge patch setting annotations: the reference
// Cluster.AnnotationPatch is checked against.
func annotationPatch(ann map[string]string) []byte {
	n := 32
	for k, v := range ann {
		n += len(k) + len(v) + len(v)/4 + 8 // an R: a quote every few bytes
	}
	b := append(make([]byte, 0, n), `{"metadata":{"annotations":{`...)
	for i, k := range slices.Sorted(maps.Keys(ann)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = appendJSONString(b, ann[k])
	}
	return append(b, "}}}"...)
}

// The PreBind patch is the JSON merge patch of the annotations.
func TestAnnotationPatch(t *testing.T) {
	ann := map[string]string{AnnotationJobID: "17", AnnotationR: "{\"graph\": \"a\\\\b\u2028\"}\n", AnnotationEnd: "2026-12-01T14:00:00Z"}
	var got struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(annotationPatch(ann), &got); err != nil || !maps.Equal(got.Metadata.Annotations, ann) {
		t.Fatalf("%s: %v %v", annotationPatch(ann), got, err)
	}
}

// appendJSONString escapes as gofluxion's writer (jansson) does.
func TestAppendJSONStringAsGofluxion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	cases := []string{"", "plain", `q"b\s`, "\x00\x1f\x7f\n\r\t\b\f", "é✓\u2028", "\xff\xfebad", "/a/b"}
	for range 2000 {
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		cases = append(cases, string(b))
	}
	for _, s := range cases {
		if got, want := string(appendJSONString(nil, s)), string(jsonw.AppendString(nil, s)); got != want {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	}
}

// appendJSONBytes writes what appendJSONString writes, with room to spare.
func TestAppendJSONBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	cases := []string{"", "plain", `q"b\s`, "\x00\x1f\x7f\n\r\t\b\f", "é✓\u2028", "\xff\xfebad", "/a/b", `{"graph": {"nodes": []}}` + "\n"}
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		fast := rng.IntN(2) == 0 // only bytes the fast path takes
		for i := range b {
			if fast {
				b[i] = "ab{} :,\"\\\n\r\t\b\f"[rng.IntN(14)]
			} else if rng.IntN(4) == 0 {
				b[i] = byte(rng.IntN(256))
			} else {
				b[i] = byte(rng.IntN(0x80))
			}
		}
		cases = append(cases, string(b))
	}
	for i, s := range cases {
		prefix := []byte("x:")
		got := appendJSONBytes(prefix, []byte(s), i%100)
		if want := string(appendJSONString([]byte("x:"), s)); string(got) != want {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
		if cap(got)-len(got) < i%100 {
			t.Fatalf("%q: %d bytes to spare, want %d", s, cap(got)-len(got), i%100)
		}
	}
}
