package policy

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofluxion/gofluxion/graph"
)

// Order is a comparator on candidate scores: Before(a, b) reports whether a
// candidate scoring a is preferred to one scoring b. Greater and Less are the
// two plain orders; the matcher sorts them with specialised code.
type Order interface {
	Before(a, b int64) bool
}

type greater struct{}

func (greater) Before(a, b int64) bool { return a > b }

type less struct{}

func (less) Before(a, b int64) bool { return a < b }

var (
	// Greater prefers higher scores.
	Greater Order = greater{}
	// Less prefers lower scores.
	Less Order = less{}
)

// Ranked is implemented by orders that compare scores through a key:
// Before(a, b) holds iff Rank(a) is lexicographically greater than Rank(b)
// (locality's order compares the runs holding the scores). The matcher
// then computes each candidate's key once instead of at every comparison.
type Ranked interface {
	Order
	Rank(score int64) (hi, lo int64)
}

// FixedGraphOrder is implemented by policies whose GraphOrder ignores the
// scores it is given; the matcher then does not collect them.
type FixedGraphOrder interface {
	FixedGraphOrder()
}

// Policy supplies the scoring callbacks of the depth-first-and-up traversal
// (spec policies.md). A Policy is stateful (it keeps running sums between
// Discover and Finish), so each matcher owns its own instance.
type Policy interface {
	// Name is the name the policy was created from.
	Name() string
	// StopOnFirstMatch selects the dynamic child order with early stop.
	StopOnFirstMatch() bool
	// ExclusiveTypes lists resource types whose vertices are always taken
	// whole (node for the node-exclusive policies).
	ExclusiveTypes() []string
	// Discover is called pre-order on every dominant vertex that passed
	// pruning; an error makes the vertex fail.
	Discover(g *graph.Graph, v graph.VertexID) error
	// Finish is called post-order on every vertex after its children were
	// chosen; met reports whether all its requests were satisfied. It
	// returns the vertex score (> 0) when met.
	Finish(g *graph.Graph, v graph.VertexID, met bool) int64
	// VertexOrder orders candidates chosen below a vertex.
	VertexOrder() Order
	// SlotOrder orders candidates inside a slot.
	SlotOrder() Order
	// GraphOrder orders the candidates of one top-level request at the
	// root, given all their scores.
	GraphOrder(scores []int64) Order
	// FinishGraph resets per-match state after the root was finished.
	FinishGraph()
}

// ErrInvalid is returned (wrapped) for an unknown policy name or a bad
// option string.
var ErrInvalid = errors.New("invalid match policy")

// Names lists the built-in policy names in documentation order.
func Names() []string {
	n := make([]string, 0, len(builtins)+2)
	for _, b := range builtins {
		n = append(n, b.name)
	}
	return append(n, "locality", "variation")
}

var builtins = []struct{ name, spec string }{
	{"first", "policy=high node_centric=true stop_on_1_matches=true"},
	{"firstnodex", "policy=high node_centric=true node_exclusive=true stop_on_1_matches=true"},
	{"high", "policy=high"},
	{"low", "policy=low"},
	{"lonode", "policy=low node_centric=true"},
	{"hinode", "policy=high node_centric=true"},
	{"lonodex", "policy=low node_centric=true node_exclusive=true"},
	{"hinodex", "policy=high node_centric=true node_exclusive=true"},
}

// New creates the policy called name: a built-in name (first, firstnodex,
// high, low, lonode, hinode, lonodex, hinodex, locality, variation) or a
// custom option string such as "policy=high node_centric=true".
func New(name string) (Policy, error) {
	switch name {
	case "locality":
		return newLocality(), nil
	case "variation":
		return newVariation(), nil
	}
	for _, b := range builtins {
		if b.name == name {
			p, err := parseCustom(b.spec)
			if err != nil {
				return nil, err
			}
			p.name = name
			return p, nil
		}
	}
	if !strings.Contains(name, "=") {
		return nil, fmt.Errorf("%w: unknown policy %q (want one of %s, or a custom string such as \"policy=high node_centric=true\")", ErrInvalid, name, strings.Join(Names(), ", "))
	}
	p, err := parseCustom(name)
	if err != nil {
		return nil, err
	}
	p.name = name
	return p, nil
}

// Options of a custom (multilevel id) policy string.
type Options struct {
	High, Low      bool
	NodeCentric    bool
	NodeExclusive  bool
	StopOn1Matches bool
}

// ParseOptions parses a custom policy string (spec policies.md §3). Like
// Fluxion it stops at the first invalid token but keeps what it accepted
// before it; the returned error describes that token. ok reports whether a
// policy can be created (some policy= key was accepted).
func ParseOptions(s string) (o Options, ok bool, err error) {
	seen := map[string]bool{}
	for _, tok := range strings.Split(s, " ") {
		fields := strings.Split(tok, "=")
		key := fields[0]
		if len(fields) < 2 {
			// Fluxion throws an uncaught exception here; we report it.
			return o, o.High || o.Low, fmt.Errorf("%w: policy option %q is not of the form key=value", ErrInvalid, tok)
		}
		val := fields[1]
		switch key {
		case "policy":
			if val != "high" && val != "low" {
				return o, o.High || o.Low, fmt.Errorf("%w: policy key within custom policy accepts only low or high", ErrInvalid)
			}
			k := "policy=" + val
			if !seen[k] {
				seen[k] = true
				if val == "high" {
					o.High = true
				} else {
					o.Low = true
				}
			}
		case "node_centric", "node_exclusive", "stop_on_1_matches":
			if val != "true" && val != "false" {
				return o, o.High || o.Low, fmt.Errorf("%w: Policy option %s requires true or false, got %s", ErrInvalid, key, val)
			}
			if seen[key] {
				if val == "false" {
					// A repeated key whose value is false stops parsing.
					return o, o.High || o.Low, fmt.Errorf("%w: repeated policy option %s", ErrInvalid, key)
				}
				continue
			}
			seen[key] = true
			b := val == "true"
			switch key {
			case "node_centric":
				o.NodeCentric = b
			case "node_exclusive":
				o.NodeExclusive = b
			default:
				o.StopOn1Matches = b
			}
		default:
			return o, o.High || o.Low, fmt.Errorf("%w: invalid policy option: %s", ErrInvalid, key)
		}
	}
	return o, o.High || o.Low, nil
}

func parseCustom(s string) (*multilevel, error) {
	o, ok, err := ParseOptions(s)
	if !ok {
		if err == nil {
			err = fmt.Errorf("%w: %q names no policy=high or policy=low", ErrInvalid, s)
		}
		return nil, err
	}
	p := &multilevel{order: Less, stopOnFirst: o.StopOn1Matches}
	if o.High {
		p.order = Greater
	}
	if o.NodeCentric {
		p.factors = append(p.factors, factor{typ: "node", add: 1, mul: 10000})
	}
	if o.NodeExclusive {
		p.exclusive = append(p.exclusive, "node")
	}
	return p, nil
}

// Keyed is implemented by policies for which, among the children of one
// vertex, the score a matched child gets is a fixed strictly increasing
// function of a per-vertex key that does not depend on the schedule
// (multilevel policies and locality: the vertex id). The matcher then
// knows the order of sibling candidates before walking them, and can stop
// once the best ones are found. ok is false when v's score is not of that
// form, or could be below 1.
type Keyed interface {
	Key(g *graph.Graph, v graph.VertexID) (key int64, ok bool)
}

// idKey is the key of the id-scored policies: score = c + id, positive for
// ids of at least -1.
func idKey(g *graph.Graph, v graph.VertexID) (int64, bool) {
	id := g.V(v).ID
	return id, id >= -1 && id < MaxKeyID
}

// Shifted is implemented by Keyed policies whose score of a matched vertex
// is a fixed function of the vertex plus an offset that only the Discover
// and Finish calls of its ancestors move: the score of a vertex finished
// now is Finish's own term plus Offset(). The matcher replays the
// candidates of an untouched subtree, recorded once under one offset, for
// an identical subtree under another (shifting each score by the
// difference once per vertex score it sums). Shifts reports whether
// Discover of a vertex of type t moves the offset (such vertices may not
// lie strictly inside a replayed subtree).
type Shifted interface {
	Keyed
	Offset() int64
	Shifts(g *graph.Graph, t graph.TypeID) bool
}

// MaxKeyID bounds the ids Keyed accepts: factors multiply ids by 10,000
// and sum them, which must not overflow.
const MaxKeyID = 1 << 40
