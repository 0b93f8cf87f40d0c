package fluxcli_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

func TestFind(t *testing.T) {
	cli := newClient(t, 2, 2, `"match_format": "simple"`)
	if _, _, _, _, _, err := cli.MatchAllocate(false, nodeJobspec(1, 100)); err != nil { // node1 (first policy)
		t.Fatal(err)
	}
	tests := []struct {
		name, criteria, format string
		withFormat             bool
		want                   string
	}{
		{"context writer: JSON string", "sched-now=allocated", "", false,
			`"      ---------core0[1:x]\n      ---------core1[1:x]\n      ---------gpu0[1:x]\n      ------node1[1:x]\n      ---cluster0[1:x]\n"`},
		{"nothing: null", "status=down", "", false, "null"},
		{"pretty_simple", "names=node1", "pretty_simple", true,
			`"      ---cluster0[1:exclusive]\n      ------node1[1:exclusive]\n"`},
		{"rv1_nosched object", "sched-now=free and names=core0", "rv1_nosched", true,
			`{"version":1,"execution":{"R_lite":[{"rank":"0","children":{"core":"0"}}],"nodelist":["node0"],"starttime":0,"expiration":0}}`},
		{"rlite array", "jobid-alloc=1", "rlite", true, `[{"rank":"1","children":{"core":"0-1","gpu":"0"}}]`},
		{"jgf object", "names=node0 or names=node1", "jgf", true,
			`{"graph":{"nodes":[{"id":"1","metadata":{"type":"node","id":0,"rank":0,"exclusive":true,"paths":{"containment":"/cluster0/node0"}}},` +
				`{"id":"5","metadata":{"type":"node","id":1,"rank":1,"exclusive":true,"paths":{"containment":"/cluster0/node1"}}},` +
				`{"id":"0","metadata":{"type":"cluster","id":0,"rank":-1,"exclusive":true,"paths":{"containment":"/cluster0"}}}],` +
				`"edges":[{"source":"0","target":"1"},{"source":"0","target":"5"}]}}`},
		{"jgf nothing", "status=down", "jgf", true, "null"},
	}
	for _, tc := range tests {
		var got string
		var err error
		if tc.withFormat {
			got, err = cli.FindWithFormat(tc.criteria, tc.format)
		} else {
			got, err = cli.Find(tc.criteria)
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: Find(%q) = %s, %v\nwant %s", tc.name, tc.criteria, got, err, tc.want)
			continue
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: not JSON: %s", tc.name, got)
		}
	}
	if msg := cli.GetErrMsg(); msg != "" {
		t.Errorf("GetErrMsg after good finds: %q", msg)
	}
	errs := []struct {
		name, criteria, format string
		withFormat             bool
		errno                  match.Errno
		msg                    string
	}{
		{"invalid criteria", "bogus", "", false, match.EINVAL, "findfind: invalid criteria: bogus.\n"},
		{"empty criteria", "", "", false, match.EINVAL, "findfind: invalid criteria: .\n"},
		{"unknown format", "status=up", "yaml", true, match.EINVAL, "find: ERROR: unknown match format 'yaml'\n"},
		{"empty format", "status=up", "", true, match.EINVAL, "find: ERROR: unknown match format ''\n"},
		{"unrenderable", "status=down", "rlite", true, match.EINVAL, "find: ERROR: find writer emit: Invalid argument\n"},
	}
	for _, tc := range errs {
		cli.ClearErrMsg()
		var err error
		if tc.withFormat {
			_, err = cli.FindWithFormat(tc.criteria, tc.format)
		} else {
			_, err = cli.Find(tc.criteria)
		}
		wantErr(t, tc.name, err, tc.errno, tc.msg)
		if got := cli.GetErrMsg(); got != tc.msg {
			t.Errorf("%s: GetErrMsg %q, want %q", tc.name, got, tc.msg)
		}
	}
	// agfilter mode leaves out the vertices where the job has no filter
	// span, with no error (Fluxion does; the ops corpus shows it).
	if out, err := cli.FindWithFormat("agfilter=true or jobid-span=9", "jgf"); err != nil || out != "null" {
		t.Errorf("agfilter without span: %q, %v; want nothing found", out, err)
	}
}

func TestStatus(t *testing.T) {
	cli := newClient(t, 2, 2, `"match_format": "simple"`)
	steps := []struct {
		name  string
		do    func() error
		errno match.Errno
		msg   string
	}{
		{"down by path", func() error { return cli.SetStatus("/cluster0/node1", "down") }, 0, ""},
		{"case-insensitive", func() error { return cli.SetStatus("/cluster0/node1", "DOWN") }, 0, ""},
		{"unknown path", func() error { return cli.SetStatus("/cluster0/node7", "down") }, match.EINVAL,
			"set_status: mark: could not find subtree path (/cluster0/node7) in resource graph.\n"},
		{"bad status", func() error { return cli.SetStatus("/cluster0/node1", "sideways") }, match.EINVAL,
			"set_status: unrecognized status: sideways\n"},
		{"empty idset", func() error { return cli.SetRankStatus("", "up") }, match.EINVAL, "empty idset string\n"},
		{"empty bracketed idset", func() error { return cli.SetRankStatus("[]", "up") }, match.EINVAL, "empty idset string\n"},
		{"invalid idset", func() error { return cli.SetRankStatus("1-", "up") }, match.EINVAL, "invalid idset string: 1-\n"},
		{"rank bad status", func() error { return cli.SetRankStatus("0", "maybe") }, match.EINVAL, "set_rank_status: unrecognized status: maybe\n"},
		{"unknown ranks ignored", func() error { return cli.SetRankStatus("5-9", "down") }, 0, ""},
	}
	for _, st := range steps {
		cli.ClearErrMsg()
		err := st.do()
		if st.errno == 0 {
			if err != nil {
				t.Errorf("%s: %v", st.name, err)
			}
		} else {
			wantErr(t, st.name, err, st.errno, st.msg)
			if !errors.Is(err, fluxcli.ErrInvalid) {
				t.Errorf("%s: errors.Is(ErrInvalid) false", st.name)
			}
		}
		if got := cli.GetErrMsg(); got != st.msg {
			t.Errorf("%s: GetErrMsg %q, want %q", st.name, got, st.msg)
		}
	}
	check := func(when string, want map[string]string, rankWant map[string]string) {
		t.Helper()
		for path, w := range want {
			if got, err := cli.GetStatus(path); err != nil || got != w {
				t.Errorf("%s: GetStatus(%s) = %q, %v; want %q", when, path, got, err, w)
			}
		}
		for r, w := range rankWant {
			if got, err := cli.GetRankStatus(r); err != nil || got != w {
				t.Errorf("%s: GetRankStatus(%s) = %q, %v; want %q", when, r, got, err, w)
			}
		}
	}
	// Only the vertex itself changes; its cores keep their own status.
	check("node1 down", map[string]string{"/cluster0": "up", "/cluster0/node0": "up", "/cluster0/node1": "down", "/cluster0/node1/core0": "up"},
		map[string]string{"0": "up", "1": "down"})
	// The down node is not allocated.
	_, R, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 2, 60))
	if err != nil || !strings.Contains(R, "node0[1:s]") {
		t.Errorf("match with node1 down: %v\n%s", err, R)
	}
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 2, 60)); !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("second match with node1 down: %v, want ErrBusy", err)
	}
	if err := cli.SetRankStatus("all", "up"); err != nil {
		t.Fatal(err)
	}
	check("all up", map[string]string{"/cluster0/node1": "up"}, map[string]string{"0": "up", "1": "up"})
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 2, 60)); err != nil {
		t.Errorf("match with node1 up again: %v", err)
	}
	if err := cli.SetRankStatus("0-1", "down"); err != nil {
		t.Fatal(err)
	}
	check("0-1 down", map[string]string{"/cluster0/node0": "down", "/cluster0/node1": "down"}, map[string]string{"0": "down", "1": "down"})
	if err := cli.SetRankStatus("1", "Up"); err != nil {
		t.Fatal(err)
	}
	check("1 up", nil, map[string]string{"0": "down", "1": "up"})

	getErrs := []struct {
		name  string
		do    func() (string, error)
		errno match.Errno
		msg   string
		is    error
	}{
		{"unknown path", func() (string, error) { return cli.GetStatus("/nope") }, match.ENOENT, "get_status: resource path not found: /nope\n", fluxcli.ErrNotFound},
		{"two ranks", func() (string, error) { return cli.GetRankStatus("0-1") }, match.EINVAL, "must specify exactly one rank, got 0-1\n", fluxcli.ErrInvalid},
		{"no rank", func() (string, error) { return cli.GetRankStatus("") }, match.EINVAL, "must specify exactly one rank, got \n", fluxcli.ErrInvalid},
		{"not an idset", func() (string, error) { return cli.GetRankStatus("x") }, match.EINVAL, "invalid idset string: x\n", fluxcli.ErrInvalid},
		{"unknown rank", func() (string, error) { return cli.GetRankStatus("7") }, match.ENOENT, "rank not found: 7\n", fluxcli.ErrNotFound},
	}
	for _, tc := range getErrs {
		cli.ClearErrMsg()
		s, err := tc.do()
		if s != "" {
			t.Errorf("%s: status %q", tc.name, s)
		}
		wantErr(t, tc.name, err, tc.errno, tc.msg)
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: errors.Is(%v) false", tc.name, tc.is)
		}
	}
}

func TestGetRankStatusNoNodeVertex(t *testing.T) {
	b := graph.NewBuilder()
	root := b.MustAdd(graph.NoVertex, "cluster", 0)
	node := b.MustAdd(root, "node", 0)
	b.MustAdd(node, "core", 0, graph.WithRank(0))
	b.MustAdd(root, "switch", 0, graph.WithRank(4)) // rank 4 has no node
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(renderJGF(t, b.Graph()), `{"load_format": "jgf"}`); err != nil {
		t.Fatal(err)
	}
	if s, err := cli.GetRankStatus("0"); err != nil || s != "up" {
		t.Errorf("rank 0: %q, %v", s, err)
	}
	_, err := cli.GetRankStatus("4")
	wantErr(t, "rank without node", err, match.ENOENT, "no node vertex at rank: 4\n")
}

func TestAddRemoveSubgraph(t *testing.T) {
	cli := newClient(t, 2, 2, `"match_format": "simple"`)
	spec := nodeJobspec(1, 0)
	// Remove node1: only one node job fits.
	if err := cli.RemoveSubgraph("/cluster0/node1"); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.GetStatus("/cluster0/node1"); !errors.Is(err, fluxcli.ErrNotFound) {
		t.Errorf("removed path still has a status: %v", err)
	}
	if _, _, _, _, _, err := cli.MatchAllocate(false, spec); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, _, err := cli.MatchAllocate(false, spec); !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("second node job after removal: %v", err)
	}
	cli.ClearErrMsg()
	err := cli.RemoveSubgraph("/cluster0/node1")
	msg := "remove_subgraph: ERROR: remove_subgraph error: No such file or directory\nremove_subgraph: ERROR: traverser returned error: \n\n"
	wantErr(t, "remove unknown path", err, match.ENOENT, msg)
	if got := cli.GetErrMsg(); got != msg {
		t.Errorf("GetErrMsg %q", got)
	}

	// Attach a third node: the JGF of a three-node cluster without node1
	// reuses cluster0 and node0 and adds node2.
	three := buildCluster(3, 2)
	node1 := three.ByPath("/cluster0/node1")[0]
	if err := cli.AddSubgraph(renderJGFWithout(t, three, node1)); err != nil {
		t.Fatalf("AddSubgraph: %v (%q)", err, cli.GetErrMsg())
	}
	_, R, _, _, _, err := cli.MatchAllocate(false, spec)
	if err != nil || !strings.Contains(R, "node2[1:x]") {
		t.Errorf("node job after attach: %v\n%s", err, R)
	}
	if s, err := cli.GetRankStatus("2"); err != nil || s != "up" {
		t.Errorf("rank 2 after attach: %q, %v", s, err)
	}
	cli.ClearErrMsg()
	err = cli.AddSubgraph("{")
	var e *fluxcli.Error
	if !errors.As(err, &e) || e.Errno != match.EINVAL ||
		!strings.HasPrefix(e.Msg, "add_subgraph: ERROR: add subgraph error: Invalid argument\nadd_subgraph: ERROR: reader returned error: fetch_jgf: json_loads returned an error: ") ||
		!strings.HasSuffix(e.Msg, "\n\n") || cli.GetErrMsg() != e.Msg {
		t.Errorf("AddSubgraph({): %v, Msg %q", err, cli.GetErrMsg())
	}
}
