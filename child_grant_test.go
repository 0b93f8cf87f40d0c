package gofluxion_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// A child cannot outlive its grant (issue 21, item 7): once the parent
// cancels the job the child was made from and gives its cores to another
// job, the child books nothing more (ErrNotFound), and it can be released.
func TestChildFailsOnceTheParentCancelsItsGrant(t *testing.T) {
	parent, err := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := parent.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 3600))
	a, err := parent.Match(gofluxion.Allocate, js, 0)
	if err != nil {
		t.Fatal(err)
	}
	child, err := gofluxion.NewChild(parent, a, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small, _ := child.ParseJobspec(fmt.Appendf(nil, socketOf, 2, 600))
	j, err := child.Match(gofluxion.Allocate, small, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The parent takes the grant back and gives every core to job 2.
	if err := parent.Cancel(a.JobID); err != nil {
		t.Fatal(err)
	}
	all := jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively())
	if _, err := parent.Match(gofluxion.Allocate, all, 0); err != nil {
		t.Fatalf("every core to job 2: %v", err)
	}
	for name, op := range map[string]func() error{
		"Match": func() error { _, err := child.Match(gofluxion.Allocate, small, 0); return err },
		"MatchWithID": func() error {
			_, err := child.MatchWithID(gofluxion.AllocateOrElseReserve, small, 9, 0)
			return err
		},
		"Satisfiable": func() error { return child.Satisfiable(small) },
		"Explain":     func() error { _, err := child.Explain(small, 0); return err },
		"SetStatus":   func() error { return child.SetStatus(a.Resources[0].Path, false) },
		"Grow":        func() error { _, err := child.Grow(small, 0); return err },
		"Shrink":      func() error { return child.Shrink(a.Resources[0].Path) },
		"Update": func() error {
			_, err := child.Update(7, []byte(j.String()))
			return err
		},
	} {
		if err := op(); !errors.Is(err, gofluxion.ErrNotFound) {
			t.Errorf("%s after the parent canceled the grant: %v, want ErrNotFound", name, err)
		}
	}
	// Reads still work, and Release frees the child.
	if _, err := child.Info(1); err != nil {
		t.Errorf("Info: %v", err)
	}
	if err := child.Release(); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if j, _ := child.Info(1); j.State != gofluxion.Canceled {
		t.Errorf("the child's job after Release: %v", j.State)
	}
	if n := len(child.Grant().Parts); n != 0 {
		t.Errorf("%d grant parts after Release", n)
	}
}

// countingParent is a parent that counts the job lookups a child makes.
type countingParent struct {
	*gofluxion.Matcher
	infos int
}

func (p *countingParent) Info(id uint64) (gofluxion.Job, error) {
	p.infos++
	return p.Matcher.Info(id)
}

// The check costs one ReleaseGeneration call while nothing was released in
// the parent; the grant's jobs are looked up again only after a release.
func TestChildChecksItsGrantCheaply(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	parent := &countingParent{Matcher: m}
	js, _ := parent.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 3600))
	a, _ := parent.Match(gofluxion.Allocate, js, 0)
	other, _ := parent.Match(gofluxion.Allocate, js, 0)
	child, err := gofluxion.NewChild(parent, a, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small, _ := child.ParseJobspec(fmt.Appendf(nil, socketOf, 1, 60))
	parent.infos = 0
	for range 10 {
		j, err := child.Match(gofluxion.Allocate, small, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Cancel(j.JobID); err != nil {
			t.Fatal(err)
		}
	}
	if parent.infos != 1 {
		t.Errorf("10 child matches looked the grant's job up %d times, want once", parent.infos)
	}
	// Another job's cancel changes the generation: one more lookup.
	if err := parent.Cancel(other.JobID); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		j, err := child.Match(gofluxion.Allocate, small, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := child.Cancel(j.JobID); err != nil {
			t.Fatal(err)
		}
	}
	if parent.infos != 2 {
		t.Errorf("after a cancel in the parent, %d lookups in all, want 2", parent.infos)
	}
}

// A grandchild sees its grant go when the child cancels the job it was
// made from.
func TestGrandchildFailsOnceTheChildCancelsItsGrant(t *testing.T) {
	root, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := root.ParseJobspec(fmt.Appendf(nil, socketOf, 8, 3600))
	a, _ := root.Match(gofluxion.Allocate, js, 0)
	child, err := gofluxion.NewChild(root, a, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mid, _ := child.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 600))
	b, err := child.Match(gofluxion.Allocate, mid, 0)
	if err != nil {
		t.Fatal(err)
	}
	grand, err := gofluxion.NewChild(child, b, gofluxion.Options{})
	if err != nil {
		t.Fatal(err)
	}
	small, _ := grand.ParseJobspec(fmt.Appendf(nil, socketOf, 1, 60))
	if _, err := grand.Match(gofluxion.Allocate, small, 0); err != nil {
		t.Fatal(err)
	}
	if err := child.Cancel(b.JobID); err != nil {
		t.Fatal(err)
	}
	if _, err := grand.Match(gofluxion.Allocate, small, 0); !errors.Is(err, gofluxion.ErrNotFound) {
		t.Errorf("grandchild Match after its grant was canceled: %v", err)
	}
	if err := grand.Release(); err != nil {
		t.Errorf("grandchild Release: %v", err)
	}
}

// When the parent takes a child's grant back, the child's booking
// operations fail with ErrNotFound, and Release frees it.
func ExampleChild_grantTakenBack() {
	parent, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js, _ := parent.ParseJobspec(fmt.Appendf(nil, socketOf, 4, 3600))
	a, _ := parent.Match(gofluxion.Allocate, js, 0)
	child, _ := gofluxion.NewChild(parent, a, gofluxion.Options{})

	_ = parent.Cancel(a.JobID) // the parent takes the grant back
	small, _ := child.ParseJobspec(fmt.Appendf(nil, socketOf, 2, 600))
	_, err := child.Match(gofluxion.Allocate, small, 0)
	fmt.Println(errors.Is(err, gofluxion.ErrNotFound))
	fmt.Println(err)
	fmt.Println(child.Release(), len(child.Grant().Parts))
	// Output:
	// true
	// gofluxion: child: the parent no longer holds job 1 of the child's grant (canceled or removed there): release the child
	// <nil> 0
}
