// Package idset implements RFC 22 idsets: sets of non-negative integers
// written as comma separated ascending values and runs, e.g. "0-3,7,9-10".
//
// A Set is stored compactly as a sorted list of disjoint, non-adjacent
// closed ranges, so huge runs ("0-4000000000") cost nothing. Sets are
// immutable values; Union returns a new Set.
//
// Ids are limited to 0..MaxID (math.MaxInt64 - 1) so that Len always fits
// in an int64.
package idset

import (
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxID is the largest id a Set can hold.
const MaxID = math.MaxInt64 - 1

// Range is a closed interval [Lo, Hi] of ids, Lo <= Hi.
type Range struct{ Lo, Hi int64 }

// Set is an immutable set of ids. The zero value is the empty set.
type Set struct {
	r []Range // sorted by Lo, disjoint, never adjacent (Hi+1 < next Lo)
}

// ErrSyntax is wrapped by every error returned by Parse.
var ErrSyntax = errors.New("invalid idset")

// Parse decodes an RFC 22 idset string: a comma separated list of
// elements, each a decimal id "N" or a range "N-M" with N <= M, optionally
// enclosed in one pair of square brackets ("[0-3,7]"). No whitespace is
// allowed. Elements may come in any order and may overlap; the result is
// their union. The empty string (and "[]") is the empty set. Malformed
// input (empty elements, descending ranges, signs, non-digits, ids above
// MaxID, unbalanced brackets) returns an error wrapping ErrSyntax.
func Parse(s string) (Set, error) {
	body := s
	if strings.HasPrefix(body, "[") {
		if !strings.HasSuffix(body, "]") || len(body) < 2 {
			return Set{}, fmt.Errorf("%w %q: unbalanced brackets", ErrSyntax, s)
		}
		body = body[1 : len(body)-1]
	}
	if body == "" {
		return Set{}, nil
	}
	var rs []Range
	for part := range strings.SplitSeq(body, ",") {
		if part == "" {
			return Set{}, fmt.Errorf("%w %q: empty element", ErrSyntax, s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		l, err := parseID(lo)
		if err != nil {
			return Set{}, fmt.Errorf("%w %q: %v", ErrSyntax, s, err)
		}
		h := l
		if isRange {
			if h, err = parseID(hi); err != nil {
				return Set{}, fmt.Errorf("%w %q: %v", ErrSyntax, s, err)
			}
			if h < l {
				return Set{}, fmt.Errorf("%w %q: descending range %q", ErrSyntax, s, part)
			}
		}
		rs = append(rs, Range{l, h})
	}
	return normalize(rs), nil
}

func parseID(s string) (int64, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("bad number %q", s)
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v > MaxID {
		return 0, fmt.Errorf("number %q out of range", s)
	}
	return v, nil
}

// normalize sorts and merges overlapping or adjacent ranges (in place).
func normalize(rs []Range) Set {
	if len(rs) == 0 {
		return Set{}
	}
	slices.SortFunc(rs, func(a, b Range) int {
		switch {
		case a.Lo < b.Lo:
			return -1
		case a.Lo > b.Lo:
			return 1
		}
		return 0
	})
	out := rs[:1]
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if r.Lo <= last.Hi || r.Lo-1 == last.Hi { // overlap or adjacent (no overflow: Hi <= MaxID)
			last.Hi = max(last.Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return Set{r: slices.Clip(out)}
}

// Of returns the set of the given ids; negative ids and ids above MaxID are
// ignored.
func Of(ids ...int64) Set {
	rs := make([]Range, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && id <= MaxID {
			rs = append(rs, Range{id, id})
		}
	}
	return normalize(rs)
}

// FromRanges returns the union of the given ranges. Ranges with Lo > Hi,
// negative bounds or bounds above MaxID are clipped or dropped.
func FromRanges(rs ...Range) Set {
	cp := make([]Range, 0, len(rs))
	for _, r := range rs {
		r.Lo = max(r.Lo, 0)
		r.Hi = min(r.Hi, MaxID)
		if r.Lo <= r.Hi {
			cp = append(cp, r)
		}
	}
	return normalize(cp)
}

// Contains reports whether id is in the set.
func (s Set) Contains(id int64) bool {
	i, _ := slices.BinarySearchFunc(s.r, id, func(r Range, id int64) int {
		switch {
		case r.Hi < id:
			return -1
		case r.Lo > id:
			return 1
		}
		return 0
	})
	return i < len(s.r) && s.r[i].Lo <= id && id <= s.r[i].Hi
}

// Len returns the number of ids in the set.
func (s Set) Len() int64 {
	var n int64
	for _, r := range s.r {
		n += r.Hi - r.Lo + 1 // cannot overflow: ranges are disjoint within [0, MaxID]
	}
	return n
}

// Empty reports whether the set has no ids.
func (s Set) Empty() bool { return len(s.r) == 0 }

// Ranges returns the maximal runs of the set in ascending order.
func (s Set) Ranges() []Range { return slices.Clone(s.r) }

// All iterates over the ids in ascending order.
func (s Set) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for _, r := range s.r {
			for id := r.Lo; ; id++ {
				if !yield(id) {
					return
				}
				if id == r.Hi {
					break
				}
			}
		}
	}
}

// Values returns the ids in ascending order. Beware of huge sets: check Len
// first when the set comes from untrusted input.
func (s Set) Values() []int64 {
	return slices.Collect(s.All())
}

// Union returns the set of ids in s or t.
func (s Set) Union(t Set) Set {
	rs := make([]Range, 0, len(s.r)+len(t.r))
	rs = append(rs, s.r...)
	rs = append(rs, t.r...)
	return normalize(rs)
}

// Intersect returns the set of ids in both s and t, in time linear in
// their numbers of ranges (nothing is expanded).
func (s Set) Intersect(t Set) Set {
	var out []Range
	for i, j := 0, 0; i < len(s.r) && j < len(t.r); {
		a, b := s.r[i], t.r[j]
		if lo, hi := max(a.Lo, b.Lo), min(a.Hi, b.Hi); lo <= hi {
			out = append(out, Range{lo, hi})
		}
		if a.Hi < b.Hi {
			i++
		} else {
			j++
		}
	}
	return Set{r: out} // disjoint and non-adjacent, as pieces of s's ranges
}

// Difference returns the set of ids in s but not in t, in time linear in
// their numbers of ranges (nothing is expanded).
func (s Set) Difference(t Set) Set {
	var out []Range
	j := 0
	for _, a := range s.r {
		for j < len(t.r) && t.r[j].Hi < a.Lo {
			j++
		}
		lo := a.Lo
		for k := j; k < len(t.r) && t.r[k].Lo <= a.Hi; k++ {
			if t.r[k].Lo > lo {
				out = append(out, Range{lo, t.r[k].Lo - 1})
			}
			if t.r[k].Hi >= a.Hi {
				lo = a.Hi + 1 // a is covered to its end (no overflow: Hi <= MaxID)
				break
			}
			lo = t.r[k].Hi + 1
		}
		if lo <= a.Hi {
			out = append(out, Range{lo, a.Hi})
		}
	}
	return Set{r: out}
}

// Min returns the smallest id of s; ok is false when s is empty.
func (s Set) Min() (id int64, ok bool) {
	if len(s.r) == 0 {
		return 0, false
	}
	return s.r[0].Lo, true
}

// Equal reports whether s and t hold the same ids.
func (s Set) Equal(t Set) bool { return slices.Equal(s.r, t.r) }

// String encodes the set per RFC 22 / formats.md §5.9 (see Encode),
// without brackets; the empty set is "".
func (s Set) String() string {
	var b strings.Builder
	for i, r := range s.r {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(r.Lo, 10))
		if r.Hi > r.Lo {
			b.WriteByte('-')
			b.WriteString(strconv.FormatInt(r.Hi, 10))
		}
	}
	return b.String()
}

// Encode returns the idset encoding of ids (formats.md §5.9): the values
// are sorted and de-duplicated, maximal runs a..b with b > a are written
// "a-b", single values "a", all joined with ",". Negative values (not
// representable in an idset) and values above MaxID are ignored. Encode(nil)
// is "".
func Encode(ids []int64) string { return Of(ids...).String() }
