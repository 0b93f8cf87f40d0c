package gofluxion

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

var snapStreams = flag.Int("snapshot.n", 1000, "random streams for the snapshot round-trip property test")

// randomGraph builds a small cluster: racks → nodes → sockets → cores,
// gpus and memory pools, with random counts.
func randomGraph(r *rand.Rand) *graph.Graph {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("rnd"))
	node := int64(0)
	for ri := range 1 + r.IntN(2) {
		rack := b.MustAdd(c, "rack", int64(ri))
		for range 1 + r.IntN(3) {
			n := b.MustAdd(rack, "node", node)
			node++
			core := int64(0)
			for si := range 1 + r.IntN(2) {
				s := b.MustAdd(n, "socket", int64(si))
				for range 1 + r.IntN(4) {
					b.MustAdd(s, "core", core)
					core++
				}
				for gi := range r.IntN(3) {
					b.MustAdd(s, "gpu", int64(si*2+gi))
				}
				if r.IntN(2) == 0 {
					b.MustAdd(s, "memory", int64(si), graph.WithSize(int64(1+r.IntN(8))), graph.WithUnit("GB"))
				}
			}
		}
	}
	return b.Graph()
}

// randomJobspec writes one of a few request shapes with random counts.
func randomJobspec(r *rand.Rand) string {
	cnt := func(max int) string { return fmt.Sprint(1 + r.IntN(max)) }
	var res string
	switch r.IntN(6) {
	case 0:
		res = `[{type: slot, count: ` + cnt(3) + `, label: default, with: [{type: core, count: ` + cnt(2) + `}]}]`
	case 1:
		res = `[{type: node, count: ` + cnt(2) + `, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: ` + cnt(2) + `}]}]}]}]`
	case 2:
		res = `[{type: node, count: 1, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 1}]}]}]}]`
	case 3:
		res = `[{type: socket, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: core, count: ` + cnt(3) + `}, {type: gpu, count: 1}]}]}]`
	case 4:
		res = `[{type: cluster, count: 1, with: [{type: rack, count: 1, with: [{type: node, count: 1, with: [{type: slot, count: ` + cnt(2) + `, label: default, with: [{type: core, count: 1}]}]}]}]}]`
	default:
		res = `[{type: slot, count: 1, label: default, with: [{type: core, count: {min: 1, max: 4, operator: "+", operand: 1}}]}]`
	}
	return "version: 1\nresources: " + res + "\nattributes: {system: {duration: " + fmt.Sprint(10*(1+r.IntN(20))) + "}}\ntasks: [{command: [app], slot: default, count: {per_slot: 1}}]\n"
}

var policies = []string{"first", "high", "low", "hinode", "lonode", "hinodex", "lonodex", "firstnodex", "locality", "variation"}

// action is one pre-drawn random operation, applied identically to a
// Matcher and its restored copy.
type action struct {
	kind, op, js, pick int
	up                 bool
	advance            int64
}

func drawAction(r *rand.Rand) action {
	a := action{kind: r.IntN(10), op: r.IntN(5), js: r.IntN(4), pick: r.IntN(1 << 20), up: r.IntN(2) == 0}
	if r.IntN(4) == 0 {
		a.advance = int64(r.IntN(50))
	}
	return a
}

// apply runs one action and describes its outcome.
func apply(t *testing.T, x *Matcher, a action, now int64, js []string) string {
	t.Helper()
	switch {
	case a.kind < 6:
		op := []Op{Allocate, AllocateOrElseReserve, AllocateWithSatisfiability, Satisfiability, WithoutAllocating}[a.op]
		spec, err := x.ParseJobspec([]byte(js[a.js]))
		if err != nil {
			t.Fatalf("jobspec: %v", err)
		}
		al, err := x.Match(op, spec, now)
		if err != nil {
			return fmt.Sprintf("%s: %v busy=%v unsat=%v", op, err, errors.Is(err, ErrBusy), errors.Is(err, ErrUnsatisfiable))
		}
		if al == nil {
			return op.String() + ": satisfiable"
		}
		s, _ := al.Render("simple")
		return fmt.Sprintf("%s: job %d at %d-%d reserved=%v\n%s", op, al.JobID, al.Start, al.End, al.Reserved, s)
	case a.kind < 8:
		jobs := x.Jobs()
		if len(jobs) == 0 {
			return "no job"
		}
		j := jobs[a.pick%len(jobs)]
		return fmt.Sprintf("cancel %d: %v", j.ID, x.Cancel(j.ID))
	case a.kind < 9:
		nodes := x.Graph().ByType(graph.TypeNode)
		n := nodes[a.pick%len(nodes)]
		path := x.Graph().V(n).Paths[0].Path
		return fmt.Sprintf("status %s: %v", path, x.SetStatus(path, a.up))
	default:
		out, err := x.Find("sched-now=allocated or sched-future=reserved", "simple")
		return fmt.Sprintf("find: %v\n%s", err, out)
	}
}

// TestSnapshotRestoreIdentical: at a random point of a random operation
// stream, snapshot and restore; the restored Matcher must then answer the
// rest of the stream exactly as the original.
func TestSnapshotRestoreIdentical(t *testing.T) {
	n := *snapStreams
	if testing.Short() {
		n = 50
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		g := randomGraph(r)
		pol := policies[r.IntN(len(policies))]
		x, err := New(g, Options{Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		js := make([]string, 4)
		for i := range js {
			js[i] = randomJobspec(r)
		}
		acts := make([]action, 20+r.IntN(20))
		for i := range acts {
			acts[i] = drawAction(r)
		}
		cut := r.IntN(len(acts))
		now := int64(0)
		for _, a := range acts[:cut] {
			now += a.advance
			apply(t, x, a, now, js)
		}
		var buf bytes.Buffer
		if err := x.Snapshot(&buf); err != nil {
			t.Fatalf("seed %d: snapshot: %v", seed, err)
		}
		y, err := Restore(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("seed %d: restore: %v", seed, err)
		}
		// The job tables agree, canceled jobs' node lists included.
		if xj, yj := x.Jobs(), y.Jobs(); !slices.Equal(xj, yj) {
			t.Fatalf("seed %d: job tables differ after restore:\noriginal: %+v\nrestored: %+v", seed, xj, yj)
		}
		for i, a := range acts[cut:] {
			now += a.advance
			ra, rb := apply(t, x, a, now, js), apply(t, y, a, now, js)
			if ra != rb {
				t.Fatalf("seed %d (policy %s), op %d after restore at op %d:\noriginal: %s\nrestored: %s", seed, pol, cut+i, cut, ra, rb)
			}
		}
	}
}

func TestRestoreRejectsBadSnapshots(t *testing.T) {
	x, err := New(DemoGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := x.ParseJobspec([]byte(randomJobspec(rand.New(rand.NewPCG(1, 1)))))
	if _, err := x.Match(Allocate, spec, 0); err != nil {
		t.Fatal(err)
	}
	var good bytes.Buffer
	if err := x.Snapshot(&good); err != nil {
		t.Fatal(err)
	}
	before, _ := x.Find("sched-now=allocated", "simple")
	cases := map[string][]byte{
		"empty":      nil,
		"not gzip":   []byte("{}"),
		"truncated":  good.Bytes()[:good.Len()/2],
		"corrupted":  func() []byte { b := bytes.Clone(good.Bytes()); b[len(b)/2] ^= 0xff; return b }(),
		"version 2":  gz(t, strings.Replace(unz(t, good.Bytes()), `"version":1`, `"version":2`, 1)),
		"format":     gz(t, strings.Replace(unz(t, good.Bytes()), `"gofluxion-snapshot"`, `"other"`, 1)),
		"bad vertex": gz(t, strings.Replace(unz(t, good.Bytes()), `"roots":[0`, `"roots":[99999`, 1)),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			err := x.RestoreFrom(bytes.NewReader(data))
			if !errors.Is(err, ErrSnapshot) {
				t.Fatalf("RestoreFrom: %v, want ErrSnapshot", err)
			}
			after, _ := x.Find("sched-now=allocated", "simple")
			if after != before {
				t.Errorf("a failed restore changed the matcher")
			}
		})
	}
	if err := x.RestoreFrom(bytes.NewReader(good.Bytes())); err != nil {
		t.Fatalf("good snapshot: %v", err)
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func unz(t *testing.T, data []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
