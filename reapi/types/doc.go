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
// The package name (types), the type (MatchType), the constant names
// (MatchAllocate, MatchAllocateOrElseReserve,
// MatchAllocateWithSatisfiability, MatchSatisfiability) and String stay
// the same. This package adds MatchUnknown, MatchWithoutAllocating,
// MatchWithoutAllocatingFuture, Valid and ParseMatchType.
//
// The numeric values follow Fluxion's C enumeration match_op_t (0 is not
// an operation); code that only uses the named constants does not depend
// on them.
package types
