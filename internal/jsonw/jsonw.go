// Package jsonw writes JSON the way Fluxion prints it (jansson with
// JSON_INDENT(0)): one line, ": " between key and value, ", " between
// members, keys in insertion order.
package jsonw

import (
	"strconv"
	"unicode/utf8"
)

// Buf accumulates JSON text.
type Buf struct {
	B        []byte
	first    []bool // per open container: no member written yet
	afterKey bool   // a key was just written: its value needs no separator
}

// sep writes ", " between members of the innermost container.
func (b *Buf) sep() {
	if b.afterKey {
		b.afterKey = false
		return
	}
	if n := len(b.first); n > 0 {
		if !b.first[n-1] {
			b.B = append(b.B, ", "...)
		}
		b.first[n-1] = false
	}
}

// Open starts an object ('{') or array ('[') as a value.
func (b *Buf) Open(c byte) {
	b.sep()
	b.B = append(b.B, c)
	b.first = append(b.first, true)
}

// Close ends the innermost container with '}' or ']'.
func (b *Buf) Close(c byte) {
	b.B = append(b.B, c)
	b.first = b.first[:len(b.first)-1]
}

// Key writes an object key; the next call writes its value.
func (b *Buf) Key(k string) {
	b.sep()
	b.B = AppendString(b.B, k)
	b.B = append(b.B, ": "...)
	b.afterKey = true
}

// String writes a string value.
func (b *Buf) String(s string) {
	b.sep()
	b.B = AppendString(b.B, s)
}

// Int writes an integer value.
func (b *Buf) Int(n int64) {
	b.sep()
	b.B = strconv.AppendInt(b.B, n, 10)
}

// Bool writes a boolean value.
func (b *Buf) Bool(v bool) {
	b.sep()
	b.B = strconv.AppendBool(b.B, v)
}

// Raw writes pre-rendered JSON as a value.
func (b *Buf) Raw(s string) {
	b.sep()
	b.B = append(b.B, s...)
}

// Reset empties the buffer.
func (b *Buf) Reset() {
	b.B = b.B[:0]
	b.first = b.first[:0]
	b.afterKey = false
}

// AppendString appends s as a JSON string with jansson's escaping.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		// copy the run of bytes that need no escaping at once
		j := i
		for j < len(s) && s[j] >= 0x20 && s[j] < 0x7f && s[j] != '"' && s[j] != '\\' {
			j++
		}
		dst = append(dst, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"':
			dst = append(dst, `\"`...)
		case c == '\\':
			dst = append(dst, `\\`...)
		case c == '\n':
			dst = append(dst, `\n`...)
		case c == '\r':
			dst = append(dst, `\r`...)
		case c == '\t':
			dst = append(dst, `\t`...)
		case c == '\b':
			dst = append(dst, `\b`...)
		case c == '\f':
			dst = append(dst, `\f`...)
		case c < 0x20 || c == 0x7f:
			dst = append(dst, `\u00`...)
			dst = append(dst, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
			continue
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}
