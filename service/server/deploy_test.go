package server

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gofluxion/gofluxion/service/internal/testcerts"
	"go.yaml.in/yaml/v3"
)

// TestDeployManifest checks the Kubernetes example: a headless Service
// and a StatefulSet of three whose container arguments gofluxiond accepts,
// with one peer per replica named as the StatefulSet names its pods; TLS
// from Secrets mounted where the arguments say, credentials gofluxiond
// accepts on 0.0.0.0 without -insecure (checked with certificates made
// here and the manifest's roles), a roles file that makes the replicas
// admin, and a NetworkPolicy that keeps the Raft port to the replicas.
func TestDeployManifest(t *testing.T) {
	f, err := os.Open("../deploy/kubernetes/gofluxiond.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	var headless, sts, netpol bool
	var roles string
	var stsArgs []string
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
						Containers []struct {
							Args         []string
							VolumeMounts []struct {
								Name      string
								MountPath string `yaml:"mountPath"`
							} `yaml:"volumeMounts"`
						}
						Volumes []struct {
							Name   string
							Secret *struct {
								SecretName string `yaml:"secretName"`
							}
						}
					}
				}
				PodSelector struct {
					MatchLabels map[string]string `yaml:"matchLabels"`
				} `yaml:"podSelector"`
				Ingress []struct {
					From []struct {
						PodSelector *struct {
							MatchLabels map[string]string `yaml:"matchLabels"`
						} `yaml:"podSelector"`
						NamespaceSelector *struct{} `yaml:"namespaceSelector"`
					}
					Ports []struct{ Port int }
				}
			}
			StringData map[string]string `yaml:"stringData"`
		}
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		switch doc.Kind {
		case "Service":
			headless = doc.Spec.ClusterIP == "None"
		case "Secret":
			if doc.Metadata.Name == "gofluxiond-roles" {
				roles = doc.StringData["roles"]
			}
		case "NetworkPolicy":
			netpol = true
			if doc.Spec.PodSelector.MatchLabels["app"] != "gofluxiond" {
				t.Fatalf("the NetworkPolicy selects %v", doc.Spec.PodSelector.MatchLabels)
			}
			for _, in := range doc.Spec.Ingress {
				raft := slices.ContainsFunc(in.Ports, func(p struct{ Port int }) bool { return p.Port == 7080 })
				if len(in.Ports) == 0 || len(in.From) == 0 {
					t.Fatalf("an ingress rule open to every port or every peer: %+v", in)
				}
				for _, f := range in.From {
					if raft && (f.NamespaceSelector != nil || f.PodSelector == nil || f.PodSelector.MatchLabels["app"] != "gofluxiond") {
						t.Fatalf("the Raft port is open beyond the replicas: %+v", in)
					}
				}
			}
		case "StatefulSet":
			sts = true
			if doc.Spec.Replicas != 3 || doc.Spec.ServiceName != "gofluxiond" {
				t.Fatalf("replicas %d, service %q", doc.Spec.Replicas, doc.Spec.ServiceName)
			}
			ctr := doc.Spec.Template.Spec.Containers[0]
			args := ctr.Args
			// The TLS and roles files are in mounted Secrets.
			secretAt := map[string]string{}
			for _, m := range ctr.VolumeMounts {
				for _, v := range doc.Spec.Template.Spec.Volumes {
					if v.Name == m.Name && v.Secret != nil {
						secretAt[m.MountPath] = v.Secret.SecretName
					}
				}
			}
			for _, flag := range []string{"-ca=", "-cert=", "-key=", "-roles="} {
				i := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, flag) })
				if i < 0 {
					t.Fatalf("no %s argument", flag)
				}
				want := "gofluxiond-tls"
				if flag == "-roles=" {
					want = "gofluxiond-roles"
				}
				if dir := filepath.Dir(strings.TrimPrefix(args[i], flag)); secretAt[dir] != want {
					t.Fatalf("%s: %s is not the Secret %s (mounts %v)", flag, dir, want, secretAt)
				}
			}
			stsArgs = slices.Clone(args)
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
	if !headless || !sts || !netpol || roles == "" {
		t.Fatalf("headless service %v, statefulset %v, network policy %v, roles %q", headless, sts, netpol, roles)
	}

	// The replicas' certificate, as cert-manager.yaml issues it.
	crt := replicaCertificate(t)
	if crt.SecretName != "gofluxiond-tls" {
		t.Fatalf("cert-manager writes %s", crt.SecretName)
	}
	for i := range 3 {
		name := "gofluxiond-" + string(rune('0'+i)) + ".gofluxiond"
		if !slices.Contains(crt.DNSNames, name) {
			t.Fatalf("the replicas' certificate does not name %s: %v", name, crt.DNSNames)
		}
	}
	if !slices.Contains(crt.Usages, "server auth") || !slices.Contains(crt.Usages, "client auth") {
		t.Fatalf("usages %v: replicas are servers and clients", crt.Usages)
	}
	rs, err := ParseRoles("roles", []byte(roles))
	if err != nil {
		t.Fatal(err)
	}
	if rs.certs[crt.CommonName] != RoleAdmin {
		t.Fatalf("the replicas' certificate (%s) is %v, not admin: they could not replicate", crt.CommonName, rs.certs[crt.CommonName])
	}

	// gofluxiond accepts the arguments with such files, on 0.0.0.0,
	// without -insecure.
	dir := t.TempDir()
	ca, err := testcerts.NewCA(dir, "ca")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ca.IssueFor(dir, crt.CommonName, crt.DNSNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "roles"), []byte(roles), 0o600)
	files := map[string]string{"/etc/gofluxiond/tls/ca.crt": ca.File, "/etc/gofluxiond/tls/tls.crt": p.Cert,
		"/etc/gofluxiond/tls/tls.key": p.Key, "/etc/gofluxiond/roles/roles": filepath.Join(dir, "roles")}
	for i, a := range stsArgs {
		if a == "-insecure" || strings.HasPrefix(a, "-insecure=") {
			t.Fatal("the manifest runs with -insecure")
		}
		if k, v, ok := strings.Cut(a, "="); ok && files[v] != "" {
			stsArgs[i] = k + "=" + files[v]
		}
		stsArgs[i] = strings.NewReplacer("$(POD_NAME)", "gofluxiond-1", "$(GRAPH)", "demo", "$(POLICY)", "first").Replace(stsArgs[i])
	}
	c, err := parseArgs(stsArgs, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sec, err := c.security()
	if err != nil {
		t.Fatalf("gofluxiond refuses the manifest's credentials: %v", err)
	}
	if !sec.Credentialed() || !sec.TLS.HasCA() || sec.Auth.Open() {
		t.Fatal("the manifest does not run mutual TLS with roles")
	}
}

type certManagerCert struct {
	SecretName string   `yaml:"secretName"`
	CommonName string   `yaml:"commonName"`
	DNSNames   []string `yaml:"dnsNames"`
	Usages     []string
}

// replicaCertificate is the cert-manager Certificate that writes the
// replicas' Secret.
func replicaCertificate(t *testing.T) certManagerCert {
	f, err := os.Open("../deploy/kubernetes/cert-manager.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	for {
		var doc struct {
			Kind     string
			Metadata struct{ Name string }
			Spec     certManagerCert
		}
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if doc.Kind == "Certificate" && doc.Metadata.Name == "gofluxiond-tls" {
			return doc.Spec
		}
	}
	t.Fatal("cert-manager.yaml has no Certificate gofluxiond-tls")
	return certManagerCert{}
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
