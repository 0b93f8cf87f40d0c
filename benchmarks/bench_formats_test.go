package benchmarks

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/policy"
	"github.com/gofluxion/gofluxion/rv1"
)

// ---------------------------------------------------------------------------
// JGF loading.

// wholeGraphJGF renders every vertex of g (reachable from the containment
// root) with the jgf writer, as a find or a whole-graph match would: post-
// order, each vertex exclusive with needs = its size, each edge right after
// its child's subtree. jgf.Read of the result rebuilds the graph.
func wholeGraphJGF(g *graph.Graph) (string, error) {
	w := jgf.NewWriter()
	var walk func(v graph.VertexID, level int, exclParent bool)
	walk = func(v graph.VertexID, level int, exclParent bool) {
		for _, h := range g.Out(v) {
			if h.Subsystem != graph.Containment {
				continue
			}
			walk(h.Other, level+1, true)
			w.Edge(g, h.Edge, true)
		}
		w.Vertex(g, &emit.Vertex{ID: v, Needs: g.V(v).Size, Exclusive: true, ExclParent: exclParent, Level: level})
	}
	walk(g.Root(graph.Containment), 1, false)
	return w.Render()
}

var jgfDocs struct {
	sync.Mutex
	m map[Size][]byte
}

// jgfDoc returns the JGF of the generated cluster of size s.
func jgfDoc(b *testing.B, s Size) []byte {
	b.Helper()
	jgfDocs.Lock()
	defer jgfDocs.Unlock()
	if d := jgfDocs.m[s]; d != nil {
		return d
	}
	out, err := wholeGraphJGF(loadGraph(b, s))
	if err != nil {
		b.Fatal(err)
	}
	if jgfDocs.m == nil {
		jgfDocs.m = map[Size][]byte{}
	}
	jgfDocs.m[s] = []byte(out)
	return jgfDocs.m[s]
}

// BenchmarkLoadJGF measures jgf.Read + match.New (default options) of the
// generated cluster written as JGF. MB-jgf is the size of the document.
func BenchmarkLoadJGF(b *testing.B) {
	for _, s := range []Size{Size1024x32, Size4096x64} {
		b.Run(s.String(), func(b *testing.B) {
			data := jgfDoc(b, s)
			sink = nil
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sink = nil
				g, err := jgf.Read(data)
				if err != nil {
					b.Fatal(err)
				}
				m, err := match.New(g, match.Options{})
				if err != nil {
					b.Fatal(err)
				}
				sink = m
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&after)
			if g := sink.(*match.Matcher).Graph(); g.NumVertices() != s.Vertices() {
				b.Fatalf("%d vertices, want %d", g.NumVertices(), s.Vertices())
			}
			sink = nil
			b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/mib, "MiB-heap")
			b.ReportMetric(float64(len(data))/1e6, "MB-jgf")
		})
	}
}

// ---------------------------------------------------------------------------
// Rendering a large match.

// recording is an emit.Writer that keeps what the matcher emits, so that
// the same emission can be replayed into any writer.
type recording struct {
	g          *graph.Graph
	calls      []call
	start, end int64
}

type call struct {
	vertex     *emit.Vertex // nil for an edge
	edge       graph.EdgeID
	exclParent bool
}

func (r *recording) Vertex(g *graph.Graph, v *emit.Vertex) {
	c := *v
	c.AgFilter = slices.Clone(v.AgFilter)
	r.calls = append(r.calls, call{vertex: &c})
}

func (r *recording) Edge(g *graph.Graph, e graph.EdgeID, exclParent bool) {
	r.calls = append(r.calls, call{edge: e, exclParent: exclParent})
}

func (r *recording) Times(start, end int64)  { r.start, r.end = start, end }
func (r *recording) Attr(string, string)     {}
func (r *recording) Render() (string, error) { return "", nil }

// replay emits the recorded match into w, in the matcher's order.
func (r *recording) replay(w emit.Writer) {
	for i := range r.calls {
		c := &r.calls[i]
		if c.vertex != nil {
			w.Vertex(r.g, c.vertex)
		} else {
			w.Edge(r.g, c.edge, c.exclParent)
		}
	}
	w.Times(r.start, r.end)
}

var bigMatch struct {
	sync.Mutex
	r *recording
}

// bigMatchRecording matches one node-exclusive job spanning all 1024 nodes
// of 1024×32 under high and records its emission (1024 nodes, 32768
// cores, the cluster and the edges between them).
func bigMatchRecording(b *testing.B) *recording {
	b.Helper()
	bigMatch.Lock()
	defer bigMatch.Unlock()
	if bigMatch.r != nil {
		return bigMatch.r
	}
	s := Size1024x32
	g := loadGraph(b, s)
	js, err := ParseJobspec(g, strings.Replace(JobspecNodeExclusiveYAML(s.Cores),
		"      - type: node\n        count: 1\n", fmt.Sprintf("      - type: node\n        count: %d\n", s.Nodes), 1))
	if err != nil {
		b.Fatal(err)
	}
	m, err := match.New(g, match.Options{Policy: "high"})
	if err != nil {
		b.Fatal(err)
	}
	r := &recording{g: g}
	if _, err := m.Match(match.Allocate, js, 1, 0, r); err != nil {
		b.Fatal(err)
	}
	nv := 0
	for _, c := range r.calls {
		if c.vertex != nil {
			nv++
		}
	}
	if want := 1 + s.Nodes*(1+s.Cores); nv != want {
		b.Fatalf("the job emitted %d vertices, want %d", nv, want)
	}
	bigMatch.r = r
	return r
}

func benchWrite(b *testing.B, newWriter func() emit.Writer) {
	r := bigMatchRecording(b)
	var n int
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := newWriter()
		r.replay(w)
		out, err := w.Render()
		if err != nil {
			b.Fatal(err)
		}
		n = len(out)
	}
	b.StopTimer()
	b.ReportMetric(float64(n)/1e6, "MB-out")
}

// BenchmarkWriteRV1 renders one match of 1024 exclusive nodes (1024×32)
// with a fresh rv1 writer per iteration: emission into the writer and
// Render, not the match itself.
func BenchmarkWriteRV1(b *testing.B) {
	b.Run("1024nodes", func(b *testing.B) {
		benchWrite(b, func() emit.Writer { return rv1.NewWriter(rv1.RV1) })
	})
}

// BenchmarkWriteJGF is BenchmarkWriteRV1 with the jgf writer.
func BenchmarkWriteJGF(b *testing.B) {
	b.Run("1024nodes", func(b *testing.B) {
		benchWrite(b, func() emit.Writer { return jgf.NewWriter() })
	})
}

// ---------------------------------------------------------------------------
// The other policies.

// policiesBenched are the policies of BenchmarkMatchPolicies, beyond the
// first/high/low of BenchmarkMatch.
var policiesBenched = []string{
	"hinode", "lonode", "hinodex", "lonodex", "firstnodex", "locality", "variation",
	"policy=low node_centric=true stop_on_1_matches=true",
}

var perfGraph struct {
	sync.Once
	g *graph.Graph
}

// variationGraph is 256×32 with perf_class = node index mod 4 on every
// node, so that the variation policy has classes to tell apart.
func variationGraph(b *testing.B) *graph.Graph {
	perfGraph.Do(func() {
		g := loadGraph(b, Size256x32).Clone()
		for i, v := range g.ByType(graph.TypeNode) {
			g.V(v).SetProp("perf_class", fmt.Sprint(i%4))
		}
		perfGraph.g = g
	})
	return perfGraph.g
}

// BenchmarkMatchPolicies: jobspec A (one core) on 256×32, one match
// allocate per iteration, under the policies not covered by
// BenchmarkMatch. A node-exclusive policy gives every job a whole node, so
// its stream is 256 jobs long (4096 otherwise).
func BenchmarkMatchPolicies(b *testing.B) {
	s := Size256x32
	for _, pol := range policiesBenched {
		b.Run(pol+"/"+s.String(), func(b *testing.B) {
			g := loadGraph(b, s)
			if pol == "variation" {
				g = variationGraph(b)
			}
			js, err := JobspecCore(g)
			if err != nil {
				b.Fatal(err)
			}
			p, err := policy.New(pol)
			if err != nil {
				b.Fatal(err)
			}
			jobs := min(s.Jobs, s.Nodes*s.Cores)
			if slices.Contains(p.ExclusiveTypes(), "node") {
				jobs = s.Nodes
			}
			benchStream(b, g, pol, js, jobs, false)
		})
	}
}

// TestFormatsWorkload checks the inputs of the format benchmarks on a 16×4
// cluster: the whole-graph JGF reads back into the same graph, and
// replaying a recorded emission into a writer renders exactly what the
// writer renders when given to the matcher directly.
func TestFormatsWorkload(t *testing.T) {
	s := Size{Nodes: 16, Cores: 4}
	g, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := wholeGraphJGF(g)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := jgf.Read([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if g2.NumVertices() != s.Vertices() {
		t.Fatalf("JGF read back %d vertices, want %d", g2.NumVertices(), s.Vertices())
	}
	if doc2, err := wholeGraphJGF(g2); err != nil || doc2 != doc {
		t.Fatalf("JGF of the JGF-read graph differs (%v)", err)
	}
	js, err := ParseJobspec(g, strings.Replace(JobspecNodeExclusiveYAML(s.Cores),
		"      - type: node\n        count: 1\n", fmt.Sprintf("      - type: node\n        count: %d\n", s.Nodes), 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, mk := range []func() emit.Writer{
		func() emit.Writer { return rv1.NewWriter(rv1.RV1) },
		func() emit.Writer { return jgf.NewWriter() },
	} {
		m, err := match.New(g, match.Options{Policy: "high"})
		if err != nil {
			t.Fatal(err)
		}
		w := mk()
		if _, err := m.Match(match.Allocate, js, 1, 0, w); err != nil {
			t.Fatal(err)
		}
		direct, err := w.Render()
		if err != nil {
			t.Fatal(err)
		}
		m, _ = match.New(g, match.Options{Policy: "high"})
		r := &recording{g: g}
		if _, err := m.Match(match.Allocate, js, 1, 0, r); err != nil {
			t.Fatal(err)
		}
		w = mk()
		r.replay(w)
		replayed, err := w.Render()
		if err != nil {
			t.Fatal(err)
		}
		if replayed != direct {
			t.Fatalf("replayed rendering differs:\n%s\n%s", direct, replayed)
		}
		if !strings.Contains(direct, "/cluster0/node15/core3") {
			t.Fatalf("the job does not span every node:\n%s", direct)
		}
	}
}
