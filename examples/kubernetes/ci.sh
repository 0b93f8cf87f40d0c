#!/usr/bin/env bash
# CI for examples/kubernetes, a separate Go module (the library's go.mod
# never depends on Kubernetes). Run from anywhere, after the library's own
# tests: it checks formatting, vets, builds the scheduler, runs the unit
# tests (fake clientsets, the framework runtime), the end-to-end test (an
# embedded etcd and an in-process kube-apiserver on loopback, our
# kube-scheduler as a child process) and a short run of the benchmark.
# A cold build of the Kubernetes packages dominates: see README.md.
set -euo pipefail
cd "$(dirname "$0")"
t0=$SECONDS
stamp() { echo "   ($(( SECONDS - t0 ))s)"; }

echo "== examples/kubernetes: go version"; go version
echo "== examples/kubernetes: the library's go.mod has no Kubernetes dependency"
if grep -E 'k8s\.io|etcd' ../../go.mod; then echo "the root go.mod depends on Kubernetes"; exit 1; fi

echo "== examples/kubernetes: go mod download"
go mod download
stamp

echo "== examples/kubernetes: gofmt"
unformatted=$(gofmt -l $(find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi

echo "== examples/kubernetes: go build ./cmd/kube-scheduler"
go build -o /dev/null ./cmd/kube-scheduler
stamp

echo "== examples/kubernetes: go vet ./..."
go vet ./...
stamp

echo "== examples/kubernetes: go test ./... (unit, deploy configs, end to end)"
go test -count=1 -timeout 45m ./...
stamp

echo "== examples/kubernetes: benchmark (short): a 64-pod gang on 1,000 nodes"
go test -run '^$' -bench 'Gang64On1000Nodes' -benchtime 5x ./plugin
stamp

# the full run (5,000 nodes) takes much longer: see README.md
echo "== examples/kubernetes: BenchmarkThroughput (short: 500 nodes), default vs gofluxion profile"
GOFLUXION_BENCH_NODES=500 GOFLUXION_BENCH_TIMEOUT=10m \
	go test -run '^$' -bench BenchmarkThroughput -benchtime 1x ./throughput 2>&1 | grep -v '^[IWE][0-9]'
stamp
echo "== examples/kubernetes passed in $(( SECONDS - t0 ))s"
