package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/internal/idset"
)

// Issue 13 item 3: `remove 0-9223372036854775805 false` expanded the set
// and died out of memory. Fluxion walks the ranks in order and fails at
// the first one the graph lacks, so only the ranks up to it matter: the
// output is that of the set cut there, and costs nothing more.
func TestRemoveHugeRankSetBounded(t *testing.T) {
	jobs := strings.Repeat("match allocate testdata/jobspecs/nodes-exclusive.yaml\n", 2)
	after := "find sched-now=allocated\nfind status=up\ninfo 1\ninfo 2\nquit\n"
	for _, c := range []struct{ huge, cut string }{
		{"0-9223372036854775805", "0-8"},
		{"3,99-9223372036854775805", "3,99"},
		{"9-9223372036854775805", "9"},
		{"1,3,5,7,9-100000000", "1,3,5,7,9"},
	} {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		out, so, se, _ := runCLI(t, nil, jobs+"remove "+c.huge+" false\n"+after)
		runtime.ReadMemStats(&b)
		out += "\n--stdout--\n" + so + "\n--stderr--\n" + se
		want, so, se, _ := runCLI(t, nil, jobs+"remove "+c.cut+" false\n"+after)
		want += "\n--stdout--\n" + so + "\n--stderr--\n" + se
		if scrub(out) != scrub(want) {
			t.Errorf("remove %s false:\n%s", c.huge, diffLines(scrub(want), scrub(out)))
		}
		if !strings.Contains(out, "not found in by_rank map") {
			t.Errorf("remove %s false: no failure in\n%s", c.huge, out)
		}
		if n := b.TotalAlloc - a.TotalAlloc; n > 64<<20 {
			t.Errorf("remove %s false allocated %d bytes", c.huge, n)
		}
	}
}

func TestRemovalOrder(t *testing.T) {
	known, _ := idset.Parse("0-7,10")
	for _, c := range []struct{ set, want string }{
		{"", ""},
		{"3", "3"},
		{"0-7", "0-7"},
		{"0-9223372036854775806", "0-8"},
		{"3,99", "3,99"},
		{"10,12-20", "10,12"},
		{"5-9", "5-8"},
		{"8-9223372036854775806", "8"},
	} {
		set, err := idset.Parse(c.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := idset.Encode(removalOrder(set, known)); got != c.want {
			t.Errorf("removalOrder(%s) = %s, want %s", c.set, got, c.want)
		}
	}
}

// Issue 13 item 6: a find of 8M nested parentheses overflowed the stack.
func TestFindDeepNestingBounded(t *testing.T) {
	deep := strings.Repeat("(", 4<<20) + "status=up" + strings.Repeat(")", 4<<20)
	out, _, stderr, code := runCLI(t, nil, "find "+deep+"\nfind status=down\nquit\n")
	if code != 0 {
		t.Fatalf("exit status %d", code)
	}
	if want := "findfind: criteria nest parentheses more than 256 deep.\n"; !strings.Contains(out+stderr, want) {
		t.Errorf("output %q, stderr %q: want %q", clipped(out), clipped(stderr), want)
	}
}

func clipped(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
