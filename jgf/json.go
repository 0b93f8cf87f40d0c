package jgf

import (
	"fmt"
	"math"
	"strconv"
)

// This file is a JSON decoder that behaves like jansson's json_loads with
// flags 0, the parser Fluxion reads JGF with: it accepts and rejects the
// same documents, reports the same error text, line and column, and keeps
// object members in first-insertion order (a repeated key replaces the
// value but keeps its position).

type jkind uint8

const (
	jNull jkind = iota
	jTrue
	jFalse
	jInt
	jReal
	jString
	jArray
	jObject
)

var kindNames = [...]string{"null", "true", "false", "integer", "real", "string", "array", "object"}

func (k jkind) String() string { return kindNames[k] }

// jvalue is a decoded JSON value.
type jvalue struct {
	kind jkind
	i    int64
	f    float64
	s    string
	arr  []*jvalue
	keys []string // object member keys in first-insertion order
	vals []*jvalue
	idx  map[string]int // key index, built for larger objects
}

// get returns the member key of an object (nil when v is not an object or
// has no such member), like json_object_get.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	if v.idx != nil {
		if i, ok := v.idx[key]; ok {
			return v.vals[i]
		}
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// set adds or replaces an object member.
func (v *jvalue) set(key string, val *jvalue) {
	if v.idx != nil {
		if i, ok := v.idx[key]; ok {
			v.vals[i] = val
			return
		}
	} else {
		for i, k := range v.keys {
			if k == key {
				v.vals[i] = val
				return
			}
		}
	}
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
	if v.idx != nil {
		v.idx[key] = len(v.keys) - 1
	} else if len(v.keys) > 8 {
		v.idx = make(map[string]int, 16)
		for i, k := range v.keys {
			v.idx[k] = i
		}
	}
}

// jsonError is a decoding error as jansson reports it.
type jsonError struct {
	text         string
	line, column int
}

const (
	stOK  = 0
	stEOF = -1
	stErr = -2
)

// Tokens (single characters stand for themselves).
const (
	tokInvalid = -1
	tokEOF     = 0
	tokString  = 256 + iota
	tokInteger
	tokReal
	tokTrue
	tokFalse
	tokNull
)

// maxDepth is jansson's JSON_PARSER_MAX_DEPTH.
const maxDepth = 2048

type lexer struct {
	data []byte
	pos  int

	// current character (a whole UTF-8 sequence) and read position in it
	buf    [4]byte
	bufLen int
	bufPos int

	state                    int
	line, column, lastColumn int

	saved []byte
	token int
	sval  string
	ival  int64
	fval  float64
	depth int
	// noTree checks the document without building values (parseValue
	// returns the shared placeholder noValue): how syntaxError finds the
	// error of a rejected document in little memory.
	noTree bool

	err *jsonError
}

// noValue stands for every value when the lexer builds no tree.
var noValue = &jvalue{}

// newValue returns a new value x, or noValue when no tree is built.
func (l *lexer) newValue(x jvalue) *jvalue {
	if l.noTree {
		return noValue
	}
	p := new(jvalue)
	*p = x
	return p
}

func utf8First(u byte) int {
	switch {
	case u < 0x80:
		return 1
	case u <= 0xC1:
		return 0 // continuation byte or overlong ASCII
	case u <= 0xDF:
		return 2
	case u <= 0xEF:
		return 3
	case u <= 0xF4:
		return 4
	}
	return 0
}

func utf8Full(b []byte) bool {
	var v int32
	switch len(b) {
	case 2:
		v = int32(b[0] & 0x1F)
	case 3:
		v = int32(b[0] & 0xF)
	case 4:
		v = int32(b[0] & 0x7)
	default:
		return false
	}
	for _, u := range b[1:] {
		if u < 0x80 || u > 0xBF {
			return false
		}
		v = v<<6 + int32(u&0x3F)
	}
	switch {
	case v > 0x10FFFF, v >= 0xD800 && v <= 0xDFFF:
		return false
	case len(b) == 2 && v < 0x80, len(b) == 3 && v < 0x800, len(b) == 4 && v < 0x10000:
		return false
	}
	return true
}

// errorSet records the first error, with jansson's context rules.
func (l *lexer) errorSet(msg string) {
	if l.err != nil {
		return
	}
	text := msg
	if len(l.saved) > 0 {
		if len(l.saved) <= 20 {
			text = msg + " near '" + string(l.saved) + "'"
		}
	} else if l.state != stErr {
		text = msg + " near end of file"
	}
	l.err = &jsonError{text: text, line: l.line, column: l.column}
}

// get returns the next byte, stEOF or stErr.
func (l *lexer) get() int {
	if l.state != stOK {
		return l.state
	}
	if l.bufPos >= l.bufLen {
		if l.pos >= len(l.data) {
			l.state = stEOF
			return stEOF
		}
		c := l.data[l.pos]
		l.pos++
		l.buf[0], l.bufPos, l.bufLen = c, 0, 1
		if c >= 0x80 {
			n := utf8First(c)
			ok := n != 0
			if ok {
				for i := 1; i < n; i++ {
					if l.pos < len(l.data) {
						l.buf[i] = l.data[l.pos]
						l.pos++
					} else {
						l.buf[i] = 0xFF // EOF stored into a char
					}
				}
				ok = utf8Full(l.buf[:n])
				l.bufLen = n
			}
			if !ok {
				l.state = stErr
				l.errorSet(fmt.Sprintf("unable to decode byte 0x%x", c))
				return stErr
			}
		}
	}
	c := l.buf[l.bufPos]
	l.bufPos++
	if c == '\n' {
		l.line++
		l.lastColumn = l.column
		l.column = 0
	} else if utf8First(c) != 0 {
		l.column++
	}
	return int(c)
}

func (l *lexer) unget(c int) {
	if c < 0 {
		return
	}
	if c == '\n' {
		l.line--
		l.column = l.lastColumn
	} else if utf8First(byte(c)) != 0 {
		l.column--
	}
	l.bufPos--
}

func (l *lexer) getSave() int {
	c := l.get()
	if c >= 0 {
		l.saved = append(l.saved, byte(c))
	}
	return c
}

func (l *lexer) ungetUnsave(c int) {
	if c >= 0 {
		l.unget(c)
		l.saved = l.saved[:len(l.saved)-1]
	}
}

func (l *lexer) saveCached() {
	for l.bufPos < l.bufLen {
		l.saved = append(l.saved, l.buf[l.bufPos])
		l.bufPos++
	}
}

func isDigit(c int) bool  { return c >= '0' && c <= '9' }
func isAlpha(c int) bool  { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isXDigit(c int) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func (l *lexer) scan() int {
	l.saved = l.saved[:0]
	c := l.get()
	for c == ' ' || c == '\t' || c == '\n' || c == '\r' {
		c = l.get()
	}
	switch {
	case c == stEOF:
		l.token = tokEOF
		return l.token
	case c == stErr:
		l.token = tokInvalid
		return l.token
	}
	l.saved = append(l.saved, byte(c))
	switch {
	case c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',':
		l.token = c
	case c == '"':
		l.scanString()
	case isDigit(c) || c == '-':
		l.scanNumber(c)
	case isAlpha(c):
		c = l.getSave()
		for isAlpha(c) {
			c = l.getSave()
		}
		l.ungetUnsave(c)
		switch string(l.saved) {
		case "true":
			l.token = tokTrue
		case "false":
			l.token = tokFalse
		case "null":
			l.token = tokNull
		default:
			l.token = tokInvalid
		}
	default:
		l.saveCached()
		l.token = tokInvalid
	}
	return l.token
}

func hexVal(b byte) int32 {
	switch {
	case b >= '0' && b <= '9':
		return int32(b - '0')
	case b >= 'a' && b <= 'f':
		return int32(b-'a') + 10
	}
	return int32(b-'A') + 10
}

func (l *lexer) scanString() {
	l.token = tokInvalid
	c := l.getSave()
	for c != '"' {
		switch {
		case c == stErr:
			return
		case c == stEOF:
			l.errorSet("premature end of input")
			return
		case c >= 0 && c <= 0x1F:
			l.ungetUnsave(c)
			if c == '\n' {
				l.errorSet("unexpected newline")
			} else {
				l.errorSet(fmt.Sprintf("control character 0x%x", c))
			}
			return
		case c == '\\':
			c = l.getSave()
			switch c {
			case 'u':
				c = l.getSave()
				for range 4 {
					if !isXDigit(c) {
						l.errorSet("invalid escape")
						return
					}
					c = l.getSave()
				}
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c = l.getSave()
			default:
				l.errorSet("invalid escape")
				return
			}
		default:
			c = l.getSave()
		}
	}
	// Decode the saved text between the quotes.
	src := l.saved[1 : len(l.saved)-1]
	out := make([]byte, 0, len(src))
	for p := 0; p < len(src); {
		if src[p] != '\\' {
			out = append(out, src[p])
			p++
			continue
		}
		p++
		if src[p] == 'u' {
			v := hexVal(src[p+1])<<12 | hexVal(src[p+2])<<8 | hexVal(src[p+3])<<4 | hexVal(src[p+4])
			p += 5
			if v >= 0xD800 && v <= 0xDBFF {
				if p+1 < len(src) && src[p] == '\\' && src[p+1] == 'u' {
					v2 := hexVal(src[p+2])<<12 | hexVal(src[p+3])<<8 | hexVal(src[p+4])<<4 | hexVal(src[p+5])
					p += 6
					if v2 < 0xDC00 || v2 > 0xDFFF {
						l.errorSet(fmt.Sprintf("invalid Unicode '\\u%04X\\u%04X'", v, v2))
						return
					}
					v = (v-0xD800)<<10 + (v2 - 0xDC00) + 0x10000
				} else {
					l.errorSet(fmt.Sprintf("invalid Unicode '\\u%04X'", v))
					return
				}
			} else if v >= 0xDC00 && v <= 0xDFFF {
				l.errorSet(fmt.Sprintf("invalid Unicode '\\u%04X'", v))
				return
			}
			out = appendUTF8(out, v)
			continue
		}
		switch src[p] {
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
		default: // '"', '\\', '/'
			out = append(out, src[p])
		}
		p++
	}
	l.sval = string(out)
	l.token = tokString
}

func appendUTF8(b []byte, v int32) []byte {
	switch {
	case v < 0x80:
		return append(b, byte(v))
	case v < 0x800:
		return append(b, byte(0xC0|v>>6), byte(0x80|v&0x3F))
	case v < 0x10000:
		return append(b, byte(0xE0|v>>12), byte(0x80|v>>6&0x3F), byte(0x80|v&0x3F))
	}
	return append(b, byte(0xF0|v>>18), byte(0x80|v>>12&0x3F), byte(0x80|v>>6&0x3F), byte(0x80|v&0x3F))
}

func (l *lexer) scanNumber(c int) {
	l.token = tokInvalid
	if c == '-' {
		c = l.getSave()
	}
	switch {
	case c == '0':
		c = l.getSave()
		if isDigit(c) {
			l.ungetUnsave(c)
			return
		}
	case isDigit(c):
		c = l.getSave()
		for isDigit(c) {
			c = l.getSave()
		}
	default:
		l.ungetUnsave(c)
		return
	}
	if c != '.' && c != 'E' && c != 'e' {
		l.ungetUnsave(c)
		v, err := strconv.ParseInt(string(l.saved), 10, 64)
		if err != nil {
			if l.saved[0] == '-' {
				l.errorSet("too big negative integer")
			} else {
				l.errorSet("too big integer")
			}
			return
		}
		l.token = tokInteger
		l.ival = v
		return
	}
	if c == '.' {
		c = l.get()
		if !isDigit(c) {
			l.unget(c)
			return
		}
		l.saved = append(l.saved, byte(c))
		c = l.getSave()
		for isDigit(c) {
			c = l.getSave()
		}
	}
	if c == 'E' || c == 'e' {
		c = l.getSave()
		if c == '+' || c == '-' {
			c = l.getSave()
		}
		if !isDigit(c) {
			l.ungetUnsave(c)
			return
		}
		c = l.getSave()
		for isDigit(c) {
			c = l.getSave()
		}
	}
	l.ungetUnsave(c)
	f, _ := strconv.ParseFloat(string(l.saved), 64)
	if math.IsInf(f, 0) {
		l.errorSet("real number overflow")
		return
	}
	l.token = tokReal
	l.fval = f
}

func (l *lexer) parseValue() *jvalue {
	l.depth++
	if l.depth > maxDepth {
		l.errorSet("maximum parsing depth reached")
		return nil
	}
	var v *jvalue
	switch l.token {
	case tokString:
		if containsNUL(l.sval) {
			l.errorSet("\\u0000 is not allowed without JSON_ALLOW_NUL")
			return nil
		}
		v = l.newValue(jvalue{kind: jString, s: l.sval})
	case tokInteger:
		v = l.newValue(jvalue{kind: jInt, i: l.ival})
	case tokReal:
		v = l.newValue(jvalue{kind: jReal, f: l.fval})
	case tokTrue:
		v = l.newValue(jvalue{kind: jTrue})
	case tokFalse:
		v = l.newValue(jvalue{kind: jFalse})
	case tokNull:
		v = l.newValue(jvalue{kind: jNull})
	case '{':
		v = l.parseObject()
	case '[':
		v = l.parseArray()
	case tokInvalid:
		l.errorSet("invalid token")
		return nil
	default:
		l.errorSet("unexpected token")
		return nil
	}
	if v == nil {
		return nil
	}
	l.depth--
	return v
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

func (l *lexer) parseObject() *jvalue {
	obj := l.newValue(jvalue{kind: jObject})
	l.scan()
	if l.token == '}' {
		return obj
	}
	for {
		if l.token != tokString {
			l.errorSet("string or '}' expected")
			return nil
		}
		key := l.sval
		if containsNUL(key) {
			l.errorSet("NUL byte in object key not supported")
			return nil
		}
		l.scan()
		if l.token != ':' {
			l.errorSet("':' expected")
			return nil
		}
		l.scan()
		val := l.parseValue()
		if val == nil {
			return nil
		}
		if !l.noTree {
			obj.set(key, val)
		}
		l.scan()
		if l.token != ',' {
			break
		}
		l.scan()
	}
	if l.token != '}' {
		l.errorSet("'}' expected")
		return nil
	}
	return obj
}

func (l *lexer) parseArray() *jvalue {
	arr := l.newValue(jvalue{kind: jArray})
	l.scan()
	if l.token == ']' {
		return arr
	}
	for l.token != tokEOF {
		elem := l.parseValue()
		if elem == nil {
			return nil
		}
		if !l.noTree {
			arr.arr = append(arr.arr, elem)
		}
		l.scan()
		if l.token != ',' {
			break
		}
		l.scan()
	}
	if l.token != ']' {
		l.errorSet("']' expected")
		return nil
	}
	return arr
}

// decodeJSON parses data like jansson's json_loads(data, 0, &err). The
// input is read as a C string: it ends at the first NUL byte.
func decodeJSON(data []byte) (*jvalue, *jsonError) { return loadJSON(data, false) }

// checkJSON is decodeJSON without building the values: it returns the
// error jansson reports for data, or nil.
func checkJSON(data []byte) *jsonError {
	_, err := loadJSON(data, true)
	return err
}

func loadJSON(data []byte, noTree bool) (*jvalue, *jsonError) {
	for i, b := range data {
		if b == 0 {
			data = data[:i]
			break
		}
	}
	l := &lexer{data: data, line: 1, noTree: noTree}
	l.scan()
	if l.token != '[' && l.token != '{' {
		l.errorSet("'[' or '{' expected")
		return nil, l.err
	}
	v := l.parseValue()
	if v == nil {
		return nil, l.err
	}
	l.scan()
	if l.token != tokEOF {
		l.errorSet("end of file expected")
		return nil, l.err
	}
	return v, nil
}
