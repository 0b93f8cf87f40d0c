// Package wire holds what the server and the client of the matcher
// service both need: the jobspec encoding and the error kinds.
package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/jobspec"
)

// EncodeJobspec writes js as a canonical jobspec V1 document that
// jobspec.Parse reads back into an equal Jobspec. It is JSON, except
// that a duration JSON cannot hold (NaN, ±Inf) is written as YAML's .nan
// or .inf, which the YAML parser of jobspec reads the same way (the
// matcher then refuses it, as it would locally).
func EncodeJobspec(js *jobspec.Jobspec) ([]byte, error) {
	if js == nil {
		return nil, fmt.Errorf("nil jobspec")
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"version": %d, "resources": `, js.Version)
	if err := resources(&b, js.Resources, 0); err != nil {
		return nil, err
	}
	b.WriteString(`, "tasks": [`)
	for i, t := range js.Tasks {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"command": `)
		writeJSON(&b, nonNil(t.Command))
		b.WriteString(`, "slot": `)
		writeJSON(&b, t.Slot)
		if t.Count != nil {
			b.WriteString(`, "count": `)
			writeJSON(&b, t.Count)
		}
		if t.Distribution != "" {
			b.WriteString(`, "distribution": `)
			writeJSON(&b, t.Distribution)
		}
		b.WriteString("}")
	}
	b.WriteString(`], "attributes": {"system": {`)
	sep := ""
	if js.Duration != 0 || math.IsNaN(js.Duration) {
		b.WriteString(`"duration": `)
		switch {
		case math.IsNaN(js.Duration):
			b.WriteString(".nan")
		case math.IsInf(js.Duration, 1):
			b.WriteString(".inf")
		case math.IsInf(js.Duration, -1):
			b.WriteString("-.inf")
		default:
			b.WriteString(strconv.FormatFloat(js.Duration, 'g', -1, 64))
		}
		sep = ", "
	}
	if js.Queue != "" {
		b.WriteString(sep + `"queue": `)
		writeJSON(&b, js.Queue)
		sep = ", "
	}
	if js.Constraint != nil {
		b.WriteString(sep + `"constraints": `)
		if err := constraint(&b, js.Constraint, 0); err != nil {
			return nil, err
		}
	}
	b.WriteString("}}}")
	return []byte(b.String()), nil
}

// maxDepth bounds the recursion over a jobspec built in Go (a parsed one
// is bounded by the parser).
const maxDepth = 1000

func resources(b *strings.Builder, rs []*jobspec.Resource, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("jobspec nests resources deeper than %d levels", maxDepth)
	}
	b.WriteString("[")
	for i, r := range rs {
		if r == nil {
			return fmt.Errorf("jobspec has a nil resource")
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"type": `)
		writeJSON(b, r.Type)
		b.WriteString(`, "count": `)
		c := r.Count
		if c == jobspec.Fixed(c.Min) {
			b.WriteString(strconv.FormatUint(uint64(c.Min), 10))
		} else {
			fmt.Fprintf(b, `{"min": %d, "max": %d, "operator": %s, "operand": %d}`, c.Min, c.Max, strconv.Quote(string(rune(c.Operator))), c.Operand)
		}
		if r.Unit != "" {
			b.WriteString(`, "unit": `)
			writeJSON(b, r.Unit)
		}
		switch r.Exclusive {
		case jobspec.ExclusiveTrue:
			b.WriteString(`, "exclusive": true`)
		case jobspec.ExclusiveFalse:
			b.WriteString(`, "exclusive": false`)
		}
		if r.Label != "" || r.Type == "slot" {
			b.WriteString(`, "label": `)
			writeJSON(b, r.Label)
		}
		if r.ID != "" {
			b.WriteString(`, "id": `)
			writeJSON(b, r.ID)
		}
		if len(r.With) > 0 {
			b.WriteString(`, "with": `)
			if err := resources(b, r.With, depth+1); err != nil {
				return err
			}
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return nil
}

func constraint(b *strings.Builder, c *jobspec.Constraint, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("jobspec nests constraints deeper than %d levels", maxDepth)
	}
	if c == nil {
		return fmt.Errorf("jobspec has a nil constraint")
	}
	if c.Op == jobspec.OpAll {
		b.WriteString("{}")
		return nil
	}
	b.WriteString("{")
	writeJSON(b, c.Op)
	b.WriteString(": [")
	switch c.Op {
	case jobspec.OpAnd, jobspec.OpOr, jobspec.OpNot:
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := constraint(b, a, depth+1); err != nil {
				return err
			}
		}
	default:
		for i, v := range c.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, v)
		}
	}
	b.WriteString("]}")
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(b *strings.Builder, v any) {
	out, _ := json.Marshal(v) // strings, string slices and string maps
	b.Write(out)
}
