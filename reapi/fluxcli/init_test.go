package fluxcli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

func TestInitContextDefaults(t *testing.T) {
	cli := fluxcli.NewReapiClient()
	// "{}": every default, so the graph is read as GRUG.
	if err := cli.InitContext(string(gofluxion.DemoGraphML()), "{}"); err != nil {
		t.Fatalf("InitContext: %v", err)
	}
	got, err := cli.Options()
	if err != nil {
		t.Fatal(err)
	}
	want := fluxcli.Options{
		LoadFormat: "grug", LoadAllowlist: "", MatcherName: "CA", MatcherPolicy: "first",
		TraverserPolicy: "simple", MatchFormat: "jgf", EffectiveMatchFormat: "jgf",
		PruneFilters: "ALL:core,ALL:node", ReserveVtxVec: 0, ElapseTime: false,
	}
	if got != want {
		t.Errorf("Options() = %+v\nwant %+v", got, want)
	}
	if got != fluxcli.DefaultOptions() {
		t.Errorf("DefaultOptions() = %+v, want %+v", fluxcli.DefaultOptions(), got)
	}
	// Default match format: the R is a JGF document.
	_, R, _, _, jobid, err := cli.MatchAllocate(false, jobspecText(1, 1, 60))
	if err != nil || jobid != 1 {
		t.Fatalf("MatchAllocate: jobid %d, %v", jobid, err)
	}
	if _, err := jgf.Parse([]byte(R)); err != nil {
		t.Errorf("default match format: R is not JGF: %v: %q", err, R)
	}
	if msg := cli.GetErrMsg(); msg != "" {
		t.Errorf("GetErrMsg after a clean start = %q", msg)
	}
}

func TestInitContextOptions(t *testing.T) {
	jgfText := clusterJGF(t, 2, 4)
	tests := []struct {
		name    string
		options string
		check   func(t *testing.T, o fluxcli.Options, cli *fluxcli.ReapiClient)
	}{
		{"load_format jgf", `{"load_format": "jgf"}`, func(t *testing.T, o fluxcli.Options, _ *fluxcli.ReapiClient) {
			if o.LoadFormat != "jgf" {
				t.Errorf("LoadFormat %q", o.LoadFormat)
			}
		}},
		{"load_format jgf_shorthand", `{"load_format": "jgf_shorthand"}`, nil},
		{"unknown members ignored", `{"load_format": "jgf", "load_file": 7, "disable_prompt": true, "r_fname": null, "o_fext": ["x"]}`, nil},
		{"matcher_name lowercase", `{"load_format": "jgf", "matcher_name": "ca"}`, func(t *testing.T, o fluxcli.Options, _ *fluxcli.ReapiClient) {
			if o.MatcherName != "ca" {
				t.Errorf("MatcherName %q", o.MatcherName)
			}
		}},
		{"matcher_policy high", `{"load_format": "jgf", "matcher_policy": "high", "match_format": "simple"}`, func(t *testing.T, _ fluxcli.Options, cli *fluxcli.ReapiClient) {
			_, R, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60))
			if err != nil || !strings.Contains(R, "core3[1:x]") || !strings.Contains(R, "node0[1:s]") {
				t.Errorf("high: %v\n%s", err, R)
			}
		}},
		{"matcher_policy low", `{"load_format": "jgf", "matcher_policy": "low", "match_format": "simple"}`, func(t *testing.T, _ fluxcli.Options, cli *fluxcli.ReapiClient) {
			_, R, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60))
			if err != nil || !strings.Contains(R, "core0[1:x]") || !strings.Contains(R, "node0[1:s]") {
				t.Errorf("low: %v\n%s", err, R)
			}
		}},
		{"matcher_policy custom", `{"load_format": "jgf", "matcher_policy": "policy=low node_centric=true"}`, nil},
		{"traverser_policy flexible", `{"load_format": "jgf", "traverser_policy": "flexible"}`, func(t *testing.T, o fluxcli.Options, cli *fluxcli.ReapiClient) {
			if o.TraverserPolicy != "flexible" {
				t.Errorf("TraverserPolicy %q", o.TraverserPolicy)
			}
			if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 2, 60)); err != nil {
				t.Errorf("flexible match: %v", err)
			}
		}},
		{"match_format simple", `{"load_format": "jgf", "match_format": "simple"}`, func(t *testing.T, _ fluxcli.Options, cli *fluxcli.ReapiClient) {
			_, R, _, _, _, _ := cli.MatchAllocate(false, jobspecText(1, 1, 60))
			if !strings.HasSuffix(R, "---cluster0[1:s]\n") {
				t.Errorf("simple R %q", R)
			}
		}},
		{"match_format rv1_nosched", `{"load_format": "jgf", "match_format": "rv1_nosched"}`, func(t *testing.T, _ fluxcli.Options, cli *fluxcli.ReapiClient) {
			_, R, _, _, _, _ := cli.MatchAllocate(false, jobspecText(1, 1, 60))
			if !strings.HasPrefix(R, `{"version": 1, "execution": {"R_lite": [`) || strings.Contains(R, "scheduling") {
				t.Errorf("rv1_nosched R %q", R)
			}
		}},
		{"match_format unknown falls back to simple", `{"load_format": "jgf", "match_format": "yaml"}`, func(t *testing.T, o fluxcli.Options, cli *fluxcli.ReapiClient) {
			if o.MatchFormat != "yaml" || o.EffectiveMatchFormat != "simple" {
				t.Errorf("MatchFormat %q, EffectiveMatchFormat %q", o.MatchFormat, o.EffectiveMatchFormat)
			}
			_, R, _, _, _, _ := cli.MatchAllocate(false, jobspecText(1, 1, 60))
			if !strings.HasSuffix(R, "---cluster0[1:s]\n") {
				t.Errorf("fallback R %q", R)
			}
		}},
		{"prune_filters empty installs none", `{"load_format": "jgf", "prune_filters": ""}`, func(t *testing.T, o fluxcli.Options, cli *fluxcli.ReapiClient) {
			if o.PruneFilters != "" {
				t.Errorf("PruneFilters %q", o.PruneFilters)
			}
			// Without configured filters only the root tracks the leaf
			// types (model.md §7.2): the nodes have no filter.
			s, err := cli.FindWithFormat("agfilter=true", "simple")
			if err != nil || s != `"      ---cluster0[1:x]\n"` {
				t.Errorf("agfilter without filters: %q, %v", s, err)
			}
		}},
		{"prune_filters default", `{"load_format": "jgf"}`, func(t *testing.T, _ fluxcli.Options, cli *fluxcli.ReapiClient) {
			s, err := cli.FindWithFormat("agfilter=true", "jgf")
			if err != nil || !strings.Contains(s, `"agfilter":{"core":"used:0, total:8","gpu":"used:0, total:2","node":"used:0, total:2"}`) ||
				!strings.Contains(s, `"/cluster0/node1"},"agfilter":{"core":"used:0, total:4"}`) {
				t.Errorf("agfilter with default filters: %q, %v", s, err)
			}
		}},
		{"prune_filters custom", `{"load_format": "jgf", "prune_filters": "ALL:gpu"}`, func(t *testing.T, _ fluxcli.Options, cli *fluxcli.ReapiClient) {
			s, err := cli.FindWithFormat("agfilter=true", "jgf")
			if err != nil || !strings.Contains(s, `"/cluster0/node1"},"agfilter":{"gpu":"used:0, total:1"}`) || strings.Contains(s, `"node":"used`) {
				t.Errorf("agfilter with ALL:gpu: %q, %v", s, err)
			}
		}},
		{"reserve_vtx_vec and elapse_time", `{"load_format": "jgf", "reserve_vtx_vec": 1024, "elapse_time": true}`, func(t *testing.T, o fluxcli.Options, _ *fluxcli.ReapiClient) {
			if o.ReserveVtxVec != 1024 || !o.ElapseTime {
				t.Errorf("ReserveVtxVec %d, ElapseTime %v", o.ReserveVtxVec, o.ElapseTime)
			}
		}},
		{"elapse_time false, negative reserve_vtx_vec", `{"load_format": "jgf", "reserve_vtx_vec": -3, "elapse_time": false}`, func(t *testing.T, o fluxcli.Options, _ *fluxcli.ReapiClient) {
			if o.ReserveVtxVec != -3 || o.ElapseTime {
				t.Errorf("ReserveVtxVec %d, ElapseTime %v", o.ReserveVtxVec, o.ElapseTime)
			}
		}},
		{"allowlist unsupported by jgf", `{"load_format": "jgf", "load_allowlist": "node,core"}`, func(t *testing.T, o fluxcli.Options, cli *fluxcli.ReapiClient) {
			if got := cli.GetErrMsg(); got != "WARN: allowlist unsupported\n" {
				t.Errorf("GetErrMsg %q", got)
			}
			if o.LoadAllowlist != "node,core" {
				t.Errorf("LoadAllowlist %q", o.LoadAllowlist)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cli := fluxcli.NewReapiClient()
			if err := cli.InitContext(jgfText, tc.options); err != nil {
				t.Fatalf("InitContext(%s): %v", tc.options, err)
			}
			o, err := cli.Options()
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, o, cli)
			}
		})
	}
}

func TestInitContextErrors(t *testing.T) {
	jgfText := clusterJGF(t, 2, 4)
	const pre = "reapi_cli_initialize: Runtime error: "
	const params = pre + "resource_query_t: ERROR: can't set resource graph parameters\n"
	_, jerr := jgf.Read([]byte(`{"graph": {"nodes": [{"id": "0"}], "edges": []}}`))
	var je *jgf.Error
	if !errors.As(jerr, &je) {
		t.Fatalf("bad JGF did not fail: %v", jerr)
	}
	tests := []struct {
		name, graph, options, msg string
	}{
		{"empty options", jgfText, ``, params},
		{"options not an object", jgfText, `["load_format", "jgf"]`, params},
		{"options null", jgfText, `null`, params},
		{"options truncated", jgfText, `{"load_format": "jgf"`, params},
		{"options trailing garbage", jgfText, `{"load_format": "jgf"} x`, params},
		{"non-string load_format", jgfText, `{"load_format": 1}`, params},
		{"null matcher_policy", jgfText, `{"load_format": "jgf", "matcher_policy": null}`, params},
		{"non-string prune_filters", jgfText, `{"load_format": "jgf", "prune_filters": false}`, params},
		{"non-string match_format", jgfText, `{"load_format": "jgf", "match_format": {"a": 1}}`, params},
		{"non-string matcher_name", jgfText, `{"load_format": "jgf", "matcher_name": ["CA"]}`, params},
		{"non-string traverser_policy", jgfText, `{"load_format": "jgf", "traverser_policy": 0}`, params},
		{"non-string load_allowlist", jgfText, `{"load_format": "jgf", "load_allowlist": true}`, params},
		{"string reserve_vtx_vec", jgfText, `{"load_format": "jgf", "reserve_vtx_vec": "3"}`, params},
		{"real reserve_vtx_vec", jgfText, `{"load_format": "jgf", "reserve_vtx_vec": 1.5}`, params},
		{"string elapse_time", jgfText, `{"load_format": "jgf", "elapse_time": "true"}`, params},
		{"unknown policy", jgfText, `{"load_format": "jgf", "matcher_policy": "best"}`, pre + "resource_query_t: ERROR: can't create matcher\n"},
		{"unknown traverser", jgfText, `{"load_format": "jgf", "traverser_policy": "fancy"}`, pre + "initialize_matchers_and_traversers: ERROR: can't initialize traverser\n"},
		{"unknown load format", jgfText, `{"load_format": "xml"}`, pre + "resource_query_t: ERROR: can't create reader\n"},
		{"JGF read as GRUG when asked", jgfText, `{"load_format": "grug"}`, pre + "resource_query_t: ERROR: error in reading grug string; \nERROR: error generating resources\n"},
		{"bad JGF", `{"graph": {"nodes": [{"id": "0"}], "edges": []}}`, `{"load_format": "jgf"}`,
			pre + "resource_query_t: ERROR: " + strings.TrimSuffix(je.Fluxion(), "\n") + "\nERROR: error generating resources\n"},
		{"unknown matcher name", jgfText, `{"load_format": "jgf", "matcher_name": "XYZ"}`, pre + "initialize_matchers_and_traversers: ERROR: can't set subsystems\n"},
		{"subsystem missing from the graph", jgfText, `{"load_format": "jgf", "matcher_name": "IBA"}`, pre + "initialize_matchers_and_traversers: ERROR: can't initialize traverser\n"},
		{"bad prune filters", jgfText, `{"load_format": "jgf", "prune_filters": "core"}`, pre + "initialize_matchers_and_traversers: ERROR: can't set pruning filters\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cli := fluxcli.NewReapiClient()
			err := cli.InitContext(tc.graph, tc.options)
			wantErr(t, "InitContext", err, match.EPROTO, tc.msg)
			if !errors.Is(err, fluxcli.ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
			}
			if got := cli.GetErrMsg(); got != tc.msg {
				t.Errorf("GetErrMsg() = %q, want %q", got, tc.msg)
			}
			// The context stays uninitialized.
			if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60)); !errors.Is(err, fluxcli.ErrNotInitialized) {
				t.Errorf("match after failed init: %v, want ErrNotInitialized", err)
			}
		})
	}
}

func TestInitContextFailureKeepsPreviousContext(t *testing.T) {
	cli := newClient(t, 1, 2, "")
	if _, _, _, _, id, err := cli.MatchAllocate(false, jobspecText(1, 1, 60)); err != nil || id != 1 {
		t.Fatalf("first match: %d, %v", id, err)
	}
	if err := cli.InitContext("not a graph", `{"load_format": "jgf"}`); err == nil {
		t.Fatal("InitContext of garbage succeeded")
	}
	// The previous graph, schedule and counter are still there.
	if _, _, _, mode, err := cli.Info(1); err != nil || mode != fluxcli.ModeAllocated {
		t.Errorf("Info(1) = %q, %v", mode, err)
	}
	if _, _, _, _, id, err := cli.MatchAllocate(false, jobspecText(1, 1, 60)); err != nil || id != 2 {
		t.Errorf("second match: %d, %v", id, err)
	}
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60)); !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("third match on a full graph: %v, want ErrBusy", err)
	}
	// A successful re-initialization starts afresh.
	if err := cli.InitContext(clusterJGF(t, 1, 2), `{"load_format": "jgf"}`); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, err := cli.Info(1); !errors.Is(err, fluxcli.ErrNotFound) {
		t.Errorf("Info(1) after re-init: %v, want ErrNotFound", err)
	}
	if _, _, _, _, id, err := cli.MatchAllocate(false, jobspecText(1, 1, 60)); err != nil || id != 1 {
		t.Errorf("match after re-init: %d, %v (counter must restart at 1)", id, err)
	}
}
