package gofluxion_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/jobspec"
)

// A job past its end that nobody canceled blocks its cores for ever, as in
// Fluxion (issue 21, item 9); Expire frees it.
func TestExpireFreesJobsPastTheirEnd(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	all := jobspec.New(time.Hour, jobspec.Res("node", 8, jobspec.Res("socket", 2, jobspec.Slot("s", 1, jobspec.Res("core", 16)))))
	if _, err := m.Match(gofluxion.Allocate, all, 0); err != nil {
		t.Fatal(err)
	}
	later := jobspec.New(time.Minute, jobspec.Res("node", 1, jobspec.Res("socket", 1, jobspec.Slot("s", 1, jobspec.Res("core", 1)))))
	if _, err := m.Match(gofluxion.AllocateOrElseReserve, later, 10); err != nil {
		t.Fatal(err) // reserved at 3600, ends at 3660
	}
	// At 7200 both jobs have ended, yet nothing fits.
	if _, err := m.Match(gofluxion.Allocate, later, 7200); !errors.Is(err, gofluxion.ErrBusy) {
		t.Fatalf("before Expire: %v, want ErrBusy (Fluxion's rule)", err)
	}
	if ids, err := m.Expire(3600); err != nil || !slices.Equal(ids, []uint64{1}) {
		t.Fatalf("Expire(3600) = %v, %v; want [1]", ids, err)
	}
	if ids, err := m.Expire(7200); err != nil || !slices.Equal(ids, []uint64{2}) {
		t.Fatalf("Expire(7200) = %v, %v; want [2]", ids, err)
	}
	if a, err := m.Match(gofluxion.Allocate, later, 7200); err != nil {
		t.Fatalf("after Expire: %v, %v", a, err)
	}
	if ids, err := m.Expire(7200); err != nil || len(ids) != 0 {
		t.Errorf("Expire again: %v, %v", ids, err)
	}
}

// ExpireJobs works on any Interface: through a parent without Expire it
// cancels from the job table.
func TestExpireJobsWithoutExpireMethod(t *testing.T) {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	js := jobspec.New(time.Minute, jobspec.Res("node", 1).Exclusively())
	for at := int64(0); at < 300; at += 100 {
		if _, err := m.Match(gofluxion.Allocate, js, at); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := gofluxion.ExpireJobs(interfaceOnly{m}, 200)
	if err != nil || !slices.Equal(ids, []uint64{1, 2}) {
		t.Fatalf("ExpireJobs = %v, %v; want [1 2]", ids, err)
	}
	if j, _ := m.Info(3); j.State != gofluxion.Allocated {
		t.Errorf("job 3 (ends at 260): %v", j.State)
	}
}

// interfaceOnly hides every method but Interface's.
type interfaceOnly struct{ gofluxion.Interface }

// A scheduler loop frees the jobs whose end has passed before it matches,
// so that retrying on ErrBusy ends.
func ExampleMatcher_Expire() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	whole := jobspec.New(time.Hour, jobspec.Res("node", 8).Exclusively())
	a, _ := m.Match(gofluxion.Allocate, whole, 0) // runs [0, 3600), never canceled

	now := int64(7200)
	_, err := m.Match(gofluxion.Allocate, whole, now)
	fmt.Println("before Expire:", errors.Is(err, gofluxion.ErrBusy))
	ids, _ := m.Expire(now)
	fmt.Println("expired:", ids, "job", a.JobID)
	b, err := m.Match(gofluxion.Allocate, whole, now)
	fmt.Println("after Expire: job", b.JobID, err)
	// Output:
	// before Expire: true
	// expired: [1] job 1
	// after Expire: job 2 <nil>
}
