package jobspec

import (
	"strings"

	"github.com/gofluxion/gofluxion/internal/hostlist"
	"github.com/gofluxion/gofluxion/internal/idset"
	"go.yaml.in/yaml/v3"
)

// Constraint operators.
const (
	OpAll        = ""           // empty mapping: matches everything
	OpProperties = "properties" // Values: property names, "^name" negated
	OpHostlist   = "hostlist"   // Values: hostlist strings
	OpRanks      = "ranks"      // Values: idset strings
	OpAnd        = "and"        // Args
	OpOr         = "or"         // Args
	OpNot        = "not"        // Args
)

// Constraint is an RFC 31 constraint tree (jobspec.md §5), as found in
// attributes.system.constraints.
type Constraint struct {
	// Op is one of the Op* constants.
	Op string
	// Values holds the listed strings of a properties, hostlist or ranks
	// operation, as written.
	Values []string
	// Args holds the operands of and, or and not.
	Args []*Constraint

	hosts *hostlist.Set // hostlist: the union of Values
	ranks idset.Set     // ranks: the union of Values
}

const invalidPropChars = "!&'\"^`|()"

// ParseConstraint parses a standalone RFC 31 constraint object given as
// YAML or JSON (e.g. `{"properties": ["foo"]}`), with the rules and
// messages of jobspec.md §5.
func ParseConstraint(data []byte) (*Constraint, error) {
	top, yerr := parseYAML(data)
	if yerr != nil {
		return nil, yerr
	}
	p := &parser{visits: maxVisits + len(data)}
	c, err := p.constraint(top, 0)
	if err != nil {
		return nil, p.located(err)
	}
	return c, nil
}

func (p *parser) constraint(n *yaml.Node, depth int) (*Constraint, *Error) {
	if err := p.enter(depth); err != nil {
		return nil, err
	}
	if !isMap(n) {
		return nil, errAt(n, "constraint is not a mapping")
	}
	switch size(n) {
	case 0:
		return &Constraint{Op: OpAll}, nil
	case 1:
	default:
		return nil, errAt(n, "constraint map may not contain > 1 operation")
	}
	op, err := asString(resolve(n.Content[0]))
	if err != nil {
		return nil, err
	}
	val := resolve(n.Content[1])
	if !isSeq(val) {
		return nil, p.in(errAt(val, "%s operator value must be an array", op), segKey(op))
	}
	c := &Constraint{Op: op}
	switch op {
	case OpProperties:
		for i, e := range val.Content {
			if err := p.enter(depth + 1); err != nil {
				return nil, err
			}
			e = resolve(e)
			if !isQuoted(e) {
				return nil, p.in(p.in(errAt(e, "non-string property specified"), segIndex(i)), op)
			}
			name := strings.TrimPrefix(e.Value, "^")
			if strings.ContainsAny(name, invalidPropChars) {
				return nil, p.in(p.in(errAt(e, "%s is invalid", name), segIndex(i)), op)
			}
			c.Values = append(c.Values, e.Value)
		}
	case OpHostlist:
		c.hosts = &hostlist.Set{}
		for i, e := range val.Content {
			if err := p.enter(depth + 1); err != nil {
				return nil, err
			}
			s, err := asString(resolve(e))
			if err != nil {
				return nil, p.in(p.in(err, segIndex(i)), op)
			}
			if err := c.hosts.Append(s); err != nil {
				return nil, p.in(p.in(errAt(resolve(e), "Invalid hostlist `%s'", s), segIndex(i)), op)
			}
			c.Values = append(c.Values, s)
		}
	case OpRanks:
		for i, e := range val.Content {
			if err := p.enter(depth + 1); err != nil {
				return nil, err
			}
			s, err := asString(resolve(e))
			if err != nil {
				return nil, p.in(p.in(err, segIndex(i)), op)
			}
			ids, perr := idset.Parse(s)
			if perr != nil {
				return nil, p.in(p.in(errAt(resolve(e), "Invalid idset `%s'", s), segIndex(i)), op)
			}
			c.ranks = c.ranks.Union(ids)
			c.Values = append(c.Values, s)
		}
	case OpAnd, OpOr, OpNot:
		c.Args = make([]*Constraint, 0, len(val.Content))
		for i, e := range val.Content {
			sub, err := p.constraint(resolve(e), depth+1)
			if err != nil {
				return nil, p.in(p.in(err, segIndex(i)), op)
			}
			c.Args = append(c.Args, sub)
		}
	default:
		return nil, p.in(errAt(n.Content[0], "unknown constraint operator: %s", op), segKey(op))
	}
	return c, nil
}

// Match reports whether a vertex with the given name, rank (-1: none) and
// properties (hasProp reports whether a property key is set; nil means no
// properties) satisfies the constraint (RFC 31 semantics of jobspec.md
// §5). A nil constraint matches everything. Constraints built by hand
// (rather than parsed) are interpreted from Values on each call; invalid
// hostlist or idset strings then match nothing.
func (c *Constraint) Match(name string, rank int64, hasProp func(key string) bool) bool {
	if c == nil {
		return true
	}
	switch c.Op {
	case OpAll:
		return true
	case OpProperties:
		for _, v := range c.Values {
			neg := strings.HasPrefix(v, "^")
			key := strings.TrimPrefix(v, "^")
			has := hasProp != nil && hasProp(key)
			if has == neg {
				return false
			}
		}
		return true
	case OpHostlist:
		hosts := c.hosts
		if hosts == nil {
			hosts = &hostlist.Set{}
			for _, v := range c.Values {
				_ = hosts.Append(v) // invalid entries add nothing
			}
		}
		return hosts.Contains(name)
	case OpRanks:
		if rank < 0 {
			return false
		}
		ranks := c.ranks
		if ranks.Empty() && len(c.Values) > 0 {
			for _, v := range c.Values {
				ids, _ := idset.Parse(v)
				ranks = ranks.Union(ids)
			}
		}
		return ranks.Contains(rank)
	case OpAnd:
		return c.all(name, rank, hasProp)
	case OpOr:
		for _, a := range c.Args {
			if a.Match(name, rank, hasProp) {
				return true
			}
		}
		return false
	case OpNot:
		return !c.all(name, rank, hasProp)
	}
	return false
}

func (c *Constraint) all(name string, rank int64, hasProp func(string) bool) bool {
	for _, a := range c.Args {
		if !a.Match(name, rank, hasProp) {
			return false
		}
	}
	return true
}
