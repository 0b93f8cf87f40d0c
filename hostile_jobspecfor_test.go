package gofluxion_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/graph"
)

// mixedNodes makes cluster → 4 nodes, even ones with 2 sockets × 8 cores,
// odd ones with 4 sockets × 4 cores; each core holds two pus (as hwloc
// graphs do); each node has memory of size mem[0] in unit units[0] and
// size mem[1] in units[1].
func mixedNodes(units [2]string, mem [2]int64) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	for n := 0; n < 4; n++ {
		node := b.MustAdd(c, "node", int64(n))
		ns := 2 + 2*(n%2)
		for s := 0; s < ns; s++ {
			so := b.MustAdd(node, "socket", int64(s))
			for i := 0; i < 16/ns; i++ {
				core := b.MustAdd(so, "core", int64(s*16/ns+i))
				b.MustAdd(core, "pu", int64(2*(s*16/ns+i)))
				b.MustAdd(core, "pu", int64(2*(s*16/ns+i)+1))
			}
		}
		b.MustAdd(node, "gpu", 0)
		b.MustAdd(node, "memory", 0, graph.WithSize(mem[0]), graph.WithUnit(units[0]))
		b.MustAdd(node, "memory", 1, graph.WithSize(mem[1]), graph.WithUnit(units[1]))
	}
	return b.Graph()
}

// countBelow counts, by brute force over the resources, the units of type
// t whose path lies below node path p.
func countBelow(a *gofluxion.Allocation, p, t string) int64 {
	var n int64
	for _, r := range a.Resources {
		if r.Type == t && strings.HasPrefix(r.Path, p+"/") {
			n += r.Units
		}
	}
	return n
}

// Hostile JobspecFor: a graph that mixes node shapes is served in a shape
// every node can hold, memory near 2^64 bytes is refused as too big (not
// as a broken generated jobspec), memory vertices in two units are
// refused, and ByNode counts cores that hold pus.
func TestHostileJobspecFor(t *testing.T) {
	gb := [2]string{"GB", "GB"}
	cases := []struct {
		name  string
		g     *graph.Graph
		r     gofluxion.NodeRequest
		shape string // "" when an error is wanted
		want  error
		msg   string
	}{
		{"mixed shapes, 8 cores on all 4", mixedNodes(gb, [2]int64{16, 16}), gofluxion.NodeRequest{Nodes: 4, Cores: 8}, "node[4]->slot[1]->socket[2]->core[4]", nil, ""},
		{"mixed shapes, 16 cores on 2", mixedNodes(gb, [2]int64{16, 16}), gofluxion.NodeRequest{Nodes: 2, Cores: 16, GPUs: 1}, "node[2]->slot[1]->{socket[2]->core[8],gpu[1]}", nil, ""},
		// 2 × 8 and 4 × 4 cores: no one request takes 16 on each.
		{"mixed shapes, 16 cores on 4", mixedNodes(gb, [2]int64{16, 16}), gofluxion.NodeRequest{Nodes: 4, Cores: 16}, "", gofluxion.ErrUnsatisfiable, "never"},
		{"mixed shapes, memory", mixedNodes(gb, [2]int64{16, 16}), gofluxion.NodeRequest{Nodes: 2, Cores: 3, MemoryBytes: 20 << 30}, "node[2]->slot[1]->{socket[1]->core[3],memory[20]}", nil, ""},
		{"memory 2^64-1", gofluxion.DemoGraph(), gofluxion.NodeRequest{Nodes: 1, MemoryBytes: math.MaxUint64}, "", gofluxion.ErrInvalid, "more than 4294967295 units"},
		{"memory 2^64-2^29", gofluxion.DemoGraph(), gofluxion.NodeRequest{Nodes: 1, Cores: 1, MemoryBytes: math.MaxUint64 - 1<<29}, "", gofluxion.ErrInvalid, "more than 4294967295 units"},
		{"duration beyond the graph", gofluxion.DemoGraph(), gofluxion.NodeRequest{Nodes: 1, Cores: 1, Duration: math.MaxInt64}, "", gofluxion.ErrInvalid, "gofluxion: jobspec for: nodes 1, cores 1, gpus 0, duration 2562047h47m16.854775807s: want"},
		{"never, named as JobspecFor", gofluxion.DemoGraph(), gofluxion.NodeRequest{Nodes: 9, Cores: 1}, "", gofluxion.ErrUnsatisfiable, "gofluxion: jobspec for: the request can never"},
		{"memory in two units", mixedNodes([2]string{"MB", "GB"}, [2]int64{1024, 1}), gofluxion.NodeRequest{Nodes: 1, MemoryBytes: 1 << 30}, "", gofluxion.ErrInvalid, "mix units"},
	}
	for _, c := range cases {
		m, err := gofluxion.New(c.g, gofluxion.Options{Policy: gofluxion.PolicyLow})
		if err != nil {
			t.Fatal(err)
		}
		js, err := m.JobspecFor(c.r)
		if c.want != nil {
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.msg) {
				t.Errorf("%s: %v, want %v containing %q", c.name, err, c.want, c.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := js.Shape(); got != c.shape {
			t.Errorf("%s: shape %s, want %s", c.name, got, c.shape)
		}
		a, err := m.Match(gofluxion.Allocate, js, 0)
		if err != nil {
			t.Errorf("%s: %s: %v", c.name, js.Shape(), err)
			continue
		}
		use := a.ByNode()
		if len(use) != c.r.Nodes {
			t.Errorf("%s: %d nodes, want %d", c.name, len(use), c.r.Nodes)
		}
		for _, u := range use {
			cores, gpus, mem := countBelow(a, u.Path, "core"), countBelow(a, u.Path, "gpu"), countBelow(a, u.Path, "memory")
			if u.Cores != cores || u.GPUs != gpus || u.Memory != mem {
				t.Errorf("%s: ByNode %+v, the resources say %d cores, %d gpus, %d memory", c.name, u, cores, gpus, mem)
			}
			if cores < int64(c.r.Cores) || gpus < int64(c.r.GPUs) || mem<<30 < int64(c.r.MemoryBytes) {
				t.Errorf("%s: %s holds %d cores, %d gpus, %d GB: less than asked", c.name, u.Name, cores, gpus, mem)
			}
		}
	}
}
