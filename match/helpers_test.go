package match

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// buildGrugLike makes <name>0 → rack0 → nnodes nodes → 2 sockets each →
// ncores cores, ngpus gpus (one per socket when 1) and nmem memory pools of
// size memSize per socket. Vertices are created level by level, in the
// order the GRUG reader creates them (spec formats.md §1.5): all nodes,
// then all sockets, then all cores, gpus, memories; core ids are local to
// the node (socket0: 0..ncores-1, socket1: ncores..2*ncores-1), gpu ids are
// the socket index, memory ids are local to the node.
func buildGrugLike(name string, nnodes, ncores, ngpus, nmem int, memSize int64) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename(name))
	r := b.MustAdd(c, "rack", 0)
	var nodes, sockets []graph.VertexID
	for i := 0; i < nnodes; i++ {
		nodes = append(nodes, b.MustAdd(r, "node", int64(i)))
	}
	for _, n := range nodes {
		for i := 0; i < 2; i++ {
			sockets = append(sockets, b.MustAdd(n, "socket", int64(i)))
		}
	}
	for j, s := range sockets {
		for i := 0; i < ncores; i++ {
			b.MustAdd(s, "core", int64((j%2)*ncores+i))
		}
	}
	for j, s := range sockets {
		for i := 0; i < ngpus; i++ {
			b.MustAdd(s, "gpu", int64((j%2)*ngpus+i))
		}
	}
	for j, s := range sockets {
		for i := 0; i < nmem; i++ {
			b.MustAdd(s, "memory", int64((j%2)*nmem+i), graph.WithSize(memSize), graph.WithUnit("GB"))
		}
	}
	return b.Graph()
}

// tinyGraph is grugs/tiny.graphml: tiny0 → rack0 → node0,node1 → 2 sockets
// → 18 cores, 1 gpu, 4 memories of size 2 (100 vertices).
func tinyGraph() *graph.Graph { return buildGrugLike("tiny", 2, 18, 1, 4, 2) }

// smallGraph is grugs/small.graphml: small0 → rack0 → node0..node7 → 2
// sockets → 18 cores and 4 memories of size 32 (378 vertices).
func smallGraph() *graph.Graph { return buildGrugLike("small", 8, 18, 0, 4, 32) }

func newMatcher(tb testing.TB, g *graph.Graph, pol string) *Matcher {
	tb.Helper()
	m, err := New(g, Options{Policy: pol})
	if err != nil {
		tb.Fatalf("New(%s): %v", pol, err)
	}
	return m
}

// ---------------------------------------------------------------------------
// A compact jobspec notation, turned into a YAML document and parsed
// with jobspec.Parse:
//
//	list  := tree (";" tree)*
//	tree  := item ("->" (tree | "(" tree ("," tree)* ")"))?
//	item  := type "[" count "]" ("x" | "!")?
//	count := N | N "+" | MIN ":" MAX ":" OP ":" OPERAND   (N+: min N, no max)
//
// "x" is exclusive: true, "!" exclusive: false. Slots get label "default".

type jsRes struct {
	Type      string
	Count     any // int or map[string]any{min, max, operator, operand}
	Exclusive *bool
	Label     string
	With      []*jsRes
}

type jsParser struct {
	s   string
	pos int
	err error
}

func (p *jsParser) fail(f string, a ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("jobspec notation %q at %d: %s", p.s, p.pos, fmt.Sprintf(f, a...))
	}
}

func (p *jsParser) peek(tok string) bool { return strings.HasPrefix(p.s[p.pos:], tok) }

func (p *jsParser) eat(tok string) bool {
	if p.peek(tok) {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *jsParser) list() []*jsRes {
	l := []*jsRes{p.tree()}
	for p.err == nil && p.eat(";") {
		l = append(l, p.tree())
	}
	return l
}

func (p *jsParser) tree() *jsRes {
	r := p.item()
	if p.err != nil || !p.eat("->") {
		return r
	}
	if p.eat("(") {
		r.With = append(r.With, p.tree())
		for p.err == nil && p.eat(",") {
			r.With = append(r.With, p.tree())
		}
		if !p.eat(")") {
			p.fail("want )")
		}
		return r
	}
	r.With = []*jsRes{p.tree()}
	return r
}

func (p *jsParser) item() *jsRes {
	i := strings.IndexByte(p.s[p.pos:], '[')
	j := strings.IndexByte(p.s[p.pos:], ']')
	if i <= 0 || j < i {
		p.fail("want type[count]")
		return &jsRes{}
	}
	r := &jsRes{Type: p.s[p.pos : p.pos+i]}
	cnt := p.s[p.pos+i+1 : p.pos+j]
	p.pos += j + 1
	if mn, ok := strings.CutSuffix(cnt, "+"); ok {
		// "N+": min N, no max (unbounded).
		n, err := strconv.Atoi(mn)
		if err != nil {
			p.fail("bad count %q", cnt)
		}
		r.Count = map[string]any{"min": n}
	} else if f := strings.Split(cnt, ":"); len(f) == 4 {
		mn, _ := strconv.Atoi(f[0])
		mx, _ := strconv.Atoi(f[1])
		od, _ := strconv.Atoi(f[3])
		r.Count = map[string]any{"min": mn, "max": mx, "operator": f[2], "operand": od}
	} else {
		n, err := strconv.Atoi(cnt)
		if err != nil {
			p.fail("bad count %q", cnt)
		}
		r.Count = n
	}
	if r.Type == "slot" {
		r.Label = "default"
	}
	switch {
	case p.eat("x"):
		t := true
		r.Exclusive = &t
	case p.eat("!"):
		f := false
		r.Exclusive = &f
	}
	return r
}

// jsYAML renders the notation as a YAML jobspec document.
func jsYAML(tree string, duration float64, queue string) (string, error) {
	p := &jsParser{s: strings.Join(strings.Fields(tree), "")}
	res := p.list()
	if p.err == nil && p.pos != len(p.s) {
		p.fail("trailing text")
	}
	if p.err != nil {
		return "", p.err
	}
	var b strings.Builder
	b.WriteString("version: 9999\nresources:\n")
	writeYAMLResources(&b, res, "  ")
	b.WriteString("attributes:\n  system:\n    duration: " + strconv.FormatFloat(duration, 'g', -1, 64) + "\n")
	if queue != "" {
		b.WriteString("    queue: " + queue + "\n")
	}
	b.WriteString("tasks:\n  - command: [ \"app\" ]\n    slot: default\n    count:\n      per_slot: 1\n")
	return b.String(), nil
}

func writeYAMLResources(b *strings.Builder, l []*jsRes, ind string) {
	for _, r := range l {
		b.WriteString(ind + "- type: " + r.Type + "\n")
		switch c := r.Count.(type) {
		case int:
			b.WriteString(ind + "  count: " + strconv.Itoa(c) + "\n")
		case map[string]any:
			if _, ok := c["max"]; !ok {
				fmt.Fprintf(b, "%s  count: {min: %d}\n", ind, c["min"])
				break
			}
			fmt.Fprintf(b, "%s  count: {min: %d, max: %d, operator: \"%s\", operand: %d}\n", ind, c["min"], c["max"], c["operator"], c["operand"])
		}
		if r.Exclusive != nil {
			fmt.Fprintf(b, "%s  exclusive: %v\n", ind, *r.Exclusive)
		}
		if r.Label != "" {
			b.WriteString(ind + "  label: " + r.Label + "\n")
		}
		if len(r.With) > 0 {
			b.WriteString(ind + "  with:\n")
			writeYAMLResources(b, r.With, ind+"    ")
		}
	}
}

func knownTypes(g *graph.Graph) jobspec.Options {
	return jobspec.Options{KnownType: func(t string) bool { _, ok := g.Types.Lookup(t); return ok }}
}

// mkjs parses the notation into a jobspec for g.
func mkjs(tb testing.TB, g *graph.Graph, tree string, duration float64) *jobspec.Jobspec {
	tb.Helper()
	return mkjsQ(tb, g, tree, duration, "")
}

func mkjsQ(tb testing.TB, g *graph.Graph, tree string, duration float64, queue string) *jobspec.Jobspec {
	tb.Helper()
	doc, err := jsYAML(tree, duration, queue)
	if err != nil {
		tb.Fatal(err)
	}
	js, err := jobspec.Parse([]byte(doc), knownTypes(g))
	if err != nil {
		tb.Fatalf("jobspec.Parse(%s): %v", doc, err)
	}
	return js
}

// test001 is basics/test001.yaml: cluster → rack → node → slot → socket →
// core, one of each, 3600 s.
const test001 = "cluster[1]->rack[1]->node[1]->slot[1]->socket[1]->core[1]"

// ---------------------------------------------------------------------------
// Running matches and writing expected simple-writer text.

type outcome struct {
	text string
	at   int64
	err  error
}

func (o outcome) String() string {
	return fmt.Sprintf("at=%d err=%v\n%s", o.at, o.err, o.text)
}

// do runs one match with a fresh simple writer.
func do(m *Matcher, op Op, js *jobspec.Jobspec, job uint64) outcome {
	w := emit.NewSimple()
	at, err := m.Match(op, js, job, 0, w)
	text, rerr := w.Render()
	if rerr != nil && err == nil {
		err = rerr
	}
	return outcome{text, at, err}
}

// sl renders simple-writer lines: each item is "LEVEL NAME[NEEDS:X]".
func sl(items ...string) string {
	var b strings.Builder
	for _, it := range items {
		lvl, rest, _ := strings.Cut(it, " ")
		n, _ := strconv.Atoi(lvl)
		b.WriteString("      ")
		b.WriteString(strings.Repeat("---", n))
		b.WriteString(rest)
		b.WriteByte('\n')
	}
	return b.String()
}

// seq returns items "LEVEL <prefix><i><suffix>" for i in [from, to].
func seq(level int, prefix string, from, to int, suffix string) []string {
	var l []string
	for i := from; i <= to; i++ {
		l = append(l, fmt.Sprintf("%d %s%d%s", level, prefix, i, suffix))
	}
	return l
}

// cat concatenates item lists and single items.
func cat(parts ...any) []string {
	var l []string
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			l = append(l, x)
		case []string:
			l = append(l, x...)
		}
	}
	return l
}

// tinyChain is the simple text of core/socket/node on tiny with the
// test001 shape (cluster and rack included).
func tinyChain(core, socket, node int) string {
	return sl(fmt.Sprintf("5 core%d[1:x]", core), fmt.Sprintf("4 socket%d[1:x]", socket),
		fmt.Sprintf("3 node%d[1:s]", node), "2 rack0[1:s]", "1 tiny0[1:s]")
}

func wantOK(t *testing.T, name string, got outcome, at int64, text string) {
	t.Helper()
	if got.err != nil || got.at != at || got.text != text {
		t.Errorf("%s:\n got %v\nwant at=%d err=<nil>\n%s", name, got, at, text)
	}
}

func wantErr(t *testing.T, name string, got outcome, target error) {
	t.Helper()
	if got.err == nil || !errors.Is(got.err, target) {
		t.Errorf("%s: got %v, want an error matching %v", name, got, target)
	}
	if got.text != "" {
		t.Errorf("%s: a failed match emitted\n%s", name, got.text)
	}
}

// recorder is an emit.Writer that keeps everything it is given.
type recorder struct {
	verts      []recVertex
	edges      []recEdge
	start, end int64
	times      int
	attrs      map[string]string
}

type recVertex struct {
	id         graph.VertexID
	needs      int64
	excl       bool
	exclParent bool
	level      int
	label      string
	ag         []emit.AgFilter
}

type recEdge struct {
	id         graph.EdgeID
	exclParent bool
}

func newRecorder() *recorder { return &recorder{attrs: map[string]string{}} }

func (r *recorder) Vertex(g *graph.Graph, v *emit.Vertex) {
	r.verts = append(r.verts, recVertex{v.ID, v.Needs, v.Exclusive, v.ExclParent, v.Level, v.Label, append([]emit.AgFilter(nil), v.AgFilter...)})
}

func (r *recorder) Edge(g *graph.Graph, e graph.EdgeID, exclParent bool) {
	r.edges = append(r.edges, recEdge{e, exclParent})
}

func (r *recorder) Times(start, end int64) { r.start, r.end, r.times = start, end, r.times+1 }
func (r *recorder) Attr(k, v string)       { r.attrs[k] = v }
func (r *recorder) Render() (string, error) {
	return "", nil
}

func (r *recorder) empty() bool {
	return len(r.verts) == 0 && len(r.edges) == 0 && r.times == 0 && len(r.attrs) == 0
}

// names lists the recorded vertex names, comma separated.
func (r *recorder) names(g *graph.Graph) string {
	var l []string
	for _, v := range r.verts {
		l = append(l, g.V(v.id).Name)
	}
	return strings.Join(l, ",")
}
