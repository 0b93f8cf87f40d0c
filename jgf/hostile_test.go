package jgf

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// Hostile inputs (issue 13, item 8, and the reader's limits): each test is
// named after what it checks. The strict reader (the default) refuses
// nonsense Fluxion loads silently, naming the node and field or the edge;
// Options{Fluxion: true} keeps Fluxion's behaviour for resource-query.

func strictErr(t *testing.T, doc string) *Error {
	t.Helper()
	g, err := Read([]byte(doc))
	if err == nil {
		t.Fatalf("strict Read accepted it (%d vertices)", g.NumVertices())
	}
	e := asError(t, err)
	if !e.Strict {
		t.Fatalf("error %v is not a strict-only error", err)
	}
	if e.Fluxion() == "" || strings.Contains(e.Error(), "\n") {
		t.Errorf("texts %q / %q", e.Error(), e.Fluxion())
	}
	return e
}

func fluxionOK(t *testing.T, doc string) *graph.Graph {
	t.Helper()
	g, err := fluxionMode.Read([]byte(doc))
	if err != nil {
		t.Fatalf("Fluxion mode: %v", err)
	}
	return g
}

func sizeDoc(size string) string {
	return nodesDoc(`{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
		{"id": "1", "metadata": {"type": "memory", "size": `+size+`, "paths": {"containment": "/c0/memory1"}}}`,
		`{"source": "0", "target": "1"}`)
}

func TestStrictRejectsNegativeSizeNamingNodeAndField(t *testing.T) {
	e := strictErr(t, sizeDoc("-5"))
	if e.Node != 1 || e.NodeID != "1" || e.Edge != -1 || !strings.Contains(e.Error(), `field "size": -5 is negative`) {
		t.Errorf("%v", e)
	}
	// Fluxion wraps it to 32 bits.
	if got := fluxionOK(t, sizeDoc("-5")).V(1).Size; got != 4294967291 {
		t.Errorf("Fluxion mode size %d, want 4294967291", got)
	}
}

func TestStrictRejectsSizeOf2To32NamingNodeAndField(t *testing.T) {
	e := strictErr(t, sizeDoc("4294967296"))
	if e.Node != 1 || !strings.Contains(e.Error(), `field "size": 4294967296 does not fit in 32 bits`) {
		t.Errorf("%v", e)
	}
	if got := fluxionOK(t, sizeDoc("4294967296")).V(1).Size; got != 0 {
		t.Errorf("Fluxion mode size %d, want 0", got)
	}
}

func TestStrictAcceptsSizeSentinelZeroAndMaxUint32(t *testing.T) {
	for size, want := range map[string]int64{"-1": 1, "0": 0, "4294967295": 4294967295} {
		g, err := Read([]byte(sizeDoc(size)))
		if err != nil {
			t.Fatalf("size %s: %v", size, err)
		}
		if got := g.V(1).Size; got != want {
			t.Errorf("size %s stored as %d", size, got)
		}
	}
}

func TestStrictRejectsSizeInParseAndInHandMadeDocuments(t *testing.T) {
	if _, err := Parse([]byte(sizeDoc("-5"))); err == nil || !asError(t, err).Strict {
		t.Errorf("Parse: %v", err)
	}
	doc := &Document{Nodes: []Node{{ID: "0", Metadata: Metadata{Type: "core", Basename: "core", Name: "core0", Rank: -1, Size: -7}}}}
	g := graph.New()
	err := Load(g, doc)
	if err == nil || !asError(t, err).Strict || g.NumVertices() != 0 {
		t.Errorf("Load of a hand-made document: %v, %d vertices", err, g.NumVertices())
	}
}

func TestStrictRejectsSelfLoopNamingEdge(t *testing.T) {
	doc := nodesDoc(n0+", "+n1, `{"source": "0", "target": "1"}, {"source": "1", "target": "1", "metadata": {"subsystem": "power"}}`)
	e := strictErr(t, doc)
	if e.Edge != 1 || e.Node != -1 || !strings.Contains(e.Error(), "self-loop on node1 in subsystem power") {
		t.Errorf("%v", e)
	}
	if g := fluxionOK(t, doc); g.NumEdges() != 2 {
		t.Errorf("Fluxion mode: %d edges", g.NumEdges())
	}
}

func TestStrictRejectsSecondContainmentParentNamingEdgeAndVertices(t *testing.T) {
	n2 := `{"id": "2", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node2"}}}`
	core := `{"id": "3", "metadata": {"type": "core", "paths": {"containment": "/cluster0/node1/core3"}}}`
	doc := nodesDoc(n0+", "+n1+", "+n2+", "+core,
		`{"source": "0", "target": "1"}, {"source": "0", "target": "2"}, {"source": "1", "target": "3"}, {"source": "2", "target": "3"}`)
	e := strictErr(t, doc)
	if e.Edge != 3 || !strings.Contains(e.Error(), "a second containment parent for core3: node2 (it is in node1)") {
		t.Errorf("%v", e)
	}
	if g := fluxionOK(t, doc); len(g.In(3)) != 2 {
		t.Errorf("Fluxion mode: in-edges %v", g.In(3))
	}
	// Two parents in another subsystem are allowed (a node on two
	// switches).
	sw := `{"id": "8", "metadata": {"type": "switch", "paths": {"net": "/sw8"}}}, {"id": "9", "metadata": {"type": "switch", "paths": {}}}`
	doc = nodesDoc(n0+", "+n1+", "+n2+", "+core+", "+sw,
		`{"source": "0", "target": "1"}, {"source": "0", "target": "2"}, {"source": "1", "target": "3"},
		 {"source": "8", "target": "9", "metadata": {"subsystem": "net"}}, {"source": "8", "target": "3", "metadata": {"subsystem": "net"}}, {"source": "9", "target": "3", "metadata": {"subsystem": "net"}}`)
	if _, err := Read([]byte(doc)); err != nil {
		t.Errorf("two parents in subsystem net: %v", err)
	}
}

func TestStrictRejectsCycleNamingTheEdgeThatClosesIt(t *testing.T) {
	n2 := `{"id": "2", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node2"}}}`
	doc := nodesDoc(n0+", "+n1+", "+n2,
		`{"source": "1", "target": "2", "metadata": {"subsystem": "power"}}, {"source": "2", "target": "0", "metadata": {"subsystem": "power"}}, {"source": "0", "target": "1", "metadata": {"subsystem": "power"}}`)
	e := strictErr(t, doc)
	if e.Edge != 2 || !strings.Contains(e.Error(), "a cycle in subsystem power: ") || !strings.Contains(e.Error(), "node1 -> node2") {
		t.Errorf("%v", e)
	}
	if g := fluxionOK(t, doc); g.NumEdges() != 3 {
		t.Errorf("Fluxion mode: %d edges", g.NumEdges())
	}
	// A containment cycle with one parent each: no root reaches it.
	doc = nodesDoc(n0+", "+n1+", "+n2, `{"source": "1", "target": "2"}, {"source": "2", "target": "1"}`)
	if e := strictErr(t, doc); e.Edge != 1 || !strings.Contains(e.Error(), "cycle in subsystem containment") {
		t.Errorf("%v", e)
	}
}

func TestStrictRejectsDeepCycleWithoutRecursion(t *testing.T) {
	// A chain of 200,000 vertices closed into a cycle: the search is
	// iterative, so depth does not matter.
	n := 200000
	if testing.Short() {
		n = 20000
	}
	var nodes, edges strings.Builder
	for i := range n {
		if i > 0 {
			nodes.WriteString(", ")
			edges.WriteString(", ")
		}
		nodes.WriteString(`{"id": "` + strconv.Itoa(i) + `", "metadata": {"type": "x", "paths": {}}}`)
		edges.WriteString(`{"source": "` + strconv.Itoa(i) + `", "target": "` + strconv.Itoa((i+1)%n) + `"}`)
	}
	e := strictErr(t, nodesDoc(nodes.String(), edges.String()))
	if e.Edge != n-1 {
		t.Errorf("%v", e)
	}
}

func TestStrictAttachRejectsSecondParentOfExistingVertexAndChangesNothing(t *testing.T) {
	g := attachBase() // cluster0 -> node1 -> core0
	before := graphString(g)
	doc, err := Parse([]byte(nodesDoc(`{"id": "n", "metadata": {"type": "node", "uniq_id": 1, "rank": -1, "paths": {"containment": "/cluster0/node1"}}},
		{"id": "x", "metadata": {"type": "socket", "uniq_id": 50, "paths": {"containment": "/cluster0/node1/x"}}},
		{"id": "c", "metadata": {"type": "core", "uniq_id": 2, "rank": -1, "paths": {"containment": "/cluster0/node1/core0"}}}`,
		`{"source": "n", "target": "x"}, {"source": "x", "target": "c"}`)))
	if err != nil {
		t.Fatal(err)
	}
	err = Load(g, doc)
	if err == nil || !asError(t, err).Strict || asError(t, err).Edge != 1 {
		t.Fatalf("Load: %v", err)
	}
	if graphString(g) != before {
		t.Error("a failed strict attach changed the graph")
	}
	// Fluxion's reader attaches it.
	if err := fluxionMode.Load(g, doc); err != nil {
		t.Fatal(err)
	}
}

func TestStrictAttachRejectsCycleThroughExistingVertices(t *testing.T) {
	g := attachBase()
	before := graphString(g)
	// A new vertex under core0 that contains node1 again.
	doc, err := Parse([]byte(nodesDoc(`{"id": "c", "metadata": {"type": "core", "uniq_id": 2, "rank": -1, "paths": {"containment": "/cluster0/node1/core0"}}},
		{"id": "n", "metadata": {"type": "node", "uniq_id": 1, "rank": -1, "paths": {"containment": "/cluster0/node1"}}},
		{"id": "x", "metadata": {"type": "socket", "uniq_id": 50, "paths": {"containment": "/cluster0/node1/core0/x"}}}`,
		`{"source": "c", "target": "x"}, {"source": "x", "target": "n", "metadata": {"subsystem": "power"}}, {"source": "n", "target": "x", "metadata": {"subsystem": "power"}}`)))
	if err != nil {
		t.Fatal(err)
	}
	err = Load(g, doc)
	if err == nil || !asError(t, err).Strict || !strings.Contains(err.Error(), "cycle in subsystem power") {
		t.Fatalf("Load: %v", err)
	}
	if graphString(g) != before {
		t.Error("a failed strict attach changed the graph")
	}
}

func TestLimitMaxInputBytesRefusesLargerDocument(t *testing.T) {
	doc := []byte(nodesDoc(n0, ""))
	_, err := Options{MaxInputBytes: int64(len(doc) - 1)}.Read(doc)
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "Options.MaxInputBytes") {
		t.Fatalf("Read: %v", err)
	}
	if _, err := (Options{MaxInputBytes: int64(len(doc))}).Read(doc); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	if _, err := (Options{MaxInputBytes: 10}).Parse(doc); !errors.Is(err, ErrLimit) {
		t.Fatalf("Parse: %v", err)
	}
}

func TestLimitMaxInputBytesStopsReadFileEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(path, []byte(nodesDoc(n0+", "+n1, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Options{MaxInputBytes: 32}.ReadFile(path)
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("ReadFile: %v", err)
	}
	// A device without a size is read up to the limit only.
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := Options{MaxInputBytes: 1 << 20}.ReadFile("/dev/zero")
		if !errors.Is(err, ErrLimit) {
			t.Fatalf("ReadFile(/dev/zero): %v", err)
		}
	}
}

func TestLimitMaxVerticesNamesTheNodeThatExceedsIt(t *testing.T) {
	doc := []byte(nodesDoc(n0+", "+n1+`, {"id": "2", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node2"}}}`, ""))
	for _, o := range []Options{{MaxVertices: 2}, {MaxVertices: 2, Fluxion: true}} {
		_, err := o.Read(doc)
		e := asError(t, err)
		if !errors.Is(err, ErrLimit) || e.Node != 2 || !strings.Contains(e.Error(), "Options.MaxVertices") {
			t.Errorf("%+v: %v", o, err)
		}
		if _, err := o.Parse(doc); !errors.Is(err, ErrLimit) {
			t.Errorf("%+v Parse: %v", o, err)
		}
	}
	// Reused vertices do not count against the limit of a Load.
	g := attachBase()
	d, err := Parse([]byte(nodesDoc(`{"id": "a", "metadata": {"type": "cluster", "uniq_id": 0, "paths": {"containment": "/cluster0"}}},
		{"id": "b", "metadata": {"type": "node", "uniq_id": 9, "paths": {"containment": "/cluster0/node9"}}}`, `{"source": "a", "target": "b"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := (Options{MaxVertices: 1}).Load(g, d); err != nil {
		t.Errorf("Load of one new vertex under the limit of 1: %v", err)
	}
	if err := (Options{MaxVertices: 1}).Load(attachBase(), &Document{Nodes: append(d.Nodes, Node{ID: "c", Metadata: Metadata{Type: "x", Basename: "x", Name: "x", UniqID: 10, Rank: -1, Size: 1}})}); !errors.Is(err, ErrLimit) {
		t.Errorf("Load of two new vertices under the limit of 1: %v", err)
	}
}

func TestLimitSyntaxErrorStillWinsOverLimit(t *testing.T) {
	// Like Fluxion, which parses the whole document first: the result does
	// not depend on how far the reader got.
	doc := []byte(`{"graph": {"nodes": [` + n0 + `, ` + n1 + `], "edges": [}`)
	_, err := Options{MaxVertices: 1}.Read(doc)
	if e := asError(t, err); e.Line == 0 || errors.Is(err, ErrLimit) {
		t.Errorf("%v", err)
	}
}

func TestDefaultsAreTheDocumentedLimits(t *testing.T) {
	var o Options
	if o.maxInput() != DefaultMaxInputBytes || o.maxVertices() != DefaultMaxVertices || DefaultMaxVertices != 1<<23 || DefaultMaxInputBytes != 1<<30 {
		t.Errorf("%d %d", o.maxInput(), o.maxVertices())
	}
	if (Options{MaxVertices: -3, MaxInputBytes: -1}).maxVertices() != DefaultMaxVertices {
		t.Error("negative limits are not the defaults")
	}
}

func TestReadDoesNotKeepTheInput(t *testing.T) {
	data := []byte(a2)
	g, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	before := graphString(g)
	for i := range data {
		data[i] = 'x'
	}
	if graphString(g) != before {
		t.Error("the graph shares memory with the input")
	}
	doc, err := Parse([]byte(a2))
	if err != nil {
		t.Fatal(err)
	}
	d2 := []byte(a2)
	doc2, _ := Parse(d2)
	for i := range d2 {
		d2[i] = 'x'
	}
	if docString(doc) != docString(doc2) {
		t.Error("the document shares memory with the input")
	}
}

func TestStrictRejectsVertexWithoutContainmentParentNamingIt(t *testing.T) {
	doc := nodesDoc(`{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
		{"id": "1", "metadata": {"type": "node", "paths": {"containment": "/c0/node1"}}},
		{"id": "2", "metadata": {"type": "node", "paths": {"containment": "/other/node2"}}}`,
		`{"source": "0", "target": "1"}`)
	e := strictErr(t, doc)
	if e.Node != 2 || !strings.Contains(e.Error(), "node2 (path /other/node2)") {
		t.Errorf("%v", e)
	}
	// The same through a Document (the deferred builder) and in Load.
	d, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(graph.New(), d); err == nil || asError(t, err).Node != 2 {
		t.Errorf("Load: %v", err)
	}
	if g := fluxionOK(t, doc); g.NumVertices() != 3 {
		t.Errorf("Fluxion mode: %d vertices", g.NumVertices())
	}
	// A vertex without a containment path is not in the containment tree.
	fluxionOK(t, nodesDoc(`{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
		{"id": "1", "metadata": {"type": "pdu", "paths": {"power": "/p/pdu1"}}}`, ""))
	if _, err := Read([]byte(nodesDoc(`{"id": "0", "metadata": {"type": "cluster", "paths": {"containment": "/c0"}}},
		{"id": "1", "metadata": {"type": "pdu", "paths": {"power": "/p/pdu1"}}}`, ""))); err != nil {
		t.Errorf("a vertex outside containment: %v", err)
	}
}

func TestStrictAttachRejectsTypeClashNamingPathAndTypes(t *testing.T) {
	g := attachBase() // cluster0 -> node1 -> core0
	before := graphString(g)
	r := g.V(g.ByPath("/cluster0/node1")[0]).Rank
	doc, err := Parse([]byte(nodesDoc(`{"id": "n", "metadata": {"type": "core", "uniq_id": 1, "rank": `+strconv.FormatInt(r, 10)+`, "paths": {"containment": "/cluster0/node1"}}},
		{"id": "x", "metadata": {"type": "socket", "uniq_id": 50, "paths": {"containment": "/cluster0/node1/x"}}}`,
		`{"source": "n", "target": "x"}`)))
	if err != nil {
		t.Fatal(err)
	}
	err = Load(g, doc)
	if err == nil || !asError(t, err).Strict || !strings.Contains(err.Error(), "path /cluster0/node1 is a node already, not a core") {
		t.Fatalf("Load: %v", err)
	}
	if graphString(g) != before {
		t.Error("a failed strict attach changed the graph")
	}
	if err := fluxionMode.Load(g, doc); err != nil {
		t.Fatal(err)
	}
}

func TestStrictAttachRejectsSecondNodeWithARankNamingBoth(t *testing.T) {
	g := attachBase()
	before := graphString(g)
	r := strconv.FormatInt(g.V(g.ByPath("/cluster0/node1")[0]).Rank, 10)
	doc, err := Parse([]byte(nodesDoc(`{"id": "c", "metadata": {"type": "cluster", "uniq_id": 0, "rank": -1, "paths": {"containment": "/cluster0"}}},
		{"id": "n", "metadata": {"type": "node", "uniq_id": 70, "rank": `+r+`, "paths": {"containment": "/cluster0/node7"}}},
		{"id": "k", "metadata": {"type": "core", "uniq_id": 71, "rank": `+r+`, "paths": {"containment": "/cluster0/node7/core0"}}}`,
		`{"source": "c", "target": "n"}, {"source": "n", "target": "k"}`)))
	if err != nil {
		t.Fatal(err)
	}
	err = Load(g, doc)
	if err == nil || !asError(t, err).Strict || asError(t, err).Node != 1 ||
		!strings.Contains(err.Error(), "node /cluster0/node7 has rank "+r+", which node /cluster0/node1 has already") {
		t.Fatalf("Load: %v", err)
	}
	if graphString(g) != before {
		t.Error("a failed strict attach changed the graph")
	}
	// Two new nodes of one document with one rank.
	doc, err = Parse([]byte(nodesDoc(`{"id": "c", "metadata": {"type": "cluster", "uniq_id": 0, "rank": -1, "paths": {"containment": "/cluster0"}}},
		{"id": "n", "metadata": {"type": "node", "uniq_id": 70, "rank": 90, "paths": {"containment": "/cluster0/node7"}}},
		{"id": "m", "metadata": {"type": "node", "uniq_id": 80, "rank": 90, "paths": {"containment": "/cluster0/node8"}}}`,
		`{"source": "c", "target": "n"}, {"source": "c", "target": "m"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(g, doc); err == nil || !strings.Contains(err.Error(), "node /cluster0/node8 has rank 90, which node /cluster0/node7 has already") {
		t.Fatalf("Load: %v", err)
	}
	if err := fluxionMode.Load(g, doc); err != nil {
		t.Fatal(err)
	}
}
