package jobspec_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/jobspec"
)

func TestValidate(t *testing.T) {
	self := jobspec.Res("node", 1)
	self.With = []*jobspec.Resource{jobspec.Res("socket", 1, self)}
	twice := jobspec.Res("core", 1)
	deep := jobspec.Res("core", 1)
	for i := 0; i < jobspec.MaxDepth; i++ {
		deep = jobspec.Res("group", 1, deep)
	}
	// 2^25 leaves if expanded: one shared child per level, twice.
	wide := jobspec.Res("core", 1)
	for i := 0; i < 25; i++ {
		wide = jobspec.Res("group", 1, wide, wide)
	}
	loop := &jobspec.Constraint{Op: jobspec.OpNot}
	loop.Args = []*jobspec.Constraint{loop}
	tests := []struct {
		name, path, msg string
		js              *jobspec.Jobspec
	}{
		{"nil jobspec", "", "jobspec is nil", nil},
		{"nil resource", "resources[1]", "resource is nil", jobspec.New(0, jobspec.Res("core", 1), nil)},
		{"nil child", "resources[0].with[0]", "resource is nil", jobspec.New(0, jobspec.Res("node", 1, nil))},
		{"empty type", "resources[0].with[0].type", `Value of "type" must not be empty`, jobspec.New(0, jobspec.Res("node", 1, jobspec.Res("", 1)))},
		{"zero count", "resources[0].count.min", `"min" must be greater than zero`, jobspec.New(0, jobspec.Res("node", 0))},
		{"max below min", "resources[0].count.max", `"max" must be greater than or equal to "min"`, jobspec.New(0, jobspec.Res("node", 3).Between(3, 2))},
		{"bad operator", "resources[0].count.operator", "Invalid count operator", jobspec.New(0, &jobspec.Resource{Type: "core", Count: jobspec.Count{Min: 1, Max: 1}})},
		{"bad operand", "resources[0].count.operand", `"operand" must be greater than one for multiplication '*'`, jobspec.New(0, &jobspec.Resource{Type: "core", Count: jobspec.Count{Min: 1, Max: 4, Operator: '*', Operand: 1}})},
		{"contains itself", "resources[0].with[0].with[0]", "resource contains itself", jobspec.New(0, self)},
		{"too deep", "resources[0]" + strings.Repeat(".with[0]", jobspec.MaxDepth), "jobspec is nested too deeply (more than 5000 levels)", jobspec.New(0, deep)},
		{"too large", "", "jobspec is too large", jobspec.New(0, wide)},
		{"constraint cycle", "attributes.system.constraints.not[0]", "constraint contains itself", &jobspec.Jobspec{Resources: []*jobspec.Resource{twice}, Constraint: loop}},
		{"constraint op", "attributes.system.constraints", "unknown constraint operator: xor", &jobspec.Jobspec{Resources: []*jobspec.Resource{twice}, Constraint: &jobspec.Constraint{Op: "xor"}}},
		{"constraint idset", "attributes.system.constraints.ranks[0]", "Invalid idset `3-1'", &jobspec.Jobspec{Resources: []*jobspec.Resource{twice}, Constraint: &jobspec.Constraint{Op: jobspec.OpRanks, Values: []string{"3-1"}}}},
		{"shared child is fine", "", "", jobspec.New(0, jobspec.Res("node", 2, jobspec.Slot("a", 1, twice), jobspec.Slot("b", 1, twice)))},
		{"empty resources left to the matcher", "", "", &jobspec.Jobspec{Version: 1}},
		{"negative duration left to the matcher", "", "", jobspec.New(-time.Second, jobspec.Res("core", 1))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := jobspec.Validate(tc.js)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var je *jobspec.Error
			if !errors.As(err, &je) {
				t.Fatalf("Validate = %v, want a *jobspec.Error", err)
			}
			if !strings.HasPrefix(je.Msg, tc.msg) || (tc.path != "" && je.Path != tc.path) {
				t.Errorf("Validate = %q at %q, want %q at %q", je.Msg, je.Path, tc.msg, tc.path)
			}
		})
	}
}

// Every parsed jobspec passes Validate: the checks are Parse's own rules.
func TestValidateAcceptsParsed(t *testing.T) {
	for _, doc := range []string{
		"version: 1\nresources: [{type: node, count: {min: 2, max: 8, operator: '*', operand: 2}, with: [{type: slot, label: x, count: 1, with: [{type: core, count: 1}]}]}]\nattributes: {system: {constraints: {or: [{ranks: ['0-3']}, {not: [{hostlist: ['n[1-2]']}]}, {properties: ['^a']}]}}}\ntasks: []\n",
		"version: 1\nresources: [{type: node, count: {min: 2, max: 9, operator: '^', operand: 2}}]\nattributes:\ntasks: []\n",
	} {
		js, err := jobspec.Parse([]byte(doc), jobspec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := jobspec.Validate(js); err != nil {
			t.Errorf("Validate(Parse(%q)) = %v", doc, err)
		}
	}
}

// YAML renders what Parse reads back to the same jobspec.
func TestYAMLRoundTrip(t *testing.T) {
	con, err := jobspec.ParseConstraint([]byte(`{"and": [{"properties": ["foo", "^bar"]}, {"or": [{"hostlist": ["n[0-3]"]}, {"ranks": ["4-7"]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	built := []*jobspec.Jobspec{
		jobspec.New(90*time.Minute, jobspec.Res("node", 2, jobspec.Slot("task", 1, jobspec.Res("core", 4), jobspec.Res("gpu", 1))).Exclusively()),
		jobspec.New(0, jobspec.Res("core", 1).Between(1, 16), jobspec.Res("memory", 4)),
		jobspec.New(1500*time.Millisecond, &jobspec.Resource{Type: "true", Count: jobspec.Count{Min: 2, Max: 64, Operator: '^', Operand: 2}, Exclusive: jobspec.ExclusiveFalse, Unit: "GB", ID: "7"}),
	}
	built[1].Constraint, built[1].Queue = con, "batch"
	for i, js := range built {
		a, err := js.YAML()
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		back, err := jobspec.Parse(a, jobspec.Options{})
		if err != nil {
			t.Fatalf("%d: Parse(YAML()) = %v\n%s", i, err, a)
		}
		b, err := back.YAML()
		if err != nil {
			t.Fatal(err)
		}
		if string(a) != string(b) {
			t.Errorf("%d: round trip changed the document:\n%s\nthen\n%s", i, a, b)
		}
		if back.Duration != js.Duration || len(back.Resources) != len(js.Resources) || back.Resources[0].Count != js.Resources[0].Count {
			t.Errorf("%d: round trip gave %+v, want %+v", i, back, js)
		}
	}
	if _, err := jobspec.New(0, jobspec.Res("", 1)).YAML(); err == nil {
		t.Error("YAML of an invalid jobspec succeeded")
	}
}
