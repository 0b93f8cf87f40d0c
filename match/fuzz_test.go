package match

import (
	"errors"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// fuzzMatcher is a small tiny-like graph (2 nodes × 2 sockets × 2 cores,
// 1 gpu and 1 memory pool per socket) with one allocated job (1), one
// reservation (2), node1 down and a property on node0.
func fuzzMatcher(tb testing.TB) *Matcher {
	g := buildGrugLike("tiny", 2, 2, 1, 1, 2)
	g.V(g.ByPath("/tiny0/rack0/node0")[0]).SetProp("perf", "x")
	m := newMatcher(tb, g, "high")
	if o := do(m, Allocate, mkjs(tb, g, "node[1]->slot[1]->socket[1]->core[1]", 100), 1); o.err != nil {
		tb.Fatal(o)
	}
	if o := do(m, AllocateOrElseReserve, mkjs(tb, g, "node[2]x", 50), 2); o.err != nil || o.at != 100 {
		tb.Fatal(o)
	}
	if err := m.SetStatus("/tiny0/rack0/node1", graph.StatusDown); err != nil {
		tb.Fatal(err)
	}
	return m
}

// FuzzFindCriteria feeds arbitrary criteria to Find: it must never panic
// or change the schedule; invalid criteria give an *Error with EINVAL and
// Fluxion's message; a valid expression emits a tree ending at the root.
func FuzzFindCriteria(f *testing.F) {
	for _, s := range []string{
		"status=up", "status=down", "(status=down)", "status=DOWN and names=NODE1",
		"status=down or names=core0 and names=node0", "status=down or (names=core0 and names=node0)",
		"status=up names=node0", "names=node0,core1", "names=node[0-1]", "names=core[0-3],gpu0",
		"sched-now=allocated", "sched-now=free", "sched-future=reserved", "sched-future=free",
		"jobid-alloc=1", "jobid-reserved=2", "jobid-span=1", "jobid-tag=2", "jobid-tag=18446744073709551615",
		"agfilter=true", "agfilter=t", "agfilter=false", "agfilter=f", "jobid-alloc=1 and agfilter=t",
		"jobid-span=3 and agfilter=t", "property=perf", "property=PERF or property=nope",
		"((status=up) and (sched-now=free or sched-future=reserved))", "status=up\tand\tnames=node0",
		// invalid
		"", " ", "status=down and", "and status=down", "status=sideways", "status", "=up", "status=",
		"(status=up", "status=up)", "()", "names=node[", "names=node[1-0]", "jobid-alloc=x", "jobid-alloc=-1",
		"bogus=1", "status=up or or status=down", "status=up ) (", "agfilter=yes",
		// nesting at and past the depth limit (issue 13: 8M parentheses
		// overflowed the stack)
		strings.Repeat("(", 256) + "status=up" + strings.Repeat(")", 256),
		strings.Repeat("(", 257) + "status=up" + strings.Repeat(")", 257),
		strings.Repeat("(", 5000),
	} {
		f.Add(s)
	}
	m := fuzzMatcher(f)
	probes := []int64{0, 49, 50, 99, 100, 101, 149, 150, 151}
	before := rawDigest(m, probes)
	root := m.g.Root(graph.Containment)
	f.Fuzz(func(t *testing.T, expr string) {
		w := newRecorder()
		err := m.Find(expr, 0, w)
		if after := rawDigest(m, probes); after != before {
			t.Fatalf("Find(%q) changed the schedule:\n%s", expr, diffDigests(before, after))
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Find(%q): error %T %v is not a *match.Error", expr, err, err)
			}
			switch {
			case e.Errno == EINVAL:
				want := "find: invalid criteria: " + expr + ".\n"
				if CriteriaDepth(expr) > graph.DefaultMaxDepth {
					want = "find: criteria nest parentheses more than 256 deep.\n"
				}
				if e.Msg != want {
					t.Fatalf("Find(%q): message %q, want %q", expr, e.Msg, want)
				}
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("Find(%q): EINVAL is not ErrInvalid", expr)
				}
				if len(w.verts) != 0 || w.times != 0 {
					t.Fatalf("Find(%q): invalid criteria emitted something", expr)
				}
			case e.Errno == ENOENT && strings.Contains(e.Msg, "span missing in job2span"):
				// agfilter mode for a job without a filter span.
			default:
				t.Fatalf("Find(%q): unexpected error %#v", expr, e)
			}
			return
		}
		if w.times != 1 || w.start != 0 || w.end != 0 {
			t.Fatalf("Find(%q): times %d [%d,%d)", expr, w.times, w.start, w.end)
		}
		if len(w.verts) > m.g.NumVertices() {
			t.Fatalf("Find(%q) emitted %d vertices", expr, len(w.verts))
		}
		seen := map[graph.VertexID]bool{}
		for _, v := range w.verts {
			if seen[v.id] {
				t.Fatalf("Find(%q) emitted %s twice", expr, m.g.V(v.id).Name)
			}
			seen[v.id] = true
			if !v.excl || v.needs != m.g.V(v.id).Size || v.level < 1 {
				t.Fatalf("Find(%q): vertex %s emitted as %+v", expr, m.g.V(v.id).Name, v)
			}
		}
		if n := len(w.verts); n > 0 && w.verts[n-1].id != root {
			t.Fatalf("Find(%q): the root is not emitted last", expr)
		}
	})
}
