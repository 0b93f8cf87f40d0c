package jgf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func dumpJ(b *strings.Builder, v *jvalue) {
	switch v.kind {
	case jNull:
		b.WriteString("null")
	case jTrue:
		b.WriteString("true")
	case jFalse:
		b.WriteString("false")
	case jInt:
		b.WriteString(strconv.FormatInt(v.i, 10))
	case jReal:
		b.WriteString("R")
	case jString:
		dumpS(b, v.s)
	case jArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			dumpJ(b, e)
		}
		b.WriteByte(']')
	case jObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			dumpS(b, k)
			b.WriteByte(':')
			dumpJ(b, v.vals[i])
		}
		b.WriteByte('}')
	}
}

func dumpS(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r == 0x7f && false:
			fmt.Fprintf(b, `\u%04X`, r)
		case r < 0x80:
			b.WriteRune(r)
		case r < 0x10000:
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04X\u%04X`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		}
	}
	b.WriteByte('"')
}

var realRe = strings.NewReplacer()

func TestOracle(t *testing.T) {
	if os.Getenv("JORACLE") == "" {
		t.Skip()
	}
	cmd := exec.Command("/tmp/jo/oracle")
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	cmd.Start()
	rd := bufio.NewReader(outp)
	seeds := []string{
		`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "cluster", "size": 1, "x": -12, "r": 1.5e3, "b": true, "n": null, "paths": {"containment": "/c0"}}}], "edges": [{"source": "0", "target": "1"}]}}` + "\n",
		"[1, -0, 0.5, 1e10, \"a\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\", {\"a\":1,\"a\":2,\"b\":[]}, [], {}, true, false, null]",
		"{\"k\\u0041\": \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}\n\n",
		"  \n\t{ \"a\" : [ 1 , 2 , 3 ] , \"b\" : { \"c\" : \"d\" } }  \r\n",
	}
	seeds = append(seeds, strings.Repeat("[", 2047)+strings.Repeat("]", 2047), strings.Repeat("[", 2048)+strings.Repeat("]", 2048), strings.Repeat("[", 2049)+strings.Repeat("]", 2049), strings.Repeat(`{"a":`, 2049)+"1"+strings.Repeat("}", 2049),
		"[0.0, -1.5e-3, 2E+2, 1e-400, 9223372036854775807, -9223372036854775808, 9223372036854775808, \"\\u00e9\"]")
	specials := []string{"\x00", "\n", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\ud800\\u0041", "\xc3", "\xff", "\xe2\x82", "\xed\xa0\x80", "\xc0\x80", "{", "}", "[", "]", ",", ":", "-", "0", "00", "1.", "1e", "1e+", ".5", "tru", "nul", "99999999999999999999", "-99999999999999999999", "1e999", "\t", "\x01", "\\x", "abc", "\xf4\x90\x80\x80", "\xf0\x80\x80\x80", "+1", "\\u0000", "é"}
	r := rand.New(rand.NewSource(1))
	var inputs []string
	for _, s := range seeds {
		inputs = append(inputs, s)
		for i := 0; i <= len(s); i++ {
			inputs = append(inputs, s[:i])
		}
	}
	for n := 0; n < 300000; n++ {
		s := []byte(seeds[r.Intn(len(seeds))])
		for k := r.Intn(3) + 1; k > 0; k-- {
			p := r.Intn(len(s) + 1)
			switch r.Intn(4) {
			case 0:
				sp := specials[r.Intn(len(specials))]
				s = append(s[:p:p], append([]byte(sp), s[p:]...)...)
			case 1:
				if p < len(s) {
					s = append(s[:p:p], s[p+1:]...)
				}
			case 2:
				if p < len(s) {
					s[p] = byte(r.Intn(256))
				}
			case 3:
				s = s[:p]
			}
		}
		inputs = append(inputs, string(s))
	}
	fails := 0
	for _, s := range inputs {
		var lb [4]byte
		binary.LittleEndian.PutUint32(lb[:], uint32(len(s)))
		in.Write(lb[:])
		in.Write([]byte(s))
		want, _ := rd.ReadString('\n')
		want = strings.TrimSuffix(want, "\n")
		var got string
		v, e := decodeJSON([]byte(s))
		if e != nil {
			got = fmt.Sprintf("%s: <string>@%d:%d.", e.text, e.line, e.column)
		} else {
			var b strings.Builder
			dumpJ(&b, v)
			got = "OK " + b.String()
		}
		got = strings.ReplaceAll(got, "\n", "<NL>")
		if strings.HasPrefix(want, "OK ") && strings.HasPrefix(got, "OK ") {
			// mask reals in want
			if strings.Contains(got, "R") || true {
				// compare lengths loosely: replace reals
				if !strings.Contains(got, "R") && want != got {
					goto bad
				}
				continue
			}
		}
		if want == got {
			continue
		}
	bad:
		fails++
		if fails < 30 {
			t.Errorf("input %q\n want %q\n  got %q", s, want, got)
		}
	}
	t.Logf("%d inputs, %d mismatches", len(inputs), fails)
	in.Close()
	cmd.Wait()
}
