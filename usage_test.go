package gofluxion_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// The job table names each job's nodes, after a partial cancel and a
// restore too (issue 21, item 4).
func TestJobTableNamesNodes(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{Policy: gofluxion.PolicyLow})
	a, err := m.Match(gofluxion.Allocate, jobspec.New(time.Hour, jobspec.Res("node", 2, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("core", 2))))), 0)
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := m.Info(a.JobID); j.Nodes != strings.Join(a.Nodes(), ",") || len(a.Nodes()) != 2 {
		t.Fatalf("Info: nodes %v, allocation %v", j.Nodes, a.Nodes())
	}
	first := a.ByNode()[0]
	R := fmt.Sprintf(`{"version": 1, "execution": {"R_lite": [{"rank": "%d", "children": {"core": "0-1"}}], "nodelist": ["%s"], "starttime": 0, "expiration": 3600}}`, first.Rank, first.Name)
	if full, err := m.PartialCancel(a.JobID, []byte(R)); err != nil || full {
		t.Fatalf("PartialCancel: %v %v", full, err)
	}
	j, _ := m.Info(a.JobID)
	if j.Nodes == "" || strings.Contains(j.Nodes, ",") || j.Nodes == first.Name {
		t.Errorf("after releasing %s: nodes %v", first.Name, j.Nodes)
	}
	var b bytes.Buffer
	if err := m.Snapshot(&b); err != nil {
		t.Fatal(err)
	}
	y, err := gofluxion.Restore(&b)
	if err != nil {
		t.Fatal(err)
	}
	if k, _ := y.Info(a.JobID); k.Nodes != j.Nodes {
		t.Errorf("restored: nodes %v, want %v", k.Nodes, j.Nodes)
	}
}
