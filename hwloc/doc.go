// Package hwloc reads hwloc XML topologies (spec formats.md §4) into
// resource graphs, as Fluxion's hwloc reader (resource-query -f hwloc)
// does.
//
// Read first builds the topology hwloc 2 builds when it loads the XML
// with the type filters Fluxion's reader sees (see "Shaping" below), then
// creates a root vertex cluster0 (type cluster, basename cluster, id 0,
// rank -1, path /cluster0) and walks the hwloc tree depth first, visiting
// for every object its normal children, then its memory children (NUMA
// nodes), then its I/O children (bridges, PCI and OS devices), then its
// Misc children, each list in order. When a represented object is
// reached, its vertex and the containment edge from the vertex of its
// nearest represented ancestor (cluster0 at the top) are created, so
// vertex indexes, uniq_ids (equal to the index), out-edge order and type
// interning order all follow this walk. Objects that are not represented,
// or that the allowlist leaves out, are skipped and their children attach
// to the nearest represented ancestor.
//
// Object mapping (type / basename / id / size):
//
//	Machine      node / hostname without trailing digits / trailing digits
//	             (-1 if none) / 1; name = the HostName info. A Machine
//	             without a HostName makes no vertex (its children attach
//	             to cluster0). Node vertices get ranks 0, 1, ... in
//	             creation order.
//	Group        group / group / logical index in its level / 1
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
// Logical indexes are hwloc's: normal objects (groups, sockets, caches,
// cores, PUs) are numbered per hwloc level, in the order of the walk, so
// groups at different depths have separate numberings (a socket inside
// group0 inside group0 is /group0/group0/socket0); NUMA nodes and OS
// devices (all kinds together) are numbered in walk order. Every object
// of the final topology counts, whether the allowlist keeps it or not: the
// block device sda of a node whose walk first meets six network OS
// devices becomes storage6.
//
// The allowlist is a comma-separated list of type names (resource-query
// passes "cluster," followed by its -W value). Tokens are compared
// verbatim with the vertex type, except that caches are named by level:
// L1cache, L2cache, L3cache (Fluxion's -W tokens; "cache" keeps none).
// Empty tokens are ignored, and a list without any token keeps every
// represented object. The cluster0 root is always created.
//
// # Shaping
//
// Fluxion hands the XML to hwloc 2 and walks what hwloc builds. hwloc
// changes the document's tree in these ways, which Read reproduces
// (derived from the goldens of the flex conformance family, issue 24, and
// checked against hwloc 2.9's lstopo on every corpus topology by
// TestAgainstHwloc):
//
//   - v1 NUMA nodes (see below) become memory children.
//   - Empty objects go, bottom up: a normal object whose cpuset has no bit
//     set, or a NUMA node whose nodeset has none, if it has no normal,
//     memory or I/O children left (a v1 Group in a CPU-less NUMA node, a
//     NUMA node with nodeset 0x0). Sets absent from the XML count as not
//     empty.
//   - Instruction caches and DMA channel OS devices (osdev_type 4, not
//     "important" I/O) are dropped, their children taking their place.
//   - Caches (L1 to L5) and Groups are kept only where they bring
//     structure. hwloc decides per level: the normal objects are split
//     into levels top down (each step takes, among the current objects,
//     every object of the topmost type, a type being above another when
//     an object of it contains one of the other; Groups of different
//     kinds, e.g. those made for v1 NUMA nodes and those of the XML, are
//     different types), then, bottom up, a cache or Group level goes when
//     it and the level next to it have the same number of objects and
//     each object of the upper one has exactly one normal child, the
//     object below. When both levels could go, the one of lower priority
//     goes (a Group before a cache, the lower of two caches or two
//     Groups). A removed object's normal children take its place; its
//     memory and Misc children are appended to those of the object
//     that replaces it; I/O children stay in parent-then-child order
//     (a removed parent's devices come first). So per-core L1 and L2 caches go, an L3 covering a
//     whole socket goes (but the whole L3 level stays when one socket has
//     two), and the Group made for a v1 NUMA node wrapping one socket goes,
//     its NUMA node, GPUs and disks moving to the socket.
//     A level whose objects hold NUMA nodes is not replaced by PUs,
//     which cannot hold memory (a v1 NUMA node per PU keeps its Group).
//
// # hwloc 1.x documents
//
// hwloc 1.x XML (no version attribute on <topology>, or 1.x) mixes all
// children in one list and nests normal objects inside NUMA nodes.
// Children are classified by type (NUMANode and MemCache are memory
// children; Bridge, PCIDev and OSDev are I/O children; Misc objects are
// Misc children), and each NUMA node is imported the way hwloc 2 does: if
// its cpuset equals its parent's, it becomes a memory child of the parent
// and its own children are spliced into the parent's lists in its place;
// otherwise a Group (hwloc's memory kind) with the same cpuset takes its
// place, with the NUMA node as memory child and the NUMA node's children
// as its own (such groups often add no structure and go, see Shaping).
// The v1 "Cache" type is resolved from its depth and cache_type
// attributes.
//
// # Decisions where the specification is silent
//
// The filters are those of hwloc's cache:structure, icache:none and
// io:important, with Groups at hwloc's default (structure). The goldens
// show the cache and group rules; whether Fluxion keeps DMA devices (the
// difference between io:important and io:all) no golden shows: they only
// shift OS device logical indexes, i.e. storage ids and the ids of GPUs
// named without a number, and no corpus topology has a DMA device before
// such a device. Sizes are stored as unsigned 32-bit numbers (model.md
// §2): larger values wrap. Work is bounded by the object count and depth
// limits: levels are found with per-object sets of the types below (at
// most 43 distinct Group kinds a document), in time objects x levels.
//
// # Errors
//
// Every error is an *Error with a best-effort line number. The document
// must be well-formed XML whose root element is <topology> (version
// absent, 1.x or 2.x) with exactly one root <object>, and nothing but
// comments and white space after it. Objects need a known type attribute;
// v1 Cache objects need a depth (1-5, 1-3 for instruction caches); the
// attributes osdev_type, cache_size, depth and cache_type, when present,
// must be non-negative decimal integers, the Size info of a block device
// must be a non-negative decimal integer, and a document may have at most
// 43 distinct Group kinds. Unknown elements
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
