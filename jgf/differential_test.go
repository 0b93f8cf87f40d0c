package jgf

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// Differential tests: the streaming reader in Fluxion mode against the
// oracle (oracle_test.go, the reader it replaced), on the JGF files of the
// three conformance corpora, on mutations of them and under go test -fuzz.
// Both must build the same graph (every field, index and interning table),
// the same Document, or report the same error (every field of *Error, so
// also the same Fluxion() text), for Read, Parse and Load into an existing
// graph. The strict reader must agree with both, or fail first with an
// error of its own (Strict).
//
//	go test ./jgf -run Differential -differential.mutants 2000

var mutantsPerFile = flag.Int("differential.mutants", 0, "mutated documents per corpus file (0: a quick default)")

// corpusJGFs returns the JSON files of the three corpora that are JGF
// documents or R documents (anything with "graph", "scheduling" or
// "nodes").
func corpusJGFs(t testing.TB) []string {
	var files []string
	for _, root := range []string{"../../shared/conformance/data", "../../shared/conformance-random/data", "../../shared/conformance-ops/data"} {
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err == nil && (bytes.Contains(data, []byte(`"graph"`)) || bytes.Contains(data, []byte(`"nodes"`))) {
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) == 0 {
		t.Skip("conformance corpora not available")
	}
	return files
}

// errString renders every field of an error.
func errString(e *Error) string {
	if e == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%#v", *e)
}

// docString renders a Document (and the deferred errors of its nodes and
// edges). The metadata of a node with an error is left out: no function
// of the package lets it be seen.
func docString(d *Document) string {
	if d == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "free_ranks %q %v\n", d.FreeRanks, d.HasFreeRanks)
	for i, n := range d.Nodes {
		if n.err != nil {
			fmt.Fprintf(&b, "node %d %q err %s\n", i, n.ID, errString(n.err))
			continue
		}
		fmt.Fprintf(&b, "node %d %q %+v\n", i, n.ID, n.Metadata)
	}
	for i, e := range d.Edges {
		fmt.Fprintf(&b, "edge %d %q %q %q err %s\n", i, e.Source, e.Target, e.Subsystem, errString(e.err))
	}
	return b.String()
}

// graphString renders everything observable about g in linear time (the
// export, with the indexes in key order, and the adjacency lists).
func graphString(g *graph.Graph) string {
	data, err := json.Marshal(g.Export())
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	b.Write(data)
	for v := range g.NumVertices() {
		fmt.Fprintf(&b, "\n%d %v %v", v, g.Out(graph.VertexID(v)), g.In(graph.VertexID(v)))
	}
	return b.String()
}

// oracleRead is Read as it was.
func oracleRead(data []byte) (*graph.Graph, *Error) {
	doc, err := oracleParse(data)
	if err != nil {
		return nil, err
	}
	return oracleReadDoc(doc)
}

func oracleReadDoc(doc *Document) (*graph.Graph, *Error) {
	g := graph.New()
	if err := oracleLoad(g, doc); err != nil {
		return nil, err
	}
	return g, nil
}

// withoutUpward returns doc without its containment edges from a node to
// its parent by path (what the strict reader skips).
func withoutUpward(doc *Document) *Document {
	path := map[string]string{}
	for _, n := range doc.Nodes {
		for _, p := range n.Metadata.Paths {
			if p.Subsystem == "containment" {
				path[n.ID] = p.Path
			}
		}
	}
	out := *doc
	out.Edges = nil
	for _, e := range doc.Edges {
		ps, ok1 := path[e.Source]
		pt, ok2 := path[e.Target]
		if e.err == nil && e.Subsystem == "containment" && ok1 && ok2 && pt != "" && strings.HasPrefix(ps, pt+"/") && !strings.Contains(ps[len(pt)+1:], "/") {
			continue
		}
		out.Edges = append(out.Edges, e)
	}
	return &out
}

// firstDocErr is what Parse reports for a parsed document.
func firstDocErr(doc *Document) *Error {
	for i := range doc.Nodes {
		if doc.Nodes[i].err != nil {
			return doc.Nodes[i].err
		}
	}
	for i := range doc.Edges {
		if doc.Edges[i].err != nil {
			return doc.Edges[i].err
		}
	}
	return nil
}

// attachBase is the graph documents are loaded into (attach).
func attachBase() *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0)
	n := b.MustAdd(c, "node", 1)
	b.MustAdd(n, "core", 0)
	return b.Graph()
}

// errPos orders errors as Fluxion meets them: document errors, then node
// by node, then edge by edge.
func errPos(e *Error) int {
	switch {
	case e.Node >= 0:
		return 1 + e.Node
	case e.Edge >= 0:
		return 1<<40 + e.Edge
	}
	return 0
}

// differential checks one document; it returns a description of the first
// disagreement, or "".
func differential(data []byte) string {
	// Read
	og, oerr := oracleRead(data)
	ng, nerr := fluxionMode.read(data)
	switch {
	case (oerr == nil) != (nerr == nil):
		return fmt.Sprintf("Read: oracle error %s, new error %s", errString(oerr), errString(nerr))
	case oerr != nil && errString(oerr) != errString(nerr):
		return fmt.Sprintf("Read: errors differ:\noracle %s\n   new %s", errString(oerr), errString(nerr))
	case oerr == nil && graphString(og) != graphString(ng):
		return fmt.Sprintf("Read: graphs differ:\noracle\n%s\nnew\n%s", graphString(og), graphString(ng))
	}
	// The strict reader: the same, or its own error first.
	sg, serr := Options{}.read(data)
	switch {
	case serr != nil && serr.Strict:
		if oerr != nil && errPos(oerr) < errPos(serr) {
			return fmt.Sprintf("strict Read: its own error %s after Fluxion's %s", errString(serr), errString(oerr))
		}
	case (oerr == nil) != (serr == nil):
		return fmt.Sprintf("strict Read: oracle error %s, strict error %s", errString(oerr), errString(serr))
	case oerr != nil && errString(oerr) != errString(serr):
		return fmt.Sprintf("strict Read: errors differ:\noracle %s\nstrict %s", errString(oerr), errString(serr))
	case oerr == nil && graphString(og) != graphString(sg):
		// The strict reader skips upward containment edges (two-way
		// lists): it must build what Fluxion builds without them.
		odoc, _ := oracleParse(data)
		if fg, ferr := oracleReadDoc(withoutUpward(odoc)); ferr != nil || graphString(fg) != graphString(sg) {
			return "strict Read: graphs differ"
		}
	}
	// Parse (the Document, deferred errors included)
	odoc, oerr := oracleParse(data)
	ndoc, nerr := fluxionMode.parse(data)
	switch {
	case errString(oerr) != errString(nerr):
		return fmt.Sprintf("parse: errors differ:\noracle %s\n   new %s", errString(oerr), errString(nerr))
	case oerr == nil && docString(odoc) != docString(ndoc):
		return fmt.Sprintf("parse: documents differ:\noracle\n%s\nnew\n%s", docString(odoc), docString(ndoc))
	case oerr != nil:
		return ""
	}
	if _, err := fluxionMode.Parse(data); errString(firstDocErr(odoc)) != errString(asErr(err)) {
		return fmt.Sprintf("Parse: %s, want %s", errString(asErr(err)), errString(firstDocErr(odoc)))
	}
	// Load into an existing graph: all or nothing, as the oracle.
	og, ng = attachBase(), attachBase()
	oerr = oracleLoad(og, odoc)
	nerr = asErr(fluxionMode.Load(ng, ndoc))
	switch {
	case errString(oerr) != errString(nerr):
		return fmt.Sprintf("Load: errors differ:\noracle %s\n   new %s", errString(oerr), errString(nerr))
	case graphString(og) != graphString(ng):
		return fmt.Sprintf("Load: graphs differ (error %s):\noracle\n%s\nnew\n%s", errString(oerr), graphString(og), graphString(ng))
	}
	sg = attachBase()
	serr = asErr(Options{}.Load(sg, ndoc))
	switch {
	case serr != nil && serr.Strict:
		if graphString(sg) != graphString(attachBase()) {
			return "strict Load: a failed load changed the graph"
		}
	case errString(oerr) != errString(serr):
		return fmt.Sprintf("strict Load: errors differ:\noracle %s\nstrict %s", errString(oerr), errString(serr))
	case graphString(og) != graphString(sg):
		fg := attachBase()
		if ferr := oracleLoad(fg, withoutUpward(odoc)); ferr != nil || graphString(fg) != graphString(sg) {
			return "strict Load: graphs differ"
		}
	}
	return ""
}

func asErr(err error) *Error {
	if err == nil {
		return nil
	}
	return err.(*Error)
}

func TestDifferentialCorpus(t *testing.T) {
	files := corpusJGFs(t)
	for k, f := range files {
		if testing.Short() && k%8 != 0 {
			continue // -short (the race run): an eighth of them
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := differential(data); d != "" {
			t.Errorf("%s: %s", f, d)
		}
	}
	t.Logf("%d corpus files", len(files))
}

// mutate returns a random variation of data: bytes changed, removed,
// repeated or inserted (JSON punctuation, escapes, numbers, keys of the
// schema), the text cut short, or a span copied elsewhere (repeating
// keys, nodes or edges).
func mutate(rng *rand.Rand, data []byte) []byte {
	out := append([]byte(nil), data...)
	pieces := []string{`"`, `\`, `{`, `}`, `[`, `]`, `,`, `:`, ` `, "\n", "\x00", "\xff", "\xc3\xa9", `\u0000`, `\ud800`, `\ud83d\ude00`,
		`-`, `0`, `-1`, `-2`, `-5`, `4294967296`, `9223372036854775807`, `99999999999999999999`, `1e999`, `1.5`, `true`, `null`,
		`"id"`, `"metadata"`, `"type"`, `"paths"`, `"properties"`, `"size"`, `"rank"`, `"uniq_id"`, `"name"`, `"basename"`,
		`"source"`, `"target"`, `"subsystem"`, `"containment"`, `"graph"`, `"nodes"`, `"edges"`, `"/c0"`, `"/c0/x"`}
	for n := 1 + rng.Intn(3); n > 0 && len(out) > 0; n-- {
		i := rng.Intn(len(out))
		switch rng.Intn(7) {
		case 0:
			out[i] = byte(rng.Intn(256))
		case 1:
			j := min(len(out), i+1+rng.Intn(8))
			out = append(out[:i], out[j:]...)
		case 2, 3:
			p := pieces[rng.Intn(len(pieces))]
			out = append(out[:i], append([]byte(p), out[i:]...)...)
		case 4:
			out = out[:i]
		case 5: // copy a span elsewhere
			j := min(len(out), i+1+rng.Intn(200))
			span := append([]byte(nil), out[i:j]...)
			k := rng.Intn(len(out))
			out = append(out[:k], append(span, out[k:]...)...)
		case 6: // a digit changed (ids, sizes, ranks)
			for k := i; k < len(out); k++ {
				if out[k] >= '0' && out[k] <= '9' {
					out[k] = byte('0' + rng.Intn(10))
					break
				}
			}
		}
	}
	return out
}

func TestDifferentialMutants(t *testing.T) {
	files := corpusJGFs(t)
	per := *mutantsPerFile
	if per == 0 {
		per = 4
		if testing.Short() {
			per = 1
		}
	}
	rng := rand.New(rand.NewSource(1))
	n := 0
	for k, f := range files {
		if testing.Short() && k%8 != 0 {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 200<<10 && per > 2 {
			continue // keep the quick run quick
		}
		for range per {
			m := mutate(rng, data)
			n++
			if d := differential(m); d != "" {
				t.Fatalf("%s, mutant %q:\n%s", f, m, d)
			}
		}
	}
	t.Logf("%d mutants", n)
}

// TestDifferentialLayouts covers what the direct mode leaves to the
// document mode: repeated keys, edges before nodes, a non-object graph.
func TestDifferentialLayouts(t *testing.T) {
	for _, doc := range []string{
		`{"graph": {"edges": [{"source": "0", "target": "1"}], "nodes": [` + n0 + `, ` + n1 + `]}}`,
		`{"graph": {"nodes": [` + n0 + `], "edges": [], "nodes": [` + n0 + `, ` + n1 + `]}}`,
		`{"graph": {"nodes": [` + n0 + `], "edges": []}, "graph": {"nodes": [` + n1 + `], "edges": []}}`,
		`{"graph": {"nodes": [` + n0 + `], "edges": []}, "graph": 5}`,
		`{"graph": {"nodes": [` + n0 + `, ` + n1 + `], "edges": [{"source": "0", "target": "1"}], "edges": []}}`,
		`{"graph": {"nodes": [` + n0 + `, {"id": "1", "id": 7}], "edges": []}}`,
		`{"graph": {"nodes": [{"id": "1", "metadata": {"type": "a", "paths": {}}, "metadata": 5}], "edges": []}}`,
		`{"graph": {"nodes": [{"id": "1", "metadata": {"type": "a", "paths": {"x": "/a"}, "paths": {"y": "/b"}}}], "edges": []}}`,
		`{"graph": {"nodes": [` + n0 + `, ` + n1 + `], "edges": [{"source": "0", "target": "1", "metadata": {"subsystem": "a"}, "metadata": {}}]}}`,
		`{"graph": {"nodes": [{"id": "1", "metadata": {"type": "a", "properties": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6", "g": "7", "h": "8", "i": "9", "a": "10"}, "paths": {}}}], "edges": []}}`,
		`{"gr\u0061ph": {"n\u006fdes": [{"\u0069d": "1", "metadata": {"typ\u0065": "\u00e9", "paths": {"c": "/x"}}}], "edges": []}}`,
		`{"graph": {"nodes": [{"id": "007", "metadata": {"type": "a", "paths": {}}}, {"id": "7", "metadata": {"type": "a", "paths": {}}}], "edges": [{"source": "007", "target": "7"}]}}`,
		`{"graph": {"nodes": [{"id": "-3", "metadata": {"type": "a", "paths": {}}}, {"id": "99999999999999999999x", "metadata": {"type": "a", "uniq_id": 5, "paths": {}}}], "edges": [{"source": "-3", "target": "99999999999999999999x"}]}}`,
	} {
		if d := differential([]byte(doc)); d != "" {
			t.Errorf("%s:\n%s", doc, d)
		}
	}
}

// FuzzDifferential is the differential test under go test -fuzz, seeded
// with the spec examples and small corpus files.
//
//	go test ./jgf -run '^$' -fuzz FuzzDifferential -fuzztime 60s
func FuzzDifferential(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	if files, err := filepath.Glob("../../shared/conformance/data/resource/jgfs/elastic/*.json"); err == nil {
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if d := differential(data); d != "" {
			t.Fatal(d)
		}
	})
}

// fuzzSeeds are the seeds of the fuzz targets.
func fuzzSeeds() [][]byte {
	return [][]byte{
		[]byte(a2),
		[]byte(nodesDoc(n0+", "+n1, `{"source": "0", "target": "1"}`)),
		[]byte(nodesDoc(n0+", "+n1, `{"source": "0", "target": "1"}, {"source": "0", "target": "1"}`)),
		[]byte(nodesDoc(n0+", "+n1, `{"source": "0", "target": "1", "metadata": {"name": {"containment": "contains"}}}, {"source": "1", "target": "0", "metadata": {"name": {"containment": "in"}}}`)),
		[]byte(nodesDoc(n0+", "+n1, `{"source": "1", "target": "0"}`)),
		[]byte(nodesDoc(`{"id": "1", "metadata": {"type": "node", "name": "n007", "properties": {"a": 1}, "paths": {}}}`, "")),
		[]byte(nodesDoc(`{"id": " -12x", "metadata": {"type": "node", "uniq_id": -1, "id": -2, "size": -1, "status": 3, "unit": "u", "exclusive": false, "paths": {"a": "/a", "b": "/a/b"}}}`, `{"source": " -12x", "target": " -12x", "metadata": {"subsystem": "b"}}`)),
		[]byte(`{"graph": {"nodes": [], "edges": [` + "\n"),
		[]byte("{\"a\": \"\\ud83d\\ude00\xc3\xa9\", \"b\": [1.5e3, -0, true, null]}"),
		[]byte(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "c", "paths": {"containment": "/medium0"}}}], "edges": []}, "free_ranks": "0-1"}`),
		// strict-only errors: a size, a self-loop, two parents, a cycle
		[]byte(nodesDoc(`{"id": "0", "metadata": {"type": "c", "size": -5, "paths": {"containment": "/c0"}}}`, "")),
		[]byte(nodesDoc(n0+", "+n1, `{"source": "1", "target": "1"}`)),
		[]byte(nodesDoc(n0+", "+n1+`, {"id": "2", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node2"}}}`, `{"source": "0", "target": "1"}, {"source": "2", "target": "1"}`)),
		[]byte(nodesDoc(n0+", "+n1+`, {"id": "2", "metadata": {"type": "node", "paths": {"containment": "/cluster0/node2"}}}`, `{"source": "1", "target": "2"}, {"source": "2", "target": "1"}`)),
		[]byte(nodesDoc(n0+", "+n1, `{"source": "0", "target": "1", "metadata": {"subsystem": "power"}}, {"source": "1", "target": "0", "metadata": {"subsystem": "power"}}`)),
	}
}
