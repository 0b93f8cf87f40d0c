package plugin

import (
	"bufio"
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2/ktesting"

	"github.com/gofluxion/gofluxion/service/client"
)

// The remote matcher is tested against a real gofluxiond process, built
// from the service module (../../../service) with that module's own
// go.mod, so this module needs only the client's packages.

var gofluxiond struct {
	once sync.Once
	path string
	err  error
}

// buildGofluxiond builds service/cmd/gofluxiond once per test binary.
func buildGofluxiond(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs gofluxiond")
	}
	gofluxiond.once.Do(func() {
		dir, err := os.MkdirTemp("", "gofluxiond")
		if err != nil {
			gofluxiond.err = err
			return
		}
		gofluxiond.path = filepath.Join(dir, "gofluxiond")
		cmd := exec.Command("go", "build", "-o", gofluxiond.path, "./cmd/gofluxiond")
		cmd.Dir = filepath.Join("..", "..", "..", "service")
		if out, err := cmd.CombinedOutput(); err != nil {
			gofluxiond.err = err
			gofluxiond.path = string(out)
		}
	})
	if gofluxiond.err != nil {
		t.Fatalf("building gofluxiond: %v\n%s", gofluxiond.err, gofluxiond.path)
	}
	return gofluxiond.path
}

var servingRE = regexp.MustCompile(`serving \S+ mode on (\S+)`)

// startGofluxiond starts a stand-alone gofluxiond with the plugin's empty
// graph (args: its policy and filters) on a free loopback port, and
// returns its address; it is killed at the end of the test.
func startGofluxiond(t *testing.T, a *Args) string {
	t.Helper()
	bin := buildGofluxiond(t)
	cmd := exec.Command(bin, "-mode", "standalone", "-listen", "127.0.0.1:0", "-data", t.TempDir(),
		"-graph", "empty", "-types", strings.Join(pluginTypes(a), ","),
		"-policy", a.Policy, "-prune-filters", a.PruneFilters)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(time.Minute):
		t.Fatal("gofluxiond did not start")
	}
	return ""
}

// remoteCluster makes a Cluster (zoneRack args) over the service at addr.
func remoteCluster(t *testing.T, addr string) (*Cluster, *client.Client) {
	t.Helper()
	a := &Args{Matcher: &MatcherArgs{Address: addr}}
	zoneRack(a)
	a.SetDefaults()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	logger, ctx := ktesting.NewTestContext(t)
	m, cl, err := newRemoteMatcher(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return NewClusterWith(a, m, logger), cl
}

// With the matcher service, the plugin decides as with the reference in
// process (TestGangJobsDecideAsPerPodJobs's stream and checks); a second
// plugin started on the used service empties it and decides again as a
// fresh one in process.
func TestRemoteMatcher(t *testing.T) {
	a := &Args{}
	zoneRack(a)
	a.SetDefaults()
	addr := startGofluxiond(t, a)
	c, cl := remoteCluster(t, addr)
	gangJobStream(t, 1, 120, c)
	if st, err := cl.Stats(); err != nil || st.Vertices < 2 || st.Jobs == 0 {
		t.Fatalf("the service holds %+v (%v) after the stream", st, err)
	}

	// a restart: the new plugin empties the service and rebuilds
	r, cl2 := remoteCluster(t, addr)
	if st, err := cl2.Stats(); err != nil || st.Vertices != 1 || st.Jobs != 0 {
		t.Fatalf("after the reset the service holds %+v (%v)", st, err)
	}
	l := newCluster(t, zoneRack)
	k := newClock()
	withClock(r, k)
	withClock(l, k)
	nodes := []*v1.Node{lnode("n0", "z0", "r0", 8, 16, 1), lnode("n1", "z0", "r1", 8, 16, 1), lnode("n2", "z1", "r1", 8, 16, 0)}
	addNodes(r, nodes...)
	addNodes(l, nodes...)
	for i, name := range []string{"g", "h"} {
		pr := gangPods(name, 2, 3000, 2048, int64(i))
		pl := gangPods(name, 2, 3000, 2048, int64(i))
		a, ea := r.Place("default/"+name, pr, nil)
		b, eb := l.Place("default/"+name, pl, nil)
		if (ea == nil) != (eb == nil) || ea == nil && (!maps.Equal(a.Nodes, b.Nodes) || a.Scope != b.Scope) || ea != nil && ea.Error() != eb.Error() {
			t.Fatalf("gang %s: remote %v %v, in process %v %v", name, a, ea, b, eb)
		}
	}
	if st, lt := r.Stats(), l.Stats(); st.Vertices != lt.Vertices || st.Jobs != lt.Jobs {
		t.Errorf("stats: remote %+v, in process %+v", st, lt)
	}
}

// A remote matcher that cannot be reached, or whose graph is not the
// plugin's, is a start-up error that says so.
func TestRemoteMatcherStartupErrors(t *testing.T) {
	a := &Args{Matcher: &MatcherArgs{Address: "127.0.0.1:1", TimeoutSeconds: 1}}
	a.SetDefaults()
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	_, _, err := newRemoteMatcher(context.Background(), a)
	if err == nil || !strings.Contains(err.Error(), "matcher 127.0.0.1:1: cannot reach the matcher service") {
		t.Errorf("unreachable: %v", err)
	}

	bin := buildGofluxiond(t)
	cmd := exec.Command(bin, "-mode", "standalone", "-listen", "127.0.0.1:0", "-data", t.TempDir(), "-graph", "demo")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGKILL); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	var addr string
	for addr == "" && sc.Scan() {
		if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	cl, err := client.Dial([]string{addr})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	before, err := cl.Stats()
	if err != nil {
		t.Fatal(err)
	}
	a.Matcher = &MatcherArgs{Address: addr, TimeoutSeconds: 10}
	_, _, err = newRemoteMatcher(context.Background(), a)
	if err == nil || !strings.Contains(err.Error(), "is not the plugin's") || !strings.Contains(err.Error(), "-graph empty") {
		t.Errorf("demo graph: %v", err)
	}
	if after, err := cl.Stats(); err != nil || after != before {
		t.Errorf("the service changed: %+v, then %+v (%v)", before, after, err)
	}
}
