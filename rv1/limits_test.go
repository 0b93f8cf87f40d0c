package rv1

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

func execDoc(children, nodelist string) string {
	return `{"version": 1, "execution": {"R_lite": [{"rank": "0-1", "children": {` + children + `}}], "nodelist": [` + nodelist + `]}}`
}

func wantReadError(t *testing.T, g *graph.Graph, err error, text string) {
	t.Helper()
	if g != nil {
		t.Fatalf("graph of %d vertices returned", g.NumVertices())
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v, want *Error", err, err)
	}
	if isLimit := strings.Contains(strings.ToLower(text), "limit"); errors.Is(err, graph.ErrLimit) != isLimit {
		t.Errorf("error %v: errors.Is(err, graph.ErrLimit) is %v", err, !isLimit)
	}
	if !strings.Contains(e.Error(), text) {
		t.Errorf("error %q does not say %q", err, text)
	}
}

func TestRV1ExecBadChildTypesRejected(t *testing.T) {
	for _, c := range []struct{ typ, why string }{
		{"", `R_lite[0].children: invalid child type "": a type must not be empty`},
		{"cluster", `R_lite[0].children: invalid child type "cluster": the reader makes the cluster vertices itself`},
		{"node", `R_lite[0].children: invalid child type "node": the reader makes the node vertices itself`},
		{"core/x", `R_lite[0].children: invalid child type "core/x": a type must not contain "/"`},
		{"/", `invalid child type "/"`},
	} {
		doc := execDoc(`"core": "0-1", "`+c.typ+`": "0"`, `"n[0-1]"`)
		g, err := ReadExec([]byte(doc))
		wantReadError(t, g, err, c.why)
		// The R of an update or partial cancel is read by ParseR: the
		// same rule.
		r, err := ParseR([]byte(doc))
		if r != nil || err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseR(%q) = %v, %v", c.typ, r, err)
		}
	}
	// Other types, odd as they may be, are still accepted (Fluxion does).
	for _, typ := range []string{"core", "gpu", "memory", "asic", "Core", "rack", "core x", "socket0"} {
		g, err := ReadExec([]byte(execDoc(`"`+typ+`": "0"`, `"n[0-1]"`)))
		if err != nil {
			t.Errorf("type %q: %v", typ, err)
			continue
		}
		if g.NumVertices() != 5 {
			t.Errorf("type %q: %d vertices", typ, g.NumVertices())
		}
	}
}

func TestRV1ExecVerticesBounded(t *testing.T) {
	doc := execDoc(`"core": "0-3"`, `"n[0-1]"`) // 1 + 2 × 5 = 11 vertices
	if g, err := ReadExecLimited([]byte(doc), graph.ReadLimits{MaxVertices: 11}); err != nil || g.NumVertices() != 11 {
		t.Fatalf("limit 11: %v", err)
	}
	g, err := ReadExecLimited([]byte(doc), graph.ReadLimits{MaxVertices: 10})
	wantReadError(t, g, err, "more than 10 vertices (the limit graph.ReadLimits.MaxVertices)")
	g, err = ReadExecLimited([]byte(doc), graph.ReadLimits{MaxVertices: 1})
	wantReadError(t, g, err, "R_lite names 2 ranks (more than the limit of 1)")
}

func TestRV1ExecLongHostNamesBounded(t *testing.T) {
	// 4 KB host names for 1,000,000 ranks: 4 GB of names (and more of
	// paths) from a 4 KB document, refused before any is expanded.
	long := strings.Repeat("h", 4096)
	doc := `{"version": 1, "execution": {"R_lite": [{"rank": "0-999999", "children": {}}], "nodelist": ["` + long + `[0-999999]"]}}`
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	g, err := ReadExec([]byte(doc))
	runtime.ReadMemStats(&b)
	wantReadError(t, g, err, "the host names of the nodelist exceed the limit of 1073741824 bytes (graph.ReadLimits.MaxPathBytes)")
	if n := b.TotalAlloc - a.TotalAlloc; n > 16<<20 {
		t.Errorf("refusing the document allocated %d bytes", n)
	}
	r, err := ParseR([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if h, err := r.Hosts(); err == nil {
		t.Fatalf("Hosts expanded %d names", len(h))
	}

	// Paths: each child repeats its node's path.
	doc = execDoc(`"core": "0-999"`, `"`+long[:1000]+`[0-1]"`)
	g, err = ReadExecLimited([]byte(doc), graph.ReadLimits{MaxPathBytes: 1 << 20})
	wantReadError(t, g, err, "the vertex paths exceed the limit of 1048576 bytes (graph.ReadLimits.MaxPathBytes)")
	if _, err := ReadExecLimited([]byte(doc), graph.ReadLimits{MaxPathBytes: 4 << 20}); err != nil {
		t.Fatal(err)
	}
}

func TestRV1ExecInputSizeBounded(t *testing.T) {
	doc := execDoc(`"core": "0"`, `"n[0-1]"`)
	g, err := ReadExecLimited([]byte(doc), graph.ReadLimits{MaxInputBytes: int64(len(doc) - 1)})
	wantReadError(t, g, err, "(graph.ReadLimits.MaxInputBytes)")
	if _, err := ReadExecLimited([]byte(doc), graph.ReadLimits{MaxInputBytes: int64(len(doc))}); err != nil {
		t.Fatal(err)
	}
}
