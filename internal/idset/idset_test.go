package idset

import (
	"errors"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical encoding
		n    int64
	}{
		{"", "", 0},
		{"[]", "", 0},
		{"0", "0", 1},
		{"0-3", "0-3", 4},
		{"0-3,7,9-10", "0-3,7,9-10", 7},
		{"[0-3,7,9-10]", "0-3,7,9-10", 7},
		{"[5]", "5", 1},
		{"3,1,2", "1-3", 3},
		{"0-5,2-3", "0-5", 6},
		{"0-2,3-4", "0-4", 5},
		{"7,7,7", "7", 1},
		{"97,99", "97,99", 2},
		{"007", "7", 1},
		{"4-4", "4", 1},
		{"0-9223372036854775806", "0-9223372036854775806", 9223372036854775807},
	}
	for _, tc := range tests {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := s.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		if got := s.Len(); got != tc.n {
			t.Errorf("Parse(%q).Len() = %d, want %d", tc.in, got, tc.n)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, in := range []string{
		",", "1,", ",1", "1,,2", "3-1", "-1", "1-", "-", "a", "1a", "0x3",
		"+1", " 1", "1 ", "[1", "1]", "[", "[[1]]", "1-2-3", "1--2",
		"9223372036854775807", "99999999999999999999", "0-9223372036854775807",
		"[1,2]x", "1;2",
	} {
		s, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want error", in, s)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) error %v does not wrap ErrSyntax", in, err)
		}
	}
}

func TestContains(t *testing.T) {
	s, err := Parse("0-3,7,9-10")
	if err != nil {
		t.Fatal(err)
	}
	in := map[int64]bool{0: true, 1: true, 2: true, 3: true, 7: true, 9: true, 10: true}
	for id := int64(-2); id <= 12; id++ {
		if got := s.Contains(id); got != in[id] {
			t.Errorf("Contains(%d) = %v", id, got)
		}
	}
	var empty Set
	if empty.Contains(0) || empty.Len() != 0 || !empty.Empty() || empty.String() != "" {
		t.Error("zero Set is not empty")
	}
}

func TestValuesUnion(t *testing.T) {
	a, _ := Parse("0-2,8")
	b, _ := Parse("3,5-6,8-9")
	u := a.Union(b)
	if got, want := u.String(), "0-3,5-6,8-9"; got != want {
		t.Errorf("Union = %q, want %q", got, want)
	}
	if got, want := u.Values(), []int64{0, 1, 2, 3, 5, 6, 8, 9}; !slices.Equal(got, want) {
		t.Errorf("Values = %v, want %v", got, want)
	}
	if got := u.Ranges(); len(got) != 3 || got[1] != (Range{5, 6}) {
		t.Errorf("Ranges = %v", got)
	}
	// early stop of the iterator
	n := 0
	for range u.All() {
		n++
		if n == 2 {
			break
		}
	}
	if !a.Union(Set{}).Equal(a) {
		t.Error("a ∪ ∅ != a")
	}
	if got := FromRanges(Range{-5, 2}, Range{4, 3}, Range{3, 3}).String(); got != "0-3" {
		t.Errorf("FromRanges = %q", got)
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		in   []int64
		want string
	}{
		{nil, ""},
		{[]int64{0}, "0"},
		{[]int64{0, 1, 2, 3}, "0-3"},
		{[]int64{3, 4, 7}, "3-4,7"},
		{[]int64{97, 99}, "97,99"},
		{[]int64{7, 3, 4, 4, 3}, "3-4,7"},
		{[]int64{5, -1, 6}, "5-6"},
		{[]int64{1, 3, 5}, "1,3,5"},
	}
	for _, tc := range tests {
		if got := Encode(tc.in); got != tc.want {
			t.Errorf("Encode(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	var ids []int64
	for i := range int64(36) {
		ids = append(ids, i)
	}
	if got := Encode(ids); got != "0-35" {
		t.Errorf("Encode(0..35) = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "[]", "0-3,7,9-10", "[0-3]", "3,1", "1-", "5-4", "00-01", "9223372036854775806"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		enc := s.String()
		s2, err := Parse(enc)
		if err != nil {
			t.Fatalf("re-parse of %q (from %q): %v", enc, in, err)
		}
		if !s2.Equal(s) || s2.String() != enc {
			t.Fatalf("round trip %q -> %q -> %q", in, enc, s2.String())
		}
		if b, err := Parse("[" + enc + "]"); err != nil || !b.Equal(s) {
			t.Fatalf("bracketed %q: %v", enc, err)
		}
		if s.Len() <= 1000 {
			vals := s.Values()
			if int64(len(vals)) != s.Len() {
				t.Fatalf("len(Values) = %d, Len = %d", len(vals), s.Len())
			}
			if Encode(vals) != enc {
				t.Fatalf("Encode(Values) = %q, want %q", Encode(vals), enc)
			}
			for _, v := range vals {
				if !s.Contains(v) {
					t.Fatalf("Contains(%d) false", v)
				}
			}
		}
		for _, r := range s.Ranges() {
			if s.Contains(r.Lo-1) || s.Contains(r.Hi+1) {
				t.Fatalf("range %v of %q is not maximal", r, enc)
			}
		}
	})
}

// naive is the reference model of the set operations: the ids of small
// sets, as a map.
func naive(s Set) map[int64]bool {
	m := map[int64]bool{}
	for id := range s.All() {
		m[id] = true
	}
	return m
}

func TestSetOps(t *testing.T) {
	tests := []struct{ a, b, inter, diff string }{
		{"", "", "", ""},
		{"0-9", "", "", "0-9"},
		{"", "0-9", "", ""},
		{"0-9", "3-5", "3-5", "0-2,6-9"},
		{"3-5", "0-9", "3-5", ""},
		{"0-2,4-5", "0-5", "0-2,4-5", ""},
		{"0-5", "0-2,4-5", "0-2,4-5", "3"},
		{"0-9223372036854775805", "0-7", "0-7", "8-9223372036854775805"},
		{"0-9223372036854775806", "9223372036854775806", "9223372036854775806", "0-9223372036854775805"},
		{"1,3,5,7", "2-6", "3,5", "1,7"},
		{"0-3,10-13", "2-11", "2-3,10-11", "0-1,12-13"},
		{"5", "0-4,6-9", "", "5"},
	}
	for _, tc := range tests {
		a, _ := Parse(tc.a)
		b, _ := Parse(tc.b)
		if got := a.Intersect(b).String(); got != tc.inter {
			t.Errorf("%q ∩ %q = %q, want %q", tc.a, tc.b, got, tc.inter)
		}
		if got := a.Difference(b).String(); got != tc.diff {
			t.Errorf("%q - %q = %q, want %q", tc.a, tc.b, got, tc.diff)
		}
	}
	s, _ := Parse("4-6,9")
	if m, ok := s.Min(); !ok || m != 4 {
		t.Errorf("Min = %d, %v", m, ok)
	}
	if _, ok := (Set{}).Min(); ok {
		t.Error("Min of the empty set")
	}
}

func FuzzSetOps(f *testing.F) {
	f.Add("0-9", "3-5")
	f.Add("1,3,5,7", "2-6")
	f.Add("0-9223372036854775806", "0-7,100")
	f.Add("", "0")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, err := Parse(x)
		if err != nil {
			return
		}
		b, err := Parse(y)
		if err != nil {
			return
		}
		inter, diff := a.Intersect(b), a.Difference(b)
		// canonical form: the encoding re-parses to the same ranges
		for _, s := range []Set{inter, diff} {
			if p, err := Parse(s.String()); err != nil || !p.Equal(s) {
				t.Fatalf("%q, %q: result %q is not canonical", x, y, s.String())
			}
		}
		if inter.Len()+diff.Len() != a.Len() || !inter.Union(diff).Equal(a) {
			t.Fatalf("%q, %q: ∩ %q and - %q do not partition a", x, y, inter, diff)
		}
		if a.Len() > 2000 || b.Len() > 2000 {
			return
		}
		ma, mb := naive(a), naive(b)
		for id := range ma {
			if inter.Contains(id) != mb[id] || diff.Contains(id) == mb[id] {
				t.Fatalf("%q, %q: id %d misplaced", x, y, id)
			}
		}
		for id := range naive(inter) {
			if !ma[id] || !mb[id] {
				t.Fatalf("%q, %q: %d in ∩", x, y, id)
			}
		}
	})
}
