package gofluxion

import (
	"flag"
	"fmt"
	"testing"
)

var dbgSeed = flag.Uint64("dbg.seed", 7, "")
var dbgJob = flag.Uint64("dbg.job", 6, "")

func TestDbg(t *testing.T) {
	r, _ := newRunner(*dbgSeed, newModelStats())
	r.episode(300)
	if r.fail == nil { t.Skip("no failure") }
	ops, _ := shrink(r.seed, r.trace, r.fail)
	y, _ := newRunner(*dbgSeed, newModelStats())
	for i, o := range ops {
		res := y.apply(y.x, o)
		y.trace = append(y.trace, o)
		y.step = i
		y.digest = y.snap(y.x)
		y.check(o, res, y.digest)
		out, _ := y.x.FindAt(fmt.Sprintf("jobid-alloc=%d or jobid-reserved=%d or jobid-tag=%d", *dbgJob, *dbgJob, *dbgJob), "simple", 0)
		t.Logf("#%d %s\n  -> %v %s\n  find:\n%s\n  jobs: %v", i, o, res.err, res.out, out, y.x.Jobs())
	}
}
