// Package planner implements Fluxion's time-indexed availability
// structures: the planner, which tracks how many of a fixed number of
// interchangeable units are free at every instant of [base, end), and the
// multi-planner, an ordered set of planners (one per resource type) booked
// together. Every vertex of a resource graph owns two planners (its units
// and its exclusivity checker) and interior vertices own a multi-planner as
// a pruning filter, so the types are built to be cheap: a Planner is a
// 64-byte value with no heap storage until its first span.
//
// All times are integer seconds; a duration d covers the half-open window
// [t, t+d). Errors are the sentinels ErrInvalid, ErrRange, ErrBusy and
// ErrNotFound, standing for the EINVAL, ERANGE, EBUSY and ENOENT errnos of
// the specification, and are returned under exactly the spec's conditions.
//
// # Scheduled points and spans
//
// A planner is a time-sorted list of scheduled points. The point at base
// always exists; every other point is the start or end of a span (a booking
// of some units over a window) and is shared, with a reference count, by all
// spans starting or ending at that time. A point records the units free
// from its time until the next point, so queries are a binary search for
// the point in force at t followed by a scan of the points inside the
// window. A new point copies the state in force at its time; a point no
// longer referenced is deleted.
//
// Span ids are opaque positive handles (multi-span ids are >= 0). Storage
// slots are recycled, but an id is never valid again once its span is gone.
//
// # Earliest start times
//
// AvailTimeFirst and AvailTimeNext enumerate candidate start times. The
// candidates are only the times of existing scheduled points (the base and
// span boundaries) whose free units cover the request, in increasing time
// order; a candidate before onOrAfter, or whose window [t, t+d) contains a
// point with too few units, is skipped. The first candidate whose window
// ends past End() stops the search with ErrRange; when no candidate is
// left the result is ErrNotFound. Any change to the planner invalidates the
// search, and AvailTimeNext then fails with ErrInvalid. A multi-planner
// takes its candidates from member 0 and accepts the first one at which
// every other member passes Check.
//
// # Spec quirks kept on purpose
//
//   - UpdateTotal shifts every point's free units by the change of total,
//     clamped at 0; the clamp is not undone by later removals, so a planner
//     can report more free units than its total.
//   - Multi.AddSpan does not roll back member spans when a later member
//     fails; the multi-span is simply not created.
//   - Multi.ReduceSpan reduces members not named by 0, which removes their
//     spans if they planned 0 units.
package planner
