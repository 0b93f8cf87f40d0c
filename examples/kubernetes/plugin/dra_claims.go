package plugin

// DRA claims as requests (work in progress, not wired): a pod's
// ResourceClaims become device requests over the vertices of dra.go,
// their CEL selectors translated into predicates by walking the parsed
// expression. Only the forms below are understood; any other selector is
// refused with an error naming it, so that a pod is never placed against
// a claim the plugin did not understand.
//
//	device.driver == "d"                                  (also !=)
//	device.attributes["dom"].name == v                    v string, int, bool; (also !=)
//	device.attributes["dom"].name OP n                    OP <, <=, >, >=; n int
//	device.attributes["dom"].name                         bool attribute is true
//	"name" in device.attributes["dom"]                    attribute present
//	device.capacity["dom"].name.compareTo(quantity("q")) OP 0
//	device.attributes["dom"].name.compareTo(semver("v")) OP 0
//	….isGreaterThan(quantity|semver(…)), ….isLessThan(…)
//	a && b                                                both
//
// Refused: ||, !, ?:, macros (all, exists, has, map, filter), string
// functions (startsWith, matches, …), arithmetic, list attributes,
// comparisons between two device fields, and everything else.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gofluxion/gofluxion/jobspec"
)

// maxSelector bounds a CEL selector's length (the API's own bound is 10K).
const maxSelector = 10 << 10

// devPred is one translated comparison on a device.
type devPred struct {
	// Field: "driver", "attr:<qualified name>" or "capacity:<qualified name>".
	Field string
	// Op: ==, !=, <, <=, >, >=, or "in" (the attribute exists).
	Op  string
	Val attrValue // Kind 'q' (quantity, Int in base units) for capacities
	Src string    // the selector it comes from, for messages
}

func (p devPred) String() string {
	if p.Op == "in" {
		return p.Field + " exists"
	}
	return p.Field + " " + p.Op + " " + p.Val.String()
}

// SelectorError is a CEL selector the plugin cannot translate.
type SelectorError struct {
	Where    string // "deviceclass gpu", "claim ns/c request r"
	Selector string
	Reason   string
}

func (e *SelectorError) Error() string {
	return fmt.Sprintf("%s: selector %q not understood by gofluxion: %s", e.Where, e.Selector, e.Reason)
}

// translateSelector turns one CEL expression into predicates (all must
// hold).
func translateSelector(where, expr string) ([]devPred, error) {
	bad := func(reason string) error { return &SelectorError{Where: where, Selector: expr, Reason: reason} }
	if len(expr) > maxSelector {
		return nil, bad(fmt.Sprintf("longer than %d bytes", maxSelector))
	}
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.MaxRecursionDepth(32))
	if err != nil {
		return nil, err
	}
	tree, errs := p.Parse(common.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return nil, bad("does not parse: " + strings.TrimSpace(errs.ToDisplayString()))
	}
	var out []devPred
	if err := walkAnd(tree.Expr(), &out, expr); err != nil {
		return nil, bad(err.Error())
	}
	return out, nil
}

var cmpOps = map[string]string{
	operators.Equals: "==", operators.NotEquals: "!=",
	operators.Less: "<", operators.LessEquals: "<=",
	operators.Greater: ">", operators.GreaterEquals: ">=",
}

// flip mirrors an operator for "literal OP field".
var flip = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func walkAnd(e ast.Expr, out *[]devPred, src string) error {
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		fn := c.FunctionName()
		if fn == operators.LogicalAnd {
			for _, a := range c.Args() {
				if err := walkAnd(a, out, src); err != nil {
					return err
				}
			}
			return nil
		}
		if op, ok := cmpOps[fn]; ok {
			p, err := comparison(c.Args()[0], c.Args()[1], op)
			if err != nil {
				return err
			}
			p.Src = src
			*out = append(*out, p)
			return nil
		}
		if fn == operators.In || fn == operators.OldIn {
			name, ok := literal(c.Args()[0])
			dom, ok2 := attrDomain(c.Args()[1])
			if !ok || name.Kind != 's' || !ok2 {
				return errors.New(`only "name" in device.attributes["domain"] is understood`)
			}
			*out = append(*out, devPred{Field: "attr:" + dom + "/" + name.Str, Op: "in", Src: src})
			return nil
		}
		if fn == "isGreaterThan" || fn == "isLessThan" {
			op := ">"
			if fn == "isLessThan" {
				op = "<"
			}
			p, err := compareTo(c, op)
			if err != nil {
				return err
			}
			p.Src = src
			*out = append(*out, p)
			return nil
		}
		return fmt.Errorf("operator or function %s", opName(fn))
	case ast.SelectKind:
		// a bare bool attribute
		if f, ok := devField(e); ok && strings.HasPrefix(f, "attr:") {
			*out = append(*out, devPred{Field: f, Op: "==", Val: attrValue{Kind: 'b', Bool: true}, Src: src})
			return nil
		}
	case ast.LiteralKind:
		if v, ok := literal(e); ok && v.Kind == 'b' && v.Bool {
			return nil // "true": no restriction
		}
	case ast.ComprehensionKind:
		return errors.New("macros (all, exists, map, filter) are not translated")
	}
	return errors.New("expression form not translated")
}

func opName(fn string) string {
	if s, ok := operators.FindReverse(fn); ok && s != "" {
		return s
	}
	return fn
}

// comparison translates "field OP literal", "literal OP field" and
// "x.compareTo(quantity|semver(…)) OP 0".
func comparison(a, b ast.Expr, op string) (devPred, error) {
	if v, ok := literal(b); ok {
		if f, ok := devField(a); ok {
			return fieldCmp(f, op, v)
		}
		if a.Kind() == ast.CallKind && a.AsCall().FunctionName() == "compareTo" && v.Kind == 'i' && v.Int == 0 {
			return compareTo(a.AsCall(), op)
		}
	}
	if v, ok := literal(a); ok {
		if f, ok := devField(b); ok {
			return fieldCmp(f, flip[op], v)
		}
	}
	return devPred{}, errors.New("only comparisons between a device field and a constant are translated")
}

func fieldCmp(f, op string, v attrValue) (devPred, error) {
	if f == "driver" && (v.Kind != 's' || (op != "==" && op != "!=")) {
		return devPred{}, errors.New("device.driver is compared with == or != to a string")
	}
	if strings.HasPrefix(f, "capacity:") {
		return devPred{}, errors.New("capacities are compared with compareTo(quantity(…)), isGreaterThan or isLessThan")
	}
	if op != "==" && op != "!=" && v.Kind != 'i' {
		return devPred{}, fmt.Errorf("%s on a %s is not translated", op, kindName(v.Kind))
	}
	return devPred{Field: f, Op: op, Val: v}, nil
}

// compareTo translates x.compareTo(c) OP 0 and x.isGreaterThan(c) /
// x.isLessThan(c), c quantity("…") or semver("…").
func compareTo(c ast.CallExpr, op string) (devPred, error) {
	if !c.IsMemberFunction() || len(c.Args()) != 1 {
		return devPred{}, errors.New(c.FunctionName() + " form not translated")
	}
	f, ok := devField(c.Target())
	if !ok {
		return devPred{}, errors.New(c.FunctionName() + " on something other than a device attribute or capacity")
	}
	arg := c.Args()[0]
	if arg.Kind() != ast.CallKind || len(arg.AsCall().Args()) != 1 || arg.AsCall().IsMemberFunction() {
		return devPred{}, errors.New(c.FunctionName() + ` takes quantity("…") or semver("…") here`)
	}
	s, ok := literal(arg.AsCall().Args()[0])
	if !ok || s.Kind != 's' {
		return devPred{}, errors.New(arg.AsCall().FunctionName() + " of a non-constant")
	}
	switch arg.AsCall().FunctionName() {
	case "quantity":
		if !strings.HasPrefix(f, "capacity:") {
			return devPred{}, errors.New("quantity comparisons are translated on capacities only")
		}
		q, err := resource.ParseQuantity(s.Str)
		if err != nil {
			return devPred{}, fmt.Errorf("quantity %q: %v", s.Str, err)
		}
		return devPred{Field: f, Op: op, Val: attrValue{Kind: 'q', Int: q.Value(), Str: s.Str}}, nil
	case "semver":
		if !strings.HasPrefix(f, "attr:") {
			return devPred{}, errors.New("semver comparisons are translated on attributes only")
		}
		if _, err := semver.Parse(s.Str); err != nil {
			return devPred{}, fmt.Errorf("semver %q: %v", s.Str, err)
		}
		return devPred{Field: f, Op: op, Val: attrValue{Kind: 'v', Str: s.Str}}, nil
	}
	return devPred{}, errors.New(c.FunctionName() + ` takes quantity("…") or semver("…") here`)
}

func kindName(k byte) string {
	return map[byte]string{'i': "int", 'b': "bool", 's': "string", 'v': "version", 'q': "quantity"}[k]
}

// devField reads device.driver, device.attributes["dom"].name and
// device.capacity["dom"].name.
func devField(e ast.Expr) (string, bool) {
	if e.Kind() != ast.SelectKind || e.AsSelect().IsTestOnly() {
		return "", false
	}
	s := e.AsSelect()
	if op := s.Operand(); op.Kind() == ast.IdentKind && op.AsIdent() == "device" && s.FieldName() == "driver" {
		return "driver", true
	}
	if dom, ok := attrDomain(s.Operand()); ok {
		return "attr:" + dom + "/" + s.FieldName(), true
	}
	if dom, ok := mapDomain(s.Operand(), "capacity"); ok {
		return "capacity:" + dom + "/" + s.FieldName(), true
	}
	return "", false
}

func attrDomain(e ast.Expr) (string, bool) { return mapDomain(e, "attributes") }

// mapDomain reads device.<m>["dom"].
func mapDomain(e ast.Expr, m string) (string, bool) {
	if e.Kind() != ast.CallKind || e.AsCall().FunctionName() != operators.Index {
		return "", false
	}
	args := e.AsCall().Args()
	sel := args[0]
	if sel.Kind() != ast.SelectKind || sel.AsSelect().FieldName() != m || sel.AsSelect().IsTestOnly() {
		return "", false
	}
	if op := sel.AsSelect().Operand(); op.Kind() != ast.IdentKind || op.AsIdent() != "device" {
		return "", false
	}
	dom, ok := literal(args[1])
	if !ok || dom.Kind != 's' || dom.Str == "" {
		return "", false
	}
	return dom.Str, true
}

func literal(e ast.Expr) (attrValue, bool) {
	if e.Kind() != ast.LiteralKind {
		return attrValue{}, false
	}
	switch v := e.AsLiteral().Value().(type) {
	case string:
		return attrValue{Kind: 's', Str: v}, true
	case int64:
		return attrValue{Kind: 'i', Int: v}, true
	case bool:
		return attrValue{Kind: 'b', Bool: v}, true
	}
	return attrValue{}, false
}

// matches reports whether a device satisfies a predicate. A missing
// attribute or capacity, or one of another type, does not match (CEL in
// the DRA allocator fails the claim instead: the difference only makes
// the plugin stricter).
func (p devPred) matches(d *draDevice) bool {
	var have attrValue
	switch {
	case p.Field == "driver":
		have = attrValue{Kind: 's', Str: d.Driver}
	case strings.HasPrefix(p.Field, "attr:"):
		v, ok := d.Attrs[p.Field[len("attr:"):]]
		if p.Op == "in" {
			return ok
		}
		if !ok {
			return false
		}
		have = v
	default:
		c, ok := d.Capacity[p.Field[len("capacity:"):]]
		if !ok {
			return false
		}
		have = attrValue{Kind: 'q', Int: c}
	}
	if have.Kind != p.Val.Kind {
		return false
	}
	var c int
	switch have.Kind {
	case 'i', 'q':
		c = cmpInt(have.Int, p.Val.Int)
	case 'b':
		if p.Op != "==" && p.Op != "!=" {
			return false
		}
		c = 1
		if have.Bool == p.Val.Bool {
			c = 0
		}
	case 's':
		c = strings.Compare(have.Str, p.Val.Str)
	case 'v':
		a, err1 := semver.Parse(have.Str)
		b, err2 := semver.Parse(p.Val.Str)
		if err1 != nil || err2 != nil {
			return false
		}
		c = a.Compare(b)
	}
	switch p.Op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// draRequest is one request of a claim, translated.
type draRequest struct {
	Claim string // namespace/name of the claim, or pod-name/claim-entry for a template
	Name  string // the request's name
	// Shared: the claim is a ResourceClaim of its own (booked once for
	// every pod using it); false for a claim from a template (one per pod).
	Shared bool
	Driver string // the vertex type asked for
	Count  int64
	Preds  []devPred // the class's and the request's selectors
	// Group: requests of one claim with the same non-empty group must
	// come from one vertex of type GroupLevel (matchAttribute).
	Group      int
	GroupLevel string
}

// matches reports whether a device can serve the request.
func (r *draRequest) matches(d *draDevice) bool {
	if d.Driver != r.Driver {
		return false
	}
	for _, p := range r.Preds {
		if !p.matches(d) {
			return false
		}
	}
	return true
}

// matchLevel is the graph level that a matchAttribute on an attribute
// corresponds to, or "".
func matchLevel(attr string) string {
	switch {
	case attr == attrPCIeRoot || strings.HasSuffix(attr, "/pcieRoot"):
		return pcieRootType
	case attr == attrNUMANode || strings.HasSuffix(attr, "/numaNode"):
		return "numa"
	}
	return ""
}

// claimLookup finds the objects a pod's claims refer to (an informer's
// listers when wired, maps in tests).
type claimLookup struct {
	Claim    func(ns, name string) (*resourceapi.ResourceClaim, bool)
	Template func(ns, name string) (*resourceapi.ResourceClaimTemplate, bool)
	Class    func(name string) (*resourceapi.DeviceClass, bool)
}

// podDeviceRequests translates a pod's claims. Any part the plugin does
// not understand makes it an error (a *SelectorError for selectors, a
// *RequestError for the rest), and then the pod must not be placed.
func (l claimLookup) podDeviceRequests(p *v1.Pod) ([]draRequest, error) {
	var out []draRequest
	for _, pc := range p.Spec.ResourceClaims {
		var spec *resourceapi.ResourceClaimSpec
		var id string
		shared := false
		switch {
		case pc.ResourceClaimName != nil:
			c, ok := l.Claim(p.Namespace, *pc.ResourceClaimName)
			if !ok {
				return nil, &RequestError{Msg: fmt.Sprintf("pod %s/%s: resourceclaim %q not found", p.Namespace, p.Name, *pc.ResourceClaimName)}
			}
			spec, id, shared = &c.Spec, p.Namespace+"/"+c.Name, true
		case pc.ResourceClaimTemplateName != nil:
			t, ok := l.Template(p.Namespace, *pc.ResourceClaimTemplateName)
			if !ok {
				return nil, &RequestError{Msg: fmt.Sprintf("pod %s/%s: resourceclaimtemplate %q not found", p.Namespace, p.Name, *pc.ResourceClaimTemplateName)}
			}
			spec, id = &t.Spec.Spec, p.Namespace+"/"+p.Name+"/"+pc.Name
		default:
			return nil, &RequestError{Msg: fmt.Sprintf("pod %s/%s: claim %q names no claim or template", p.Namespace, p.Name, pc.Name)}
		}
		rs, err := l.translateClaim(id, shared, spec)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

func (l claimLookup) translateClaim(id string, shared bool, spec *resourceapi.ResourceClaimSpec) ([]draRequest, error) {
	refuse := func(format string, a ...any) error {
		return &RequestError{Msg: "claim " + id + ": " + fmt.Sprintf(format, a...)}
	}
	dc := &spec.Devices
	// dc.Config (opaque driver configuration) does not affect placement.
	var out []draRequest
	for _, r := range dc.Requests {
		if r.Exactly == nil {
			return nil, refuse("request %q: firstAvailable is not translated", r.Name)
		}
		e := r.Exactly
		switch {
		case e.AllocationMode == resourceapi.DeviceAllocationModeAll:
			return nil, refuse("request %q: allocationMode All is not translated", r.Name)
		case e.AllocationMode != "" && e.AllocationMode != resourceapi.DeviceAllocationModeExactCount:
			return nil, refuse("request %q: allocationMode %q is not known", r.Name, e.AllocationMode)
		case e.AdminAccess != nil && *e.AdminAccess:
			return nil, refuse("request %q: adminAccess is not translated", r.Name)
		case e.Capacity != nil:
			return nil, refuse("request %q: capacity requests (shared devices) are not translated", r.Name)
		case len(e.DerivedAttributes) > 0:
			return nil, refuse("request %q: derivedAttributes are not translated", r.Name)
		}
		n := e.Count
		if n == 0 {
			n = 1
		}
		if n < 0 || n > maxLeaves {
			return nil, refuse("request %q: count %d out of range", r.Name, n)
		}
		cls, ok := l.Class(e.DeviceClassName)
		if !ok {
			return nil, refuse("request %q: deviceclass %q not found", r.Name, e.DeviceClassName)
		}
		req := draRequest{Claim: id, Name: r.Name, Shared: shared, Count: n}
		add := func(where string, sels []resourceapi.DeviceSelector) error {
			for i, s := range sels {
				if s.CEL == nil {
					return refuse("%s selector %d: not a CEL selector", where, i)
				}
				ps, err := translateSelector(where, s.CEL.Expression)
				if err != nil {
					return err
				}
				req.Preds = append(req.Preds, ps...)
			}
			return nil
		}
		if err := add("deviceclass "+cls.Name, cls.Spec.Selectors); err != nil {
			return nil, err
		}
		if err := add("claim "+id+" request "+r.Name, e.Selectors); err != nil {
			return nil, err
		}
		// the driver: the one every device must equal
		for _, p := range req.Preds {
			if p.Field == "driver" && p.Op == "==" {
				if req.Driver != "" && req.Driver != p.Val.Str {
					return nil, refuse("request %q: selectors name two drivers, %q and %q", r.Name, req.Driver, p.Val.Str)
				}
				req.Driver = p.Val.Str
			}
		}
		if req.Driver == "" {
			return nil, refuse("request %q: no selector says device.driver == \"…\" (the class %q must name its driver)", r.Name, cls.Name)
		}
		out = append(out, req)
	}
	for i, c := range dc.Constraints {
		if c.MatchAttribute == nil {
			return nil, refuse("constraint %d: only matchAttribute is translated", i)
		}
		lvl := matchLevel(string(*c.MatchAttribute))
		if lvl == "" {
			return nil, refuse("constraint %d: matchAttribute %q is not a level of the graph (only %s and %s are)", i, *c.MatchAttribute, attrPCIeRoot, attrNUMANode)
		}
		for k := range out {
			if len(c.Requests) > 0 && !slices.Contains(c.Requests, out[k].Name) {
				continue
			}
			if out[k].Group != 0 {
				return nil, refuse("request %q: in two matchAttribute constraints", out[k].Name)
			}
			out[k].Group, out[k].GroupLevel = i+1, lvl
		}
		for _, name := range c.Requests {
			if !slices.ContainsFunc(out, func(r draRequest) bool { return r.Name == name }) {
				return nil, refuse("constraint %d: no request %q", i, name)
			}
		}
	}
	return out, nil
}

// jobspecFragment is what the requests of one pod add below the level
// that holds its devices (a NUMA zone, see dra.go): a request alone is
// "<driver>: count", requests of one matchAttribute group go together
// under one vertex of their level (pcieroot: 1 → gpu: 2, nic: 1).
// Shared claims are left out (booked once for their gang, by the caller).
// The selectors are not in the jobspec: Fluxion's constraints only apply to
// node vertices; the caller books matching devices (draRequest.matches).
func jobspecFragment(reqs []draRequest) ([]*jobspec.Resource, error) {
	var out []*jobspec.Resource
	groups := map[string]*jobspec.Resource{}
	for _, r := range reqs {
		if r.Shared {
			continue
		}
		res := jobspec.Res(r.Driver, uint32(r.Count))
		if r.Group == 0 || r.GroupLevel == "numa" {
			// the fragment sits below one NUMA zone already. Siblings
			// must have distinct types: requests of one driver add up.
			if i := slices.IndexFunc(out, func(x *jobspec.Resource) bool { return x.Type == r.Driver }); i >= 0 {
				n := int64(out[i].Count.Min) + r.Count
				if n > maxLeaves {
					return nil, &RequestError{Msg: fmt.Sprintf("claim %s: more than %d devices of driver %q", r.Claim, maxLeaves, r.Driver)}
				}
				out[i].Count = jobspec.Fixed(uint32(n))
				continue
			}
			out = append(out, res)
			continue
		}
		key := r.Claim + "#" + strconv.Itoa(r.Group)
		g := groups[key]
		if g == nil {
			g = jobspec.Res(r.GroupLevel, 1)
			groups[key] = g
			out = append(out, g)
		}
		for _, w := range g.With {
			if w.Type == r.Driver {
				return nil, &RequestError{Msg: fmt.Sprintf("claim %s: requests of one matchAttribute group ask for driver %q twice", r.Claim, r.Driver)}
			}
		}
		g.With = append(g.With, res)
	}
	return out, nil
}
