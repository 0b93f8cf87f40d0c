package fluxcli_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/gofluxion/gofluxion/reapi/fluxcli"
	"github.com/gofluxion/gofluxion/reapi/types"
)

// TestFluxionGoReadmeFlow is the usage flow of fluxion-go's README,
// written against fluxcli and types only, so that a fluxion-go program
// doing the same differs only in its import paths.
func TestFluxionGoReadmeFlow(t *testing.T) {
	// A fluxion-go user reads these from files (os.ReadFile).
	jgf := clusterJGF(t, 2, 4)         // 2 nodes × 4 cores
	jobspec := jobspecText(1, 2, 3600) // one slot of 2 cores for an hour

	cli := fluxcli.NewReapiClient()
	defer cli.Destroy()
	if !cli.HasContext() {
		t.Fatal("NewReapiClient: no context")
	}
	// The graph is JGF: say so (api.md: load_format defaults to grug).
	if err := cli.InitContext(jgf, `{"load_format": "jgf", "matcher_policy": "first"}`); err != nil {
		t.Fatalf("InitContext: %v: %s", err, cli.GetErrMsg())
	}
	if msg := cli.GetErrMsg(); msg != "" {
		t.Fatalf("errors so far: %s", msg)
	}

	// Allocate.
	reserved, allocated, at, overhead, jobid, err := cli.MatchAllocate(false, jobspec)
	if err != nil {
		t.Fatalf("MatchAllocate: %v: %s", err, cli.GetErrMsg())
	}
	if reserved || at != 0 || overhead < 0 || jobid != 1 {
		t.Errorf("MatchAllocate: reserved %v at %d overhead %v jobid %d", reserved, at, overhead, jobid)
	}
	var R struct {
		Graph struct {
			Nodes []json.RawMessage `json:"nodes"`
			Edges []json.RawMessage `json:"edges"`
		} `json:"graph"`
	}
	if allocated == "" || json.Unmarshal([]byte(allocated), &R) != nil || len(R.Graph.Nodes) != 4 || len(R.Graph.Edges) != 3 {
		t.Errorf("allocated is not the JGF of cluster, node and 2 cores: %q", allocated)
	}

	// Info, cancel, info.
	reserved, at, _, mode, err := cli.Info(int64(jobid))
	if err != nil || reserved || mode != "ALLOCATED" || at != 0 {
		t.Errorf("Info: %v %q %d %v", reserved, mode, at, err)
	}
	if err := cli.Cancel(int64(jobid), false); err != nil {
		t.Fatalf("Cancel: %v: %s", err, cli.GetErrMsg())
	}
	if reserved, _, _, mode, err = cli.Info(int64(jobid)); err != nil || reserved || mode != "CANCELED" {
		t.Errorf("Info after Cancel: %v %q %v", reserved, mode, err)
	}

	// Allocate or else reserve until a job is reserved: four fit now.
	var ids []int64
	for i := 0; ; i++ {
		reserved, _, at, _, jobid, err = cli.MatchAllocate(true, jobspec)
		if err != nil {
			t.Fatalf("MatchAllocate(true): %v", err)
		}
		ids = append(ids, jobid)
		if reserved {
			break
		}
		if i > 10 {
			t.Fatal("never reserved")
		}
	}
	if len(ids) != 5 || ids[0] != 2 || ids[4] != 6 || at != 3600 {
		t.Errorf("jobs %v, the last reserved at %d; want 2..6, reserved at 3600", ids, at)
	}
	if reserved, at, _, mode, err = cli.Info(int64(jobid)); err != nil || !reserved || mode != "RESERVED" || at != 3600 {
		t.Errorf("Info(reserved) = %v %q %d %v", reserved, mode, at, err)
	}

	// Satisfiability and the other match operations.
	sat, _, err := cli.MatchSatisfy(jobspec)
	if err != nil || !sat {
		t.Errorf("MatchSatisfy: %v, %v", sat, err)
	}
	if sat, _, err = cli.MatchSatisfy(jobspecText(1, 5, 60)); err != nil || sat {
		t.Errorf("MatchSatisfy(5 cores in one slot): %v, %v", sat, err)
	}
	_, _, _, _, _, err = cli.Match(types.MatchAllocate, jobspec)
	if err == nil || !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("Match(MatchAllocate) on a full graph: %v", err)
	}
	reserved, _, at, _, _, err = cli.Match(types.MatchAllocateOrElseReserve, jobspec)
	if err != nil || !reserved || at != 3600 {
		t.Errorf("Match(MatchAllocateOrElseReserve): %v at %d, %v", reserved, at, err)
	}

	// Errors accumulate until cleared.
	if err := cli.Cancel(1, false); err == nil {
		t.Error("second Cancel(1) succeeded")
	}
	if msg := cli.GetErrMsg(); msg != "cancel: ERROR: nonexistent job 1\n" {
		t.Errorf("GetErrMsg = %q", msg)
	}
	cli.ClearErrMsg()
	if msg := cli.GetErrMsg(); msg != "" {
		t.Errorf("GetErrMsg after ClearErrMsg = %q", msg)
	}
}

// fluxion-go's README passes "{}" as options with a JGF graph: without a
// load_format the format is detected, so that works; an explicit
// load_format still wins.
func TestReadmeEmptyOptionsDetectJGF(t *testing.T) {
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(clusterJGF(t, 1, 1), "{}"); err != nil {
		t.Fatalf("InitContext(JGF, {}) = %v: %s", err, cli.GetErrMsg())
	}
	if o, _ := cli.Options(); o.LoadFormat != "jgf" {
		t.Errorf("detected load format %q, want jgf", o.LoadFormat)
	}
	err := cli.InitContext(clusterJGF(t, 1, 1), `{"load_format": "grug"}`)
	if !errors.Is(err, fluxcli.ErrInvalid) {
		t.Fatalf("InitContext(JGF, grug) = %v, want a grug reader error", err)
	}
	want := "reapi_cli_initialize: Runtime error: resource_query_t: ERROR: error in reading grug string; \nERROR: error generating resources\n"
	if got := cli.GetErrMsg(); got != want {
		t.Errorf("GetErrMsg = %q, want %q", got, want)
	}
}
