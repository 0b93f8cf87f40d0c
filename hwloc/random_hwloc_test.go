package hwloc

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// TestRandomAgainstHwloc is an opt-in long differential test
// (HWLOC_RANDOM=N runs N machines): random synthetic machines made by
// hwloc's lstopo (sockets, NUMA nodes, caches, groups, hyperthreads, a
// host name or none, some exported as hwloc 1.x XML) are read directly
// and after hwloc shaped them with Fluxion's filters (about half of them
// with GPUs, disks and network devices on random objects); both reads must
// give the same graph, and the graph must have as many objects of every
// kind as hwloc kept.
func TestRandomAgainstHwloc(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HWLOC_RANDOM"))
	if n == 0 {
		t.Skip("set HWLOC_RANDOM=N to run N random machines")
	}
	lstopo, err := exec.LookPath("lstopo-no-graphics")
	if err != nil {
		t.Skip("lstopo-no-graphics not installed")
	}
	seed, _ := strconv.ParseInt(os.Getenv("HWLOC_SEED"), 10, 64)
	rng := rand.New(rand.NewSource(seed))
	types := regexp.MustCompile(`<object type="([A-Za-z0-9]+)"`)
	fails := 0
	for i := 0; i < n && fails < 10; i++ {
		desc := randomSynthetic(rng)
		args := []string{"-i", desc, "--filter", "all:all", "--of", "xml"}
		v1 := rng.Intn(3) == 0
		if v1 {
			args = append(args, "--export-xml-flags", "1")
		}
		orig, err := exec.Command(lstopo, append(args, "-")...).Output()
		if err != nil {
			continue // hwloc rejects the description
		}
		if rng.Intn(4) != 0 {
			orig = bytes.Replace(orig, []byte(`<info name="Backend" value="Synthetic"/>`),
				[]byte(fmt.Sprintf(`<info name="HostName" value="host%d"/>`, rng.Intn(20))), 1)
		}
		if rng.Intn(2) == 0 {
			orig = addDevices(rng, orig, v1)
		}
		f, _ := os.CreateTemp(t.TempDir(), "*.xml")
		f.Write(orig)
		f.Close()
		out, err := exec.Command(lstopo, "-i", f.Name(), "--filter", "cache:structure", "--filter", "icache:none",
			"--filter", "io:important", "--of", "xml", "-").Output()
		if err != nil {
			var ee *exec.ExitError
			errors.As(err, &ee)
			t.Errorf("%s: lstopo: %v %s", desc, err, ee.Stderr)
			continue
		}
		allow := [...]string{"", "cluster,node,socket,L3cache,core", "cluster,node,group,L2cache,L1cache,pu",
			"cluster,numanode,core"}[rng.Intn(4)]
		g1, err := Read(orig, allow)
		if err != nil {
			t.Errorf("%s v1=%v: %v", desc, v1, err)
			fails++
			continue
		}
		g2, err := Read(bytes.Clone(out), allow)
		if err != nil {
			t.Errorf("%s (hwloc's): %v", desc, err)
			fails++
			continue
		}
		if a, b := facts(g1), facts(g2); !slices.Equal(a, b) {
			t.Errorf("%s v1=%v -W %q: differs from hwloc's topology:\nours  %v\nhwloc %v", desc, v1, allow, a, b)
			fails++
			continue
		}
		if allow != "" {
			continue
		}
		// counts: hwloc's shaped document against our vertices
		want := map[string]int{}
		for _, m := range types.FindAllSubmatch(out, -1) {
			switch k := string(m[1]); k {
			case "Package":
				want["socket"]++
			case "NUMANode":
				want["numanode"]++
			case "Group":
				want["group"]++
			case "Core":
				want["core"]++
			case "PU":
				want["pu"]++
			case "OSDev":
				// counted below by kind
			case "L1Cache", "L2Cache", "L3Cache":
				want[strings.Replace(k, "Cache", "cache", 1)]++
			}
		}
		got := map[string]int{}
		for v := graph.VertexID(1); int(v) < g1.NumVertices(); v++ {
			if b := g1.V(v).Basename; g1.TypeName(v) != "node" {
				got[b]++
			}
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s v1=%v: %d %s vertices, hwloc kept %d (ours %v, hwloc %v)", desc, v1, got[k], k, w, got, want)
				fails++
				break
			}
		}
	}
}

func randomSynthetic(rng *rand.Rand) string {
	var parts []string
	add := func(typ string, max int) { parts = append(parts, fmt.Sprintf("%s:%d", typ, 1+rng.Intn(max))) }
	numa := rng.Intn(4) // level above which the NUMA nodes attach
	level := 0
	maybeNUMA := func() {
		if level == numa {
			parts = append(parts, "[numa]")
		}
		level++
	}
	if rng.Intn(3) == 0 {
		add("group", 2)
	}
	add("pack", 3)
	maybeNUMA()
	if rng.Intn(2) == 0 {
		add("l3", 2)
		maybeNUMA()
	}
	if rng.Intn(3) == 0 {
		add("group", 3)
		maybeNUMA()
	}
	if rng.Intn(2) == 0 {
		add("l2", 2)
		maybeNUMA()
	}
	add("core", 3)
	if rng.Intn(2) == 0 {
		add("l1", 1)
	}
	if rng.Intn(2) == 0 {
		add("pu", 2)
	}
	if !strings.HasPrefix(parts[len(parts)-1], "pu:") || os.Getenv("HWLOC_NOPU") == "" {
		maybeNUMA()
	}
	return strings.Join(parts, " ")
}

var deviceParent = regexp.MustCompile(`<object type="(Package|Group|L3Cache|L2Cache|Core)"[^>]*[^/]>`)

var deviceParentV1 = regexp.MustCompile(`<object type="(Socket|Group|Cache|Core)"[^>]*[^/]>`)

// addDevices puts GPUs and disks (I/O children) below random normal
// objects of a v2 document.
func addDevices(rng *rand.Rand, doc []byte, v1 bool) []byte {
	re := deviceParent
	if v1 {
		re = deviceParentV1
	}
	locs := re.FindAllIndex(doc, -1)
	var b bytes.Buffer
	last := 0
	n := 0
	for _, l := range locs {
		if rng.Intn(3) != 0 {
			continue
		}
		b.Write(doc[last:l[1]])
		last = l[1]
		switch rng.Intn(3) {
		case 0:
			fmt.Fprintf(&b, `<object type="OSDev" name="cuda%d" osdev_type="5"/>`, n)
		case 1:
			fmt.Fprintf(&b, `<object type="OSDev" name="sd%c" osdev_type="0"><info name="Size" value="%d"/></object>`, 'a'+n%26, 1000000*(1+rng.Intn(900)))
		default:
			fmt.Fprintf(&b, `<object type="OSDev" name="eth%d" osdev_type="2"/>`, n)
		}
		n++
	}
	b.Write(doc[last:])
	return b.Bytes()
}
