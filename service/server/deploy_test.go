package server

import (
	"io"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDeployManifest checks the Kubernetes example: a headless Service
// and a StatefulSet of three whose container arguments gofluxiond accepts,
// with one peer per replica named as the StatefulSet names its pods.
func TestDeployManifest(t *testing.T) {
	f, err := os.Open("../deploy/kubernetes/gofluxiond.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var headless, sts bool
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     struct {
				ClusterIP   string `yaml:"clusterIP"`
				Replicas    int
				ServiceName string `yaml:"serviceName"`
				Template    struct {
					Spec struct {
						Containers []struct{ Args []string }
					}
				}
			}
		}
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch doc.Kind {
		case "Service":
			headless = doc.Spec.ClusterIP == "None"
		case "StatefulSet":
			sts = true
			if doc.Spec.Replicas != 3 || doc.Spec.ServiceName != "gofluxiond" {
				t.Fatalf("replicas %d, service %q", doc.Spec.Replicas, doc.Spec.ServiceName)
			}
			args := doc.Spec.Template.Spec.Containers[0].Args
			for i := range args {
				args[i] = strings.NewReplacer("$(POD_NAME)", "gofluxiond-1", "$(GRAPH)", "demo", "$(POLICY)", "first").Replace(args[i])
			}
			c, err := parseArgs(args, io.Discard)
			if err != nil {
				t.Fatalf("gofluxiond refuses %q: %v", args, err)
			}
			peers, _ := parsePeers(c.peers)
			if c.mode != "raft" || !c.bootstrap || len(peers) != 3 {
				t.Fatalf("mode %s, bootstrap %v, %d peers", c.mode, c.bootstrap, len(peers))
			}
			for i, p := range peers {
				want := "gofluxiond-" + string(rune('0'+i))
				if p.ID != want || !strings.HasPrefix(p.RaftAddr, want+".gofluxiond:") || !strings.HasPrefix(p.GRPCAddr, want+".gofluxiond:") {
					t.Fatalf("peer %d is %+v", i, p)
				}
			}
			if c.id != "gofluxiond-1" || c.raftAdv != "gofluxiond-1.gofluxiond:7080" {
				t.Fatalf("id %q, raft advertise %q", c.id, c.raftAdv)
			}
		}
	}
	if !headless || !sts {
		t.Fatalf("headless service %v, statefulset %v", headless, sts)
	}
}

// TestEmptyGraph: -graph empty starts from a cluster0 vertex with the
// listed types known, as the Kubernetes plugin's matcher does.
func TestEmptyGraph(t *testing.T) {
	g, err := loadGraph("empty", "node,slot,core")
	if err != nil {
		t.Fatal(err)
	}
	if g.NumVertices() != 1 || len(g.ByPath("/cluster0")) != 1 {
		t.Fatalf("%d vertices", g.NumVertices())
	}
	for _, ty := range []string{"node", "slot", "core"} {
		if _, ok := g.Types.Lookup(ty); !ok {
			t.Fatalf("type %s unknown", ty)
		}
	}
}
