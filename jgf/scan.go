package jgf

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// scanner is the fast JSON layer of the reader: it walks the bytes once,
// without building a tree, and accepts exactly the documents jansson's
// json_loads (flags 0) accepts. It only tells whether the document is
// valid; the text, line and column of a syntax error come from the
// reference decoder in json.go, which is run again on the rejected
// document (see syntaxError). FuzzDecoders checks that the two agree.
//
// What jansson accepts: one object or array, surrounded by white space
// (space, tab, CR, LF) only; input ends at the first NUL byte; strings of
// valid UTF-8 without control characters, with the JSON escapes, paired
// surrogates and no \u0000; integers that fit in 64 bits; reals that do
// not overflow to infinity; true, false, null; values nested at most
// maxDepth deep (the outermost value is at depth 1, scalars count);
// repeated object keys.
type scanner struct {
	data []byte
	pos  int
	bad  bool // a syntax error was found; pos is then len(data)

	// esc holds the decoded text of strings with escapes. A string
	// returned by str stays valid until esc is truncated (the decoder does
	// it between JGF nodes).
	esc []byte
}

// wsTab marks JSON white space; plainTab marks string bytes that need no
// attention (printable ASCII other than '"' and '\\').
var wsTab, plainTab [256]bool

func init() {
	for _, c := range []byte{' ', '\t', '\n', '\r'} {
		wsTab[c] = true
	}
	for c := 0x20; c < 0x80; c++ {
		plainTab[c] = c != '"' && c != '\\'
	}
}

func newScanner(data []byte) scanner {
	if i := bytes.IndexByte(data, 0); i >= 0 { // jansson reads a C string
		data = data[:i]
	}
	return scanner{data: data}
}

func (s *scanner) fail() {
	s.bad = true
	s.pos = len(s.data)
}

func (s *scanner) ws() {
	d, p := s.data, s.pos
	for p < len(d) && wsTab[d[p]] {
		p++
	}
	s.pos = p
}

// peek returns the next byte, or 0 at the end of the input.
func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// openObj consumes the '{' at pos. It reports whether the object has
// members (pos is then at the first key); false means the '}' was
// consumed too, or the scan failed.
func (s *scanner) openObj() bool {
	s.pos++
	s.ws()
	if s.peek() == '}' {
		s.pos++
		return false
	}
	return !s.bad
}

// key reads a member key and its ':', leaving pos at the value.
func (s *scanner) key() []byte {
	if s.peek() != '"' {
		s.fail()
		return nil
	}
	k := s.str()
	s.colon()
	return k
}

// keyTable lists the member keys a JGF object is read for, so that
// knownKey can recognise them without decoding (a known key has no
// escape): by comparing the key and its closing quote with at most two
// 8-byte words.
type keyTable struct {
	keys  []string
	specs []keySpec
	first [256]uint16 // bit i: keys[i] starts with this byte
}

type keySpec struct {
	n      int    // bytes of the key and its closing quote
	w0, m0 uint64 // first 8 of them, and the mask of those that count
	w1, m1 uint64 // the next 8
}

func newKeyTable(keys ...string) *keyTable {
	t := &keyTable{keys: keys}
	for i, k := range keys {
		var b [16]byte
		q := k + `"`
		copy(b[:], q)
		sp := keySpec{n: len(q), w0: binary.LittleEndian.Uint64(b[:8]), w1: binary.LittleEndian.Uint64(b[8:])}
		for j := range min(len(q), 8) {
			sp.m0 |= 0xFF << (8 * j)
		}
		for j := 8; j < len(q); j++ {
			sp.m1 |= 0xFF << (8 * (j - 8))
		}
		t.specs = append(t.specs, sp)
		t.first[k[0]] |= 1 << i
	}
	return t
}

// index returns the position of key k in t, or -1.
func (t *keyTable) index(k []byte) int {
	for i, c := range t.keys {
		if string(k) == c {
			return i
		}
	}
	return -1
}

// knownKey reads a member key and its ':', leaving pos at the value, and
// returns the key's index in t, or -1 for another key.
func (s *scanner) knownKey(t *keyTable) int {
	d, p := s.data, s.pos
	if p+17 <= len(d) && d[p] == '"' {
		w0 := binary.LittleEndian.Uint64(d[p+1:])
		w1 := binary.LittleEndian.Uint64(d[p+9:])
		for b := t.first[d[p+1]]; b != 0; b &= b - 1 {
			i := bits.TrailingZeros16(b)
			sp := &t.specs[i]
			if w0&sp.m0 == sp.w0 && w1&sp.m1 == sp.w1 {
				s.pos = p + 1 + sp.n
				s.colon()
				return i
			}
		}
	}
	return t.index(s.key())
}

// colon consumes the ':' after a key and the white space around it.
func (s *scanner) colon() {
	if p := s.pos; p+2 < len(s.data) && s.data[p] == ':' && s.data[p+1] == ' ' && !wsTab[s.data[p+2]] { // the usual ": "
		s.pos = p + 2
		return
	}
	s.colonSlow()
}

func (s *scanner) colonSlow() {
	s.ws()
	if s.peek() != ':' {
		s.fail()
		return
	}
	s.pos++
	s.ws()
	if s.pos == len(s.data) {
		s.fail()
	}
}

// nextObj consumes what follows a member value: ',' (true: pos is at the
// next key) or '}' (false).
func (s *scanner) nextObj() bool {
	if p := s.pos; p+2 < len(s.data) && s.data[p] == ',' && s.data[p+1] == ' ' && s.data[p+2] == '"' { // the usual `, "`
		s.pos = p + 2
		return true
	}
	return s.nextObjSlow()
}

func (s *scanner) nextObjSlow() bool {
	s.ws()
	switch s.peek() {
	case ',':
		s.pos++
		s.ws()
		return true
	case '}':
		s.pos++
		return false
	}
	s.fail()
	return false
}

// openArr consumes the '[' at pos and reports whether an element follows
// (pos is then at it).
func (s *scanner) openArr() bool {
	s.pos++
	s.ws()
	switch s.peek() {
	case ']':
		s.pos++
		return false
	case 0:
		s.fail()
		return false
	}
	return true
}

// nextArr consumes what follows an element: ',' (true: pos is at the next
// element) or ']' (false).
func (s *scanner) nextArr() bool {
	if p := s.pos; p+2 < len(s.data) && s.data[p] == ',' && s.data[p+1] == ' ' && !wsTab[s.data[p+2]] { // the usual ", "
		s.pos = p + 2
		return true
	}
	return s.nextArrSlow()
}

func (s *scanner) nextArrSlow() bool {
	s.ws()
	switch s.peek() {
	case ',':
		s.pos++
		s.ws()
		if s.pos == len(s.data) {
			s.fail()
			return false
		}
		return true
	case ']':
		s.pos++
		return false
	}
	s.fail()
	return false
}

// skip checks and discards the value at pos, which is at the given depth.
func (s *scanner) skip(depth int) {
	s.scalar(depth)
}

// scalar reads the value at pos (at the given depth) and returns its kind;
// an integer's value; a string's decoded bytes. Arrays and objects are
// checked and skipped.
func (s *scanner) scalar(depth int) (jkind, int64, []byte) {
	if depth > maxDepth {
		s.fail()
		return jNull, 0, nil
	}
	switch c := s.peek(); c {
	case '"':
		return jString, 0, s.str()
	case '{':
		if s.openObj() {
			for {
				s.key()
				if s.bad {
					break
				}
				s.scalar(depth + 1)
				if s.bad || !s.nextObj() {
					break
				}
			}
		}
		return jObject, 0, nil
	case '[':
		if s.openArr() {
			for {
				s.scalar(depth + 1)
				if s.bad || !s.nextArr() {
					break
				}
			}
		}
		return jArray, 0, nil
	case 't':
		s.literal("true")
		return jTrue, 0, nil
	case 'f':
		s.literal("false")
		return jFalse, 0, nil
	case 'n':
		s.literal("null")
		return jNull, 0, nil
	default:
		if c == '-' || c >= '0' && c <= '9' {
			k, i := s.number()
			return k, i, nil
		}
	}
	s.fail()
	return jNull, 0, nil
}

// value is scalar as a field, with the common short plain strings and
// small integers read in place.
func (s *scanner) value(depth int) field {
	d, p := s.data, s.pos
	if p < len(d) {
		switch c := d[p]; {
		case c == '"':
			q := p + 1
			for q < len(d) && plainTab[d[q]] {
				q++
			}
			if q < len(d) && d[q] == '"' {
				s.pos = q + 1
				return field{true, jString, 0, d[p+1 : q : q]}
			}
		case c >= '0' && c <= '9' || c == '-':
			q := p
			if c == '-' {
				q++
			}
			start := q
			var v int64
			for q < len(d) && q-start < 18 && digit(d[q]) {
				v = v*10 + int64(d[q]-'0')
				q++
			}
			// 1 to 18 digits, no leading zero, then neither a digit nor a
			// fraction or exponent: an integer that fits.
			if q > start && (d[start] != '0' || q == start+1) && q < len(d) && !digit(d[q]) && d[q] != '.' && d[q]|0x20 != 'e' {
				if c == '-' {
					v = -v
				}
				s.pos = q
				return field{true, jInt, v, nil}
			}
		}
	}
	kind, i, str := s.scalar(depth)
	return field{true, kind, i, str}
}

// literal consumes true, false or null; jansson reads a whole run of
// letters as one token.
func (s *scanner) literal(lit string) {
	d, p := s.data, s.pos
	if len(d)-p < len(lit) || string(d[p:p+len(lit)]) != lit {
		s.fail()
		return
	}
	p += len(lit)
	if p < len(d) && (d[p]|0x20 >= 'a' && d[p]|0x20 <= 'z') {
		s.fail()
		return
	}
	s.pos = p
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// number reads a number: jInt with its value, or jReal.
func (s *scanner) number() (jkind, int64) {
	d, p := s.data, s.pos
	start := p
	neg := d[p] == '-'
	if neg {
		p++
	}
	switch {
	case p == len(d):
		s.fail()
		return jNull, 0
	case d[p] == '0':
		p++
		if p < len(d) && digit(d[p]) {
			s.fail()
			return jNull, 0
		}
	case digit(d[p]):
		for p < len(d) && digit(d[p]) {
			p++
		}
	default:
		s.fail()
		return jNull, 0
	}
	intEnd := p
	real := false
	if p < len(d) && d[p] == '.' {
		p++
		if p == len(d) || !digit(d[p]) {
			s.fail()
			return jNull, 0
		}
		for p < len(d) && digit(d[p]) {
			p++
		}
		real = true
	}
	if p < len(d) && (d[p] == 'e' || d[p] == 'E') {
		p++
		if p < len(d) && (d[p] == '+' || d[p] == '-') {
			p++
		}
		if p == len(d) || !digit(d[p]) {
			s.fail()
			return jNull, 0
		}
		for p < len(d) && digit(d[p]) {
			p++
		}
		real = true
	}
	s.pos = p
	if real {
		f, _ := strconv.ParseFloat(string(d[start:p]), 64)
		if math.IsInf(f, 0) {
			s.fail()
			return jNull, 0
		}
		return jReal, 0
	}
	digits := d[start:intEnd]
	if neg {
		digits = digits[1:]
	}
	if len(digits) > 19 { // no leading zeros: at least 10^19
		s.fail()
		return jNull, 0
	}
	var u uint64
	for _, c := range digits {
		u = u*10 + uint64(c-'0') // < 10^19 < 2^64
	}
	switch {
	case neg && u <= 1<<63:
		return jInt, int64(-u) // two's complement: -2^63 included
	case !neg && u <= math.MaxInt64:
		return jInt, int64(u)
	}
	s.fail()
	return jNull, 0
}

// str reads the string at pos and returns its decoded bytes: a slice of
// the input when it has no escape, else of s.esc.
func (s *scanner) str() []byte {
	d, p := s.data, s.pos+1
	q := p
	for q < len(d) && plainTab[d[q]] {
		q++
	}
	if q < len(d) && d[q] == '"' { // the usual short plain string
		s.pos = q + 1
		return d[p:q:q]
	}
	return s.strSlow(p, q)
}

// strSlow continues str at q, from the start p of the string.
func (s *scanner) strSlow(start, p int) []byte {
	d := s.data
	for {
		if p < len(d) && plainTab[d[p]] { // a long string
			for p+8 <= len(d) && !special8(binary.LittleEndian.Uint64(d[p:])) {
				p += 8
			}
			for p < len(d) && plainTab[d[p]] {
				p++
			}
		}
		if p == len(d) {
			s.fail()
			return nil
		}
		switch c := d[p]; {
		case c == '"':
			s.pos = p + 1
			return d[start:p:p]
		case c == '\\':
			return s.strEscaped(start, p)
		case c < 0x20:
			s.fail()
			return nil
		default:
			r, n := utf8.DecodeRune(d[p:])
			if r == utf8.RuneError && n == 1 {
				s.fail()
				return nil
			}
			p += n
		}
	}
}

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// special8 reports whether one of the 8 bytes of x may need attention in
// a string: '"', '\\', a control character or a non-ASCII byte. (False
// positives are possible after a true one; str then goes byte by byte.)
func special8(x uint64) bool {
	q := x ^ (lsb8 * '"')
	b := x ^ (lsb8 * '\\')
	return ((q-lsb8)&^q|(b-lsb8)&^b|(x-lsb8*0x20)&^x|x)&msb8 != 0
}

func hex4(d []byte, p int) (rune, bool) {
	if len(d)-p < 4 {
		return 0, false
	}
	var v rune
	for _, c := range d[p : p+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// strEscaped continues str from the first backslash at p, decoding into
// s.esc.
func (s *scanner) strEscaped(start, p int) []byte {
	d := s.data
	b0 := len(s.esc)
	out := append(s.esc, d[start:p]...)
	for p < len(d) {
		c := d[p]
		switch {
		case c == '"':
			s.pos = p + 1
			s.esc = out
			return out[b0:len(out):len(out)]
		case c == '\\':
			if p+1 == len(d) {
				s.fail()
				return nil
			}
			e := d[p+1]
			p += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				v, ok := hex4(d, p)
				if !ok {
					s.fail()
					return nil
				}
				p += 4
				switch {
				case v >= 0xD800 && v <= 0xDBFF:
					if len(d)-p < 2 || d[p] != '\\' || d[p+1] != 'u' {
						s.fail()
						return nil
					}
					v2, ok := hex4(d, p+2)
					if !ok || v2 < 0xDC00 || v2 > 0xDFFF {
						s.fail()
						return nil
					}
					p += 6
					v = (v-0xD800)<<10 + (v2 - 0xDC00) + 0x10000
				case v >= 0xDC00 && v <= 0xDFFF, v == 0:
					s.fail()
					return nil
				}
				out = utf8.AppendRune(out, v)
			default:
				s.fail()
				return nil
			}
		case c < 0x20:
			s.fail()
			return nil
		case c < 0x80:
			out = append(out, c)
			p++
		default:
			r, n := utf8.DecodeRune(d[p:])
			if r == utf8.RuneError && n == 1 {
				s.fail()
				return nil
			}
			out = append(out, d[p:p+n]...)
			p += n
		}
	}
	s.fail()
	return nil
}
