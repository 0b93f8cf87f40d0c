// Placing a gang: its pods → shapes and a request, the scopes its
// topology request allows, and the matches in them.

package plugin

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/gofluxion/gofluxion"
)

// maxScopes bounds the level vertices tried for one topology request.
const maxScopes = 16

// PlaceError is a gang that cannot be placed now.
type PlaceError struct {
	// Reason is the explanation, e.g. "needs 5 node (with 2 core,
	// 1 gpu each): 4 found now, only 4 exist".
	Reason string
	// Unresolvable: the gang can never fit this cluster (capacity), or its
	// request is invalid, as opposed to not fitting now (busy).
	Unresolvable bool
	// Reserved: the gang holds a reservation starting At, on Where.
	Reserved bool
	At       time.Time
	Where    string
	// Moved: the reservation is new or changed since the last attempt.
	Moved bool
	// RetryAt: the gang backs off (later filters rejected it several
	// times in a row) until then.
	RetryAt time.Time
	Err     error
}

func (e *PlaceError) Error() string { return e.Reason }

func (e *PlaceError) Unwrap() error { return e.Err }

// Shape is the demand of one kind of pod of a gang.
type Shape struct {
	Demand units
	Pods   []*v1.Pod
	// Untolerated: the NoSchedule/NoExecute taints of the cluster the
	// pods do not tolerate, as negated properties ("^gofluxion.io/taint:…");
	// Avoid: their untolerated PreferNoSchedule taints, likewise.
	Untolerated, Avoid []string
}

// shapes groups pods by demand and by the taints they do not tolerate:
// one slot shape per distinct request.
func (c *Cluster) shapes(pods []*v1.Pod) []Shape {
	var out []Shape
	for _, p := range pods {
		d := demand(podRaw(p, c.gpuRes), c.chunk)
		untol, avoid := c.podTaintProps(p)
		i := slices.IndexFunc(out, func(s Shape) bool {
			return s.Demand == d && slices.Equal(s.Untolerated, untol) && slices.Equal(s.Avoid, avoid)
		})
		if i < 0 {
			out = append(out, Shape{Demand: d, Untolerated: untol, Avoid: avoid})
			i = len(out) - 1
		}
		out[i].Pods = append(out[i].Pods, p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Demand, out[j].Demand
		if a.GPU != b.GPU {
			return a.GPU > b.GPU
		}
		if a.Core != b.Core {
			return a.Core > b.Core
		}
		return a.Mem > b.Mem
	})
	return out
}

// errNotTried: no match tried yet.
var errNotTried = errors.New("not tried")

// Placement is where Place put a gang.
type Placement struct {
	GangID string
	Nodes  map[types.UID]string
	// Took is the time of the gang's matches (Fluxion's part).
	Took time.Duration
	// Scope says where the gang went when it asked for a topology, e.g.
	// "rack r3".
	Scope string
}

// Place matches pods as one gang, all or nothing, now; or, when it does
// not fit now, reserves the earliest time it fits (EASY backfill: the
// first ReservationDepth waiting gangs in queue order hold one). A gang of
// one shape (all pods request the same) is one jobspec (see Form.Jobspec)
// matched once. Fluxion refuses sibling requests of the same type, so a
// gang of several shapes is one jobspec per shape, matched back to back
// (scarcest shape first) under the same lock, each booked until the last
// fits, and all released if one does not. Every pod then gets its own job,
// booked with update from its part of the selection for its own duration,
// and is pinned to its node until it binds or the gang is canceled. hosts,
// when not nil, are the only nodes the gang may use.
func (c *Cluster) Place(key string, pods []*v1.Pod, hosts []string) (*Placement, error) {
	return c.PlaceGang(key, pods, hosts, nil)
}

// PlaceGang is Place for a gang some of whose members are bound already,
// on the nodes bound: the pods of a gang with a topology request go to
// the domain (the vertex of the requested level) of those members. For
// topology-required, only there: the gang waits there (with the reason
// naming the domain) while it has no room, and never spreads. For
// topology-preferred, there if the pods fit now, else as the preferred
// rules place a new gang (that level elsewhere, then a level up, …).
func (c *Cluster) PlaceGang(key string, pods []*v1.Pod, hosts, bound []string) (*Placement, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	pl, err := c.placeLocked(key, pods, hosts, bound)
	result := "placed"
	var pe *PlaceError
	switch {
	case errors.As(err, &pe) && pe.Reserved:
		result = "reserved"
	case errors.As(err, &pe):
		result = "unschedulable"
	case err != nil:
		result = "error"
	}
	metricMatch.WithLabelValues(result).Observe(time.Since(start).Seconds())
	now := c.now().Unix()
	if err == nil {
		delete(c.waiting, key)
	} else {
		c.waiting[key] = now
	}
	for k, t := range c.waiting {
		if now-t > 600 {
			delete(c.waiting, k)
		}
	}
	metricWaiting.Set(float64(len(c.waiting)))
	metricReservations.Set(float64(len(c.resv)))
	return pl, err
}

func (c *Cluster) placeLocked(key string, pods []*v1.Pod, hosts, bound []string) (*Placement, error) {
	now := c.now().Unix()
	c.expireLocked(now)
	req, err := c.args.parseRequest(pods)
	if err != nil {
		return nil, &PlaceError{Reason: err.Error(), Unresolvable: true, Err: err}
	}
	hosts, note, bpe := c.excludedLocked(key, hosts, now)
	if bpe != nil {
		return nil, bpe
	}
	if len(bound) > 0 && !req.Pack {
		// one pod per node: not where members are bound already
		hosts = c.withoutLocked(hosts, bound)
	}
	var domain []string
	var domainName string
	if lvl := cmp.Or(req.Required, req.Preferred); lvl != "" && len(bound) > 0 {
		if dom, name := c.siblingDomainLocked(lvl, bound); dom != nil {
			domain, domainName = intersect(hosts, dom), name
			if req.Required != "" {
				hosts = domain
			}
		}
	}
	var dur int64
	durs := make(map[types.UID]int64, len(pods))
	for i, p := range pods {
		d, err := c.args.podDuration(p)
		if err != nil {
			return nil, &PlaceError{Reason: err.Error(), Unresolvable: true, Err: err}
		}
		durs[p.UID] = d
		if i == 0 || (dur != 0 && (d == 0 || d > dur)) {
			dur = d
		}
	}
	shapes := c.shapes(pods)
	old := c.resv[key]
	if old != nil {
		// given back while the gang tries now; made again if it must wait
		c.cancelResvLocked(old)
		delete(c.resv, key)
	}
	if c.dirty {
		c.recomputeLocked(now)
	}
	start := time.Now()
	var parts [][]podPart
	var jobs []uint64
	var scope string
	err = errNotTried
	if domain != nil && req.Required == "" {
		// preferred: the siblings' domain first
		parts, jobs, scope, err = c.matchNowLocked(shapes, req, domain, dur, now)
		if err != nil && !errors.As(err, new(*PlaceError)) {
			return nil, err
		}
	}
	if err != nil {
		parts, jobs, scope, err = c.matchNowLocked(shapes, req, hosts, dur, now)
	}
	took := time.Since(start)
	if err != nil {
		var pe *PlaceError
		if !errors.As(err, &pe) {
			return nil, err
		}
		if domain != nil && req.Required != "" {
			pe.Reason = "the gang's bound members are in " + domainName + ": " + pe.Reason
		}
		pe.Reason += note
		if !pe.Unresolvable && len(shapes) == 1 {
			r := &reservation{key: key, shape: shapes[0], req: req, hosts: hosts, dur: dur}
			r.prio, r.since = gangRank(pods)
			if old != nil {
				r.since = old.since
			}
			if c.mayReserveLocked(r) {
				if c.reserveInOrderLocked(r, now) == nil {
					pe.Reserved, pe.At, pe.Where = true, time.Unix(r.at, 0).UTC(), r.where
					pe.Moved = old == nil || old.at != r.at || old.where != r.where
					pe.Reason = fmt.Sprintf("reserved at %s (in %v) on %s; now: %s",
						pe.At.Format("15:04:05 MST"), time.Duration(r.at-now)*time.Second, r.where, pe.Reason)
				}
			}
		}
		return nil, pe
	}
	c.lastMatch = took
	c.nextGID++
	g := &gang{id: key + "#" + strconv.Itoa(c.nextGID), key: key, permitted: sets.New[types.UID](), created: c.now()}
	pl := &Placement{GangID: g.id, Nodes: make(map[types.UID]string, len(pods)), Took: took, Scope: scope}
	// each pod gets its job id and its part of the selection, held in its
	// shape's gang job; a gang whose pods' durations differ (the gang's
	// match booked the longest) is booked pod by pod instead, each for its
	// own window
	uniform := true
	for _, p := range pods {
		uniform = uniform && durs[p.UID] == dur
	}
	if !uniform {
		for _, id := range jobs {
			if err := c.fm().Cancel(id); err != nil {
				c.log.Error(err, "cancel failed", "job", id)
			}
		}
		jobs = nil
	}
	all := make([]*podState, 0, len(pods))
	for si, s := range shapes {
		var gj *gangJob
		if jobs != nil {
			gj = &gangJob{id: jobs[si], members: make([]*podState, 0, len(s.Pods))}
		}
		for i, p := range s.Pods {
			part := parts[si][i]
			ps := &podState{uid: p.UID, ns: p.Namespace, name: p.Name, node: part.node, job: c.nextJob + uint64(len(all)),
				leaves: part.leaves, start: now, gang: g, pod: p}
			if d := durs[p.UID]; d > 0 {
				ps.end = now + d
			}
			if gj != nil {
				ps.in = gj
				gj.members = append(gj.members, ps)
				c.holdLocked(c.nodes[ps.node], ps)
			}
			all = append(all, ps)
		}
	}
	if jobs == nil {
		for i, ps := range all {
			if err := c.bookPodLocked(c.nodes[ps.node], ps); err != nil {
				for _, d := range all[:i] {
					c.dropPodLocked(d)
				}
				return nil, fmt.Errorf("booking pod %s/%s: %w", ps.ns, ps.name, err)
			}
		}
	}
	for _, ps := range all {
		c.pods[ps.uid] = ps
		g.members = append(g.members, ps.uid)
		pl.Nodes[ps.uid] = ps.node
	}
	c.nextJob += uint64(len(all))
	c.gangs[g.id] = g
	return pl, nil
}

// scope is one place to try a gang: under a level vertex (natively, top,
// or through the hosts below it), or anywhere.
type scope struct {
	label string // "rack r3", "" for anywhere
	top   string
	hosts []string // nil: no restriction beyond the gang's own
}

// matchNowLocked finds room for every shape now, trying the scopes the
// request allows in order. It returns each shape's parts. In each scope,
// a gang with untolerated PreferNoSchedule taints first tries without
// their nodes, then with them: the topology the gang asked for comes
// first, the taints' preference second.
func (c *Cluster) matchNowLocked(shapes []Shape, req Request, hosts []string, dur, now int64) ([][]podPart, []uint64, string, error) {
	scopes, perr := c.scopesLocked(shapes, req, hosts, false)
	avoid := slices.ContainsFunc(shapes, func(s Shape) bool { return len(s.Avoid) > 0 })
	var last *PlaceError
	for _, sc := range scopes {
		for _, av := range []bool{true, false} {
			if av && !avoid {
				continue
			}
			parts, jobs, where, err := c.tryShapesLocked(shapes, req, sc, hosts, dur, now, av)
			if err == nil {
				return parts, jobs, where, nil
			}
			var pe *PlaceError
			if !errors.As(err, &pe) {
				return nil, nil, "", err
			}
			if !av {
				last = pe
			}
		}
	}
	if perr != nil {
		return nil, nil, "", perr
	}
	if last == nil {
		last = &PlaceError{Reason: "nowhere to try"}
	}
	return nil, nil, "", last
}

// scopesLocked lists where a request may go, in order: for
// topology-required L, the vertices of L (natively when L is the lowest
// level and the gang is one spread shape, else each vertex that could hold
// the gang, tightest first); for topology-preferred L, the same for L, then
// each level up, then anywhere; otherwise anywhere. ever selects vertices
// by capacity instead of what is free now. A required level with no vertex
// that could hold the gang returns an error to report.
func (c *Cluster) scopesLocked(shapes []Shape, req Request, hosts []string, ever bool) ([]scope, *PlaceError) {
	levels := c.args.Topology.Levels
	native := len(shapes) == 1 && !req.Pack
	var out []scope
	add := func(typ string) int {
		i := c.args.levelIndex(typ)
		if native && i == len(levels)-1 {
			out = append(out, scope{label: typ, top: typ})
			return 1
		}
		cands := c.candidatesLocked(typ, shapes, req, hosts, ever)
		out = append(out, cands...)
		return len(cands)
	}
	switch {
	case req.Required != "":
		if add(req.Required) == 0 {
			pe := &PlaceError{Reason: fmt.Sprintf("no %s can hold the gang now", req.Required)}
			if len(c.candidatesLocked(req.Required, shapes, req, hosts, true)) == 0 {
				pe.Reason = fmt.Sprintf("no %s can ever hold the gang (not even empty)", req.Required)
				pe.Unresolvable = true
			}
			return nil, pe
		}
	case req.Preferred != "":
		for i := c.args.levelIndex(req.Preferred); i >= 0; i-- {
			add(levels[i].Type)
		}
		out = append(out, scope{})
	default:
		out = append(out, scope{})
	}
	return out, nil
}

// candidatesLocked returns the vertices of a level that could hold the
// gang (by the free, or with ever the total, whole vertices of their up
// nodes, zone by zone), tightest first, at most maxScopes.
func (c *Cluster) candidatesLocked(typ string, shapes []Shape, req Request, hosts []string, ever bool) []scope {
	depth := c.args.levelIndex(typ)
	allowed := func(string) bool { return true }
	if hosts != nil {
		hs := sets.New(hosts...)
		allowed = func(n string) bool { return hs.Has(n) }
	}
	type cand struct {
		lv    *levelVertex
		hosts []string
		fit   []int64 // per shape: pods that fit
		spare int64   // free cores beyond the gang's, for the tightest fit
	}
	admits := make([]func(*nodeState) bool, len(shapes))
	for si := range shapes {
		admits[si] = shapes[si].admits(req)
	}
	byVertex := map[string]*cand{}
	var order []*cand
	for _, name := range slices.Sorted(maps.Keys(c.nodes)) {
		ns := c.nodes[name]
		lv := ns.levels[depth]
		if lv.typ != typ || !allowed(name) || (!ever && !ns.up) || (req.NUMA && !ns.nrt) {
			continue
		}
		cd := byVertex[lv.path]
		if cd == nil {
			cd = &cand{lv: lv, fit: make([]int64, len(shapes))}
			byVertex[lv.path] = cd
			order = append(order, cd)
		}
		cd.hosts = append(cd.hosts, name)
		nodeFit := make([]int64, len(shapes))
		for z, zu := range ns.zones {
			free := zu
			if !ever {
				free = zu.minus(ns.zoneUsed(z))
			}
			cd.spare += free.Core
			for si, s := range shapes {
				nodeFit[si] += free.times(s.Demand)
			}
		}
		for si := range shapes {
			if admits[si] != nil && !admits[si](ns) {
				nodeFit[si] = 0 // a taint the shape does not tolerate, or the gang's constraint
			}
			if !req.Pack {
				nodeFit[si] = min(nodeFit[si], 1) // spread: one pod of a shape per node
			}
			cd.fit[si] += nodeFit[si]
		}
	}
	var out []*cand
	for _, cd := range order {
		ok := true
		for si, s := range shapes {
			if cd.fit[si] < int64(len(s.Pods)) {
				ok = false
			}
			cd.spare -= int64(len(s.Pods)) * s.Demand.Core
		}
		if ok {
			out = append(out, cd)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].spare < out[j].spare })
	var scopes []scope
	for _, cd := range out[:min(len(out), maxScopes)] {
		scopes = append(scopes, scope{label: typ + " " + cd.lv.name, hosts: cd.hosts})
	}
	return scopes
}

// form is the Form of a shape in a scope (avoid: without the nodes of the
// PreferNoSchedule taints the shape does not tolerate).
func (sc scope) form(req Request, s *Shape, hosts []string, dur int64, avoid bool) Form {
	f := Form{Top: sc.top, Pack: req.Pack, NUMA: req.NUMA, Hosts: hosts, Duration: dur, Constraint: req.Constraint}
	f.Props = s.Untolerated
	if avoid {
		f.Props = slices.Concat(s.Untolerated, s.Avoid)
	}
	if sc.hosts != nil {
		f.Hosts = sc.hosts // already within the gang's hosts
	}
	if f.Hosts != nil && len(f.Hosts) == 0 {
		// a hostlist constraint cannot be empty: name no existing node
		f.Hosts = []string{"gofluxion-no-eligible-node"}
	}
	return f
}

// tryShapesLocked matches every shape in one scope now, all or nothing,
// each booked by its match as a gang job (their ids are returned; nothing
// stays booked when a shape does not fit). In the reference mode
// (perPodJobs) nothing stays booked: one shape is matched without
// allocating, several under temporary ids released at the end.
func (c *Cluster) tryShapesLocked(shapes []Shape, req Request, sc scope, hosts []string, dur, now int64, avoid bool) (parts [][]podPart, jobs []uint64, where string, err error) {
	where = sc.label
	defer func() {
		if err != nil || c.perPodJobs {
			for _, id := range jobs {
				_ = c.fm().Cancel(id)
			}
			jobs = nil
		}
	}()
	parts = make([][]podPart, len(shapes))
	for i := range shapes {
		s := &shapes[i]
		js := sc.form(req, s, hosts, dur, avoid).Jobspec(s.Demand, len(s.Pods))
		var res *MatchResult
		var merr error
		switch {
		case c.perPodJobs && len(shapes) == 1:
			res, merr = c.fm().Match(gofluxion.WithoutAllocating, js, 0, now)
		default:
			id := tempBase + uint64(i)
			if !c.perPodJobs {
				id = c.nextGJ
				c.nextGJ++
			}
			res, merr = c.fm().Match(gofluxion.Allocate, js, id, now)
			if merr == nil {
				jobs = append(jobs, id)
			}
		}
		if merr != nil {
			pe := c.explainLocked(js, now, req, s, merr)
			if sc.label != "" && sc.top == "" {
				pe.Reason = sc.label + ": " + pe.Reason
			}
			if len(shapes) > 1 {
				pe.Reason = fmt.Sprintf("shape %d of %d (%d pods with %v): %s", i+1, len(shapes), len(s.Pods), s.Demand, pe.Reason)
			}
			return nil, jobs, "", pe
		}
		sel, err := res.selection()
		if err != nil {
			return nil, jobs, "", err
		}
		ps, err := splitMatch(sel, s.Demand, len(s.Pods))
		if err != nil {
			return nil, jobs, "", err
		}
		parts[i] = ps
		if sc.top != "" && i == 0 {
			where = describeWhere(sel, c.args)
		}
	}
	return parts, jobs, where, nil
}

// explainLocked turns a failed match into a PlaceError with gofluxion's
// explanation (the NUMA level every jobspec names is left out unless the
// gang asked for it).
func (c *Cluster) explainLocked(js []byte, now int64, req Request, s *Shape, err error) *PlaceError {
	pe := &PlaceError{Reason: err.Error(), Err: err, Unresolvable: errors.Is(err, gofluxion.ErrUnsatisfiable)}
	if reason, sat, xerr := c.fm().Explain(js, now); xerr == nil {
		if reason != "" {
			pe.Reason = reason
		}
		pe.Unresolvable = pe.Unresolvable || !sat
	}
	if !req.NUMA {
		pe.Reason = strings.Replace(pe.Reason, " 1 numa, ", " ", 1)
	}
	if len(s.Untolerated) > 0 {
		var ts []string
		for _, u := range s.Untolerated[:min(len(s.Untolerated), 3)] {
			ts = append(ts, strings.TrimPrefix(u, "^"+TaintPropertyPrefix))
		}
		if len(s.Untolerated) > 3 {
			ts = append(ts, "…")
		}
		pe.Reason += " (nodes with taints the pods do not tolerate left out: " + strings.Join(ts, ", ") + ")"
	}
	if req.Constraint != "" {
		pe.Reason += " (within " + KeyConstraint + ")"
	}
	return pe
}

// describeWhere names where a selection lies: the innermost level vertex
// holding all its nodes ("rack r3"), else its nodes.
func describeWhere(sel []Selected, a *Args) string {
	var paths [][]string
	var names []string
	for _, v := range sel {
		if v.Type == "node" {
			paths = append(paths, strings.Split(strings.TrimPrefix(v.Path, clusterPath+"/"), "/"))
			names = append(names, v.Name)
		}
	}
	if len(paths) == 0 {
		return "no node"
	}
	common := len(paths[0]) - 1
	for _, p := range paths[1:] {
		k := 0
		for k < common && k < len(p)-1 && p[k] == paths[0][k] {
			k++
		}
		common = k
	}
	if common > 0 && common <= len(a.Topology.Levels) && paths[0][common-1] != unlabelledName {
		return a.Topology.Levels[common-1].Type + " " + paths[0][common-1]
	}
	slices.Sort(names)
	names = slices.Compact(names)
	switch {
	case len(names) > 4:
		return fmt.Sprintf("%d nodes (%s, …)", len(names), strings.Join(names[:4], ", "))
	case len(names) > 1:
		return "nodes " + strings.Join(names, ", ")
	}
	return "node " + names[0]
}
