package fluxcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/gofluxion/gofluxion/match"
)

// Defaults of InitContext's options (api.md §1).
const (
	DefaultLoadFormat      = "grug"
	DefaultMatcherName     = match.DefaultSubsystems   // "CA"
	DefaultMatcherPolicy   = match.DefaultPolicy       // "first"
	DefaultTraverserPolicy = "simple"                  // or "flexible"
	DefaultMatchFormat     = "jgf"                     // resource-query's default is "simple"
	DefaultPruneFilters    = match.DefaultPruneFilters // "ALL:core,ALL:node"
)

// Options are the parameters of a context, decoded from InitContext's
// options JSON object. Options returns the ones a client was initialized
// with.
type Options struct {
	LoadFormat      string // load_format (default "grug")
	LoadAllowlist   string // load_allowlist (default "")
	MatcherName     string // matcher_name (default "CA")
	MatcherPolicy   string // matcher_policy (default "first")
	TraverserPolicy string // traverser_policy (default "simple")
	// MatchFormat is match_format (default "jgf"). An unknown name falls
	// back to "simple" (Fluxion's writer factory does so); the value here
	// is the requested one and EffectiveMatchFormat the one in use.
	MatchFormat string
	// EffectiveMatchFormat is the writer actually used.
	EffectiveMatchFormat string
	// PruneFilters is prune_filters (default "ALL:core,ALL:node"; "" installs
	// no configured filters).
	PruneFilters  string
	ReserveVtxVec int64 // reserve_vtx_vec: capacity hint, no effect (default 0)
	ElapseTime    bool  // elapse_time: only used by resource-query (default false)
}

// DefaultOptions returns the options "{}" selects.
func DefaultOptions() Options {
	return Options{
		LoadFormat:           DefaultLoadFormat,
		MatcherName:          DefaultMatcherName,
		MatcherPolicy:        DefaultMatcherPolicy,
		TraverserPolicy:      DefaultTraverserPolicy,
		MatchFormat:          DefaultMatchFormat,
		EffectiveMatchFormat: DefaultMatchFormat,
		PruneFilters:         DefaultPruneFilters,
	}
}

var errBadOptions = errors.New("can't set resource graph parameters")

// parseOptions decodes InitContext's options: a JSON object whose
// recognized members are strings, except reserve_vtx_vec (an integer) and
// elapse_time (a boolean). Other members are ignored. Any other text, or a
// recognized member of the wrong JSON type (null included), is an error.
func parseOptions(text string) (Options, error) {
	o := DefaultOptions()
	var top map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&top); err != nil || top == nil {
		return o, errBadOptions
	}
	if strings.Trim(text[dec.InputOffset():], " \t\r\n") != "" {
		return o, errBadOptions // trailing data after the object
	}
	strs := []struct {
		key string
		dst *string
	}{
		{"load_format", &o.LoadFormat},
		{"load_allowlist", &o.LoadAllowlist},
		{"matcher_name", &o.MatcherName},
		{"matcher_policy", &o.MatcherPolicy},
		{"traverser_policy", &o.TraverserPolicy},
		{"match_format", &o.MatchFormat},
		{"prune_filters", &o.PruneFilters},
	}
	for _, s := range strs {
		raw, ok := top[s.key]
		if !ok {
			continue
		}
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, s.dst) != nil {
			return o, errBadOptions
		}
	}
	if raw, ok := top["reserve_vtx_vec"]; ok {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || bytes.ContainsAny(raw, ".eE\"") || json.Unmarshal(raw, &o.ReserveVtxVec) != nil {
			return o, errBadOptions
		}
	}
	if raw, ok := top["elapse_time"]; ok {
		switch string(bytes.TrimSpace(raw)) {
		case "true":
			o.ElapseTime = true
		case "false":
			o.ElapseTime = false
		default:
			return o, errBadOptions
		}
	}
	o.EffectiveMatchFormat = o.MatchFormat
	if !knownMatchFormat(o.MatchFormat) {
		o.EffectiveMatchFormat = "simple"
	}
	return o, nil
}

var matchFormats = []string{"simple", "pretty_simple", "jgf", "jgf_shorthand", "rlite", "rv1", "rv1_nosched", "rv1_shorthand"}

func knownMatchFormat(f string) bool {
	for _, x := range matchFormats {
		if x == f {
			return true
		}
	}
	return false
}
