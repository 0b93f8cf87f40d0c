package fluxcli_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

// matchR allocates spec on a fresh 1×4 client writing format and returns
// the R.
func matchR(t *testing.T, format, spec string) string {
	t.Helper()
	src := newClient(t, 1, 4, `"match_format": "`+format+`"`)
	_, R, _, _, _, err := src.MatchAllocate(false, spec)
	if err != nil {
		t.Fatalf("source match: %v", err)
	}
	return R
}

// setExecution rewrites members of the execution object of an R, and
// optionally the scheduling writer.
func editR(t *testing.T, R string, edit func(top map[string]any)) string {
	t.Helper()
	var top map[string]any
	if err := json.Unmarshal([]byte(R), &top); err != nil {
		t.Fatal(err)
	}
	edit(top)
	b, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUpdateAllocate(t *testing.T) {
	spec := nodeJobspec(1, 3600)
	rv1 := matchR(t, "rv1", spec)
	rv1NoSched := matchR(t, "rv1_nosched", spec)
	bareJGF := matchR(t, "jgf", spec)
	shorthand := matchR(t, "rv1_shorthand", spec)
	timed := editR(t, rv1, func(top map[string]any) {
		ex := top["execution"].(map[string]any)
		ex["starttime"], ex["expiration"] = 100.7, 160.2
	})
	noExpiration := editR(t, rv1, func(top map[string]any) {
		delete(top["execution"].(map[string]any), "expiration")
	})
	expiredFirst := editR(t, rv1, func(top map[string]any) {
		ex := top["execution"].(map[string]any)
		ex["starttime"], ex["expiration"] = 0, -20
	})
	writer := func(w any) string {
		return editR(t, rv1, func(top map[string]any) { top["scheduling"].(map[string]any)["writer"] = w })
	}
	tests := []struct {
		name       string
		loadFormat string
		R          string
		at         int64
		busyUntil  int64 // a node job fits again at this time (0: never)
		// preorder loads the graph from a JGF listing its vertices in
		// creation order (unique ids = creation indices, as a GRUG,
		// hwloc or rv1exec graph has); Fluxion expands a shorthand R's
		// exclusive vertex only on such a graph.
		preorder bool
		// shorthandFails: Fluxion cannot expand the R's exclusive node
		// (graph loaded from a post-order JGF): the update fails and,
		// unlike Fluxion's, books nothing.
		shorthandFails bool
	}{
		{"rv1 envelope: scheduling JGF", "jgf", rv1, 0, 3600, false, false},
		{"rv1_nosched envelope: rv1exec", "jgf", rv1NoSched, 0, 3600, false, false},
		{"rv1_shorthand envelope", "jgf", shorthand, 0, 3600, false, true},
		{"rv1_shorthand envelope, graph in creation order", "jgf", shorthand, 0, 3600, true, false},
		{"writer fluxion", "jgf", writer("fluxion"), 0, 3600, false, false},
		{"writer fluxion:", "jgf", writer("fluxion:"), 0, 3600, false, false},
		{"writer fluxion:jgf", "jgf", writer("fluxion:jgf"), 0, 3600, false, false},
		{"writer null", "jgf", writer(nil), 0, 3600, false, false},
		{"starttime and expiration", "jgf", timed, 100, 160, false, false},
		{"no expiration: whole window", "jgf", noExpiration, 0, 0, false, false},
		{"expiration before starttime: whole window", "jgf", expiredFirst, 0, 0, false, false},
		{"bare JGF in the load format", "jgf", bareJGF, 0, 0, false, false},
		{"bare jgf_shorthand, jgf_shorthand load format", "jgf_shorthand", matchR(t, "jgf_shorthand", spec), 0, 0, false, true},
		{"bare jgf_shorthand, graph in creation order", "jgf_shorthand", matchR(t, "jgf_shorthand", spec), 0, 0, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := `"load_format": "` + tc.loadFormat + `", "match_format": "simple"`
			cli := newClient(t, 1, 4, opts)
			if tc.preorder {
				cli = newClientFrom(t, renderJGFPreorder(t, buildCluster(1, 4)), opts)
			}
			at, ov, Rout, err := cli.UpdateAllocate(7, tc.R)
			if tc.shorthandFails {
				wantErr(t, "UpdateAllocate", err, match.EINVAL,
					"update_allocate: ERROR: update_tgt_edge: JGF edge from 1 to 2 not found in resource graph.\n")
				if _, _, _, _, err := cli.Info(7); !errors.Is(err, fluxcli.ErrNotFound) {
					t.Errorf("Info(7) after the failed update: %v, want ErrNotFound", err)
				}
				// Nothing was booked (Fluxion keeps the node booked).
				if _, _, rat, _, _, err := cli.MatchAllocate(false, nodeJobspec(1, 10)); err != nil || rat != 0 {
					t.Errorf("node job after the failed update: at %d, %v; want allocated now", rat, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("UpdateAllocate: %v\n%s", err, cli.GetErrMsg())
			}
			if at != tc.at || ov < 0 || !strings.Contains(Rout, "node0[1:x]") {
				t.Errorf("at %d ov %v Rout %q; want at %d", at, ov, Rout, tc.at)
			}
			reserved, iat, _, mode, err := cli.Info(7)
			if err != nil || mode != "ALLOCATED" || reserved || iat != tc.at {
				t.Errorf("Info(7) = %v %q %d %v; want ALLOCATED at %d", reserved, mode, iat, err, tc.at)
			}
			// The node is booked until the end of the R's window (and, as
			// for every allocation in Fluxion, also before its start:
			// traversal.md §6.4 refuses "now" on an allocated vertex).
			_, _, rat, _, id, err := cli.MatchAllocate(true, nodeJobspec(1, 10))
			if tc.busyUntil == 0 {
				if !errors.Is(err, fluxcli.ErrBusy) {
					t.Errorf("node booked for ever: reserve %d at %d, %v", id, rat, err)
				}
			} else if err != nil || rat != tc.busyUntil {
				t.Errorf("reservation at %d, %v; want %d", rat, err, tc.busyUntil)
			}
			// The update did not move the counter.
			if id != 1 {
				t.Errorf("match after update got id %d, want 1", id)
			}
		})
	}
}

// A graph loaded from an R (load format rv1exec) takes its own R back.
func TestUpdateAllocateRV1ExecGraph(t *testing.T) {
	R := matchR(t, "rv1_nosched", nodeJobspec(1, 3600))
	cli := fluxcli.NewReapiClient()
	if err := cli.InitContext(R, `{"load_format": "rv1exec", "match_format": "rv1_nosched"}`); err != nil {
		t.Fatalf("InitContext: %v", err)
	}
	at, _, Rout, err := cli.UpdateAllocate(1, R)
	if err != nil || at != 0 {
		t.Fatalf("UpdateAllocate: %d, %v (%q)", at, err, cli.GetErrMsg())
	}
	if Rout != R {
		t.Errorf("Rout %q, want the R %q", Rout, R)
	}
	if _, _, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 10)); !errors.Is(err, fluxcli.ErrBusy) {
		t.Errorf("match on the booked graph: %v", err)
	}
}

func TestUpdateAllocateErrors(t *testing.T) {
	spec := nodeJobspec(1, 3600)
	rv1 := matchR(t, "rv1", spec)
	writer := func(w any) string {
		return editR(t, rv1, func(top map[string]any) { top["scheduling"].(map[string]any)["writer"] = w })
	}
	otherGraph := newClient(t, 2, 4, `"match_format": "rv1"`)
	_, node1R, _, _, _, _ := otherGraph.MatchAllocate(false, spec) // node1: not in a 1-node graph
	tests := []struct {
		name       string
		loadFormat string
		R          string
		errno      match.Errno
		msg        string
		is         error
	}{
		{"empty", "jgf", "", match.EINVAL, "", fluxcli.ErrInvalid},
		{"not JSON", "jgf", "{version", match.EINVAL, "update_allocate: ERROR: failed to parse R string\n", fluxcli.ErrInvalid},
		{"JSON scalar", "jgf", `"R"`, match.EINVAL, "update_allocate: ERROR: failed to parse R string\n", fluxcli.ErrInvalid},
		{"other scheme", "jgf", writer("other:jgf"), match.EINVAL, "update_allocate: ERROR: unsupported scheduling.writer scheme (not fluxion)\n", fluxcli.ErrInvalid},
		{"non-string writer", "jgf", writer(3), match.EINVAL, "update_allocate: ERROR: unsupported scheduling.writer scheme (not fluxion)\n", fluxcli.ErrInvalid},
		{"other fluxion format", "jgf", writer("fluxion:rv1"), match.EINVAL, "update_allocate: ERROR: unsupported fluxion scheduling.writer format\n", fluxcli.ErrInvalid},
		{"non-JGF R with grug load format", "grug", `{"nodes": []}`, match.ENOTSUP, "update_allocate: ERROR: update not supported by the grug reader\n", fluxcli.ErrNotSupported},
		{"vertex not in the graph", "jgf", node1R, match.EINVAL, "update_allocate: ERROR: exist: inconsistent input vertex: nonexistent path (/cluster0/node1/core0) 8.\n", fluxcli.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var cli *fluxcli.ReapiClient
			if tc.loadFormat == "grug" {
				cli = fluxcli.NewReapiClient()
				if err := cli.InitContext(grugCluster, "{}"); err != nil {
					t.Fatal(err)
				}
			} else {
				cli = newClient(t, 1, 4, `"load_format": "`+tc.loadFormat+`"`)
			}
			_, _, _, err := cli.UpdateAllocate(3, tc.R)
			wantErr(t, "UpdateAllocate", err, tc.errno, tc.msg)
			if !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
			if got := cli.GetErrMsg(); got != tc.msg {
				t.Errorf("GetErrMsg %q, want %q", got, tc.msg)
			}
			if _, _, _, _, err := cli.Info(3); !errors.Is(err, fluxcli.ErrNotFound) {
				t.Errorf("failed update recorded job 3: %v", err)
			}
		})
	}
}

// grugCluster is a GRUG recipe: cluster0 → node0 → core0..core3.
const grugCluster = `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string"><default>contains</default></key>
  <key id="rrelation" for="edge" attr.name="rrelation" attr.type="string"><default>in</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <graph id="cluster" edgedefault="directed">
    <node id="cluster"><data key="root">1</data><data key="type">cluster</data><data key="basename">cluster</data></node>
    <node id="node"><data key="type">node</data><data key="basename">node</data></node>
    <node id="core"><data key="type">core</data><data key="basename">core</data></node>
    <edge id="cluster2node" source="cluster" target="node"><data key="multi_scale">1</data></edge>
    <edge id="node2core" source="node" target="core"><data key="multi_scale">4</data></edge>
  </graph>
</graphml>
`

func TestUpdateAllocateConflicts(t *testing.T) {
	spec := nodeJobspec(1, 3600)
	rv1 := matchR(t, "rv1", spec)
	cli := newClient(t, 1, 4, "")
	if _, _, _, err := cli.UpdateAllocate(5, rv1); err != nil {
		t.Fatal(err)
	}
	// Job 5 exists.
	cli.ClearErrMsg()
	_, _, _, err := cli.UpdateAllocate(5, rv1)
	wantErr(t, "existing job", err, match.EEXIST, "update_allocate: ERROR: existing jobid 5\n")
	if !errors.Is(err, fluxcli.ErrExists) {
		t.Errorf("errors.Is(%v, ErrExists) = false", err)
	}
	// The same resources under another id: busy.
	cli.ClearErrMsg()
	_, _, _, err = cli.UpdateAllocate(6, rv1)
	var e *fluxcli.Error
	if !errors.As(err, &e) || e.Errno != match.EINVAL || !strings.HasPrefix(e.Msg, "update_allocate: ERROR: ") || !strings.Contains(e.Msg, "is unavailable.") {
		t.Errorf("busy update: %v (%q)", err, cli.GetErrMsg())
	}
	// The counter skips the id taken by the update.
	if err := cli.Cancel(5, false); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := cli.UpdateAllocate(1, rv1); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, id, _ := cli.MatchAllocate(true, spec); id != 2 {
		t.Errorf("MatchAllocate after update of job 1 got id %d, want 2", id)
	}
	// A canceled id may be updated again.
	if err := cli.Cancel(1, false); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := cli.UpdateAllocate(1, rv1); err != nil {
		t.Errorf("update of canceled job 1: %v", err)
	}
}

func TestCancel(t *testing.T) {
	cli := newClient(t, 1, 2, "")
	spec := jobspecText(1, 2, 100)
	cli.MatchAllocate(false, spec)                       // 1 allocated
	cli.MatchAllocate(true, spec)                        // 2 reserved at 100
	_, _, _, _, _, err := cli.MatchAllocate(false, spec) // 3 busy
	if !errors.Is(err, fluxcli.ErrBusy) {
		t.Fatalf("third match: %v", err)
	}
	tests := []struct {
		name  string
		id    int64
		noent bool
		errno match.Errno // 0: success
		msg   string
		mode  string // after
		is    error
	}{
		{"allocated", 1, false, 0, "", "CANCELED", nil},
		{"reserved", 2, false, 0, "", "CANCELED", nil},
		{"canceled again", 1, false, match.ENOENT, "cancel: ERROR: nonexistent job 1\n", "CANCELED", fluxcli.ErrNotFound},
		{"canceled again, noent ok", 2, true, 0, "cancel: ERROR: nonexistent job 2\n", "CANCELED", nil},
		{"failed match never recorded", 3, false, match.ENOENT, "cancel: ERROR: nonexistent job 3\n", "", fluxcli.ErrNotFound},
		{"unknown, noent ok", 99, true, 0, "cancel: ERROR: nonexistent job 99\n", "", nil},
		{"above INT64_MAX", -1, false, match.EOVERFLOW, "", "", fluxcli.ErrInvalid},
		{"above INT64_MAX, noent ok", -5, true, match.EOVERFLOW, "", "", fluxcli.ErrInvalid},
	}
	for _, tc := range tests {
		cli.ClearErrMsg()
		err := cli.Cancel(tc.id, tc.noent)
		if tc.errno == 0 {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		} else {
			wantErr(t, tc.name, err, tc.errno, tc.msg)
			if !errors.Is(err, tc.is) {
				t.Errorf("%s: errors.Is(%v, %v) = false", tc.name, err, tc.is)
			}
		}
		if got := cli.GetErrMsg(); got != tc.msg {
			t.Errorf("%s: GetErrMsg %q, want %q", tc.name, got, tc.msg)
		}
		if tc.mode != "" {
			if _, _, _, mode, err := cli.Info(tc.id); err != nil || mode != tc.mode {
				t.Errorf("%s: Info = %q, %v; want %s", tc.name, mode, err, tc.mode)
			}
		}
	}
	// Everything is free again.
	if _, _, at, _, _, err := cli.MatchAllocate(false, spec); err != nil || at != 0 {
		t.Errorf("match after cancels: at %d, %v", at, err)
	}
}

func TestInfo(t *testing.T) {
	cli := newClient(t, 1, 2, "")
	_, _, _, ov, _, _ := cli.MatchAllocate(false, jobspecText(1, 2, 100))
	reserved, at, iov, mode, err := cli.Info(1)
	if err != nil || reserved || mode != "ALLOCATED" || at != 0 || iov != ov {
		t.Errorf("Info(1) = %v %q %d %v %v; want ALLOCATED, overhead %v", reserved, mode, at, iov, err, ov)
	}
	cli.MatchAllocate(true, jobspecText(1, 2, 100))
	if reserved, at, _, mode, err := cli.Info(2); err != nil || !reserved || mode != "RESERVED" || at != 100 {
		t.Errorf("Info(2) = %v %q %d %v", reserved, mode, at, err)
	}
	for _, id := range []int64{0, 3, -1} {
		cli.ClearErrMsg()
		_, _, _, _, err := cli.Info(id)
		want := "info: ERROR: nonexistent job " + map[int64]string{0: "0", 3: "3", -1: "18446744073709551615"}[id] + "\n"
		wantErr(t, "Info unknown", err, match.ENOENT, want)
		if got := cli.GetErrMsg(); got != want {
			t.Errorf("GetErrMsg %q, want %q", got, want)
		}
	}
}

func TestPartialCancel(t *testing.T) {
	// Job 1 holds both nodes; job 2 is reserved.
	newState := func(t *testing.T) *fluxcli.ReapiClient {
		cli := newClient(t, 2, 4, `"match_format": "rv1"`)
		if _, _, _, _, _, err := cli.MatchAllocate(false, nodeJobspec(2, 100)); err != nil {
			t.Fatal(err)
		}
		if reserved, _, _, _, _, err := cli.MatchAllocate(true, nodeJobspec(1, 100)); err != nil || !reserved {
			t.Fatal(reserved, err)
		}
		return cli
	}
	rank := func(r string) string {
		return `{"version": 1, "execution": {"R_lite": [{"rank": "` + r + `", "children": {"core": "0-3"}}], "nodelist": ["node` + r + `"], "starttime": 0, "expiration": 100}}`
	}
	t.Run("by ranks", func(t *testing.T) {
		cli := newState(t)
		full, err := cli.PartialCancel(1, rank("0"), false)
		if err != nil || full {
			t.Fatalf("rank 0: full %v, %v (%q)", full, err, cli.GetErrMsg())
		}
		if _, _, _, mode, _ := cli.Info(1); mode != "ALLOCATED" {
			t.Errorf("after a partial release: %s", mode)
		}
		// node0 is free now, node1 is not.
		if s, _ := cli.FindWithFormat("sched-now=allocated", "rv1_nosched"); !strings.Contains(s, `"nodelist":["node1"]`) {
			t.Errorf("allocated after releasing rank 0: %s", s)
		}
		full, err = cli.PartialCancel(1, rank("1"), false)
		if err != nil || !full {
			t.Fatalf("rank 1: full %v, %v", full, err)
		}
		if _, _, _, mode, _ := cli.Info(1); mode != "CANCELED" {
			t.Errorf("after the full release: %s", mode)
		}
		if err := cli.Cancel(1, false); !errors.Is(err, fluxcli.ErrNotFound) {
			t.Errorf("cancel after full partial cancel: %v", err)
		}
	})
	t.Run("by JGF scheduling part", func(t *testing.T) {
		cli := newState(t)
		s, err := cli.FindWithFormat("jobid-alloc=1", "rv1")
		if err != nil {
			t.Fatal(err)
		}
		full, err := cli.PartialCancel(1, s, false)
		if err != nil || !full {
			t.Errorf("whole R: full %v, %v (%q)", full, err, cli.GetErrMsg())
		}
	})
	tests := []struct {
		name  string
		id    int64
		R     string
		noent bool
		errno match.Errno // 0: success (false)
		msg   string
	}{
		{"reserved job", 2, rank("0"), false, match.ENOENT, "cancel: WARNING: can't find allocation for jobid: 2\n"},
		{"unknown job", 9, rank("0"), false, match.ENOENT, "cancel: WARNING: can't find allocation for jobid: 9\n"},
		{"unknown job, noent ok", 9, rank("0"), true, 0, "cancel: WARNING: can't find allocation for jobid: 9\n"},
		{"not JSON", 1, "{", false, match.EINVAL, "remove_job: ERROR: failed to parse R as JSON: string or '}' expected near end of file\n"},
		{"empty", 1, "", false, match.EINVAL, "remove_job: ERROR: failed to parse R as JSON: '[' or '{' expected near end of file\n"},
		{"unknown rank", 1, rank("7"), false, match.EINVAL, "remove7 not found in by_rank map.\ncancel: ERROR: error encountered while removing job 1\n"},
		{"bad writer", 1, `{"scheduling": {"writer": "x:jgf"}}`, false, match.EINVAL, "remove_job: ERROR: unsupported scheduling.writer scheme (not fluxion)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cli := newState(t)
			full, err := cli.PartialCancel(tc.id, tc.R, tc.noent)
			if full {
				t.Errorf("full removal reported")
			}
			if tc.errno == 0 {
				if err != nil {
					t.Errorf("%v", err)
				}
			} else {
				wantErr(t, tc.name, err, tc.errno, tc.msg)
			}
			if got := cli.GetErrMsg(); got != tc.msg {
				t.Errorf("GetErrMsg %q, want %q", got, tc.msg)
			}
			if _, _, _, mode, _ := cli.Info(1); mode != "ALLOCATED" {
				t.Errorf("job 1 is %s after a failed partial cancel", mode)
			}
		})
	}
}
