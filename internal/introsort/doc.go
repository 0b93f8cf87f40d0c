// Package introsort is an exact re-implementation of the GNU libstdc++
// std::sort algorithm (introsort: median-of-three quicksort with an
// unguarded partition, a heap-sort fallback once the recursion depth
// reaches 2·⌊log2 n⌋, and a final insertion sort over 16-element blocks).
//
// Fluxion sorts candidate lists with std::sort, an unstable sort, so which of
// several equal-scored candidates come first depends on the algorithm's exact
// element movements. Reproducing Fluxion's choices byte for byte therefore
// requires this algorithm instead of sort.Sort or slices.SortFunc (spec
// sort.md).
//
// Slices of at most 16 elements are sorted stably; longer slices may reorder
// equal elements.
package introsort
