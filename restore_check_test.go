package gofluxion

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/jobspec"
)

// Restore checks the state it derives (exclusivity and filter spans, tags,
// the up-node count) against the primary state instead of believing the
// snapshot (issue 21, item 8). Each case damages one derived part of a
// valid snapshot of the demo cluster where job 1 runs on cores of one
// node and job 2 is reserved later.

// restoreCase returns the decoded snapshot of such a matcher and the
// vertex ids of job 1's node and of one of its cores.
func restoreCase(t *testing.T) (doc map[string]any, node, core float64) {
	t.Helper()
	x, err := New(DemoGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cores := jobspec.New(time.Hour, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("task", 1, jobspec.Res("core", 4)))))
	if _, err := x.Match(Allocate, cores, 0); err != nil {
		t.Fatal(err)
	}
	whole := jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively())
	if a, err := x.Match(AllocateOrElseReserve, whole, 0); err != nil || a.Start != 3600 {
		t.Fatalf("reservation: %v %v", a, err)
	}
	var b bytes.Buffer
	if err := x.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(unz(t, b.Bytes())), &doc); err != nil {
		t.Fatal(err)
	}
	g := x.Graph()
	node, core = -1, -1
	for _, vj := range records(doc) {
		v := vj["v"].(float64)
		for _, r := range vj["j"].([]any) {
			if r.(map[string]any)["id"].(float64) != 1 {
				continue
			}
			switch g.TypeName(vid(int(v))) {
			case "node":
				node = v
			case "core":
				core = v
			}
		}
	}
	if node < 0 || core < 0 {
		t.Fatal("job 1 holds no node or core")
	}
	return doc, node, core
}

func records(doc map[string]any) []map[string]any {
	var out []map[string]any
	for _, vj := range doc["matcher"].(map[string]any)["jobs"].([]any) {
		out = append(out, vj.(map[string]any))
	}
	return out
}

// jobRecords calls f on every record of job on the vertices pick accepts.
func jobRecords(doc map[string]any, job float64, pick func(v float64) bool, f func(r map[string]any)) {
	for _, vj := range records(doc) {
		if !pick(vj["v"].(float64)) {
			continue
		}
		for _, r := range vj["j"].([]any) {
			if rec := r.(map[string]any); rec["id"].(float64) == job {
				f(rec)
			}
		}
	}
}

func restoreDoc(t *testing.T, doc map[string]any) (*Matcher, error) {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return Restore(bytes.NewReader(gz(t, string(data))))
}

func TestRestoreRefusesInconsistentDerivedState(t *testing.T) {
	every := func(float64) bool { return true }
	for _, tc := range []struct {
		name, want string
		damage     func(doc map[string]any, node, core float64)
	}{
		{"job 1's exclusivity spans removed", "no exclusivity span", func(doc map[string]any, _, _ float64) {
			jobRecords(doc, 1, every, func(r map[string]any) { delete(r, "x") })
		}},
		{"an exclusivity span outside the job's window", "exclusivity span", func(doc map[string]any, node, _ float64) {
			jobRecords(doc, 1, func(v float64) bool { return v == node }, func(r map[string]any) { r["x"] = []any{0.0, 60.0, 1.0} })
		}},
		{"nodes_up -100", "nodes up", func(doc map[string]any, _, _ float64) {
			doc["matcher"].(map[string]any)["nodes_up"] = -100
		}},
		{"nodes_up one too many", "nodes up", func(doc map[string]any, _, _ float64) {
			doc["matcher"].(map[string]any)["nodes_up"] = 9
		}},
		{"a tag dropped", "not tagged", func(doc map[string]any, node, _ float64) {
			jobRecords(doc, 1, func(v float64) bool { return v == node }, func(r map[string]any) { delete(r, "tag") })
		}},
		{"a filter count changed", "filter count", func(doc map[string]any, node, _ float64) {
			jobRecords(doc, 1, func(v float64) bool { return v == node }, func(r map[string]any) {
				f := r["f"].([]any)
				f[2] = f[2].(float64) + 1
			})
		}},
		{"job 1 dropped from its node, kept on its cores", "but not its parent", func(doc map[string]any, node, _ float64) {
			for _, vj := range records(doc) {
				if vj["v"].(float64) != node {
					continue
				}
				var keep []any
				for _, r := range vj["j"].([]any) {
					if r.(map[string]any)["id"].(float64) != 1 {
						keep = append(keep, r)
					}
				}
				vj["j"] = keep
			}
		}},
		{"a reservation span for an allocated job", "reservation span for a job that is not one", func(doc map[string]any, _, core float64) {
			jobRecords(doc, 1, func(v float64) bool { return v == core }, func(r map[string]any) { r["r"], r["a"] = r["a"], nil })
		}},
		{"an allocation span in another window", "allocation span", func(doc map[string]any, _, core float64) {
			jobRecords(doc, 1, func(v float64) bool { return v == core }, func(r map[string]any) { r["a"] = []any{7200.0, 3600.0, 1.0} })
		}},
		{"Fluxion's quirks switched on", "quirk", func(doc map[string]any, _, _ float64) {
			doc["matcher"].(map[string]any)["options"].(map[string]any)["FluxionQuirks"] = true
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, node, core := restoreCase(t)
			if _, err := restoreDoc(t, doc); err != nil {
				t.Fatalf("the undamaged snapshot: %v", err)
			}
			tc.damage(doc, node, core)
			_, err := restoreDoc(t, doc)
			if !errors.Is(err, ErrSnapshot) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Restore: %v, want ErrSnapshot naming %q", err, tc.want)
			}
		})
	}
}

// The attack: with job 1's exclusivity spans gone, the next match
// gave job 1's node exclusively to another job.
func TestRestoreRefusesSnapshotThatWouldGiveAHeldNodeAway(t *testing.T) {
	doc, _, _ := restoreCase(t)
	jobRecords(doc, 1, func(float64) bool { return true }, func(r map[string]any) { delete(r, "x") })
	x, err := restoreDoc(t, doc)
	if err == nil {
		_, merr := x.Match(Allocate, jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively()), 0)
		t.Fatalf("Restore accepted it; an exclusive match of every node at time 0 then gives error %v", merr)
	}
}

// SetStatus counts the nodes up: a node below two down vertices is down
// once (Fluxion's count took it twice, and refused requests that fit).
func TestSetStatusCountsNodesUpOnce(t *testing.T) {
	x, err := New(DemoGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.SetStatus("/demo0/rack0/node0", false); err != nil {
		t.Fatal(err)
	}
	if err := x.SetStatus("/demo0/rack0", false); err != nil {
		t.Fatal(err)
	}
	// rack1's four nodes are up.
	if _, err := x.Match(Allocate, jobspec.New(time.Hour, jobspec.Res("node", 4).Exclusively()), 0); err != nil {
		t.Fatalf("four nodes while rack1's four are up: %v", err)
	}
	if err := x.SetRankStatus("4-7", false); err != nil {
		t.Fatal(err)
	}
	if err := x.SetRankStatus("4", true); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := x.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := Restore(&b); err != nil {
		t.Fatalf("Restore of a snapshot after status changes: %v", err)
	}
}
