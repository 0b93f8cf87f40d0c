package boundedio

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadAll(t *testing.T) {
	long := strings.Repeat("x", 2000)
	for _, c := range []struct {
		name        string
		in          string
		hint, limit int64
		want        int // bytes read
	}{
		{"empty", "", 0, 10, 0},
		{"exact hint", long, 2001, 4096, 2000},
		{"small hint grows", long, 1, 4096, 2000},
		{"at the limit", long, 0, 2000, 2000},
		{"over the limit: limit+1", long, 0, 1500, 1501},
		{"hint over the limit", long, 1 << 40, 100, 101},
	} {
		got, err := ReadAll(strings.NewReader(c.in), c.hint, c.limit)
		if err != nil || len(got) != c.want || string(got) != c.in[:c.want] {
			t.Errorf("%s: got %d bytes, %v; want %d", c.name, len(got), err, c.want)
		}
	}
	boom := errors.New("boom")
	if _, err := ReadAll(io.MultiReader(strings.NewReader("ab"), iotest.ErrReader(boom)), 0, 10); !errors.Is(err, boom) {
		t.Errorf("read error: got %v, want %v", err, boom)
	}
}
