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

// Error is a jobspec parse error.
//
// Msg, Line and Column make up the message Fluxion prints (see Error):
// validation errors carry the spec's message in Msg and no Line/Column;
// YAML syntax errors and failed scalar conversions carry a 1-based Line and
// Column and print with yaml-cpp's prefix.
//
// Path and At locate the offending YAML node for every error, validation
// errors included, without changing that message; Detail prints them.
// They are empty for the size limits ("jobspec is nested too deeply",
// "jobspec is too large"), which concern the whole document.
type Error struct {
	Line, Column int // yaml-cpp's position; 0 when none
	Msg          string
	// Path is the offending node's place in the jobspec tree: mapping keys
	// joined by dots and sequence indexes in brackets, for example
	// "resources[0].with[1].count.min" or "attributes.system.duration".
	// Keys that are not plain words are quoted (`attributes["a b"]`).
	// ParseConstraint's paths start at the constraint object
	// ("and[1].ranks[0]"). Path is "" for the top level itself and when no
	// node is known.
	Path string
	// At is the offending node's position in the input (for an alias, that
	// of the anchored node, where its anchor is). Its Column is 0 for YAML
	// syntax errors, whose column is not known, and At is zero when no node
	// is known.
	At Position
}

// Position is a 1-based line and column in a jobspec's text; the zero
// Position means unknown.
type Position struct {
	Line, Column int
}

// String returns "line L, column C" ("line L" when the column is unknown,
// "" for the zero Position).
func (p Position) String() string {
	switch {
	case p.Line <= 0:
		return ""
	case p.Column <= 0:
		return fmt.Sprintf("line %d", p.Line)
	}
	return fmt.Sprintf("line %d, column %d", p.Line, p.Column)
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

// Detail returns Msg prefixed with the error's location, for people rather
// than for compatibility with Fluxion's output:
//
//	line 7, column 9 (resources[0].with[1].count.min): "min" must be greater than zero
//
// Parts that are unknown are left out; with no location at all it is just
// Msg.
func (e *Error) Detail() string {
	loc := e.At.String()
	switch {
	case loc != "" && e.Path != "":
		loc += " (" + e.Path + ")"
	case loc == "":
		loc = e.Path
	}
	if loc == "" {
		return e.Msg
	}
	return loc + ": " + e.Msg
}

func errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// errAt is errorf for an error about node n.
func errAt(n *yaml.Node, format string, args ...any) *Error {
	e := errorf(format, args...)
	e.At = posOf(n)
	return e
}

// posOf is the position of n, or the zero Position.
func posOf(n *yaml.Node) Position {
	if n == nil || n.Line <= 0 {
		return Position{}
	}
	return Position{Line: n.Line, Column: max(n.Column, 1)}
}

// Limits protecting against hostile input (aliases can make a small
// document denote a cyclic or exponentially large tree).
const (
	maxDepth  = 10000
	maxVisits = 1 << 20
)

type parser struct {
	opt    Options
	visits int
	// segs collects the path of the failing node as its error propagates
	// up, innermost segment first (see in and located).
	segs []string
	// limited is set when a size limit is hit: that error has no location.
	limited bool
}

// enter accounts for visiting a node at the given depth.
func (p *parser) enter(depth int) *Error {
	if depth > maxDepth {
		p.limited = true
		return errorf("jobspec is nested too deeply")
	}
	return p.charge(1)
}

// charge accounts for n units of work. Work is bounded in terms of the
// input size, whatever aliases make a node appear in several places.
func (p *parser) charge(n int) *Error {
	p.visits -= n
	if p.visits < 0 {
		p.limited = true
		return errorf("jobspec is too large")
	}
	return nil
}

// in records, for an error propagating up, that it happened under the path
// segment seg: a mapping key or a sequence index ("[3]"). It returns err.
// Nothing is built on success, and only one slice append per level on
// failure, so deep documents cost O(depth).
func (p *parser) in(err *Error, seg string) *Error {
	if err != nil && !p.limited {
		p.segs = append(p.segs, seg)
	}
	return err
}

// segKey returns k as a path segment: as is when it is a plain word, else
// quoted in brackets.
func segKey(k string) string {
	if k == "" {
		return strconv.Quote(k)
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "[" + strconv.Quote(k) + "]"
		}
	}
	return k
}

func segIndex(i int) string { return "[" + strconv.Itoa(i) + "]" }

// located sets err's Path from the segments collected by in.
func (p *parser) located(err *Error) *Error {
	if p.limited {
		err.Path, err.At = "", Position{}
		return err
	}
	var b strings.Builder
	for i := len(p.segs) - 1; i >= 0; i-- {
		s := p.segs[i]
		if b.Len() > 0 && s[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	err.Path = b.String()
	return err
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
		return nil, p.located(err)
	}
	return js, nil
}

// parseYAML returns the (alias-resolved) root node of the first document,
// or nil for an empty document.
func parseYAML(data []byte) (top *yaml.Node, err *Error) {
	var doc yaml.Node
	defer func() {
		if r := recover(); r != nil { // never let a YAML library panic escape
			top, err = nil, &Error{Line: 1, Column: 1, Msg: fmt.Sprint(r)} // no real position
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
	return &Error{Line: line, Column: 1, Msg: msg, At: Position{Line: line}}
}

func (p *parser) jobspec(top *yaml.Node) (*Jobspec, *Error) {
	if !isMap(top) {
		return nil, errAt(top, "Top level of jobspec is not a mapping")
	}
	version := lookup(top, "version")
	if version == nil {
		return nil, errAt(top, `Missing key "version" in top level mapping`)
	}
	resources := lookup(top, "resources")
	if resources == nil {
		return nil, errAt(top, `Missing key "resource" in top level mapping`)
	}
	tasks := lookup(top, "tasks")
	if tasks == nil {
		return nil, errAt(top, `Missing key "tasks" in top level mapping`)
	}
	attrs := lookup(top, "attributes")
	if attrs == nil {
		return nil, errAt(top, `Missing key "attributes" in top level mapping`)
	}
	if size(top) > 4 {
		// Point at the first entry beyond the four: an unknown or repeated
		// key.
		seen := map[string]bool{}
		for i := 0; i+1 < len(top.Content); i += 2 {
			k, ok := keyString(top.Content[i])
			switch {
			case !ok:
				return nil, errAt(top.Content[i], "Top mapping in jobspec must have exactly four entries")
			case seen[k] || (k != "version" && k != "resources" && k != "tasks" && k != "attributes"):
				return nil, p.in(errAt(top.Content[i], "Top mapping in jobspec must have exactly four entries"), segKey(k))
			}
			seen[k] = true
		}
		return nil, errAt(top, "Top mapping in jobspec must have exactly four entries") // not reached
	}
	if !isScalar(version) {
		return nil, p.in(errAt(version, `"version" must be an unsigned integer`), "version")
	}
	v, err := asUint32(version)
	if err != nil {
		return nil, p.in(err, "version")
	}
	if v < 1 || v > 9999 {
		return nil, p.in(errAt(version, `Only jobspec "version" 1-9999 is supported`), "version")
	}
	js := &Jobspec{Version: v}
	if !isNull(attrs) {
		if err := p.attributes(attrs, js); err != nil {
			return nil, p.in(err, "attributes")
		}
	}
	if js.Resources, err = p.resources(resources, 0); err != nil {
		return nil, p.in(err, "resources")
	}
	if js.Tasks, err = p.tasks(tasks); err != nil {
		return nil, p.in(err, "tasks")
	}
	return js, nil
}

// resources parses "resources" or a "with" list.
func (p *parser) resources(n *yaml.Node, depth int) ([]*Resource, *Error) {
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	if !isSeq(n) {
		return nil, errAt(n, `"resources" is not a sequence`)
	}
	out := make([]*Resource, 0, len(n.Content))
	for i, c := range n.Content {
		r, err := p.resource(resolve(c), depth+1)
		if err != nil {
			return nil, p.in(err, segIndex(i))
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
		return nil, errAt(n, "resource is not a mapping")
	}
	r := &Resource{}
	t := lookup(n, "type")
	if t == nil {
		return nil, errAt(n, `Key "type" missing from resource`)
	}
	if !isScalar(t) {
		return nil, p.in(errAt(t, `Value of "type" must be a scalar`), "type")
	}
	r.Type = t.Value
	if p.opt.KnownType != nil && !p.opt.KnownType(r.Type) {
		return nil, p.in(errAt(t, `Value of "type" must be a resource type known to fluxion`), "type")
	}
	c := lookup(n, "count")
	if c == nil {
		return nil, errAt(n, `Key "count" missing from resource`)
	}
	if err := p.charge(len(n.Content) + len(c.Content)); err != nil {
		return nil, err
	}
	var err *Error
	if r.Count, err = p.parseCount(c); err != nil {
		return nil, p.in(err, "count")
	}
	if u := lookup(n, "unit"); u != nil {
		if !isScalar(u) {
			return nil, p.in(errAt(u, `Value of "unit" must be a scalar`), "unit")
		}
		r.Unit = u.Value
	}
	if x := lookup(n, "exclusive"); x != nil {
		if !isScalar(x) {
			return nil, p.in(errAt(x, `Value of "exclusive" must be a scalar`), "exclusive")
		}
		switch x.Value {
		case "true":
			r.Exclusive = ExclusiveTrue
		case "false":
			r.Exclusive = ExclusiveFalse
		default:
			return nil, p.in(errAt(x, `Value of "exclusive" must be either "true" or "false"`), "exclusive")
		}
	}
	if w := lookup(n, "with"); w != nil {
		if r.With, err = p.resources(w, depth+1); err != nil {
			return nil, p.in(err, "with")
		}
	}
	l := lookup(n, "label")
	if l != nil {
		if !isScalar(l) {
			return nil, p.in(errAt(l, `Value of "label" must be a scalar`), "label")
		}
		r.Label = l.Value
	}
	if r.Type == "slot" && l == nil {
		return nil, errAt(n, "All slots must be labeled")
	}
	if id := lookup(n, "id"); id != nil {
		if !isScalar(id) {
			return nil, p.in(errAt(id, `Value of "id" must be a scalar`), "id")
		}
		r.ID = id.Value
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, ok := keyString(n.Content[i]); !ok || !resourceKeys[k] {
			err := errAt(n.Content[i], "Unrecognized key in resource mapping")
			if ok {
				p.in(err, segKey(k))
			}
			return nil, err
		}
	}
	if s := size(n); s < 2 || s > 10 {
		return nil, errAt(n, "impossible number of entries in resource mapping")
	}
	return r, nil
}

// parseCount parses the value of "count" (jobspec.md §2.1). Structural
// checks come first, then the conversions of min, max, operator and
// operand (in that order), then the value checks.
func (p *parser) parseCount(c *yaml.Node) (Count, *Error) {
	if isScalar(c) {
		v, err := asUint32(c)
		if err != nil {
			return Count{}, err
		}
		return Fixed(v), nil
	}
	if !isMap(c) {
		return Count{}, errAt(c, "count is not a mapping")
	}
	minN := lookup(c, "min")
	if minN == nil {
		return Count{}, errAt(c, `Key "min" missing from count`)
	}
	if !isScalar(minN) {
		return Count{}, p.in(errAt(minN, `Value of "min" must be a scalar`), "min")
	}
	maxN, opN, operandN := lookup(c, "max"), lookup(c, "operator"), lookup(c, "operand")
	full := maxN != nil || opN != nil || operandN != nil
	if full {
		if maxN == nil || opN == nil || operandN == nil {
			return Count{}, errAt(c, `All or none of "max", "operator", and "operand" must be specified`)
		}
		if !isScalar(maxN) {
			return Count{}, p.in(errAt(maxN, `Value of "max" must be a scalar`), "max")
		}
		if !isScalar(opN) {
			return Count{}, p.in(errAt(opN, `Value of "operator" must be a scalar`), "operator")
		}
		if !isScalar(operandN) {
			return Count{}, p.in(errAt(operandN, `Value of "operand" must be a scalar`), "operand")
		}
	}
	cnt := Count{Max: Unbounded, Operator: '+', Operand: 1}
	var err *Error
	if cnt.Min, err = asUint32(minN); err != nil {
		return Count{}, p.in(err, "min")
	}
	if full {
		if cnt.Max, err = asUint32(maxN); err != nil {
			return Count{}, p.in(err, "max")
		}
		if cnt.Operator, err = asChar(opN); err != nil {
			return Count{}, p.in(err, "operator")
		}
		operand, err := asInt32(operandN)
		if err != nil {
			return Count{}, p.in(err, "operand")
		}
		cnt.Operand = int64(operand)
	}
	if cnt.Min < 1 {
		return Count{}, p.in(errAt(minN, `"min" must be greater than zero`), "min")
	}
	if cnt.Max < cnt.Min {
		return Count{}, p.in(errAt(maxN, `"max" must be greater than or equal to "min"`), "max")
	}
	switch cnt.Operator {
	case '+':
		if cnt.Operand < 1 {
			return Count{}, p.in(errAt(operandN, `"operand" must be greater than zero for addition '+'`), "operand")
		}
	case '*':
		if cnt.Operand < 2 {
			return Count{}, p.in(errAt(operandN, `"operand" must be greater than one for multiplication '*'`), "operand")
		}
	case '^':
		if cnt.Operand < 2 {
			return Count{}, p.in(errAt(operandN, `"operand" must be greater than one for exponentiation '^'`), "operand")
		}
		if cnt.Min < 2 {
			return Count{}, p.in(errAt(minN, `"min" must be greater than one for exponentiation '^'`), "min")
		}
	default:
		return Count{}, p.in(errAt(opN, "Invalid count operator"), "operator")
	}
	return cnt, nil
}

func (p *parser) tasks(n *yaml.Node) ([]Task, *Error) {
	if !isSeq(n) {
		return nil, errAt(n, `"tasks" is not a sequence`)
	}
	out := make([]Task, 0, len(n.Content))
	for i, c := range n.Content {
		t, err := p.task(resolve(c))
		if err != nil {
			return nil, p.in(err, segIndex(i))
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
		return t, errAt(n, "task is not a mapping")
	}
	cmd := lookup(n, "command")
	if cmd == nil {
		return t, errAt(n, `Key "command" missing from task`)
	}
	if !isSeq(cmd) {
		return t, p.in(errAt(cmd, `"command" value must be a sequence`), "command")
	}
	t.Command = make([]string, 0, len(cmd.Content))
	for i, a := range cmd.Content {
		if err := p.enter(2); err != nil {
			return t, err
		}
		s, err := asString(resolve(a))
		if err != nil {
			return t, p.in(p.in(err, segIndex(i)), "command")
		}
		t.Command = append(t.Command, s)
	}
	slot := lookup(n, "slot")
	if slot == nil {
		return t, errAt(n, `Key "slot" missing from task`)
	}
	if !isScalar(slot) {
		return t, p.in(errAt(slot, `Value of task "slot" must be a YAML scalar`), "slot")
	}
	t.Slot = slot.Value
	if c := lookup(n, "count"); c != nil {
		if !isMap(c) {
			return t, p.in(errAt(c, `"count" in task is not a mapping`), "count")
		}
		if size(c) != 1 {
			return t, p.in(errAt(c, `"count" in task must have exactly one entry`), "count")
		}
		k, err := asString(resolve(c.Content[0]))
		if err != nil {
			return t, p.in(err, "count")
		}
		v, err := asString(resolve(c.Content[1]))
		if err != nil {
			return t, p.in(p.in(err, segKey(k)), "count")
		}
		t.Count = map[string]string{k: v}
	}
	if d := lookup(n, "distribution"); d != nil {
		s, err := asString(d)
		if err != nil {
			return t, p.in(err, "distribution")
		}
		t.Distribution = s
	}
	if a := lookup(n, "attributes"); a != nil && !isMap(a) {
		return t, p.in(errAt(a, `"attributes" in task is not a mapping`), "attributes")
	}
	if s := size(n); s < 3 || s > 5 {
		return t, errAt(n, "impossible number of entries in task mapping")
	}
	return t, nil
}

func (p *parser) attributes(n *yaml.Node, js *Jobspec) *Error {
	if !isMap(n) {
		return errAt(n, `"attributes" is not a map`)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, ok := keyString(n.Content[i]); !ok || (k != "user" && k != "system") {
			err := errAt(n.Content[i], `Unknown key in "attributes"`)
			if ok {
				p.in(err, segKey(k))
			}
			return err
		}
	}
	sys := lookup(n, "system")
	if !isMap(sys) {
		return nil
	}
	if d := lookup(sys, "duration"); d != nil {
		v, err := asFloat(d)
		if err != nil {
			return p.in(p.in(err, "duration"), "system")
		}
		js.Duration = v
	}
	if q := lookup(sys, "queue"); q != nil {
		s, err := asString(q)
		if err != nil {
			return p.in(p.in(err, "queue"), "system")
		}
		js.Queue = s
	}
	if c := lookup(sys, "constraints"); c != nil {
		con, err := p.constraint(c, 0)
		if err != nil {
			return p.in(p.in(err, "constraints"), "system")
		}
		js.Constraint = con
	}
	return nil
}
