// Package fluxcli is gofluxion's drop-in replacement for fluxion-go's
// github.com/flux-framework/fluxion-go/pkg/fluxcli: the ReapiClient of
// Fluxion's "reapi cli" embedding API (spec api.md), in pure Go.
//
// # Switching from fluxion-go
//
// Change the import paths
//
//	"github.com/flux-framework/fluxion-go/pkg/fluxcli"
//	"github.com/flux-framework/fluxion-go/pkg/types"
//
// to
//
//	"github.com/gofluxion/gofluxion/reapi/fluxcli"
//	"github.com/gofluxion/gofluxion/reapi/types"
//
// Nothing else changes: the package names, the type ReapiClient and the
// methods fluxion-go exports keep their exact signatures (a test assigns
// each to a variable of fluxion-go's function type):
//
//	func NewReapiClient() *ReapiClient
//	func (cli *ReapiClient) HasContext() bool
//	func (cli *ReapiClient) Destroy()
//	func (cli *ReapiClient) InitContext(jgf string, options string) (err error)
//	func (cli *ReapiClient) Match(match_op types.MatchType, jobspec string) (reserved bool, allocated string, at int64, overhead float64, jobid int64, err error)
//	func (cli *ReapiClient) MatchAllocate(orelse_reserve bool, jobspec string) (reserved bool, allocated string, at int64, overhead float64, jobid int64, err error)
//	func (cli *ReapiClient) MatchSatisfy(jobspec string) (sat bool, overhead float64, err error)
//	func (cli *ReapiClient) UpdateAllocate(jobid int, r string) (at int64, overhead float64, r_out string, err error)
//	func (cli *ReapiClient) Cancel(jobid int64, noent_ok bool) (err error)
//	func (cli *ReapiClient) PartialCancel(jobid int64, r string, noent_ok bool) (bool, error)
//	func (cli *ReapiClient) Info(jobid int64) (reserved bool, at int64, overhead float64, mode string, err error)
//	func (cli *ReapiClient) Stat() (v int64, e int64, jobs int64, load float64, min float64, max float64, avg float64, err error)
//	func (cli *ReapiClient) GetErrMsg() string
//	func (cli *ReapiClient) ClearErrMsg()
//
// and types.MatchType keeps fluxion-go's values and String texts. The rest
// of Fluxion's C API is there too: MatchWithJobID (match_with_jobid), Find
// and FindWithFormat (find), SetStatus, GetStatus, SetRankStatus,
// GetRankStatus, AddSubgraph, RemoveSubgraph and Clone, plus Options and
// DetectLoadFormat.
//
// There is no cgo, no flux-sched build and no C library to install:
// `go build` and `go test` just work, on any platform Go supports.
//
// # Differences from fluxion-go
//
//   - Contexts are independent: several ReapiClient values in one process
//     share nothing (no process-global state), and Destroy of one does not
//     affect the others.
//   - A ReapiClient is safe for concurrent use by multiple goroutines;
//     calls on one client run one at a time.
//   - No C strings are leaked or need freeing; results are Go strings.
//   - Errors are *Error values carrying Fluxion's errno and the message
//     the call added to GetErrMsg; test them with errors.Is against
//     ErrBusy (not now), ErrUnsatisfiable (never), ErrInvalid, ErrNotFound,
//     ErrExists, ErrNotSupported, ErrNoContext and ErrNotInitialized, or
//     errors.As to *Error (and to the underlying *match.Error). GetErrMsg
//     still returns Fluxion's accumulated text.
//   - Stat returns real figures (Fluxion's C API returns ENOSYS).
//   - MatchSatisfy reports an unsatisfiable request as (false, nil): only
//     bad jobspecs and other failures are errors.
//   - Without a load_format option, InitContext detects the format from
//     the document (DetectLoadFormat): JSON is JGF, as older Fluxion and
//     fluxion-go's own tests and fluence assume ("{}" or
//     {"matcher_policy": "lonode"} with a JGF graph); XML is GRUG, or
//     hwloc when its root element is <topology>. Today's C++ Fluxion reads
//     GRUG there and fails on JGF. An explicit load_format always wins.
//   - JGF loads by Fluxion's rules (jgf.Options.Fluxion), as Fluxion's
//     reapi loads it: older documents that list every edge in both
//     directions (fluxion-go's own pkg/fluxcli/data/tiny.json), cycles,
//     second containment parents and wrapped sizes included, and the
//     matches on them are Fluxion's. The root package's reader refuses
//     all but the two-way lists, whose upward edges it skips.
//   - UpdateAllocate and PartialCancel accept a bare JGF as R (a document
//     with a "graph" object and no RFC 20 "execution" part), as older
//     Fluxion did, whatever the load format. Today's C++ Fluxion fails
//     there: UpdateAllocate with ENOTSUP ("update not supported by the
//     grug reader") in a GRUG or hwloc context, PartialCancel in its
//     rv1exec reader.
//   - A failed operation never leaves the schedule changed, even where
//     C++ Fluxion's does.
//   - PartialCancel releases what the job holds on the listed vertices or
//     ranks and keeps its shared vertices exactly while it holds something
//     below them; it reports full exactly when the job holds nothing any
//     more. The rank form also releases what is below the vertices of the
//     ranks (C++ Fluxion releases only vertices carrying a rank, and fails
//     at a rank whose vertices the job holds only shared, as the nodes of
//     a GRUG graph); a rank where the job holds nothing fails (EINVAL).
//
// # Options
//
// InitContext's options are a JSON object (api.md §1). Recognized members
// are strings except where noted; a recognized member of another JSON type
// (null included) makes the options invalid; other members are ignored.
//
//	load_format       detected             grug, hwloc, jgf, jgf_shorthand, rv1exec, rv1exec_force
//	load_allowlist    ""                   hwloc only; for other readers "WARN: allowlist unsupported" is recorded
//	matcher_name      "CA"                 subsystems: CA, IBA, C+PA, ALL, ... (or lowercase)
//	matcher_policy    "first"              first, high, low, hinode, lonode, hinodex, lonodex, firstnodex, locality, variation or a custom string
//	traverser_policy  "simple"             simple or flexible
//	match_format      "jgf"                simple, pretty_simple, jgf, jgf_shorthand, rlite, rv1, rv1_nosched, rv1_shorthand; unknown names fall back to simple
//	prune_filters     "ALL:core,ALL:node"  pruning spec; "" installs no configured filters
//	reserve_vtx_vec   0 (integer)          capacity hint, no effect
//	elapse_time       false (boolean)      no effect here
//
// Without load_format, the format is detected from the document (see
// Differences above). An invalid document or option fails with Fluxion's
// start-up messages (resource-query.md §2) prefixed with
// "reapi_cli_initialize: Runtime error: ", errno EPROTO (ErrInvalid), e.g.
// "reapi_cli_initialize: Runtime error: resource_query_t: ERROR: can't set
// resource graph parameters". A failed InitContext leaves the context as
// it was; a successful one replaces it (graph, jobs, counter).
//
// # Job ids and the job table
//
// Match and MatchAllocate use the context's job id counter, which starts
// at 1 and is incremented after every match except satisfiability and
// without_allocating*, including matches that failed with EBUSY or ENODEV,
// but not after a jobspec error or another failure (api.md §2); the
// without_allocating operations use the id −1 (2^64−1 unsigned). A successful booking
// match records the job as ALLOCATED (start time 0) or RESERVED (later);
// UpdateAllocate records ALLOCATED whatever the start time; Cancel and a
// PartialCancel that releases everything turn it CANCELED (Info still
// reports it). Failed calls add Fluxion's messages to GetErrMsg, e.g.
//
//	match_allocate: ERROR: Jobspec error for <counter>: <text>
//	match_allocate: ERROR: Invalid Match Option: <n>
//	update_allocate: ERROR: existing jobid <id>
//	update_allocate: ERROR: failed to parse R string
//	cancel: ERROR: nonexistent job <id>
//	cancel: WARNING: can't find allocation for jobid: <id>
//	info: ERROR: nonexistent job <id>
//	find: ERROR: unknown match format '<f>'
//	findfind: invalid criteria: <criteria>.
//
// # Choices where Fluxion's API is unspecified
//
//   - MatchWithJobID refuses an id that is allocated or reserved (EEXIST,
//     "match_allocate: ERROR: existing jobid <id>"), and Match skips such
//     ids when taking one from the counter (an UpdateAllocate may have
//     booked it), so that two jobs never share an id. UpdateAllocate does
//     not move the counter.
//   - UpdateAllocate refuses a negative job id (EOVERFLOW), which Cancel
//     refuses too: Fluxion books it, and the job can then never be
//     canceled.
//   - When a successful match or update cannot be rendered by the match
//     writer ("match writer emit: Invalid argument", EINVAL) its booking
//     is undone; a failed match renders nothing and keeps its errno, even
//     for the rlite writer, which cannot render "nothing".
//   - Status arguments are "up" or "down" in any case; statuses are
//     returned as "up" or "down". Every accumulated message ends with a
//     newline.
//   - In UpdateAllocate, execution.starttime and expiration are truncated
//     to integers before the duration is computed; a non-envelope R in a
//     load format whose reader cannot read an R (grug, hwloc) fails with
//     ENOTSUP ("update_allocate: ERROR: update not supported by the grug
//     reader").
//   - PartialCancel's reader and traverser failures add the reader's or
//     traverser's text followed by "cancel: ERROR: error encountered while
//     removing job <id>".
//   - Stat's J counts every job in the table (canceled ones included);
//     min, max and avg are over the matches and updates that created a
//     job, in seconds; V counts removed vertices too (they stay allocated
//     in the graph, as in Fluxion), E only live edges.
//   - The zero ReapiClient has no context (like a fluxion-go client whose
//     C context is missing): use NewReapiClient.
//
// All operations run at time 0 (Fluxion's API has no clock either); the
// time of a reservation is relative to that origin.
package fluxcli
