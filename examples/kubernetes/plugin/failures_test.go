package plugin

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// TestRejectedNodesExcluded: a node a later filter rejected for a gang is
// left out of its next matches (the gang tries other nodes, or waits
// with a reason naming the plugin) until the node changes; back-to-back
// rejections back off, bounded.
func TestRejectedNodesExcluded(t *testing.T) {
	c := newCluster(t, noReservations)
	k := withClock(c, newClock())
	addNodes(c, node("a", 1, 1, 0), node("b", 1, 1, 0), node("c", 1, 1, 0))
	mk := func() []*v1.Pod { return gangPods("g", 2, 1000, 0, 0) }
	var seen [][]string
	pick := func() []string {
		t.Helper()
		pl, err := c.Place("default/g", mk(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range mk() {
			c.Cancel(p.UID)
		}
		got := distinct(pl).UnsortedList()
		slices.Sort(got)
		seen = append(seen, got)
		return got
	}
	first := pick()
	// the old livelock: the same nodes every time
	if again := pick(); !slices.Equal(again, first) {
		t.Fatalf("without a rejection the match changed: %v then %v", first, again)
	}
	c.Rejected("default/g", first[0], "VolumeBinding")
	next := pick()
	if slices.Contains(next, first[0]) {
		t.Fatalf("the rejected node %s was picked again: %v", first[0], next)
	}
	// reject the other two: the gang cannot fit, and says why
	c.Rejected("default/g", next[0], "NodePorts")
	_, err := c.Place("default/g", mk(), nil)
	var pe *PlaceError
	if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "later filters rejected") || !strings.Contains(pe.Reason, "(by NodePorts)") {
		t.Fatalf("two nodes rejected: %v", err)
	}
	// a third rejection in a row backs off
	c.Rejected("default/g", next[1], "NodePorts")
	_, err = c.Place("default/g", mk(), nil)
	if !errors.As(err, &pe) || pe.RetryAt.IsZero() || !strings.Contains(pe.Reason, "backing off") {
		t.Fatalf("third rejection: %v", err)
	}
	if d := pe.RetryAt.Sub(k.now()); d <= 0 || d > maxRejectionBackoff*time.Second {
		t.Fatalf("backoff %v", d)
	}
	// a change of a rejected node gives it back (and ends the backoff)
	for _, name := range []string{first[0], next[0]} {
		n := node(name, 1, 1, 0)
		n.Labels["changed"] = "yes"
		c.SetNode(n)
	}
	pl, err := c.Place("default/g", mk(), nil)
	if err != nil || !distinct(pl).Has(first[0]) || !distinct(pl).Has(next[0]) {
		t.Fatalf("after %s and %s changed: %v %v", first[0], next[0], pl, err)
	}
	for _, p := range mk() {
		c.Cancel(p.UID)
	}
	// rejections expire
	k.advance(rejectionTTL*time.Second + time.Minute)
	if _, err := c.Place("default/g", mk(), nil); err != nil {
		t.Fatalf("after the rejections expired: %v", err)
	}
	t.Logf("picks: %v", seen)
}

// TestReplacementInSiblingsDomain: a replacement member of a
// rack-required gang goes to its bound siblings' rack, or waits there;
// of a rack-preferred gang, to their rack if it fits, else elsewhere.
func TestReplacementInSiblingsDomain(t *testing.T) {
	for _, key := range []string{KeyRequired, KeyPreferred} {
		c := newCluster(t, noReservations, zoneRack)
		racks := map[string][]string{"r1": {"a1", "a2", "a3"}, "r2": {"b1", "b2", "b3"}}
		zone := map[string]string{"r1": "z1", "r2": "z2"}
		for r, ns := range racks {
			for _, n := range ns {
				addNodes(c, lnode(n, zone[r], r, 4, 8, 0))
			}
		}
		repl := func(name string) []*v1.Pod {
			p := pod(name, "g", 3, 2000, 0, 0)
			p.Labels[key] = "rack"
			return []*v1.Pod{p}
		}
		// alone, the pod goes to rack x; its siblings are put in the other
		pl, err := c.Place("default/alone", repl("alone"), nil)
		if err != nil {
			t.Fatal(err)
		}
		x, y := "r1", "r2"
		if slices.Contains(racks["r2"], pl.Nodes["uid-alone"]) {
			x, y = y, x
		}
		c.Cancel("uid-alone")
		siblings, spare := racks[y][:2], racks[y][2]
		sibs := gangPods("s", 2, 2000, 0, 0)
		spl, err := c.Place("default/s", sibs, siblings)
		if err != nil {
			t.Fatal(err)
		}
		bindAll(t, c, spl, sibs)
		pl, err = c.PlaceGang("default/g", repl("r"), nil, siblings)
		if err != nil || pl.Nodes["uid-r"] != spare {
			t.Fatalf("%s: replacement: %v %v, want %s in %s", key, pl, err, spare, y)
		}
		c.Cancel("uid-r")
		// rack y full (its spare node down): required waits, naming y;
		// preferred goes to x
		down := lnode(spare, zone[y], y, 4, 8, 0)
		down.Spec.Unschedulable = true
		c.SetNode(down)
		pl, err = c.PlaceGang("default/g", repl("r"), nil, siblings)
		switch key {
		case KeyRequired:
			var pe *PlaceError
			if !errors.As(err, &pe) || !strings.Contains(pe.Reason, "the gang's bound members are in rack "+y) {
				t.Fatalf("required with r1 full: %v %v", pl, err)
			}
		case KeyPreferred:
			if err != nil || !slices.Contains(racks[x], pl.Nodes["uid-r"]) {
				t.Fatalf("preferred with r1 full: %v %v", pl, err)
			}
		}
	}
}
