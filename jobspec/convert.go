package jobspec

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file mimics yaml-cpp's scalar model and its as<T>() conversions,
// which decide the accepted spellings of numbers in a jobspec.
//
// yaml-cpp converts the scalar's text (quoted or not: `count: "3"` is 3)
// with a std::stringstream whose base field is cleared, so integers accept
// an optional sign and C-style prefixes ("0x1f" hex, "017" octal); leading
// whitespace is rejected, trailing whitespace accepted; unsigned targets
// reject a leading '-'; out of range values fail. Floating point values
// accept decimal notation plus YAML's .inf/.nan spellings. A failed
// conversion is "bad conversion" at the scalar's position.

// resolve follows aliases to the anchored node.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// isNull reports whether n is a YAML null in yaml-cpp's sense: an untagged
// plain scalar spelled "", "~", "null", "Null" or "NULL".
func isNull(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false
	}
	if n.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false
	}
	switch n.Value {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

func isScalar(n *yaml.Node) bool { return n != nil && n.Kind == yaml.ScalarNode && !isNull(n) }
func isMap(n *yaml.Node) bool    { return n != nil && n.Kind == yaml.MappingNode }
func isSeq(n *yaml.Node) bool    { return n != nil && n.Kind == yaml.SequenceNode }

// isQuoted reports whether n is a non-plain untagged string scalar (quoted
// or block scalar), i.e. a scalar yaml-cpp tags "!".
func isQuoted(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Style&yaml.TaggedStyle == 0 &&
		n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// keyString returns the text of a mapping key and whether it is a (non
// null) scalar.
func keyString(k *yaml.Node) (string, bool) {
	k = resolve(k)
	if !isScalar(k) {
		return "", false
	}
	return k.Value, true
}

// lookup returns the (alias-resolved) value of the first entry of mapping m
// whose key is the scalar key, or nil.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k, ok := keyString(m.Content[i]); ok && k == key {
			v := resolve(m.Content[i+1])
			if v == nil { // unresolvable alias: treat as null
				return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: m.Content[i+1].Line, Column: m.Content[i+1].Column}
			}
			return v
		}
	}
	return nil
}

// size is the number of entries of a mapping (duplicates included).
func size(m *yaml.Node) int { return len(m.Content) / 2 }

func badConversion(n *yaml.Node) *Error {
	line, col := 1, 1
	if n != nil && n.Line > 0 {
		line, col = n.Line, max(n.Column, 1)
	}
	return &Error{Line: line, Column: col, Msg: "bad conversion", At: posOf(n)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// onlySpace reports whether s holds only C whitespace.
func onlySpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			return false
		}
	}
	return true
}

// parseCInt parses s as `stream >> integer` with automatic base detection.
// It returns the magnitude, the sign and whether the syntax was valid.
func parseCInt(s string) (mag uint64, neg, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	base := uint64(10)
	switch {
	case i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X'):
		base = 16
		i += 2
	case i < len(s) && s[i] == '0':
		base = 8
	}
	start := i
	for ; i < len(s); i++ {
		d, valid := digit(s[i], base)
		if !valid {
			break
		}
		if mag > (math.MaxUint64-d)/base {
			return 0, neg, false // overflow
		}
		mag = mag*base + d
	}
	if i == start || !onlySpace(s[i:]) {
		return 0, neg, false
	}
	return mag, neg, true
}

func digit(c byte, base uint64) (uint64, bool) {
	var d uint64
	switch {
	case c >= '0' && c <= '9':
		d = uint64(c - '0')
	case c >= 'a' && c <= 'f':
		d = uint64(c-'a') + 10
	case c >= 'A' && c <= 'F':
		d = uint64(c-'A') + 10
	default:
		return 0, false
	}
	return d, d < base
}

// asUint32 is yaml-cpp's as<unsigned>().
func asUint32(n *yaml.Node) (uint32, *Error) {
	if !isScalar(n) || strings.HasPrefix(n.Value, "-") {
		return 0, badConversion(n)
	}
	mag, _, ok := parseCInt(n.Value)
	if !ok || mag > math.MaxUint32 {
		return 0, badConversion(n)
	}
	return uint32(mag), nil
}

// asInt32 is yaml-cpp's as<int>().
func asInt32(n *yaml.Node) (int32, *Error) {
	if !isScalar(n) {
		return 0, badConversion(n)
	}
	mag, neg, ok := parseCInt(n.Value)
	if !ok || (!neg && mag > math.MaxInt32) || (neg && mag > -math.MinInt32) {
		return 0, badConversion(n)
	}
	if neg {
		return int32(-int64(mag)), nil
	}
	return int32(mag), nil
}

// asChar is yaml-cpp's as<char>(): exactly one character, optionally
// followed by whitespace.
func asChar(n *yaml.Node) (byte, *Error) {
	if !isScalar(n) || n.Value == "" || !onlySpace(n.Value[1:]) {
		return 0, badConversion(n)
	}
	return n.Value[0], nil
}

// asFloat is yaml-cpp's as<double>().
func asFloat(n *yaml.Node) (float64, *Error) {
	if !isScalar(n) {
		return 0, badConversion(n)
	}
	s := n.Value
	if end := floatPrefix(s); end > 0 && onlySpace(s[end:]) {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil || !math.IsInf(v, 0) {
			return v, nil
		}
	}
	switch s {
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1), nil
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1), nil
	case ".nan", ".NaN", ".NAN":
		return math.NaN(), nil
	}
	return 0, badConversion(n)
}

// floatPrefix returns the length of the longest prefix of s of the form
// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?, or 0.
func floatPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			// "1e" or "1e+": the stream consumes these characters and then
			// fails; make the caller see trailing garbage.
			return 0
		}
	}
	return i
}

// asString is yaml-cpp's as<std::string>(): a scalar's text, "null" for a
// null node, bad conversion otherwise.
func asString(n *yaml.Node) (string, *Error) {
	switch {
	case isNull(n):
		return "null", nil
	case isScalar(n):
		return n.Value, nil
	}
	return "", badConversion(n)
}
