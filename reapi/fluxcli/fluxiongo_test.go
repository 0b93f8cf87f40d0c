package fluxcli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
	"github.com/gofluxion/gofluxion/reapi/types"
)

// fluxion-go's exported API, as published in its pkg/fluxcli and
// pkg/types. Each method is assigned to a variable of the exact function
// type fluxion-go declares, so any drift fails to compile.
var (
	_ func() *fluxcli.ReapiClient                                                                                                                                    = fluxcli.NewReapiClient
	_ func(*fluxcli.ReapiClient) bool                                                                                                                                = (*fluxcli.ReapiClient).HasContext
	_ func(*fluxcli.ReapiClient)                                                                                                                                     = (*fluxcli.ReapiClient).Destroy
	_ func(cli *fluxcli.ReapiClient, jgf string, options string) (err error)                                                                                         = (*fluxcli.ReapiClient).InitContext
	_ func(cli *fluxcli.ReapiClient, match_op types.MatchType, jobspec string) (reserved bool, allocated string, at int64, overhead float64, jobid int64, err error) = (*fluxcli.ReapiClient).Match
	_ func(cli *fluxcli.ReapiClient, orelse_reserve bool, jobspec string) (reserved bool, allocated string, at int64, overhead float64, jobid int64, err error)      = (*fluxcli.ReapiClient).MatchAllocate
	_ func(cli *fluxcli.ReapiClient, jobspec string) (sat bool, overhead float64, err error)                                                                         = (*fluxcli.ReapiClient).MatchSatisfy
	_ func(cli *fluxcli.ReapiClient, jobid int, r string) (at int64, overhead float64, r_out string, err error)                                                      = (*fluxcli.ReapiClient).UpdateAllocate
	_ func(cli *fluxcli.ReapiClient, jobid int64, noent_ok bool) (err error)                                                                                         = (*fluxcli.ReapiClient).Cancel
	_ func(cli *fluxcli.ReapiClient, jobid int64, r string, noent_ok bool) (bool, error)                                                                             = (*fluxcli.ReapiClient).PartialCancel
	_ func(cli *fluxcli.ReapiClient, jobid int64) (reserved bool, at int64, overhead float64, mode string, err error)                                                = (*fluxcli.ReapiClient).Info
	_ func(cli *fluxcli.ReapiClient) (v int64, e int64, jobs int64, load float64, min float64, max float64, avg float64, err error)                                  = (*fluxcli.ReapiClient).Stat
	_ func(*fluxcli.ReapiClient) string                                                                                                                              = (*fluxcli.ReapiClient).GetErrMsg
	_ func(*fluxcli.ReapiClient)                                                                                                                                     = (*fluxcli.ReapiClient).ClearErrMsg

	_ func(types.MatchType) string = types.MatchType.String
)

// types.MatchType's values and texts are fluxion-go's.
func TestMatchTypesAreFluxionGos(t *testing.T) {
	for _, tc := range []struct {
		m    types.MatchType
		n    int
		text string
	}{
		{types.MatchUnknown, 0, "unknown"},
		{types.MatchAllocate, 1, "allocate"},
		{types.MatchAllocateWithSatisfiability, 2, "allocate with satisfiability"},
		{types.MatchAllocateOrElseReserve, 3, "allocate or else reserve"},
		{types.MatchSatisfiability, 4, "satisfiability"},
	} {
		if int(tc.m) != tc.n || tc.m.String() != tc.text {
			t.Errorf("%d %q, want %d %q", int(tc.m), tc.m.String(), tc.n, tc.text)
		}
	}
}

// fluence's flow, as its users wrote it: a JGF with only a policy option,
// MatchAllocate until the cluster is full, Info, Cancel with noent_ok,
// Stat.
func TestFluenceFlow(t *testing.T) {
	jgf := clusterJGF(t, 4, 4)
	cli := fluxcli.NewReapiClient()
	if !cli.HasContext() {
		t.Fatal("no context")
	}
	defer cli.Destroy()
	if err := cli.InitContext(jgf, "{\"matcher_policy\": \"lonode\"}"); err != nil {
		t.Fatalf("InitContext: %v: %s", err, cli.GetErrMsg())
	}
	spec := nodeJobspec(1, 3600)
	var ids []int64
	for {
		reserved, allocated, at, overhead, jobid, err := cli.MatchAllocate(false, spec)
		if err != nil {
			if !errors.Is(err, fluxcli.ErrBusy) {
				t.Fatalf("MatchAllocate: %v: %s", err, cli.GetErrMsg())
			}
			break
		}
		if reserved || at != 0 || overhead < 0 || allocated == "" {
			t.Fatalf("MatchAllocate = %v %q %d %v %d", reserved, allocated, at, overhead, jobid)
		}
		ids = append(ids, jobid)
		if len(ids) > 4 {
			t.Fatal("more jobs than nodes")
		}
	}
	if len(ids) != 4 || ids[0] != 1 || ids[3] != 4 {
		t.Fatalf("job ids %v, want 1 to 4", ids)
	}
	for _, id := range ids {
		reserved, at, overhead, mode, err := cli.Info(int64(id))
		if err != nil || reserved || at != 0 || overhead < 0 || mode != "ALLOCATED" {
			t.Errorf("Info(%d) = %v %d %v %q %v", id, reserved, at, overhead, mode, err)
		}
	}
	for _, id := range ids {
		if err := cli.Cancel(int64(id), true); err != nil {
			t.Errorf("Cancel(%d): %v", id, err)
		}
	}
	// fluence cancels pods that may already be gone.
	if err := cli.Cancel(int64(ids[0]), true); err != nil {
		t.Errorf("Cancel of a canceled job with noent_ok: %v", err)
	}
	if _, _, _, mode, err := cli.Info(int64(ids[0])); err != nil || mode != "CANCELED" {
		t.Errorf("Info after Cancel: %q %v", mode, err)
	}
	v, e, jobs, load, lo, hi, avg, err := cli.Stat()
	if err != nil || v != 1+4*(1+4+1) || e != 4*(1+4+1) || jobs != 4 || load < 0 || lo > hi || avg < lo || avg > hi {
		t.Errorf("Stat = %d %d %d %v %v %v %v %v", v, e, jobs, load, lo, hi, avg, err)
	}
	// The cluster is free again.
	if _, _, _, _, _, err := cli.MatchAllocate(false, nodeJobspec(4, 60)); err != nil {
		t.Errorf("after cancelling everything: %v", err)
	}
}

// A test in fluxion-go's own style (pkg/fluxcli's test): "{}" options
// with a JGF file, Match with a MatchType, MatchSatisfy, Info, Cancel.
func TestFluxionGoStyle(t *testing.T) {
	jgf := clusterJGF(t, 2, 4)
	cli := fluxcli.NewReapiClient()
	if !cli.HasContext() {
		t.Errorf("Context is null")
	}
	err := cli.InitContext(jgf, "{}")
	if err != nil {
		t.Errorf("Reapi client init context failed: %v", err)
	}
	jobspec := jobspecText(1, 4, 3600)
	reserved, allocated, at, overhead, jobid, err := cli.Match(types.MatchAllocateOrElseReserve, jobspec)
	if err != nil || reserved || allocated == "" || at != 0 || jobid != 1 {
		t.Errorf("Match: %v %q %d %v %d %v", reserved, allocated, at, overhead, jobid, err)
	}
	sat, overhead, err := cli.MatchSatisfy(jobspec)
	if err != nil || !sat || overhead < 0 {
		t.Errorf("MatchSatisfy: %v %v %v", sat, overhead, err)
	}
	reserved, at, overhead, mode, err := cli.Info(jobid)
	if err != nil || reserved || at != 0 || mode != "ALLOCATED" || overhead < 0 {
		t.Errorf("Info: %v %d %v %q %v", reserved, at, overhead, mode, err)
	}
	if err := cli.Cancel(jobid, false); err != nil {
		t.Errorf("Cancel: %v", err)
	}
	if err := cli.Cancel(jobid, false); !errors.Is(err, fluxcli.ErrNotFound) {
		t.Errorf("second Cancel: %v", err)
	}
	if msg := cli.GetErrMsg(); !strings.Contains(msg, "nonexistent job 1") {
		t.Errorf("GetErrMsg = %q", msg)
	}
	cli.ClearErrMsg()
	cli.Destroy()
	if cli.HasContext() {
		t.Error("context after Destroy")
	}
}

// Without load_format the format is detected from the document; an
// explicit one wins.
func TestInitContextDetectsFormat(t *testing.T) {
	hwlocXML := `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<!-- a two-core host -->
<topology version="2.0">
  <object type="Machine" os_index="0">
    <info name="HostName" value="tiny3"/>
    <object type="Package" os_index="0">
      <object type="Core" os_index="0"><object type="PU" os_index="0"/></object>
      <object type="Core" os_index="1"><object type="PU" os_index="1"/></object>
    </object>
  </object>
</topology>
`
	rv1exec := `{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-3"}}], "nodelist": ["node0"], "starttime": 0, "expiration": 0}}`
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"JGF", clusterJGF(t, 1, 2), "jgf"},
		{"JGF with leading space", "\n  " + clusterJGF(t, 1, 2), "jgf"},
		{"GRUG", string(gofluxion.DemoGraphML()), "grug"},
		{"hwloc", hwlocXML, "hwloc"},
		{"rv1exec", rv1exec, "rv1exec"},
	} {
		if got := fluxcli.DetectLoadFormat(tc.doc); got != tc.want {
			t.Errorf("%s: DetectLoadFormat = %q, want %q", tc.name, got, tc.want)
		}
		cli := fluxcli.NewReapiClient()
		if err := cli.InitContext(tc.doc, `{}`); err != nil {
			t.Errorf("%s: InitContext: %v: %s", tc.name, err, cli.GetErrMsg())
			continue
		}
		if o, _ := cli.Options(); o.LoadFormat != tc.want {
			t.Errorf("%s: load format %q, want %q", tc.name, o.LoadFormat, tc.want)
		}
	}
	// An explicit load_format wins, even when wrong.
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(clusterJGF(t, 1, 2), `{"load_format": "hwloc"}`); !errors.Is(err, fluxcli.ErrInvalid) {
		t.Errorf("JGF read as hwloc: %v", err)
	}
}

// UpdateAllocate and PartialCancel accept a bare JGF R, as older Fluxion
// did, whatever the load format (today's C++ Fluxion fails: update with
// ENOTSUP in a grug context, partial cancel in the rv1exec reader).
func TestBareJGFR(t *testing.T) {
	// A grug context, and the JGF of an allocation on it.
	jgfOut := fluxcli.NewReapiClient()
	if err := jgfOut.InitContext(grugCluster, `{"match_format": "jgf"}`); err != nil {
		t.Fatal(err)
	}
	_, R, _, _, _, err := jgfOut.MatchAllocate(false, jobspecText(1, 2, 3600))
	if err != nil || !strings.HasPrefix(R, `{"graph"`) {
		t.Fatalf("JGF R: %q, %v", R, err)
	}
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(grugCluster, `{}`); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := cli.UpdateAllocate(7, R); err != nil {
		t.Fatalf("UpdateAllocate(bare JGF) in a grug context: %v: %s", err, cli.GetErrMsg())
	}
	if _, _, _, mode, err := cli.Info(7); err != nil || mode != "ALLOCATED" {
		t.Errorf("Info(7) = %q, %v", mode, err)
	}
	// Two of the four cores are booked.
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 3, 60)); !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("3 cores while 2 are booked: %v", err)
	}
	full, err := cli.PartialCancel(7, R, false)
	if err != nil || !full {
		t.Fatalf("PartialCancel(bare JGF) = %v, %v: %s", full, err, cli.GetErrMsg())
	}
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 4, 60)); err != nil {
		t.Errorf("4 cores after the partial cancel: %v", err)
	}
}

// An rv1exec R whose nodelist names a host twice loads, as in Fluxion (the
// conformance corpus has such Rs); the root package refuses it.
func TestInitContextRV1ExecRepeatedHost(t *testing.T) {
	r := `{"version": 1, "execution": {"R_lite": [{"rank": "0", "children": {"core": "0-1"}}, {"rank": "1", "children": {"core": "2-3"}}], "nodelist": ["node", "node"]}}`
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(r, `{"load_format": "rv1exec"}`); err != nil {
		t.Fatalf("InitContext: %v: %s", err, cli.GetErrMsg())
	}
	if _, err := gofluxion.ReadGraph("rv1exec", []byte(r), ""); !errors.Is(err, gofluxion.ErrInvalid) {
		t.Errorf("the library read it: %v", err)
	}
}
