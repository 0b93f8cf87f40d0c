package jobspec

import (
	"errors"
	"testing"
)

type vertex struct {
	name  string
	rank  int64
	props map[string]bool
}

func (v vertex) has(k string) bool { return v.props[k] }

var (
	n0    = vertex{"node0", 0, map[string]bool{"foo": true}}
	n1    = vertex{"node1", 1, map[string]bool{"foo": true, "bar": true}}
	n2    = vertex{"node2", 2, nil}
	n3    = vertex{"node3", 3, map[string]bool{"bar": true}}
	login = vertex{"login", -1, map[string]bool{"foo": true}}
	n07   = vertex{"node07", 7, nil}
	all   = []vertex{n0, n1, n2, n3, login, n07}
)

func TestConstraintMatch(t *testing.T) {
	tests := []struct {
		json string
		want []bool // for n0, n1, n2, n3, login, n07
	}{
		{`{}`, []bool{true, true, true, true, true, true}},
		{`{"properties": []}`, []bool{true, true, true, true, true, true}},
		{`{"properties": ["foo"]}`, []bool{true, true, false, false, true, false}},
		{`{"properties": ["foo", "bar"]}`, []bool{false, true, false, false, false, false}},
		{`{"properties": ["^foo"]}`, []bool{false, false, true, true, false, true}},
		{`{"properties": ["foo", "^bar"]}`, []bool{true, false, false, false, true, false}},
		{`{"properties": ["^"]}`, []bool{true, true, true, true, true, true}},
		{`{"hostlist": []}`, []bool{false, false, false, false, false, false}},
		{`{"hostlist": ["node[0-1]"]}`, []bool{true, true, false, false, false, false}},
		{`{"hostlist": ["node[0-1]", "login,node3"]}`, []bool{true, true, false, true, true, false}},
		{`{"hostlist": ["node[06-07]"]}`, []bool{false, false, false, false, false, true}},
		{`{"hostlist": ["node7"]}`, []bool{false, false, false, false, false, false}},
		{`{"hostlist": [""]}`, []bool{false, false, false, false, false, false}},
		{`{"ranks": []}`, []bool{false, false, false, false, false, false}},
		{`{"ranks": ["0-3,7"]}`, []bool{true, true, true, true, false, true}},
		{`{"ranks": ["1", "[3]"]}`, []bool{false, true, false, true, false, false}},
		{`{"ranks": ["2-3", "0"]}`, []bool{true, false, true, true, false, false}},
		{`{"and": []}`, []bool{true, true, true, true, true, true}},
		{`{"or": []}`, []bool{false, false, false, false, false, false}},
		{`{"not": []}`, []bool{false, false, false, false, false, false}},
		{`{"not": [{"properties": ["foo"]}]}`, []bool{false, false, true, true, false, true}},
		// not = "not all": true when any operand fails
		{`{"not": [{"properties": ["foo"]}, {"ranks": ["0"]}]}`, []bool{false, true, true, true, true, true}},
		{`{"and": [{"properties": ["foo"]}, {"ranks": ["1-5"]}]}`, []bool{false, true, false, false, false, false}},
		{`{"or": [{"properties": ["bar"]}, {"hostlist": ["login"]}]}`, []bool{false, true, false, true, true, false}},
		{`{"or": [{"and": [{"properties": ["foo"]}, {"not": [{"properties": ["bar"]}]}]}, {"ranks": ["7"]}]}`,
			[]bool{true, false, false, false, true, true}},
		{`{"and": [{}, {"properties": ["foo"]}]}`, []bool{true, true, false, false, true, false}},
	}
	for _, tc := range tests {
		c, err := ParseConstraint([]byte(tc.json))
		if err != nil {
			t.Errorf("%s: %v", tc.json, err)
			continue
		}
		for i, v := range all {
			if got := c.Match(v.name, v.rank, v.has); got != tc.want[i] {
				t.Errorf("%s: Match(%s) = %v, want %v", tc.json, v.name, got, tc.want[i])
			}
		}
	}
}

func TestConstraintNilAndManual(t *testing.T) {
	var c *Constraint
	if !c.Match("x", -1, nil) {
		t.Error("nil constraint must match")
	}
	manual := &Constraint{Op: OpOr, Args: []*Constraint{
		{Op: OpHostlist, Values: []string{"node[2-3]", "bad["}},
		{Op: OpRanks, Values: []string{"0", "x"}},
		{Op: OpProperties, Values: []string{"bar"}},
	}}
	for i, want := range []bool{true, true, true, true, false, false} {
		if got := manual.Match(all[i].name, all[i].rank, all[i].has); got != want {
			t.Errorf("manual Match(%s) = %v, want %v", all[i].name, got, want)
		}
	}
	if (&Constraint{Op: "bogus"}).Match("node0", 0, nil) {
		t.Error("unknown op matched")
	}
}

func TestParseConstraintErrors(t *testing.T) {
	for in, want := range map[string]string{
		`[]`:                          "constraint is not a mapping",
		`{"ranks": "0"}`:              "ranks operator value must be an array",
		`{"properties": [1]}`:         "non-string property specified",
		`{"properties": [true]}`:      "non-string property specified",
		`{"properties": [null]}`:      "non-string property specified",
		`{"properties": ["a(b"]}`:     "a(b is invalid",
		`{"xor": []}`:                 "unknown constraint operator: xor",
		`{"hostlist": ["a]"]}`:        "Invalid hostlist `a]'",
		`{"ranks": ["1,,2"]}`:         "Invalid idset `1,,2'",
		`{"ranks": [5]}`:              "",
		`{"hostlist": [5]}`:           "",
		`{"or": [{"ranks": ["x"]}]}`:  "Invalid idset `x'",
		`{"and": [], "or": []}`:       "constraint map may not contain > 1 operation",
		`{"properties": ["a", "^b"]}`: "",
	} {
		_, err := ParseConstraint([]byte(in))
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", in, err)
		case want != "" && (err == nil || err.Error() != want):
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("%s: %T is not *Error", in, err)
		}
	}
}
