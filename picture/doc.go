// Package picture draws a resource graph, or a part of it, for people:
// Graphviz DOT (DOT) and GraphML (GraphML), with each vertex's state at a
// given time when a schedule is supplied: free, allocated, reserved, down,
// or partly used (something below it is booked), and the ids of the jobs
// holding it.
//
// Render a DOT file with Graphviz, for example `dot -Tsvg x.dot > x.svg`.
// The root package's Matcher.WriteDOT and Matcher.WriteGraphML draw a
// Matcher's graph with its schedule under its lock; resource-query's
// `-g dot|graphml -o BASENAME` writes one at exit.
//
// The package uses the standard library only; package gonumgraph exposes
// a graph to gonum's algorithms and its DOT encoder instead.
package picture
