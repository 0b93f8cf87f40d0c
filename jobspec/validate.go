package jobspec

import (
	"math"
	"strings"

	"github.com/gofluxion/gofluxion/internal/hostlist"
	"github.com/gofluxion/gofluxion/internal/idset"
)

// Bounds that Validate enforces on jobspecs built in Go. Parse never
// produces a jobspec beyond them: its own limits on YAML nesting and size
// are tighter.
const (
	// MaxDepth is the deepest resource (or constraint) tree accepted, in
	// levels: the top-level resources are level 1.
	MaxDepth = 5000
	// MaxNodes is the most resource entries a tree may expand to, counting
	// a *Resource reached through several With lists once per place.
	MaxNodes = 1 << 20
)

// Validate checks a jobspec built in Go (or modified after Parse) against
// the rules Parse applies to a document, so that matching it cannot fail
// in surprising ways. It reports the first problem as an *Error whose
// Path names the offending entry (for example "resources[0].with[1]"):
//
//   - a nil Jobspec, a nil *Resource in Resources or With;
//   - a resource whose Type is empty;
//   - a Count that Parse would reject: Min 0, Max below Min, an operator
//     other than '+', '*', '^' or an operand it does not allow;
//   - a resource that contains itself (directly or through its With
//     lists), a tree deeper than MaxDepth or larger than MaxNodes;
//   - a Constraint with an unknown Op, a nil operand, invalid hostlist or
//     idset strings, or a cycle.
//
// Parse accepts two of these, as Fluxion does: an empty type (without
// Options.KnownType) and the scalar "count: 0", which Fluxion never
// satisfies. Two things are left to the matcher, which rejects them as
// Fluxion does:
// an empty Resources list and a bad Duration (negative, NaN or infinite).
// Types unknown to a particular graph are the matcher's concern too.
//
// The root package's Matcher calls Validate on every jobspec it is given.
// reapi/fluxcli, which answers as Fluxion does, relies on Parse and on the
// matcher's own bounds instead.
func Validate(js *Jobspec) error {
	if js == nil {
		return &Error{Msg: "jobspec is nil"}
	}
	v := validator{onPath: map[*Resource]bool{}}
	for i, r := range js.Resources {
		if err := v.resource(r, "resources"+segIndex(i), 1); err != nil {
			return err
		}
	}
	if js.Constraint != nil {
		if err := v.constraint(js.Constraint, "attributes.system.constraints", 1, map[*Constraint]bool{}); err != nil {
			return err
		}
	}
	return nil
}

type validator struct {
	onPath map[*Resource]bool
	nodes  int
}

func invalid(path, format string, args ...any) *Error {
	e := errorf(format, args...)
	e.Path = path
	return e
}

func (v *validator) resource(r *Resource, path string, depth int) *Error {
	switch {
	case r == nil:
		return invalid(path, "resource is nil")
	case depth > MaxDepth:
		return invalid(path, "jobspec is nested too deeply (more than %d levels)", MaxDepth)
	case v.onPath[r]:
		return invalid(path, "resource contains itself")
	}
	if v.nodes++; v.nodes > MaxNodes {
		return invalid(path, "jobspec is too large (more than %d resources)", MaxNodes)
	}
	if strings.TrimSpace(r.Type) == "" {
		return invalid(path+".type", `Value of "type" must not be empty`)
	}
	if err := checkCount(r.Count, path+".count"); err != nil {
		return err
	}
	v.onPath[r] = true
	for i, w := range r.With {
		if err := v.resource(w, path+".with"+segIndex(i), depth+1); err != nil {
			return err
		}
	}
	delete(v.onPath, r)
	return nil
}

// checkCount applies Parse's count rules (jobspec.md §2.1) with its
// messages.
func checkCount(c Count, path string) *Error {
	switch {
	case c.Min < 1:
		return invalid(path+".min", `"min" must be greater than zero`)
	case c.Max < c.Min:
		return invalid(path+".max", `"max" must be greater than or equal to "min"`)
	case c.Operand > math.MaxInt32 || c.Operand < math.MinInt32:
		return invalid(path+".operand", `"operand" must be a 32-bit integer`)
	}
	switch c.Operator {
	case '+':
		if c.Operand < 1 {
			return invalid(path+".operand", `"operand" must be greater than zero for addition '+'`)
		}
	case '*':
		if c.Operand < 2 {
			return invalid(path+".operand", `"operand" must be greater than one for multiplication '*'`)
		}
	case '^':
		if c.Operand < 2 {
			return invalid(path+".operand", `"operand" must be greater than one for exponentiation '^'`)
		}
		if c.Min < 2 {
			return invalid(path+".min", `"min" must be greater than one for exponentiation '^'`)
		}
	default:
		return invalid(path+".operator", "Invalid count operator")
	}
	return nil
}

func (v *validator) constraint(c *Constraint, path string, depth int, onPath map[*Constraint]bool) *Error {
	switch {
	case c == nil:
		return invalid(path, "constraint is nil")
	case depth > MaxDepth:
		return invalid(path, "constraint is nested too deeply (more than %d levels)", MaxDepth)
	case onPath[c]:
		return invalid(path, "constraint contains itself")
	}
	if v.nodes++; v.nodes > MaxNodes {
		return invalid(path, "constraint is too large (more than %d operations)", MaxNodes)
	}
	switch c.Op {
	case OpAll:
	case OpProperties:
		for i, p := range c.Values {
			if name := strings.TrimPrefix(p, "^"); name == "" || strings.ContainsAny(name, invalidPropChars) {
				return invalid(path+"."+c.Op+segIndex(i), "%s is invalid", name)
			}
		}
	case OpHostlist:
		for i, s := range c.Values {
			if err := (&hostlist.Set{}).Append(s); err != nil {
				return invalid(path+"."+c.Op+segIndex(i), "Invalid hostlist `%s'", s)
			}
		}
	case OpRanks:
		for i, s := range c.Values {
			if _, err := idset.Parse(s); err != nil {
				return invalid(path+"."+c.Op+segIndex(i), "Invalid idset `%s'", s)
			}
		}
	case OpAnd, OpOr, OpNot:
		onPath[c] = true
		for i, a := range c.Args {
			if err := v.constraint(a, path+"."+c.Op+segIndex(i), depth+1, onPath); err != nil {
				return err
			}
		}
		delete(onPath, c)
	default:
		return invalid(path, "unknown constraint operator: %s", c.Op)
	}
	return nil
}
