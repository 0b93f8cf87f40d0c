// Package gofluxion is a pure-Go reimplementation of Fluxion, the
// graph-based resource matcher of flux-sched, for Go schedulers that want
// Fluxion's decisions without cgo, sidecars or process-global state.
//
// A resource graph (cluster, racks, nodes, sockets, cores, gpus, memory…)
// is read from a file (ReadGraph, ReadGraphFile: GRUG, JGF, rv1exec, hwloc)
// or built in code (graph.NewBuilder). New wraps it in a Matcher, which
// matches Flux canonical jobspecs against it with Fluxion's depth-first-and-up
// traversal and one of its policies, books what it selects over time, and
// keeps a job table:
//
//	g, _ := gofluxion.ReadGraphFile("cluster.graphml")
//	m, _ := gofluxion.New(g, gofluxion.Options{Policy: gofluxion.PolicyHiNode})
//	js, _ := m.ParseJobspec(yaml)
//	a, err := m.Match(gofluxion.AllocateOrElseReserve, js, now)
//	r, err := a.Render("rv1") // or a.Resources, a.Start, a.Reserved…
//
// Time is a parameter, in seconds on the caller's own timeline: Match
// books at now or, for AllocateOrElseReserve, reserves at the earliest
// later time the request fits. Jobspecs come from YAML (ParseJobspec) or
// from Go (jobspec.New), and are validated on every call. A request's
// levels must follow the graph's containment; Matcher.JobspecFor writes
// "N nodes, each with C cores, G gpus and M bytes" in the shape a graph
// serves, and Satisfiable says why a request never fits and what would.
//
// Every error is an *Error matching exactly one of six sentinels: ErrBusy
// (not now), ErrUnsatisfiable (never, even on an empty graph with
// everything up), ErrInvalid, ErrNotFound, ErrExists or ErrSnapshot. An
// input refused for exceeding a limit also matches ErrLimit, which refines
// ErrInvalid. Explain says
// which level of the request falls short and by how much; Allocation.Nodes,
// Allocation.ByNode and Matcher.Usage answer "where" and "how much"
// without parsing text; WriteDOT and WriteGraphML draw the schedule.
//
// Where the package deliberately differs from Fluxion (whose behaviour
// resource-query and reapi/fluxcli keep): failures are classified by
// whether the request could fit an empty graph, not by Fluxion's errno;
// Satisfiable rejects requests Fluxion selects but never allocates (that
// take nothing exclusively, or whose slot sits a level above its
// contents), naming the cause and a shape that works; WithoutAllocating changes nothing, not even
// the candidate order of dynamic policies; attached nodes count as up;
// Remove and RemoveRanks release what jobs hold in the removed subgraph
// (ending the jobs left holding nothing) and take whole subgraphs; a
// failed operation changes nothing.
//
// The rest of a scheduler's life is covered too: Cancel and PartialCancel
// release resources, Update re-applies an R written earlier (restart
// recovery), SetStatus and SetRankStatus take nodes down and up, Attach,
// Remove and RemoveRanks grow and shrink the graph, Find queries the
// schedule, Info and Jobs read the job table, Clone makes an independent
// what-if copy and Snapshot/Restore save and reload the complete state.
// WriteJGF exports a graph, and DemoGraph is a small cluster to try things
// on.
//
// Every input is bounded (Limits, in Options.Limits or on the readers):
// a hostile document or argument gets an error wrapping ErrLimit instead
// of exhausting memory or the stack.
//
// A Matcher is safe for concurrent use; see its documentation for which
// operations run concurrently. The decisions are byte-for-byte those of
// Fluxion (flux-sched fd257f71), which the repository's conformance tests
// check against Fluxion's own test suite. The lower layers (graph, match,
// policy, planner, jobspec, and the format packages) are usable on their
// own; package reapi/fluxcli mirrors fluxion-go's API for existing users.
package gofluxion
