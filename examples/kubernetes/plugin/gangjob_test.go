package plugin

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// A gang booked by its match as one Fluxion job per shape (split into
// per-pod jobs when some of its pods leave) decides exactly as the
// reference, each pod booked
// on its own job with update: the same placements, explanations,
// reservations, Rs and job ids, and the same free resources on every node,
// over random streams of gangs (spread, packed, heterogeneous, rack
// required or preferred, NUMA single; no duration, one, or mixed ones),
// Permit failures, pod deletions, time passing (pods outliving their
// duration), nodes moving between racks, leaving and coming back, and pods
// of other schedulers.
func TestGangJobsDecideAsPerPodJobs(t *testing.T) {
	seeds := 6 // GOFLUXION_STREAM_SEEDS=N for a longer run
	if n, err := strconv.Atoi(os.Getenv("GOFLUXION_STREAM_SEEDS")); err == nil && n > 0 {
		seeds = n
	} else if testing.Short() {
		seeds = 2
	}
	for seed := range seeds {
		t.Run(strconv.Itoa(seed), func(t *testing.T) { gangJobStream(t, uint64(seed), 250, newCluster(t, zoneRack)) })
	}
}

// gangJobStream runs the stream on a (made with zoneRack) and the
// reference, and compares them after every step.
func gangJobStream(t *testing.T, seed uint64, steps int, a *Cluster) {
	rng := rand.New(rand.NewPCG(seed, 99))
	k := newClock()
	b := newCluster(t, zoneRack)
	b.perPodJobs = true
	withClock(a, k)
	withClock(b, k)
	both := func(f func(c *Cluster)) { f(a); f(b) }

	nodes := map[string]*v1.Node{}
	mkNode := func(i int) *v1.Node {
		n := lnode(fmt.Sprintf("n%02d", i), fmt.Sprintf("z%d", i%2), fmt.Sprintf("r%d", i%4), 8, 16, int64(i%3))
		return n
	}
	for i := range 12 {
		n := mkNode(i)
		nodes[n.Name] = n
		if i%3 == 0 {
			both(func(c *Cluster) { c.SetNUMA(n.Name, []units{{Core: 4, GPU: 1, Mem: 8}, {Core: 4, GPU: 1, Mem: 8}}) })
		}
	}
	for _, name := range slices.Sorted(maps.Keys(nodes)) {
		both(func(c *Cluster) { c.SetNode(nodes[name]) })
	}

	type bound struct{ a, b *v1.Pod }
	var live []bound
	var foreign []*v1.Pod
	var gangs []string

	compare := func(step int, what string) {
		t.Helper()
		for _, name := range slices.Sorted(maps.Keys(nodes)) {
			fa, oka := a.Free(name)
			fb, okb := b.Free(name)
			if fa != fb || oka != okb {
				t.Fatalf("step %d (%s): %s free %v vs reference %v", step, what, name, fa, fb)
			}
		}
		for _, g := range gangs {
			ta, wa, oka := a.Reservation(g)
			tb, wb, okb := b.Reservation(g)
			if !ta.Equal(tb) || wa != wb || oka != okb {
				t.Fatalf("step %d (%s): gang %s reservation %v %s %v vs reference %v %s %v", step, what, g, ta, wa, oka, tb, wb, okb)
			}
		}
		for uid, pa := range a.pods {
			pb := b.pods[uid]
			if pb == nil || pa.node != pb.node || pa.job != pb.job || pa.end != pb.end || !slices.Equal(pa.leaves, pb.leaves) {
				t.Fatalf("step %d (%s): pod %s: %+v vs reference %+v", step, what, pa.name, *pa, pb)
			}
		}
		for name, na := range a.nodes {
			nb := b.nodes[name]
			if !slices.Equal(na.ext, nb.ext) || !maps.Equal(na.held, nb.held) || na.path != nb.path {
				t.Fatalf("step %d (%s): node %s: ext %v held %v vs reference %v %v", step, what, name, na.ext, na.held, nb.ext, nb.held)
			}
		}
		sa, sb := a.Stats(), b.Stats()
		if sa.OurPods != sb.OurPods || sa.Foreign != sb.Foreign || sa.Reservations != sb.Reservations {
			t.Fatalf("step %d (%s): stats %+v vs reference %+v", step, what, sa, sb)
		}
	}

	for step := range steps {
		switch r := rng.IntN(20); {
		case r < 9: // a gang
			name := fmt.Sprintf("g%d", step)
			n := 1 + rng.IntN(5)
			milli, mib, gpus := int64(1+rng.IntN(4))*1000, int64(rng.IntN(5))*1024, int64(rng.IntN(2))
			hetero := rng.IntN(5) == 0
			durs := rng.IntN(3) // none, one, mixed
			var req [2]string
			switch rng.IntN(6) {
			case 0:
				req = [2]string{KeyRequired, "rack"}
			case 1:
				req = [2]string{KeyPreferred, "rack"}
			case 2:
				req = [2]string{KeyPodsPerNode, "any"}
			case 3:
				req = [2]string{KeyNUMA, "single"}
			}
			mk := func() []*v1.Pod {
				var ps []*v1.Pod
				for i := range n {
					m := milli
					if hetero && i%2 == 1 {
						m += 1000
					}
					p := pod(fmt.Sprintf("%s-%d", name, i), name, n, m, mib, gpus)
					if req[0] != "" {
						p.Labels[req[0]] = req[1]
					}
					switch durs {
					case 1:
						p.Labels[KeyWalltime] = "600"
					case 2:
						p.Labels[KeyWalltime] = strconv.Itoa(300 * (1 + i%3))
					}
					ps = append(ps, p)
				}
				return ps
			}
			pa, pb := mk(), mk()
			la, ea := a.Place("default/"+name, pa, nil)
			lb, eb := b.Place("default/"+name, pb, nil)
			gangs = append(gangs, "default/"+name)
			if fmt.Sprint(ea) != fmt.Sprint(eb) {
				t.Fatalf("step %d: gang %s: %v vs reference %v", step, name, ea, eb)
			}
			if ea != nil {
				break
			}
			if !maps.Equal(la.Nodes, lb.Nodes) || la.Scope != lb.Scope {
				t.Fatalf("step %d: gang %s placed %v %q vs reference %v %q", step, name, la.Nodes, la.Scope, lb.Nodes, lb.Scope)
			}
			if rng.IntN(5) == 0 { // a member fails before Permit
				u := pa[rng.IntN(n)].UID
				both(func(c *Cluster) { c.Cancel(u) })
				break
			}
			for i := range pa {
				ra, _ := a.Annotations(pa[i].UID)
				rb, _ := b.Annotations(pb[i].UID)
				if !maps.Equal(ra, rb) {
					t.Fatalf("step %d: pod %s annotations\n%v\nvs reference\n%v", step, pa[i].Name, ra, rb)
				}
			}
			ba, bb := bindAll(t, a, la, pa), bindAll(t, b, lb, pb)
			for i := range ba {
				live = append(live, bound{ba[i], bb[i]})
			}
		case r < 13 && len(live) > 0: // a pod ends
			i := rng.IntN(len(live))
			p := live[i]
			live = slices.Delete(live, i, i+1)
			a.DeletePod(p.a.UID)
			b.DeletePod(p.b.UID)
		case r < 15: // time passes
			k.advance(time.Duration(rng.IntN(900)) * time.Second)
		case r < 17: // a node moves to another rack
			name := fmt.Sprintf("n%02d", rng.IntN(12))
			if n := nodes[name]; n != nil {
				n = n.DeepCopy()
				n.Labels[rackLabel] = fmt.Sprintf("r%d", rng.IntN(5))
				nodes[name] = n
				both(func(c *Cluster) { c.SetNode(n) })
			}
		case r < 18: // a node leaves, or comes back
			i := rng.IntN(12)
			name := fmt.Sprintf("n%02d", i)
			if nodes[name] != nil {
				delete(nodes, name)
				both(func(c *Cluster) { c.DeleteNode(name) })
			} else {
				nodes[name] = mkNode(i)
				both(func(c *Cluster) { c.SetNode(nodes[name]) })
			}
		default: // a pod of another scheduler comes or goes
			if len(foreign) > 0 && rng.IntN(2) == 0 {
				p := foreign[0]
				foreign = foreign[1:]
				both(func(c *Cluster) { c.DeletePod(p.UID) })
				break
			}
			p := pod(fmt.Sprintf("other-%d", step), "", 0, int64(1+rng.IntN(3))*1000, 1024, 0)
			p.Spec.SchedulerName = "default-scheduler"
			p.Spec.NodeName = fmt.Sprintf("n%02d", rng.IntN(12))
			foreign = append(foreign, p)
			both(func(c *Cluster) { c.SetPod(p) })
		}
		compare(step, "")
	}
}
