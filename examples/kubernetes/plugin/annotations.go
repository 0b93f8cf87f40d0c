// What the plugin writes on a pod at PreBind (its job id, R and end) and
// reads back at recovery.

package plugin

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Pod annotations written at PreBind: the pod's Fluxion job id, its R and,
// when the pod has a duration, the end of its booking (RFC 3339). They are
// the plugin's only persistent state.
const (
	AnnotationJobID = "gofluxion.io/jobid"
	AnnotationR     = "gofluxion.io/R"
	AnnotationEnd   = "gofluxion.io/end"
)

// annotated returns the job id and R a pod carries.
func annotated(p *v1.Pod) (uint64, string, bool) {
	js, ok1 := p.Annotations[AnnotationJobID]
	r, ok2 := p.Annotations[AnnotationR]
	if !ok1 || !ok2 {
		return 0, "", false
	}
	id, err := strconv.ParseUint(js, 10, 64)
	if err != nil || id == 0 || id >= resvBase {
		return 0, "", false
	}
	return id, decodeR(r), true
}

// annotatedEnd returns the end of a pod's booking (0: none).
func annotatedEnd(p *v1.Pod) int64 {
	if s, ok := p.Annotations[AnnotationEnd]; ok {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			return t.Unix()
		}
	}
	return 0
}

// Annotations returns what PreBind writes on a placed pod: its job id, its
// R (rendered now, outside the lock: see renderR) and its end.
func (c *Cluster) Annotations(uid types.UID) (map[string]string, error) {
	a, err := c.allocation(uid)
	if err != nil {
		return nil, err
	}
	r := renderR(&a.pl, a.labels, a.leaves, c.args.RFormat, a.start, a.end)
	ann := map[string]string{AnnotationJobID: strconv.FormatUint(a.job, 10), AnnotationR: encodeR(r)}
	if a.end != 0 {
		ann[AnnotationEnd] = endAnnotation(a.end)
	}
	return ann, nil
}

// AnnotationPatch returns the JSON merge patch PreBind sends: the
// annotations Annotations returns (annotationPatch(Annotations(uid)), byte
// for byte), the R rendered straight into it in reused buffers.
func (c *Cluster) AnnotationPatch(uid types.UID) ([]byte, error) {
	a, err := c.allocation(uid)
	if err != nil {
		return nil, err
	}
	w := rWriters.Get().(*rWriter)
	defer rWriters.Put(w)
	w.out = w.appendR(w.out[:0], &a.pl, a.labels, a.leaves, c.args.RFormat, a.start, a.end)
	r := w.out
	if len(r) > maxPlainR {
		r = []byte(encodeR(string(r)))
	}
	// the keys in order, as annotationPatch sorts them
	const head = `{"metadata":{"annotations":{"` + AnnotationR + `":`
	b := append(make([]byte, 0, len(head)), head...)
	b = appendJSONBytes(b, r, 96)
	if a.end != 0 {
		b = append(b, `,"`+AnnotationEnd+`":"`...)
		b = append(b, endAnnotation(a.end)...)
		b = append(b, '"')
	}
	b = append(b, `,"`+AnnotationJobID+`":"`...)
	b = strconv.AppendUint(b, a.job, 10)
	return append(b, `"}}}`...), nil
}

// rWriters are the render buffers of PreBinds (which run in parallel).
var rWriters = sync.Pool{New: func() any { return new(rWriter) }}

func endAnnotation(end int64) string { return time.Unix(end, 0).UTC().Format(time.RFC3339) }

// allocated is what a placed pod's annotations are made of.
type allocated struct {
	pl         place
	labels     map[string]string
	leaves     []leaf
	job        uint64
	start, end int64
}

func (c *Cluster) allocation(uid types.UID) (allocated, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ps := c.pods[uid]
	var ns *nodeState
	if ps != nil {
		ns = c.nodes[ps.node]
	}
	if ns == nil {
		return allocated{}, fmt.Errorf("pod %s has no allocation", uid)
	}
	// the node's place and labels are replaced, never changed, when it
	// moves; the pod's leaves never change
	return allocated{pl: ns.place, labels: ns.labels, leaves: ps.leaves, job: ps.job, start: ps.start, end: ps.end}, nil
}

const maxPlainR = 128 << 10

// encodeR / decodeR: Rs beyond 128 KiB are stored gzip+base64 (prefix
// "gz:"), keeping the pod's annotations well under their 256 KiB limit.
func encodeR(r string) string {
	if len(r) <= maxPlainR {
		return r
	}
	return "gz:" + gz(r)
}

func decodeR(s string) string {
	if rest, ok := strings.CutPrefix(s, "gz:"); ok {
		if r, err := gunzip(rest); err == nil {
			return r
		}
	}
	return s
}
