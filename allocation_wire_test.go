package gofluxion

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gofluxion/gofluxion/jobspec"
)

var wireSpecs = []string{
	`resources: [{type: node, count: 1, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 1, with: [{type: core, count: 3}, {type: memory, count: 2}, {type: gpu, count: 1}]}]}]}]`,
	`resources: [{type: node, count: 2, exclusive: true, with: [{type: slot, count: 1, label: default, with: [{type: socket, count: 2}]}]}]`,
	`resources: [{type: node, count: 1, with: [{type: socket, count: 1, with: [{type: slot, count: 2, label: default, with: [{type: core, count: 2}]}]}]}]`,
}

func wireAllocations(t testing.TB) []*Allocation {
	m, err := New(DemoGraph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*Allocation
	for i := range 12 {
		y := "version: 1\n" + wireSpecs[i%len(wireSpecs)] + "\nattributes: {system: {duration: 100, queue: q}}\ntasks: [{command: [app], slot: default, count: {per_slot: 1}}]\n"
		js, err := jobspec.Parse([]byte(y), jobspec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := m.Match(AllocateOrElseReserve, js, int64(i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// TestAllocationWire: a decoded allocation has the same fields, renders
// every match format byte for byte as the original, and answers Nodes and
// ByNode the same; damaged documents are refused with ErrInvalid.
func TestAllocationWire(t *testing.T) {
	for _, a := range wireAllocations(t) {
		data, err := a.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var b Allocation
		if err := b.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if a.JobID != b.JobID || a.Start != b.Start || a.End != b.End || a.Reserved != b.Reserved || a.Overhead != b.Overhead || !reflect.DeepEqual(a.Resources, b.Resources) {
			t.Fatalf("job %d: fields differ", a.JobID)
		}
		for _, f := range MatchFormats() {
			x, errA := a.Render(f)
			y, errB := b.Render(f)
			if x != y || (errA == nil) != (errB == nil) {
				t.Fatalf("job %d: format %s differs:\n%s\n%s", a.JobID, f, x, y)
			}
		}
		if a.String() != b.String() || !reflect.DeepEqual(a.Nodes(), b.Nodes()) || !reflect.DeepEqual(a.ByNode(), b.ByNode()) {
			t.Fatalf("job %d: String, Nodes or ByNode differ", a.JobID)
		}
	}
	for i, bad := range []string{"", "{", `{"version": 2}`, `{"version": 1, "vertices": [{"t": 5}]}`,
		`{"version": 1, "types": ["core"], "vertices": [{"t": 0}], "events": [{"e": 3}]}`,
		`{"version": 1, "events": [{"v": {"ID": 4}}]}`, `{"version": 1, "fields": {"Resources": [{}]}, "leaf": []}`} {
		var b Allocation
		if err := b.UnmarshalBinary([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("document %d: %v, want ErrInvalid", i, err)
		}
	}
}

// FuzzAllocationWire: decoding never panics, and what decodes renders
// without panicking.
func FuzzAllocationWire(f *testing.F) {
	for _, a := range wireAllocations(f)[:3] {
		data, _ := a.MarshalBinary()
		f.Add(data)
	}
	f.Add([]byte(`{"version": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a Allocation
		if a.UnmarshalBinary(data) != nil {
			return
		}
		for _, fm := range MatchFormats() {
			_, _ = a.Render(fm)
		}
		_ = a.ByNode()
		_ = fmt.Sprint(a.Nodes())
	})
}
