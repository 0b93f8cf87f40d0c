package jobspec

import (
	"math"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCalc(t *testing.T) {
	const U = math.MaxUint32
	tests := []struct {
		c    Count
		q    uint32
		want uint32
	}{
		// EC2 of examples.md: 18 free cores.
		{Count{2, 7, '+', 2}, 18, 6},
		{Count{2, 17, '*', 3}, 18, 6},
		{Count{2, 100, '^', 2}, 18, 16},
		// plain counts
		{Fixed(1), 18, 1},
		{Fixed(5), 5, 5},
		{Fixed(5), 4, 0},
		{Fixed(0), 0, 0},
		{Fixed(0), 3, 0},
		// '+'
		{Count{1, U, '+', 1}, 18, 18},
		{Count{3, U, '+', 1}, 2, 0},
		{Count{2, 10, '+', 3}, 10, 8},
		{Count{2, 10, '+', 3}, 7, 5},
		{Count{2, 10, '+', 3}, 4, 2},
		{Count{2, 10, '+', 100}, 10, 2},
		{Count{4, 3, '+', 1}, 10, 0}, // min > max
		{Count{2, 10, '+', 0}, 10, 10},
		{Count{2, 10, '+', -4}, 7, 7},
		// '*'
		{Count{1, 100, '*', 2}, 100, 64},
		{Count{3, 100, '*', 2}, 50, 48},
		{Count{3, 100, '*', 2}, 47, 24},
		{Count{3, 100, '*', 2}, 3, 3},
		{Count{3, 100, '*', 1}, 50, 3},
		{Count{3, 100, '*', 0}, 50, 3},
		{Count{0, 100, '*', 2}, 50, 0},
		{Count{2, U, '*', 2}, U, 1 << 31},
		{Count{3, U, '*', 3}, U, 3486784401}, // 3^20; 3^21 overflows uint32
		{Count{1, U, '*', math.MaxInt32}, U, math.MaxInt32},
		// '^'
		{Count{2, 100, '^', 2}, 255, 16},
		{Count{2, 100, '^', 2}, 256, 16},
		{Count{2, 1000, '^', 2}, 256, 256},
		{Count{2, 1000, '^', 3}, 1000, 512}, // 2, 8, 512
		{Count{3, 1000, '^', 2}, 1000, 81},  // 3, 9, 81, 6561
		{Count{1, 1000, '^', 2}, 1000, 1},
		{Count{5, 1000, '^', 1}, 1000, 5},
		{Count{0, 1000, '^', 2}, 1000, 0},
		{Count{2, U, '^', 2}, U, 65536}, // 65536^2 = 2^32 does not fit
		{Count{2, U, '^', math.MaxInt32}, U, 2},
		// unknown operator
		{Count{1, 10, '/', 2}, 10, 0},
		{Count{1, 10, 0, 0}, 10, 0},
	}
	for _, tc := range tests {
		if got := tc.c.Calc(tc.q); got != tc.want {
			t.Errorf("%v.Calc(%d) = %d, want %d", tc.c, tc.q, got, tc.want)
		}
	}
}

func TestEffectiveMax(t *testing.T) {
	tests := []struct {
		c    Count
		want uint32
	}{
		{Fixed(1), 1},
		{Fixed(36), 36},
		{Count{1, Unbounded, '+', 1}, Unbounded},
		{Count{2, 7, '+', 2}, 6},
		{Count{2, 8, '+', 2}, 8},
		{Count{2, 17, '*', 3}, 6},
		{Count{2, 100, '^', 2}, 16},
		{Count{2, Unbounded, '+', 2}, Unbounded - 1},
		{Count{3, 2, '+', 1}, 0},
		{Count{1, 10, '%', 1}, 0},
	}
	for _, tc := range tests {
		if got := tc.c.EffectiveMax(); got != tc.want {
			t.Errorf("%v.EffectiveMax() = %d, want %d", tc.c, got, tc.want)
		}
	}
}

func TestCountString(t *testing.T) {
	if s := Fixed(4).String(); s != "4" {
		t.Errorf("Fixed(4) = %q", s)
	}
	if s := (Count{2, 7, '+', 2}).String(); s != "{2,7,+,2}" {
		t.Errorf("got %q", s)
	}
}

// FuzzCalc checks the documented invariants of Calc on arbitrary counts.
func FuzzCalc(f *testing.F) {
	f.Add(uint32(2), uint32(7), byte('+'), int64(2), uint32(18))
	f.Add(uint32(2), uint32(17), byte('*'), int64(3), uint32(18))
	f.Add(uint32(2), uint32(100), byte('^'), int64(2), uint32(18))
	f.Add(uint32(2), uint32(math.MaxUint32), byte('^'), int64(2), uint32(math.MaxUint32))
	f.Fuzz(func(t *testing.T, lo, hi uint32, op byte, operand int64, q uint32) {
		c := Count{lo, hi, op, operand}
		got := c.Calc(q)
		if got == 0 {
			return
		}
		if got < lo || got > hi || got > q {
			t.Fatalf("%v.Calc(%d) = %d out of [min, min(max, q)]", c, q, got)
		}
		if op == '+' && operand > 1 && (uint64(got)-uint64(lo))%uint64(operand) != 0 {
			t.Fatalf("%v.Calc(%d) = %d is not min + k·operand", c, q, got)
		}
		if c.EffectiveMax() < got {
			t.Fatalf("%v: EffectiveMax %d < Calc(%d) = %d", c, c.EffectiveMax(), q, got)
		}
	})
}

func TestScalarConversions(t *testing.T) {
	u := func(s string) *yamlScalar { return &yamlScalar{s} }
	for _, tc := range []struct {
		in   *yamlScalar
		want uint32
		ok   bool
	}{
		{u("0"), 0, true}, {u("0xfF"), 255, true}, {u("0XA"), 10, true}, {u("017"), 15, true},
		{u("+7"), 7, true}, {u("7 \t"), 7, true}, {u("4294967295"), math.MaxUint32, true},
		{u("08"), 0, false}, {u("0x"), 0, false}, {u("0xg"), 0, false}, {u(" 7"), 0, false},
		{u("-0"), 0, false}, {u("+-1"), 0, false}, {u("1e3"), 0, false}, {u(""), 0, false},
		{u("0x100000000"), 0, false}, {u("99999999999999999999999"), 0, false},
	} {
		got, err := asUint32(tc.in.node())
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("asUint32(%q) = %d, %v", tc.in.s, got, err)
		}
	}
	for _, tc := range []struct {
		in   string
		want int32
		ok   bool
	}{
		{"-2147483648", math.MinInt32, true}, {"2147483647", math.MaxInt32, true}, {"-0x10", -16, true},
		{"2147483648", 0, false}, {"-2147483649", 0, false}, {"--1", 0, false},
	} {
		got, err := asInt32(u(tc.in).node())
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("asInt32(%q) = %d, %v", tc.in, got, err)
		}
	}
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-2.5", -2.5, true}, {".5", 0.5, true}, {"5.", 5, true}, {"+1e2", 100, true},
		{"1E-2", 0.01, true}, {"1e-400", 0, true}, {"2 ", 2, true},
		{"inf", 0, false}, {"nan", 0, false}, {"0x10", 0, false}, {".", 0, false}, {"1e+", 0, false},
		{"1.2.3", 0, false}, {"", 0, false}, {"-.inf", math.Inf(-1), true}, {"+.Inf", math.Inf(1), true},
	} {
		got, err := asFloat(u(tc.in).node())
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("asFloat(%q) = %v, %v", tc.in, got, err)
		}
	}
	for in, ok := range map[string]bool{"+": true, "* ": true, "": false, " +": false, "++": false} {
		if _, err := asChar(u(in).node()); (err == nil) != ok {
			t.Errorf("asChar(%q): %v", in, err)
		}
	}
}

// yamlScalar makes a quoted scalar node (quoted so that "" is not null).
type yamlScalar struct{ s string }

func (y *yamlScalar) node() *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: y.s, Line: 1, Column: 1}
}

func TestExclusiveString(t *testing.T) {
	if ExclusiveTrue.String() != "true" || ExclusiveFalse.String() != "false" || ExclusiveUnspecified.String() != "unspecified" {
		t.Error("Exclusive.String")
	}
}
