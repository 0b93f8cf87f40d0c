package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion"
	"github.com/gofluxion/gofluxion/reapi/fluxcli"
)

// TestHwlocSameGraphInEveryLayer loads hwloc machines through the three
// layers, resource-query (-f hwloc -W ...), the root API (ReadGraph) and
// reapi/fluxcli (load_format hwloc, load_allowlist), and compares the
// whole graph each reports for "find status=up" in JGF: users of the
// library and of the fluxion-go API must see the CLI's (Fluxion's) graph.
func TestHwlocSameGraphInEveryLayer(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "hwloc", "testdata", "rules", "*.xml"))
	for _, rel := range []string{"001N/amd_gpu/corona11.xml", "001N/node_local_storage/lassen/0.xml",
		"001N/node_local_storage/catalyst/0.xml", "001N/node_local_storage/corona/0.xml"} {
		f := filepath.Join("..", "..", "..", "shared", "conformance", "data", "hwloc-data", rel)
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	if len(files) < 11 {
		t.Fatalf("only %d machines", len(files))
	}
	decode := func(t *testing.T, what, s string) any {
		t.Helper()
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("%s: %v in %q", what, err, s)
		}
		if m, ok := v.(map[string]any); ok && m["graph"] != nil {
			v = m["graph"]
		}
		if g, ok := v.(map[string]any); !ok || len(g["nodes"].([]any)) < 2 {
			t.Fatalf("%s: no graph in %q", what, s)
		}
		return v
	}
	for _, file := range files {
		abs, _ := filepath.Abs(file)
		data, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"", "node,socket,core,gpu,storage", "node,numanode,L3cache,core,pu", "socket,group,core"} {
			args := []string{"-L", abs, "-f", "hwloc", "-F", "jgf"}
			if w != "" {
				args = append(args, "-W", w)
			}
			out, _, stderr, code := runCLI(t, args, "find status=up\nquit\n")
			if code != 0 {
				t.Fatalf("%s -W %q: exit %d: %s", file, w, code, stderr)
			}
			cliJGF, _, _ := strings.Cut(out, "\n")
			cli := decode(t, "resource-query", cliJGF)

			g, err := gofluxion.ReadGraph(gofluxion.FormatHwloc, data, w)
			if err != nil {
				t.Fatal(err)
			}
			m, err := gofluxion.New(g, gofluxion.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.Find("status=up", "jgf")
			if err != nil {
				t.Fatal(err)
			}
			root := decode(t, "root API", s)

			rc := fluxcli.NewReapiClient()
			opts, _ := json.Marshal(map[string]string{"load_format": "hwloc", "load_allowlist": w, "match_format": "jgf"})
			if err := rc.InitContext(string(data), string(opts)); err != nil {
				t.Fatalf("%s: reapi: %v (%s)", file, err, rc.GetErrMsg())
			}
			s, err = rc.Find("status=up")
			if err != nil {
				t.Fatal(err)
			}
			reapi := decode(t, "reapi", s)

			if !reflect.DeepEqual(cli, root) {
				t.Errorf("%s -W %q: the root API's graph differs from resource-query's:\n%v\n%v", file, w, root, cli)
			}
			if !reflect.DeepEqual(cli, reapi) {
				t.Errorf("%s -W %q: reapi's graph differs from resource-query's:\n%v\n%v", file, w, reapi, cli)
			}
		}
	}
}
