package main

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Cluster is the simulated machine: nodes × cores, described as a GRUG
// recipe built in code and loaded with gofluxion.ReadGraph.
type Cluster struct {
	Nodes, Cores int // nodes, and cores per node
}

// GRUG returns the cluster's GRUG (GraphML) recipe: one cluster vertex
// "sim0" containing Nodes node vertices, each containing Cores cores.
func (c Cluster) GRUG() []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="unit" for="node" attr.name="unit" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string"><default>contains</default></key>
  <key id="rrelation" for="edge" attr.name="rrelation" attr.type="string"><default>in</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <graph id="sim" edgedefault="directed">
    <node id="cluster"><data key="root">1</data><data key="type">cluster</data><data key="basename">sim</data></node>
    <node id="node"><data key="type">node</data><data key="basename">node</data></node>
    <node id="core"><data key="type">core</data><data key="basename">core</data></node>
    <edge id="c2n" source="cluster" target="node"><data key="multi_scale">%d</data></edge>
    <edge id="n2c" source="node" target="core"><data key="id_scope">1</data><data key="multi_scale">%d</data></edge>
  </graph>
</graphml>
`, c.Nodes, c.Cores)
}

// TotalCores is the number of cores of the cluster.
func (c Cluster) TotalCores() int { return c.Nodes * c.Cores }

// TraceJob is one job of a workload trace, as a user submits it.
type TraceJob struct {
	ID     uint64
	Submit int64 // submission time, seconds
	// Nodes > 0 asks for that many whole nodes (exclusively); otherwise
	// the job asks for Cores cores on one node, shared with other jobs.
	Nodes, Cores int
	Walltime     int64 // the requested duration: the jobspec's duration
	Runtime      int64 // how long the job really runs (≤ Walltime)
}

// Jobspec returns the job's canonical jobspec (YAML).
func (t TraceJob) Jobspec(c Cluster) string {
	count, excl, cores := 1, "", t.Cores
	if t.Nodes > 0 {
		count, excl, cores = t.Nodes, "\n    exclusive: true", c.Cores
	}
	return fmt.Sprintf(`version: 1
resources:
  - type: node
    count: %d%s
    with:
      - type: slot
        count: 1
        label: default
        with:
          - type: core
            count: %d
attributes:
  system:
    duration: %d
tasks:
  - command: ["app"]
    slot: default
    count: {per_slot: 1}
`, count, excl, cores, t.Walltime)
}

// Size describes the request, e.g. "2 nodes" or "8 cores".
func (t TraceJob) Size() string {
	switch {
	case t.Nodes == 1:
		return "1 node"
	case t.Nodes > 1:
		return fmt.Sprintf("%d nodes", t.Nodes)
	case t.Cores == 1:
		return "1 core"
	}
	return fmt.Sprintf("%d cores", t.Cores)
}

// GenerateTrace makes a reproducible workload of n jobs for cluster c:
// 55% of the jobs ask for 1 to Cores cores on one node (powers of two),
// the others for 1 to Nodes/2 whole nodes (powers of two, small ones more
// often). Walltimes are log-uniform between 5 minutes and 4 hours; jobs
// really run 20% to 100% of their walltime, as users overestimate.
// Arrivals are a Poisson process whose rate makes the offered load (core
// seconds asked per core second of the machine) equal to load.
func GenerateTrace(c Cluster, n int, seed uint64, load float64) []TraceJob {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	pow2 := func(max int) int { // 1, 2, 4, … ≤ max, smaller ones likelier
		k := 0
		for 1<<(k+1) <= max && r.IntN(3) > 0 {
			k++
		}
		return 1 << k
	}
	jobs := make([]TraceJob, n)
	var demand float64 // core-seconds actually used
	for i := range jobs {
		j := &jobs[i]
		j.ID = uint64(i + 1)
		if r.Float64() < 0.55 {
			j.Cores = pow2(c.Cores)
		} else {
			j.Nodes = pow2(max(1, c.Nodes/2))
		}
		j.Walltime = int64(math.Round(300 * math.Exp(r.Float64()*math.Log(48)))) // 5 min … 4 h
		j.Runtime = max(1, int64(math.Round(float64(j.Walltime)*(0.2+0.8*r.Float64()))))
		cores := j.Cores
		if j.Nodes > 0 {
			cores = j.Nodes * c.Cores
		}
		demand += float64(cores) * float64(j.Runtime)
	}
	// Mean inter-arrival time for the requested load.
	gap := demand / float64(c.TotalCores()) / load / float64(n)
	var t float64
	for i := range jobs {
		if i > 0 {
			t += r.ExpFloat64() * gap
		}
		jobs[i].Submit = int64(t)
	}
	return jobs
}
