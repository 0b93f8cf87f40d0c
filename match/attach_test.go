package match_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
)

// Attach-then-remove property test: growing the graph with a JGF subgraph
// (Matcher.Attach, spec traversal.md §14.5) and removing it again
// (Matcher.RemovePath, §14.4) before anything was matched on it leaves the
// matcher deciding exactly as a matcher that never saw the attach, whatever
// was allocated before and whatever comes after.
//
//	go test ./match -run AttachRemove -roundtrip.n 2000 -roundtrip.seed 7

// jgfDoc builds an attach document.
type jgfDoc struct {
	Graph struct {
		Nodes []jgfNode `json:"nodes"`
		Edges []jgfEdge `json:"edges"`
	} `json:"graph"`
}

type jgfNode struct {
	ID       string         `json:"id"`
	Metadata map[string]any `json:"metadata"`
}

type jgfEdge struct {
	Source string `json:"source"`
	Target string `json:"target"`
}

// subgraph is a JGF attach document under construction: the existing
// vertices it repeats (reused by path and rank) and the new ones.
type subgraph struct {
	g *graph.Graph
	// newTypes allows leaf types the graph has no vertex of (see
	// runAttachRemove).
	newTypes bool
	doc      jgfDoc
	ids      map[graph.VertexID]string // existing vertices already listed
	uniq     int64                     // next uniq_id of a new vertex
	roots    []string                  // paths of the new subgraph roots
	added    int                       // number of new vertices
}

func newSubgraph(g *graph.Graph) *subgraph {
	return &subgraph{g: g, ids: map[graph.VertexID]string{}, uniq: int64(g.NumVertices()) + 1000}
}

// existing lists v and its ancestors as they are in the graph (the attach
// maps them onto the existing vertices), with the edges between them.
func (s *subgraph) existing(v graph.VertexID) string {
	if id, ok := s.ids[v]; ok {
		return id
	}
	var parent string
	if in := s.g.In(v); len(in) > 0 {
		parent = s.existing(in[0].Other)
	}
	vx := s.g.V(v)
	path, _ := vx.PathIn(graph.Containment)
	id := fmt.Sprintf("x%d", vx.UniqID)
	s.doc.Graph.Nodes = append(s.doc.Graph.Nodes, jgfNode{ID: id, Metadata: map[string]any{
		"type": s.g.TypeName(v), "basename": vx.Basename, "name": vx.Name, "id": vx.ID,
		"uniq_id": vx.UniqID, "rank": vx.Rank, "size": vx.Size,
		"paths": map[string]string{"containment": path},
	}})
	if parent != "" {
		// Both ends exist: the edge is not created again.
		s.doc.Graph.Edges = append(s.doc.Graph.Edges, jgfEdge{parent, id})
	}
	s.ids[v] = id
	return id
}

// add appends a new vertex below parentID (whose path is parentPath).
func (s *subgraph) add(parentID, parentPath, typ string, id, rank, size int64, props map[string]string) (string, string) {
	u := s.uniq
	s.uniq++
	s.added++
	name := fmt.Sprintf("%s%d", typ, id)
	path := parentPath + "/" + name
	md := map[string]any{"type": typ, "id": id, "uniq_id": u, "rank": rank, "size": size,
		"paths": map[string]string{"containment": path}}
	if len(props) > 0 {
		md["properties"] = props
	}
	jid := fmt.Sprint(u)
	s.doc.Graph.Nodes = append(s.doc.Graph.Nodes, jgfNode{ID: jid, Metadata: md})
	s.doc.Graph.Edges = append(s.doc.Graph.Edges, jgfEdge{parentID, jid})
	return jid, path
}

// node adds a node (rank rank) with 1-2 sockets of 1-3 cores, maybe a gpu,
// a memory pool and a nic (a type the graph may not know yet).
func (s *subgraph) node(rng *rand.Rand, parentID, parentPath string, id, rank int64) string {
	nid, npath := s.add(parentID, parentPath, "node", id, rank, 1, map[string]string{"perf_class": "0"})
	for k := range 1 + rng.Intn(2) {
		s.socket(rng, nid, npath, int64(k), rank)
	}
	return npath
}

func (s *subgraph) socket(rng *rand.Rand, parentID, parentPath string, id, rank int64) string {
	sid, spath := s.add(parentID, parentPath, "socket", id, rank, 1, nil)
	for k := range 1 + rng.Intn(3) {
		s.add(sid, spath, "core", int64(k), rank, 1, nil)
	}
	if rng.Intn(2) == 0 && s.leafType("gpu") {
		s.add(sid, spath, "gpu", 0, rank, 1, nil)
	}
	if rng.Intn(2) == 0 && s.leafType("memory") {
		s.add(sid, spath, "memory", 0, rank, int64(1+rng.Intn(4)), nil)
	}
	if rng.Intn(3) == 0 && s.leafType("nic") {
		s.add(sid, spath, "nic", 0, rank, 1, nil)
	}
	return spath
}

// leafType reports whether the subgraph may have leaves of type typ.
func (s *subgraph) leafType(typ string) bool {
	if s.newTypes {
		return true
	}
	t, ok := s.g.Types.Lookup(typ)
	return ok && len(s.g.ByType(graph.TypeID(t))) > 0
}

// randomSubgraph returns an attach document for g: new nodes under an
// existing rack, a new socket under an existing node, or a new rack with
// nodes under the root; and the paths of the new subgraph roots.
func randomSubgraph(rng *rand.Rand, g *graph.Graph, round int, newTypes bool) (*subgraph, []byte) {
	s := newSubgraph(g)
	s.newTypes = newTypes
	s.uniq += int64(round) * 1000
	pathOf := func(v graph.VertexID) string { p, _ := g.V(v).PathIn(graph.Containment); return p }
	switch rng.Intn(3) {
	case 0:
		racks := g.ByType(graph.TypeRack)
		rack := racks[rng.Intn(len(racks))]
		rid := s.existing(rack)
		for k := range 1 + rng.Intn(2) {
			s.roots = append(s.roots, s.node(rng, rid, pathOf(rack), int64(100+10*round+k), int64(100+10*round+k)))
		}
	case 1:
		nodes := g.ByType(graph.TypeNode)
		node := nodes[rng.Intn(len(nodes))]
		nid := s.existing(node)
		s.roots = append(s.roots, s.socket(rng, nid, pathOf(node), int64(10+round), g.V(node).Rank))
	default:
		root := g.Root(graph.Containment)
		cid := s.existing(root)
		rid, rpath := s.add(cid, pathOf(root), "rack", int64(10+round), -1, 1, nil)
		for k := range 1 + rng.Intn(2) {
			s.node(rng, rid, rpath, int64(100+10*round+k), int64(100+10*round+k))
		}
		s.roots = append(s.roots, rpath)
	}
	data, err := json.Marshal(&s.doc)
	if err != nil {
		panic(err)
	}
	return s, data
}

// findText runs a find and renders it with the simple writer.
func findText(m *match.Matcher, expr string) string {
	w := emit.NewSimple()
	err := m.Find(expr, 0, w)
	out, _ := w.Render()
	return fmt.Sprintf("find %q: %s %v\n%s", expr, errClass(err), err, out)
}

type attachCase struct {
	seed   int64
	policy string
}

// runAttachRemove runs one random stream on two matchers over copies of
// one graph, one of which gets 1-2 attach+remove rounds at random points,
// and requires identical outputs for every operation. It returns the number
// of attach rounds and of operations compared.
//
// A subgraph brings a leaf type the graph has no vertex of (a nic, or the
// first gpu or memory pool) only before any job was booked. Such a type
// becomes a pruning type of the root for good (model.md §7.2) and, being
// anchored at the cluster, comes first in the root's filter, so the
// re-priming adds a new first member to the root's multi-planner. The new
// member has none of the spans booked before, and the reservation search
// takes its candidate times from the first member only (planner.md §2):
// an allocate_orelse_reserve then finds no start time at the end of jobs
// booked before the attach (ErrBusy where the matcher that never saw the
// attach reserves). That follows the specification; it is not what this
// test is about.
func runAttachRemove(t *testing.T, c attachCase) (rounds, compared int) {
	t.Helper()
	rng := rand.New(rand.NewSource(c.seed))
	pristine := rackGraph(rng, c.policy == "variation")
	ctl, err := match.New(pristine.Clone(), match.Options{Policy: c.policy})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := match.New(pristine.Clone(), match.Options{Policy: c.policy})
	if err != nil {
		t.Fatal(err)
	}
	nops := 10 + rng.Intn(30)
	attachAt := map[int]bool{rng.Intn(nops): true}
	if rng.Intn(2) == 0 {
		attachAt[rng.Intn(nops)] = true
	}
	var trace []string
	fail := func(f string, a ...any) {
		t.Helper()
		t.Fatalf("seed=%d policy=%q\ntrace:\n%s\n%s", c.seed, c.policy, strings.Join(trace, "\n"), fmt.Sprintf(f, a...))
	}
	var live []uint64
	booked := false // some job was booked (even if cancelled since)
	var now int64
	var nextJob uint64 = 1
	for i := 0; i < nops; i++ {
		if attachAt[i] {
			g := exp.Graph()
			n0 := g.NumVertices()
			s, data := randomSubgraph(rng, g, rounds, !booked)
			doc, err := jgf.Parse(data)
			if err != nil {
				fail("jgf.Parse of the attach document: %v\n%s", err, data)
			}
			if err := exp.Attach(doc); err != nil {
				fail("Attach: %v\n%s", err, data)
			}
			if g.NumVertices() != n0+s.added {
				fail("attach created %d vertices, want %d\n%s", g.NumVertices()-n0, s.added, data)
			}
			// The new vertices are reachable.
			up := findText(exp, "status=up")
			for _, p := range s.roots {
				if name := p[strings.LastIndexByte(p, '/')+1:]; !strings.Contains(up, name+"[") {
					fail("%s not found after the attach:\n%s\n%s", p, up, data)
				}
			}
			for _, p := range s.roots {
				if err := exp.RemovePath(p); err != nil {
					fail("RemovePath(%s): %v\n%s", p, err, data)
				}
			}
			trace = append(trace, fmt.Sprintf("-- attach and remove %v: %s", s.roots, data))
			rounds++
		}
		if rng.Intn(4) == 0 {
			now += int64(rng.Intn(40))
			trace = append(trace, fmt.Sprintf("-- now=%d", now))
		}
		var got [2]string
		switch k := rng.Intn(12); {
		case k < 3 && len(live) > 0:
			j := rng.Intn(len(live))
			id := live[j]
			live = append(live[:j], live[j+1:]...)
			for x, m := range []*match.Matcher{ctl, exp} {
				err := m.Cancel(id)
				got[x] = fmt.Sprintf("cancel %d: %s %v", id, errClass(err), err)
			}
		case k == 3:
			expr := pick(rng, "status=up", "sched-now=allocated", "sched-future=reserved", "sched-now=free")
			for x, m := range []*match.Matcher{ctl, exp} {
				got[x] = findText(m, expr)
			}
		default:
			op := match.Allocate
			if k >= 8 {
				op = match.AllocateOrElseReserve
			}
			yaml := randomRequest(rng, true, false, ctl.Graph())
			job := nextJob
			nextJob++
			for x, m := range []*match.Matcher{ctl, exp} {
				o, _ := runMatch(m, fmtRV1JGF, op, parseFor(t, m.Graph(), yaml), job, now)
				got[x] = o.String()
			}
			if strings.HasPrefix(got[0], "class=ok") {
				live = append(live, job)
				booked = true
			}
			got[0] = fmt.Sprintf("%v job %d now=%d: %s\n%s", op, job, now, strings.Join(strings.Fields(yaml), " "), got[0])
			got[1] = fmt.Sprintf("%v job %d now=%d: %s\n%s", op, job, now, strings.Join(strings.Fields(yaml), " "), got[1])
		}
		trace = append(trace, got[0])
		compared++
		if got[0] != got[1] {
			fail("op %d differs:\nwithout attach: %s\nattach+remove:  %s", i, got[0], got[1])
		}
	}
	return rounds, compared
}

func TestAttachRemove(t *testing.T) {
	rng := rand.New(rand.NewSource(*roundtripSeed + 200))
	policies := append(append([]string{}, staticPolicies...), dynamicPolicies...)
	rounds, compared := 0, 0
	for range roundtripRuns(300) {
		c := attachCase{seed: rng.Int63(), policy: pick(rng, policies...)}
		r, n := runAttachRemove(t, c)
		rounds += r
		compared += n
	}
	if rounds == 0 {
		t.Error("nothing was attached")
	}
	t.Logf("%d attach+remove rounds, %d operations compared", rounds, compared)
}
