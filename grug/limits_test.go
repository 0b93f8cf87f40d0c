package grug

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

// hugeMultiplicity is issue 13's 5 KB recipe: cluster → 4 nodes → 2
// sockets → 10^8 cores each, which used to allocate 57 GB in graph.Grow.
var hugeMultiplicity = doc(
	vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("node", "type=node", "basename=node") +
		vtx("socket", "type=socket", "basename=socket") +
		vtx("core", "type=core", "basename=core") +
		edg("c", "node", "multi_scale=4") +
		edg("node", "socket", "multi_scale=2") +
		edg("socket", "core", "multi_scale=100000000"))

// wantLimitError checks that err is an *Error at line whose text names
// the limit.
func wantLimitError(t *testing.T, err error, line int, limit string) {
	t.Helper()
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %T %v, want *Error", err, err)
	}
	if !strings.Contains(ge.Reason, limit) {
		t.Errorf("error %q does not name %s", err, limit)
	}
	if line > 0 && ge.Line != line {
		t.Errorf("error at line %d, want %d (%v)", ge.Line, line, err)
	}
	if !errors.Is(err, graph.ErrLimit) {
		t.Errorf("error %v does not wrap graph.ErrLimit", err)
	}
	if ge.Fluxion() != fluxionReadError {
		t.Errorf("Fluxion() = %q", ge.Fluxion())
	}
}

// lineOf returns the line of the first occurrence of s in d.
func lineOf(d, s string) int {
	i := strings.Index(d, s)
	if i < 0 {
		return 0
	}
	return strings.Count(d[:i], "\n") + 1
}

func TestGrugHugeMultiplicityRejected(t *testing.T) {
	var g *graph.Graph
	var err error
	n := allocated(func() { g, err = Read([]byte(hugeMultiplicity)) })
	if g != nil {
		t.Fatalf("graph of %d vertices returned", g.NumVertices())
	}
	wantLimitError(t, err, lineOf(hugeMultiplicity, `<edge source="socket"`), "MaxVertices")
	if !strings.Contains(err.Error(), "generating 8 x 100000000 vertices") {
		t.Errorf("error %q does not say what was asked", err)
	}
	if n > 16<<20 {
		t.Errorf("refusing the recipe allocated %d bytes", n)
	}

	// Generate into an existing graph checks before it allocates too: the
	// graph gets the 13 vertices made before the bad edge, nothing more.
	r, err := Parse([]byte(hugeMultiplicity))
	if err != nil {
		t.Fatal(err)
	}
	g = graph.New()
	if err := r.Generate(g); err == nil {
		t.Fatal("Generate succeeded")
	}
	if g.NumVertices() != 13 {
		t.Errorf("graph has %d vertices after the failure, want 13", g.NumVertices())
	}
}

func TestGrugMaxVerticesExact(t *testing.T) {
	d := doc(vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("node", "type=node", "basename=node") +
		edg("c", "node", "multi_scale=9"))
	// 1 cluster + 9 nodes: 10 fits, 9 does not.
	g, err := ReadLimited([]byte(d), graph.ReadLimits{MaxVertices: 10})
	if err != nil || g.NumVertices() != 10 {
		t.Fatalf("limit 10: %v", err)
	}
	g, err = ReadLimited([]byte(d), graph.ReadLimits{MaxVertices: 9})
	if g != nil {
		t.Fatal("limit 9: graph returned")
	}
	wantLimitError(t, err, lineOf(d, "<edge"), "limit of 9 vertices")
}

func TestGrugDeepRecipeBounded(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString(vtx("v0", "root=1", "type=cluster", "basename=c"))
		for i := 1; i <= n; i++ {
			b.WriteString(vtx("v"+strconv.Itoa(i), "type=group", "basename=g"))
			b.WriteString(edg("v"+strconv.Itoa(i-1), "v"+strconv.Itoa(i)))
		}
		return doc(b.String())
	}
	ok := chain(graph.DefaultMaxDepth)
	g, err := Read([]byte(ok))
	if err != nil || g.NumVertices() != graph.DefaultMaxDepth+1 {
		t.Fatalf("chain at the depth limit: %v", err)
	}
	deep := chain(graph.DefaultMaxDepth + 1)
	g, err = Read([]byte(deep))
	if g != nil {
		t.Fatal("graph returned")
	}
	wantLimitError(t, err, lineOf(deep, `<edge source="v256" target="v257"`), "depth limit")

	// A chain of 5,000 levels would cost 5,000²/2 path components; it is
	// refused before anything is generated.
	r, err := Parse([]byte(chain(5000)))
	if err != nil {
		t.Fatal(err)
	}
	g = graph.New()
	n := allocated(func() { err = r.Generate(g) })
	wantLimitError(t, err, 0, "depth limit")
	if g.NumVertices() != 0 || n > 1<<20 {
		t.Errorf("refused after creating %d vertices, %d bytes", g.NumVertices(), n)
	}
}

func TestGrugLongNamesBounded(t *testing.T) {
	// A 1 MB basename below which 5,000 cores are generated: 5 GB of
	// paths, refused before they are built.
	long := strings.Repeat("x", 1<<20)
	d := doc(vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("node", "type=node", "basename="+long) +
		vtx("core", "type=core", "basename=core") +
		edg("c", "node") +
		edg("node", "core", "multi_scale=5000"))
	var g *graph.Graph
	var err error
	n := allocated(func() { g, err = Read([]byte(d)) })
	if g != nil {
		t.Fatal("graph returned")
	}
	wantLimitError(t, err, lineOf(d, `<edge source="node"`), "MaxPathBytes")
	if n > 64<<20 {
		t.Errorf("refusing the recipe allocated %d bytes", n)
	}
}

func TestGrugAssociatePairsBounded(t *testing.T) {
	// 300 x 300 ASSOCIATE_IN pairs against a limit of 50,000 (the same
	// 2 KB recipe with 30,000 x 30,000 would ask for 900 million edges).
	d := doc(vtx("c", "root=1", "type=cluster", "basename=c") +
		vtx("a", "type=a", "basename=a") +
		vtx("b", "type=b", "basename=b") +
		vtx("net", "root=1", "type=net", "basename=net", "subsystem=net") +
		vtx("na", "type=a", "basename=a", "subsystem=net") +
		vtx("nb", "type=b", "basename=b", "subsystem=net") +
		edg("c", "a", "multi_scale=300") +
		edg("c", "b", "multi_scale=300") +
		edg("net", "na", "gen_method=ASSOCIATE_IN", "e_subsystem=net") +
		edg("na", "nb", "gen_method=ASSOCIATE_IN", "e_subsystem=net"))
	g, err := ReadLimited([]byte(d), graph.ReadLimits{MaxVertices: 50000})
	if g != nil {
		t.Fatal("graph returned")
	}
	wantLimitError(t, err, lineOf(d, `<edge source="na"`), "associating 300 x 300 vertices")
	// With room for the pairs it loads.
	if _, err := ReadLimited([]byte(d), graph.ReadLimits{MaxVertices: 100000}); err != nil {
		t.Fatal(err)
	}
}

func TestGrugInputSizeBounded(t *testing.T) {
	g, err := ReadLimited([]byte(ec1), graph.ReadLimits{MaxInputBytes: int64(len(ec1)) - 1})
	if g != nil {
		t.Fatal("graph returned")
	}
	wantLimitError(t, err, 0, "more than the limit of")
	if _, err := ReadLimited([]byte(ec1), graph.ReadLimits{MaxInputBytes: int64(len(ec1))}); err != nil {
		t.Fatal(err)
	}
}
