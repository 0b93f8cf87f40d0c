// Package importcheck holds a test that keeps the core dependency-free.
package importcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/gofluxion/gofluxion"

// core packages whose production code may import only the standard
// library and other stdlib-only packages of this module.
var core = []string{"graph", "planner", "match", "policy", "jgf", "rv1", "emit", "grug", "picture",
	"internal/introsort", "internal/idset", "internal/hostlist", "internal/jsonw", "internal/boundedio"}

func goCmd() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}

// imports lists the direct non-test imports of every package in the module.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command(goCmd(), "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, module+"/...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, _ := strings.Cut(line, ":")
		m[pkg] = strings.Fields(imps)
	}
	return m
}

func isStd(p string) bool { return !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") }

func TestCoreImportsOnlyStandardLibrary(t *testing.T) {
	all := imports(t)
	for _, p := range core {
		full := module + "/" + p
		imps, ok := all[full]
		if !ok {
			t.Errorf("package %s not found", full)
			continue
		}
		for _, imp := range imps {
			switch {
			case isStd(imp):
			case strings.HasPrefix(imp, module+"/"):
				// Module packages are allowed only if they are core too,
				// except the jobspec model the matcher consumes.
				rel := strings.TrimPrefix(imp, module+"/")
				if rel != "jobspec" && !contains(core, rel) {
					t.Errorf("%s imports non-core module package %s", p, imp)
				}
			default:
				t.Errorf("%s imports third-party package %s", p, imp)
			}
		}
	}
}

func TestYAMLOnlyInJobspec(t *testing.T) {
	for pkg, imps := range imports(t) {
		for _, imp := range imps {
			if strings.HasPrefix(imp, "go.yaml.in/") && pkg != module+"/jobspec" {
				t.Errorf("%s imports %s; the YAML dependency lives in jobspec only", pkg, imp)
			}
		}
	}
}

// gonum is the graph adapter's dependency, and only its.
func TestGonumOnlyInAdapter(t *testing.T) {
	all := imports(t)
	if _, ok := all[module+"/gonumgraph"]; !ok {
		t.Fatal("package gonumgraph not found")
	}
	for pkg, imps := range all {
		for _, imp := range imps {
			if strings.HasPrefix(imp, "gonum.org/") && pkg != module+"/gonumgraph" {
				t.Errorf("%s imports %s; gonum lives in gonumgraph only", pkg, imp)
			}
		}
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
