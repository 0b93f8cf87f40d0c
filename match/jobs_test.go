package match

import (
	"crypto/sha256"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/graph"
	"github.com/gofluxion/gofluxion/internal/randstream"
)

// TestJobBlocksModel checks the block list against a plain sorted slice
// (the representation it replaces) under random inserts and removals, with
// small blocks so that splits and empty blocks happen often.
func TestJobBlocksModel(t *testing.T) {
	defer func(b int) { jobBlock = b }(jobBlock)
	for _, blk := range []int{1, 2, 3, 8} {
		jobBlock = blk
		rng := rand.New(rand.NewSource(int64(blk)))
		var model []jobRec
		for i := uint64(1); i <= 10; i++ {
			model = append(model, jobRec{job: 2 * i, fspan: -1})
		}
		x := newJobBlocks(model)
		var snap *jobBlocks
		var snapModel []jobRec
		for step := 0; step < 4000; step++ {
			job := uint64(rng.Intn(200))
			i, found := findJob(model, job)
			switch {
			case found && rng.Intn(2) == 0 && len(model) > 1:
				model = slices.Delete(model, i, i+1)
				x.remove(job)
			case !found:
				model = slices.Insert(model, i, jobRec{job: job, fspan: int64(step)})
				if p := x.insert(jobRec{job: job, fspan: int64(step)}); p.job != job || p.fspan != int64(step) {
					t.Fatalf("block %d step %d: insert returned %+v", blk, step, *p)
				}
			default:
				// A record found is changed through the pointer find returns.
				p := x.find(job)
				if p == nil {
					t.Fatalf("block %d step %d: job %d not found", blk, step, job)
				}
				p.alloc++
				model[i].alloc++
			}
			if step == 1000 {
				snap, snapModel = x.clone(), slices.Clone(model)
			}
			if x.n != len(model) {
				t.Fatalf("block %d step %d: n %d, want %d", blk, step, x.n, len(model))
			}
			for k := range model {
				if got := *x.at(k); got != model[k] {
					t.Fatalf("block %d step %d: at(%d) = %+v, want %+v", blk, step, k, got, model[k])
				}
			}
			if x.find(201) != nil {
				t.Fatalf("block %d: found a job never inserted", blk)
			}
			for _, b := range x.b {
				if len(b) == 0 || len(b) > 2*jobBlock {
					t.Fatalf("block %d step %d: a block of %d records", blk, step, len(b))
				}
			}
		}
		// The clone taken at step 1000 did not change with the original.
		for k := range snapModel {
			if got := *snap.at(k); got != snapModel[k] {
				t.Fatalf("block %d: the clone changed: at(%d) = %+v, want %+v", blk, k, got, snapModel[k])
			}
		}
	}
}

// TestJobBlocksStreams runs deep queues with re-planning and clones under
// tiny block thresholds (every vertex above two jobs keeps blocks) and
// under the defaults: every output and the final state must be the same.
func TestJobBlocksStreams(t *testing.T) {
	run := func(pol string) (string, *State) {
		g := smallGraph()
		m := newMatcher(t, g, pol)
		js := mkjs(t, g, "node[1]->slot[1]->core[2]", 3600)
		var out strings.Builder
		w := emit.NewSimple()
		rng := rand.New(rand.NewSource(7))
		var live []uint64
		next := uint64(1)
		for step := 0; step < 1500; step++ {
			switch r := rng.Intn(10); {
			case r < 6 || len(live) == 0:
				at, err := m.Match(AllocateOrElseReserve, js, next, 0, w)
				s, _ := w.Render()
				fmt.Fprintf(&out, "match %d: %d %v\n%s", next, at, err, s)
				if err == nil {
					live = append(live, next)
				}
				next++
			case r < 9:
				// Re-plan: cancel a live job and match it again.
				id := live[rng.Intn(len(live))]
				err := m.Cancel(id)
				at, err2 := m.Match(AllocateOrElseReserve, js, id, 0, w)
				s, _ := w.Render()
				fmt.Fprintf(&out, "replan %d: %v %d %v\n%s", id, err, at, err2, s)
			default:
				// Continue on a clone (the original is dropped).
				m = m.Clone()
			}
		}
		st, err := m.State()
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), st
	}
	for _, pol := range []string{"first", "high", "lonode"} {
		wantOut, wantSt := run(pol)
		func() {
			defer func(b, j, o int) { jobBlock, bigJobs, bigOrder = b, j, o }(jobBlock, bigJobs, bigOrder)
			jobBlock, bigJobs, bigOrder = 1, 2, 2
			gotOut, gotSt := run(pol)
			if gotOut != wantOut {
				t.Errorf("%s: outputs differ with tiny blocks", pol)
			}
			if !reflect.DeepEqual(gotSt.Jobs, wantSt.Jobs) {
				t.Errorf("%s: states differ with tiny blocks", pol)
			}
		}()
	}
}

// outTarget is a randstream target that renders every selection.
type outTarget struct {
	*streamTarget
	w emit.Writer
}

func (t *outTarget) Match(kind randstream.Kind, doc string, jobid uint64, now int64) (int64, string, error) {
	js := t.js[doc]
	if js == nil {
		return 0, "", errUnknownType
	}
	at, err := t.m.Match(diffOps[kind], js, jobid, now, t.w)
	s, _ := t.w.Render()
	return at, s, err
}

// TestBlocksDifferential replays random mixed streams (attach, remove,
// status changes, partial cancels included) with the flat job lists and
// child orders (thresholds beyond any list) and with blocks everywhere
// (tiny thresholds): the hash of every output must be the same. The flat
// representation is the oracle of the blocked one.
func TestBlocksDifferential(t *testing.T) {
	streams := 40
	if testing.Short() {
		streams = 10
	}
	hash := func(policy string, seed int64) string {
		rng := rand.New(rand.NewSource(seed))
		g := randstream.Graph(rng, randstream.Small)
		ops := randstream.Ops(rng, 80, len(g.ByType(graph.TypeNode)))
		m := newMatcher(t, g, policy)
		h := sha256.New()
		randstream.Run(&outTarget{newStreamTarget(t, g, m, ops), emit.NewSimple()}, ops, h)
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	defer func(b, j, o int) { jobBlock, bigJobs, bigOrder = b, j, o }(jobBlock, bigJobs, bigOrder)
	for _, p := range []string{"first", "high", "lonode", "hinodex", "variation"} {
		for s := int64(1); s <= int64(streams); s++ {
			jobBlock, bigJobs, bigOrder = 128, 1<<30, 1<<30
			want := hash(p, 7000+s)
			jobBlock, bigJobs, bigOrder = int(1+s%3), 2, 2
			if got := hash(p, 7000+s); got != want {
				t.Errorf("%s seed %d: blocked lists decide otherwise than flat ones", p, 7000+s)
			}
		}
	}
}
