package plugin

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gofluxion/gofluxion/jobspec"
)

func TestTranslateSelector(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string // predicates joined by "; ", or "refused: <reason part>"
	}{
		{`device.driver == "gpu.example.com"`, `driver == gpu.example.com`},
		{`"gpu.example.com" == device.driver`, `driver == gpu.example.com`},
		{`device.driver != "x"`, `driver != x`},
		{`device.attributes["gpu.example.com"].model == "H100"`, `attr:gpu.example.com/model == H100`},
		{`device.attributes["gpu.example.com"].cores >= 64`, `attr:gpu.example.com/cores >= 64`},
		{`64 < device.attributes["gpu.example.com"].cores`, `attr:gpu.example.com/cores > 64`},
		{`device.attributes["gpu.example.com"].mig == false`, `attr:gpu.example.com/mig == false`},
		{`device.attributes["gpu.example.com"].mig`, `attr:gpu.example.com/mig == true`},
		{`"mig" in device.attributes["gpu.example.com"]`, `attr:gpu.example.com/mig exists`},
		{`device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`, `capacity:gpu.example.com/memory >= 40Gi`},
		{`device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("1Gi"))`, `capacity:gpu.example.com/memory > 1Gi`},
		{`device.attributes["gpu.example.com"].driverVersion.compareTo(semver("550.0.0")) >= 0`, `attr:gpu.example.com/driverVersion >= 550.0.0`},
		{`device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("600.0.0"))`, `attr:gpu.example.com/driverVersion < 600.0.0`},
		{`device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "H100" && device.attributes["resource.kubernetes.io"].numaNode == 1`,
			`driver == gpu.example.com; attr:gpu.example.com/model == H100; attr:resource.kubernetes.io/numaNode == 1`},
		{`true`, ``},

		{`device.driver == "a" || device.driver == "b"`, `refused: operator or function ||`},
		{`!(device.driver == "a")`, `refused: operator or function !`},
		{`device.attributes["d"].model.startsWith("H")`, `refused: operator or function startsWith`},
		{`device.attributes["d"].model.matches("H.*")`, `refused: operator or function matches`},
		{`device.attributes["d"].n + 1 > 3`, `refused: only comparisons between a device field and a constant`},
		{`device.attributes["d"].a == device.attributes["d"].b`, `refused: only comparisons between a device field and a constant`},
		{`device.attributes["d"].model > "H"`, `refused: > on a string is not translated`},
		{`device.driver > "a"`, `refused: device.driver is compared with == or != to a string`},
		{`device.capacity["d"].memory >= 3`, `refused: capacities are compared with compareTo`},
		{`device.capacity["d"].memory.compareTo(quantity("1Gi")) >= 1`, `refused: only comparisons between a device field and a constant`},
		{`device.capacity["d"].memory.compareTo(quantity("x")) >= 0`, `refused: quantity "x"`},
		{`device.attributes["d"].v.compareTo(semver("nope")) >= 0`, `refused: semver "nope"`},
		{`device.attributes["d"].v.compareTo(quantity("1")) >= 0`, `refused: quantity comparisons are translated on capacities only`},
		{`device.attributes.exists(k, k == "d")`, `refused: macros`},
		{`has(device.attributes["d"].mig)`, `refused: expression form not translated`},
		{`device.attributes["d"].x ? true : false`, `refused: operator or function _?_:_`},
		{`device.attributes["d"].model in ["A", "B"]`, `refused: only "name" in device.attributes`},
		{`device.attributes["d"].model == 1.5`, `refused: only comparisons between a device field and a constant`},
		{`device.driver ==`, `refused: does not parse`},
		{strings.Repeat(`device.driver == "a" && `, 500) + `true`, `refused: longer than`},
	} {
		ps, err := translateSelector("test", tc.expr)
		var got string
		if err != nil {
			var se *SelectorError
			if !errors.As(err, &se) || se.Selector != tc.expr || !strings.Contains(err.Error(), `test: selector "`) {
				t.Errorf("%s: error %v is not a SelectorError naming it", tc.expr, err)
			}
			got = "refused: " + se.Reason
			if strings.HasPrefix(tc.want, "refused: ") && strings.HasPrefix(got, tc.want) {
				continue
			}
		} else {
			var s []string
			for _, p := range ps {
				s = append(s, p.String())
			}
			got = strings.Join(s, "; ")
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

func TestPredMatches(t *testing.T) {
	devs, errs := devicesFromSlices([]*resourceapi.ResourceSlice{nodeSlice("s", "n1", gpuDev("gpu0", 1, "pci0", "80Gi"))}, nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	d := devs[0]
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{`device.driver == "gpu.example.com"`, true},
		{`device.driver == "other"`, false},
		{`device.driver != "other"`, true},
		{`device.attributes["gpu.example.com"].model == "H100"`, true},
		{`device.attributes["gpu.example.com"].model != "H100"`, false},
		{`device.attributes["gpu.example.com"].index >= 0`, true},
		{`device.attributes["gpu.example.com"].index > 0`, false},
		{`device.attributes["gpu.example.com"].index == "0"`, false}, // type mismatch
		{`device.attributes["gpu.example.com"].mig`, false},
		{`device.attributes["gpu.example.com"].mig == false`, true},
		{`device.attributes["gpu.example.com"].absent == 1`, false},
		{`"model" in device.attributes["gpu.example.com"]`, true},
		{`"absent" in device.attributes["gpu.example.com"]`, false},
		{`device.attributes["resource.kubernetes.io"].numaNode == 1`, true},
		{`device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`, true},
		{`device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("80Gi"))`, false},
		{`device.capacity["gpu.example.com"].absent.isLessThan(quantity("80Gi"))`, false},
		{`device.attributes["gpu.example.com"].driver.compareTo(semver("550.9.0")) > 0`, true}, // 550.54.15 > 550.9.0 numerically
		{`device.attributes["gpu.example.com"].driver.isLessThan(semver("550.54.15"))`, false},
		{`device.attributes["gpu.example.com"].driver.compareTo(semver("550.54.15")) == 0`, true},
	} {
		ps, err := translateSelector("t", tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		got := true
		for _, p := range ps {
			got = got && p.matches(d)
		}
		if got != tc.want {
			t.Errorf("%s: matches %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func cel(exprs ...string) []resourceapi.DeviceSelector {
	var out []resourceapi.DeviceSelector
	for _, e := range exprs {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
	}
	return out
}

func claimWorld() claimLookup {
	classes := map[string]*resourceapi.DeviceClass{
		"gpu": {ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourceapi.DeviceClassSpec{Selectors: cel(`device.driver == "gpu.example.com"`)}},
		"nic": {ObjectMeta: metav1.ObjectMeta{Name: "nic"}, Spec: resourceapi.DeviceClassSpec{Selectors: cel(`device.driver == "nic.example.com"`)}},
		"any": {ObjectMeta: metav1.ObjectMeta{Name: "any"}},
		"odd": {ObjectMeta: metav1.ObjectMeta{Name: "odd"}, Spec: resourceapi.DeviceClassSpec{Selectors: cel(`device.driver.startsWith("gpu")`)}},
	}
	req := func(name, class string, n int64, sels ...string) resourceapi.DeviceRequest {
		return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: class, Count: n, Selectors: cel(sels...)}}
	}
	templates := map[string]*resourceapi.ResourceClaimTemplate{
		"two-gpus-one-root": {ObjectMeta: metav1.ObjectMeta{Name: "two-gpus-one-root"}, Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests:    []resourceapi.DeviceRequest{req("gpus", "gpu", 2, `device.attributes["gpu.example.com"].model == "H100"`), req("nic", "nic", 1)},
			Constraints: []resourceapi.DeviceConstraint{{MatchAttribute: ptr(resourceapi.FullyQualifiedName(attrPCIeRoot))}},
		}}}},
		"one-gpu": {ObjectMeta: metav1.ObjectMeta{Name: "one-gpu"}, Spec: resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{req("g", "gpu", 0)}}}}},
	}
	claims := map[string]*resourceapi.ResourceClaim{
		"imex": {ObjectMeta: metav1.ObjectMeta{Name: "imex", Namespace: "ns"}, Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{
			Requests: []resourceapi.DeviceRequest{req("channel", "nic", 1)}}}},
	}
	return claimLookup{
		Claim: func(ns, name string) (*resourceapi.ResourceClaim, bool) {
			c, ok := claims[name]
			return c, ok && ns == "ns"
		},
		Template: func(ns, name string) (*resourceapi.ResourceClaimTemplate, bool) {
			t, ok := templates[name]
			return t, ok
		},
		Class: func(name string) (*resourceapi.DeviceClass, bool) { c, ok := classes[name]; return c, ok },
	}
}

func claimPod(claims ...v1.PodResourceClaim) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: v1.PodSpec{ResourceClaims: claims}}
}

func TestPodDeviceRequests(t *testing.T) {
	l := claimWorld()
	p := claimPod(
		v1.PodResourceClaim{Name: "train", ResourceClaimTemplateName: ptr("two-gpus-one-root")},
		v1.PodResourceClaim{Name: "extra", ResourceClaimTemplateName: ptr("one-gpu")},
		v1.PodResourceClaim{Name: "imex", ResourceClaimName: ptr("imex")},
		v1.PodResourceClaim{Name: "extra2", ResourceClaimTemplateName: ptr("one-gpu")},
	)
	rs, err := l.podDeviceRequests(p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		var ps []string
		for _, q := range r.Preds {
			ps = append(ps, q.String())
		}
		got = append(got, strings.Join([]string{r.Claim, r.Name, r.Driver, itoa(r.Count), boolStr(r.Shared), itoa(int64(r.Group)), r.GroupLevel, strings.Join(ps, ";")}, "|"))
	}
	want := []string{
		"ns/p/train|gpus|gpu.example.com|2|false|1|pcieroot|driver == gpu.example.com;attr:gpu.example.com/model == H100",
		"ns/p/train|nic|nic.example.com|1|false|1|pcieroot|driver == nic.example.com",
		"ns/p/extra|g|gpu.example.com|1|false|0||driver == gpu.example.com",
		"ns/imex|channel|nic.example.com|1|true|0||driver == nic.example.com",
		"ns/p/extra2|g|gpu.example.com|1|false|0||driver == gpu.example.com",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	frag, err := jobspecFragment(rs)
	if err != nil {
		t.Fatal(err)
	}
	js := jobspec.New(0, jobspec.Res("node", 1, jobspec.Res("numa", 1, jobspec.Slot("task", 1, frag...))))
	if err := jobspec.Validate(js); err != nil {
		t.Fatal(err)
	}
	yb, err := js.YAML()
	if err != nil {
		t.Fatal(err)
	}
	y := string(yb)
	for _, w := range []string{"type: pcieroot", "type: gpu.example.com", "count: 2", "type: nic.example.com"} {
		if !strings.Contains(y, w) {
			t.Fatalf("jobspec lacks %q:\n%s", w, y)
		}
	}
	if len(frag) != 2 || frag[0].Type != "pcieroot" || len(frag[0].With) != 2 || frag[1].Type != "gpu.example.com" || frag[1].Count != jobspec.Fixed(2) {
		t.Fatalf("fragment: %s", y)
	}
	// the matching devices
	devs, _ := devicesFromSlices([]*resourceapi.ResourceSlice{nodeSlice("s", "n1", gpuDev("gpu0", 0, "", "1"))}, nil)
	if !rs[0].matches(devs[0]) || rs[1].matches(devs[0]) {
		t.Fatal("matches")
	}
	devs[0].Attrs["gpu.example.com/model"] = attrValue{Kind: 's', Str: "A100"}
	if rs[0].matches(devs[0]) || !rs[2].matches(devs[0]) {
		t.Fatal("matches after model change")
	}
}

func TestPodDeviceRequestsRefused(t *testing.T) {
	base := claimWorld()
	one := func(spec resourceapi.ResourceClaimSpec) claimLookup {
		l := base
		l.Template = func(ns, name string) (*resourceapi.ResourceClaimTemplate, bool) {
			return &resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.ResourceClaimTemplateSpec{Spec: spec}}, true
		}
		return l
	}
	ex := func(class string, mod func(*resourceapi.ExactDeviceRequest)) resourceapi.DeviceRequest {
		e := &resourceapi.ExactDeviceRequest{DeviceClassName: class, Count: 1}
		if mod != nil {
			mod(e)
		}
		return resourceapi.DeviceRequest{Name: "r", Exactly: e}
	}
	spec := func(rs ...resourceapi.DeviceRequest) resourceapi.ResourceClaimSpec {
		return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: rs}}
	}
	withCons := func(s resourceapi.ResourceClaimSpec, c resourceapi.DeviceConstraint) resourceapi.ResourceClaimSpec {
		s.Devices.Constraints = append(s.Devices.Constraints, c)
		return s
	}
	for _, tc := range []struct {
		name string
		spec resourceapi.ResourceClaimSpec
		want string
	}{
		{"firstAvailable", spec(resourceapi.DeviceRequest{Name: "r", FirstAvailable: []resourceapi.DeviceSubRequest{{Name: "a", DeviceClassName: "gpu"}}}), `request "r": firstAvailable is not translated`},
		{"all", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) { e.AllocationMode = resourceapi.DeviceAllocationModeAll })), `allocationMode All is not translated`},
		{"admin", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) { e.AdminAccess = ptr(true) })), `adminAccess is not translated`},
		{"capacity", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) { e.Capacity = &resourceapi.CapacityRequirements{} })), `capacity requests`},
		{"no class", spec(ex("nope", nil)), `deviceclass "nope" not found`},
		{"no driver", spec(ex("any", nil)), `no selector says device.driver == "…" (the class "any" must name its driver)`},
		{"two drivers", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) { e.Selectors = cel(`device.driver == "nic.example.com"`) })), `selectors name two drivers`},
		{"class selector", spec(ex("odd", nil)), `deviceclass odd: selector "device.driver.startsWith(\"gpu\")" not understood by gofluxion: operator or function startsWith`},
		{"request selector", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) {
			e.Selectors = cel(`device.attributes["gpu.example.com"].model.matches("H1.*")`)
		})),
			`claim ns/p/c request r: selector "device.attributes[\"gpu.example.com\"].model.matches(\"H1.*\")" not understood by gofluxion: operator or function matches`},
		{"not CEL", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) { e.Selectors = []resourceapi.DeviceSelector{{}} })), `selector 0: not a CEL selector`},
		{"count", spec(ex("gpu", func(e *resourceapi.ExactDeviceRequest) { e.Count = -1 })), `count -1 out of range`},
		{"match other", withCons(spec(ex("gpu", nil)), resourceapi.DeviceConstraint{MatchAttribute: ptr(resourceapi.FullyQualifiedName("gpu.example.com/nvlinkDomain"))}),
			`matchAttribute "gpu.example.com/nvlinkDomain" is not a level of the graph`},
		{"distinct", withCons(spec(ex("gpu", nil)), resourceapi.DeviceConstraint{DistinctAttribute: ptr(resourceapi.FullyQualifiedName(attrPCIeRoot))}), `only matchAttribute is translated`},
		{"unknown request", withCons(spec(ex("gpu", nil)), resourceapi.DeviceConstraint{Requests: []string{"zz"}, MatchAttribute: ptr(resourceapi.FullyQualifiedName(attrPCIeRoot))}), `no request "zz"`},
	} {
		_, err := one(tc.spec).podDeviceRequests(claimPod(v1.PodResourceClaim{Name: "c", ResourceClaimTemplateName: ptr("t")}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	for name, pc := range map[string]v1.PodResourceClaim{
		`resourceclaim "gone" not found`: {Name: "c", ResourceClaimName: ptr("gone")},
		`names no claim or template`:     {Name: "c"},
	} {
		if _, err := base.podDeviceRequests(claimPod(pc)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// FuzzTranslateSelector: any input is translated or refused with a
// SelectorError naming it, never a panic; what is translated has a known
// field and operator.
func FuzzTranslateSelector(f *testing.F) {
	for _, s := range []string{
		`device.driver == "gpu.example.com"`,
		`device.attributes["d"].n >= 3 && "x" in device.attributes["d"]`,
		`device.capacity["d"].m.compareTo(quantity("1Gi")) >= 0`,
		`device.attributes["d"].v.isGreaterThan(semver("1.2.3"))`,
		`device.attributes["d"].b || true`, `(((`, ``,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := translateSelector("fuzz", s)
		if err != nil {
			var se *SelectorError
			if !errors.As(err, &se) || se.Selector != s {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		for _, p := range ps {
			if _, ok := flip[p.Op]; !ok && p.Op != "in" {
				t.Fatalf("%q: operator %q", s, p.Op)
			}
			if p.Field != "driver" && !strings.HasPrefix(p.Field, "attr:") && !strings.HasPrefix(p.Field, "capacity:") {
				t.Fatalf("%q: field %q", s, p.Field)
			}
		}
	})
}

// Long && chains within the size bound translate whole; deep nesting is
// refused by the parser's depth bound, not by a stack overflow.
func TestSelectorBounds(t *testing.T) {
	e := strings.TrimSuffix(strings.Repeat(`device.attributes["d"].n >= 1 && `, 300), " && ")
	if ps, err := translateSelector("t", e); err != nil || len(ps) != 300 {
		t.Fatalf("300 terms: %d predicates, %v", len(ps), err)
	}
	deep := strings.Repeat("(", 2000) + `device.driver == "a"` + strings.Repeat(")", 2000)
	if _, err := translateSelector("t", deep); err == nil || !strings.Contains(err.Error(), "does not parse") {
		t.Fatalf("deep nesting: %v", err)
	}
}
