package fluxcli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/jobspec"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
	"github.com/gofluxion/gofluxion/reapi/types"
)

// badDuration is a valid jobspec whose duration the traverser rejects
// (EINVAL without a traverser message).
const badDuration = `version: 1
resources:
  - type: slot
    count: 1
    label: default
    with:
      - type: core
        count: 1
attributes:
  system:
    duration: -5
tasks:
  - command: [ "app" ]
    slot: default
    count:
      per_slot: 1
`

// jobspecError returns the parse error text of an invalid jobspec.
func jobspecError(t *testing.T, text string) string {
	t.Helper()
	_, err := jobspec.Parse([]byte(text), jobspec.Options{})
	if err == nil {
		t.Fatalf("jobspec %q parses", text)
	}
	return err.Error()
}

// TestMatchCounter runs one client through a sequence of matches and
// checks the job id of each and the counter afterwards (api.md §2, §3).
func TestMatchCounter(t *testing.T) {
	cli := newClient(t, 2, 4, `"match_format": "simple"`)
	small := jobspecText(1, 2, 3600) // 4 fit now
	huge := jobspecText(1, 5, 3600)  // never fits: a node has 4 cores
	bad := "version: 1\nresources: []\n"
	badText := jobspecError(t, bad)
	steps := []struct {
		name      string
		op        types.MatchType
		spec      string
		wantID    int64
		wantErrno match.Errno // 0: success
		wantMsg   string      // added to GetErrMsg
		reserved  bool
		at        int64
	}{
		{"allocate 1", types.MatchAllocate, small, 1, 0, "", false, 0},
		{"satisfiability uses the counter, keeps it", types.MatchSatisfiability, small, 2, 0, "", false, 0},
		{"allocate 2", types.MatchAllocate, small, 2, 0, "", false, 0},
		{"without_allocating", types.MatchWithoutAllocating, small, -1, 0, "", false, 0},
		{"without_allocating_future", types.MatchWithoutAllocatingFuture, small, -1, 0, "", false, 0},
		{"jobspec error: counter kept", types.MatchAllocate, bad, 3, match.EINVAL, "match_allocate: ERROR: Jobspec error for 3: " + badText + "\n", false, 0},
		{"invalid op 0", types.MatchUnknown, small, 3, match.EINVAL, "match_allocate: ERROR: Invalid Match Option: 0\n", false, 0},
		{"invalid op 42", types.MatchType(42), small, 3, match.EINVAL, "match_allocate: ERROR: Invalid Match Option: 42\n", false, 0},
		{"traverser EINVAL: counter kept", types.MatchAllocate, badDuration, 3, match.EINVAL, "match_allocate: ERROR: traverser: Invalid argument\n", false, 0},
		{"allocate_with_satisfiability 3", types.MatchAllocateWithSatisfiability, small, 3, 0, "", false, 0},
		{"allocate 4", types.MatchAllocate, small, 4, 0, "", false, 0},
		{"allocate busy: counter advances", types.MatchAllocate, small, 5, match.EBUSY, "", false, 0},
		{"allocate_with_satisfiability busy", types.MatchAllocateWithSatisfiability, small, 6, match.EBUSY, "", false, 0},
		{"allocate_with_satisfiability never", types.MatchAllocateWithSatisfiability, huge, 7, match.ENODEV, "", false, 0},
		{"satisfiability never: counter kept", types.MatchSatisfiability, huge, 8, match.ENODEV, "", false, 0},
		{"without_allocating busy", types.MatchWithoutAllocating, small, -1, match.EBUSY, "", false, 0},
		{"without_allocating_future finds later", types.MatchWithoutAllocatingFuture, small, -1, 0, "", false, 3600},
		{"reserve", types.MatchAllocateOrElseReserve, small, 8, 0, "", true, 3600},
		{"reserve again", types.MatchAllocateOrElseReserve, small, 9, 0, "", true, 3600},
		{"orelse_reserve never", types.MatchAllocateOrElseReserve, huge, 10, match.ENODEV, "", false, 0},
		{"next", types.MatchAllocateOrElseReserve, small, 11, 0, "", true, 3600},
	}
	for _, st := range steps {
		cli.ClearErrMsg()
		reserved, R, at, ov, id, err := cli.Match(st.op, st.spec)
		if id != st.wantID {
			t.Errorf("%s: jobid %d, want %d", st.name, id, st.wantID)
		}
		if st.wantErrno == 0 {
			if err != nil {
				t.Errorf("%s: %v", st.name, err)
				continue
			}
			if reserved != st.reserved || at != st.at {
				t.Errorf("%s: reserved %v at %d, want %v at %d", st.name, reserved, at, st.reserved, st.at)
			}
			if st.op != types.MatchSatisfiability && !strings.HasSuffix(R, "---cluster0[1:s]\n") {
				t.Errorf("%s: R %q", st.name, R)
			}
			if st.op == types.MatchSatisfiability && R != "" {
				t.Errorf("%s: satisfiability R %q", st.name, R)
			}
			if ov < 0 {
				t.Errorf("%s: overhead %v", st.name, ov)
			}
		} else {
			wantErr(t, st.name, err, st.wantErrno, st.wantMsg)
			if R != "" || at != 0 || reserved {
				t.Errorf("%s: failed match returned R %q at %d reserved %v", st.name, R, at, reserved)
			}
		}
		if got := cli.GetErrMsg(); got != st.wantMsg {
			t.Errorf("%s: GetErrMsg %q, want %q", st.name, got, st.wantMsg)
		}
	}
	// The job table holds exactly the booked jobs.
	wantModes := map[int64]string{1: "ALLOCATED", 2: "ALLOCATED", 3: "ALLOCATED", 4: "ALLOCATED", 8: "RESERVED", 9: "RESERVED", 11: "RESERVED"}
	for id := int64(0); id <= 12; id++ {
		reserved, at, _, mode, err := cli.Info(id)
		want, ok := wantModes[id]
		if !ok {
			if !errors.Is(err, fluxcli.ErrNotFound) {
				t.Errorf("Info(%d) = %q, %v; want ErrNotFound", id, mode, err)
			}
			continue
		}
		if err != nil || mode != want || reserved != (want == "RESERVED") || (want == "RESERVED") != (at == 3600) {
			t.Errorf("Info(%d) = %v %q %d %v, want mode %s", id, reserved, mode, at, err, want)
		}
	}
}

func TestMatchAllocate(t *testing.T) {
	cli := newClient(t, 1, 4, "")
	spec := jobspecText(1, 2, 100)
	for i, want := range []struct {
		orelse   bool
		id       int64
		reserved bool
		at       int64
		errno    match.Errno
	}{
		{false, 1, false, 0, 0},
		{false, 2, false, 0, 0},
		{false, 3, false, 0, match.EBUSY},
		{true, 4, true, 100, 0},
		{true, 5, true, 100, 0},
		{true, 6, true, 200, 0},
		{false, 7, false, 0, match.EBUSY},
	} {
		reserved, R, at, _, id, err := cli.MatchAllocate(want.orelse, spec)
		if id != want.id || reserved != want.reserved || at != want.at {
			t.Errorf("match %d: id %d reserved %v at %d, want %d %v %d", i, id, reserved, at, want.id, want.reserved, want.at)
		}
		if want.errno != 0 {
			wantErr(t, "busy match", err, want.errno, "")
			if !errors.Is(err, fluxcli.ErrBusy) || !errors.Is(err, match.ErrBusy) {
				t.Errorf("errors.Is(%v, ErrBusy) = false", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("match %d: %v", i, err)
		}
		paths := jgfPaths(t, R)
		if countMatching(paths, "core") != 2 || countMatching(paths, "node") != 1 || countMatching(paths, "cluster") != 1 {
			t.Errorf("match %d: R vertices %v", i, paths)
		}
	}
}

func TestMatchWithJobID(t *testing.T) {
	cli := newClient(t, 1, 4, "")
	spec := jobspecText(1, 1, 100)
	_, _, _, _, id, err := cli.MatchWithJobID(types.MatchAllocate, spec, 42)
	if err != nil || id != 42 {
		t.Fatalf("MatchWithJobID(42) = %d, %v", id, err)
	}
	if _, _, _, mode, err := cli.Info(42); err != nil || mode != "ALLOCATED" {
		t.Errorf("Info(42) = %q, %v", mode, err)
	}
	// The counter advanced anyway.
	if _, _, _, _, id, err := cli.MatchAllocate(false, spec); err != nil || id != 2 {
		t.Errorf("next MatchAllocate id %d, %v; want 2", id, err)
	}
	// An id in use is refused, and nothing changes.
	cli.ClearErrMsg()
	_, _, _, _, id, err = cli.MatchWithJobID(types.MatchAllocate, spec, 42)
	wantErr(t, "MatchWithJobID in use", err, match.EEXIST, "match_allocate: ERROR: existing jobid 42\n")
	if id != 42 || !errors.Is(err, fluxcli.ErrExists) {
		t.Errorf("id %d, errors.Is(ErrExists) %v", id, errors.Is(err, fluxcli.ErrExists))
	}
	if _, _, _, _, id, _ := cli.MatchAllocate(false, spec); id != 3 {
		t.Errorf("counter after a refused id: %d, want 3", id)
	}
	// Without allocating, the given id is replaced by -1.
	if _, _, _, _, id, err := cli.MatchWithJobID(types.MatchWithoutAllocating, spec, 42); err != nil || id != fluxcli.WithoutAllocatingJobID {
		t.Errorf("without_allocating id %d, %v", id, err)
	}
	// A canceled id can be used again.
	if err := cli.Cancel(42, false); err != nil {
		t.Fatal(err)
	}
	if _, _, _, _, id, err := cli.MatchWithJobID(types.MatchAllocate, spec, 42); err != nil || id != 42 {
		t.Errorf("reusing canceled id 42: %d, %v", id, err)
	}
}

func TestMatchSatisfy(t *testing.T) {
	cli := newClient(t, 2, 4, "")
	// Fill the graph: satisfiability ignores what is booked.
	for i := 0; i < 2; i++ {
		if _, _, _, _, _, err := cli.MatchAllocate(false, nodeJobspec(1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cli.SetStatus("/cluster0/node0", "down"); err != nil {
		t.Fatal(err)
	}
	bad := "version: 9\n"
	tests := []struct {
		name    string
		spec    string
		sat     bool
		wantErr bool
	}{
		{"fits", jobspecText(2, 4, 60), true, false},
		{"fits whole graph despite bookings and status", nodeJobspec(2, 0), true, false},
		{"never", jobspecText(1, 5, 60), false, false},
		{"too many nodes", nodeJobspec(3, 0), false, false},
		{"bad jobspec", bad, false, true},
	}
	for _, tc := range tests {
		cli.ClearErrMsg()
		sat, ov, err := cli.MatchSatisfy(tc.spec)
		if sat != tc.sat || (err != nil) != tc.wantErr || ov < 0 {
			t.Errorf("%s: MatchSatisfy = %v, %v, %v; want %v, err %v", tc.name, sat, ov, err, tc.sat, tc.wantErr)
		}
		if tc.wantErr {
			wantErr(t, tc.name, err, match.EINVAL, "match_allocate: ERROR: Jobspec error for 3: "+jobspecError(t, bad)+"\n")
			var e *fluxcli.Error
			if errors.As(err, &e) && e.Op != "match_satisfy" {
				t.Errorf("Op %q", e.Op)
			}
		} else if msg := cli.GetErrMsg(); msg != "" {
			t.Errorf("%s: GetErrMsg %q", tc.name, msg)
		}
	}
	// No job id was consumed.
	if _, _, _, _, id, _ := cli.MatchAllocate(false, jobspecText(1, 1, 60)); id != 3 {
		t.Errorf("counter after MatchSatisfy: %d, want 3", id)
	}
}

// A failed match with a writer that cannot render "nothing" (rlite) still
// reports the traverser's errno, and an R is returned as usual on success.
func TestMatchRliteFailure(t *testing.T) {
	cli := newClient(t, 1, 2, `"match_format": "rlite"`)
	_, R, _, _, id, err := cli.MatchAllocate(false, jobspecText(1, 2, 60))
	if err != nil || R != `[{"rank": "0", "children": {"core": "0-1"}}]`+"\n" || id != 1 {
		t.Fatalf("rlite match: %q, %d, %v", R, id, err)
	}
	_, R, _, _, id, err = cli.MatchAllocate(false, jobspecText(1, 2, 60))
	wantErr(t, "busy rlite match", err, match.EBUSY, "")
	if R != "" || id != 2 {
		t.Errorf("busy rlite match: R %q id %d", R, id)
	}
	if _, _, _, _, id, _ = cli.MatchAllocate(false, jobspecText(1, 2, 60)); id != 3 {
		t.Errorf("counter after busy rlite match: %d, want 3", id)
	}
}

// The context keeps one writer: content a find could not render is
// prepended to the next rendering (formats.md §5).
func TestWriterKeepsUnrenderedContent(t *testing.T) {
	cli := newClient(t, 1, 2, "")
	_, err := cli.Find("names=cluster0")
	wantErr(t, "single-vertex JGF find", err, match.EINVAL, "find: ERROR: find writer emit: Invalid argument\n")
	_, R, _, _, _, err := cli.MatchAllocate(false, jobspecText(1, 1, 60))
	if err != nil {
		t.Fatal(err)
	}
	paths := jgfPaths(t, R)
	if len(paths) != 4 || paths[0] != "/cluster0" || countMatching(paths, "cluster") != 2 {
		t.Errorf("R after an unrendered find: vertices %v, want the pending cluster0 first", paths)
	}
	// A fresh-format find does not touch the context's writer.
	if _, err := cli.FindWithFormat("names=cluster0", "jgf"); err == nil {
		t.Fatal("single-vertex jgf find rendered")
	}
	_, R, _, _, _, _ = cli.MatchAllocate(false, jobspecText(1, 1, 60))
	if paths := jgfPaths(t, R); len(paths) != 3 {
		t.Errorf("R after a fresh-writer find: %v", paths)
	}
}
