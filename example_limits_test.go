package gofluxion_test

import (
	"errors"
	"fmt"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/grug"
)

// A 5 KB recipe can ask for a huge graph: it is refused before anything
// is allocated.
func ExampleLimits_ReadGraph() {
	recipe := grug.Cluster("big", 64, 1000000) // 64 nodes of 10^6 cores
	_, err := gofluxion.ReadGraph(gofluxion.FormatGRUG, recipe, "")
	fmt.Println(errors.Is(err, gofluxion.ErrLimit))
	fmt.Println(err)

	// A smaller limit, for a service that loads graphs its users send.
	lim := gofluxion.Limits{MaxVertices: 1000}
	_, err = lim.ReadGraph(gofluxion.FormatGRUG, grug.Cluster("c", 10, 100), "")
	fmt.Println(err)
	g, err := lim.ReadGraph(gofluxion.FormatGRUG, grug.Cluster("c", 10, 98), "")
	fmt.Println(g.NumVertices(), err)
	// Output:
	// true
	// gofluxion: read graph: grug: line 37: generating 64 x 1000000 vertices exceeds the reader's limit of 8388608 vertices (Limits.MaxVertices)
	// gofluxion: read graph: grug: line 37: generating 10 x 100 vertices exceeds the reader's limit of 1000 vertices (Limits.MaxVertices)
	// 991 <nil>
}

// Rank sets are never expanded beyond the graph's ranks; a set naming more
// ranks than a graph can have is refused.
func ExampleLimits_rankSets() {
	m, _ := gofluxion.New(gofluxion.DemoGraph(), gofluxion.Options{})
	fmt.Println(m.SetRankStatus("6-1000000", false)) // ranks 8-1000000 are ignored
	up, _ := m.RankStatus(7)
	fmt.Println(up)
	fmt.Println(m.SetRankStatus("0-9223372036854775805", false))
	fmt.Println(m.RemoveRanks("7-8"))
	// Output:
	// <nil>
	// false
	// gofluxion: set rank status: rank set 0-9223372036854775805 names 9223372036854775806 ranks, more than Limits.MaxRankSet (8388608)
	// gofluxion: remove ranks: the graph has no rank 8
}
