package jobspec

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Exclusive is the three-state "exclusive" flag of a resource.
type Exclusive int8

const (
	// ExclusiveUnspecified: no "exclusive" key (distinct from false).
	ExclusiveUnspecified Exclusive = iota
	// ExclusiveTrue: "exclusive: true".
	ExclusiveTrue
	// ExclusiveFalse: "exclusive: false".
	ExclusiveFalse
)

func (e Exclusive) String() string {
	switch e {
	case ExclusiveTrue:
		return "true"
	case ExclusiveFalse:
		return "false"
	}
	return "unspecified"
}

// Resource is one resource request of the jobspec tree.
type Resource struct {
	Type      string
	Count     Count
	Unit      string // unused by matching
	Exclusive Exclusive
	Label     string // required for slots
	ID        string // unused by matching
	With      []*Resource
}

// Task is one entry of "tasks" (ignored by the matcher).
type Task struct {
	Command []string
	Slot    string
	// Count is the task count mapping ({"per_slot": "1"} or {"total":
	// "4"}): exactly one entry, values kept as text (nil when absent).
	Count        map[string]string
	Distribution string
}

// Jobspec is a parsed canonical jobspec V1.
type Jobspec struct {
	Version   uint32
	Resources []*Resource
	Tasks     []Task
	// Duration is attributes.system.duration in seconds (0 when absent:
	// "whole graph"). It may be negative, NaN or infinite: the matcher
	// rejects those at match time (jobspec.md §4.1).
	Duration float64
	Queue    string
	// Constraint is attributes.system.constraints, nil when absent.
	Constraint *Constraint
}

// Options tune Parse.
type Options struct {
	// KnownType, when non-nil, is called with every resource type string
	// (slots included); returning false rejects the jobspec with
	// `Value of "type" must be a resource type known to fluxion`.
	KnownType func(string) bool
}

// Error is a jobspec parse error. Validation errors carry the spec's
// message in Msg and no position; YAML syntax errors and failed scalar
// conversions carry a 1-based Line and Column and print with yaml-cpp's
// prefix.
type Error struct {
	Line, Column int // 0 when none
	Msg          string
}

// Error returns the message exactly as Fluxion prints it:
// "yaml-cpp: error at line L, column C: MSG" when the error has a position,
// MSG otherwise.
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("yaml-cpp: error at line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return e.Msg
}

func errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Limits protecting against hostile input (aliases can make a small
// document denote a cyclic or exponentially large tree).
const (
	maxDepth  = 10000
	maxVisits = 1 << 20
)

type parser struct {
	opt    Options
	visits int
}

// enter accounts for visiting a node at the given depth.
func (p *parser) enter(depth int) *Error {
	if depth > maxDepth {
		return errorf("jobspec is nested too deeply")
	}
	return p.charge(1)
}

// charge accounts for n units of work. Work is bounded in terms of the
// input size, whatever aliases make a node appear in several places.
func (p *parser) charge(n int) *Error {
	p.visits -= n
	if p.visits < 0 {
		return errorf("jobspec is too large")
	}
	return nil
}

// Parse parses and validates a canonical jobspec V1 given as YAML or JSON,
// applying every rule of jobspec.md §1–§5 in the specified order. Only the
// first YAML document of the input is read. The returned error is always
// an *Error.
func Parse(data []byte, opt Options) (*Jobspec, error) {
	top, yerr := parseYAML(data)
	if yerr != nil {
		return nil, yerr
	}
	p := &parser{opt: opt, visits: maxVisits + len(data)}
	js, err := p.jobspec(top)
	if err != nil {
		return nil, err
	}
	return js, nil
}

// parseYAML returns the (alias-resolved) root node of the first document,
// or nil for an empty document.
func parseYAML(data []byte) (top *yaml.Node, err *Error) {
	var doc yaml.Node
	defer func() {
		if r := recover(); r != nil { // never let a YAML library panic escape
			top, err = nil, &Error{Line: 1, Column: 1, Msg: fmt.Sprint(r)}
		}
	}()
	if e := yaml.Unmarshal(data, &doc); e != nil {
		return nil, syntaxError(e)
	}
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil, nil
		}
		return resolve(doc.Content[0]), nil
	}
	if doc.Kind == 0 {
		return nil, nil
	}
	return resolve(&doc), nil
}

var lineRE = regexp.MustCompile(`^line ([0-9]+): (.*)$`)

// syntaxError converts a yaml.v3 error ("yaml: line 3: did not find ...")
// into the yaml-cpp style. yaml.v3 reports no column: column 1 is used; an
// error without line number (yaml.v3 omits line 1) is put at line 1.
func syntaxError(e error) *Error {
	msg := strings.TrimPrefix(e.Error(), "yaml: ")
	line := 1
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			line = n
		}
		msg = m[2]
	}
	return &Error{Line: line, Column: 1, Msg: msg}
}

func (p *parser) jobspec(top *yaml.Node) (*Jobspec, *Error) {
	if !isMap(top) {
		return nil, errorf("Top level of jobspec is not a mapping")
	}
	version := lookup(top, "version")
	if version == nil {
		return nil, errorf(`Missing key "version" in top level mapping`)
	}
	resources := lookup(top, "resources")
	if resources == nil {
		return nil, errorf(`Missing key "resource" in top level mapping`)
	}
	tasks := lookup(top, "tasks")
	if tasks == nil {
		return nil, errorf(`Missing key "tasks" in top level mapping`)
	}
	attrs := lookup(top, "attributes")
	if attrs == nil {
		return nil, errorf(`Missing key "attributes" in top level mapping`)
	}
	if size(top) > 4 {
		return nil, errorf("Top mapping in jobspec must have exactly four entries")
	}
	if !isScalar(version) {
		return nil, errorf(`"version" must be an unsigned integer`)
	}
	v, err := asUint32(version)
	if err != nil {
		return nil, err
	}
	if v < 1 || v > 9999 {
		return nil, errorf(`Only jobspec "version" 1-9999 is supported`)
	}
	js := &Jobspec{Version: v}
	if !isNull(attrs) {
		if err := p.attributes(attrs, js); err != nil {
			return nil, err
		}
	}
	if js.Resources, err = p.resources(resources, 0); err != nil {
		return nil, err
	}
	if js.Tasks, err = p.tasks(tasks); err != nil {
		return nil, err
	}
	return js, nil
}

// resources parses "resources" or a "with" list.
func (p *parser) resources(n *yaml.Node, depth int) ([]*Resource, *Error) {
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	if !isSeq(n) {
		return nil, errorf(`"resources" is not a sequence`)
	}
	out := make([]*Resource, 0, len(n.Content))
	for _, c := range n.Content {
		r, err := p.resource(resolve(c), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

var resourceKeys = map[string]bool{
	"type": true, "count": true, "unit": true, "exclusive": true,
	"with": true, "label": true, "id": true,
}

func (p *parser) resource(n *yaml.Node, depth int) (*Resource, *Error) {
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	if !isMap(n) {
		return nil, errorf("resource is not a mapping")
	}
	r := &Resource{}
	t := lookup(n, "type")
	if t == nil {
		return nil, errorf(`Key "type" missing from resource`)
	}
	if !isScalar(t) {
		return nil, errorf(`Value of "type" must be a scalar`)
	}
	r.Type = t.Value
	if p.opt.KnownType != nil && !p.opt.KnownType(r.Type) {
		return nil, errorf(`Value of "type" must be a resource type known to fluxion`)
	}
	c := lookup(n, "count")
	if c == nil {
		return nil, errorf(`Key "count" missing from resource`)
	}
	if err := p.charge(len(n.Content) + len(c.Content)); err != nil {
		return nil, err
	}
	var err *Error
	if r.Count, err = parseCount(c); err != nil {
		return nil, err
	}
	if u := lookup(n, "unit"); u != nil {
		if !isScalar(u) {
			return nil, errorf(`Value of "unit" must be a scalar`)
		}
		r.Unit = u.Value
	}
	if x := lookup(n, "exclusive"); x != nil {
		if !isScalar(x) {
			return nil, errorf(`Value of "exclusive" must be a scalar`)
		}
		switch x.Value {
		case "true":
			r.Exclusive = ExclusiveTrue
		case "false":
			r.Exclusive = ExclusiveFalse
		default:
			return nil, errorf(`Value of "exclusive" must be either "true" or "false"`)
		}
	}
	if w := lookup(n, "with"); w != nil {
		if r.With, err = p.resources(w, depth+1); err != nil {
			return nil, err
		}
	}
	l := lookup(n, "label")
	if l != nil {
		if !isScalar(l) {
			return nil, errorf(`Value of "label" must be a scalar`)
		}
		r.Label = l.Value
	}
	if r.Type == "slot" && l == nil {
		return nil, errorf("All slots must be labeled")
	}
	if id := lookup(n, "id"); id != nil {
		if !isScalar(id) {
			return nil, errorf(`Value of "id" must be a scalar`)
		}
		r.ID = id.Value
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, ok := keyString(n.Content[i]); !ok || !resourceKeys[k] {
			return nil, errorf("Unrecognized key in resource mapping")
		}
	}
	if s := size(n); s < 2 || s > 10 {
		return nil, errorf("impossible number of entries in resource mapping")
	}
	return r, nil
}

// parseCount parses the value of "count" (jobspec.md §2.1). Structural
// checks come first, then the conversions of min, max, operator and
// operand (in that order), then the value checks.
func parseCount(c *yaml.Node) (Count, *Error) {
	if isScalar(c) {
		v, err := asUint32(c)
		if err != nil {
			return Count{}, err
		}
		return Fixed(v), nil
	}
	if !isMap(c) {
		return Count{}, errorf("count is not a mapping")
	}
	minN := lookup(c, "min")
	if minN == nil {
		return Count{}, errorf(`Key "min" missing from count`)
	}
	if !isScalar(minN) {
		return Count{}, errorf(`Value of "min" must be a scalar`)
	}
	maxN, opN, operandN := lookup(c, "max"), lookup(c, "operator"), lookup(c, "operand")
	full := maxN != nil || opN != nil || operandN != nil
	if full {
		if maxN == nil || opN == nil || operandN == nil {
			return Count{}, errorf(`All or none of "max", "operator", and "operand" must be specified`)
		}
		if !isScalar(maxN) {
			return Count{}, errorf(`Value of "max" must be a scalar`)
		}
		if !isScalar(opN) {
			return Count{}, errorf(`Value of "operator" must be a scalar`)
		}
		if !isScalar(operandN) {
			return Count{}, errorf(`Value of "operand" must be a scalar`)
		}
	}
	cnt := Count{Max: Unbounded, Operator: '+', Operand: 1}
	var err *Error
	if cnt.Min, err = asUint32(minN); err != nil {
		return Count{}, err
	}
	if full {
		if cnt.Max, err = asUint32(maxN); err != nil {
			return Count{}, err
		}
		if cnt.Operator, err = asChar(opN); err != nil {
			return Count{}, err
		}
		operand, err := asInt32(operandN)
		if err != nil {
			return Count{}, err
		}
		cnt.Operand = int64(operand)
	}
	if cnt.Min < 1 {
		return Count{}, errorf(`"min" must be greater than zero`)
	}
	if cnt.Max < cnt.Min {
		return Count{}, errorf(`"max" must be greater than or equal to "min"`)
	}
	switch cnt.Operator {
	case '+':
		if cnt.Operand < 1 {
			return Count{}, errorf(`"operand" must be greater than zero for addition '+'`)
		}
	case '*':
		if cnt.Operand < 2 {
			return Count{}, errorf(`"operand" must be greater than one for multiplication '*'`)
		}
	case '^':
		if cnt.Operand < 2 {
			return Count{}, errorf(`"operand" must be greater than one for exponentiation '^'`)
		}
		if cnt.Min < 2 {
			return Count{}, errorf(`"min" must be greater than one for exponentiation '^'`)
		}
	default:
		return Count{}, errorf("Invalid count operator")
	}
	return cnt, nil
}

func (p *parser) tasks(n *yaml.Node) ([]Task, *Error) {
	if !isSeq(n) {
		return nil, errorf(`"tasks" is not a sequence`)
	}
	out := make([]Task, 0, len(n.Content))
	for _, c := range n.Content {
		t, err := p.task(resolve(c))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (p *parser) task(n *yaml.Node) (Task, *Error) {
	var t Task
	if err := p.enter(1); err != nil {
		return t, err
	}
	if !isMap(n) {
		return t, errorf("task is not a mapping")
	}
	cmd := lookup(n, "command")
	if cmd == nil {
		return t, errorf(`Key "command" missing from task`)
	}
	if !isSeq(cmd) {
		return t, errorf(`"command" value must be a sequence`)
	}
	t.Command = make([]string, 0, len(cmd.Content))
	for _, a := range cmd.Content {
		if err := p.enter(2); err != nil {
			return t, err
		}
		s, err := asString(resolve(a))
		if err != nil {
			return t, err
		}
		t.Command = append(t.Command, s)
	}
	slot := lookup(n, "slot")
	if slot == nil {
		return t, errorf(`Key "slot" missing from task`)
	}
	if !isScalar(slot) {
		return t, errorf(`Value of task "slot" must be a YAML scalar`)
	}
	t.Slot = slot.Value
	if c := lookup(n, "count"); c != nil {
		if !isMap(c) {
			return t, errorf(`"count" in task is not a mapping`)
		}
		if size(c) != 1 {
			return t, errorf(`"count" in task must have exactly one entry`)
		}
		k, err := asString(resolve(c.Content[0]))
		if err != nil {
			return t, err
		}
		v, err := asString(resolve(c.Content[1]))
		if err != nil {
			return t, err
		}
		t.Count = map[string]string{k: v}
	}
	if d := lookup(n, "distribution"); d != nil {
		s, err := asString(d)
		if err != nil {
			return t, err
		}
		t.Distribution = s
	}
	if a := lookup(n, "attributes"); a != nil && !isMap(a) {
		return t, errorf(`"attributes" in task is not a mapping`)
	}
	if s := size(n); s < 3 || s > 5 {
		return t, errorf("impossible number of entries in task mapping")
	}
	return t, nil
}

func (p *parser) attributes(n *yaml.Node, js *Jobspec) *Error {
	if !isMap(n) {
		return errorf(`"attributes" is not a map`)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, ok := keyString(n.Content[i]); !ok || (k != "user" && k != "system") {
			return errorf(`Unknown key in "attributes"`)
		}
	}
	sys := lookup(n, "system")
	if !isMap(sys) {
		return nil
	}
	if d := lookup(sys, "duration"); d != nil {
		v, err := asFloat(d)
		if err != nil {
			return err
		}
		js.Duration = v
	}
	if q := lookup(sys, "queue"); q != nil {
		s, err := asString(q)
		if err != nil {
			return err
		}
		js.Queue = s
	}
	if c := lookup(sys, "constraints"); c != nil {
		con, err := p.constraint(c, 0)
		if err != nil {
			return err
		}
		js.Constraint = con
	}
	return nil
}
