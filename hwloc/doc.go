// Package hwloc reads hwloc XML topologies (spec formats.md §4) into
// resource graphs, as Fluxion's hwloc reader (resource-query -f hwloc)
// does.
//
// Read creates a root vertex cluster0 (type cluster, basename cluster, id
// 0, rank -1, path /cluster0) and then walks the hwloc tree depth first,
// visiting for every object its normal children, then its memory children
// (NUMA nodes), then its I/O children (bridges, PCI and OS devices), then
// its Misc children, each list in document order. When a represented
// object is reached, its vertex and the containment edge from the vertex of
// its nearest represented ancestor (cluster0 at the top) are created, so
// vertex indexes, uniq_ids (equal to the index), out-edge order and type
// interning order all follow this walk. Objects that are not represented,
// or whose type is not in the allowlist, are skipped and their children
// attach to the nearest represented ancestor.
//
// Object mapping (type / basename / id / size):
//
//	Machine      node / hostname without trailing digits / trailing digits
//	             (-1 if none) / 1; name = the HostName info. Without a
//	             HostName: basename node, id = logical index, name node<id>.
//	             Node vertices get ranks 0, 1, ... in creation order.
//	Group        group / group / logical index / 1
//	NUMANode     numanode / numanode / logical index / 1
//	Package      socket / socket / logical index / 1 ("Socket" in hwloc 1.x)
//	L1,L2,L3     cache / L1cache, L2cache, L3cache / logical index of the
//	             cache level / cache size in KiB
//	Core, PU     core, pu / core, pu / logical index / 1
//	OS device    co-processors (osdev_type 5) and GPUs (osdev_type 1) named
//	             rsmi*: gpu / gpu / N from cuda<N>, rsmi<N> or opencl<P>d<N>,
//	             else the name's trailing number, else the OS device logical
//	             index / 1.
//	             Block devices (osdev_type 0): storage / storage / OS device
//	             logical index / the Size info (KB) divided by 10^6, i.e. GB
//	             (0 without a Size info), with property LinuxDeviceID when
//	             hwloc reports it.
//
// Everything else (System, Die, L4/L5 and instruction
// caches, MemCache, bridges, PCI devices, other OS devices, Misc) is not
// represented. Names are basename followed by id (just basename for id -1)
// except for hosts; paths are the parent's path, "/" and the name. All
// non-node vertices have rank -1, no unit and status up; every edge is in
// the containment subsystem.
//
// Logical indexes are computed as hwloc numbers its levels: per object type
// (each cache level and kind separately, OS devices together), in the
// order of the walk, counting every object of the type whether the
// allowlist keeps it or not. For example the block device sda of a node
// whose walk first meets six network OS devices becomes storage6.
//
// The allowlist is a comma-separated list of type names (resource-query
// passes "cluster," followed by its -W value). Tokens are compared
// verbatim; empty tokens are ignored, and a list without any token keeps
// every represented object. The cluster0 root is always created.
//
// # hwloc 1.x documents
//
// hwloc 1.x XML (no version attribute on <topology>) mixes all children in
// one list and nests normal objects inside NUMA nodes. Children are
// classified by type (NUMANode and MemCache are memory children; Bridge,
// PCIDev and OSDev are I/O children; Misc objects are Misc children), and a
// NUMA node that has children becomes a memory child the way hwloc 2
// imports such files: if it has exactly one normal child and no other
// children, it is attached (first) to that child's memory children and the
// child takes its place; if it is its parent's only normal child, its
// children move into the parent's lists and it becomes a memory child of
// the parent; otherwise a Group object takes its place, with the NUMA node
// as memory child and the NUMA node's children as its own. The v1 "Cache"
// type is resolved from its depth and cache_type attributes.
//
// # Decisions where the specification is silent
//
// The exact hwloc type filters Fluxion sets are not known, so nothing
// beyond the rules above is filtered: Groups present in the XML are kept
// (hwloc may merge groups that add no structure), instruction caches are
// dropped, all OS devices count for logical indexes. Group logical indexes
// are numbered together across group depths. Sizes are stored as unsigned
// 32-bit numbers (model.md §2): larger values wrap.
//
// # Errors
//
// Every error is an *Error with a best-effort line number. The document
// must be well-formed XML whose root element is <topology> (version
// absent, 1.x or 2.x) with exactly one root <object>, and nothing but
// comments and white space after it. Objects need a known type attribute;
// v1 Cache objects need a depth (1-5, 1-3 for instruction caches); the
// attributes osdev_type, cache_size, depth and cache_type, when present,
// must be non-negative decimal integers, and the Size info of a block
// device must be a non-negative decimal integer. Unknown elements
// (page_type, distances, userdata, support, ...) and attributes are
// ignored. Read never panics.
//
// # Limits
//
// Read applies the default graph.ReadLimits, ReadLimited others: the
// document's size, its number of objects (MaxVertices, counting objects
// that make no vertex too), how deep objects nest (MaxDepth) and the total
// length of the vertex paths (MaxPathBytes). Every path repeats its
// ancestors' names, so without the last two a 2 MB file of 50,000 nested
// Groups needs more than 6.7 GB.
package hwloc
