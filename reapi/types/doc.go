// Package types is gofluxion's drop-in replacement for fluxion-go's
// github.com/flux-framework/fluxion-go/pkg/types: the MatchType of
// fluxcli.ReapiClient.Match.
//
// To switch from fluxion-go, change the import path
//
//	"github.com/flux-framework/fluxion-go/pkg/types"
//
// to
//
//	"github.com/gofluxion/gofluxion/reapi/types"
//
// The package name (types), the type (MatchType), the constants
// (MatchUnknown 0, MatchAllocate 1, MatchAllocateWithSatisfiability 2,
// MatchAllocateOrElseReserve 3, MatchSatisfiability 4) and String's
// texts ("unknown", "allocate", "allocate with satisfiability",
// "allocate or else reserve", "satisfiability") are fluxion-go's. This
// package adds MatchWithoutAllocating, MatchWithoutAllocatingFuture,
// Valid and ParseMatchType.
//
// The numeric values follow Fluxion's C enumeration match_op_t (0 is not
// an operation); code that only uses the named constants does not depend
// on them.
package types
