package gofluxion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/jobspec"
)

// hnode is one instance of the model tree.
type hnode struct {
	inst   Interface
	m      *Matcher // the instance's own matcher
	child  *Child   // nil for the root
	parent *hnode
	kids   []*hnode
	jobs   map[uint64]*Allocation // plain (non-grant) jobs booked here
	depth  int
}

// hold is an exclusive holding of units on a path over a window: what the
// reference model sums.
type hold struct {
	path       string
	units      int64
	start, end int64
}

var hierSpecs = []string{
	// one socket with n cores (the socket is taken whole)
	`resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: %d}]}]}]}]`,
	// n cores of one socket, sharing the socket and node
	`resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: %d}]}]}]}]`,
	// a whole node with its sockets
	`resources: [{type: node, count: 1, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: %d}]}]}]`,
}

func hierSpec(t *testing.T, r *rand.Rand, duration int64) *jobspec.Jobspec {
	i := r.IntN(len(hierSpecs))
	n := 1 + r.IntN(4)
	if i == 2 {
		n = 1 + r.IntN(2)
	}
	y := "version: 1\n" + fmt.Sprintf(hierSpecs[i], n) + fmt.Sprintf("\nattributes: {system: {duration: %d}}\ntasks: [{command: [app], slot: default, count: {per_slot: 1}}]\n", duration)
	js, err := jobspec.Parse([]byte(y), jobspec.Options{})
	if err != nil {
		t.Fatalf("jobspec %s: %v", y, err)
	}
	return js
}

// TestHierarchyThreeLevels is a random model test of nested instances: a
// root, children made from its allocations and grandchildren made from
// theirs, under random match, cancel, spawn, grow, shrink, release,
// snapshot/restore and time steps. After every step it checks, against a
// simple reference (sets of paths and sums of units per window):
//   - the parent sees every grant part as a job of its own with exactly
//     the part's window and exactly the part's exclusive vertices;
//   - no instance has or books a vertex outside its grant, in space or
//     time;
//   - on every vertex, at every time, what an instance's own jobs and its
//     children's grants hold exclusively never exceeds what the instance
//     has there.
func TestHierarchyThreeLevels(t *testing.T) {
	seeds, steps := 4, 300
	if testing.Short() {
		seeds, steps = 1, 200
	}
	for seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { hierarchyRun(t, uint64(seed), steps) })
	}
}

func hierarchyRun(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 14))
	rootM, err := New(DemoGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := &hnode{inst: rootM, m: rootM, jobs: map[uint64]*Allocation{}}
	now := int64(0)
	counts := map[string]int{}

	all := func() []*hnode {
		var out []*hnode
		var walk func(n *hnode)
		walk = func(n *hnode) {
			out = append(out, n)
			for _, k := range n.kids {
				walk(k)
			}
		}
		walk(root)
		return out
	}
	var release func(n *hnode)
	release = func(n *hnode) {
		for _, k := range slices.Clone(n.kids) {
			release(k)
		}
		// Release refuses while the child's own jobs hold resources.
		if len(n.jobs) > 0 {
			if err := n.child.Release(); !errors.Is(err, ErrBusy) {
				t.Fatalf("release with %d live jobs: %v, want ErrBusy", len(n.jobs), err)
			}
		}
		for _, id := range sortedKeys(n.jobs) {
			if j, err := n.inst.Info(id); err == nil && j.State != Canceled {
				if err := n.inst.Cancel(id); err != nil {
					t.Fatalf("cancel %d before release: %v", id, err)
				}
			}
			delete(n.jobs, id)
		}
		if err := n.child.Release(); err != nil {
			t.Fatalf("release: %v", err)
		}
		if g := n.child.Grant(); len(g.Parts) != 0 {
			t.Fatalf("release left %d parts", len(g.Parts))
		}
		p := n.parent
		p.kids = slices.DeleteFunc(p.kids, func(k *hnode) bool { return k == n })
		counts["release"]++
	}

	for step := range steps {
		// Finished jobs are cancelled and expired children end, as a Flux
		// instance ends with its job.
		for _, n := range all() {
			for _, id := range sortedKeys(n.jobs) {
				if n.jobs[id].End <= now {
					if err := n.inst.Cancel(id); err != nil {
						t.Fatalf("cancel finished %d: %v", id, err)
					}
					delete(n.jobs, id)
				}
			}
			if n.child != nil && n.parent != nil && slices.Contains(n.parent.kids, n) {
				if _, end := n.child.grant.Window(); end <= now {
					release(n)
				}
			}
		}
		nodes := all()
		n := nodes[r.IntN(len(nodes))]
		what := r.IntN(100)
		dur := int64(50 + r.IntN(400))
		switch {
		case what < 30: // a plain job
			op := Allocate
			if r.IntN(3) == 0 {
				op = AllocateOrElseReserve
			}
			a, err := n.inst.Match(op, hierSpec(t, r, dur), now)
			if err == nil {
				n.jobs[a.JobID] = a
				counts["match"]++
			} else if !errors.Is(err, ErrBusy) && !errors.Is(err, ErrUnsatisfiable) {
				t.Fatalf("step %d: match: %v", step, err)
			}
		case what < 40: // cancel a plain job
			ids := sortedKeys(n.jobs)
			if len(ids) == 0 {
				break
			}
			id := ids[r.IntN(len(ids))]
			if err := n.inst.Cancel(id); err != nil {
				t.Fatalf("step %d: cancel %d: %v", step, id, err)
			}
			delete(n.jobs, id)
			counts["cancel"]++
		case what < 58: // a new child
			if n.depth >= 2 {
				break
			}
			a, err := n.inst.Match(Allocate, hierSpec(t, r, 300+dur), now)
			if err != nil {
				break
			}
			c, err := NewChild(n.inst, a, Options{})
			if err != nil {
				t.Fatalf("step %d: new child: %v", step, err)
			}
			n.kids = append(n.kids, &hnode{inst: c, m: c.m, child: c, parent: n, jobs: map[uint64]*Allocation{}, depth: n.depth + 1})
			counts[fmt.Sprint("spawn-depth", n.depth+1)]++
		case what < 70: // grow
			if n.child == nil {
				break
			}
			before := n.child.Grant()
			pjobs, _ := n.parent.inst.JobTable()
			_, err := n.child.Grow(hierSpec(t, r, dur), now)
			if err != nil {
				if !errors.Is(err, ErrBusy) && !errors.Is(err, ErrUnsatisfiable) && !errors.Is(err, ErrInvalid) {
					t.Fatalf("step %d: grow: %v", step, err)
				}
				assertUnchanged(t, step, "grow", n, before, pjobs)
				break
			}
			counts["grow"]++
		case what < 82: // shrink
			if n.child == nil {
				break
			}
			before := n.child.Grant()
			pjobs, _ := n.parent.inst.JobTable()
			cands := shrinkCandidates(t, before)
			if len(cands) == 0 {
				break
			}
			path := cands[r.IntN(len(cands))]
			err := n.child.Shrink(path)
			switch {
			case err == nil:
				counts["shrink"]++
				if len(n.child.Grant().Parts) == 0 { // gave everything back
					release(n)
				}
			case errors.Is(err, ErrBusy) || errors.Is(err, ErrInvalid):
				assertUnchanged(t, step, "shrink "+path, n, before, pjobs)
				counts["shrink-refused"]++
			default:
				t.Fatalf("step %d: shrink %s: %v", step, path, err)
			}
		case what < 86: // release a child
			if n.child != nil {
				release(n)
			}
		case what < 90: // snapshot and restore a child, which carries its grant
			if n.child == nil {
				break
			}
			var buf bytes.Buffer
			if err := n.child.Snapshot(&buf); err != nil {
				t.Fatal(err)
			}
			c, err := RestoreChild(&buf, n.parent.inst)
			if err != nil {
				t.Fatalf("step %d: restore child: %v", step, err)
			}
			if !slices.Equal(c.Grant().Parts, n.child.Grant().Parts) {
				t.Fatalf("step %d: restored grant %+v, want %+v", step, c.Grant(), n.child.Grant())
			}
			f1, _ := n.child.FindAt("status=up", "jgf", now)
			f2, _ := c.FindAt("status=up", "jgf", now)
			if f1 != f2 {
				t.Fatalf("step %d: restored child's graph differs", step)
			}
			n.child, n.inst, n.m = c, c, c.m
			for _, k := range n.kids { // grandchildren now ask the restored one
				k.child.parent = c
			}
			counts["restore"]++
		default:
			now += int64(1 + r.IntN(60))
		}
		checkHierarchy(t, step, root, now)
	}
	t.Logf("seed %d: %v", seed, counts)
	for _, k := range []string{"spawn-depth1", "spawn-depth2", "grow", "shrink", "match", "restore"} {
		if counts[k] == 0 {
			t.Errorf("seed %d: no successful %s in %d steps: the test does not exercise it", seed, k, steps)
		}
	}
}

func sortedKeys[V any](m map[uint64]V) []uint64 {
	ids := make([]uint64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// shrinkCandidates lists the paths of a grant's exclusive vertices and of
// its shared containers below the root, so that Shrink meets paths it
// accepts and paths inside whole grants it refuses.
func shrinkCandidates(t *testing.T, g Grant) []string {
	var out []string
	for _, p := range g.Parts {
		d, err := parsePart(p.JGF)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range d.nodes {
			if strings.Count(n.path, "/") > 1 && !slices.Contains(out, n.path) {
				out = append(out, n.path)
			}
		}
	}
	slices.Sort(out)
	return out
}

func assertUnchanged(t *testing.T, step int, what string, n *hnode, before Grant, pjobs []Job) {
	t.Helper()
	if after := n.child.Grant(); !slices.Equal(after.Parts, before.Parts) {
		t.Fatalf("step %d: failed %s changed the grant: %+v -> %+v", step, what, before, after)
	}
	after, _ := n.parent.inst.JobTable()
	if !slices.EqualFunc(pjobs, after, func(a, b Job) bool { return a.ID == b.ID && a.State == b.State && a.Start == b.Start && a.End == b.End }) {
		t.Fatalf("step %d: failed %s changed the parent's job table", step, what)
	}
}

// findPaths returns the containment paths that inst's find lists.
func findPaths(t *testing.T, inst Interface, crit string) []string {
	out, err := inst.FindAt(crit, "jgf", 0)
	if err != nil {
		t.Fatalf("find %q: %v", crit, err)
	}
	if strings.TrimSpace(out) == "" {
		return nil
	}
	d, err := parsePart(out)
	if err != nil {
		t.Fatalf("find %q output: %v", crit, err)
	}
	var ps []string
	for _, n := range d.nodes {
		ps = append(ps, n.path)
	}
	slices.Sort(ps)
	return ps
}

// withAncestors closes a path set under containment ancestors.
func withAncestors(paths []string) []string {
	set := map[string]bool{}
	for _, p := range paths {
		for q := p; strings.Count(q, "/") >= 1 && q != ""; q = q[:strings.LastIndex(q, "/")] {
			set[q] = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func checkHierarchy(t *testing.T, step int, root *hnode, now int64) {
	t.Helper()
	var walk func(n *hnode)
	walk = func(n *hnode) {
		// Capacity of n on each path: its graph's sizes.
		capOf := livePaths(n.m)
		var holds []hold
		for _, a := range n.jobs {
			if j, err := n.inst.Info(a.JobID); err != nil || j.State == Canceled {
				t.Fatalf("step %d: job %d lost: %v %v", step, a.JobID, j, err)
			}
			for _, res := range a.Resources {
				if _, ok := capOf[res.Path]; !ok {
					t.Fatalf("step %d: job %d holds %s, which is not in its instance's graph", step, a.JobID, res.Path)
				}
				if res.Exclusive {
					holds = append(holds, hold{res.Path, res.Units, a.Start, a.End})
				}
			}
		}
		for _, k := range n.kids {
			g := k.child.Grant()
			if len(g.Parts) == 0 {
				t.Fatalf("step %d: a live child has an empty grant", step)
			}
			granted := map[string]bool{}
			_, gend := g.Window()
			for _, p := range g.Parts {
				if p.End != gend {
					t.Fatalf("step %d: part %d ends at %d, the grant at %d", step, p.JobID, p.End, gend)
				}
				// The parent sees the part as its job, with the part's window…
				j, err := n.inst.Info(p.JobID)
				if err != nil || j.State != Allocated || j.Start != p.Start || j.End != p.End {
					t.Fatalf("step %d: parent job %d is %+v (%v), the part says [%d, %d)", step, p.JobID, j, err, p.Start, p.End)
				}
				d, err := parsePart(p.JGF)
				if err != nil {
					t.Fatal(err)
				}
				var excl []string
				for _, nd := range d.nodes {
					granted[nd.path] = true
					if _, ok := capOf[nd.path]; !ok {
						t.Fatalf("step %d: part %d grants %s, which its parent does not have", step, p.JobID, nd.path)
					}
					if nd.exclusive {
						excl = append(excl, nd.path)
						var m struct {
							Metadata struct{ Size int64 } `json:"metadata"`
						}
						_ = json.Unmarshal(nd.raw, &m)
						size := max(m.Metadata.Size, 1)
						holds = append(holds, hold{nd.path, size, p.Start, p.End})
					}
				}
				// …and exactly its exclusive vertices (find lists their
				// ancestors too).
				if got, want := findPaths(t, n.inst, fmt.Sprintf("jobid-alloc=%d", p.JobID)), withAncestors(excl); !slices.Equal(got, want) {
					t.Fatalf("step %d: parent's job %d holds\n%v\nthe part says\n%v", step, p.JobID, got, want)
				}
			}
			// The child's graph is inside its grant.
			for p := range livePaths(k.m) {
				if !granted[p] {
					t.Fatalf("step %d: child has %s, which its grant does not list", step, p)
				}
			}
			// The child's jobs are inside its grant's window.
			for _, a := range k.jobs {
				if a.End > gend {
					t.Fatalf("step %d: child job %d ends at %d after the grant (%d)", step, a.JobID, a.End, gend)
				}
			}
		}
		// Per path, at every start time, the exclusive units held by n's
		// jobs and n's children's grants fit n's capacity.
		byPath := map[string][]hold{}
		for _, h := range holds {
			byPath[h.path] = append(byPath[h.path], h)
		}
		for p, hs := range byPath {
			for _, at := range hs {
				var sum int64
				for _, h := range hs {
					if h.start <= at.start && at.start < h.end {
						sum += h.units
					}
				}
				if sum > capOf[p] {
					t.Fatalf("step %d: %d units of %s held at %d, the instance has %d", step, sum, p, at.start, capOf[p])
				}
			}
		}
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(root)
}

// livePaths maps the containment path of every vertex still in m's graph
// (not removed) to its size.
func livePaths(m *Matcher) map[string]int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := m.Graph()
	out := map[string]int64{}
	for i := range g.NumVertices() {
		vx := g.V(graph.VertexID(i))
		if len(vx.Paths) == 0 {
			continue
		}
		if slices.Contains(g.ByPath(vx.Paths[0].Path), graph.VertexID(i)) {
			out[vx.Paths[0].Path] = vx.Size
		}
	}
	return out
}
