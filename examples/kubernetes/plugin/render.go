package plugin

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/gofluxion/gofluxion/internal/jsonw"
	"github.com/gofluxion/gofluxion/match"
)

// The R written on a pod is rendered here, not by the matcher: a gang is
// booked by its match as one Fluxion job, so no per-pod allocation exists
// to render, and rendering at PreBind keeps it off the scheduling cycle.
// The text is what gofluxion renders for the allocation of an update from
// the pod's JGF (bookJGF) in the jgf or rv1 format, byte for byte
// (TestRenderRMatchesGofluxion compares them), so the R reads the same
// whichever way the pod was booked, and update books it again after a
// restart.

// rWindowEnd is the expiration an R without an end carries: an update from
// a bare JGF books the graph's whole window.
const rWindowEnd = match.GraphEnd

// renderR renders the R of a pod holding leaves on the node at place p
// (labels: the node's labels, its vertex's properties) in format (jgf or
// rv1), for the window [start, end) (end 0: none, the whole window).
func renderR(p *place, labels map[string]string, leaves []leaf, format string, start, end int64) string {
	if end == 0 {
		start, end = 0, rWindowEnd
	}
	byGraph := func(a, b leaf) int {
		if c := cmp.Compare(slices.Index(leafTypes, a.Type), slices.Index(leafTypes, b.Type)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	ls := leaves
	if !slices.IsSortedFunc(ls, byGraph) {
		ls = slices.Clone(leaves)
		slices.SortFunc(ls, byGraph)
	}
	// about 200 bytes a vertex, 60 an edge
	n := len(ls) + len(p.levels) + 4
	w := rWriter{b: make([]byte, 0, 200*n+64), edges: make([]byte, 0, 60*n)}
	w.jgf(p, labels, ls)
	if format != "rv1" {
		w.b = append(w.b, '\n')
		return string(w.b)
	}
	var cores, gpus []int64
	for _, l := range ls {
		switch l.Type {
		case "core":
			cores = append(cores, l.ID)
		case "gpu":
			gpus = append(gpus, l.ID)
		}
	}
	sid := strconv.FormatInt(p.sid, 10)
	e := rWriter{b: make([]byte, 0, len(w.b)+256)}
	e.raw(`{"version": 1, "execution": {"R_lite": [`)
	if len(cores) > 0 || len(gpus) > 0 {
		e.raw(`{"rank": `)
		e.str(sid)
		e.raw(`, "children": {`)
		if len(cores) > 0 {
			e.raw(`"core": `)
			e.str(idset(cores))
		}
		if len(gpus) > 0 {
			if len(cores) > 0 {
				e.raw(", ")
			}
			e.raw(`"gpu": `)
			e.str(idset(gpus))
		}
		e.raw("}}")
	}
	e.raw(`], "nodelist": [`)
	// Without a core or gpu there is no R_lite entry: gofluxion then lists
	// no node and no property either (the scheduling part has it all).
	execution := len(cores) > 0 || len(gpus) > 0
	if execution {
		e.str(p.name)
	}
	e.raw("]")
	if props := nodeProps(p, labels); execution && len(props) > 0 {
		e.raw(`, "properties": {`)
		keys := make([]string, len(props))
		for i, kv := range props {
			keys[i] = kv[0]
			if kv[1] != "" {
				keys[i] += "=" + kv[1]
			}
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				e.raw(", ")
			}
			e.str(k)
			e.raw(": ")
			e.str(sid)
		}
		e.raw("}")
	}
	e.raw(`, "starttime": `)
	e.int(start)
	e.raw(`, "expiration": `)
	e.int(end)
	e.raw(`}, "scheduling": `)
	e.b = append(e.b, w.b...)
	e.raw("}\n")
	return string(e.b)
}

// nodeProps lists the properties of a node's vertex (its labels and, with
// NodeResourceTopology zones, nrtProperty) in key order, as attached.
func nodeProps(p *place, labels map[string]string) [][2]string {
	var out [][2]string
	for k, v := range labels {
		out = append(out, [2]string{k, v})
	}
	if p.nrt {
		if _, ok := labels[nrtProperty]; !ok {
			out = append(out, [2]string{nrtProperty, "true"})
		} else {
			for i := range out {
				if out[i][0] == nrtProperty {
					out[i][1] = "true"
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return cmp.Compare(a[0], b[0]) })
	return out
}

// rWriter appends JSON as gofluxion writes it (jansson's compact form with
// ", " and ": " separators).
type rWriter struct {
	b     []byte
	edges []byte
}

func (w *rWriter) raw(s string) { w.b = append(w.b, s...) }
func (w *rWriter) int(n int64)  { w.b = strconv.AppendInt(w.b, n, 10) }
func (w *rWriter) str(s string) { w.b = appendJSONString(w.b, s) }

// jgf writes the JGF: the vertices in post-order (each zone's leaves, then
// the zone; the node; the levels, innermost first; the cluster), each edge
// as its target is written.
func (w *rWriter) jgf(p *place, labels map[string]string, leaves []leaf) {
	w.raw(`{"graph": {"nodes": [`)
	nodeU := p.sid << 24
	first := true
	for z := range p.zones {
		in := false
		for _, l := range leaves {
			if p.zoneOf(l.Type, l.ID) != z {
				continue
			}
			in = true
			u := leafUniq(p.sid, l.Type, l.ID)
			w.vertex(&first, u, l.Type, "", l.ID, p.sid, nil, true, p.path, "/numa", z, l.Type, l.ID)
			w.edge(zoneUniq(p.sid, z), u)
		}
		if in {
			w.vertex(&first, zoneUniq(p.sid, z), "numa", "", int64(z), p.sid, nil, false, p.path, "/numa", z, "", -1)
			w.edge(nodeU, zoneUniq(p.sid, z))
		}
	}
	parent := int64(0)
	if len(p.levels) > 0 {
		parent = p.levels[len(p.levels)-1].uniq
	}
	w.vertex(&first, nodeU, "node", p.name, p.sid, p.sid, nodeProps(p, labels), false, p.path, "", -1, "", -1)
	w.edge(parent, nodeU)
	for i := len(p.levels) - 1; i >= 0; i-- {
		lv := p.levels[i]
		w.vertex(&first, lv.uniq, lv.typ, lv.name, lv.uniq&levelMask, -1, nil, false, lv.path, "", -1, "", -1)
		parent = 0
		if i > 0 {
			parent = p.levels[i-1].uniq
		}
		w.edge(parent, lv.uniq)
	}
	w.vertex(&first, 0, "cluster", clusterName, 0, -1, nil, false, clusterPath, "", -1, "", -1)
	w.raw(`], "edges": [`)
	w.b = append(w.b, w.edges...)
	w.raw("]}}")
}

// vertex writes one JGF node; the name only when it is not the type
// followed by the id (the basename is always the type here). Its path is
// path, then, when zone >= 0, the zone's name (zoneSep and the zone), then,
// when leafID >= 0, "/" and the leaf's name: built in place.
func (w *rWriter) vertex(first *bool, uniq int64, typ, name string, id, rank int64, props [][2]string, excl bool,
	path, zoneSep string, zone int, leafType string, leafID int64) {
	if !*first {
		w.raw(", ")
	}
	*first = false
	w.raw(`{"id": "`)
	w.int(uniq)
	w.raw(`", "metadata": {"type": `)
	w.str(typ)
	if name != "" && !isTypeAndID(name, typ, id) {
		w.raw(`, "name": `)
		w.str(name)
	}
	w.raw(`, "id": `)
	w.int(id)
	w.raw(`, "rank": `)
	w.int(rank)
	if len(props) > 0 {
		w.raw(`, "properties": {`)
		for i, kv := range props {
			if i > 0 {
				w.raw(", ")
			}
			w.str(kv[0])
			w.raw(": ")
			w.str(kv[1])
		}
		w.raw("}")
	}
	if excl {
		w.raw(`, "exclusive": true`)
	}
	w.raw(`, "paths": {"containment": `)
	w.b = appendJSONString(w.b, path)
	if zone >= 0 {
		w.b = w.b[:len(w.b)-1] // reopen the string: the rest needs no escaping
		w.raw(zoneSep)
		w.int(int64(zone))
		if leafID >= 0 {
			w.raw("/")
			w.raw(leafType)
			w.int(leafID)
		}
		w.raw(`"`)
	}
	w.raw("}}}")
}

// isTypeAndID reports whether name is typ followed by id in decimal.
func isTypeAndID(name, typ string, id int64) bool {
	rest, ok := strings.CutPrefix(name, typ)
	if !ok || rest == "" {
		return false
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	return err == nil && n == id && strconv.FormatInt(n, 10) == rest
}

func (w *rWriter) edge(src, dst int64) {
	if len(w.edges) > 0 {
		w.edges = append(w.edges, ", "...)
	}
	w.edges = append(w.edges, `{"source": "`...)
	w.edges = strconv.AppendInt(w.edges, src, 10)
	w.edges = append(w.edges, `", "target": "`...)
	w.edges = strconv.AppendInt(w.edges, dst, 10)
	w.edges = append(w.edges, `"}`...)
}

// idset renders sorted ids as Flux's idset ("0-3,5").
func idset(ids []int64) string {
	var b []byte
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, ids[i], 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, ids[j], 10)
		}
		i = j + 1
	}
	return string(b)
}

// appendJSONString appends s as a JSON string escaped as jansson does,
// as gofluxion's writers escape it.
func appendJSONString(dst []byte, s string) []byte { return jsonw.AppendString(dst, s) }
