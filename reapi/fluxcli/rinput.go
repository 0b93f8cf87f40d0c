package fluxcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gofluxion/gofluxion/emit"
	"github.com/gofluxion/gofluxion/jgf"
	"github.com/gofluxion/gofluxion/match"
	"github.com/gofluxion/gofluxion/rv1"
)

// rInput is an R as UpdateAllocate and PartialCancel apply it: the reader
// to use, the document to give it and the booking window.
type rInput struct {
	reader  string // "jgf", "jgf_shorthand" or "rv1exec"
	data    []byte
	at, dur int64
}

// jsonError returns jansson's message when data is not a JSON document as
// Fluxion's parser (json_loads) accepts it: an object or an array.
func jsonError(data string) (string, bool) {
	_, err := jgf.Parse([]byte(data))
	var je *jgf.Error
	if errors.As(err, &je) && je.Line > 0 {
		return strings.TrimPrefix(je.Reason, "invalid JSON: "), true
	}
	return "", false
}

// schedReader chooses the reader of a scheduling part from its "writer"
// member (api.md §4).
func schedReader(sched json.RawMessage) (string, error) {
	var s struct {
		Writer json.RawMessage `json:"writer"`
	}
	if json.Unmarshal(sched, &s) != nil || s.Writer == nil || string(s.Writer) == "null" {
		return "jgf", nil
	}
	var w string
	if json.Unmarshal(s.Writer, &w) != nil {
		return "", errors.New("unsupported scheduling.writer scheme (not fluxion)")
	}
	scheme, path, _ := strings.Cut(w, ":")
	switch {
	case scheme != "fluxion":
		return "", errors.New("unsupported scheduling.writer scheme (not fluxion)")
	case path == "" || path == "jgf":
		return "jgf", nil
	case path == "jgf_shorthand":
		return "jgf_shorthand", nil
	}
	return "", errors.New("unsupported fluxion scheduling.writer format")
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// classifyUpdate decides how UpdateAllocate reads R (api.md §4). On
// failure it returns the errno, the message to accumulate and the cause.
func classifyUpdate(R, loadFormat string) (in *rInput, errno match.Errno, msg string, cause error) {
	const prefix = "update_allocate: ERROR: "
	if text, bad := jsonError(R); bad {
		return nil, match.EINVAL, prefix + "failed to parse R string\n", errors.New("failed to parse R string: " + text)
	}
	in = &rInput{data: []byte(R), dur: match.GraphEnd}
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(R), &top) == nil && isEnvelope(top) {
		var ex map[string]json.RawMessage
		_ = json.Unmarshal(top["execution"], &ex)
		start, end := number(ex["starttime"]), number(ex["expiration"])
		in.at = start
		if end-start > 0 {
			in.dur = end - start
		}
		if sched, ok := top["scheduling"]; ok {
			r, err := schedReader(sched)
			if err != nil {
				return nil, match.EINVAL, prefix + err.Error() + "\n", err
			}
			in.reader, in.data = r, compact(sched)
			return in, 0, "", nil
		}
		in.reader = "rv1exec"
		return in, 0, "", nil
	}
	switch {
	case loadFormat == "jgf_shorthand":
		in.reader = loadFormat
	case loadFormat == "jgf" || isBareJGF(top):
		// Older Fluxion read a bare JGF R whatever the load format.
		in.reader = "jgf"
	case loadFormat == "rv1exec" || loadFormat == "rv1exec_force":
		in.reader = "rv1exec"
	default:
		err := fmt.Errorf("the %s reader cannot read an R", loadFormat)
		return nil, match.ENOTSUP, prefix + "update not supported by the " + loadFormat + " reader\n", err
	}
	return in, 0, "", nil
}

// isEnvelope reports whether a document is an RFC 20 R: version 1 and an
// execution object.
func isEnvelope(top map[string]json.RawMessage) bool {
	v := bytes.TrimSpace(top["version"])
	ex := bytes.TrimSpace(top["execution"])
	return string(v) == "1" && len(ex) > 0 && ex[0] == '{'
}

// number returns a JSON number truncated to an integer (0 for anything
// else).
func number(raw json.RawMessage) int64 {
	var f float64
	if raw == nil || json.Unmarshal(raw, &f) != nil {
		return 0
	}
	return int64(f)
}

// classifyPartial decides how PartialCancel reads R (api.md §6).
func classifyPartial(R string) (in *rInput, errno match.Errno, msg string, cause error) {
	const prefix = "remove_job: ERROR: "
	if text, bad := jsonError(R); bad {
		return nil, match.EINVAL, prefix + "failed to parse R as JSON: " + text + "\n", errors.New("failed to parse R as JSON: " + text)
	}
	in = &rInput{reader: "rv1exec", data: []byte(R)}
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(R), &top) == nil {
		if isBareJGF(top) {
			// Older Fluxion read a bare JGF R; today's reads rv1exec and
			// fails.
			in.reader = "jgf"
		}
		if sched, ok := top["scheduling"]; ok {
			r, err := schedReader(sched)
			if err != nil {
				return nil, match.EINVAL, prefix + err.Error() + "\n", err
			}
			in.reader, in.data = r, compact(sched)
		}
	}
	return in, 0, "", nil
}

// update applies the R as job id (traversal.md §15).
func (in *rInput) update(m *match.Matcher, id uint64, w emit.Writer) error {
	if in.reader == "rv1exec" {
		r, err := rv1.ParseR(in.data)
		if err != nil {
			return err
		}
		return m.UpdateRV1Exec(r, id, in.at, in.dur, w)
	}
	doc, err := jgf.Parse(in.data)
	if err != nil {
		return err
	}
	return m.UpdateJGF(doc, in.reader == "jgf_shorthand", id, in.at, in.dur, w)
}

// partialCancel releases what the R lists from job id (traversal.md
// §14.2).
func (in *rInput) partialCancel(m *match.Matcher, id uint64) (bool, error) {
	if in.reader == "rv1exec" {
		r, err := rv1.ParseR(in.data)
		if err != nil {
			return false, err
		}
		return m.PartialCancel(id, r.Ranks())
	}
	doc, err := jgf.Parse(in.data)
	if err != nil {
		return false, err
	}
	return m.PartialCancelJGF(id, doc)
}

// isBareJGF reports whether an R is a JGF document itself (a "graph"
// object, no RFC 20 "execution" part).
func isBareJGF(top map[string]json.RawMessage) bool {
	g := bytes.TrimSpace(top["graph"])
	_, exec := top["execution"]
	return len(g) > 0 && g[0] == '{' && !exec
}
