package jsonw

import "testing"

func TestBuf(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *Buf)
		want  string
	}{
		{"empty object", func(b *Buf) { b.Open('{'); b.Close('}') }, `{}`},
		{"empty array", func(b *Buf) { b.Open('['); b.Close(']') }, `[]`},
		{"members", func(b *Buf) {
			b.Open('{')
			b.Key("a")
			b.Int(1)
			b.Key("b")
			b.Open('[')
			b.String("x")
			b.Bool(true)
			b.Open('{')
			b.Close('}')
			b.Close(']')
			b.Key("c")
			b.Raw(`{"k": 2}`)
			b.Close('}')
		}, `{"a": 1, "b": ["x", true, {}], "c": {"k": 2}}`},
		{"escapes", func(b *Buf) { b.String("q\"\\\n\t\x01é") }, `"q\"\\\n\t\u0001é"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b Buf
			tc.build(&b)
			if got := string(b.B); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
