package jobspec

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// New returns a version 1 jobspec requesting resources for duration d
// (0: the resource graph's whole time window; the matcher books whole
// seconds, rounding up). Its one task runs "app" once per slot of the
// first slot label found in the tree ("task" if there is none); tasks do
// not influence matching. New does not validate: Validate does, and the
// matchers call it.
//
// The levels must follow the graph's containment: on a graph whose nodes
// hold their cores and gpus in sockets (as the demo graph's do), ask
//
//	js := jobspec.New(time.Hour,
//		jobspec.Res("node", 2,
//			jobspec.Slot("task", 1,
//				jobspec.Res("socket", 1, jobspec.Res("core", 4), jobspec.Res("gpu", 1)))))
//
// and drop the socket level on one whose nodes hold them directly; Fluxion
// never allocates a slot whose contents sit a level below its node.
// gofluxion's Matcher.JobspecFor writes the right shape for a graph.
func New(d time.Duration, resources ...*Resource) *Jobspec {
	label := firstSlotLabel(resources, 0)
	if label == "" {
		label = "task"
	}
	return &Jobspec{
		Version:   1,
		Resources: resources,
		Duration:  d.Seconds(),
		Tasks:     []Task{{Command: []string{"app"}, Slot: label, Count: map[string]string{"per_slot": "1"}}},
	}
}

func firstSlotLabel(l []*Resource, depth int) string {
	if depth > MaxDepth {
		return ""
	}
	for _, r := range l {
		if r == nil {
			continue
		}
		if r.Type == "slot" && r.Label != "" {
			return r.Label
		}
		if s := firstSlotLabel(r.With, depth+1); s != "" {
			return s
		}
	}
	return ""
}

// Res returns a request for exactly n resources of type typ, each with the
// resources in with below it. It is not exclusive unless the matcher's
// rules make it so (Exclusively marks it).
func Res(typ string, n uint32, with ...*Resource) *Resource {
	return &Resource{Type: typ, Count: Fixed(n), With: with}
}

// Slot returns a slot of n with the given label: the unit a task runs in.
// The resources below a slot are taken exclusively.
func Slot(label string, n uint32, with ...*Resource) *Resource {
	return &Resource{Type: "slot", Count: Fixed(n), Label: label, With: with}
}

// Exclusively marks r as requested exclusively ("exclusive: true") and
// returns it.
func (r *Resource) Exclusively() *Resource {
	r.Exclusive = ExclusiveTrue
	return r
}

// Between sets r's count to "from min to max", taking as many as are
// available in steps of one, and returns r.
func (r *Resource) Between(min, max uint32) *Resource {
	r.Count = Count{Min: min, Max: max, Operator: '+', Operand: 1}
	return r
}

// Shape writes the resource tree in one line, as resource-query's
// documentation does: "node[2]->slot[1]->socket[1]->{core[4],gpu[1]}", with
// "!" after an exclusive level and min-max for a range.
func (js *Jobspec) Shape() string {
	var b bytes.Buffer
	shapeList(&b, js.Resources, 0)
	return b.String()
}

func shapeList(b *bytes.Buffer, l []*Resource, depth int) {
	if depth > MaxDepth {
		b.WriteString("…")
		return
	}
	if len(l) > 1 {
		b.WriteByte('{')
	}
	for i, r := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		if r == nil {
			b.WriteString("nil")
			continue
		}
		if r.Count.Max > r.Count.Min {
			fmt.Fprintf(b, "%s[%d-%d]", r.Type, r.Count.Min, r.Count.Max)
		} else {
			fmt.Fprintf(b, "%s[%d]", r.Type, r.Count.Min)
		}
		if r.Exclusive == ExclusiveTrue {
			b.WriteByte('!')
		}
		if len(r.With) > 0 {
			b.WriteString("->")
			shapeList(b, r.With, depth+1)
		}
	}
	if len(l) > 1 {
		b.WriteByte('}')
	}
}

// YAML renders the jobspec as a canonical jobspec V1 document that Parse
// reads back to an equal Jobspec (for reapi/fluxcli, resource-query or
// Flux itself). It fails on a jobspec that Validate rejects.
func (js *Jobspec) YAML() ([]byte, error) {
	if err := Validate(js); err != nil {
		return nil, err
	}
	top := mapping(
		"version", scalar(strconv.FormatUint(uint64(js.Version), 10)),
		"resources", resourcesNode(js.Resources),
		"attributes", attributesNode(js),
		"tasks", tasksNode(js.Tasks),
	)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(top); err != nil {
		return nil, fmt.Errorf("jobspec: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("jobspec: encode: %w", err)
	}
	return b.Bytes(), nil
}

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// quoted is a string scalar (quoted when plain style would read as
// another type).
func quoted(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, scalar(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

func resourcesNode(l []*Resource) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range l {
		n.Content = append(n.Content, resourceNode(r))
	}
	return n
}

func resourceNode(r *Resource) *yaml.Node {
	kv := []any{"type", quoted(r.Type), "count", countNode(r.Count)}
	if r.Unit != "" {
		kv = append(kv, "unit", quoted(r.Unit))
	}
	if r.Exclusive != ExclusiveUnspecified {
		kv = append(kv, "exclusive", scalar(r.Exclusive.String()))
	}
	if r.Type == "slot" || r.Label != "" {
		kv = append(kv, "label", quoted(r.Label))
	}
	if r.ID != "" {
		kv = append(kv, "id", quoted(r.ID))
	}
	if len(r.With) > 0 {
		kv = append(kv, "with", resourcesNode(r.With))
	}
	return mapping(kv...)
}

func countNode(c Count) *yaml.Node {
	if c.Min == c.Max && c.Operator == '+' && c.Operand == 1 {
		return scalar(strconv.FormatUint(uint64(c.Min), 10))
	}
	return mapping(
		"min", scalar(strconv.FormatUint(uint64(c.Min), 10)),
		"max", scalar(strconv.FormatUint(uint64(c.Max), 10)),
		"operator", quoted(string(rune(c.Operator))),
		"operand", scalar(strconv.FormatInt(c.Operand, 10)),
	)
}

func attributesNode(js *Jobspec) *yaml.Node {
	var sys []any
	if js.Duration != 0 {
		sys = append(sys, "duration", scalar(strconv.FormatFloat(js.Duration, 'g', -1, 64)))
	}
	if js.Queue != "" {
		sys = append(sys, "queue", quoted(js.Queue))
	}
	if js.Constraint != nil {
		sys = append(sys, "constraints", constraintNode(js.Constraint))
	}
	if len(sys) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	return mapping("system", mapping(sys...))
}

func constraintNode(c *Constraint) *yaml.Node {
	if c.Op == OpAll {
		return &yaml.Node{Kind: yaml.MappingNode}
	}
	l := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	switch c.Op {
	case OpAnd, OpOr, OpNot:
		l.Style = 0
		for _, a := range c.Args {
			l.Content = append(l.Content, constraintNode(a))
		}
	default:
		for _, v := range c.Values {
			l.Content = append(l.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: yaml.DoubleQuotedStyle})
		}
	}
	return mapping(c.Op, l)
}

func tasksNode(ts []Task) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for _, t := range ts {
		cmd := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range t.Command {
			cmd.Content = append(cmd.Content, quoted(a))
		}
		kv := []any{"command", cmd, "slot", quoted(t.Slot)}
		count := mapping("per_slot", scalar("1")) // Parse needs a count
		for k, v := range t.Count {
			if len(t.Count) == 1 {
				count = mapping(k, scalar(v))
			}
		}
		kv = append(kv, "count", count)
		if t.Distribution != "" {
			kv = append(kv, "distribution", quoted(t.Distribution))
		}
		n.Content = append(n.Content, mapping(kv...))
	}
	return n
}
