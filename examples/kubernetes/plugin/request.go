package plugin

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/gofluxion/gofluxion/jobspec"
)

// Pod labels or annotations that shape a gang's request (an annotation
// wins over a label of the same key). Every member of a gang must agree.
const (
	// KeyRequired: all pods under one vertex of that level, or the gang
	// waits.
	KeyRequired = "gofluxion.io/topology-required"
	// KeyPreferred: one vertex of that level if that fits now, else the
	// next level up, …, else anywhere.
	KeyPreferred = "gofluxion.io/topology-preferred"
	// KeyNUMA: "single": each pod's cores, gpus and memory from one NUMA
	// zone (of a node that publishes a NodeResourceTopology).
	KeyNUMA = "gofluxion.io/numa"
	// KeyPodsPerNode: "1" (default): a gang's pods of one shape on
	// distinct nodes; "any": packed, several per node.
	KeyPodsPerNode = "gofluxion.io/pods-per-node"
	// KeyWalltime: the pod's duration ("90m", "2h", or seconds) when it
	// has no activeDeadlineSeconds.
	KeyWalltime = "gofluxion.io/walltime"
	// KeyConstraint: an RFC 31 constraint (JSON or YAML) every node of
	// the gang must satisfy, over the nodes' properties (labels, "key=value"
	// of feature and level labels, taints), names (hostlist) and ids
	// (ranks), e.g. {"properties": ["feature.node.kubernetes.io/cpu-cpuid.AVX512F"]}.
	KeyConstraint = "gofluxion.io/constraint"
)

// maxConstraint bounds the size of a gofluxion.io/constraint value.
const maxConstraint = 16 << 10

// Request is what a gang asks for beyond its pods' resources.
type Request struct {
	// Required, Preferred: a level type of Args.Topology, or "".
	Required, Preferred string
	// NUMA: every pod within one NUMA zone.
	NUMA bool
	// Pack: several pods of a shape may share a node.
	Pack bool
	// Constraint is the gang's gofluxion.io/constraint in canonical JSON,
	// or "".
	Constraint string

	cons *jobspec.Constraint // Constraint parsed (nil: none)
}

// RequestError is a request the plugin cannot honour: the gang stays
// pending (UnschedulableAndUnresolvable) until its pods are fixed.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

func podValue(p *v1.Pod, key string) (string, bool) {
	if v, ok := p.Annotations[key]; ok {
		return v, true
	}
	v, ok := p.Labels[key]
	return v, ok
}

// parseRequest reads a gang's request from its pods; every pod must say
// the same, and every value must be known.
func (a *Args) parseRequest(pods []*v1.Pod) (Request, error) {
	var r Request
	for i, p := range pods {
		var q Request
		for _, key := range []string{KeyRequired, KeyPreferred} {
			v, ok := podValue(p, key)
			if !ok {
				continue
			}
			if a.levelIndex(v) < 0 {
				return r, &RequestError{fmt.Sprintf("pod %s/%s: %s: unknown level %q (levels: %s)", p.Namespace, p.Name, key, v, strings.Join(a.levelTypes(), ", "))}
			}
			if key == KeyRequired {
				q.Required = v
			} else {
				q.Preferred = v
			}
		}
		if q.Required != "" && q.Preferred != "" {
			return r, &RequestError{fmt.Sprintf("pod %s/%s: both %s and %s", p.Namespace, p.Name, KeyRequired, KeyPreferred)}
		}
		if v, ok := podValue(p, KeyNUMA); ok {
			if v != "single" {
				return r, &RequestError{fmt.Sprintf("pod %s/%s: %s: unknown value %q (want single)", p.Namespace, p.Name, KeyNUMA, v)}
			}
			q.NUMA = true
		}
		if v, ok := podValue(p, KeyPodsPerNode); ok {
			switch v {
			case "1":
			case "any":
				q.Pack = true
			default:
				return r, &RequestError{fmt.Sprintf("pod %s/%s: %s: unknown value %q (want 1 or any)", p.Namespace, p.Name, KeyPodsPerNode, v)}
			}
		}
		if v, ok := podValue(p, KeyConstraint); ok {
			if len(v) > maxConstraint {
				return r, &RequestError{fmt.Sprintf("pod %s/%s: %s: %d bytes, more than %d", p.Namespace, p.Name, KeyConstraint, len(v), maxConstraint)}
			}
			c, err := jobspec.ParseConstraint([]byte(v))
			if err != nil {
				return r, &RequestError{fmt.Sprintf("pod %s/%s: %s: invalid constraint %q: %v", p.Namespace, p.Name, KeyConstraint, v, err)}
			}
			b, _ := json.Marshal(constraintValue(c))
			q.Constraint = string(b)
			q.cons = c
		}
		if i == 0 {
			r = q
		} else if q.Required != r.Required || q.Preferred != r.Preferred || q.NUMA != r.NUMA || q.Pack != r.Pack || q.Constraint != r.Constraint {
			return r, &RequestError{fmt.Sprintf("pods %s/%s and %s/%s of one gang ask for different topologies", pods[0].Namespace, pods[0].Name, p.Namespace, p.Name)}
		}
	}
	return r, nil
}

// podDuration is how long a pod is booked for, in seconds (0: until it
// ends): activeDeadlineSeconds, else gofluxion.io/walltime, else the
// Args default.
func (a *Args) podDuration(p *v1.Pod) (int64, error) {
	if d := p.Spec.ActiveDeadlineSeconds; d != nil && *d > 0 {
		return min(*d, MaxWalltimeSeconds), nil
	}
	if v, ok := podValue(p, KeyWalltime); ok {
		d, err := parseWalltime(v)
		if err != nil {
			return 0, &RequestError{fmt.Sprintf("pod %s/%s: %s: %v", p.Namespace, p.Name, KeyWalltime, err)}
		}
		return d, nil
	}
	return a.DefaultWalltimeSeconds, nil
}

func parseWalltime(v string) (int64, error) {
	var secs int64
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		secs = n
	} else if d, err := time.ParseDuration(v); err == nil {
		secs = int64((d + time.Second - 1) / time.Second)
	} else {
		return 0, fmt.Errorf("%q is neither seconds nor a duration such as 90m", v)
	}
	if secs < 1 || secs > MaxWalltimeSeconds {
		return 0, fmt.Errorf("%q is out of range (1s to 10 years)", v)
	}
	return secs, nil
}

// Form is one way of asking Fluxion for a shape of a gang.
type Form struct {
	// Top is a level type the jobspec starts with (L[1] → node[N] → …),
	// or "".
	Top string
	// Pack: a top-level slot[N] instead of node[N] → numa[1] → slot[1].
	Pack bool
	// NUMA: only nodes with NodeResourceTopology zones.
	NUMA bool
	// Hosts, when not nil, are the only nodes the shape may use.
	Hosts []string
	// Duration in seconds; 0 books until the end of time.
	Duration int64
	// Props: properties every node must (or, "^name", must not) have,
	// e.g. the taints the pods do not tolerate.
	Props []string
	// Constraint: an RFC 31 constraint in JSON, or "".
	Constraint string
}

// Jobspec is the canonical jobspec (JSON) of n pods of demand d:
//
//	spread:    [L[1] →] node[n] → numa[1] → slot[1] → {core[c], gpu[g], memory[m]}
//	pack:      slot[n] → {core[c], gpu[g], memory[m]}
//	numa:      + constraints {properties: [gofluxion.io/nrt]}
//	hosts:     + constraints {hostlist: hosts}
//	props:     + constraints {properties: props}
//	user:      + the gang's gofluxion.io/constraint
//
// (several constraints are joined with and)
//
// A spread shape's pods land on n distinct nodes, each within one NUMA
// vertex; a packed shape's slots apply at the NUMA vertices (Fluxion
// matches a top-level slot where its resources hang directly), so a pod
// never spans zones there either.
func (f Form) Jobspec(d units, n int) []byte {
	type res struct {
		Type  string `json:"type"`
		Count int64  `json:"count"`
		Label string `json:"label,omitempty"`
		With  []res  `json:"with,omitempty"`
	}
	var with []res
	for _, t := range leafTypes {
		if k := d.get(t); k > 0 {
			with = append(with, res{Type: t, Count: k})
		}
	}
	var top res
	if f.Pack {
		top = res{Type: "slot", Count: int64(n), Label: "pod", With: with}
	} else {
		slot := res{Type: "slot", Count: 1, Label: "pod", With: with}
		top = res{Type: "node", Count: int64(n), With: []res{{Type: "numa", Count: 1, With: []res{slot}}}}
		if f.Top != "" {
			top = res{Type: f.Top, Count: 1, With: []res{top}}
		}
	}
	tasks := []map[string]any{{"command": []string{"pod"}, "slot": "pod", "count": map[string]string{"per_slot": "1"}}}
	sys := map[string]any{"duration": f.Duration}
	var cons []any
	if f.Hosts != nil {
		cons = append(cons, map[string]any{"hostlist": f.Hosts})
	}
	if f.NUMA {
		cons = append(cons, map[string]any{"properties": []string{nrtProperty}})
	}
	if len(f.Props) > 0 {
		cons = append(cons, map[string]any{"properties": f.Props})
	}
	if f.Constraint != "" {
		cons = append(cons, json.RawMessage(f.Constraint))
	}
	switch {
	case len(cons) == 1:
		sys["constraints"] = cons[0]
	case len(cons) > 1:
		sys["constraints"] = map[string]any{"and": cons}
	}
	b, _ := json.Marshal(map[string]any{"version": 1, "resources": []res{top}, "tasks": tasks, "attributes": map[string]any{"system": sys}})
	return b
}
