package jobspec

import (
	"errors"
	"strings"
	"testing"
)

// block is a jobspec in block style, for readable line and column numbers.
const block = `version: 1
resources:
  - type: node
    count: 1
    with:
      - type: socket
        count: 1
      - type: core
        count: %COUNT%
attributes:
  system:
    duration: %DURATION%
tasks:
  - command: [app]
    slot: default
    count:
      per_slot: 1
`

func blockWith(count, duration string) string {
	return strings.NewReplacer("%COUNT%", count, "%DURATION%", duration).Replace(block)
}

func TestErrorLocation(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		msg    string // Error(), unchanged by the location
		path   string
		at     Position
		detail string
	}{
		{
			name: "validation error in a nested count",
			in:   blockWith("{min: 0}", "60"),
			msg:  `"min" must be greater than zero`,
			path: "resources[0].with[1].count.min", at: Position{9, 22},
			detail: `line 9, column 22 (resources[0].with[1].count.min): "min" must be greater than zero`,
		},
		{
			name: "max below min points at max",
			in:   blockWith(`{min: 3, max: 2, operator: "+", operand: 1}`, "60"),
			msg:  `"max" must be greater than or equal to "min"`,
			path: "resources[0].with[1].count.max", at: Position{9, 30},
		},
		{
			name: "invalid operator points at the operator",
			in:   blockWith(`{min: 1, max: 2, operator: "/", operand: 1}`, "60"),
			msg:  "Invalid count operator",
			path: "resources[0].with[1].count.operator", at: Position{9, 43},
		},
		{
			name: "all or none points at the count",
			in:   blockWith(`{min: 1, max: 2}`, "60"),
			msg:  `All or none of "max", "operator", and "operand" must be specified`,
			path: "resources[0].with[1].count", at: Position{9, 16},
		},
		{
			name: "conversion error: At is yaml-cpp's position",
			in:   blockWith("-2", "60"),
			msg:  "yaml-cpp: error at line 9, column 16: bad conversion",
			path: "resources[0].with[1].count", at: Position{9, 16},
			detail: "line 9, column 16 (resources[0].with[1].count): bad conversion",
		},
		{
			name: "duration conversion",
			in:   blockWith("1", "soon"),
			msg:  "yaml-cpp: error at line 12, column 15: bad conversion",
			path: "attributes.system.duration", at: Position{12, 15},
		},
		{
			name: "missing key: the resource mapping",
			in:   res("[{type: node, count: 1, with: [{type: core}]}]"),
			msg:  `Key "count" missing from resource`,
			path: "resources[0].with[0]", at: Position{2, 43},
		},
		{
			name: "unrecognized key: the key",
			in:   res("[{type: node, count: 1, bogus: 1}]"),
			msg:  "Unrecognized key in resource mapping",
			path: "resources[0].bogus", at: Position{2, 36},
		},
		{
			name: "unrecognized key that is not a word",
			in:   res(`[{type: node, count: 1, "a.b": 1}]`),
			msg:  "Unrecognized key in resource mapping",
			path: `resources[0]["a.b"]`, at: Position{2, 36},
		},
		{
			name: "unrecognized non-scalar key: no key in the path",
			in:   res("[{type: node, count: 1, [a]: 1}]"),
			msg:  "Unrecognized key in resource mapping",
			path: "resources[0]", at: Position{2, 36},
		},
		{
			name: "with is named with",
			in:   res("[{type: node, count: 1, with: {type: core}}]"),
			msg:  `"resources" is not a sequence`,
			path: "resources[0].with", at: Position{2, 42},
		},
		{
			name: "unknown type",
			in:   res("[{type: node, count: 1}, {type: bogus, count: 1}]"),
			msg:  `Value of "type" must be a resource type known to fluxion`,
			path: "resources[1].type", at: Position{2, 44},
		},
		{
			name: "unlabeled slot: the slot",
			in:   res("[{type: slot, count: 1}]"),
			msg:  "All slots must be labeled",
			path: "resources[0]", at: Position{2, 13},
		},
		{
			name: "exclusive",
			in:   res("[{type: node, count: 1, exclusive: yes}]"),
			msg:  `Value of "exclusive" must be either "true" or "false"`,
			path: "resources[0].exclusive", at: Position{2, 47},
		},
		{
			name: "version range",
			in:   doc("0", "", "", ""),
			msg:  `Only jobspec "version" 1-9999 is supported`,
			path: "version", at: Position{1, 10},
			detail: `line 1, column 10 (version): Only jobspec "version" 1-9999 is supported`,
		},
		{
			name: "a fifth top-level key",
			in:   doc("", "", "", "") + "queue: debug\n",
			msg:  "Top mapping in jobspec must have exactly four entries",
			path: "queue", at: Position{5, 1},
		},
		{
			name: "a repeated top-level key",
			in:   doc("", "", "", "") + "version: 2\n",
			msg:  "Top mapping in jobspec must have exactly four entries",
			path: "version", at: Position{5, 1},
		},
		{
			name: "missing top-level key: the top mapping",
			in:   "version: 1\nresources: []\nattributes: {}\n",
			msg:  `Missing key "tasks" in top level mapping`,
			path: "", at: Position{1, 1},
			detail: `line 1, column 1: Missing key "tasks" in top level mapping`,
		},
		{
			name: "unknown attribute",
			in:   attrs("{system: {}, foo: 1}"),
			msg:  `Unknown key in "attributes"`,
			path: "attributes.foo", at: Position{3, 26},
		},
		{
			name: "nested constraint",
			in:   cons(`{and: [{ranks: ["0"]}, {not: [{properties: ["ok", bad]}]}]}`),
			msg:  "non-string property specified",
			path: "attributes.system.constraints.and[1].not[0].properties[1]", at: Position{3, 86},
		},
		{
			name: "unknown constraint operator: the operator",
			in:   cons(`{foo: []}`),
			msg:  "unknown constraint operator: foo",
			path: "attributes.system.constraints.foo", at: Position{3, 37},
		},
		{
			name: "constraint value not an array",
			in:   cons(`{hostlist: "node0"}`),
			msg:  "hostlist operator value must be an array",
			path: "attributes.system.constraints.hostlist", at: Position{3, 47},
		},
		{
			name: "invalid idset",
			in:   cons(`{ranks: ["0", "5-1"]}`),
			msg:  "Invalid idset `5-1'",
			path: "attributes.system.constraints.ranks[1]", at: Position{3, 50},
		},
		{
			name: "task command element",
			in:   tasks("[{command: [app, {a: 1}], slot: default}]"),
			msg:  "yaml-cpp: error at line 4, column 25: bad conversion",
			path: "tasks[0].command[1]", at: Position{4, 25},
		},
		{
			name: "missing slot: the task",
			in:   tasks("[{command: [app], count: {per_slot: 1}}, {command: [app]}]"),
			msg:  `Key "slot" missing from task`,
			path: "tasks[0]", at: Position{4, 9},
		},
		{
			name: "task count value",
			in:   tasks("[{command: [app], slot: s, count: {per_slot: [1]}}]"),
			msg:  "yaml-cpp: error at line 4, column 53: bad conversion",
			path: "tasks[0].count.per_slot", at: Position{4, 53},
		},
		{
			name: "alias in a count: the anchored node, from its anchor",
			in:   "version: 1\nresources: [{type: core, count: 1, id: &zero 0}, {type: node, count: {min: *zero}}]\nattributes: {}\ntasks: []\n",
			msg:  `"min" must be greater than zero`,
			path: "resources[1].count.min", at: Position{2, 40},
		},
		{
			name: "JSON",
			in:   "{\"version\": 1, \"resources\": [{\"type\": \"node\",\n   \"count\": {\"min\": 0}}], \"attributes\": {}, \"tasks\": []}",
			msg:  `"min" must be greater than zero`,
			path: "resources[0].count.min", at: Position{2, 21},
		},
		{
			name: "YAML syntax error: line only",
			in:   "version: 1\nresources: [\n",
			msg:  "yaml-cpp: error at line 2, column 1: did not find expected node content",
			path: "", at: Position{2, 0},
			detail: "line 2: did not find expected node content",
		},
		{
			name: "empty document: no node",
			in:   "",
			msg:  "Top level of jobspec is not a mapping",
			path: "", at: Position{},
			detail: "Top level of jobspec is not a mapping",
		},
		{
			name: "size limit: no location",
			in:   "version: 1\nresources: &r\n  - type: node\n    count: 1\n    with: *r\nattributes: ~\ntasks: []\n",
			msg:  "jobspec is nested too deeply",
			path: "", at: Position{},
			detail: "jobspec is nested too deeply",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in), Options{KnownType: knownTypes})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse error %v (%T), want an *Error\ninput:\n%s", err, err, tc.in)
			}
			if got := e.Error(); got != tc.msg {
				t.Errorf("Error() = %q, want %q", got, tc.msg)
			}
			if e.Path != tc.path || e.At != tc.at {
				t.Errorf("location %q at %+v, want %q at %+v\ninput:\n%s", e.Path, e.At, tc.path, tc.at, tc.in)
			}
			if tc.detail != "" && e.Detail() != tc.detail {
				t.Errorf("Detail() = %q, want %q", e.Detail(), tc.detail)
			}
		})
	}
}

func TestConstraintErrorLocation(t *testing.T) {
	_, err := ParseConstraint([]byte(`{"and": [{"ranks": ["0"]}, {"hostlist": ["node[3-1]"]}]}`))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v", err)
	}
	want := "line 1, column 42 (and[1].hostlist[0]): Invalid hostlist `node[3-1]'"
	if e.Error() != "Invalid hostlist `node[3-1]'" || e.Detail() != want {
		t.Errorf("Error() %q, Detail() %q; want Detail %q", e.Error(), e.Detail(), want)
	}
}

// TestErrorLocationAll checks every case of the error table: a location
// never changes Error(), conversion errors are located where yaml-cpp says,
// and Detail always ends with the message.
func TestErrorLocationAll(t *testing.T) {
	for _, tc := range errCases {
		_, err := Parse([]byte(tc.in), Options{KnownType: knownTypes})
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := e.Error(); got != expand(tc.want, tc.in) {
			t.Errorf("%s: Error() = %q", tc.name, got)
		}
		if e.Msg == "bad conversion" && e.At != (Position{e.Line, e.Column}) {
			t.Errorf("%s: bad conversion at %+v, yaml-cpp says line %d, column %d", tc.name, e.At, e.Line, e.Column)
		}
		if e.At.Line == 0 && tc.in != "" && !strings.HasPrefix(tc.in, "#") {
			t.Errorf("%s: no position (%q)", tc.name, e.Detail())
		}
		if !strings.HasSuffix(e.Detail(), e.Msg) {
			t.Errorf("%s: Detail() %q does not end with %q", tc.name, e.Detail(), e.Msg)
		}
	}
}

func TestDetail(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Msg: "m"}, "m"},
		{Error{Msg: "m", Path: "resources[0]"}, "resources[0]: m"},
		{Error{Msg: "m", At: Position{3, 0}}, "line 3: m"},
		{Error{Msg: "m", At: Position{3, 4}}, "line 3, column 4: m"},
		{Error{Msg: "m", At: Position{3, 4}, Path: "tasks[1].slot"}, "line 3, column 4 (tasks[1].slot): m"},
		{Error{Line: 3, Column: 4, Msg: "bad conversion", At: Position{3, 4}, Path: "version"}, "line 3, column 4 (version): bad conversion"},
	}
	for _, tc := range tests {
		if got := tc.e.Detail(); got != tc.want {
			t.Errorf("%+v: Detail() = %q, want %q", tc.e, got, tc.want)
		}
	}
	if got := (Position{}).String(); got != "" {
		t.Errorf("zero Position = %q", got)
	}
}
