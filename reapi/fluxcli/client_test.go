package fluxcli_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
	"github.com/gofluxion/gofluxion/reapi/types"
)

// every method of the client, called with harmless arguments.
var allCalls = []struct {
	name string
	call func(c *fluxcli.ReapiClient) error
}{
	{"Match", func(c *fluxcli.ReapiClient) error {
		_, _, _, _, _, err := c.Match(types.MatchAllocate, jobspecText(1, 1, 60))
		return err
	}},
	{"MatchAllocate", func(c *fluxcli.ReapiClient) error {
		_, _, _, _, _, err := c.MatchAllocate(true, jobspecText(1, 1, 60))
		return err
	}},
	{"MatchWithJobID", func(c *fluxcli.ReapiClient) error {
		_, _, _, _, _, err := c.MatchWithJobID(types.MatchAllocate, jobspecText(1, 1, 60), 5)
		return err
	}},
	{"MatchSatisfy", func(c *fluxcli.ReapiClient) error { _, _, err := c.MatchSatisfy(jobspecText(1, 1, 60)); return err }},
	{"UpdateAllocate", func(c *fluxcli.ReapiClient) error { _, _, _, err := c.UpdateAllocate(1, "{}"); return err }},
	{"Cancel", func(c *fluxcli.ReapiClient) error { return c.Cancel(1, true) }},
	{"PartialCancel", func(c *fluxcli.ReapiClient) error { _, err := c.PartialCancel(1, "{}", true); return err }},
	{"Info", func(c *fluxcli.ReapiClient) error { _, _, _, _, err := c.Info(1); return err }},
	{"Stat", func(c *fluxcli.ReapiClient) error { _, _, _, _, _, _, _, err := c.Stat(); return err }},
	{"Find", func(c *fluxcli.ReapiClient) error { _, err := c.Find("status=up"); return err }},
	{"FindWithFormat", func(c *fluxcli.ReapiClient) error { _, err := c.FindWithFormat("status=up", "simple"); return err }},
	{"SetStatus", func(c *fluxcli.ReapiClient) error { return c.SetStatus("/cluster0", "up") }},
	{"GetStatus", func(c *fluxcli.ReapiClient) error { _, err := c.GetStatus("/cluster0"); return err }},
	{"SetRankStatus", func(c *fluxcli.ReapiClient) error { return c.SetRankStatus("all", "up") }},
	{"GetRankStatus", func(c *fluxcli.ReapiClient) error { _, err := c.GetRankStatus("0"); return err }},
	{"AddSubgraph", func(c *fluxcli.ReapiClient) error { return c.AddSubgraph("{}") }},
	{"RemoveSubgraph", func(c *fluxcli.ReapiClient) error { return c.RemoveSubgraph("/x") }},
	{"Clone", func(c *fluxcli.ReapiClient) error { _, err := c.Clone(); return err }},
	{"Options", func(c *fluxcli.ReapiClient) error { _, err := c.Options(); return err }},
}

func TestNoContext(t *testing.T) {
	destroyed := fluxcli.NewReapiClient()
	destroyed.Destroy()
	destroyed.Destroy() // twice is fine
	var nilClient *fluxcli.ReapiClient
	for _, tc := range []struct {
		name string
		cli  *fluxcli.ReapiClient
	}{
		{"zero value", &fluxcli.ReapiClient{}},
		{"nil", nilClient},
		{"destroyed", destroyed},
	} {
		if tc.cli.HasContext() {
			t.Errorf("%s: HasContext() = true", tc.name)
		}
		if err := tc.cli.InitContext(clusterJGF(t, 1, 1), `{"load_format": "jgf"}`); !errors.Is(err, fluxcli.ErrNoContext) {
			t.Errorf("%s: InitContext: %v, want ErrNoContext", tc.name, err)
		}
		for _, c := range allCalls {
			err := c.call(tc.cli)
			if !errors.Is(err, fluxcli.ErrNoContext) || !errors.Is(err, fluxcli.ErrInvalid) {
				t.Errorf("%s: %s: %v, want ErrNoContext (EINVAL)", tc.name, c.name, err)
			}
		}
		if msg := tc.cli.GetErrMsg(); msg != "" {
			t.Errorf("%s: GetErrMsg %q", tc.name, msg)
		}
		tc.cli.ClearErrMsg()
	}
}

func TestNotInitialized(t *testing.T) {
	cli := fluxcli.NewReapiClient()
	if !cli.HasContext() {
		t.Fatal("HasContext() = false after NewReapiClient")
	}
	for _, c := range allCalls {
		err := c.call(cli)
		var e *fluxcli.Error
		if !errors.Is(err, fluxcli.ErrNotInitialized) || !errors.As(err, &e) || e.Errno != match.EINVAL {
			t.Errorf("%s before InitContext: %v, want ErrNotInitialized", c.name, err)
		}
	}
	if msg := cli.GetErrMsg(); msg != "" {
		t.Errorf("GetErrMsg %q", msg)
	}
	if err := cli.InitContext(clusterJGF(t, 1, 1), `{"load_format": "jgf"}`); err != nil {
		t.Fatal(err)
	}
	if !cli.HasContext() {
		t.Error("HasContext() = false after InitContext")
	}
	cli.Destroy()
	if cli.HasContext() {
		t.Error("HasContext() = true after Destroy")
	}
}

func TestErrMsgAccumulates(t *testing.T) {
	cli := newClient(t, 1, 1, "")
	cli.Cancel(4, true)
	cli.Info(5)
	cli.Find("what")
	want := "cancel: ERROR: nonexistent job 4\ninfo: ERROR: nonexistent job 5\nfindfind: invalid criteria: what.\n"
	if got := cli.GetErrMsg(); got != want {
		t.Errorf("GetErrMsg %q, want %q", got, want)
	}
	// Successful calls add nothing.
	cli.MatchAllocate(false, jobspecText(1, 1, 60))
	cli.Info(1)
	if got := cli.GetErrMsg(); got != want {
		t.Errorf("GetErrMsg after successes %q, want %q", got, want)
	}
	cli.ClearErrMsg()
	if got := cli.GetErrMsg(); got != "" {
		t.Errorf("GetErrMsg after ClearErrMsg %q", got)
	}
}

func TestErrorValues(t *testing.T) {
	cli := newClient(t, 1, 2, "")
	spec := jobspecText(1, 2, 60)
	cli.MatchAllocate(false, spec)
	_, _, _, _, _, busy := cli.MatchAllocate(false, spec)
	_, _, _, _, _, never := cli.Match(types.MatchAllocateWithSatisfiability, jobspecText(1, 3, 60))
	_, _, _, _, _, badSpec := cli.MatchAllocate(false, "version: 1\n")
	_, _, _, _, notFound := cli.Info(9)
	_, _, _, exists := cli.UpdateAllocate(1, "{}")
	tests := []struct {
		name string
		err  error
		is   []error
		not  []error
	}{
		{"busy", busy, []error{fluxcli.ErrBusy, match.ErrBusy}, []error{fluxcli.ErrUnsatisfiable, fluxcli.ErrInvalid, fluxcli.ErrNotFound}},
		{"never", never, []error{fluxcli.ErrUnsatisfiable, match.ErrUnsatisfiable}, []error{fluxcli.ErrBusy, fluxcli.ErrNotFound}},
		{"bad jobspec", badSpec, []error{fluxcli.ErrInvalid}, []error{fluxcli.ErrBusy, fluxcli.ErrUnsatisfiable}},
		{"unknown job", notFound, []error{fluxcli.ErrNotFound}, []error{fluxcli.ErrUnsatisfiable, fluxcli.ErrInvalid}},
		{"existing job", exists, []error{fluxcli.ErrExists}, []error{fluxcli.ErrInvalid, fluxcli.ErrNotFound}},
	}
	for _, tc := range tests {
		for _, target := range tc.is {
			if !errors.Is(tc.err, target) {
				t.Errorf("%s: errors.Is(%v, %v) = false", tc.name, tc.err, target)
			}
		}
		for _, target := range tc.not {
			if errors.Is(tc.err, target) {
				t.Errorf("%s: errors.Is(%v, %v) = true", tc.name, tc.err, target)
			}
		}
	}
	// The traverser's error is reachable with errors.As.
	var me *match.Error
	if !errors.As(busy, &me) || me.Errno != match.EBUSY {
		t.Errorf("errors.As(busy, *match.Error) = %v", me)
	}
	// Messages read well.
	if got := badSpec.Error(); !strings.HasPrefix(got, "fluxcli: match_allocate: ERROR: Jobspec error for ") || !strings.HasSuffix(got, "(Invalid argument)") {
		t.Errorf("Error() = %q", got)
	}
	if got := busy.Error(); got != "fluxcli: match_allocate: match: Device or resource busy" {
		t.Errorf("Error() = %q", got)
	}
}

func TestStat(t *testing.T) {
	cli := newClient(t, 2, 3, "")
	V, E, J, load, mn, mx, avg, err := cli.Stat()
	// cluster + 2 × (node + 3 cores + gpu) = 11 vertices, 10 edges.
	if err != nil || V != 11 || E != 10 || J != 0 || load < 0 || mn != 0 || mx != 0 || avg != 0 {
		t.Errorf("Stat() on a fresh context = %d %d %d %v %v %v %v %v", V, E, J, load, mn, mx, avg, err)
	}
	var ovs []float64
	for i := 0; i < 3; i++ {
		_, _, _, ov, _, err := cli.MatchAllocate(true, nodeJobspec(1, 100))
		if err != nil {
			t.Fatal(err)
		}
		ovs = append(ovs, ov)
	}
	cli.MatchSatisfy(nodeJobspec(1, 100))               // not timed
	cli.MatchAllocate(false, nodeJobspec(1, 100))       // busy: not timed
	cli.Cancel(1, false)                                // stays in the table
	_, _, _, _, _, _ = cli.MatchAllocate(false, "x: 1") // bad jobspec: not timed
	V, E, J, _, mn, mx, avg, err = cli.Stat()
	wantMin, wantMax, sum := ovs[0], ovs[0], 0.0
	for _, o := range ovs {
		wantMin, wantMax, sum = min(wantMin, o), max(wantMax, o), sum+o
	}
	if err != nil || V != 11 || E != 10 || J != 3 || mn != wantMin || mx != wantMax || !near(avg, sum/3) {
		t.Errorf("Stat() = %d %d %d %v %v %v %v; want J 3, min %v max %v avg %v", V, E, J, mn, mx, avg, err, wantMin, wantMax, sum/3)
	}
	if err := cli.RemoveSubgraph("/cluster0/node1"); err != nil {
		t.Fatal(err)
	}
	if V, E, _, _, _, _, _, _ = cli.Stat(); V != 11 || E != 5 {
		t.Errorf("after removing node1: V %d E %d, want 11 (vertices stay allocated) and 5", V, E)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// Two clients on the same graph text share nothing.
func TestIndependentClients(t *testing.T) {
	a := newClient(t, 1, 2, "")
	b := newClient(t, 1, 2, `"matcher_policy": "high"`)
	spec := jobspecText(1, 2, 60)
	if _, _, _, _, id, err := a.MatchAllocate(false, spec); err != nil || id != 1 {
		t.Fatalf("a: %d, %v", id, err)
	}
	// b still has the whole graph and its own counter.
	if _, _, _, _, id, err := b.MatchAllocate(false, spec); err != nil || id != 1 {
		t.Fatalf("b: %d, %v", id, err)
	}
	a.Info(42)
	if b.GetErrMsg() != "" || a.GetErrMsg() == "" {
		t.Errorf("error messages leak: a %q, b %q", a.GetErrMsg(), b.GetErrMsg())
	}
	if err := a.Cancel(1, false); err != nil {
		t.Fatal(err)
	}
	if _, _, _, mode, _ := b.Info(1); mode != "ALLOCATED" {
		t.Errorf("b's job 1 is %s after a canceled its own job 1", mode)
	}
	if err := a.SetStatus("/cluster0/node0", "down"); err != nil {
		t.Fatal(err)
	}
	if s, _ := b.GetStatus("/cluster0/node0"); s != "up" {
		t.Errorf("b sees a's status change: %s", s)
	}
	a.Destroy()
	if !b.HasContext() {
		t.Error("destroying a destroyed b")
	}
	if _, _, _, _, err := b.Info(1); err != nil {
		t.Errorf("b after a.Destroy: %v", err)
	}
}

func TestClone(t *testing.T) {
	orig := newClient(t, 2, 2, `"match_format": "simple"`)
	spec := nodeJobspec(1, 100)
	orig.MatchAllocate(false, spec) // 1: node1 allocated
	orig.MatchAllocate(true, spec)  // 2: node0 allocated
	orig.MatchAllocate(true, spec)  // 3: reserved at 100
	orig.Cancel(2, false)
	orig.SetStatus("/cluster0/node0", "down")
	orig.Info(77) // an error message that the clone does not inherit
	clone, err := orig.Clone()
	if err != nil {
		t.Fatal(err)
	}
	if clone.GetErrMsg() != "" {
		t.Errorf("clone inherited the error message %q", clone.GetErrMsg())
	}
	oo, _ := orig.Options()
	co, _ := clone.Options()
	if oo != co {
		t.Errorf("clone options %+v, want %+v", co, oo)
	}
	for id, want := range map[int64]string{1: "ALLOCATED", 2: "CANCELED", 3: "RESERVED"} {
		if _, _, _, mode, err := clone.Info(id); err != nil || mode != want {
			t.Errorf("clone Info(%d) = %q, %v; want %s", id, mode, err, want)
		}
	}
	if s, _ := clone.GetStatus("/cluster0/node0"); s != "down" {
		t.Errorf("clone status of node0: %s", s)
	}
	// Same state, same decisions, same counter.
	_, Ro, ato, _, ido, erro := orig.MatchAllocate(true, spec)
	_, Rc, atc, _, idc, errc := clone.MatchAllocate(true, spec)
	if erro != nil || errc != nil || Ro != Rc || ato != atc || ido != 4 || idc != 4 {
		t.Errorf("orig %d at %d %v, clone %d at %d %v\n%s\n%s", ido, ato, erro, idc, atc, errc, Ro, Rc)
	}
	// Then they diverge independently.
	if err := clone.Cancel(1, false); err != nil {
		t.Fatal(err)
	}
	if _, _, _, mode, _ := orig.Info(1); mode != "ALLOCATED" {
		t.Errorf("orig job 1 is %s after the clone canceled it", mode)
	}
	clone.SetStatus("/cluster0/node0", "up")
	if s, _ := orig.GetStatus("/cluster0/node0"); s != "down" {
		t.Errorf("orig sees the clone's status change")
	}
	if _, _, at, _, _, err := clone.MatchAllocate(false, spec); err != nil || at != 0 {
		t.Errorf("clone: node free after its cancel: %d, %v", at, err)
	}
	if _, _, _, _, _, err := orig.MatchAllocate(false, spec); !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("orig: still busy: %v", err)
	}
	// A clone of a clone works too.
	cc, err := clone.Clone()
	if err != nil {
		t.Fatal(err)
	}
	clone.Destroy()
	if _, _, _, mode, err := cc.Info(1); err != nil || mode != "CANCELED" {
		t.Errorf("clone of clone Info(1) = %q, %v", mode, err)
	}
}

// Many goroutines share one client (run with -race).
func TestConcurrentUse(t *testing.T) {
	const nodes, cores = 4, 4
	cli := newClient(t, nodes, cores, `"match_format": "rv1"`)
	spec := jobspecText(1, 1, 0) // whole window: nothing is ever reserved
	const workers, per = 8, 6    // 48 attempts for 16 cores
	var mu sync.Mutex
	ids := map[int64]bool{}
	busy := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				_, R, _, _, id, err := cli.MatchAllocate(false, spec)
				cli.Find("sched-now=allocated")
				cli.Stat()
				cli.GetErrMsg()
				cli.MatchSatisfy(spec)
				mu.Lock()
				switch {
				case err == nil:
					if ids[id] {
						t.Errorf("job id %d given twice", id)
					}
					ids[id] = true
					if !strings.Contains(R, `"R_lite"`) {
						t.Errorf("R %q", R)
					}
				case errors.Is(err, fluxcli.ErrBusy):
					busy++
				default:
					t.Errorf("worker %d: %v", w, err)
				}
				mu.Unlock()
				if i%3 == 2 && err == nil {
					if _, _, _, mode, err := cli.Info(int64(id)); err != nil || mode != "ALLOCATED" {
						t.Errorf("Info(%d) = %q, %v", id, mode, err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	if len(ids) != nodes*cores || busy != workers*per-nodes*cores {
		t.Errorf("%d allocations and %d busy, want %d and %d", len(ids), busy, nodes*cores, workers*per-nodes*cores)
	}
	// Every attempt consumed a job id.
	if _, _, _, _, id, _ := cli.MatchAllocate(false, spec); id != workers*per+1 {
		t.Errorf("counter %d, want %d", id, workers*per+1)
	}
	// Concurrent cancels free everything.
	for id := range ids {
		wg.Add(1)
		go func(id int64) {
			defer wg.Done()
			if err := cli.Cancel(int64(id), false); err != nil {
				t.Errorf("Cancel(%d): %v", id, err)
			}
		}(id)
	}
	wg.Wait()
	if s, err := cli.Find("sched-now=allocated"); err != nil || s != "null" {
		t.Errorf("after cancelling everything: %s, %v", s, err)
	}
}

// Clients in separate goroutines do not interfere (run with -race).
func TestConcurrentClients(t *testing.T) {
	jgfText := clusterJGF(t, 2, 2)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cli := fluxcli.NewReapiClient()
			defer cli.Destroy()
			if err := cli.InitContext(jgfText, `{"load_format": "jgf"}`); err != nil {
				t.Error(err)
				return
			}
			for j := 1; j <= 4; j++ {
				_, _, _, _, id, err := cli.MatchAllocate(false, jobspecText(1, 1, 60))
				if err != nil || id != int64(j) {
					t.Errorf("client %d match %d: id %d, %v", i, j, id, err)
				}
			}
			if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60)); !errors.Is(err, fluxcli.ErrBusy) {
				t.Errorf("client %d: fifth match %v", i, err)
			}
			if msg := cli.GetErrMsg(); msg != "" {
				t.Errorf("client %d: %s", i, msg)
			}
		}(i)
	}
	wg.Wait()
}
