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

// deploy/kustomization.yaml lists files that exist, and its image
// override names the image the Deployment uses.
func TestKustomization(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		Resources  []string `json:"resources"`
		Images     []struct {
			Name, NewName, NewTag string
		} `json:"images"`
	}
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		t.Fatal(err)
	}
	if k.Kind != "Kustomization" || len(k.Resources) == 0 || len(k.Images) != 1 {
		t.Fatalf("%+v", k)
	}
	var all string
	for _, r := range k.Resources {
		b, err := os.ReadFile("../../deploy/" + r)
		if err != nil {
			t.Fatalf("resource %s: %v", r, err)
		}
		all += string(b)
	}
	if !strings.Contains(all, "image: "+k.Images[0].Name+":") {
		t.Errorf("no image %s in %v", k.Images[0].Name, k.Resources)
	}
}
