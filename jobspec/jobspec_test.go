package jobspec

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	defVersion = "1"
	defRes     = "[{type: node, count: 1}]"
	defAttrs   = "{system: {duration: 3600}}"
	defTasks   = "[{command: [app], slot: default, count: {per_slot: 1}}]"
)

// doc builds a jobspec from flow-style pieces; "" selects the default.
func doc(version, resources, attributes, tasks string) string {
	or := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return "version: " + or(version, defVersion) + "\n" +
		"resources: " + or(resources, defRes) + "\n" +
		"attributes: " + or(attributes, defAttrs) + "\n" +
		"tasks: " + or(tasks, defTasks) + "\n"
}

func res(r string) string   { return doc("", r, "", "") }
func attrs(a string) string { return doc("", "", a, "") }
func tasks(t string) string { return doc("", "", "", t) }
func count(c string) string { return res("[{type: node, count: " + c + "}]") }
func cons(c string) string  { return attrs("{system: {constraints: " + c + "}}") }

var knownTypes = func(s string) bool {
	switch s {
	case "cluster", "rack", "node", "socket", "core", "gpu", "memory", "slot":
		return true
	}
	return false
}

type errCase struct {
	name string
	in   string
	want string
}

// errCases lists one input per error message of jobspec.md, plus the EC5
// table of examples.md.
var errCases = []errCase{
	// §1 top level
	{"top sequence (EC5)", "[1, 2]", "Top level of jobspec is not a mapping"},
	{"top scalar", "hello", "Top level of jobspec is not a mapping"},
	{"empty document", "", "Top level of jobspec is not a mapping"},
	{"comment only", "# nothing\n", "Top level of jobspec is not a mapping"},
	{"top null", "~", "Top level of jobspec is not a mapping"},
	{"missing version", "resources: []\ntasks: []\nattributes: {}\n", `Missing key "version" in top level mapping`},
	{"missing resources", "version: 1\ntasks: []\nattributes: {}\n", `Missing key "resource" in top level mapping`},
	{"missing tasks", "version: 1\nresources: []\nattributes: {}\n", `Missing key "tasks" in top level mapping`},
	{"missing attributes", "version: 1\nresources: []\ntasks: []\n", `Missing key "attributes" in top level mapping`},
	{"missing everything", "{}", `Missing key "version" in top level mapping`},
	{"missing version first", "foo: 1", `Missing key "version" in top level mapping`},
	{"five keys (EC5)", doc("", "", "", "") + "bogus: 1\n", "Top mapping in jobspec must have exactly four entries"},
	{"duplicate key", doc("", "", "", "") + "version: 2\n", "Top mapping in jobspec must have exactly four entries"},
	{"five keys before version check", doc("0", "", "", "") + "x: 1\n", "Top mapping in jobspec must have exactly four entries"},
	{"version map", doc("{a: 1}", "", "", ""), `"version" must be an unsigned integer`},
	{"version seq", doc("[1]", "", "", ""), `"version" must be an unsigned integer`},
	{"version null", doc("~", "", "", ""), `"version" must be an unsigned integer`},
	{"version 0 (EC5)", doc("0", "", "", ""), `Only jobspec "version" 1-9999 is supported`},
	{"version 10000", doc("10000", "", "", ""), `Only jobspec "version" 1-9999 is supported`},
	{"version non-numeric", doc("one", "", "", ""), bad(1, `one`)},
	{"version negative", doc("-1", "", "", ""), bad(1, `-1`)},
	{"version float", doc("1.0", "", "", ""), bad(1, `1.0`)},
	{"version too big", doc("4294967296", "", "", ""), bad(1, `4294967296`)},
	{"version before attributes", doc("0", "", "{foo: 1}", ""), `Only jobspec "version" 1-9999 is supported`},
	{"attributes before resources", doc("", "{}", "{foo: 1}", ""), `Unknown key in "attributes"`},
	{"resources before tasks", doc("", "{}", "", "{}"), `"resources" is not a sequence`},

	// §2 resources
	{"resources mapping (EC5)", res("{}"), `"resources" is not a sequence`},
	{"resources scalar", res("node"), `"resources" is not a sequence`},
	{"resources null", res("~"), `"resources" is not a sequence`},
	{"resource scalar", res("[node]"), "resource is not a mapping"},
	{"resource sequence", res("[[1]]"), "resource is not a mapping"},
	{"type missing", res("[{count: 1}]"), `Key "type" missing from resource`},
	{"type map", res("[{type: {a: b}, count: 1}]"), `Value of "type" must be a scalar`},
	{"type null", res("[{type: , count: 1}]"), `Value of "type" must be a scalar`},
	{"count missing (EC5)", res("[{type: node}]"), `Key "count" missing from resource`},
	{"type before count", res("[{count: 1}]"), `Key "type" missing from resource`},
	{"unit map", res("[{type: node, count: 1, unit: [GB]}]"), `Value of "unit" must be a scalar`},
	{"exclusive map", res("[{type: node, count: 1, exclusive: {a: 1}}]"), `Value of "exclusive" must be a scalar`},
	{"exclusive yes (EC5)", res("[{type: node, count: 1, exclusive: yes}]"), `Value of "exclusive" must be either "true" or "false"`},
	{"exclusive True", res("[{type: node, count: 1, exclusive: True}]"), `Value of "exclusive" must be either "true" or "false"`},
	{"exclusive 1", res("[{type: node, count: 1, exclusive: 1}]"), `Value of "exclusive" must be either "true" or "false"`},
	{"with mapping", res("[{type: node, count: 1, with: {type: core}}]"), `"resources" is not a sequence`},
	{"with null", res("[{type: node, count: 1, with: }]"), `"resources" is not a sequence`},
	{"with child error", res("[{type: node, count: 1, with: [{type: core}]}]"), `Key "count" missing from resource`},
	{"label map", res("[{type: node, count: 1, label: [x]}]"), `Value of "label" must be a scalar`},
	{"label null on slot", res("[{type: slot, count: 1, label: }]"), `Value of "label" must be a scalar`},
	{"slot without label (EC5)", res("[{type: slot, count: 1, with: [{type: core, count: 1}]}]"), "All slots must be labeled"},
	{"child before parent label", res("[{type: slot, count: 1, with: [{type: core, count: 0x}]}]"), bad(2, `0x}`)},
	{"id map", res("[{type: node, count: 1, id: {}}]"), `Value of "id" must be a scalar`},
	{"unknown key (EC5)", res("[{type: node, count: 1, bogus: 1}]"), "Unrecognized key in resource mapping"},
	{"unknown non-scalar key", res("[{type: node, count: 1, [a]: 1}]"), "Unrecognized key in resource mapping"},
	{"label before unknown key", res("[{type: slot, count: 1, bogus: 1}]"), "All slots must be labeled"},
	{"id before unknown key", res("[{type: node, count: 1, bogus: 1, id: []}]"), `Value of "id" must be a scalar`},
	{"eleven entries", res("[{type: node, count: 1, unit: a, unit: b, unit: c, unit: d, unit: e, unit: f, unit: g, unit: h, unit: i}]"), "impossible number of entries in resource mapping"},

	// §2.1 counts
	{"count -2 (EC5)", "version: 1\nresources:\n  - type: node\n    count: -2\nattributes:\ntasks: []\n", "yaml-cpp: error at line 4, column 12: bad conversion"},
	{"count word", count("two"), bad(2, `two}`)},
	{"count float", count("1.5"), bad(2, `1.5}`)},
	{"count overflow", count("4294967296"), bad(2, `4294967296}`)},
	{"count sequence", count("[1]"), "count is not a mapping"},
	{"count null", count("~"), "count is not a mapping"},
	{"min missing", count("{max: 2}"), `Key "min" missing from count`},
	{"min map", count("{min: {}}"), `Value of "min" must be a scalar`},
	{"min null", count("{min: ~}"), `Value of "min" must be a scalar`},
	{"min 0 (EC5)", count("{min: 0}"), `"min" must be greater than zero`},
	{"min negative", count("{min: -1}"), bad(2, `-1}`)},
	{"min word", count("{min: x}"), bad(2, `x}`)},
	{"max alone (EC5)", count("{min: 3, max: 5}"), `All or none of "max", "operator", and "operand" must be specified`},
	{"operator alone", count("{min: 3, operator: '+'}"), `All or none of "max", "operator", and "operand" must be specified`},
	{"operand alone", count("{min: 3, operand: 1}"), `All or none of "max", "operator", and "operand" must be specified`},
	{"all-or-none before min conversion", count("{min: x, max: 5}"), `All or none of "max", "operator", and "operand" must be specified`},
	{"max map", count("{min: 1, max: {}, operator: '+', operand: 1}"), `Value of "max" must be a scalar`},
	{"operator map", count("{min: 1, max: 2, operator: [], operand: 1}"), `Value of "operator" must be a scalar`},
	{"operand map", count("{min: 1, max: 2, operator: '+', operand: {}}"), `Value of "operand" must be a scalar`},
	{"max negative", count("{min: 1, max: -2, operator: '+', operand: 1}"), bad(2, `-2,`)},
	{"max word", count("{min: 1, max: lots, operator: '+', operand: 1}"), bad(2, `lots,`)},
	{"min converted before max", count("{min: -1, max: -2, operator: '+', operand: 1}"), bad(2, `-1,`)},
	{"operator two chars", count("{min: 1, max: 2, operator: '++', operand: 1}"), bad(2, `'++'`)},
	{"operator empty", count("{min: 1, max: 2, operator: '', operand: 1}"), bad(2, `'',`)},
	{"operand float", count("{min: 1, max: 2, operator: '+', operand: 1.5}"), bad(2, `1.5}`)},
	{"operand word", count("{min: 1, max: 2, operator: '+', operand: one}"), bad(2, `one}`)},
	{"operand overflow", count("{min: 1, max: 2, operator: '+', operand: 2147483648}"), bad(2, `2147483648}`)},
	{"max < min (EC5)", count(`{min: 3, max: 2, operator: "+", operand: 1}`), `"max" must be greater than or equal to "min"`},
	{"min 0 before max<min", count(`{min: 0, max: 0, operator: "/", operand: 0}`), `"min" must be greater than zero`},
	{"max<min before operator", count(`{min: 3, max: 2, operator: "/", operand: 0}`), `"max" must be greater than or equal to "min"`},
	{"plus operand 0", count(`{min: 1, max: 2, operator: "+", operand: 0}`), `"operand" must be greater than zero for addition '+'`},
	{"plus operand negative", count(`{min: 1, max: 2, operator: "+", operand: -3}`), `"operand" must be greater than zero for addition '+'`},
	{"times operand 1", count(`{min: 1, max: 2, operator: "*", operand: 1}`), `"operand" must be greater than one for multiplication '*'`},
	{"pow operand 1", count(`{min: 2, max: 2, operator: "^", operand: 1}`), `"operand" must be greater than one for exponentiation '^'`},
	{"pow operand before min", count(`{min: 1, max: 2, operator: "^", operand: 1}`), `"operand" must be greater than one for exponentiation '^'`},
	{"pow min 1 (EC5)", count(`{min: 1, max: 100, operator: "^", operand: 2}`), `"min" must be greater than one for exponentiation '^'`},
	{"operator / (EC5)", count(`{min: 1, max: 2, operator: "/", operand: 1}`), "Invalid count operator"},
	{"operator letter", count(`{min: 1, max: 2, operator: x, operand: 1}`), "Invalid count operator"},

	// §3 tasks
	{"tasks mapping", tasks("{}"), `"tasks" is not a sequence`},
	{"tasks null", tasks("~"), `"tasks" is not a sequence`},
	{"task scalar", tasks("[x]"), "task is not a mapping"},
	{"command missing", tasks("[{slot: default, count: {per_slot: 1}}]"), `Key "command" missing from task`},
	{"command scalar", tasks("[{command: app, slot: default}]"), `"command" value must be a sequence`},
	{"command element map", tasks("[{command: [{a: 1}], slot: default, count: {per_slot: 1}}]"), bad(4, `{a: 1}`)},
	{"slot missing", tasks("[{command: [app], count: {per_slot: 1}}]"), `Key "slot" missing from task`},
	{"slot map", tasks("[{command: [app], slot: {}}]"), `Value of task "slot" must be a YAML scalar`},
	{"task count scalar", tasks("[{command: [app], slot: default, count: 1}]"), `"count" in task is not a mapping`},
	{"task count two entries", tasks("[{command: [app], slot: default, count: {per_slot: 1, total: 2}}]"), `"count" in task must have exactly one entry`},
	{"task count empty", tasks("[{command: [app], slot: default, count: {}}]"), `"count" in task must have exactly one entry`},
	{"task attributes scalar", tasks("[{command: [app], slot: default, attributes: 1}]"), `"attributes" in task is not a mapping`},
	{"task two entries", tasks("[{command: [app], slot: default}]"), "impossible number of entries in task mapping"},
	{"task six entries", tasks("[{command: [app], slot: default, count: {total: 1}, distribution: x, attributes: {}, foo: 1}]"), "impossible number of entries in task mapping"},

	// §4 attributes
	{"attributes scalar", attrs("x"), `"attributes" is not a map`},
	{"attributes sequence", attrs("[1]"), `"attributes" is not a map`},
	{"attributes unknown key (EC5)", attrs("{foo: 1}"), `Unknown key in "attributes"`},
	{"attributes unknown after system", attrs("{system: {}, user: {}, foo: 1}"), `Unknown key in "attributes"`},
	{"duration word", attrs("{system: {duration: long}}"), bad(3, `long}`)},
	{"duration map", attrs("{system: {duration: {}}}"), bad(3, `{}}}`)},
	{"duration 1e", attrs("{system: {duration: 1e}}"), bad(3, `1e}`)},
	{"duration overflow", attrs("{system: {duration: 1e999}}"), bad(3, `1e999}`)},
	{"queue map", attrs("{system: {queue: {}}}"), bad(3, `{}}}`)},

	// §5 constraints
	{"constraint scalar", cons("x"), "constraint is not a mapping"},
	{"constraint null", cons("~"), "constraint is not a mapping"},
	{"constraint two ops", cons(`{properties: ["a"], ranks: ["0"]}`), "constraint map may not contain > 1 operation"},
	{"constraint value scalar", cons(`{properties: "a"}`), "properties operator value must be an array"},
	{"constraint value map", cons(`{and: {}}`), "and operator value must be an array"},
	{"unknown op value not array", cons(`{foo: 1}`), "foo operator value must be an array"},
	{"unknown op", cons(`{foo: []}`), "unknown constraint operator: foo"},
	{"property plain", cons(`{properties: [foo]}`), "non-string property specified"},
	{"property number", cons(`{properties: [1]}`), "non-string property specified"},
	{"property tagged", cons(`{properties: [!!str foo]}`), "non-string property specified"},
	{"property map", cons(`{properties: [{a: b}]}`), "non-string property specified"},
	{"property second plain", cons(`{properties: ["ok", bad]}`), "non-string property specified"},
	{"property invalid char", cons(`{properties: ["a|b"]}`), "a|b is invalid"},
	{"property invalid after caret", cons(`{properties: ["^a&b"]}`), "a&b is invalid"},
	{"property double caret", cons(`{properties: ["^^a"]}`), "^a is invalid"},
	{"property inner caret", cons(`{properties: ["a^b"]}`), "a^b is invalid"},
	{"property quote", cons(`{properties: ["a'b"]}`), "a'b is invalid"},
	{"property backquote", cons("{properties: [\"a`b\"]}"), "a`b is invalid"},
	{"property parens", cons(`{properties: ["f(x)"]}`), "f(x) is invalid"},
	{"property bang", cons(`{properties: ["!x"]}`), "!x is invalid"},
	{"hostlist invalid", cons(`{hostlist: ["node[1-"]}`), "Invalid hostlist `node[1-'"},
	{"hostlist descending", cons(`{hostlist: ["node0", "node[3-1]"]}`), "Invalid hostlist `node[3-1]'"},
	{"hostlist element map", cons(`{hostlist: [{}]}`), bad(3, `{}]}`)},
	{"ranks invalid", cons(`{ranks: ["0-"]}`), "Invalid idset `0-'"},
	{"ranks descending", cons(`{ranks: ["5-1"]}`), "Invalid idset `5-1'"},
	{"ranks null element", cons(`{ranks: [~]}`), "Invalid idset `null'"},
	{"nested not mapping", cons(`{and: [x]}`), "constraint is not a mapping"},
	{"nested error", cons(`{or: [{not: [{properties: [bad]}]}]}`), "non-string property specified"},
	{"nested too many ops", cons(`{not: [{ranks: [], hostlist: []}]}`), "constraint map may not contain > 1 operation"},

	// YAML syntax errors
	{"unterminated flow", "version: 1\nresources: [\n", "yaml-cpp: error at line 2, column 1: did not find expected node content"},
	{"bad indentation", "version: 1\n  resources: 2\n", "yaml-cpp: error at line 2, column 1: mapping values are not allowed in this context"},
	{"unknown anchor", "version: *x\n", "yaml-cpp: error at line 1, column 1: unknown anchor 'x' referenced"},
}

// bad marks an expected "bad conversion" at the first occurrence of tok on
// the given line (1-based); the column is computed by the test.
func bad(line int, tok string) string { return "\x00" + itoa(line) + "\x00" + tok }

func expand(want, in string) string {
	if !strings.HasPrefix(want, "\x00") {
		return want
	}
	parts := strings.SplitN(want[1:], "\x00", 2)
	line := 0
	for _, c := range parts[0] {
		line = line*10 + int(c-'0')
	}
	text := strings.Split(in, "\n")[line-1]
	col := strings.Index(text, parts[1]) + 1
	if col == 0 {
		panic("token " + parts[1] + " not on line " + parts[0])
	}
	return "yaml-cpp: error at line " + parts[0] + ", column " + itoa(col) + ": bad conversion"
}

func TestParseErrors(t *testing.T) {
	for _, tc := range errCases {
		tc.want = expand(tc.want, tc.in)
		t.Run(tc.name, func(t *testing.T) {
			js, err := Parse([]byte(tc.in), Options{KnownType: knownTypes})
			if err == nil {
				t.Fatalf("Parse succeeded (%+v), want %q\ninput:\n%s", js, tc.want, tc.in)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if got := err.Error(); got != tc.want {
				t.Fatalf("error\n got %q\nwant %q\ninput:\n%s", got, tc.want, tc.in)
			}
		})
	}
}

func TestKnownType(t *testing.T) {
	in := res("[{type: foo, count: 1}]")
	if _, err := Parse([]byte(in), Options{}); err != nil {
		t.Errorf("nil KnownType: %v", err)
	}
	_, err := Parse([]byte(in), Options{KnownType: knownTypes})
	if err == nil || err.Error() != `Value of "type" must be a resource type known to fluxion` {
		t.Errorf("EC5 type foo: %v", err)
	}
	var seen []string
	_, err = Parse([]byte(res("[{type: node, count: 1, with: [{type: slot, label: s, count: 1, with: [{type: core, count: 1}]}]}]")),
		Options{KnownType: func(s string) bool { seen = append(seen, s); return true }})
	if err != nil || !slices.Equal(seen, []string{"node", "slot", "core"}) {
		t.Errorf("KnownType calls %v, err %v", seen, err)
	}
	// the type check precedes the count checks
	_, err = Parse([]byte(res("[{type: foo}]")), Options{KnownType: knownTypes})
	if err == nil || err.Error() != `Value of "type" must be a resource type known to fluxion` {
		t.Errorf("type before count: %v", err)
	}
}

func TestConversionPosition(t *testing.T) {
	// The example of jobspec.md: `count: -2` on line 4, value at the 12th
	// character.
	in := `version: 9999
resources:
  - type: node
    count: -2
attributes:
  system:
    duration: 3600
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`
	_, err := Parse([]byte(in), Options{})
	var e *Error
	if !errors.As(err, &e) || e.Line != 4 || e.Column != 12 || e.Msg != "bad conversion" {
		t.Fatalf("got %#v", err)
	}
	if err.Error() != "yaml-cpp: error at line 4, column 12: bad conversion" {
		t.Fatalf("got %q", err.Error())
	}
	// JSON: the position of the value, quotes included.
	in = "{\"version\": 1, \"resources\": [{\"type\": \"node\",\n   \"count\": \"x\"}], \"attributes\": {}, \"tasks\": []}"
	_, err = Parse([]byte(in), Options{})
	if err == nil || err.Error() != "yaml-cpp: error at line 2, column 13: bad conversion" {
		t.Fatalf("json: %v", err)
	}
	// Validation messages carry no position.
	_, err = Parse([]byte(count("{min: 0}")), Options{})
	if !errors.As(err, &e) || e.Line != 0 || e.Column != 0 {
		t.Fatalf("validation error has a position: %#v", err)
	}
}

func TestParseValid(t *testing.T) {
	in := `version: 9999
resources:
  - type: cluster
    count: 1
    with:
      - type: node
        count: {min: 2, max: 8, operator: "+", operand: 2}
        exclusive: true
        unit: ""
        id: n
        with:
          - type: slot
            count: 1
            label: default
            with:
              - type: core
                count: {min: 3}
              - type: memory
                count: "4"
                unit: GB
                exclusive: false
attributes:
  user: {anything: [1, 2]}
  system:
    duration: 0.5
    queue: debug
    cwd: /tmp
    environment: {A: b}
    other: [ignored]
    constraints:
      and:
        - properties: ["foo", "^bar"]
        - or:
          - hostlist: ["node[0-3]", "login"]
          - ranks: ["7-9"]
tasks:
  - command: [ "app", "--flag" ]
    slot: default
    count:
      per_slot: 1
    distribution: cyclic
    attributes: {}
`
	js, err := Parse([]byte(in), Options{KnownType: knownTypes})
	if err != nil {
		t.Fatal(err)
	}
	if js.Version != 9999 || js.Duration != 0.5 || js.Queue != "debug" || js.Constraint == nil {
		t.Fatalf("top: %+v", js)
	}
	if len(js.Resources) != 1 {
		t.Fatalf("resources: %+v", js.Resources)
	}
	cl := js.Resources[0]
	if cl.Type != "cluster" || cl.Count != Fixed(1) || cl.Exclusive != ExclusiveUnspecified || len(cl.With) != 1 {
		t.Fatalf("cluster: %+v", cl)
	}
	node := cl.With[0]
	if node.Type != "node" || node.Count != (Count{2, 8, '+', 2}) || node.Exclusive != ExclusiveTrue || node.ID != "n" || node.Unit != "" {
		t.Fatalf("node: %+v", node)
	}
	slot := node.With[0]
	if slot.Type != "slot" || slot.Label != "default" || len(slot.With) != 2 {
		t.Fatalf("slot: %+v", slot)
	}
	if c := slot.With[0]; c.Count != (Count{3, Unbounded, '+', 1}) {
		t.Fatalf("core: %+v", c)
	}
	if m := slot.With[1]; m.Count != Fixed(4) || m.Unit != "GB" || m.Exclusive != ExclusiveFalse {
		t.Fatalf("memory: %+v", m)
	}
	if len(js.Tasks) != 1 {
		t.Fatal("tasks")
	}
	task := js.Tasks[0]
	if !slices.Equal(task.Command, []string{"app", "--flag"}) || task.Slot != "default" ||
		task.Count["per_slot"] != "1" || len(task.Count) != 1 || task.Distribution != "cyclic" {
		t.Fatalf("task: %+v", task)
	}
	c := js.Constraint
	if c.Op != OpAnd || len(c.Args) != 2 || c.Args[0].Op != OpProperties ||
		!slices.Equal(c.Args[0].Values, []string{"foo", "^bar"}) || c.Args[1].Op != OpOr {
		t.Fatalf("constraint: %+v", c)
	}
	foo := func(k string) bool { return k == "foo" }
	if !c.Match("node2", 0, foo) || !c.Match("x", 8, foo) || c.Match("x", 3, foo) ||
		c.Match("node2", 0, func(k string) bool { return true }) || c.Match("node2", 0, nil) {
		t.Fatal("constraint match")
	}
}

func TestParseValidVariants(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		check func(*Jobspec) bool
	}{
		{"empty resources (EC5: traverser error, not parse)", res("[]"), func(j *Jobspec) bool { return len(j.Resources) == 0 }},
		{"negative duration", attrs("{system: {duration: -5}}"), func(j *Jobspec) bool { return j.Duration == -5 }},
		{"huge duration", attrs("{system: {duration: 3153600001}}"), func(j *Jobspec) bool { return j.Duration == 3153600001 }},
		{"duration 0", attrs("{system: {duration: 0}}"), func(j *Jobspec) bool { return j.Duration == 0 }},
		{"duration exponent", attrs("{system: {duration: 1.5e3}}"), func(j *Jobspec) bool { return j.Duration == 1500 }},
		{"duration quoted", attrs(`{system: {duration: "60"}}`), func(j *Jobspec) bool { return j.Duration == 60 }},
		{"duration .inf", attrs("{system: {duration: .inf}}"), func(j *Jobspec) bool { return math.IsInf(j.Duration, 1) }},
		{"duration .nan", attrs("{system: {duration: .nan}}"), func(j *Jobspec) bool { return math.IsNaN(j.Duration) }},
		{"attributes null", attrs("~"), func(j *Jobspec) bool { return j.Duration == 0 && j.Constraint == nil }},
		{"attributes empty", attrs("{}"), func(j *Jobspec) bool { return j.Duration == 0 }},
		{"system null", attrs("{system: }"), func(j *Jobspec) bool { return j.Duration == 0 }},
		{"user only", attrs("{user: 5}"), func(j *Jobspec) bool { return true }},
		{"queue null reads as null", attrs("{system: {queue: }}"), func(j *Jobspec) bool { return j.Queue == "null" }},
		{"count zero", count("0"), func(j *Jobspec) bool { return j.Resources[0].Count == Fixed(0) }},
		{"count hex", count("0x10"), func(j *Jobspec) bool { return j.Resources[0].Count == Fixed(16) }},
		{"count octal", count("010"), func(j *Jobspec) bool { return j.Resources[0].Count == Fixed(8) }},
		{"count plus sign", count("+3"), func(j *Jobspec) bool { return j.Resources[0].Count == Fixed(3) }},
		{"count quoted trailing space", count(`"3 "`), func(j *Jobspec) bool { return j.Resources[0].Count == Fixed(3) }},
		{"count max uint32", count("4294967295"), func(j *Jobspec) bool { return j.Resources[0].Count == Fixed(math.MaxUint32) }},
		{"count times", count(`{min: 2, max: 17, operator: "*", operand: 3}`), func(j *Jobspec) bool {
			return j.Resources[0].Count == Count{2, 17, '*', 3}
		}},
		{"count pow", count(`{min: 2, max: 100, operator: ^, operand: 2}`), func(j *Jobspec) bool {
			return j.Resources[0].Count == Count{2, 100, '^', 2}
		}},
		{"count extra keys ignored", count(`{min: 2, foo: bar}`), func(j *Jobspec) bool {
			return j.Resources[0].Count == Count{2, Unbounded, '+', 1}
		}},
		{"version quoted", doc(`"1"`, "", "", ""), func(j *Jobspec) bool { return j.Version == 1 }},
		{"slot with empty label", res(`[{type: slot, count: 1, label: ""}]`), func(j *Jobspec) bool { return j.Resources[0].Label == "" }},
		{"exclusive quoted", res(`[{type: node, count: 1, exclusive: "true"}]`), func(j *Jobspec) bool { return j.Resources[0].Exclusive == ExclusiveTrue }},
		{"numeric type", res(`[{type: 5, count: 1}]`), func(j *Jobspec) bool { return j.Resources[0].Type == "5" }},
		{"tasks empty", tasks("[]"), func(j *Jobspec) bool { return len(j.Tasks) == 0 }},
		{"task without count", tasks("[{command: [a, ~], slot: s, foo: 1}]"), func(j *Jobspec) bool {
			return j.Tasks[0].Count == nil && slices.Equal(j.Tasks[0].Command, []string{"a", "null"})
		}},
		{"empty constraint", cons("{}"), func(j *Jobspec) bool { return j.Constraint != nil && j.Constraint.Op == OpAll }},
		{"block scalar property", "version: 1\nresources: []\ntasks: []\nattributes:\n  system:\n    constraints:\n      properties:\n        - |-\n          foo\n",
			func(j *Jobspec) bool { return j.Constraint.Values[0] == "foo" }},
		{"single quoted property", cons(`{properties: ['^foo']}`), func(j *Jobspec) bool { return j.Constraint.Values[0] == "^foo" }},
		{"lone caret property", cons(`{properties: ["^"]}`), func(j *Jobspec) bool { return j.Constraint.Values[0] == "^" }},
		{"multiple documents: first counts", doc("", "", "", "") + "---\nthis: [is not parsed\n", func(j *Jobspec) bool { return j.Version == 1 }},
		{"aliases", "version: 1\nresources: [&n {type: node, count: &c 2}, *n, {type: core, count: *c}]\nattributes: ~\ntasks: []\n",
			func(j *Jobspec) bool {
				return len(j.Resources) == 3 && j.Resources[2].Count == Fixed(2) && j.Resources[1].Type == "node"
			}},
		{"comments and document markers", "---\n# c\nversion: 1 # v\nresources: [] # r\nattributes:\ntasks: []\n...\n", func(j *Jobspec) bool { return true }},
		{"JSON", `{"version": 1, "resources": [{"type": "node", "count": {"min": 1, "max": 4, "operator": "+", "operand": 1}, "exclusive": true}],
		  "attributes": {"system": {"duration": 60, "constraints": {"not": [{"properties": ["down"]}]}}},
		  "tasks": [{"command": ["x"], "slot": "s", "count": {"total": 1}}]}`, func(j *Jobspec) bool {
			return j.Resources[0].Count == Count{1, 4, '+', 1} && j.Duration == 60 && j.Constraint.Op == OpNot && j.Tasks[0].Count["total"] == "1"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			js, err := Parse([]byte(tc.in), Options{})
			if err != nil {
				t.Fatalf("Parse: %v\ninput:\n%s", err, tc.in)
			}
			if !tc.check(js) {
				t.Fatalf("unexpected result %+v", js)
			}
		})
	}
}

func TestHostileInput(t *testing.T) {
	// Recursive alias: the resource contains itself.
	cyc := "version: 1\nresources: &r\n  - type: node\n    count: 1\n    with: *r\nattributes: ~\ntasks: []\n"
	if _, err := Parse([]byte(cyc), Options{}); err == nil {
		t.Error("cyclic resources accepted")
	}
	cycC := "version: 1\nresources: []\ntasks: []\nattributes:\n  system:\n    constraints: &c\n      and: [*c]\n"
	if _, err := Parse([]byte(cycC), Options{}); err == nil {
		t.Error("cyclic constraint accepted")
	}
	// Billion laughs style constraint.
	var b strings.Builder
	b.WriteString("version: 1\nresources: []\ntasks: []\nattributes:\n  system:\n    x0: &a0 {properties: [\"p\"]}\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("    x" + itoa(i) + ": &a" + itoa(i) + " {and: [*a" + itoa(i-1) + ", *a" + itoa(i-1) + "]}\n")
	}
	b.WriteString("    constraints: *a40\n")
	if _, err := Parse([]byte(b.String()), Options{}); err == nil || err.Error() != "jobspec is too large" {
		t.Errorf("exponential constraint: %v", err)
	}
	// Deep nesting without aliases.
	deep := "version: 1\nresources: []\ntasks: []\nattributes: {system: {constraints: " +
		strings.Repeat("{not: [", 3000) + strings.Repeat("]}", 3000) + "}}\n"
	if _, err := Parse([]byte(deep), Options{}); err != nil {
		t.Errorf("3000-deep constraint: %v", err)
	}
	// Huge numbers.
	if _, err := Parse([]byte(count("99999999999999999999999999999999")), Options{}); err == nil {
		t.Error("huge count accepted")
	}
	// Not UTF-8.
	if _, err := Parse([]byte("version: \xff\xfe\n"), Options{}); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestCorpus parses every jobspec of the shared conformance corpora (when
// present): nothing may panic, every error must be an *Error, and most
// files must parse.
func TestCorpus(t *testing.T) {
	var files []string
	for _, pat := range []string{
		"../../shared/conformance/data/resource/jobspecs/*/*.yaml",
		"../../shared/conformance/data/resource/jobspecs/*/*.json",
		"../../shared/conformance/data/resource/jobspecs/*/*/*.yaml",
		"../../shared/conformance/data/resource/jobspecs/*/*/*.json",
		"../../shared/conformance-random/data/random/*/js*.yaml",
	} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("shared conformance corpora not present")
	}
	ok := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(data, Options{})
		if err == nil {
			ok++
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %T is not *Error", f, err)
		}
	}
	t.Logf("%d of %d files parse", ok, len(files))
	if ok < len(files)*9/10 {
		t.Errorf("only %d of %d files parse", ok, len(files))
	}
}
