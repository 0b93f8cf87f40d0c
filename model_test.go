package gofluxion

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofluxion/gofluxion/jobspec"
)

// TestModel is a model-based random test of the Matcher: random operation
// streams (every operation, failing ones included) on random graphs, under
// every policy and both traversers, checked after every step against a
// reference model that is only a booking table (model_ref_test.go):
//
//   - no leaf is booked beyond its size, and no leaf or exclusive vertex is
//     held at or below a vertex another job holds exclusively, at any
//     time; nothing down is selected (but under a vertex taken whole);
//   - a failed operation (and a read-only one) leaves the state identical
//     (everything Snapshot saves: digest);
//   - an operation fails or succeeds as the model expects where it can
//     tell (unknown ids, paths and ranks, ill-formed and foreign R's, an
//     update of an R whose resources are free or taken), with the right
//     sentinel error;
//   - the leaves each job holds according to the Matcher (Find
//     "jobid-alloc=J or jobid-reserved=J") are the model's, the job table
//     (Jobs) is the model's, and so are the graph's vertices and statuses
//     after the operations that change them;
//   - Clone and Snapshot taken while an operation runs see the state before
//     or after it; a clone and a restored Matcher answer the next operations
//     exactly as the original; RestoreFrom rolls back to a saved state;
//   - cancelling everything at the end leaves an empty schedule.
//
// Episode seeds are 1, 2, …; a seed fixes the graph, the policy and
// traverser (seed mod 20) and the stream. go test runs 8,000 operations
// (800 with -short); -long runs at least 10^6:
//
//	GOMAXPROCS=1 go test -p 1 -run Model -long -v -timeout 0 .
//	go test -run 'TestModel$' -model.seed=N -v   # one episode, as printed on failure
//
// On failure it prints the episode's seed, policy and traverser, the
// graph, and the op trace shrunk to the operations needed to fail.
var (
	modelLong  = flag.Bool("long", false, "run the long model-based test (TestModel: at least 10^6 operations)")
	modelSeed  = flag.Uint64("model.seed", 0, "TestModel: run only the episode with this seed")
	modelOps   = flag.Int("model.ops", 0, "TestModel: operations in total (0: 10^6 with -long, a short default otherwise)")
	modelEpOps = flag.Int("model.epops", 300, "TestModel: random operations per episode")
	modelTrace = flag.Bool("model.trace", false, "TestModel: log every operation and its outcome")
)

var modelPolicies = []string{"first", "high", "low", "hinode", "lonode", "hinodex", "lonodex", "firstnodex", "locality", "variation"}
var modelTraversers = []string{"simple", "flexible"}

// modelKnown lists the failure kinds of known issues: those whose fix is in
// flight on another branch (named), and those this test found, marked NEW,
// each with a failing reproducer in model_repro_test.go. The test counts
// them and goes on: it undoes a half-done failed operation with
// RestoreFrom, or ends the episode when the Matcher's state is one the
// model cannot follow. Remove an entry when its fix lands; an entry is a
// failure kind, or a prefix of kinds ending in "/".
var modelKnown = map[string]string{}

// knownIssue returns the description of the known issue a failure kind
// belongs to.
func knownIssue(kind string) (string, bool) {
	s, ok := modelKnown[knownEntry(kind)]
	return s, ok
}

// knownEntry returns the entry of modelKnown for a failure kind: the kind,
// or a prefix of it ending in "/"; "" for none.
func knownEntry(kind string) string {
	if _, ok := modelKnown[kind]; ok {
		return kind
	}
	for _, k := range slices.Sorted(maps.Keys(modelKnown)) {
		if strings.HasSuffix(k, "/") && strings.HasPrefix(kind, k) {
			return k
		}
	}
	return ""
}

// --- operations ---

type opKind uint8

const (
	kMatch opKind = iota
	kCancel
	kPartial
	kUpdate
	kAttach
	kRemove
	kRemoveRanks
	kStatus
	kRankStatus
	kFind
	kExplain
	kClone      // lockstep with a Clone for K operations
	kRestore    // lockstep with Restore(Snapshot) for K operations (Up: continue with it)
	kSave       // remember the state (slot K)
	kRollback   // RestoreFrom the state of slot K
	kBadRestore // RestoreFrom a damaged snapshot
	kFinal      // the end-of-episode checks
)

var kindNames = [...]string{"match", "cancel", "partial-cancel", "update", "attach", "remove", "remove-ranks",
	"set-status", "set-rank-status", "find", "explain", "clone", "restore", "save", "rollback", "bad-restore", "final"}

func (k opKind) String() string { return kindNames[k] }

type want uint8

const (
	wantAny want = iota
	wantOK
	wantFail
)

// mop is one operation with every argument resolved, so that a trace
// replays without the generator.
type mop struct {
	Kind   opKind
	Op     Op
	JS     string
	ID     uint64
	WithID bool
	At     int64
	R      []byte
	Path   string
	Ranks  string
	Up     bool
	Doc    []byte
	Fmt    string
	K      int
	Conc   bool // Clone and Snapshot run concurrently with it
	Want   want
	Tag    string // names the expectation in failure kinds
	Note   string
	Sub    *gnode // attach: the subtree Doc adds
	Parent string // attach: where
}

func (o *mop) String() string {
	var b strings.Builder
	b.WriteString(o.Kind.String())
	switch o.Kind {
	case kMatch:
		fmt.Fprintf(&b, " %v at=%d", o.Op, o.At)
		if o.WithID {
			fmt.Fprintf(&b, " id=%d", o.ID)
		}
		fmt.Fprintf(&b, " %s", jobspecResources(o.JS))
	case kCancel:
		fmt.Fprintf(&b, " %d", o.ID)
	case kPartial, kUpdate:
		fmt.Fprintf(&b, " %d R=%s", o.ID, o.R)
	case kAttach:
		fmt.Fprintf(&b, " under %s: %s doc=%s", o.Parent, o.Sub, o.Doc)
	case kRemove:
		fmt.Fprintf(&b, " %q", o.Path)
	case kRemoveRanks:
		fmt.Fprintf(&b, " %q", o.Ranks)
	case kStatus:
		fmt.Fprintf(&b, " %q up=%v", o.Path, o.Up)
	case kRankStatus:
		fmt.Fprintf(&b, " %q up=%v", o.Ranks, o.Up)
	case kFind:
		fmt.Fprintf(&b, " %q %s at=%d", o.Path, o.Fmt, o.At)
	case kExplain:
		fmt.Fprintf(&b, " at=%d %s", o.At, jobspecResources(o.JS))
	case kClone, kRestore:
		fmt.Fprintf(&b, " for %d ops (continue with it: %v)", o.K, o.Up)
	case kSave, kRollback:
		fmt.Fprintf(&b, " slot %d", o.K)
	}
	if o.Conc {
		b.WriteString(" [with concurrent Clone and Snapshot]")
	}
	if o.Note != "" {
		b.WriteString(" (" + o.Note + ")")
	}
	return b.String()
}

// --- the runner ---

type modelStats struct {
	ops      int
	byCombo  map[string]int
	outcomes map[string]int // kind/ok, kind/<error class>
	known    map[string]int
	episodes int
	aborted  int            // episodes a known issue ended early
	abortBy  map[string]int // … by the failure kind that ended them
}

func newModelStats() *modelStats {
	return &modelStats{byCombo: map[string]int{}, outcomes: map[string]int{}, known: map[string]int{}, abortBy: map[string]int{}}
}

type failure struct {
	kind, msg string
	step      int
}

type saved struct {
	snap, digest []byte
	md           *model
}

// errRepaired marks an operation that should have failed, succeeded (a
// known issue) and was undone.
var errRepaired = errors.New("known issue: undone")

type result struct {
	err   error
	alloc *Allocation
	full  bool
	out   string // what it answered, for lockstep comparison
}

type runner struct {
	seed      uint64
	policy    string
	traverser string
	root      *gnode
	gs        *genState

	x          *Matcher
	shadow     *Matcher
	shadowLeft int
	shadowSwap bool
	shadowWhat string
	md         *model
	digest     []byte // digest(x) after the last step
	saved      [3]*saved
	badSnap    []byte // what kBadRestore damages
	parsed     map[string]*jobspec.Jobspec
	sat        map[string]bool // jobspec: Satisfiability answered unsatisfiable (since the graph last changed)
	fitted     map[string]bool // jobspec: a booking match succeeded (since the graph last changed)
	removed    []*gnode        // removed nodes, to attach again
	removedAt  []string        // their parents' paths
	everJobs   map[uint64]bool

	trace     []*mop
	step      int
	fail      *failure
	aborted   bool   // a known issue left a state the model cannot follow
	lastKnown string // the last known issue met
	stats     *modelStats
	log       func(string)

	// generator state
	rng  *rand.Rand
	now  int64
	pool []string
}

func comboOf(seed uint64) (string, string) {
	return modelPolicies[seed%10], modelTraversers[(seed/10)%2]
}

// newRunner builds the episode's graph and Matcher from the seed.
func newRunner(seed uint64, stats *modelStats) (*runner, error) {
	gr := rand.New(rand.NewPCG(seed, 0x9a9a))
	root, gs := genGraph(gr)
	g, md := buildGraph(root)
	pol, trav := comboOf(seed)
	x, err := New(g, Options{Policy: pol, Traverser: trav})
	if err != nil {
		return nil, err
	}
	r := &runner{seed: seed, policy: pol, traverser: trav, root: root, gs: gs, x: x, md: md,
		parsed: map[string]*jobspec.Jobspec{}, sat: map[string]bool{}, fitted: map[string]bool{},
		everJobs: map[uint64]bool{}, stats: stats,
		rng: rand.New(rand.NewPCG(seed, 0x0b5)),
	}
	r.digest = digest(x)
	return r, nil
}

func (r *runner) failf(kind, f string, a ...any) bool {
	if _, ok := knownIssue(kind); ok {
		r.stats.known[kind]++
		r.lastKnown = kind
		if strings.HasPrefix(kind, "leak/") {
			// The schedule holds what the model cannot know: end the
			// episode here.
			r.aborted = true
		}
		return false
	}
	if r.fail == nil {
		r.fail = &failure{kind: kind, msg: fmt.Sprintf(f, a...), step: r.step}
	}
	return true
}

func (r *runner) snap(x *Matcher) []byte {
	var b bytes.Buffer
	if err := x.Snapshot(&b); err != nil {
		r.failf("snapshot", "Snapshot: %v", err)
	}
	return b.Bytes()
}

var overheadRE = regexp.MustCompile(`"overhead_ns":-?\d+`)

// normalized is a snapshot without the wall times (which differ between a
// Matcher and its lockstep copy).
func normalized(snap []byte) string {
	zr, err := gzip.NewReader(bytes.NewReader(snap))
	if err != nil {
		return "bad gzip: " + err.Error()
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return "bad gzip: " + err.Error()
	}
	return overheadRE.ReplaceAllString(string(b), `"overhead_ns":0`)
}

// digest is the Matcher's complete state as Snapshot writes it (match
// State, job table, next job id), without the compression and the wall
// times: the cheap per-step state the checks compare.
func digest(x *Matcher) []byte {
	x.mu.RLock()
	st, err := x.m.State()
	jobs := x.jobsLocked()
	next := x.next
	x.mu.RUnlock()
	type job struct {
		ID         uint64
		State      JobState
		Start, End int64
	}
	doc := struct {
		Matcher any    `json:"matcher"`
		Jobs    []job  `json:"jobs"`
		Next    uint64 `json:"next_job"`
		Err     string `json:"error,omitempty"`
	}{Matcher: st, Next: next}
	if err != nil {
		doc.Err = err.Error()
	}
	for _, j := range jobs {
		doc.Jobs = append(doc.Jobs, job{j.ID, j.State, j.Start, j.End})
	}
	b, err := json.Marshal(&doc)
	if err != nil {
		panic(err)
	}
	return b
}

// snapDiff shows where two snapshots first differ.
func snapDiff(a, b []byte) string { return textDiff(normalized(a), normalized(b)) }

// digestDiff shows where two digests first differ.
func digestDiff(a, b []byte) string { return textDiff(string(a), string(b)) }

func textDiff(x, y string) string {
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	lo := max(0, i-150)
	return fmt.Sprintf("first difference at byte %d:\n  before: …%s…\n  after:  …%s…", i, x[lo:min(len(x), i+150)], y[lo:min(len(y), i+150)])
}

func (r *runner) jobspec(x *Matcher, text string) (*jobspec.Jobspec, error) {
	if js, ok := r.parsed[text]; ok {
		return js, nil
	}
	js, err := x.ParseJobspec([]byte(text))
	if err == nil {
		r.parsed[text] = js
	}
	return js, err
}

func errClass(err error) string {
	for _, c := range []struct {
		e    error
		name string
	}{{ErrBusy, "busy"}, {ErrUnsatisfiable, "unsatisfiable"}, {ErrInvalid, "invalid"}, {ErrNotFound, "not-found"},
		{ErrExists, "exists"}, {ErrSnapshot, "snapshot"}, {ErrLimit, "limit"}} {
		if errors.Is(err, c.e) {
			return c.name
		}
	}
	return "unclassified"
}

func describeAlloc(a *Allocation, format string) string {
	if a == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "job %d reserved=%v [%d,%d)", a.JobID, a.Reserved, a.Start, a.End)
	for _, res := range a.Resources {
		fmt.Fprintf(&b, " %s:%d", res.Path, res.Units)
		if res.Exclusive {
			b.WriteString("x")
		}
	}
	if format != "" {
		s, err := a.Render(format)
		fmt.Fprintf(&b, "\n%s %v", s, err)
	}
	return b.String()
}

// apply runs o on x and describes the answer.
func (r *runner) apply(x *Matcher, o *mop) result {
	var res result
	switch o.Kind {
	case kMatch, kExplain:
		js, err := r.jobspec(x, o.JS)
		if err != nil {
			res.err = err
			break
		}
		if o.Kind == kExplain {
			e, err := x.Explain(js, o.At)
			res.err = err
			if e != nil {
				res.out = fmt.Sprintf("%+v", *e)
			}
			break
		}
		if o.WithID {
			res.alloc, res.err = x.MatchWithID(o.Op, js, o.ID, o.At)
		} else {
			res.alloc, res.err = x.Match(o.Op, js, o.At)
		}
		res.out = describeAlloc(res.alloc, o.Fmt)
	case kCancel:
		res.err = x.Cancel(o.ID)
	case kPartial:
		res.full, res.err = x.PartialCancel(o.ID, o.R)
		res.out = fmt.Sprint(res.full)
	case kUpdate:
		res.alloc, res.err = x.Update(o.ID, o.R)
		res.out = describeAlloc(res.alloc, o.Fmt)
	case kAttach:
		res.err = x.Attach(o.Doc)
	case kRemove:
		res.err = x.Remove(o.Path)
	case kRemoveRanks:
		res.err = x.RemoveRanks(o.Ranks)
	case kStatus:
		res.err = x.SetStatus(o.Path, o.Up)
	case kRankStatus:
		res.err = x.SetRankStatus(o.Ranks, o.Up)
	case kFind:
		res.out, res.err = x.FindAt(o.Path, o.Fmt, o.At)
	case kRollback:
		if s := r.saved[o.K]; s != nil {
			res.err = x.RestoreFrom(bytes.NewReader(s.snap))
		}
	case kBadRestore:
		bad := bytes.Clone(r.badSnap)
		switch o.K % 3 {
		case 0:
			bad = bad[:len(bad)/2]
		case 1:
			bad[len(bad)/2] ^= 0x5a
		default:
			bad = []byte("not a snapshot")
		}
		res.err = x.RestoreFrom(bytes.NewReader(bad))
	}
	if res.err != nil {
		res.out += " error: " + res.err.Error()
	}
	return res
}

// readOnly reports whether o must leave the state identical even when it
// succeeds.
func readOnly(o *mop) bool {
	switch o.Kind {
	case kFind, kExplain, kSave, kClone, kRestore, kFinal:
		return true
	case kMatch:
		return !o.Op.Books()
	}
	return false
}

// run executes one operation and checks everything after it.
func (r *runner) run(o *mop) {
	r.trace = append(r.trace, o)
	r.step = len(r.trace) - 1
	r.stats.ops++
	pre := r.digest
	// A real snapshot to undo the operations that known issues can leave
	// half done.
	var preSnap []byte
	if r.mayRepair(o) {
		preSnap = r.snap(r.x)
	}
	if o.Kind == kBadRestore {
		r.badSnap = r.snap(r.x)
	}

	switch o.Kind {
	case kClone, kRestore:
		r.startShadow(o)
		r.digest = pre
		return
	case kSave:
		r.saved[o.K] = &saved{snap: r.snap(r.x), digest: pre, md: r.md.clone()}
		return
	case kFinal:
		r.final()
		return
	}

	var (
		wg    sync.WaitGroup
		cl    *Matcher
		cs    bytes.Buffer
		csErr error
	)
	if o.Conc {
		x := r.x
		wg.Add(3)
		go func() { defer wg.Done(); cl = x.Clone() }()
		go func() { defer wg.Done(); csErr = x.Snapshot(&cs) }()
		go func() { defer wg.Done(); x.Jobs(); x.FindAt("sched-now=allocated", "simple", o.At) }()
	}
	res := r.apply(r.x, o)
	if r.shadow != nil {
		res2 := r.apply(r.shadow, o)
		if res.out != res2.out || (res.err == nil) != (res2.err == nil) {
			kind := "lockstep/" + r.shadowWhat
			if !r.failf(kind, "after %s, the copy answered differently:\n  original: %s\n  copy:     %s", r.shadowWhat, res.out, res2.out) {
				r.shadow = nil // a known issue: stop comparing
			}
		}
	}
	post := digest(r.x)
	rawPost := post // before any repair
	if o.Conc {
		wg.Wait()
		// Checked after the model knows what o did (restoreKind).
		defer func() {
			if r.fail != nil || r.aborted {
				return
			}
			if csErr != nil {
				r.failf("concurrent-snapshot", "Snapshot during %s: %v", o.Kind, csErr)
			} else if y, err := Restore(&cs); err != nil {
				r.failf("concurrent-snapshot", "Restore of a Snapshot taken during %s: %v", o.Kind, err)
			} else if d := digest(y); !bytes.Equal(d, pre) && !bytes.Equal(d, rawPost) {
				r.failf("concurrent-snapshot", "a Snapshot taken during %s is neither the state before nor after it: %s", o.Kind, digestDiff(pre, d))
			}
			if c := digest(cl); !bytes.Equal(c, pre) && !bytes.Equal(c, rawPost) {
				r.failf("concurrent-clone", "a Clone taken during %s is neither the state before nor after it: %s", o.Kind, digestDiff(pre, c))
			}
		}()
	}

	outcome := "ok"
	if res.err != nil {
		outcome = errClass(res.err)
	}
	r.stats.outcomes[o.Kind.String()+"/"+outcome]++
	if *modelTrace && r.log != nil {
		r.log(fmt.Sprintf("#%d %s -> %s %s", r.step, o, outcome, strings.TrimSpace(res.out)))
	}

	// repair undoes an operation whose failure is a known issue.
	repair := func() {
		if preSnap == nil {
			r.aborted = true
			return
		}
		if err := r.x.RestoreFrom(bytes.NewReader(preSnap)); err != nil {
			r.failf("repair", "RestoreFrom: %v", err)
			r.aborted = true
		}
		if r.shadow != nil {
			r.shadow.RestoreFrom(bytes.NewReader(preSnap))
		}
		post = digest(r.x)
	}
	if o.Want != wantAny && (o.Want == wantOK) != (res.err == nil) {
		kind := "expect/" + o.Kind.String()
		if o.Tag != "" {
			kind += "/" + o.Tag
		}
		if o.Want == wantOK {
			kind += "/" + errClass(res.err)
			r.failf(kind, "%s should have succeeded (%s), got %v", o.Kind, o.Note, res.err)
		} else if !r.failf(kind, "%s should have failed (%s)", o.Kind, o.Note) {
			repair()
			res.err = errRepaired
		}
	}
	if res.err != nil && res.err != errRepaired {
		if outcome == "unclassified" {
			r.failf("unclassified-error/"+o.Kind.String(), "%s failed with an error that matches none of the sentinels: %v", o.Kind, res.err)
		}
		if !bytes.Equal(pre, post) {
			kind := "nonatomic/" + o.Kind.String()
			if o.Kind == kPartial && strings.Contains(res.err.Error(), "reduce the filter span") {
				kind = "partial-ancestors/nonatomic"
			}
			if !r.failf(kind, "a failed %s (%v) changed the state: %s", o.Kind, res.err, digestDiff(pre, post)) {
				repair()
			}
		}
	} else if readOnly(o) && !bytes.Equal(pre, post) {
		kind := "readonly-changed/" + o.Kind.String()
		if o.Kind == kMatch && o.Op != Satisfiability {
			kind = "readonly-changed/dry-run"
		}
		r.failf(kind, "%s changed the state: %s", o.Kind, digestDiff(pre, post))
	}
	r.digest = post
	graphChanged := r.check(o, res, pre)
	if r.fail != nil || r.aborted {
		return
	}
	r.checkJobs()
	r.checkHoldings(o, graphChanged)
	if r.shadow != nil {
		if s := digest(r.shadow); !bytes.Equal(s, post) {
			r.failf("lockstep-state/"+r.shadowWhat, "after %s, the copy's state differs from the original's: %s", r.shadowWhat, digestDiff(post, s))
		}
		r.shadowLeft--
		if r.shadowLeft <= 0 {
			if r.shadowSwap {
				r.x = r.shadow
				r.digest = digest(r.x)
			}
			r.shadow = nil
		}
	}
}

func (r *runner) startShadow(o *mop) {
	if r.shadow != nil {
		return
	}
	var y *Matcher
	if o.Kind == kClone {
		y = r.x.Clone()
		r.shadowWhat = "Clone"
	} else {
		var err error
		y, err = Restore(bytes.NewReader(r.snap(r.x)))
		if err != nil {
			r.failf("restore", "Restore of a fresh snapshot: %v", err)
			return
		}
		r.shadowWhat = "Restore"
	}
	if s := digest(y); !bytes.Equal(s, r.digest) {
		r.failf("copy-state/"+r.shadowWhat, "%s's state differs from the original's: %s", r.shadowWhat, digestDiff(r.digest, s))
		return
	}
	r.shadow, r.shadowLeft, r.shadowSwap = y, o.K, o.Up && o.Kind == kRestore
}

// mayRepair reports whether a known issue may leave o half done, so that
// run keeps a snapshot to undo it.
func (r *runner) mayRepair(o *mop) bool {
	if o.Kind == kPartial {
		return true // partial-ancestors/nonatomic
	}
	if _, ok := knownIssue("nonatomic/" + o.Kind.String()); ok {
		return true
	}
	_, ok := knownIssue("expect/" + o.Kind.String() + "/" + o.Tag)
	return ok && o.Want == wantFail
}

// holdsOf maps an allocation's resources to model vertices.
func (r *runner) holdsOf(a *Allocation) ([]mhold, bool) {
	var hs []mhold
	for _, res := range a.Resources {
		v, ok := r.md.byPath[res.Path]
		if !ok {
			r.failf("unknown-vertex", "job %d got %s, which the model does not have (or has removed)", a.JobID, res.Path)
			return nil, false
		}
		hs = append(hs, mhold{v: v, units: res.Units, excl: res.Exclusive})
	}
	return hs, true
}

func (r *runner) graphChanged() {
	clear(r.sat)
	clear(r.fitted)
	clear(r.parsed)
}

// check compares the outcome with what the model expects and applies it to
// the model. It reports whether the graph changed.
func (r *runner) check(o *mop, res result, pre []byte) bool {
	md := r.md
	err := res.err
	expect := func(ok bool, class string, why string) {
		switch {
		case ok && err != nil:
			r.failf("expect/"+o.Kind.String(), "%s should have succeeded (%s), got %v", o.Kind, why, err)
		case !ok && err == nil:
			r.failf("expect/"+o.Kind.String(), "%s should have failed (%s)", o.Kind, why)
		case !ok && class != "" && errClass(err) != class:
			r.failf("expect-class/"+o.Kind.String(), "%s failed with %v (%s), want %s (%s)", o.Kind, err, errClass(err), class, why)
		}
	}
	switch o.Kind {
	case kMatch:
		r.checkMatch(o, res)
	case kCancel:
		j := md.jobs[o.ID]
		if j == nil || j.state == Canceled {
			expect(false, "not-found", "no such live job")
			return false
		}
		expect(true, "", "a live job")
		if err == nil {
			md.release(j, func(mhold) bool { return true })
			j.state = Canceled
		}
	case kPartial:
		r.checkPartial(o, res)
	case kUpdate:
		r.checkUpdate(o, res)
	case kAttach:
		if err != nil {
			return false
		}
		p, ok := md.byPath[o.Parent]
		if !ok {
			r.failf("replay", "attach under %s, which the model does not have", o.Parent)
			return false
		}
		var rec func(n *gnode, parent int)
		rec = func(n *gnode, parent int) {
			v := md.add(parent, n.typ, n.basename, n.id, n.rank, n.size, n.uniq)
			for _, k := range n.kids {
				rec(k, v)
			}
		}
		rec(o.Sub, p)
		r.graphChanged()
		return true
	case kRemove:
		v, ok := md.byPath[o.Path]
		if !ok {
			expect(false, "not-found", "no such path")
			return false
		}
		if v == 0 {
			expect(false, "invalid", "the root")
			return false
		}
		expect(true, "", "a live path")
		if err == nil {
			r.forget(v)
			md.kill(v)
			md.releaseRemoved()
			r.graphChanged()
			return true
		}
	case kRemoveRanks:
		if o.Ranks == "" {
			// The empty set: nothing to remove (an error would do too).
			if err == nil && !bytes.Equal(pre, r.digest) {
				r.failf("noop-changed/remove-ranks", "RemoveRanks(\"\") changed the state: %s", digestDiff(pre, r.digest))
			}
			return false
		}
		ranks, valid := parseRanks(o.Ranks)
		if !valid {
			expect(false, "invalid", "not an idset")
			return false
		}
		live := md.liveRanks()
		for _, rk := range ranks {
			if !slices.Contains(live, rk) {
				expect(false, "not-found", fmt.Sprintf("rank %d is unknown", rk))
				return false
			}
		}
		expect(true, "", "known ranks")
		if err == nil {
			// The ranks' vertices go with everything below them.
			for v := range md.vs {
				if md.vs[v].live && slices.Contains(ranks, md.vs[v].rank) {
					r.forget(v)
					md.kill(v)
				}
			}
			md.releaseRemoved()
			r.graphChanged()
			return true
		}
	case kStatus:
		v, ok := md.byPath[o.Path]
		if !ok {
			expect(false, "not-found", "no such path")
			return false
		}
		expect(true, "", "a live path")
		if err == nil {
			md.vs[v].down = !o.Up
			return true
		}
	case kRankStatus:
		var ranks []int64
		if o.Ranks == "all" {
			ranks = md.liveRanks()
		} else {
			var valid bool
			ranks, valid = parseRanks(o.Ranks)
			if !valid || len(ranks) == 0 {
				expect(false, "invalid", "not an idset")
				return false
			}
		}
		expect(true, "", "an idset")
		if err == nil {
			live := md.liveRanks()
			if !slices.ContainsFunc(ranks, func(rk int64) bool { return slices.Contains(live, rk) }) && !bytes.Equal(pre, r.digest) {
				r.failf("noop-changed/set-rank-status", "SetRankStatus of unknown ranks changed the state: %s", digestDiff(pre, r.digest))
			}
			for _, rk := range ranks {
				if v := md.rankRoot(rk); v >= 0 {
					md.vs[v].down = !o.Up
				}
			}
			return true
		}
	case kFind:
		if o.Want == wantOK && err == nil && o.Path == "status=down" && o.Fmt == "jgf" {
			if got, want := jgfPaths(res.out, false), md.downPaths(); !slices.Equal(got, want) {
				r.failf("status", "find status=down: %v, the model has %v", got, want)
			}
		}
	case kRollback:
		s := r.saved[o.K]
		if s == nil {
			return false
		}
		if err != nil {
			r.failf("rollback", "RestoreFrom of a snapshot taken earlier: %v", err)
			return false
		}
		if err == nil {
			if !bytes.Equal(r.digest, s.digest) && !r.failf("restore-roundtrip", "after RestoreFrom, the state differs from the one saved: %s", digestDiff(s.digest, r.digest)) {
				r.aborted = true // a known issue: the restored state is not the saved one
			}
			r.md = s.md.clone()
			r.graphChanged()
			return true
		}
	case kBadRestore:
		expect(false, "snapshot", "a damaged snapshot")
	}
	return false
}

// forget notes the nodes at or below v, to attach them again later.
func (r *runner) forget(v int) {
	md := r.md
	md.subtree(v, func(u int) {
		if md.vs[u].typ == "node" && md.vs[u].live && md.vs[u].parent >= 0 {
			r.removed = append(r.removed, md.toGnode(u))
			r.removedAt = append(r.removedAt, md.vs[md.vs[u].parent].path)
		}
	})
}

func parseRanks(s string) ([]int64, bool) {
	var out []int64
	if s == "" {
		return nil, false
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		if err != nil || a < 0 {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a {
				return nil, false
			}
		}
		for k := a; k <= b && k-a < 1<<16; k++ {
			out = append(out, k)
		}
	}
	return out, true
}

func (r *runner) checkMatch(o *mop, res result) {
	md, err, a := r.md, res.err, res.alloc
	if err != nil {
		if o.WithID && o.Op.Books() {
			if j := md.jobs[o.ID]; j != nil && j.state != Canceled && errClass(err) != "exists" && errClass(err) != "invalid" && r.parsed[o.JS] != nil {
				r.failf("expect-class/match", "MatchWithID of live job %d: %v, want ErrExists", o.ID, err)
			}
		}
		if c := errClass(err); c != "busy" && c != "unsatisfiable" && c != "exists" && c != "invalid" && c != "unclassified" {
			r.failf("expect-class/match", "match failed with %v (%s)", err, c)
		}
		if !o.WithID && o.Op.Books() && md.next == 0 && r.parsed[o.JS] != nil && o.Tag != "invalid-op" && !errors.Is(err, ErrLimit) {
			r.failf("expect-class/match", "Match with the automatic ids exhausted: %v, want ErrLimit", err)
		}
		if o.Op == Satisfiability && errClass(err) == "unsatisfiable" {
			if r.fitted[o.JS] {
				r.failf("satisfiability", "Satisfiability says never, but this jobspec was allocated since the graph last changed")
			}
			r.sat[o.JS] = true
		}
		return
	}
	if o.WithID && o.Op.Books() {
		if o.ID == 0 {
			r.failf("expect/match", "MatchWithID booked job id 0")
			return
		}
		if j := md.jobs[o.ID]; j != nil && j.state != Canceled {
			r.failf("expect/match", "MatchWithID booked job %d, which is live", o.ID)
			return
		}
	}
	if o.Op == Satisfiability {
		if a != nil {
			r.failf("expect/match", "Satisfiability returned an allocation")
		}
		return
	}
	if a == nil {
		r.failf("expect/match", "%v returned no allocation and no error", o.Op)
		return
	}
	wantID := uint64(0)
	if o.Op.Books() {
		wantID = md.next
		if o.WithID {
			wantID = o.ID
		} else if md.next == 0 {
			r.failf("leak/duplicate-job-id", "%v gave job id %d after job id %d was used (the automatic ids are exhausted)", o.Op, a.JobID, uint64(math.MaxUint64))
			return
		}
	}
	if a.JobID != wantID {
		r.failf("job-id", "%v gave job id %d, want %d", o.Op, a.JobID, wantID)
	}
	if j := md.jobs[a.JobID]; o.Op.Books() && j != nil && j.state != Canceled {
		r.failf("leak/duplicate-job-id", "%v gave job id %d, which job %d [%d,%d) still holds", o.Op, a.JobID, j.id, j.start, j.end)
		return
	}
	if a.Start < o.At || a.End <= a.Start || a.Reserved != (a.Start > o.At) {
		r.failf("window", "%v at %d: window [%d,%d) reserved=%v", o.Op, o.At, a.Start, a.End, a.Reserved)
	}
	if (o.Op == Allocate || o.Op == AllocateWithSatisfiability || o.Op == WithoutAllocating) && a.Start != o.At {
		r.failf("window", "%v at %d started at %d", o.Op, o.At, a.Start)
	}
	if js := r.parsed[o.JS]; js != nil && js.Duration > 0 && a.Start+int64(math.Ceil(js.Duration)) <= graphEnd && a.End-a.Start != int64(math.Ceil(js.Duration)) {
		r.failf("window", "duration %v gave window [%d,%d)", js.Duration, a.Start, a.End)
	}
	hs, ok := r.holdsOf(a)
	if !ok {
		return
	}
	// The allocation holds the ancestors of what it holds (its R is a
	// tree): a vertex whose pruning filter span could not be booked is
	// left out, which only inconsistent filters cause.
	have := map[int]bool{}
	for _, h := range hs {
		have[h.v] = true
	}
	for _, h := range hs {
		if p := md.vs[h.v].parent; p >= 0 && !have[p] {
			kind := "emission-gap"
			if !r.failf(kind, "%v: the allocation holds %s but not its parent %s", o.Op, md.vs[h.v].path, md.vs[p].path) {
				r.aborted = true
			}
			return
		}
	}
	// Nothing down is selected, except below a vertex taken whole
	// (exclusively) that is itself up: its whole subtree comes with it.
	held := map[int]mhold{}
	for _, h := range hs {
		held[h.v] = h
	}
	for _, h := range hs {
		if !md.effDown(h.v) {
			continue
		}
		covered := false
		for a := md.vs[h.v].parent; a >= 0 && !covered; a = md.vs[a].parent {
			covered = held[a].excl && !md.effDown(a) && held[a].v == a
		}
		if !covered {
			r.failf("down", "%v selected %s, which is down (or below a down vertex)", o.Op, md.vs[h.v].path)
			return
		}
	}
	if msg := md.conflicts(wantID, hs, a.Start, a.End); msg != "" {
		if !r.failf("double-booking", "%v: %s", o.Op, msg) {
			r.aborted = true // a known issue: the model cannot follow
		}
		return
	}
	if r.sat[o.JS] {
		r.failf("satisfiability", "%v allocated a jobspec Satisfiability called never satisfiable", o.Op)
	}
	if !o.Op.Books() {
		return
	}
	r.fitted[o.JS] = true
	st := Allocated
	if a.Reserved {
		st = Reserved
	}
	j := &mjob{id: a.JobID, state: st, start: a.Start, end: a.End, holds: hs, r: r.jobR(a)}
	md.jobs[j.id] = j
	md.bookJob(j)
	md.useID(j.id)
	r.everJobs[j.id] = true
}

func (r *runner) checkPartial(o *mop, res result) {
	md, err := r.md, res.err
	j := md.jobs[o.ID]
	if j == nil || j.state != Allocated {
		if err == nil {
			r.failf("expect/partial-cancel", "partial cancel of job %d, which is not allocated, succeeded", o.ID)
		} else if errClass(err) != "not-found" && errClass(err) != "invalid" {
			r.failf("expect-class/partial-cancel", "partial cancel of job %d, which is not allocated: %v, want ErrNotFound", o.ID, err)
		}
		return
	}
	if err != nil {
		return
	}
	info := parseRInfo(o.R)
	if !info.ok {
		r.failf("expect/partial-cancel", "an R the model cannot read was accepted")
		return
	}
	if res.full {
		// Released whole: then it held no leaf or exclusive vertex but
		// those the R lists.
		var kept []string
		for _, h := range j.holds {
			v := &md.vs[h.v]
			if !v.live || !isLeafType(v.typ) && !h.excl {
				continue
			}
			listed := !info.hasJGF && md.underRank(h.v, info.ranks)
			for _, n := range info.nodes {
				listed = listed || n.path == v.path
			}
			if !listed {
				kept = append(kept, v.path)
			}
		}
		md.release(j, func(mhold) bool { return true })
		j.state = Canceled
		if len(kept) > 0 && !r.failf("partial-over-release", "a partial cancel released job %d whole, although it held %v the R does not list", j.id, kept) {
			r.aborted = true // the job's records may linger (leftovers)
		}
		return
	}
	if info.hasJGF {
		listed := map[int]bool{}
		for _, n := range info.nodes {
			v, ok := md.byPath[n.path]
			if !ok {
				r.failf("expect/partial-cancel", "partial cancel listing %s, which the model does not have, succeeded", n.path)
				return
			}
			if !slices.ContainsFunc(j.holds, func(h mhold) bool { return h.v == v }) {
				r.failf("expect/partial-cancel", "partial cancel listing %s, which job %d does not hold, succeeded", n.path, j.id)
				return
			}
			listed[v] = true
		}
		md.release(j, func(h mhold) bool { return listed[h.v] })
	} else {
		// The rank form releases the vertices of the ranks and what is
		// below them.
		md.release(j, func(h mhold) bool { return md.vs[h.v].live && md.underRank(h.v, info.ranks) })
	}
	// The job keeps a vertex it holds shared while it holds something
	// below it.
	md.dropEmptyShared(j)
	if len(md.leafPaths(j)) == 0 && !slices.ContainsFunc(j.holds, func(h mhold) bool { return !md.vs[h.v].live || h.excl }) {
		r.failf("partial-ancestors/empty", "partial cancel released every leaf and exclusive vertex of job %d but did not cancel it (full=false); it still holds %v", j.id, r.holdPaths(j))
	}
}

func (r *runner) holdPaths(j *mjob) []string {
	var out []string
	for _, h := range j.holds {
		out = append(out, r.md.vs[h.v].path)
	}
	return out
}

func (r *runner) checkUpdate(o *mop, res result) {
	md, err, a := r.md, res.err, res.alloc
	if o.ID == 0 { // 0 marks a dry run's allocation: never a job id
		if err == nil {
			r.failf("expect/update", "update of job id 0 succeeded")
		} else if c := errClass(err); c != "invalid" {
			r.failf("expect-class/update", "update of job id 0: %v, want ErrInvalid", err)
		}
		return
	}
	if j := md.jobs[o.ID]; j != nil && j.state != Canceled {
		if err == nil {
			r.failf("expect/update", "update of live job %d succeeded", o.ID)
		} else if c := errClass(err); c != "exists" && c != "invalid" {
			r.failf("expect-class/update", "update of live job %d: %v, want ErrExists", o.ID, err)
		}
		return
	}
	info := parseRInfo(o.R)
	// The model's prediction, for an R with a scheduling part.
	predict := ""
	if info.ok && info.hasJGF && len(info.nodes) > 0 {
		var hs []mhold
		for _, n := range info.nodes {
			v, ok := md.byPath[n.path]
			if !ok {
				predict = "fail: " + n.path + " is not in the graph"
				break
			}
			hs = append(hs, mhold{v: v, units: n.size, excl: n.excl})
		}
		if predict == "" {
			if msg := md.conflicts(o.ID, hs, info.start, info.end); msg != "" {
				predict = "fail: " + msg
			} else {
				predict = "ok"
			}
		}
	}
	if err != nil {
		if predict == "ok" {
			r.failf("expect/update/"+errClass(err), "update of an R whose resources are free over [%d,%d) failed: %v", info.start, info.end, err)
		}
		return
	}
	if !info.ok {
		r.failf("expect/update", "an R the model cannot read was accepted")
		return
	}
	if strings.HasPrefix(predict, "fail") {
		kind := "expect/update"
		// Only the exclusivity of a listed vertex over descendants the R
		// does not list (attached since it was written) conflicts?
		var shallow []mhold
		for _, n := range info.nodes {
			if v, ok := md.byPath[n.path]; ok {
				shallow = append(shallow, mhold{v: v, units: n.size, excl: n.excl && isLeafType(n.typ)})
			}
		}
		if md.conflicts(o.ID, shallow, info.start, info.end) == "" {
			kind = "update-resources/stale-exclusive"
		}
		if !r.failf(kind, "update succeeded, but the model expected: %s", predict) {
			r.aborted = true // a known issue: the model cannot follow
		}
		return
	}
	if a.JobID != o.ID || a.Start != info.start || a.End != min(info.end, info.start+graphEnd) {
		r.failf("window", "update: job %d [%d,%d), R says job %d [%d,%d)", a.JobID, a.Start, a.End, o.ID, info.start, info.end)
	}
	hs, ok := r.holdsOf(a)
	if !ok {
		return
	}
	if info.hasJGF {
		var got, want []string
		for _, h := range hs {
			if isLeafType(md.vs[h.v].typ) {
				got = append(got, md.vs[h.v].path)
			}
		}
		inR := map[string]bool{}
		for _, n := range info.nodes {
			inR[n.path] = true
			if isLeafType(n.typ) {
				want = append(want, n.path)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			if !r.failf("update-resources/emitted", "update's allocation lists leaves %v, the R lists %v", got, want) {
				r.aborted = true // a known issue: the job's R claims what the schedule lacks
			}
			return
		}
	}
	// An execution-only R's allocation marks a node exclusive only when
	// the update took it whole (TestReproUpdateRV1ExecNodeExclusive).
	if msg := md.conflicts(o.ID, hs, a.Start, a.End); msg != "" {
		if !r.failf("double-booking", "update: %s", msg) {
			r.aborted = true
		}
		return
	}
	j := &mjob{id: o.ID, state: Allocated, start: a.Start, end: a.End, holds: hs, r: o.R, viaUpdate: true}
	if !info.hasJGF || !bytes.Contains(o.R, []byte(`"execution"`)) {
		j.r = r.jobR(a)
	}
	md.jobs[j.id] = j
	md.bookJob(j)
	md.useID(j.id)
	r.everJobs[j.id] = true
}

// jobR renders a's R: rv1, or, for an allocation without cores or gpus
// (which the rv1 writer renders as nothing, as Fluxion's does), an RFC 20
// envelope around its jgf rendering.
func (r *runner) jobR(a *Allocation) []byte {
	R, err := a.Render("rv1")
	if err != nil {
		r.failf("render", "rv1 of job %d: %v", a.JobID, err)
	}
	if R != "" {
		return []byte(R)
	}
	g, err := a.Render("jgf")
	if err != nil || g == "" {
		r.failf("render", "jgf of job %d: %q %v", a.JobID, g, err)
	}
	return []byte(fmt.Sprintf(`{"version": 1, "execution": {"R_lite": [], "nodelist": [], "starttime": %d, "expiration": %d}, "scheduling": %s}`, a.Start, a.End, g))
}

// checkJobs compares the job table.
func (r *runner) checkJobs() {
	got := r.x.Jobs()
	ids := slices.Sorted(maps.Keys(r.md.jobs))
	if len(got) != len(ids) {
		r.failf("jobs", "Jobs() has %d entries, the model %d", len(got), len(ids))
		return
	}
	for i, id := range ids {
		j, g := r.md.jobs[id], got[i]
		if g.ID != id || g.State != j.state || g.Start != j.start || g.End != j.end {
			r.failf("jobs", "Jobs()[%d] = %d %v [%d,%d), the model has %d %v [%d,%d)", i, g.ID, g.State, g.Start, g.End, id, j.state, j.start, j.end)
			return
		}
	}
}

// findPaths returns the paths of a find's JGF output: every vertex, or
// only the leaves (cores, gpus, memory).
func jgfPaths(out string, leaves bool) []string {
	if out == "" {
		return nil
	}
	var doc struct {
		Graph struct {
			Nodes []struct {
				Metadata struct {
					Type  string `json:"type"`
					Paths struct {
						Containment string `json:"containment"`
					} `json:"paths"`
				} `json:"metadata"`
			} `json:"nodes"`
		} `json:"graph"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return []string{"unreadable find output: " + err.Error()}
	}
	var ps []string
	for _, n := range doc.Graph.Nodes {
		if !leaves || isLeafType(n.Metadata.Type) {
			ps = append(ps, n.Metadata.Paths.Containment)
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

func (r *runner) jobLeaves(id uint64) ([]string, error) {
	out, err := r.x.FindAt(fmt.Sprintf("jobid-alloc=%d or jobid-reserved=%d", id, id), "jgf", 0)
	return jgfPaths(out, true), err
}

// checkHoldings compares, through Find, what the Matcher's schedule says
// each job holds with the model: the jobs the operation touched, every
// live job every few steps, and the graph after changes to it.
func (r *runner) checkHoldings(o *mop, graphChanged bool) {
	var ids []uint64
	all := graphChanged || r.step%8 == 0 || o.Kind == kRollback || o.Kind == kRemoveRanks
	for _, j := range r.md.live() {
		if all || j.id == o.ID {
			ids = append(ids, j.id)
		}
	}
	if !slices.Contains(ids, o.ID) && r.everJobs[o.ID] {
		ids = append(ids, o.ID)
	}
	for _, id := range ids {
		got, err := r.jobLeaves(id)
		if err != nil {
			r.failf("find", "find job %d: %v", id, err)
			return
		}
		var want []string
		if j := r.md.jobs[id]; j != nil && j.state != Canceled {
			want = r.md.leafPaths(j)
		}
		if !slices.Equal(got, want) {
			kind := "holdings"
			if !r.failf(kind, "job %d holds %v according to find, %v according to the model", id, got, want) {
				r.aborted = true // a known issue: the model cannot follow
			}
			return
		}
	}
	// A job released (Cancel, a full partial cancel) leaves no record.
	if j := r.md.jobs[o.ID]; j != nil && j.state == Canceled && (o.Kind == kCancel || o.Kind == kPartial) {
		out, err := r.x.FindAt(fmt.Sprintf("jobid-alloc=%d or jobid-reserved=%d or jobid-span=%d or jobid-tag=%d", j.id, j.id, j.id, j.id), "simple", 0)
		if err != nil || out != "" {
			if !r.failf("leftovers", "job %d is released, but it still has records (%v):\n%s", j.id, err, out) {
				r.aborted = true
			}
			return
		}
	}
	if graphChanged {
		if len(r.md.byPath) == 1 {
			return // the root alone: jgf cannot render a graph without edges
		}
		out, err := r.x.FindAt("status=up or status=down", "jgf", 0)
		if got, want := jgfPaths(out, false), r.md.livePaths(); err != nil || !slices.Equal(got, want) {
			r.failf("graph", "the graph's vertices (%v): %v, the model has %v", err, got, want)
			return
		}
		out, err = r.x.FindAt("status=down", "jgf", 0)
		if got, want := jgfPaths(out, false), r.md.downPaths(); err != nil || !slices.Equal(got, want) {
			r.failf("status", "the down vertices (%v): %v, the model has %v", err, got, want)
		}
	}
}

// final checks the empty schedule once every job is cancelled.
func (r *runner) final() {
	if live := r.md.live(); len(live) > 0 {
		r.failf("replay", "final with %d live jobs in the model", len(live))
		return
	}
	for _, id := range slices.Sorted(maps.Keys(r.everJobs)) {
		out, err := r.x.FindAt(fmt.Sprintf("jobid-alloc=%d or jobid-reserved=%d or jobid-span=%d or jobid-tag=%d", id, id, id, id), "simple", 0)
		if err != nil || out != "" {
			r.failf("final", "job %d still has records after every job was cancelled (%v):\n%s", id, err, out)
			return
		}
	}
	if out, err := r.x.FindAt("sched-now=allocated or sched-future=reserved", "simple", 0); err != nil || out != "" {
		r.failf("final", "vertices still allocated or reserved after every job was cancelled (%v):\n%s", err, out)
		return
	}
	var doc struct {
		Matcher struct {
			Jobs []json.RawMessage `json:"jobs"`
		} `json:"matcher"`
	}
	if err := json.Unmarshal(r.digest, &doc); err != nil {
		r.failf("final", "snapshot: %v", err)
	} else if len(doc.Matcher.Jobs) != 0 {
		r.failf("final", "the snapshot still has %d vertices with job records: %s", len(doc.Matcher.Jobs), doc.Matcher.Jobs[0])
	}
}

// --- the generator ---

// gen draws the next operation from the model's state.
func (r *runner) gen() *mop {
	rng, md := r.rng, r.md
	if rng.IntN(10) < 4 {
		r.now += int64(1 + rng.IntN(10))
	}
	o := &mop{At: r.now, Conc: rng.IntN(25) == 0}
	pick := func(n int) int { return rng.IntN(n) }
	live := md.live()
	var allocated, canceled []*mjob
	for _, j := range live {
		if j.state == Allocated {
			allocated = append(allocated, j)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(md.jobs)) {
		if md.jobs[id].state == Canceled {
			canceled = append(canceled, md.jobs[id])
		}
	}
	unknownID := func() uint64 { return md.next + 1000 + uint64(pick(1000)) }
	js := func() string {
		if len(r.pool) == 0 || pick(10) == 0 {
			s := genJobspec(rng, md.types)
			if len(r.pool) < 8 {
				r.pool = append(r.pool, s)
			} else {
				r.pool[pick(len(r.pool))] = s
			}
			return s
		}
		return r.pool[pick(len(r.pool))]
	}
	livePaths := md.livePaths()
	pathOf := func(types ...string) string {
		var c []string
		for _, p := range livePaths {
			if slices.Contains(types, md.vs[md.byPath[p]].typ) {
				c = append(c, p)
			}
		}
		if len(c) == 0 {
			return "/m0/nothing0"
		}
		return c[pick(len(c))]
	}
	// held reports whether a job books anything at or below path.
	held := func(path string) bool {
		found := false
		md.subtree(md.byPath[path], func(u int) { found = found || len(md.book[u]) > 0 })
		return found
	}
	// removable picks a path of the types, mostly one nothing is booked
	// under (removing booked vertices is a known issue that ends the
	// episode).
	removable := func(types ...string) string {
		p := pathOf(types...)
		for range 4 {
			if _, ok := md.byPath[p]; !ok || !held(p) || pick(5) == 0 {
				break
			}
			p = pathOf(types...)
		}
		return p
	}
	liveNodes := 0
	for _, p := range livePaths {
		if md.vs[md.byPath[p]].typ == "node" {
			liveNodes++
		}
	}

	switch k := pick(1000); {
	case k < 380:
		o.Kind = kMatch
		o.Op = []Op{Allocate, Allocate, AllocateOrElseReserve, AllocateOrElseReserve, AllocateOrElseReserve,
			AllocateWithSatisfiability, Satisfiability, WithoutAllocating, WithoutAllocatingFuture}[pick(9)]
		o.JS = js()
		if pick(200) == 0 {
			o.Op = []Op{-1, 6, 99}[pick(3)]
			o.Tag, o.Note, o.Want = "invalid-op", "an op out of range", wantFail
		}
		switch pick(20) {
		case 0, 1, 2:
			o.At += int64(pick(40))
		case 3:
			o.At = max(0, o.At-int64(pick(20)))
		}
		if pick(4) == 0 {
			o.WithID = true
			switch c := pick(20); {
			case c < 8:
				o.ID = md.next + uint64(pick(4))
			case c < 14 && len(canceled) > 0:
				o.ID = canceled[pick(len(canceled))].id
			case c < 18 && len(live) > 0:
				o.ID = live[pick(len(live))].id
				o.Note = "a live id"
			case c == 18:
				o.ID = math.MaxUint64 - uint64(pick(2))
			case c == 19 && pick(2) == 0:
				o.ID = 0
			default:
				o.ID = md.next
			}
		}
		if pick(10) == 0 {
			o.Fmt = []string{"simple", "pretty_simple", "jgf", "jgf_shorthand", "rlite", "rv1", "rv1_nosched", "rv1_shorthand"}[pick(8)]
		}
	case k < 530:
		o.Kind = kCancel
		var done []*mjob // ended: a scheduler cancels them first
		for _, j := range live {
			if j.end <= r.now {
				done = append(done, j)
			}
		}
		switch c := pick(20); {
		case c < 10 && len(done) > 0:
			o.ID = done[pick(len(done))].id
		case c < 15 && len(live) > 0:
			o.ID = live[pick(len(live))].id
		case c < 18 && len(canceled) > 0:
			o.ID = canceled[pick(len(canceled))].id
		default:
			o.ID = unknownID()
		}
	case k < 630:
		r.genPartial(o, allocated, live, canceled)
	case k < 710:
		r.genUpdate(o, live, canceled)
	case k < 735:
		r.genAttach(o, liveNodes)
	case k < 750:
		o.Kind = kRemove
		switch c := pick(20); {
		case c < 10 && liveNodes > 2:
			o.Path = removable("node")
		case c < 15:
			o.Path = removable("socket", "core", "gpu", "memory")
		case c < 16 && liveNodes > 3:
			o.Path = removable("rack")
		default:
			o.Path = []string{"", "/", "/m0/node999", "/m0/rack9", "node0", "/m1"}[pick(6)]
		}
	case k < 765:
		o.Kind = kRemoveRanks
		ranks := md.liveRanks()
		switch c := pick(20); {
		case c < 12 && liveNodes > 2 && len(ranks) > 0:
			rk := ranks[pick(len(ranks))]
			for range 4 {
				if v := md.rankRoot(rk); v < 0 || !held(md.vs[v].path) || pick(3) == 0 {
					break
				}
				rk = ranks[pick(len(ranks))]
			}
			o.Ranks = strconv.FormatInt(rk, 10)
		case c < 17 && len(ranks) > 0:
			o.Ranks = fmt.Sprintf("%d,%d", ranks[pick(len(ranks))], 500+pick(100))
			o.Note = "an unknown rank"
		default:
			o.Ranks = []string{"", "x", "3-1", "-1", "0-"}[pick(5)]
		}
	case k < 815:
		o.Kind = kStatus
		o.Up = pick(20) < 11
		if pick(10) == 0 {
			o.Path = []string{"/m0/node999", "", "/m0/rack7/node0"}[pick(3)]
		} else {
			o.Path = pathOf([]string{"node", "node", "node", "socket", "rack", "cluster", "core", "gpu", "memory"}[pick(9)])
		}
	case k < 845:
		o.Kind = kRankStatus
		o.Up = pick(20) < 11
		ranks := md.liveRanks()
		switch c := pick(20); {
		case c < 12 && len(ranks) > 0:
			o.Ranks = strconv.FormatInt(ranks[pick(len(ranks))], 10)
			if pick(3) == 0 {
				o.Ranks += "," + strconv.FormatInt(ranks[pick(len(ranks))], 10)
			}
		case c < 15:
			o.Ranks = "all"
		case c < 17:
			o.Ranks = strconv.Itoa(700 + pick(10))
			o.Note = "an unknown rank"
		default:
			o.Ranks = []string{"", "x", "3-1", "all,0"}[pick(4)]
		}
	case k < 880:
		o.Kind = kFind
		o.Fmt = []string{"simple", "jgf", "rlite", "rv1_nosched", "pretty_simple"}[pick(5)]
		o.Want = wantOK
		crit := []string{"status=down", "status=up", "sched-now=allocated", "sched-now=free", "sched-future=reserved",
			"names=node[0-2]", "property=perf_class", "agfilter=true", "status=down or sched-now=allocated",
			"(sched-now=allocated and status=up) or names=core0"}
		if len(live) > 0 {
			id := live[pick(len(live))].id
			crit = append(crit, fmt.Sprintf("jobid-alloc=%d", id), fmt.Sprintf("jobid-span=%d and agfilter=true", id),
				fmt.Sprintf("jobid-reserved=%d or jobid-tag=%d", id, id))
		}
		o.Path = crit[pick(len(crit))]
		if o.Fmt != "simple" && o.Fmt != "pretty_simple" {
			// rlite and rv1 have nothing to render without cores or gpus,
			// jgf without edges (a single vertex).
			o.Want = wantAny
		}
		if pick(4) == 0 {
			o.Path, o.Fmt = "status=down", "jgf"
		}
		if pick(12) == 0 {
			o.Path = []string{"", "(", "status=sideways", "bogus", "jobid-alloc=x", "status=up and"}[pick(6)]
			o.Want = wantFail
		}
	case k < 895:
		o.Kind = kExplain
		o.JS = js()
	case k < 930:
		if r.shadow != nil {
			return r.gen()
		}
		o.Kind = []opKind{kClone, kRestore}[pick(2)]
		o.K = 1 + pick(20)
		o.Up = pick(2) == 0
		o.Conc = false
	case k < 950:
		o.Kind = kSave
		o.K = pick(3)
		o.Conc = false
	case k < 975:
		o.Kind = kRollback
		o.K = pick(3)
		if r.saved[o.K] == nil {
			return r.gen()
		}
	default:
		o.Kind = kBadRestore
		o.K = pick(3)
	}
	return o
}

func (r *runner) genPartial(o *mop, allocated, live, canceled []*mjob) {
	rng, md := r.rng, r.md
	o.Kind = kPartial
	if len(allocated) == 0 || rng.IntN(20) == 0 {
		switch {
		case len(live) > 0 && rng.IntN(2) == 0:
			j := live[rng.IntN(len(live))]
			o.ID, o.R = j.id, j.r
		case len(canceled) > 0 && rng.IntN(2) == 0:
			j := canceled[rng.IntN(len(canceled))]
			o.ID, o.R = j.id, j.r
		default:
			o.ID, o.R = md.next+7, []byte(`{"graph": {"nodes": [], "edges": []}}`)
		}
		o.Note = "a job that is not allocated, or none"
		return
	}
	j := allocated[rng.IntN(len(allocated))]
	o.ID = j.id
	// The job's nodes (or, with none, its top vertices).
	var nodes []string
	for _, h := range j.holds {
		if v := &md.vs[h.v]; v.typ == "node" && v.live {
			nodes = append(nodes, v.path)
		}
	}
	under := func(set []string) func(string, bool) bool {
		return func(p string, _ bool) bool {
			for _, n := range set {
				if p == n || strings.HasPrefix(p, n+"/") {
					return true
				}
			}
			return false
		}
	}
	subset := func() []string {
		if len(nodes) == 0 {
			return nil
		}
		var s []string
		for _, n := range nodes {
			if rng.IntN(2) == 0 {
				s = append(s, n)
			}
		}
		if len(s) == 0 {
			s = append(s, nodes[rng.IntN(len(nodes))])
		}
		return s
	}
	var others []*mjob
	for _, x := range live {
		if x.id != j.id {
			others = append(others, x)
		}
	}
	alive := func(p string) bool { _, ok := md.byPath[p]; return ok }
	// holds: j still holds the vertex at p (a partial cancel may have
	// released some of what its R lists).
	holds := func(p string) bool {
		v, ok := md.byPath[p]
		return ok && slices.ContainsFunc(j.holds, func(h mhold) bool { return h.v == v })
	}
	switch c := rng.IntN(20); {
	case c < 5 && len(nodes) > 0:
		s := subset()
		o.R = filterR(j.r, func(p string, x bool) bool { return x && holds(p) && under(s)(p, x) }, nil)
		o.Note = fmt.Sprintf("the exclusive vertices under %v", s)
		o.Tag = "exclusive-subset"
		o.Want = wantOK
	case c < 9 && len(nodes) > 0:
		s := subset()
		o.R = filterR(j.r, func(p string, x bool) bool { return holds(p) && under(s)(p, x) }, nil)
		o.Note = fmt.Sprintf("everything under %v, shared vertices included", s)
		o.Tag = "subset"
		o.Want = wantOK
	case c < 11:
		o.R = j.r
		if rng.IntN(2) == 0 {
			o.R = bareJGF(j.r)
		}
		o.Note = "the job's whole R"
		o.Tag = "whole"
	case c < 14:
		var ranks []int64
		var names []string
		for _, h := range j.holds {
			if v := &md.vs[h.v]; v.typ == "node" && v.live && v.rank >= 0 && rng.IntN(2) == 0 {
				ranks, names = append(ranks, v.rank), append(names, v.name)
			}
		}
		if len(ranks) == 0 {
			ranks, names = []int64{0}, []string{"node0"}
		}
		o.R = rankR(ranks, names, j.start, j.end)
		o.Note = "rank form"
		o.Tag = "ranks"
	case c < 16:
		o.R = illFormedR(rng, j.r)
		o.Note = "ill-formed"
		o.Tag = "ill-formed"
		o.Want = wantFail
	case c < 18 && len(others) > 0:
		f := others[rng.IntN(len(others))]
		mine := map[string]bool{}
		for _, h := range j.holds {
			mine[md.vs[h.v].path] = true
		}
		add := jgfNodes(f.r, func(p string, x bool) bool { return x && alive(p) && !mine[p] && isLeafType(md.vs[md.byPath[p]].typ) })
		if len(add) == 0 {
			add = jgfNodes(f.r, func(p string, x bool) bool { return alive(p) && !mine[p] })
		}
		if len(add) > 0 {
			o.R = filterR(j.r, func(p string, x bool) bool { return x && alive(p) }, add[:1])
			o.Note = fmt.Sprintf("with a vertex of job %d", f.id)
			o.Tag = "foreign-vertex"
			o.Want = wantFail
			break
		}
		fallthrough
	default:
		add := []json.RawMessage{json.RawMessage(`{"id": "9999", "metadata": {"type": "core", "id": 77, "rank": 0, "exclusive": true, "paths": {"containment": "/m0/node77/core77"}}}`)}
		o.R = filterR(j.r, func(p string, x bool) bool { return x && alive(p) }, add)
		o.Note = "with a vertex the graph does not have"
		o.Tag = "unknown-vertex"
		o.Want = wantFail
	}
}

func (r *runner) genUpdate(o *mop, live, canceled []*mjob) {
	rng, md := r.rng, r.md
	o.Kind = kUpdate
	form := func(R []byte) []byte {
		switch rng.IntN(8) {
		case 0, 1:
			return bareJGF(R)
		case 2:
			return noSched(R)
		}
		return R
	}
	switch c := rng.IntN(20); {
	case c < 11 && len(canceled) > 0:
		j := canceled[rng.IntN(len(canceled))]
		o.ID = j.id
		if rng.IntN(2) == 0 {
			o.ID = md.next + uint64(rng.IntN(3))
		}
		o.R = form(j.r)
		o.Note = fmt.Sprintf("R of cancelled job %d", j.id)
	case c < 15 && len(live) > 0:
		j := live[rng.IntN(len(live))]
		o.ID = md.next + uint64(rng.IntN(3))
		o.R = form(j.r)
		o.Note = fmt.Sprintf("R of live job %d", j.id)
	case c < 17 && len(live) > 0:
		j := live[rng.IntN(len(live))]
		o.ID = live[rng.IntN(len(live))].id
		o.R = form(j.r)
		o.Note = "a live id"
		o.Want = wantFail
	default:
		var good []byte
		if len(canceled) > 0 {
			good = canceled[rng.IntN(len(canceled))].r
		}
		o.ID = md.next
		o.R = illFormedR(rng, good)
		o.Note = "ill-formed"
		o.Want = wantFail
	}
	if rng.IntN(10) == 0 {
		o.Fmt = "rv1"
	}
}

func (r *runner) genAttach(o *mop, liveNodes int) {
	rng, md, gs := r.rng, r.md, r.gs
	o.Kind = kAttach
	var parents []int
	for _, p := range md.livePaths() {
		if t := md.vs[md.byPath[p]].typ; t == "cluster" || t == "rack" {
			parents = append(parents, md.byPath[p])
		}
	}
	ranks := md.liveRanks()
	switch c := rng.IntN(20); {
	case c < 4:
		i := rng.IntN(4)
		o.Doc = [][]byte{[]byte("{"), []byte(`{"graph": {"nodes": [{"id": "0"}], "edges": []}}`),
			[]byte(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "node", "id": 1, "rank": 1, "paths": {"containment": "/m0/node1"}}}], "edges": [{"source": "0", "target": "7"}]}}`),
			[]byte(`{"graph": {"nodes": [{"id": "0", "metadata": {"type": "memory", "id": 1, "rank": -1, "size": -5, "paths": {"containment": "/m0/memory1"}}}], "edges": []}}`)}[i]
		o.Tag = []string{"bad-json", "no-metadata", "edge-to-unknown", "negative-size"}[i]
		o.Note = "ill-formed: " + o.Tag
		o.Want = wantFail
		o.Sub, o.Parent = &gnode{}, "/m0"
		return
	case c < 9 && len(r.removed) > 0:
		i := rng.IntN(len(r.removed))
		n, at := r.removed[i], r.removedAt[i]
		p, ok := md.byPath[at]
		if _, exists := md.byPath[at+"/"+n.name()]; ok && !exists && !slices.Contains(ranks, n.rank) {
			n = md.cloneGnode(n)
			o.Sub, o.Parent, o.Doc = n, at, attachDoc(md, p, n, &gs.nextUniq)
			o.Note = "a removed node again"
			o.Want = wantOK
			return
		}
	case c < 12:
		var nodes []int
		for _, p := range md.livePaths() {
			if md.vs[md.byPath[p]].typ == "node" && gs.sockets {
				nodes = append(nodes, md.byPath[p])
			}
		}
		if len(nodes) > 0 {
			nv := nodes[rng.IntN(len(nodes))]
			node := &gnode{typ: "node", rank: md.vs[nv].rank}
			ids := &[4]int64{}
			// Fresh ids above anything the node has.
			md.subtree(nv, func(u int) {
				i := slices.Index([]string{"socket", "core", "gpu", "memory"}, md.vs[u].typ)
				if i >= 0 {
					ids[i] = max(ids[i], md.vs[u].id+1)
				}
			})
			for i := range ids {
				ids[i] += 10
			}
			s := gs.genSocket(rng, node, ids)
			o.Sub, o.Parent, o.Doc = s, md.vs[nv].path, attachDoc(md, nv, s, &gs.nextUniq)
			o.Note = "a socket under a live node"
			o.Want = wantOK
			return
		}
	}
	if liveNodes >= 10 || len(parents) == 0 {
		o.Kind, o.Path, o.Fmt, o.Want = kFind, "status=down", "jgf", wantOK
		return
	}
	p := parents[rng.IntN(len(parents))]
	n := gs.genNode(rng, gs.nextRank)
	gs.nextRank++
	n.perf = ""
	o.Sub, o.Parent, o.Doc = n, md.vs[p].path, attachDoc(md, p, n, &gs.nextUniq)
	o.Note = "a new node"
	o.Want = wantOK
}

// episode generates and runs n random operations, then cancels every job
// and runs the final checks.
func (r *runner) episode(n int) {
	for i := 0; i < n && r.fail == nil && !r.aborted; i++ {
		r.run(r.gen())
	}
	for _, j := range r.md.live() {
		if r.fail != nil || r.aborted {
			return
		}
		r.run(&mop{Kind: kCancel, ID: j.id, At: r.now, Note: "cancel everything"})
	}
	if r.fail == nil && !r.aborted {
		r.run(&mop{Kind: kFinal, At: r.now})
	}
}

// replay runs a fixed trace on a fresh Matcher of the same episode.
func replay(seed uint64, ops []*mop) *failure {
	r, err := newRunner(seed, newModelStats())
	if err != nil {
		return &failure{kind: "new", msg: err.Error()}
	}
	for _, o := range ops {
		r.run(o)
		if r.fail != nil || r.aborted {
			break
		}
	}
	return r.fail
}

// shrink removes operations from a failing trace while it fails the same
// way (same kind), within a budget of replays.
func shrink(seed uint64, ops []*mop, f *failure) ([]*mop, *failure) {
	ops = ops[:f.step+1]
	budget := 3000
	deadline := time.Now().Add(2 * time.Minute)
	for chunk := len(ops) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(ops) && budget > 0 && time.Now().Before(deadline); {
			cand := append(slices.Clone(ops[:i]), ops[i+chunk:]...)
			budget--
			if g := replay(seed, cand); g != nil && g.kind == f.kind {
				ops, f = cand[:g.step+1], g
			} else {
				i += chunk
			}
		}
	}
	return ops, f
}

func (r *runner) report(t *testing.T) {
	t.Helper()
	f := r.fail
	ops, g := shrink(r.seed, r.trace, f)
	var b strings.Builder
	fmt.Fprintf(&b, "TestModel: %s at step %d of episode seed %d (policy %s, traverser %s)\n%s\n", f.kind, f.step, r.seed, r.policy, r.traverser, f.msg)
	fmt.Fprintf(&b, "graph: %s (ranks on every vertex of a node: %v)\n", r.root, r.gs.ranked)
	fmt.Fprintf(&b, "minimal trace (%d of %d operations), failing with: %s\n", len(ops), f.step+1, g.msg)
	for i, o := range ops {
		fmt.Fprintf(&b, "  %d. %s\n", i, o)
	}
	fmt.Fprintf(&b, "rerun: go test -run 'TestModel$' -model.seed=%d -v", r.seed)
	t.Error(b.String())
}

func TestModel(t *testing.T) {
	total := *modelOps
	if total == 0 {
		switch {
		case *modelLong:
			total = 1_000_000
		case testing.Short():
			total = 800 // some 8 s under -race on a loaded machine
		default:
			total = 8_000 // some 6 s on a loaded 2-core machine
		}
	}
	epOps := *modelEpOps
	stats := newModelStats()
	start := time.Now()
	var seeds []uint64
	if *modelSeed != 0 {
		seeds = []uint64{*modelSeed}
	}
	failures := 0
	for i := uint64(1); ; i++ {
		seed := i
		if seeds != nil {
			if i > 1 {
				break
			}
			seed = seeds[0]
		} else if stats.ops >= total {
			break
		}
		r, err := newRunner(seed, stats)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if *modelTrace {
			r.log = func(s string) { t.Log(s) }
		}
		before := stats.ops
		r.episode(epOps)
		pol, trav := comboOf(seed)
		stats.byCombo[pol+"/"+trav] += stats.ops - before
		stats.episodes++
		if r.aborted {
			stats.aborted++
			stats.abortBy[r.lastKnown]++
		}
		if r.fail != nil {
			r.report(t)
			if failures++; failures >= 3 {
				break
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "TestModel: %d operations in %d episodes (%d ended early by a known issue), %v\n", stats.ops, stats.episodes, stats.aborted, time.Since(start).Round(time.Millisecond))
	for _, c := range slices.Sorted(maps.Keys(stats.byCombo)) {
		fmt.Fprintf(&b, "  %-22s %d\n", c, stats.byCombo[c])
	}
	b.WriteString("outcomes:\n")
	keys := slices.Collect(maps.Keys(stats.outcomes))
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-36s %d\n", k, stats.outcomes[k])
	}
	if stats.aborted > 0 {
		b.WriteString("episodes ended early, by the known issue that ended them:\n")
		for _, k := range slices.Sorted(maps.Keys(stats.abortBy)) {
			fmt.Fprintf(&b, "  %-44s %d\n", k, stats.abortBy[k])
		}
	}
	if len(stats.known) > 0 {
		b.WriteString("known issues met (failure kind: count), then what they are:\n")
		entries := map[string]bool{}
		for _, k := range slices.Sorted(maps.Keys(stats.known)) {
			fmt.Fprintf(&b, "  %-44s %d\n", k, stats.known[k])
			entries[knownEntry(k)] = true
		}
		for _, e := range slices.Sorted(maps.Keys(entries)) {
			fmt.Fprintf(&b, "  %s: %s\n", e, modelKnown[e])
		}
	}
	t.Log(b.String())
}
