package plugin

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
)

func noReservations(a *Args) { a.ReservationDepth = -1 }

func tainted(n *v1.Node, taints ...v1.Taint) *v1.Node { n.Spec.Taints = taints; return n }

// TestTaintTolerationOracle checks, on random taints and tolerations, that
// a pod is placed on exactly the nodes the in-tree helper (the
// TaintToleration filter's) says it tolerates: one node at a time, and
// as a gang as large as those nodes.
func TestTaintTolerationOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 5))
	keys := []string{"gpu", "dedicated", "maintenance"}
	vals := []string{"", "a", "b"}
	effects := []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute, v1.TaintEffectPreferNoSchedule}
	randTaint := func() v1.Taint {
		return v1.Taint{Key: keys[rng.IntN(len(keys))], Value: vals[rng.IntN(len(vals))], Effect: effects[rng.IntN(len(effects))]}
	}
	randToleration := func() v1.Toleration {
		tol := v1.Toleration{}
		if rng.IntN(5) > 0 {
			tol.Key = keys[rng.IntN(len(keys))]
		}
		if tol.Key == "" || rng.IntN(2) == 0 {
			tol.Operator = v1.TolerationOpExists
		} else {
			tol.Operator = v1.TolerationOpEqual
			tol.Value = vals[rng.IntN(len(vals))]
		}
		if rng.IntN(3) > 0 {
			tol.Effect = effects[rng.IntN(len(effects))]
		}
		return tol
	}
	doNotSchedule := func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}
	const nodes = 8
	for round := range 40 {
		c := newCluster(t, noReservations)
		var ns []*v1.Node
		for i := range nodes {
			var taints []v1.Taint
			for range rng.IntN(3) {
				tt := randTaint()
				if !slices.ContainsFunc(taints, func(o v1.Taint) bool { return o.MatchTaint(&tt) }) {
					taints = append(taints, tt)
				}
			}
			n := tainted(node(fmt.Sprintf("n%d", i), 1, 1, 0), taints...)
			ns = append(ns, n)
			addNodes(c, n)
		}
		for pi := range 5 {
			var tols []v1.Toleration
			for range rng.IntN(4) {
				tols = append(tols, randToleration())
			}
			var want []string
			for _, n := range ns {
				if _, bad := v1helper.FindMatchingUntoleratedTaint(klog.Background(), n.Spec.Taints, tols, doNotSchedule, false); !bad {
					want = append(want, n.Name)
				}
			}
			mk := func(name string) *v1.Pod {
				p := pod(name, "", 0, 1000, 0, 0)
				p.Spec.Tolerations = tols
				return p
			}
			var got []string
			for _, n := range ns {
				p := mk(fmt.Sprintf("p%d-%d-%s", round, pi, n.Name))
				_, err := c.Place("default/"+p.Name, []*v1.Pod{p}, []string{n.Name})
				if err == nil {
					got = append(got, n.Name)
					c.Cancel(p.UID)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d pod %d: tolerations %+v: placed on %v, the in-tree helper admits %v\nnodes: %s",
					round, pi, tols, got, want, describeTaints(ns))
			}
			// a gang of as many pods as admitted nodes takes exactly those
			if len(want) > 0 {
				var gang []*v1.Pod
				for i := range want {
					p := mk(fmt.Sprintf("g%d-%d-%d", round, pi, i))
					p.Labels[DefaultGroupLabel] = "g"
					gang = append(gang, p)
				}
				pl, err := c.Place("default/g", gang, nil)
				if err != nil {
					t.Fatalf("round %d pod %d: gang of %d on %v: %v", round, pi, len(want), want, err)
				}
				if got := distinct(pl).UnsortedList(); !sameSet(got, want) {
					t.Fatalf("round %d pod %d: gang on %v, admitted %v", round, pi, got, want)
				}
				for _, p := range gang {
					c.Cancel(p.UID)
				}
			}
			if len(want) < nodes {
				var gang []*v1.Pod
				for i := range len(want) + 1 {
					p := mk(fmt.Sprintf("h%d-%d-%d", round, pi, i))
					gang = append(gang, p)
				}
				if pl, err := c.Place("default/h", gang, nil); err == nil {
					t.Fatalf("round %d pod %d: gang of %d placed on %v, only %v admitted", round, pi, len(gang), pl.Nodes, want)
				}
			}
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func describeTaints(ns []*v1.Node) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%s %v; ", n.Name, n.Spec.Taints)
	}
	return b.String()
}

// TestTaintedNodeStaysUp: a GPU node pool tainted NoSchedule takes the
// gangs that tolerate the taint, and only those; a taint change re-attaches
// the node with its new properties.
func TestTaintedNodeStaysUp(t *testing.T) {
	c := newCluster(t, noReservations)
	gpuTaint := v1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: v1.TaintEffectNoSchedule}
	addNodes(c, tainted(node("g0", 4, 8, 2), gpuTaint), tainted(node("g1", 4, 8, 2), gpuTaint), node("c0", 4, 8, 0))
	if st := c.Stats(); st.Up != 3 {
		t.Fatalf("tainted nodes down: %+v", st)
	}
	tolerate := func(ps []*v1.Pod) []*v1.Pod {
		for _, p := range ps {
			p.Spec.Tolerations = []v1.Toleration{{Key: "nvidia.com/gpu", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}}
		}
		return ps
	}
	g := tolerate(gangPods("gpu", 2, 1000, 512, 1))
	pl, err := c.Place("default/gpu", g, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := distinct(pl).UnsortedList(); !sameSet(got, []string{"g0", "g1"}) {
		t.Fatalf("gpu gang on %v", got)
	}
	bindAll(t, c, pl, g)
	// a cpu pod without the toleration goes to c0 only: 2 pods never fit
	cp := gangPods("cpu", 2, 1000, 512, 0)
	if _, err := c.Place("default/cpu", cp, nil); err == nil {
		t.Fatal("2 pods without the toleration placed on 1 untainted node")
	}
	one := []*v1.Pod{pod("one", "", 0, 1000, 512, 0)}
	if pl, err := c.Place("default/one", one, nil); err != nil || pl.Nodes["uid-one"] != "c0" {
		t.Fatalf("untolerating pod: %v %v", pl, err)
	}
	c.Cancel("uid-one")
	// the taint goes: g1 admits everyone, with the gang's pods still booked
	c.SetNode(node("g1", 4, 8, 2))
	if f, _ := c.Free("g1"); f != (units{Core: 3, GPU: 1, Mem: 7}) {
		t.Fatalf("g1 after the taint went: free %v", f)
	}
	if _, err := c.Place("default/cpu", gangPods("cpu", 2, 1000, 512, 0), nil); err != nil {
		t.Fatalf("after the taint went: %v", err)
	}
	// PreferNoSchedule is never a reason to fail: a single-node cluster
	// tainted so still takes the pod
	p := newCluster(t, noReservations)
	addNodes(p, tainted(node("only", 2, 2, 0), v1.Taint{Key: "spot", Effect: v1.TaintEffectPreferNoSchedule}))
	if _, err := p.Place("default/x", []*v1.Pod{pod("x", "", 0, 1000, 0, 0)}, nil); err != nil {
		t.Fatalf("PreferNoSchedule refused a pod: %v", err)
	}
}

// TestPreferNoScheduleLast: a node with an untolerated PreferNoSchedule
// taint is used only when the others are full, whichever node the policy
// would pick first.
func TestPreferNoScheduleLast(t *testing.T) {
	spot := v1.Taint{Key: "spot", Value: "true", Effect: v1.TaintEffectPreferNoSchedule}
	for _, taintedName := range []string{"a", "b"} {
		c := newCluster(t, noReservations)
		for _, name := range []string{"a", "b"} {
			n := node(name, 1, 1, 0)
			if name == taintedName {
				n = tainted(n, spot)
			}
			addNodes(c, n)
		}
		p1 := []*v1.Pod{pod("p1", "", 0, 1000, 0, 0)}
		pl, err := c.Place("default/p1", p1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Nodes["uid-p1"] == taintedName {
			t.Fatalf("tainted %s: the first pod went to the PreferNoSchedule node", taintedName)
		}
		p2 := []*v1.Pod{pod("p2", "", 0, 1000, 0, 0)}
		pl, err = c.Place("default/p2", p2, nil)
		if err != nil || pl.Nodes["uid-p2"] != taintedName {
			t.Fatalf("tainted %s: second pod %v %v", taintedName, pl, err)
		}
		// a pod tolerating it sees no difference
		c.Cancel("uid-p2")
		c.Cancel("uid-p1")
		tol := pod("p3", "", 0, 1000, 0, 0)
		tol.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		if sh := c.shapes([]*v1.Pod{tol}); len(sh[0].Avoid) != 0 || len(sh[0].Untolerated) != 0 {
			t.Fatalf("a pod tolerating everything: %+v", sh[0])
		}
	}
}

// TestNFDProperties: nodes' feature labels are properties a gang's
// gofluxion.io/constraint selects on, by presence or by value, updated
// when the labels change; the topology levels' labels too; an invalid
// constraint is refused with a message naming it.
func TestNFDProperties(t *testing.T) {
	const avx = "feature.node.kubernetes.io/cpu-cpuid.AVX512F"
	const kernel = "feature.node.kubernetes.io/kernel-version.major"
	c := newCluster(t, noReservations, zoneRack)
	for i, f := range []struct{ avx, kernel, zone string }{
		{"", "5", "z1"}, {"true", "6", "z1"}, {"true", "5", "z2"}, {"", "6", "z2"},
	} {
		n := lnode(fmt.Sprintf("n%d", i), f.zone, "r"+f.zone, 2, 4, 0)
		if f.avx != "" {
			n.Labels[avx] = f.avx
		}
		n.Labels[kernel] = f.kernel
		addNodes(c, n)
	}
	with := func(cons string, ps []*v1.Pod) []*v1.Pod {
		for _, p := range ps {
			p.Annotations = map[string]string{KeyConstraint: cons}
		}
		return ps
	}
	try := func(name, cons string, n int) ([]string, error) {
		ps := with(cons, gangPods(name, n, 1000, 0, 0))
		pl, err := c.Place("default/"+name, ps, nil)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			c.Cancel(p.UID)
		}
		got := distinct(pl).UnsortedList()
		slices.Sort(got)
		return got, nil
	}
	for _, tc := range []struct {
		cons string
		n    int
		want []string
	}{
		{`{"properties": ["` + avx + `"]}`, 2, []string{"n1", "n2"}},
		{`properties: ["` + kernel + `=6"]`, 2, []string{"n1", "n3"}}, // YAML
		{`{"and": [{"properties": ["` + avx + `"]}, {"properties": ["` + kernel + `=6"]}]}`, 1, []string{"n1"}},
		{`{"not": [{"properties": ["` + avx + `"]}]}`, 2, []string{"n0", "n3"}},
		{`{"properties": ["` + zoneLabel + `=z2"]}`, 2, []string{"n2", "n3"}},
		{`{"or": [{"hostlist": ["n0"]}, {"properties": ["^` + kernel + `=5"]}]}`, 3, []string{"n0", "n1", "n3"}},
	} {
		got, err := try("g", tc.cons, tc.n)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.cons, got, err, tc.want)
		}
		if _, err := try("g", tc.cons, tc.n+1); err == nil {
			t.Errorf("%s: %d pods placed, only %v admitted", tc.cons, tc.n+1, tc.want)
		}
	}
	// a label change updates the properties: n3 gains AVX-512
	n3 := lnode("n3", "z2", "rz2", 2, 4, 0)
	n3.Labels[kernel] = "6"
	n3.Labels[avx] = "true"
	c.SetNode(n3)
	if got, err := try("g", `{"properties": ["`+avx+`"]}`, 3); err != nil || !slices.Equal(got, []string{"n1", "n2", "n3"}) {
		t.Errorf("after n3 gained the label: %v %v", got, err)
	}
	// with a topology request
	ps := with(`{"properties": ["`+avx+`"]}`, gangPods("r", 2, 1000, 0, 0))
	for _, p := range ps {
		p.Labels[KeyRequired] = "zone"
	}
	if pl, err := c.Place("default/r", ps, nil); err != nil || !sameSet(distinct(pl).UnsortedList(), []string{"n2", "n3"}) {
		t.Errorf("zone-required with AVX-512: %v %v", pl, err)
	}
	// invalid constraints are refused, named
	for _, bad := range []string{`{"properties": ["a|b"]}`, `{"xor": []}`, `[1]`, `{"properties": "x"}`} {
		_, err := try("bad", bad, 1)
		var re *RequestError
		if !errors.As(err, &re) || !strings.Contains(re.Msg, KeyConstraint) || !strings.Contains(re.Msg, "invalid constraint") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	// members must agree
	mixed := gangPods("m", 2, 1000, 0, 0)
	mixed[0].Annotations = map[string]string{KeyConstraint: `{"properties": ["` + avx + `"]}`}
	var re *RequestError
	if _, err := c.Place("default/m", mixed, nil); !errors.As(err, &re) {
		t.Errorf("members with different constraints: %v", err)
	}
}

// TestVertexProps: the properties a node's vertex carries.
func TestVertexProps(t *testing.T) {
	c := newCluster(t, zoneRack, func(a *Args) { a.FeatureLabelPrefixes = []string{"example.com/"} })
	n := lnode("n", "z1", "r1", 1, 1, 0)
	n.Labels["example.com/x"] = "1"
	n.Labels["feature.node.kubernetes.io/y"] = "true"
	n.Spec.Taints = []v1.Taint{{Key: "k", Value: "v", Effect: v1.TaintEffectNoExecute}}
	got := c.vertexProps(n)
	for _, k := range []string{"example.com/x", "example.com/x=1", zoneLabel + "=z1", rackLabel + "=r1",
		"feature.node.kubernetes.io/y", "gofluxion.io/taint:k=v:NoExecute"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no property %q in %v", k, got)
		}
	}
	if _, ok := got["feature.node.kubernetes.io/y=true"]; ok {
		t.Errorf("a label outside the prefixes has a key=value property: %v", got)
	}
}
