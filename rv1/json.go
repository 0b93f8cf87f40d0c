package rv1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jnode is a decoded JSON value that keeps object members in document
// order (a repeated key keeps its first position and its last value, as in
// jansson, which Fluxion parses with).
type jnode struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	str  string
	num  json.Number
	keys []string
	vals []*jnode
	arr  []*jnode
}

var kindNames = map[byte]string{'o': "an object", 'a': "an array", 's': "a string", 'n': "a number", 'b': "a boolean", 'z': "null"}

func (n *jnode) kindName() string { return kindNames[n.kind] }

// get returns member key of an object, or nil.
func (n *jnode) get(key string) *jnode {
	if n == nil || n.kind != 'o' {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// isInt reports whether a number is written as an integer (jansson's
// "integer" as opposed to "real").
func (n *jnode) isInt() bool {
	return n.kind == 'n' && !strings.ContainsAny(string(n.num), ".eE")
}

// decodeJSON parses data as Fluxion's jansson does in the respects that
// matter here: the input ends at the first NUL byte, it must be valid
// UTF-8, the top level must be an object or array, integers must fit in
// 64 bits, reals must not overflow and strings must not contain NUL.
func decodeJSON(data []byte) (*jnode, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		data = data[:i]
	}
	if !utf8.Valid(data) {
		return nil, errors.New("invalid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' && d != '[' {
		return nil, errors.New("the document is not a JSON object or array")
	}
	v, err := decodeValue(dec, tok)
	if err != nil {
		return nil, jsonErr(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON document")
	}
	return v, nil
}

func jsonErr(err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

func decodeValue(dec *json.Decoder, tok json.Token) (*jnode, error) {
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			n := &jnode{kind: 'a'}
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec, tok)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		n := &jnode{kind: 'o'}
		index := map[string]int{}
		for dec.More() {
			ktok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key := ktok.(string)
			if strings.IndexByte(key, 0) >= 0 {
				return nil, errors.New("NUL byte in object key")
			}
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeValue(dec, tok)
			if err != nil {
				return nil, err
			}
			if i, ok := index[key]; ok {
				n.vals[i] = v
				continue
			}
			index[key] = len(n.keys)
			n.keys = append(n.keys, key)
			n.vals = append(n.vals, v)
		}
		_, err := dec.Token() // '}'
		return n, err
	case string:
		if strings.IndexByte(t, 0) >= 0 {
			return nil, errors.New(`\u0000 in a string`)
		}
		return &jnode{kind: 's', str: t}, nil
	case json.Number:
		n := &jnode{kind: 'n', num: t}
		if n.isInt() {
			if _, err := strconv.ParseInt(string(t), 10, 64); err != nil {
				return nil, fmt.Errorf("integer %s out of the 64-bit range", t)
			}
		} else if f, _ := strconv.ParseFloat(string(t), 64); math.IsInf(f, 0) {
			return nil, fmt.Errorf("real number %s overflows", t)
		}
		return n, nil
	case bool:
		return &jnode{kind: 'b'}, nil
	case nil:
		return &jnode{kind: 'z'}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}
