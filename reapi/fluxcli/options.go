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
	// LoadFormat is load_format. Without one, InitContext detects the
	// format from the document (see DetectLoadFormat) and records it here.
	LoadFormat      string
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
// Without a load_format member, LoadFormat is "" (InitContext detects it).
func parseOptions(text string) (Options, error) {
	o := DefaultOptions()
	o.LoadFormat = ""
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

// DetectLoadFormat guesses the load format of a graph document, as
// InitContext does when its options have no load_format: JSON is JGF (an
// RFC 20 R, an object with "execution" and no "graph", is rv1exec); XML is
// hwloc when its root element is <topology> and GRUG otherwise (GraphML);
// anything else is GRUG, Fluxion's default. An explicit load_format always
// wins.
func DetectLoadFormat(doc string) string {
	t := strings.TrimLeft(strings.TrimPrefix(doc, "\ufeff"), " \t\r\n")
	switch {
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		var top map[string]json.RawMessage
		if json.Unmarshal([]byte(t), &top) == nil {
			_, graph := top["graph"]
			_, exec := top["execution"]
			if exec && !graph {
				return "rv1exec"
			}
		}
		return "jgf"
	case strings.HasPrefix(t, "<"):
		if xmlRoot(t) == "topology" {
			return "hwloc"
		}
	}
	return DefaultLoadFormat
}

// xmlRoot returns the name of the first element of an XML document,
// skipping the declaration, comments, processing instructions and the
// document type.
func xmlRoot(t string) string {
	for {
		t = strings.TrimLeft(t, " \t\r\n")
		switch {
		case strings.HasPrefix(t, "<?"):
			i := strings.Index(t, "?>")
			if i < 0 {
				return ""
			}
			t = t[i+2:]
		case strings.HasPrefix(t, "<!--"):
			i := strings.Index(t, "-->")
			if i < 0 {
				return ""
			}
			t = t[i+3:]
		case strings.HasPrefix(t, "<!"):
			i := strings.IndexByte(t, '>')
			if i < 0 {
				return ""
			}
			t = t[i+1:]
		case strings.HasPrefix(t, "<"):
			end := strings.IndexAny(t[1:], " \t\r\n/>")
			if end < 0 {
				return t[1:]
			}
			name := t[1 : 1+end]
			if i := strings.IndexByte(name, ':'); i >= 0 {
				name = name[i+1:]
			}
			return name
		default:
			return ""
		}
	}
}
