package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// PermitTimeoutSeconds bounds how long the placed members of a gang
	// wait at Permit for their siblings. Default 60.
	PermitTimeoutSeconds int `json:"permitTimeoutSeconds,omitempty"`
	// RFormat is the format of the R written on each pod: "jgf" (default)
	// or "rv1" (an RFC 20 R with the JGF as its scheduling key).
	RFormat string `json:"rFormat,omitempty"`
}

// Defaults.
const (
	DefaultPolicy       = "lonode"
	DefaultSubsystems   = "CA"
	DefaultPruneFilters = "ALL:core,ALL:gpu,ALL:memory,ALL:node"
	DefaultGroupLabel   = "gofluxion.io/group"
	DefaultMinMemberKey = "gofluxion.io/min-member"
	DefaultGPUResource  = "nvidia.com/gpu"
	DefaultMemoryChunk  = "1Gi"
	DefaultPermitWait   = 60
	DefaultRFormat      = "jgf"
)

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
	def(&a.RFormat, DefaultRFormat)
	if a.PermitTimeoutSeconds == 0 {
		a.PermitTimeoutSeconds = DefaultPermitWait
	}
}

// Validate checks defaulted Args. The Fluxion options (policy,
// subsystems, prune filters) are checked by building a matcher.
func (a *Args) Validate() error {
	var errs field.ErrorList
	root := field.NewPath("args")
	if _, err := gofluxion.New(emptyGraph(), a.matcherOptions()); err != nil {
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
	if a.PermitTimeoutSeconds < 1 || a.PermitTimeoutSeconds > 3600 {
		errs = append(errs, field.Invalid(root.Child("permitTimeoutSeconds"), a.PermitTimeoutSeconds, "must be between 1 and 3600"))
	}
	if a.RFormat != "jgf" && a.RFormat != "rv1" {
		errs = append(errs, field.NotSupported(root.Child("rFormat"), a.RFormat, []string{"jgf", "rv1"}))
	}
	return errs.ToAggregate()
}

func (a *Args) matcherOptions() gofluxion.Options {
	return gofluxion.Options{Policy: a.Policy, Subsystems: a.Subsystems, PruneFilters: a.PruneFilters}
}

func (a *Args) memoryChunk() int64 {
	q := resource.MustParse(a.MemoryChunk)
	return q.Value()
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
