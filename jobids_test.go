package gofluxion

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/graph"
)

// Once job id 2^64-1 is used, Match has no automatic id left: it fails
// (ErrInvalid and ErrLimit) and changes nothing, in the original, a clone
// and a restored copy; MatchWithID still works.
func TestAutomaticJobIDsExhausted(t *testing.T) {
	for _, how := range []string{"MatchWithID", "Match", "Update"} {
		t.Run(how, func(t *testing.T) {
			x, err := New(tinyNodes(2, 2), Options{Policy: "low"})
			if err != nil {
				t.Fatal(err)
			}
			core := reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]", 9)
			switch how {
			case "MatchWithID":
				_, err = x.MatchWithID(Allocate, core, math.MaxUint64, 0)
			case "Match":
				if _, err = x.MatchWithID(Allocate, core, math.MaxUint64-1, 0); err == nil {
					var a *Allocation
					if a, err = x.Match(Allocate, core, 0); err == nil && a.JobID != math.MaxUint64 {
						t.Fatalf("Match after id 2^64-2 gave %d", a.JobID)
					}
				}
			case "Update":
				y, _ := New(tinyNodes(2, 2), Options{Policy: "low"})
				a, err2 := y.Match(Allocate, core, 0)
				if err2 != nil {
					t.Fatal(err2)
				}
				R, _ := a.Render("rv1")
				_, err = x.Update(math.MaxUint64, []byte(R))
			}
			if err != nil {
				t.Fatal(err)
			}
			y, err := Restore(bytes.NewReader(reproSnapshot(t, x)))
			if err != nil {
				t.Fatalf("Restore: %v", err)
			}
			for name, m := range map[string]*Matcher{"original": x, "clone": x.Clone(), "restored": y} {
				before := reproSnapshot(t, m)
				a, err := m.Match(Allocate, core, 0)
				if !errors.Is(err, ErrInvalid) || !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "exhausted") {
					t.Errorf("%s: Match = %v, %v; want the automatic ids exhausted (ErrInvalid, ErrLimit)", name, a, err)
				}
				if !bytes.Equal(before, reproSnapshot(t, m)) {
					t.Errorf("%s: the failed Match changed the state", name)
				}
				if _, err := m.Match(WithoutAllocating, core, 0); err != nil {
					t.Errorf("%s: a dry run needs no id: %v", name, err)
				}
				if _, err := m.MatchWithID(Allocate, core, 5, 0); err != nil {
					t.Errorf("%s: MatchWithID: %v", name, err)
				}
			}
		})
	}
}

// An allocation without a core or gpu renders in rv1 and rv1_shorthand as
// an R with an empty execution part, which Update books again; the formats
// without a scheduling part fail.
func TestRenderWithoutCores(t *testing.T) {
	b := graph.NewBuilder()
	c := b.MustAdd(graph.NoVertex, "cluster", 0, graph.WithBasename("m"))
	n := b.MustAdd(c, "node", 0, graph.WithRank(0))
	b.MustAdd(n, "core", 0)
	b.MustAdd(n, "memory", 0, graph.WithSize(4), graph.WithUnit("GB"))
	x, err := New(b.Graph(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := x.Match(Allocate, reproJobspec(t, x, "[{type: slot, count: 1, label: default, with: [{type: memory, count: 2}]}]", 9), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.String() == "" {
		t.Errorf("String is empty")
	}
	for _, f := range []string{"rlite", "rv1_nosched"} {
		if s, err := a.Render(f); !errors.Is(err, ErrInvalid) {
			t.Errorf("Render(%q) = %q, %v; want ErrInvalid", f, s, err)
		}
	}
	for _, f := range []string{"rv1", "rv1_shorthand"} {
		R, err := a.Render(f)
		if err != nil {
			t.Fatalf("Render(%q): %v", f, err)
		}
		if !strings.Contains(R, `"R_lite": [], "nodelist": []`) || !strings.Contains(R, `"/m0/node0/memory0"`) {
			t.Errorf("Render(%q) = %s", f, R)
		}
		y, err := New(b.Graph(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		u, err := y.Update(a.JobID, []byte(R))
		if err != nil {
			t.Fatalf("Update of the %s R: %v", f, err)
		}
		if got, _ := u.Render(f); got != R {
			t.Errorf("the %s R of the update differs:\n%s\nwant\n%s", f, got, R)
		}
	}
}
