package plugin

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/gofluxion/gofluxion"
)

func addNodes(c *Cluster, nodes ...*v1.Node) {
	for _, n := range nodes {
		c.SetNode(n)
	}
}

func distinct(pl *Placement) sets.Set[string] {
	s := sets.New[string]()
	for _, n := range pl.Nodes {
		s.Insert(n)
	}
	return s
}

func TestGangOnDistinctNodes(t *testing.T) {
	c := newCluster(t)
	for i := range 6 {
		addNodes(c, node(fmt.Sprintf("n%d", i), 4, 16, 1))
	}
	pods := gangPods("g", 4, 2000, 1024, 1)
	pl, err := c.Place("default/g", pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Nodes) != 4 || distinct(pl).Len() != 4 {
		t.Fatalf("want 4 pods on 4 distinct nodes, got %v", pl.Nodes)
	}
	for _, n := range sets.List(distinct(pl)) {
		f, _ := c.Free(n)
		if f != (units{Core: 2, GPU: 0, Mem: 15}) {
			t.Errorf("%s: free %v", n, f)
		}
	}
	// each pod's R names one node and exactly its share
	for _, p := range pods {
		ann, _ := c.Annotations(p.UID)
		d, err := parseJGFR([]byte(ann[AnnotationR]))
		if err != nil {
			t.Fatal(err)
		}
		s, _ := summarize(d)
		if s.Node != pl.Nodes[p.UID] || len(s.Leaves) != 4 {
			t.Errorf("%s: R %+v", p.Name, s)
		}
	}
	// a second gang of 4 fits only 2 nodes' worth: busy, not unresolvable
	_, err = c.Place("default/h", gangPods("h", 4, 2000, 1024, 1), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || pe.Unresolvable {
		t.Fatalf("want a busy PlaceError, got %v", err)
	}
	if !strings.Contains(pe.Reason, "needs 4 node (with 2 core, 1 gpu, 1 memory each): 2 found now") {
		t.Errorf("reason %q", pe.Reason)
	}
	// one Fluxion job, booked by the match, holds the gang's 4 pods
	if st := c.Stats(); st.Jobs != 1 || st.OurPods != 4 || st.Gangs != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestGangTooBigIsUnresolvable(t *testing.T) {
	c := newCluster(t)
	for i := range 3 {
		addNodes(c, node(fmt.Sprintf("n%d", i), 8, 16, 2))
	}
	_, err := c.Place("default/big", gangPods("big", 4, 1000, 0, 2), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Unresolvable {
		t.Fatalf("want an unresolvable PlaceError, got %v", err)
	}
	want := "needs 4 node (with 1 core, 2 gpu each): 3 found now, only 3 exist"
	if pe.Reason != want {
		t.Errorf("reason %q, want %q", pe.Reason, want)
	}
	if c.Stats().Jobs != 0 {
		t.Error("a failed placement booked something")
	}
}

func TestHeterogeneousGang(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("cpu0", 16, 64, 0), node("gpu0", 4, 16, 1), node("gpu1", 4, 16, 1), node("gpu2", 4, 16, 1))
	pods := []*v1.Pod{pod("leader", "mix", 4, 8000, 4096, 0)}
	for i := range 3 {
		pods = append(pods, pod(fmt.Sprintf("worker-%d", i), "mix", 4, 2000, 1024, 1))
	}
	pl, err := c.Place("default/mix", pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Nodes["uid-leader"] != "cpu0" {
		t.Errorf("leader on %s", pl.Nodes["uid-leader"])
	}
	workers := sets.New[string]()
	for i := range 3 {
		workers.Insert(pl.Nodes[types.UID(fmt.Sprintf("uid-worker-%d", i))])
	}
	if !workers.Equal(sets.New("gpu0", "gpu1", "gpu2")) {
		t.Errorf("workers on %v", sets.List(workers))
	}
}

func TestHeterogeneousShapesShareANode(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 10, 8, 1))
	pods := []*v1.Pod{pod("big", "s", 2, 8000, 0, 0), pod("small", "s", 2, 2000, 0, 1)}
	pl, err := c.Place("default/s", pods, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Nodes["uid-big"] != "a" || pl.Nodes["uid-small"] != "a" {
		t.Fatalf("placement %v", pl.Nodes)
	}
	for _, tc := range []struct {
		uid  types.UID
		want units
	}{{"uid-big", units{Core: 8}}, {"uid-small", units{Core: 2, GPU: 1}}} {
		ann, _ := c.Annotations(tc.uid)
		d, _ := parseJGFR([]byte(ann[AnnotationR]))
		s, _ := summarize(d)
		var got units
		for _, l := range s.Leaves {
			switch l.Type {
			case "core":
				got.Core++
			case "gpu":
				got.GPU++
			default:
				got.Mem++
			}
		}
		if got != tc.want {
			t.Errorf("%s holds %v, want %v", tc.uid, got, tc.want)
		}
	}
}

// Fluence #53: the plugin shares nodes with pods placed by others.
func TestSharesNodesWithOthers(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 4, 8, 0), node("b", 4, 8, 0))
	other := pod("web", "", 0, 3500, 6144, 0)
	other.Spec.SchedulerName = "default-scheduler"
	other.Spec.NodeName = "a"
	c.SetPod(other)
	if f, _ := c.Free("a"); f != (units{Core: 0, Mem: 2}) {
		t.Fatalf("free on a: %v", f)
	}
	pl, err := c.Place("default/g", gangPods("g", 2, 1000, 512, 0), nil)
	if err == nil {
		t.Fatalf("placed 2 pods with 1 node free: %v", pl.Nodes)
	}
	pl, err = c.Place("default/one", []*v1.Pod{pod("one", "", 0, 1000, 512, 0)}, nil)
	if err != nil || pl.Nodes["uid-one"] != "b" {
		t.Fatalf("got %v, %v", pl, err)
	}
	// the other pod finishes: its node is free again
	done := other.DeepCopy()
	done.Status.Phase = v1.PodSucceeded
	c.SetPod(done)
	if f, _ := c.Free("a"); f != (units{Core: 4, Mem: 8}) {
		t.Fatalf("free on a after the other pod finished: %v", f)
	}
	if _, err := c.Place("default/two", []*v1.Pod{pod("two", "", 0, 4000, 0, 0)}, nil); err != nil {
		t.Fatal(err)
	}
}

// Fluence #4: the graph follows node changes.
func TestNodeChurn(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 4, 8, 1), node("b", 4, 8, 1))
	g3 := func() []*v1.Pod { return gangPods("g", 3, 1000, 0, 1) }
	if _, err := c.Place("default/g", g3(), nil); err == nil {
		t.Fatal("3 gpus on 2 nodes")
	}
	addNodes(c, node("c", 4, 8, 1))
	pl, err := c.Place("default/g", g3(), nil)
	if err != nil {
		t.Fatalf("after adding a node: %v", err)
	}
	for _, p := range g3() {
		c.Cancel(p.UID)
	}
	if c.Stats().Jobs != 0 {
		t.Fatalf("cancel left jobs: %+v", c.Stats())
	}
	_ = pl
	for _, tc := range []struct {
		name   string
		mutate func(*v1.Node)
	}{
		{"cordoned", func(n *v1.Node) { n.Spec.Unschedulable = true }},
		{"not ready", func(n *v1.Node) { n.Status.Conditions[0].Status = v1.ConditionFalse }},
	} {
		down := node("c", 4, 8, 1)
		tc.mutate(down)
		c.SetNode(down)
		_, err := c.Place("default/g", g3(), nil)
		var pe *PlaceError
		if !errors.As(err, &pe) || pe.Unresolvable {
			t.Errorf("%s: want busy, got %v", tc.name, err)
		} else if !strings.Contains(pe.Reason, "2 found now, 3 when free") {
			t.Errorf("%s: reason %q", tc.name, pe.Reason)
		}
		c.SetNode(node("c", 4, 8, 1))
		if _, err := c.Place("default/g", g3(), nil); err != nil {
			t.Errorf("%s: back up: %v", tc.name, err)
		}
		for _, p := range g3() {
			c.Cancel(p.UID)
		}
	}
	// a taint the pods do not tolerate leaves the node up but out of
	// their match: unresolvable, as the in-tree TaintToleration filter
	// says (the node's taint update retries them)
	c.SetNode(tainted(node("c", 4, 8, 1), v1.Taint{Key: "maintenance", Effect: v1.TaintEffectNoSchedule}))
	if _, err := c.Place("default/g", g3(), nil); err == nil {
		t.Error("tainted: placed on a node whose taint the pods do not tolerate")
	} else if pe := (*PlaceError)(nil); !errors.As(err, &pe) || !pe.Unresolvable || !strings.Contains(pe.Reason, "2 found now") || !strings.Contains(pe.Reason, "taints") {
		t.Errorf("tainted: %v", err)
	}
	if st := c.Stats(); st.Up != 3 {
		t.Errorf("tainted: the node is down: %+v", st)
	}
	c.DeleteNode("c")
	_, err = c.Place("default/g", g3(), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !pe.Unresolvable {
		t.Errorf("after deleting a node: want unresolvable, got %v", err)
	}
	// a node that grows is re-attached with our pods on it booked again
	one := []*v1.Pod{pod("one", "", 0, 3000, 0, 1)}
	pl, err = c.Place("default/one", one, nil)
	if err != nil {
		t.Fatal(err)
	}
	bound := bindAll(t, c, pl, one)
	grown := node(pl.Nodes["uid-one"], 8, 8, 1)
	c.SetNode(grown)
	if f, _ := c.Free(grown.Name); f != (units{Core: 5, Mem: 8}) {
		t.Errorf("after growing: free %v", f)
	}
	c.DeletePod(bound[0].UID)
	if f, _ := c.Free(grown.Name); f != (units{Core: 8, GPU: 1, Mem: 8}) {
		t.Errorf("after delete: free %v", f)
	}
	// a node deleted and added again comes back whole
	c.DeleteNode("a")
	addNodes(c, node("a", 4, 8, 1))
	if f, _ := c.Free("a"); f != (units{Core: 4, GPU: 1, Mem: 8}) {
		t.Errorf("re-added: free %v", f)
	}
}

func TestNodeSelectorHosts(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 4, 8, 0), node("b", 4, 8, 0), node("c", 4, 8, 0))
	pl, err := c.Place("default/g", gangPods("g", 2, 1000, 0, 0), []string{"b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if !distinct(pl).Equal(sets.New("b", "c")) {
		t.Errorf("placed on %v", pl.Nodes)
	}
	if _, err := c.Place("default/h", gangPods("h", 2, 1000, 0, 0), []string{"a"}); err == nil {
		t.Error("2 nodes out of a hostlist of 1")
	}
}

// Fluence #68: a restarted plugin replays the Rs on the pods, keeps their
// job ids, and decides as if it had never restarted.
func TestRestartRecovery(t *testing.T) {
	for _, format := range []string{"jgf", "rv1"} {
		t.Run(format, func(t *testing.T) {
			withFormat := func(a *Args) { a.RFormat = format }
			var nodes []*v1.Node
			for i := range 12 {
				nodes = append(nodes, node(fmt.Sprintf("node-%02d", i), 8, 32, 2))
			}
			a := newCluster(t, withFormat)
			addNodes(a, nodes...)
			var live []*v1.Pod
			for g := range 4 {
				pods := gangPods(fmt.Sprintf("g%d", g), 3, 2500, 3000, 1)
				pl, err := a.Place("default/g", pods, nil)
				if err != nil {
					t.Fatal(err)
				}
				live = append(live, bindAll(t, a, pl, pods)...)
			}
			other := pod("other", "", 0, 6000, 1024, 0)
			other.Spec.NodeName = "node-05"
			a.SetPod(other)
			// one gang finishes
			for _, p := range live[3:6] {
				a.DeletePod(p.UID)
			}
			live = append(live[:3], live[6:]...)

			// restart: a new plugin from the listing, nodes in another order
			b := newCluster(t, withFormat)
			shuffled := slices.Clone(nodes)
			rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			b.Load(shuffled, append(slices.Clone(live), other))
			for _, n := range nodes {
				fa, _ := a.Free(n.Name)
				fb, _ := b.Free(n.Name)
				if fa != fb {
					t.Errorf("%s: free %v before the restart, %v after", n.Name, fa, fb)
				}
			}
			// the pods keep their job ids; after the restart each is
			// booked as its own Fluxion job (before, gangs held theirs)
			ja, jb := podJobIDs(a), podJobIDs(b)
			if len(ja) != 9 || !slices.Equal(ja, jb) || !slices.Equal(jb, liveJobIDs(inproc(b).Jobs())) {
				t.Errorf("job ids before %v, after %v (Fluxion's %v)", ja, jb, liveJobIDs(inproc(b).Jobs()))
			}
			// the same next decisions, R for R
			for g := range 3 {
				pa := gangPods(fmt.Sprintf("n%d", g), 4, 3000, 2048, 1)
				pb := gangPods(fmt.Sprintf("n%d", g), 4, 3000, 2048, 1)
				la, ea := a.Place("default/n", pa, nil)
				lb, eb := b.Place("default/n", pb, nil)
				if (ea == nil) != (eb == nil) {
					t.Fatalf("gang %d: %v before, %v after", g, ea, eb)
				}
				if ea != nil {
					continue
				}
				for i := range pa {
					ra, _ := a.Annotations(pa[i].UID)
					rb, _ := b.Annotations(pb[i].UID)
					if la.Nodes[pa[i].UID] != lb.Nodes[pb[i].UID] || ra[AnnotationR] != rb[AnnotationR] || ra[AnnotationJobID] != rb[AnnotationJobID] {
						t.Errorf("gang %d pod %d: %s job %s vs %s job %s", g, i, la.Nodes[pa[i].UID], ra[AnnotationJobID], lb.Nodes[pb[i].UID], rb[AnnotationJobID])
					}
				}
			}
		})
	}
}

// podJobIDs lists the job ids of our pods, ascending.
func podJobIDs(c *Cluster) []uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []uint64
	for _, ps := range c.pods {
		out = append(out, ps.job)
	}
	slices.Sort(out)
	return out
}

// liveJobIDs lists the allocated jobs of our pods (not the volatile
// bookings standing for others' pods, nor gangs' jobs).
func liveJobIDs(js []gofluxion.Job) []uint64 {
	var out []uint64
	for _, j := range js {
		if j.State != gofluxion.Canceled && j.ID < gangBase {
			out = append(out, j.ID)
		}
	}
	return out
}

func TestReplayRejectsABadR(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 4, 8, 0))
	p := pod("p", "", 0, 2000, 0, 0)
	p.Spec.NodeName = "a"
	p.Annotations = map[string]string{AnnotationJobID: "7", AnnotationR: `{"graph":{"nodes":[],"edges":[]}}`}
	c.SetPod(p)
	// counted as used by others instead: no double booking
	if f, _ := c.Free("a"); f.Core != 2 {
		t.Errorf("free %v", f)
	}
}

func TestLargeRIsCompressed(t *testing.T) {
	r := strings.Repeat(`{"id":"1","metadata":{"type":"core"}},`, 5000)
	enc := encodeR(r)
	if !strings.HasPrefix(enc, "gz:") || len(enc) > len(r)/4 {
		t.Fatalf("encoded %d bytes from %d", len(enc), len(r))
	}
	if decodeR(enc) != r {
		t.Fatal("round trip")
	}
	if encodeR("small") != "small" || decodeR("small") != "small" {
		t.Fatal("small Rs are kept as they are")
	}
}

func TestPermitAndCancel(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 4, 8, 0), node("b", 4, 8, 0), node("c", 4, 8, 0))
	pods := gangPods("g", 3, 1000, 0, 0)
	if _, err := c.Place("default/g", pods, nil); err != nil {
		t.Fatal(err)
	}
	for i, p := range pods {
		others, allow, err := c.Permit(p.UID)
		if err != nil {
			t.Fatal(err)
		}
		if last := i == len(pods)-1; allow != last || (last && len(others) != 2) {
			t.Fatalf("pod %d: allow %v others %v", i, allow, others)
		}
	}
	// before Permit lets the gang go, one failure cancels all
	pods2 := gangPods("h", 3, 1000, 0, 0)
	if _, err := c.Place("default/h", pods2, nil); err != nil {
		t.Fatal(err)
	}
	c.Permit(pods2[0].UID)
	rejected := c.Cancel(pods2[1].UID)
	if len(rejected) != 3 {
		t.Fatalf("canceled %v", rejected)
	}
	if _, _, ok := c.Assignment(pods2[0].UID); ok {
		t.Error("sibling still placed")
	}
	// the first gang's job is left, holding its 3 pods
	if st := c.Stats(); st.Jobs != 1 || st.OurPods != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestSweep(t *testing.T) {
	c := newCluster(t)
	addNodes(c, node("a", 4, 8, 0))
	pods := gangPods("g", 1, 1000, 0, 0)
	if _, err := c.Place("default/g", pods, nil); err != nil {
		t.Fatal(err)
	}
	if len(c.Sweep(1<<40)) != 0 {
		t.Fatal("swept a fresh gang")
	}
	if len(c.Sweep(-1)) != 1 || c.Stats().Jobs != 0 {
		t.Fatal("old gang kept")
	}
}

func TestArgs(t *testing.T) {
	for _, tc := range []struct {
		args Args
		bad  string
	}{
		{Args{}, ""},
		{Args{Policy: "high", PruneFilters: "ALL:core"}, ""},
		{Args{Policy: "nope"}, "policy"},
		{Args{PruneFilters: "bogus"}, "pruneFilters"},
		{Args{MemoryChunk: "12x"}, "memoryChunk"},
		{Args{MemoryChunk: "1Ki"}, "memoryChunk"},
		{Args{PermitTimeoutSeconds: -3}, "permitTimeoutSeconds"},
		{Args{RFormat: "simple"}, "rFormat"},
		{Args{GroupLabel: "not a label"}, "groupLabel"},
		{Args{Matcher: &MatcherArgs{Address: "gofluxiond-0.gofluxiond:7070"}}, ""},
		{Args{Matcher: &MatcherArgs{Address: "a:7070, b:7070,[::1]:7070", TimeoutSeconds: 5}}, ""},
		{Args{Matcher: &MatcherArgs{}}, "args.matcher.address: Required value"},
		{Args{Matcher: &MatcherArgs{Address: " , "}}, "args.matcher.address: Required value"},
		{Args{Matcher: &MatcherArgs{Address: "gofluxiond"}}, `args.matcher.address: Invalid value: "gofluxiond": must be host:port`},
		{Args{Matcher: &MatcherArgs{Address: ":7070"}}, "no host"},
		{Args{Matcher: &MatcherArgs{Address: "h:http"}}, `port "http" is not a number`},
		{Args{Matcher: &MatcherArgs{Address: "h:70000"}}, `port "70000" is not a number between 1 and 65535`},
		{Args{Matcher: &MatcherArgs{Address: "h:1", TimeoutSeconds: -1}}, "args.matcher.timeoutSeconds"},
		{Args{Matcher: &MatcherArgs{Address: strings.Repeat("h:1,", 17)}}, "args.matcher.address: Too many: 17"},
	} {
		a := tc.args
		a.SetDefaults()
		err := a.Validate()
		if (err != nil) != (tc.bad != "") || (err != nil && !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("%+v: %v", tc.args, err)
		}
	}
}
