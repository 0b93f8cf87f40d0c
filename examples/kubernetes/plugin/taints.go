// Node properties beyond labels (taints, "key=value" features) and the
// constraints a pod's tolerations and its gofluxion.io/constraint make of
// them.

package plugin

import (
	"maps"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	v1helper "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"

	"github.com/gofluxion/gofluxion/jobspec"
)

// TaintPropertyPrefix starts the property that stands for a node's taint
// on its vertex: "gofluxion.io/taint:key=value:Effect". A label key holds
// no ':', so no label can take its name.
const TaintPropertyPrefix = "gofluxion.io/taint:"

// invalidPropChars are the characters RFC 31 forbids in property names.
const invalidPropChars = "!&'\"^`|()"

// TaintProperty is the property standing for a taint.
func TaintProperty(t *v1.Taint) string {
	return TaintPropertyPrefix + t.Key + "=" + t.Value + ":" + string(t.Effect)
}

// vertexProps are the properties of a node's vertex: its labels (key →
// value); "key=value" for the labels under Args.FeatureLabelPrefixes and
// the topology levels' labels; and one per taint (TaintProperty → its
// effect). A change of any of them re-attaches the node.
func (c *Cluster) vertexProps(n *v1.Node) map[string]string {
	props := maps.Clone(n.Labels)
	if props == nil {
		props = map[string]string{}
	}
	for k, v := range n.Labels {
		if c.featureLabel(k) {
			props[k+"="+v] = v
		}
	}
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		props[TaintProperty(t)] = string(t.Effect)
	}
	return props
}

func (c *Cluster) featureLabel(key string) bool {
	for _, p := range c.args.FeatureLabelPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	for _, l := range c.args.Topology.Levels {
		if key == l.Label {
			return true
		}
	}
	return false
}

// taintRef counts the nodes carrying one taint.
type taintRef struct {
	taint v1.Taint
	nodes int
}

// setTaintsLocked records the taints of a node (nil: the node is gone) in
// the cluster's taint registry, which the pods' constraints are made from.
func (c *Cluster) setTaintsLocked(ns *nodeState, taints []v1.Taint) {
	if slices.EqualFunc(ns.taints, taints, func(a, b v1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
		return
	}
	for i := range ns.taints {
		p := TaintProperty(&ns.taints[i])
		if r := c.taints[p]; r != nil {
			if r.nodes--; r.nodes <= 0 {
				delete(c.taints, p)
			}
		}
	}
	ns.taints = nil
	for _, t := range taints {
		t.TimeAdded = nil
		p := TaintProperty(&t)
		if r := c.taints[p]; r != nil {
			r.nodes++
		} else {
			c.taints[p] = &taintRef{taint: t, nodes: 1}
		}
		ns.taints = append(ns.taints, t)
	}
	c.taintList = nil
}

// taintsLocked lists the distinct taints of the cluster's nodes, by
// property name.
func (c *Cluster) taintsLocked() []*taintRef {
	if c.taintList == nil && len(c.taints) > 0 {
		for _, k := range slices.Sorted(maps.Keys(c.taints)) {
			c.taintList = append(c.taintList, c.taints[k])
		}
	}
	return c.taintList
}

// podTaintProps lists, negated ("^property"), the taints of the cluster a
// pod does not tolerate: NoSchedule and NoExecute ones in untolerated (a
// node carrying one is never admitted, as the in-tree TaintToleration
// filter decides), PreferNoSchedule ones in avoid (a node carrying one is
// tried last).
func (c *Cluster) podTaintProps(p *v1.Pod) (untolerated, avoid []string) {
	for _, r := range c.taintsLocked() {
		if v1helper.TolerationsTolerateTaint(klog.Background(), p.Spec.Tolerations, &r.taint, c.taintCmp) {
			continue
		}
		switch r.taint.Effect {
		case v1.TaintEffectNoSchedule, v1.TaintEffectNoExecute:
			untolerated = append(untolerated, "^"+TaintProperty(&r.taint))
		case v1.TaintEffectPreferNoSchedule:
			avoid = append(avoid, "^"+TaintProperty(&r.taint))
		}
	}
	return untolerated, avoid
}

// admits is the constraint of a shape (its untolerated taints and the
// gang's constraint) as a node predicate, for choosing scopes; nil admits
// every node.
func (s *Shape) admits(req Request) func(ns *nodeState) bool {
	if len(s.Untolerated) == 0 && req.cons == nil {
		return nil
	}
	props := &jobspec.Constraint{Op: jobspec.OpProperties, Values: s.Untolerated}
	return func(ns *nodeState) bool {
		has := func(k string) bool { _, ok := ns.labels[k]; return ok }
		return props.Match(ns.name, ns.sid, has) && req.cons.Match(ns.name, ns.sid, has)
	}
}

// constraintValue is a parsed constraint as the JSON value that reads
// back as it (the canonical form a jobspec embeds).
func constraintValue(c *jobspec.Constraint) any {
	switch c.Op {
	case jobspec.OpAll:
		return map[string]any{}
	case jobspec.OpProperties, jobspec.OpHostlist, jobspec.OpRanks:
		return map[string]any{c.Op: slices.Clone(c.Values)}
	}
	args := make([]any, 0, len(c.Args))
	for _, a := range c.Args {
		args = append(args, constraintValue(a))
	}
	return map[string]any{c.Op: args}
}
