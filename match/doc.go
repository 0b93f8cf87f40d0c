// Package match is gofluxion's resource matcher: it selects resources of a
// graph.Graph for a jobspec, books them over time and reports the selection
// to a writer, reproducing Fluxion's depth-first-and-up (DFU) traverser
// (spec traversal.md).
//
// # Where it fits
//
//	reader (grug.Read, graph.NewBuilder) → *graph.Graph
//	jobspec.Parse                        → *jobspec.Jobspec
//	match.New(g, Options{Policy: ...})   → *Matcher (owns a policy.Policy)
//	m.Match(op, js, jobid, at, w)        → emit.Writer (emit, jgf, rv1) → w.Render()
//
// New builds the per-vertex schedule of the graph: a planner of each
// vertex's Size units, an exclusivity checker counting the jobs that touch
// the vertex, and pruning filters (subtree aggregates of the types named
// by Options.PruneFilters, "ALL:core,ALL:node" by default). The graph's
// structure must not be changed behind the matcher's back afterwards;
// SetStatus changes a vertex's status through it. Vertex properties are
// read at match time (constraints, the variation policy) and may be set
// directly on the graph.
//
// Parse jobspecs with jobspec.Options.KnownType set to a lookup in the
// graph's type table (g.Types.Lookup), so that unknown types are rejected
// the way Fluxion rejects them.
//
// # Operations
//
// Match runs one Op for a jobspec as job jobid:
//
//   - Allocate: allocate at time at, or fail with ErrBusy.
//   - AllocateOrElseReserve: allocate at at, else reserve at the earliest
//     later time at which the request fits; the returned start time tells
//     which (it equals at for an allocation).
//   - AllocateWithSatisfiability: allocate at at; on failure tell "busy
//     now" (ErrBusy) from "never" (ErrUnsatisfiable).
//   - Satisfiability: only check whether the request could ever be met by
//     the graph: a selection far in the future, ignoring vertex status;
//     nothing is booked or emitted.
//   - WithoutAllocating, WithoutAllocatingFuture: select (now, or now or
//     later) and emit without booking anything.
//
// Time is a parameter: the matcher has no clock. at is the current time of
// the caller (resource-query always passes 0); a job occupies [start,
// start+duration) where the duration comes from the jobspec (Duration: 0
// means the whole graph window [0, GraphEnd), fractions round up), cut at
// GraphEnd. Reservations start at the end times of earlier bookings.
//
// Job ids are chosen by the caller; the matcher records what each job
// holds on each vertex so that Cancel(jobid) can release it exactly. A job
// id that already holds resources is refused (ErrInvalid) by Match and the
// updates.
//
// A successful match hands the selected vertices and edges to the writer
// in post-order (children before parents, siblings in out-edge creation
// order), then the start and end times (and the jobspec's queue, if any);
// call the writer's Render to get the text. Only vertices taken
// exclusively book their own planner; vertices above them are shared (they
// are emitted and block later exclusive users, but stay available to other
// shared users). A selection in which nothing is exclusive emits nothing
// and fails, as in Fluxion (traversal.md §9); such a failure carries
// whatever errno the walk left behind, normally EBUSY (see SetErrno).
//
// Find emits the vertices that satisfy a criteria expression such as
// "status=down or sched-now=allocated" (traversal.md §16), with their
// ancestors. Visits reports the visit counters of the last operation.
//
// # Policies and ties
//
// Options.Policy names the match policy (package policy: first, high, low,
// hinode, lonode, hinodex, lonodex, firstnodex, locality, variation or a
// custom option string; default "first"). Among candidates with equal
// scores the choice is Fluxion's: candidates are collected in out-edge
// creation order and sorted with the exact unstable sort of libstdc++
// (package internal/introsort), which keeps the order of ties for lists of
// up to 16 candidates and permutes longer ones deterministically. Policies
// with stop_on_1_matches (first, firstnodex) explore children in a dynamic
// order (untouched subtrees and those with more free resources first) and
// stop at the first that satisfy the request.
//
// # Best-first walk
//
// Fluxion's other policies score every vertex of the graph on every match.
// For the id-scored ones (high, low, hinode, lonode, hinodex, lonodex,
// locality below the root), whenever the sibling candidates of one type
// have distinct ids their sorted order is known before any walk, so the
// matcher visits them best first and stops as soon as Fluxion's choice is
// certain (best.go); the choice is always Fluxion's, and the exhaustive
// walk is kept as the reference that tests compare it with. Visit counts
// then count the vertices actually visited: CountVisits computes Fluxion's
// counts for a match (resource-query does so for -e), and Visits reports
// them after that match. Cancel visits only the job's vertices and reports
// Fluxion's counts exactly. Graphs deeper than graph.MaxDepth are refused.
//
// # Errors
//
// Failures are *Error values carrying an Errno (Fluxion's errno, e.g.
// EBUSY, ENODEV, EINVAL) and Fluxion's accumulated message. Test them with
// errors.Is:
//
//   - ErrBusy (EBUSY): the request fits the graph but not at this time
//     (or, for AllocateOrElseReserve, at no time found);
//   - ErrUnsatisfiable (ENODEV): the request can never be met by this
//     graph (AllocateWithSatisfiability, AllocateOrElseReserve,
//     Satisfiability);
//   - ErrInvalid (EINVAL, EOVERFLOW, ERANGE): a bad argument, e.g. a
//     duration out of range, an empty request or invalid find criteria;
//   - ErrNotFound (ENOENT): something the operation refers to does not
//     exist, e.g. a job's pruning-filter span in Find's agfilter mode.
//
// The matcher keeps no job table: Cancel of a job that holds nothing
// succeeds and changes nothing, so callers track their job ids.
//
// New returns a *ConfigError for a bad policy, subsystem, pruning spec or
// traverser name.
//
// # Failures change nothing
//
// Every mutating operation (Match, Cancel, PartialCancel,
// PartialCancelJGF, UpdateJGF, UpdateRV1Exec, Attach, RemovePath,
// RemoveRanks, SetStatus) either succeeds or fails leaving the schedule as
// it was: the operations check their input first (unknown ranks, paths or
// vertices, vertices the job does not hold, a job id in use, a window
// past GraphEnd, the graph's root) and then apply. Fluxion does not: it
// fails half way and leaves, for instance, a partially cancelled job
// whose released cores a third job is then given.
//
// # Updates book what they emit
//
// UpdateJGF and UpdateRV1Exec apply an R exactly: the allocation they emit
// is what they book, and a vertex the R marks exclusive is taken only if
// no other job holds anything below it at any time of the window (else
// ErrBusy, nothing changed), since taking it covers its whole subtree,
// including vertices the R does not list (attached since it was written).
// The policy's exclusive types do not extend the R, an rv1exec R's node is
// exclusive only when the update takes it whole (the R lists every vertex
// of its rank), and a vertex listed twice is ErrInvalid. A vertex another
// job holds is ErrBusy.
//
// # Fluxion's failures and quirks
//
// Two options reproduce Fluxion where it departs from the above, so that
// resource-query can prove fidelity on Fluxion's own outputs:
//
// Options.FluxionFailures (resource-query only) makes operations fail
// where and as Fluxion's do, leaving its half-changed state:
//
//   - a JGF partial cancel requires an allocation span on every listed
//     vertex, so it fails at the first vertex the job holds shared (every
//     R Fluxion writes lists such vertices), after releasing the vertices
//     listed before it and dropping that one's filter span, exclusivity
//     span and tag; the ancestors keep their spans;
//   - an rv1exec partial cancel gives the released amounts back rank by
//     rank in ascending order and stops with an error at a rank that gives
//     nothing back (a node held shared, as in GRUG graphs, where only
//     nodes carry ranks);
//   - a rank removal removes only the vertices carrying the ranks (those
//     below them without a rank stay findable by path), drops the
//     exclusivity spans of ancestors under which a job still holds
//     something, and sums the released amounts per rank over all jobs and
//     gives each job that sum back; when two jobs share the ranks' vertices
//     or ancestors it fails, and the vertices stay in the graph with their
//     job records dropped but their planner spans kept;
//   - an unknown rank fails a partial cancel or rank removal after the
//     ranks before it were released or cleared;
//   - a cancel of a job that vertices below the root still carry but the
//     root does not (after such a removal gave the root's share back)
//     takes the job's allocation spans off every vertex, leaves its tags,
//     exclusivity and filter spans, and fails (by default Cancel releases
//     everything such a job holds and succeeds);
//   - an update from a jgf_shorthand R fails at the first exclusive
//     vertex with a subtree when the graph's vertex ids are not their
//     creation indices (a graph read from JGF), keeping that vertex and
//     what was booked before it under the job, whose update failed (with
//     FluxionQuirks alone the update fails the same way and books
//     nothing; by default the subtree is expanded on any graph);
//   - a booking under a job id that already holds resources is accepted
//     and loses track of the first booking's spans (resource-query reuses
//     the id of a match whose output could not be rendered);
//   - Fluxion never returns from some socket removals (a socket whose place
//     in its parent's dynamic order a booking changed): those fail with
//     ENOTSUP instead of hanging.
//
// Options.FluxionQuirks (resource-query and reapi) reproduces decisions
// that follow from Fluxion's implementation, none of which corrupts the
// schedule but the update from an R, which trusts the R:
//
//   - a match rejected for its duration (EINVAL) leaves the exclusive
//     types of its jobspec in force for every later match;
//   - dry runs (WithoutAllocating*) re-key the dynamic child order of the
//     first-fit policies, and updates from an R re-key every edge they
//     walk to weight 0 (so those subtrees are tried last);
//   - an update from an R (UpdateJGF, UpdateRV1Exec) emits the whole
//     subtree of a vertex of one of the policy's exclusive types (the
//     node-exclusive policies) but books only what the R lists, takes a
//     vertex the R marks exclusive checking only its own planner (not the
//     jobs below it), marks every node of an rv1exec R exclusive although
//     it books the node only when the R lists all its rank's vertices, and
//     reports a vertex another job holds as EINVAL;
//   - with the flexible traverser, a top-level or-slot alternative whose
//     count exceeds a pruning filter's total, checked before the
//     alternative that decides (the last), leaves ERANGE in errno: an
//     AllocateWithSatisfiability that is busy now but satisfiable then
//     fails with ERANGE (ErrInvalid) instead of EBUSY;
//   - a vertex whose filter span cannot be booked is neither emitted nor
//     closes its emission level, and the raised level carries over to
//     later matches and finds;
//   - re-priming the filters (after attach or removal) leaves the
//     reservation search seeing each existing time point's free units from
//     before the totals changed, until a booking changes the point: after
//     growing, a reservation can come later than the new resources allow
//     (planner.Planner.UpdateTotalKeepSearch);
//   - re-priming makes a type that became a leaf somewhere (sockets whose
//     cores were removed) a pruning type when its walk meets that leaf, so
//     the root's total of that type misses the vertices of the type walked
//     before (a later booking's filter span can then fail and its vertex go
//     unemitted), and a vertex whose children were all removed keeps its
//     filter; by default every total counts every vertex and such a vertex
//     has no filter, as in a Matcher restored from a snapshot;
//   - a path removal leaves the jobs holding removed vertices alone (spec
//     traversal.md §14.4): the ancestors' filters keep counting what they
//     held there until they are cancelled. By default it releases what
//     they hold there, as a rank removal does, and ends the jobs left
//     holding nothing (RemovePath, Ended).
//
// Both are off by default, as for the gofluxion package.
//
// A Matcher is not safe for concurrent use.
package match
