// Package jobspec parses and validates canonical jobspec V1 documents (Flux
// RFC 14) the way Fluxion's resource matcher does, with the exact rules,
// check order and error messages of the behavioural spec (jobspec.md).
//
// # Parsing
//
// Parse accepts YAML or JSON (JSON is YAML). Only the first YAML document
// of the input is read; what follows a "---" separator is ignored (except
// that a syntax error at the very start of the next document, such as a bad
// directive, may still be reported). The
// top level must be a mapping with exactly the keys version, resources,
// tasks and attributes. attributes is parsed first (unless null), then
// resources, then tasks; the first error found is returned as an *Error:
//
//   - validation errors read the spec's message verbatim, without a position,
//     e.g. `"min" must be greater than zero`;
//   - failed scalar conversions (a non-numeric or negative count, min or
//     max; a non-integer operand; a non-numeric version or duration; a
//     non-scalar where yaml-cpp reads a string) read
//     `yaml-cpp: error at line L, column C: bad conversion`, with the
//     1-based position of the offending scalar;
//   - YAML syntax errors read `yaml-cpp: error at line L, column 1: REASON`
//     where REASON is the YAML library's wording (the column is not known).
//
// Those messages are Fluxion's, kept byte for byte. Independently of them,
// every error about a node also says where that node is: Error.Path is its
// place in the jobspec tree ("resources[0].with[1].count.min") and Error.At
// its line and column, and Error.Detail combines them for people:
//
//	line 9, column 22 (resources[0].with[1].count.min): "min" must be greater than zero
//
// Scalars follow yaml-cpp's model, not YAML 1.2 typing: a number may be
// written quoted ("count: \"4\""), integers accept C-style hex and octal
// prefixes ("0x10", "010") and a leading '+', a plain "~", "null", "Null",
// "NULL" or empty value is null (not a scalar), and aliases stand for the
// node they refer to. Duplicate mapping keys are allowed; lookups use the
// first occurrence, entry counts include all of them.
//
// Options.KnownType lets the caller reject resource types unknown to its
// resource graph (`Value of "type" must be a resource type known to
// fluxion`).
//
// Inputs that use aliases to build cyclic or exponentially large trees are
// rejected ("jobspec is nested too deeply", "jobspec is too large"), so
// Parse terminates quickly on any input.
//
// # Building jobspecs in Go
//
// New, Res and Slot build a Jobspec without YAML (see ExampleNew), and
// YAML renders one as a document Parse reads back. Validate checks a
// jobspec built or modified in Go against Parse's rules (nil entries,
// empty types, zero counts, resources that contain themselves, bounded
// depth and size) and names the offending entry in Error.Path; the root
// package's Matcher calls it on every jobspec.
//
// # Counts
//
// A Count is either a plain "count: N" ({N, N, '+', 1}) or the mapping
// form {min, max, operator, operand}. Count.Calc computes how many of q
// available units a request takes (jobspec.md §2.2) and Count.EffectiveMax
// the most it could ever take.
//
// # Constraints
//
// attributes.system.constraints is parsed into a Constraint tree (RFC 31:
// properties, hostlist, ranks, and, or, not); Constraint.Match evaluates it
// against a vertex's name, rank and properties. ParseConstraint parses a
// standalone constraint object.
package jobspec
