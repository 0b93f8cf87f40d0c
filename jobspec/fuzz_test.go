package jobspec

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, every error
// must be an *Error, and a successful parse must yield a sane tree.
func FuzzParse(f *testing.F) {
	seeds := []string{
		doc("", "", "", ""),
		count("{min: 0}"),
		count("-2"),
		count(`{min: 2, max: 7, operator: "+", operand: 2}`),
		count(`{min: 2, max: 100, operator: "^", operand: 2}`),
		res("[{type: node, count: 1, exclusive: true, with: [{type: slot, label: s, count: 2, with: [{type: core, count: 4}]}]}]"),
		cons(`{and: [{properties: ["foo", "^bar"]}, {or: [{hostlist: ["node[0-3]"]}, {ranks: ["0-3,7"]}]}, {not: []}]}`),
		attrs("{user: {}, system: {duration: 0.5, queue: q, constraints: {}}}"),
		tasks("[{command: [a], slot: s, count: {total: 2}, distribution: d, attributes: {}}]"),
		`{"version": 1, "resources": [{"type": "node", "count": 1}], "attributes": {}, "tasks": []}`,
		"version: 1\nresources: &r [{type: node, count: 1, with: *r}]\nattributes: ~\ntasks: []\n",
		"[1, 2]",
		"version: 1\nresources: [\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := Parse(data, Options{KnownType: func(s string) bool { return s != "bogus" }})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T (%v) is not *Error", err, err)
			}
			if e.Msg == "" {
				t.Fatal("empty error message")
			}
			if (e.Line > 0) != (e.Column > 0) {
				t.Fatalf("half a position: %#v", e)
			}
			if e.At.Line < 0 || e.At.Column < 0 || (e.At.Line == 0 && e.At.Column != 0) {
				t.Fatalf("bad location: %#v", e)
			}
			if e.Msg == "bad conversion" && e.At != (Position{e.Line, e.Column}) {
				t.Fatalf("conversion error located at %+v, reported at line %d, column %d", e.At, e.Line, e.Column)
			}
			if d := e.Detail(); !strings.HasSuffix(d, e.Msg) || (e.Path != "" && !strings.Contains(d, e.Path)) {
				t.Fatalf("Detail() = %q for %#v", d, e)
			}
			return
		}
		var walk func([]*Resource, int)
		walk = func(rs []*Resource, depth int) {
			if depth > maxDepth {
				t.Fatal("tree deeper than maxDepth")
			}
			for _, r := range rs {
				if r == nil || r.Type == "bogus" {
					t.Fatalf("bad resource %+v", r)
				}
				c := r.Count
				if c.Min > c.Max || (c.Operator != '+' && c.Operator != '*' && c.Operator != '^') {
					t.Fatalf("invalid count accepted: %v", c)
				}
				_ = c.Calc(c.Max)
				_ = c.EffectiveMax()
				walk(r.With, depth+1)
			}
		}
		walk(js.Resources, 0)
		if js.Version < 1 || js.Version > 9999 {
			t.Fatalf("version %d accepted", js.Version)
		}
		if js.Constraint != nil {
			_ = js.Constraint.Match("node0", 0, func(string) bool { return true })
		}
	})
}

// FuzzYAMLRoundTrip: every parsed jobspec passes Validate, and YAML renders
// it as a document that parses back and renders identically.
func FuzzYAMLRoundTrip(f *testing.F) {
	for _, s := range []string{
		doc("", "", "", ""),
		count(`{min: 2, max: 7, operator: "+", operand: 2}`),
		res("[{type: node, count: 1, exclusive: true, with: [{type: slot, label: s, count: 2, with: [{type: core, count: 4}]}]}]"),
		cons(`{and: [{properties: ["foo", "^bar"]}, {or: [{hostlist: ["node[0-3]"]}, {ranks: ["0-3,7"]}]}, {not: []}]}`),
		attrs("{user: {}, system: {duration: 0.5, queue: q, constraints: {}}}"),
		tasks("[{command: [a], slot: s, count: {total: 2}, distribution: d, attributes: {}}]"),
		res(`[{type: "0x10", count: "010", unit: "", id: "7", label: "a: b"}]`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := Parse(data, Options{})
		if err != nil {
			return
		}
		if err := Validate(js); err != nil {
			if strings.Contains(err.Error(), `"type" must not be empty`) || strings.Contains(err.Error(), `"min" must be greater than zero`) {
				return // Parse accepts an empty type and "count: 0", as Fluxion does
			}
			t.Fatalf("Validate(Parse(%q)) = %v", data, err)
		}
		a, err := js.YAML()
		if err != nil {
			t.Fatalf("YAML: %v", err)
		}
		back, err := Parse(a, Options{})
		if err != nil {
			t.Fatalf("Parse(YAML()) = %v\n%s", err, a)
		}
		b, err := back.YAML()
		if err != nil || string(a) != string(b) {
			t.Fatalf("round trip changed the document (%v):\n%s\nthen\n%s", err, a, b)
		}
	})
}
