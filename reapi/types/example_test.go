package types_test

import (
	"fmt"

	"github.com/gofluxion/gofluxion/reapi/types"
)

func ExampleMatchType_String() {
	for _, m := range []types.MatchType{types.MatchAllocate, types.MatchAllocateOrElseReserve, types.MatchSatisfiability, types.MatchUnknown} {
		fmt.Println(int(m), m)
	}
	// Output:
	// 1 allocate
	// 3 allocate or else reserve
	// 4 satisfiability
	// 0 unknown
}

func ExampleParseMatchType() {
	m, ok := types.ParseMatchType("allocate with satisfiability")
	fmt.Println(m == types.MatchAllocateWithSatisfiability, ok)
	// Output: true true
}
