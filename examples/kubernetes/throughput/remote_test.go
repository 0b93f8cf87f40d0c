package throughput

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/gofluxion/gofluxion/service/client"
)

// The remote-matcher case: case (a) with the GoFluxion profile whose
// matcher is a stand-alone gofluxiond (service/cmd/gofluxiond, built from
// the service module with its own go.mod, run on loopback with its
// journal on the local disk): one RPC, answered once fsynced, per pod.
// The service batches concurrent operations into one fsync, but the
// scheduler places one pod at a time, so each pod waits for its own.

// remoteProfile is the gofluxion profile with the matcher at addr.
func remoteProfile(addr string) string {
	return strings.Replace(profiles["gofluxion"], "          policy: lonode\n",
		fmt.Sprintf("          policy: lonode\n          matcher: {address: %q}\n", addr), 1)
}

// startGofluxiond builds gofluxiond and starts it stand-alone with the
// plugin's empty graph (its types, policy and filters), returning its
// address; it is killed when b ends.
func startGofluxiond(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "gofluxiond")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/gofluxiond")
	cmd.Dir = filepath.Join("..", "..", "..", "service")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building gofluxiond: %v\n%s", err, out)
	}
	srv := exec.Command(bin, "-mode", "standalone", "-listen", "127.0.0.1:0", "-data", b.TempDir(),
		"-graph", "empty", "-types", "node,numa,slot,unlabelled,core,gpu,memory,rack",
		"-policy", "lonode", "-prune-filters", "ALL:core,ALL:gpu,ALL:memory,ALL:node")
	stderr, err := srv.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGKILL)
		_ = srv.Wait()
	})
	re := regexp.MustCompile(`serving \S+ mode on (\S+)`)
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return a
	case <-time.After(time.Minute):
		b.Fatal("gofluxiond did not start")
	}
	return ""
}

// BenchmarkThroughputRemote is case (a) of BenchmarkThroughput with the
// GoFluxion profile using a remote matcher (gofluxiond on loopback).
// Run it with -benchtime 1x; compare with BenchmarkThroughput's
// default/a-singles and gofluxion/a-singles.
func BenchmarkThroughputRemote(b *testing.B) {
	n := benchNodes()
	addr := startGofluxiond(b)
	const prof = "gofluxion-remote"
	profiles[prof] = remoteProfile(addr)
	defer delete(profiles, prof)
	var podsPerSec float64
	for range b.N {
		var pods []*v1.Pod
		for i := range n {
			pods = append(pods, makePod(fmt.Sprintf("p-%05d", i), "gofluxion"))
		}
		e := newEnv(b, prof, n, 0, pods)
		d, _ := e.run(b, runTimeout(2*time.Hour))
		podsPerSec = float64(n) / d.Seconds()
		e.stop()
		// The bookings are the service's: the plugin did use it.
		cl, err := client.Dial([]string{addr})
		if err != nil {
			b.Fatal(err)
		}
		st, err := cl.Stats()
		cl.Close()
		if err != nil || st.Jobs != n {
			b.Fatalf("the service holds %d jobs for %d pods bound (%v)", st.Jobs, n, err)
		}
	}
	b.ReportMetric(podsPerSec, "pods/s")
	fmt.Fprintf(os.Stdout, "\nBenchmarkThroughputRemote: %d nodes, (a) %d single pods, GoFluxion with a remote matcher: %.0f pods/s\n", n, n, podsPerSec)
}
