package main

import (
	"os"
	"strings"
	"testing"

	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	"sigs.k8s.io/yaml"

	"github.com/gofluxion/gofluxion/examples/kubernetes/plugin"
)

// The deployment's scheduler configurations load as stock
// KubeSchedulerConfigurations and give the plugin valid args.
func TestDeployConfigs(t *testing.T) {
	logger, _ := ktesting.NewTestContext(t)
	// the file, and the copy embedded in the Deployment's ConfigMap
	manifest, err := os.ReadFile("../../deploy/scheduler.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var embedded string
	for _, doc := range strings.Split(string(manifest), "\n---\n") {
		var cm struct {
			Kind string            `json:"kind"`
			Data map[string]string `json:"data"`
		}
		if err := yaml.Unmarshal([]byte(doc), &cm); err == nil && cm.Kind == "ConfigMap" {
			embedded = cm.Data["scheduler-config.yaml"]
		}
	}
	if embedded == "" {
		t.Fatal("no scheduler config in deploy/scheduler.yaml")
	}
	tmp := t.TempDir() + "/embedded.yaml"
	if err := os.WriteFile(tmp, []byte(embedded), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"../../deploy/scheduler-config.yaml", tmp} {
		cfg, err := options.LoadConfigFromFile(logger, file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "gofluxion" {
			t.Fatalf("%s: profiles %+v", file, cfg.Profiles)
		}
		found := false
		for _, pc := range cfg.Profiles[0].PluginConfig {
			if pc.Name == plugin.Name {
				found = true
				if _, err := plugin.DecodeArgs(pc.Args); err != nil {
					t.Errorf("%s: %v", file, err)
				}
			}
		}
		if !found {
			t.Errorf("%s: no args for %s", file, plugin.Name)
		}
		if !cfg.LeaderElection.LeaderElect {
			t.Errorf("%s: leader election is off", file)
		}
	}
}
