// Package hostlist implements Flux hostlists: compact, ordered lists of host
// names such as "login,node[0-3,7],fluke[082-086]".
//
// Decoding (Parse, Expand): the input is a list of items separated by
// commas (spaces, tabs and newlines are accepted as separators too; empty
// items are skipped). An item is either a plain host name, or a prefix
// followed by exactly one bracket group at its very end, "prefix[ranges]",
// where ranges is a comma separated list of decimal "lo" or "lo-hi"
// (lo <= hi). A bracket range is the numeric suffix of the host names: each
// number is printed zero-padded to the width of its "lo" digit string, so
// "node[00-03]" is node00..node03 and "node[9-10]" is node9,node10. Brackets
// anywhere else (nested, unbalanced, text after "]", a second group in one
// item) and malformed ranges are errors.
//
// Encoding (Encode) follows formats.md §5.9 exactly: hosts are appended in
// order (no sorting, no de-duplication); a host extends the previous range
// when prefix matches, its number is hi+1 and the widths are compatible;
// consecutive numeric ranges with the same prefix are grouped into
// "prefix[r1,r2,...]".
package hostlist

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxExpand bounds the number of host names Expand and Set.Hosts return.
const MaxExpand = 1 << 20

// MaxExpandBytes bounds the total length of the host names Expand and
// Set.Hosts return (a long prefix repeated by a range costs its length
// once per host).
const MaxExpandBytes = 1 << 30

// ErrSyntax is wrapped by every decoding error.
var ErrSyntax = errors.New("invalid hostlist")

// ErrTooLarge is returned by Expand and Set.Hosts when the list holds more
// than MaxExpand hosts or MaxExpandBytes bytes of names.
var ErrTooLarge = errors.New("hostlist too large to expand")

// hrange is one item of a decoded hostlist: either a single literal host
// (single) or prefix+[lo..hi] zero padded to width.
type hrange struct {
	prefix string
	lo, hi uint64
	width  int
	single bool
}

func (r hrange) count() uint64 {
	if r.single {
		return 1
	}
	return r.hi - r.lo + 1 // may wrap to 0 for the full uint64 range; callers saturate
}

func (r hrange) host(n uint64) string {
	return r.prefix + pad(n, r.width)
}

func pad(n uint64, width int) string {
	s := strconv.FormatUint(n, 10)
	if len(s) < width {
		s = strings.Repeat("0", width-len(s)) + s
	}
	return s
}

// Set is a decoded hostlist, kept in range form (never expanded), used for
// ordered expansion and membership tests. The zero value is an empty list.
type Set struct {
	r []hrange
}

// Parse decodes a hostlist string. The empty string is an empty list.
func Parse(s string) (*Set, error) {
	h := &Set{}
	if err := h.Append(s); err != nil {
		return nil, err
	}
	return h, nil
}

func isSep(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Append decodes s and appends its hosts to the list. On error the list is
// unchanged.
func (h *Set) Append(s string) error {
	var add []hrange
	depth := 0
	start := 0
	flush := func(end int) error {
		tok := s[start:end]
		start = end + 1
		if tok == "" {
			return nil
		}
		rs, err := parseItem(tok)
		if err != nil {
			return fmt.Errorf("%w `%s': %v", ErrSyntax, s, err)
		}
		add = append(add, rs...)
		return nil
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '[':
			if depth > 0 {
				return fmt.Errorf("%w `%s': nested '['", ErrSyntax, s)
			}
			depth++
		case c == ']':
			if depth == 0 {
				return fmt.Errorf("%w `%s': unbalanced ']'", ErrSyntax, s)
			}
			depth--
		case depth == 0 && isSep(c):
			if err := flush(i); err != nil {
				return err
			}
		}
	}
	if depth != 0 {
		return fmt.Errorf("%w `%s': unbalanced '['", ErrSyntax, s)
	}
	if err := flush(len(s)); err != nil {
		return err
	}
	h.r = append(h.r, add...)
	return nil
}

// parseItem decodes one separator-free item (brackets are balanced and not
// nested, as checked by the caller).
func parseItem(tok string) ([]hrange, error) {
	open := strings.IndexByte(tok, '[')
	if open < 0 {
		return []hrange{{prefix: tok, single: true}}, nil
	}
	if strings.IndexByte(tok[open+1:], '[') >= 0 {
		return nil, fmt.Errorf("more than one bracket group in %q", tok)
	}
	if tok[len(tok)-1] != ']' || strings.IndexByte(tok, ']') != len(tok)-1 {
		return nil, fmt.Errorf("text after ']' in %q", tok)
	}
	prefix := tok[:open]
	body := tok[open+1 : len(tok)-1]
	if body == "" {
		return nil, fmt.Errorf("empty brackets in %q", tok)
	}
	var out []hrange
	for elem := range strings.SplitSeq(body, ",") {
		if elem == "" {
			return nil, fmt.Errorf("empty range in %q", tok)
		}
		los, his, isRange := strings.Cut(elem, "-")
		lo, err := parseNum(los)
		if err != nil {
			return nil, fmt.Errorf("bad range %q: %v", elem, err)
		}
		hi := lo
		if isRange {
			if hi, err = parseNum(his); err != nil {
				return nil, fmt.Errorf("bad range %q: %v", elem, err)
			}
			if hi < lo {
				return nil, fmt.Errorf("bad range %q: descending", elem)
			}
		}
		out = append(out, hrange{prefix: prefix, lo: lo, hi: hi, width: len(los)})
	}
	return out, nil
}

func parseNum(s string) (uint64, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("bad number %q", s)
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("number %q out of range", s)
	}
	return v, nil
}

// Len returns the number of hosts in the list (duplicates counted),
// saturating at math.MaxUint64.
func (h *Set) Len() uint64 {
	var n uint64
	for _, r := range h.r {
		c := r.count()
		if c == 0 || n+c < n {
			return math.MaxUint64
		}
		n += c
	}
	return n
}

// Bytes returns an upper bound of the total length of the host names
// (exact unless a range mixes numbers of different lengths), saturating
// at math.MaxUint64.
func (h *Set) Bytes() uint64 {
	var n uint64
	for _, r := range h.r {
		c, per := r.count(), uint64(len(r.prefix))
		if !r.single {
			per += uint64(max(r.width, len(strconv.FormatUint(r.hi, 10))))
		}
		if c == 0 || per > 0 && c > (math.MaxUint64-n)/per {
			return math.MaxUint64
		}
		n += c * per
	}
	return n
}

// Hosts expands the list in order. It fails with ErrTooLarge when the list
// holds more than MaxExpand hosts or MaxExpandBytes bytes of names.
func (h *Set) Hosts() ([]string, error) {
	n := h.Len()
	if n > MaxExpand {
		return nil, fmt.Errorf("%w (%d hosts)", ErrTooLarge, n)
	}
	if b := h.Bytes(); b > MaxExpandBytes {
		return nil, fmt.Errorf("%w (%d bytes of host names)", ErrTooLarge, b)
	}
	out := make([]string, 0, n)
	for _, r := range h.r {
		if r.single {
			out = append(out, r.prefix)
			continue
		}
		for v := r.lo; ; v++ {
			out = append(out, r.host(v))
			if v == r.hi {
				break
			}
		}
	}
	return out, nil
}

// Contains reports whether name is one of the hosts of the list, i.e. is
// exactly one of the strings the list expands to (e.g. "node[00-03]"
// contains "node02" but not "node2"). It never expands the list.
func (h *Set) Contains(name string) bool {
	for _, r := range h.r {
		if r.single {
			if name == r.prefix {
				return true
			}
			continue
		}
		if !strings.HasPrefix(name, r.prefix) {
			continue
		}
		digits := name[len(r.prefix):]
		if len(digits) == 0 || len(digits) < r.width {
			continue
		}
		v, err := parseNum(digits)
		if err != nil || v < r.lo || v > r.hi {
			continue
		}
		if pad(v, r.width) == digits {
			return true
		}
	}
	return false
}

// Expand decodes s and returns its host names in order (see the package
// documentation for the syntax), e.g. "login,node[1-2]" → login, node1,
// node2.
func Expand(s string) ([]string, error) {
	h, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return h.Hosts()
}

// host is one host name split for encoding.
type host struct {
	prefix string
	num    uint64
	width  int
	single bool // no numeric suffix
}

func splitHost(name string) host {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) {
		return host{prefix: name, single: true}
	}
	v, err := strconv.ParseUint(name[i:], 10, 64)
	if err != nil { // suffix too large: keep the name as a literal
		return host{prefix: name, single: true}
	}
	return host{prefix: name[:i], num: v, width: len(name) - i}
}

// zeroPadded returns the number of leading zeros num gets at width.
func zeroPadded(num uint64, width int) int {
	n := len(strconv.FormatUint(num, 10))
	if width > n {
		return width - n
	}
	return 0
}

// widthEquiv reports whether widths wn (of number n) and wm (of number m)
// are compatible, and if so unifies them: equal widths are compatible; else
// the widths are compatible when one of the numbers is zero-padded in
// neither width, and the other's width is adopted.
func widthEquiv(n uint64, wn *int, m uint64, wm *int) bool {
	if *wn == *wm {
		return true
	}
	npad, nmpad := zeroPadded(n, *wn), zeroPadded(n, *wm)
	mpad, mnpad := zeroPadded(m, *wm), zeroPadded(m, *wn)
	switch {
	case npad != nmpad && mpad != mnpad:
		return false
	case npad != nmpad: // m is unpadded in both: it takes n's width
		*wm = *wn
	default: // n is unpadded in both: the range takes m's width
		*wn = *wm
	}
	return true
}

// Encode encodes hosts per formats.md §5.9, in the given order and without
// de-duplication, e.g. [node0 node1 node2 node3] → "node[0-3]",
// [node1 node0] → "node[1,0]", [login node1 node2] → "login,node[1-2]".
// A numeric suffix too large for 64 bits is treated as part of the prefix.
func Encode(hosts []string) string {
	var rs []hrange
	for _, name := range hosts {
		h := splitHost(name)
		if n := len(rs); n > 0 && !h.single {
			last := &rs[n-1]
			w := h.width
			if !last.single && last.prefix == h.prefix && last.hi != math.MaxUint64 &&
				h.num == last.hi+1 && widthEquiv(last.lo, &last.width, h.num, &w) {
				last.hi = h.num
				continue
			}
		}
		rs = append(rs, hrange{prefix: h.prefix, lo: h.num, hi: h.num, width: h.width, single: h.single})
	}
	return encodeRanges(rs)
}

func encodeRanges(rs []hrange) string {
	var b strings.Builder
	for i := 0; i < len(rs); {
		if i > 0 {
			b.WriteByte(',')
		}
		r := rs[i]
		if r.single {
			b.WriteString(r.prefix)
			i++
			continue
		}
		j := i + 1
		for j < len(rs) && !rs[j].single && rs[j].prefix == r.prefix {
			j++
		}
		b.WriteString(r.prefix)
		if j == i+1 && r.lo == r.hi {
			b.WriteString(pad(r.lo, r.width))
			i = j
			continue
		}
		b.WriteByte('[')
		for k := i; k < j; k++ {
			if k > i {
				b.WriteByte(',')
			}
			b.WriteString(pad(rs[k].lo, rs[k].width))
			if rs[k].hi > rs[k].lo {
				b.WriteByte('-')
				b.WriteString(pad(rs[k].hi, rs[k].width))
			}
		}
		b.WriteByte(']')
		i = j
	}
	return b.String()
}
