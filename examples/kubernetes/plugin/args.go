package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/gofluxion/gofluxion"
)

// Args are the plugin's arguments, given in a KubeSchedulerConfiguration
// under pluginConfig (name: GoFluxion). Every field is optional.
type Args struct {
	// Policy is a Fluxion match policy (first, high, low, hinode, lonode,
	// hinodex, lonodex, firstnodex, locality, variation, or a policy
	// string such as "policy=low node_centric=true"). Default "lonode".
	Policy string `json:"policy,omitempty"`
	// Subsystems are the subsystems matched. The graph has only
	// containment, so "CA" (the default) is the only useful value.
	Subsystems string `json:"subsystems,omitempty"`
	// PruneFilters are Fluxion pruning filters. Default
	// "ALL:core,ALL:gpu,ALL:memory,ALL:node".
	PruneFilters string `json:"pruneFilters,omitempty"`
	// GroupLabel is the pod label whose value names a gang (pods of one
	// namespace with the same value are placed together). Default
	// "gofluxion.io/group".
	GroupLabel string `json:"groupLabel,omitempty"`
	// MinMemberKey is the pod label or annotation giving the gang's
	// minimum size. Default "gofluxion.io/min-member".
	MinMemberKey string `json:"minMemberKey,omitempty"`
	// GPUResource is the extended resource counted as gpu vertices.
	// Default "nvidia.com/gpu".
	GPUResource string `json:"gpuResource,omitempty"`
	// MemoryChunk is the size of one memory vertex. Requests are rounded
	// up to whole chunks, allocatable down. Default "1Gi".
	MemoryChunk string `json:"memoryChunk,omitempty"`
	// CPUChunk is the CPU one core vertex stands for. Requests are
	// rounded up to whole chunks, allocatable down. Default "1" (a
	// core); "100m" packs pods of 100m ten to a core, as NodeResourcesFit
	// does (see the README, "Fractional CPU").
	CPUChunk string `json:"cpuChunk,omitempty"`
	// PermitTimeoutSeconds bounds how long the placed members of a gang
	// wait at Permit for their siblings. Default 60.
	PermitTimeoutSeconds int `json:"permitTimeoutSeconds,omitempty"`
	// RFormat is the format of the R written on each pod: "jgf" (default)
	// or "rv1" (an RFC 20 R with the JGF as its scheduling key).
	RFormat string `json:"rFormat,omitempty"`
	// Topology lists the levels of the graph between the cluster and the
	// nodes, from node labels. Default: one level, zone, from
	// topology.kubernetes.io/zone.
	Topology *Topology `json:"topology,omitempty"`
	// NUMA is where NUMA zones come from: "nrt" (default) reads the
	// NodeResourceTopology objects (topology.node.k8s.io/v1alpha2) of the
	// nodes, "none" ignores them.
	NUMA string `json:"numa,omitempty"`
	// DefaultWalltimeSeconds is the duration booked for a pod that has no
	// activeDeadlineSeconds and no gofluxion.io/walltime. 0 (the default)
	// books it until it ends: it never backfills before a reservation.
	DefaultWalltimeSeconds int64 `json:"defaultWalltimeSeconds,omitempty"`
	// ReservationDepth is how many waiting gangs hold a reservation at
	// once, in queue order (priority, then age). Default 1: EASY backfill.
	// -1 turns reservations off.
	ReservationDepth int `json:"reservationDepth,omitempty"`
	// FeatureLabelPrefixes: a node label whose key starts with one of
	// these (and a topology level's label) also becomes the property
	// "key=value" of the node's vertex, so that an RFC 31 constraint
	// (gofluxion.io/constraint) can ask for a value; every label is a
	// property "key" anyway. Default [feature.node.kubernetes.io/] (Node
	// Feature Discovery); an empty list: none.
	FeatureLabelPrefixes []string `json:"featureLabelPrefixes,omitempty"`
	// Matcher, when set, makes the plugin use the gofluxion matcher
	// service (gofluxiond) instead of a matcher in the scheduler's
	// process. Policy, Subsystems and PruneFilters are then gofluxiond's
	// flags.
	Matcher *MatcherArgs `json:"matcher,omitempty"`
}

// MatcherArgs configure a remote matcher.
type MatcherArgs struct {
	// Address is gofluxiond's gRPC address (host:port), or the addresses
	// of a replicated service's replicas, comma separated.
	Address string `json:"address"`
	// TimeoutSeconds bounds each call, retries on another replica
	// included. Default 30.
	TimeoutSeconds int `json:"timeoutSeconds,omitempty"`
}

// Topology is the ordered list of levels, outermost first.
type Topology struct {
	Levels []Level `json:"levels"`
}

// Level is one level of the graph: vertices of type Type, one per value of
// the node label Label.
type Level struct {
	Type  string `json:"type"`
	Label string `json:"label"`
}

// Defaults.
const (
	DefaultPolicy        = "lonode"
	DefaultSubsystems    = "CA"
	DefaultPruneFilters  = "ALL:core,ALL:gpu,ALL:memory,ALL:node"
	DefaultGroupLabel    = "gofluxion.io/group"
	DefaultMinMemberKey  = "gofluxion.io/min-member"
	DefaultGPUResource   = "nvidia.com/gpu"
	DefaultMemoryChunk   = "1Gi"
	DefaultCPUChunk      = "1"
	DefaultPermitWait    = 60
	DefaultRFormat       = "jgf"
	DefaultNUMA          = "nrt"
	DefaultZoneLabel     = "topology.kubernetes.io/zone"
	DefaultDepth         = 1
	DefaultFeaturePrefix = "feature.node.kubernetes.io/"
	// MaxFeaturePrefixes bounds FeatureLabelPrefixes.
	MaxFeaturePrefixes = 32
	// MaxLevels bounds the topology levels.
	MaxLevels = 8
	// MaxWalltimeSeconds bounds every duration (ten years).
	MaxWalltimeSeconds = 10 * 365 * 24 * 3600
	// DefaultMatcherTimeout is a remote matcher's call timeout (seconds).
	DefaultMatcherTimeout = 30
	// MaxMatcherAddresses bounds a remote matcher's replicas.
	MaxMatcherAddresses = 16
)

// reservedTypes are vertex types the graph uses itself.
var reservedTypes = []string{"cluster", "node", "numa", "slot", "core", "gpu", "memory", unlabelledType}

// SetDefaults fills the empty fields.
func (a *Args) SetDefaults() {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&a.Policy, DefaultPolicy)
	def(&a.Subsystems, DefaultSubsystems)
	def(&a.PruneFilters, DefaultPruneFilters)
	def(&a.GroupLabel, DefaultGroupLabel)
	def(&a.MinMemberKey, DefaultMinMemberKey)
	def(&a.GPUResource, DefaultGPUResource)
	def(&a.MemoryChunk, DefaultMemoryChunk)
	def(&a.CPUChunk, DefaultCPUChunk)
	def(&a.RFormat, DefaultRFormat)
	def(&a.NUMA, DefaultNUMA)
	if a.PermitTimeoutSeconds == 0 {
		a.PermitTimeoutSeconds = DefaultPermitWait
	}
	if a.Topology == nil {
		a.Topology = &Topology{Levels: []Level{{Type: "zone", Label: DefaultZoneLabel}}}
	}
	if a.ReservationDepth == 0 {
		a.ReservationDepth = DefaultDepth
	}
	if a.FeatureLabelPrefixes == nil {
		a.FeatureLabelPrefixes = []string{DefaultFeaturePrefix}
	}
	if a.Matcher != nil && a.Matcher.TimeoutSeconds == 0 {
		a.Matcher.TimeoutSeconds = DefaultMatcherTimeout
	}
}

// Validate checks defaulted Args. The Fluxion options (policy,
// subsystems, prune filters) are checked by building a matcher.
func (a *Args) Validate() error {
	var errs field.ErrorList
	root := field.NewPath("args")
	if _, err := newLocalMatcher(a); err != nil {
		errs = append(errs, field.Invalid(root.Child("policy/subsystems/pruneFilters"),
			fmt.Sprintf("%s / %s / %s", a.Policy, a.Subsystems, a.PruneFilters), err.Error()))
	}
	for name, v := range map[string]string{"groupLabel": a.GroupLabel, "minMemberKey": a.MinMemberKey, "gpuResource": a.GPUResource} {
		for _, msg := range validation.IsQualifiedName(v) {
			errs = append(errs, field.Invalid(root.Child(name), v, msg))
		}
	}
	if q, err := resource.ParseQuantity(a.MemoryChunk); err != nil {
		errs = append(errs, field.Invalid(root.Child("memoryChunk"), a.MemoryChunk, err.Error()))
	} else if q.Value() < 1<<20 {
		errs = append(errs, field.Invalid(root.Child("memoryChunk"), a.MemoryChunk, "must be at least 1Mi"))
	}
	if q, err := resource.ParseQuantity(a.CPUChunk); err != nil {
		errs = append(errs, field.Invalid(root.Child("cpuChunk"), a.CPUChunk, err.Error()))
	} else if m := q.MilliValue(); m < 1 || m > 1000 || 1000%m != 0 {
		errs = append(errs, field.Invalid(root.Child("cpuChunk"), a.CPUChunk, "must divide 1 (one core): 1m to 1"))
	}
	if a.PermitTimeoutSeconds < 1 || a.PermitTimeoutSeconds > 3600 {
		errs = append(errs, field.Invalid(root.Child("permitTimeoutSeconds"), a.PermitTimeoutSeconds, "must be between 1 and 3600"))
	}
	if a.RFormat != "jgf" && a.RFormat != "rv1" {
		errs = append(errs, field.NotSupported(root.Child("rFormat"), a.RFormat, []string{"jgf", "rv1"}))
	}
	if a.NUMA != "nrt" && a.NUMA != "none" {
		errs = append(errs, field.NotSupported(root.Child("numa"), a.NUMA, []string{"nrt", "none"}))
	}
	if a.DefaultWalltimeSeconds < 0 || a.DefaultWalltimeSeconds > MaxWalltimeSeconds {
		errs = append(errs, field.Invalid(root.Child("defaultWalltimeSeconds"), a.DefaultWalltimeSeconds, fmt.Sprintf("must be between 0 and %d", MaxWalltimeSeconds)))
	}
	if a.ReservationDepth < -1 || a.ReservationDepth > 100 {
		errs = append(errs, field.Invalid(root.Child("reservationDepth"), a.ReservationDepth, "must be -1 (off) or between 1 and 100"))
	}
	if len(a.FeatureLabelPrefixes) > MaxFeaturePrefixes {
		errs = append(errs, field.TooMany(root.Child("featureLabelPrefixes"), len(a.FeatureLabelPrefixes), MaxFeaturePrefixes))
	}
	for i, p := range a.FeatureLabelPrefixes {
		if p == "" || len(p) > 253 || strings.ContainsAny(p, invalidPropChars+"= ") {
			errs = append(errs, field.Invalid(root.Child("featureLabelPrefixes").Index(i), p, "must be a non-empty label key prefix of at most 253 characters"))
		}
	}
	errs = append(errs, a.Topology.validate(root.Child("topology", "levels"))...)
	errs = append(errs, a.Matcher.validate(root.Child("matcher"))...)
	return errs.ToAggregate()
}

// validate checks a remote matcher's addresses (host:port, a port number)
// and timeout; nil is the in-process matcher.
func (m *MatcherArgs) validate(p *field.Path) field.ErrorList {
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	addrs := m.addresses()
	switch {
	case len(addrs) == 0:
		errs = append(errs, field.Required(p.Child("address"), "gofluxiond's host:port"))
	case len(addrs) > MaxMatcherAddresses:
		errs = append(errs, field.TooMany(p.Child("address"), len(addrs), MaxMatcherAddresses))
	}
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(a)
		if err == nil && host == "" {
			err = errors.New("no host")
		}
		if err == nil {
			if n, perr := strconv.Atoi(port); perr != nil || n < 1 || n > 65535 {
				err = fmt.Errorf("port %q is not a number between 1 and 65535", port)
			}
		}
		if err != nil {
			errs = append(errs, field.Invalid(p.Child("address"), a, "must be host:port: "+err.Error()))
		}
	}
	if m.TimeoutSeconds < 1 || m.TimeoutSeconds > 3600 {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), m.TimeoutSeconds, "must be between 1 and 3600"))
	}
	return errs
}

func (a *Args) matcherOptions() gofluxion.Options {
	return gofluxion.Options{Policy: a.Policy, Subsystems: a.Subsystems, PruneFilters: a.PruneFilters}
}

// chunks is what one core and one memory vertex stand for.
func (a *Args) chunks() chunks {
	m, c := resource.MustParse(a.MemoryChunk), resource.MustParse(a.CPUChunk)
	return chunks{MilliCPU: c.MilliValue(), Bytes: m.Value()}
}

func (a *Args) permitTimeout() time.Duration {
	return time.Duration(a.PermitTimeoutSeconds) * time.Second
}

// DecodeArgs decodes, defaults and validates the plugin's configuration
// object (nil means all defaults).
func DecodeArgs(obj runtime.Object) (*Args, error) {
	a := &Args{}
	if obj != nil {
		u, ok := obj.(*runtime.Unknown)
		if !ok {
			return nil, fmt.Errorf("%s args: want runtime.Unknown, got %T", Name, obj)
		}
		if len(u.Raw) > 0 {
			var err error
			switch u.ContentType {
			case runtime.ContentTypeJSON, "":
				dec := json.NewDecoder(bytes.NewReader(u.Raw))
				dec.DisallowUnknownFields()
				err = dec.Decode(a)
			case runtime.ContentTypeYAML:
				err = yaml.UnmarshalStrict(u.Raw, a)
			default:
				err = fmt.Errorf("unsupported content type %q", u.ContentType)
			}
			if err != nil {
				return nil, fmt.Errorf("%s args: %w", Name, err)
			}
		}
	}
	a.SetDefaults()
	a.Policy = strings.TrimSpace(a.Policy)
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("%s args: %w", Name, err)
	}
	return a, nil
}

// validate checks the levels: at most MaxLevels, each a lower-case type
// name the graph does not use itself and a label key, none repeated.
func (t *Topology) validate(p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t == nil {
		return nil
	}
	if len(t.Levels) > MaxLevels {
		errs = append(errs, field.TooMany(p, len(t.Levels), MaxLevels))
	}
	types, labels := map[string]bool{}, map[string]bool{}
	for i, l := range t.Levels {
		lp := p.Index(i)
		switch {
		case l.Type == "":
			errs = append(errs, field.Required(lp.Child("type"), "a vertex type such as rack"))
		case slices.Contains(reservedTypes, l.Type):
			errs = append(errs, field.Invalid(lp.Child("type"), l.Type, "the graph uses this type itself"))
		case len(validation.IsDNS1035Label(l.Type)) > 0:
			errs = append(errs, field.Invalid(lp.Child("type"), l.Type, "must be a lower-case name (a DNS-1035 label) such as rack"))
		case types[l.Type]:
			errs = append(errs, field.Duplicate(lp.Child("type"), l.Type))
		}
		types[l.Type] = true
		if l.Label == "" {
			errs = append(errs, field.Required(lp.Child("label"), "a node label key such as topology.gofluxion.io/rack"))
		} else {
			for _, msg := range validation.IsQualifiedName(l.Label) {
				errs = append(errs, field.Invalid(lp.Child("label"), l.Label, msg))
			}
			if labels[l.Label] {
				errs = append(errs, field.Duplicate(lp.Child("label"), l.Label))
			}
			labels[l.Label] = true
		}
	}
	return errs
}

// levelIndex returns the index of a level type, or -1.
func (a *Args) levelIndex(typ string) int {
	return slices.IndexFunc(a.Topology.Levels, func(l Level) bool { return l.Type == typ })
}

func (a *Args) levelTypes() []string {
	var out []string
	for _, l := range a.Topology.Levels {
		out = append(out, l.Type)
	}
	return out
}
