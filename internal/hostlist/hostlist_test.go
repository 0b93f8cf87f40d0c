package hostlist

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		in   string
		want string // space separated
	}{
		{"", ""},
		{"node1", "node1"},
		{"node[0-3]", "node0 node1 node2 node3"},
		{"fluke[82-86,94-95]", "fluke82 fluke83 fluke84 fluke85 fluke86 fluke94 fluke95"},
		{"login,node[1-2]", "login node1 node2"},
		{"node[00-03]", "node00 node01 node02 node03"},
		{"node[9-10]", "node9 node10"},
		{"node[1-010]", "node1 node2 node3 node4 node5 node6 node7 node8 node9 node10"},
		{"node[098-100]", "node098 node099 node100"},
		{"node[1,0]", "node1 node0"},
		{"node[1],node[1]", "node1 node1"},
		{"a[1-2],b[3],c", "a1 a2 b3 c"},
		{"[1-2]", "1 2"},
		{"rack1[2-3]", "rack12 rack13"},
		{"a,,b", "a b"},
		{"a b\tc", "a b c"},
		{"login-1,io-node[7]", "login-1 io-node7"},
	}
	for _, tc := range tests {
		got, err := Expand(tc.in)
		if err != nil {
			t.Errorf("Expand(%q): %v", tc.in, err)
			continue
		}
		want := strings.Fields(tc.want)
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("Expand(%q) = %q, want %q", tc.in, got, want)
		}
	}
}

func TestExpandErrors(t *testing.T) {
	for _, in := range []string{
		"node[", "node]", "node[1-2", "node1-2]", "node[]", "node[1,]", "node[,1]",
		"node[3-1]", "node[a]", "node[1-b]", "node[-1]", "node[1-]", "node[[1]]",
		"node[1]x", "rack[0-1]node[0-3]", "node[1][2]", "node[1-2-3]", "node[ 1]",
		"node[99999999999999999999]", "a,b[1",
	} {
		got, err := Expand(in)
		if err == nil {
			t.Errorf("Expand(%q) = %q, want error", in, got)
			continue
		}
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("Expand(%q) error %v does not wrap ErrSyntax", in, err)
		}
	}
	if _, err := Expand("n[0-2000000]"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("huge expand: %v", err)
	}
	h, err := Parse("n[0-18446744073709551615],x")
	if err != nil {
		t.Fatal(err)
	}
	if h.Bytes() != ^uint64(0) {
		t.Errorf("Bytes saturation: %d", h.Bytes())
	}
	h, err = Parse("n[0-18446744073709551615],x")
	if err != nil {
		t.Fatal(err)
	}
	if h.Len() != ^uint64(0) {
		t.Errorf("Len saturation: %d", h.Len())
	}
	if !h.Contains("n18446744073709551615") || !h.Contains("x") || h.Contains("n18446744073709551616") {
		t.Error("Contains on a huge list")
	}
}

func TestHostsLongPrefixBounded(t *testing.T) {
	// 4 KB of prefix repeated by a million hosts is 4 GB of names: refused
	// before any is built.
	in := strings.Repeat("x", 4096) + "[0-999999]"
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	got, err := Expand(in)
	runtime.ReadMemStats(&b)
	if !errors.Is(err, ErrTooLarge) || got != nil {
		t.Fatalf("Expand = %d hosts, %v; want ErrTooLarge", len(got), err)
	}
	if !strings.Contains(err.Error(), "bytes of host names") {
		t.Errorf("error %q does not say why", err)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing allocated %d bytes", n)
	}
	h, _ := Parse("a[7-12],bb,c[008-9]")
	if got, want := h.Bytes(), uint64(6*3+2+2*4); got != want {
		t.Errorf("Bytes = %d, want %d", got, want) // a7..a12 counted at 3 bytes each
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		in   string // space separated hosts
		want string
	}{
		{"", ""},
		{"node0 node1 node2 node3", "node[0-3]"},
		{"fluke82 fluke83 fluke84 fluke85 fluke86 fluke94 fluke95 fluke100 fluke102", "fluke[82-86,94-95,100,102]"},
		{"node1 node0", "node[1,0]"},
		{"node1", "node1"},
		{"login node1 node2", "login,node[1-2]"},
		{"node9 node10", "node[9-10]"},
		{"node09 node10", "node[09-10]"},
		{"node9 node010", "node[9,010]"},
		{"node1 node1", "node[1,1]"},
		{"login login", "login,login"},
		{"a1 b1 a2", "a1,b1,a2"},
		{"a1 a2 login a3", "a[1-2],login,a3"},
		{"node99 node100 node101", "node[99-101]"},
		{"node098 node099 node100", "node[098-100]"},
		{"node008 node009 node10", "node[008-009,10]"},
		{"1 2 3", "[1-3]"},
		{"x7", "x7"},
		{"node0 node1 rack0", "node[0-1],rack0"},
		{"n18446744073709551615 n18446744073709551616", "n18446744073709551615,n18446744073709551616"},
	}
	for _, tc := range tests {
		if got := Encode(strings.Fields(tc.in)); got != tc.want {
			t.Errorf("Encode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// "node9,node010" joins nothing but they share a prefix group.
	if got := Encode([]string{"node9", "node010"}); got != "node[9,010]" {
		t.Errorf("got %q", got)
	}
}

func TestContains(t *testing.T) {
	h, err := Parse("login,node[00-03,7],fluke[9-10],rack1[2-3]")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"login": true, "node00": true, "node03": true, "node7": true, "fluke9": true, "fluke10": true,
		"rack12": true, "rack13": true,
		"node0": false, "node3": false, "node07": false, "node04": false, "node007": false,
		"fluke09": false, "fluke010": false, "fluke11": false, "rack14": false, "rack2": false,
		"logi": false, "login0": false, "": false, "node": false,
	} {
		if got := h.Contains(name); got != want {
			t.Errorf("Contains(%q) = %v, want %v", name, got, want)
		}
	}
	var empty Set
	if empty.Contains("") || empty.Len() != 0 {
		t.Error("zero Set")
	}
	if err := h.Append("bad["); err == nil {
		t.Error("Append(bad[) succeeded")
	}
	if err := h.Append("extra1"); err != nil || !h.Contains("extra1") || !h.Contains("login") {
		t.Errorf("Append: %v", err)
	}
}

func ExampleEncode() {
	fmt.Println(Encode([]string{"login", "node1", "node2", "node9", "node10"}))
	// Output: login,node[1-2,9-10]
}

func ExampleExpand() {
	hosts, _ := Expand("node[00-02],login")
	fmt.Println(hosts)
	// Output: [node00 node01 node02 login]
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		"", "node[0-3]", "fluke[82-86,94-95]", "login,node[1-2]", "node[00-03]", "node1",
		"node[9-10]", "a[1-010]", "x1[2-3],x[14]", "node[", "a]", "n[3-1]", "[0-5]",
		strings.Repeat("x", 4096) + "[0-999999]", "n[0-18446744073709551615]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		h, err := Parse(in)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if h.Len() > 5000 {
			return
		}
		hosts, err := h.Hosts()
		if err != nil {
			t.Fatal(err)
		}
		total := uint64(0)
		for _, name := range hosts {
			total += uint64(len(name))
		}
		if b := h.Bytes(); b < total {
			t.Fatalf("%q: Bytes %d below the real %d", in, b, total)
		}
		for _, name := range hosts {
			if !h.Contains(name) {
				t.Fatalf("%q: Contains(%q) = false", in, name)
			}
		}
		enc := Encode(hosts)
		again, err := Expand(enc)
		if err != nil {
			t.Fatalf("%q: Expand(Encode) of %q: %v", in, enc, err)
		}
		if !slices.Equal(again, hosts) {
			t.Fatalf("%q: round trip via %q: %q != %q", in, enc, again, hosts)
		}
		if Encode(again) != enc {
			t.Fatalf("%q: Encode not stable", in)
		}
	})
}
