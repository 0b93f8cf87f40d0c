package main

import (
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
)

// The expire sweep catches a job whose end event went missing: it frees
// its cores and reports it.
func TestExpireCatchesAMissedEnd(t *testing.T) {
	c := Cluster{Nodes: 2, Cores: 4}
	g, err := gofluxion.ReadGraph(gofluxion.FormatGRUG, c.GRUG(), "")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := gofluxion.New(g, gofluxion.Options{})
	d := &Dispatcher{m: m}
	tj := TraceJob{ID: 7, Submit: 0, Nodes: 1, Walltime: 60, Runtime: 60}
	js, err := m.ParseJobspec([]byte(tj.Jobspec(c)))
	if err != nil {
		t.Fatal(err)
	}
	j := &Job{TraceJob: tj, spec: js, Start: -1, Promise: -1}
	if ok, err := d.TryStart(j, 0); !ok || err != nil {
		t.Fatalf("TryStart: %v %v", ok, err)
	}
	if err := d.expire(59); err != nil {
		t.Fatalf("expire before the walltime: %v", err)
	}
	err = d.expire(60)
	if err == nil || !strings.Contains(err.Error(), "jobs [7] outlived their walltime") {
		t.Fatalf("expire at the walltime: %v", err)
	}
	if info, _ := m.Info(7); info.State != gofluxion.Canceled {
		t.Errorf("job 7 after the sweep: %v", info.State)
	}
}
