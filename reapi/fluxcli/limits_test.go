package fluxcli_test

import (
	"runtime"
	"testing"
)

// Issue 13 item 3: SetRankStatus("0-9223372036854775805", ...) expanded
// the set and died out of memory. Fluxion's answer is success, ignoring
// the ranks the graph lacks: kept, but the set is intersected with the
// graph's ranks instead of expanded.
func TestSetRankStatusHugeRangeBounded(t *testing.T) {
	cli := newClient(t, 2, 2, `"match_format": "simple"`)
	for _, c := range []struct{ ranks, status, want string }{
		{"0-9223372036854775805", "down", "down"},
		{"1-100000000", "up", "up"},
	} {
		var err error
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		err = cli.SetRankStatus(c.ranks, c.status)
		runtime.ReadMemStats(&b)
		if err != nil {
			t.Fatalf("SetRankStatus(%s): %v", c.ranks, err)
		}
		if n := b.TotalAlloc - a.TotalAlloc; n > 1<<20 {
			t.Errorf("SetRankStatus(%s) allocated %d bytes", c.ranks, n)
		}
		if got, err := cli.GetRankStatus("1"); err != nil || got != c.want {
			t.Errorf("after SetRankStatus(%s, %s): rank 1 is %q, %v", c.ranks, c.status, got, err)
		}
	}
	if got, _ := cli.GetRankStatus("0"); got != "down" {
		t.Errorf("rank 0 is %q, want down (1-100000000 does not name it)", got)
	}
}
