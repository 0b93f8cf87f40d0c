package hwloc

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// nestedGroups is a Machine holding n nested Groups, each with a Core
// beside the next Group (so that every group level brings structure and
// hwloc keeps it), and a Core at the bottom: issue 13's file for n =
// 50,000, which needed more than 6.7 GB (every path repeats all its
// ancestors' names).
func nestedGroups(n int) string {
	var b strings.Builder
	b.WriteString(`<topology><object type="Machine">`)
	for range n {
		b.WriteString(`<object type="Group"><object type="Core"/>`)
	}
	b.WriteString(`<object type="Core"/>`)
	for range n {
		b.WriteString(`</object>`)
	}
	b.WriteString("</object></topology>")
	return b.String()
}

func wantError(t *testing.T, g *graph.Graph, err error, line int, text string) {
	t.Helper()
	if g != nil {
		t.Fatalf("graph of %d vertices returned with the error", g.NumVertices())
	}
	var he *Error
	if !errors.As(err, &he) {
		t.Fatalf("error %T %v, want *Error", err, err)
	}
	if !errors.Is(err, graph.ErrLimit) {
		t.Errorf("error %v does not wrap graph.ErrLimit", err)
	}
	if !strings.Contains(he.Reason, text) {
		t.Errorf("error %q does not say %q", err, text)
	}
	if line >= 0 && he.Line != line {
		t.Errorf("error at line %d, want %d", he.Line, line)
	}
}

func TestHwlocDeepNestingBounded(t *testing.T) {
	doc := nestedGroups(50000)
	var g *graph.Graph
	var err error
	n := allocated(func() { g, err = Read([]byte(doc), "") })
	wantError(t, g, err, 1, "objects nested more than 256 deep (the limit graph.ReadLimits.MaxDepth)")
	if n > 16<<20 {
		t.Errorf("refusing the document allocated %d bytes", n)
	}

	// At the limit: the Machine, 254 Groups and the Core are 256 deep.
	// The Machine has no host name, so no vertex: cluster0, 253 groups
	// (the outermost is the Machine's only child, it adds no structure)
	// and 255 cores.
	g, err = Read([]byte(nestedGroups(graph.DefaultMaxDepth-2)), "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := g.NumVertices(), 2*(graph.DefaultMaxDepth-2)+1; got != want {
		t.Errorf("%d vertices, want %d", got, want)
	}
	g, err = Read([]byte(nestedGroups(graph.DefaultMaxDepth-1)), "")
	wantError(t, g, err, 1, "nested more than 256 deep")

	g, err = ReadLimited([]byte(nestedGroups(10)), "", graph.ReadLimits{MaxDepth: 11})
	wantError(t, g, err, 1, "nested more than 11 deep")
}

func TestHwlocObjectCountBounded(t *testing.T) {
	// Objects are counted whether they become vertices or not (Misc,
	// bridges and filtered types cost memory too).
	doc := "<topology>\n<object type=\"Machine\"><info name=\"HostName\" value=\"h\"/>\n" + strings.Repeat("<object type=\"Misc\"/>\n", 9) + "</object>\n</topology>"
	g, err := ReadLimited([]byte(doc), "", graph.ReadLimits{MaxVertices: 10})
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 2 {
		t.Errorf("%d vertices", g.NumVertices())
	}
	g, err = ReadLimited([]byte(doc), "", graph.ReadLimits{MaxVertices: 9})
	wantError(t, g, err, 11, "more than 9 objects (the limit graph.ReadLimits.MaxVertices)")
}

func TestHwlocLongNamesBounded(t *testing.T) {
	// A 1 MB host name above 20,000 PUs: 20 GB of paths. Under a 64 MB
	// limit on path bytes it is refused after building at most that.
	doc := `<topology><object type="Machine"><info name="HostName" value="` + strings.Repeat("h", 1<<20) + `"/>` +
		"\n" + strings.Repeat(`<object type="PU"/>`, 20000) + "</object></topology>"
	var g *graph.Graph
	var err error
	n := allocated(func() {
		g, err = ReadLimited([]byte(doc), "", graph.ReadLimits{MaxPathBytes: 64 << 20})
	})
	wantError(t, g, err, 2, "the vertex paths exceed the limit of 67108864 bytes (graph.ReadLimits.MaxPathBytes)")
	if n > 256<<20 {
		t.Errorf("refusing the document allocated %d bytes", n)
	}
}

func TestHwlocInputSizeBounded(t *testing.T) {
	g, err := ReadLimited([]byte(v2Doc), "", graph.ReadLimits{MaxInputBytes: int64(len(v2Doc) - 1)})
	wantError(t, g, err, 0, "(graph.ReadLimits.MaxInputBytes)")
	if _, err := ReadLimited([]byte(v2Doc), "", graph.ReadLimits{MaxInputBytes: int64(len(v2Doc))}); err != nil {
		t.Fatal(err)
	}
}

// TestGroupKindsBounded: each Group kind is a level type of its own, kept
// in a 64-bit set; a document with more kinds than fit is refused.
func TestGroupKindsBounded(t *testing.T) {
	doc := func(n int) string {
		var b strings.Builder
		b.WriteString(`<topology version="2.0"><object type="Machine" cpuset="0x1"><info name="HostName" value="h1"/>`)
		for i := range n {
			b.WriteString("\n" + `<object type="Group" cpuset="0x1" kind="` + strconv.Itoa(i) + `"/>`)
		}
		b.WriteString(`<object type="Core" cpuset="0x1"/></object></topology>`)
		return b.String()
	}
	if _, err := Read([]byte(doc(maxGroupKinds)), ""); err != nil {
		t.Fatal(err)
	}
	g, err := Read([]byte(doc(maxGroupKinds+1)), "")
	var he *Error
	if g != nil || !errors.As(err, &he) || !strings.Contains(he.Reason, "more than 43 distinct Group kinds") || he.Line != maxGroupKinds+2 {
		t.Errorf("got %v, %v", g, err)
	}
}
