package gofluxion

import (
	"errors"
	"sync"
	"testing"
)

// TestConcurrentUse hammers one Matcher from several goroutines: writers
// allocate and cancel while readers run satisfiability, find, explain,
// info and stat. Run it with -race; it also checks that no core is ever
// handed out twice at once.
func TestConcurrentUse(t *testing.T) {
	x, err := New(DemoGraph(), Options{Policy: "low"})
	if err != nil {
		t.Fatal(err)
	}
	core, err := x.ParseJobspec([]byte(`version: 1
resources: [{type: slot, count: 1, label: default, with: [{type: core, count: 1}]}]
attributes: {system: {duration: 100}}
tasks: [{command: [app], slot: default, count: {per_slot: 1}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		held = map[string]uint64{} // core path -> job
		wg   sync.WaitGroup
	)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				a, err := x.Match(Allocate, core, 0)
				if err != nil {
					if !errors.Is(err, ErrBusy) {
						t.Errorf("writer %d: %v", w, err)
					}
					continue
				}
				mu.Lock()
				for _, r := range a.Resources {
					if r.Type == "core" {
						if j, ok := held[r.Path]; ok {
							t.Errorf("core %s given to job %d while job %d holds it", r.Path, a.JobID, j)
						}
						held[r.Path] = a.JobID
					}
				}
				mu.Unlock()
				if i%2 == 0 {
					mu.Lock()
					for p, j := range held {
						if j == a.JobID {
							delete(held, p)
						}
					}
					mu.Unlock()
					if err := x.Cancel(a.JobID); err != nil {
						t.Errorf("cancel %d: %v", a.JobID, err)
					}
				}
			}
		}()
	}
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 60 {
				if err := x.Satisfiable(core); err != nil {
					t.Errorf("reader %d: satisfiable: %v", r, err)
				}
				if _, err := x.Find("sched-now=allocated", "rlite"); err != nil && err.Error() == "" {
					t.Errorf("reader %d: find: %v", r, err)
				}
				if _, err := x.Explain(core, 0); err != nil {
					t.Errorf("reader %d: explain: %v", r, err)
				}
				x.Stat()
				x.Jobs()
				x.Info(1)
			}
		}()
	}
	wg.Wait()
	if st := x.Stat(); st.Jobs != len(uniqueJobs(held)) {
		t.Errorf("stat reports %d live jobs, %d expected", st.Jobs, len(uniqueJobs(held)))
	}
}

func uniqueJobs(held map[string]uint64) map[uint64]bool {
	u := map[uint64]bool{}
	for _, j := range held {
		u[j] = true
	}
	return u
}
