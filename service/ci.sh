#!/usr/bin/env bash
# CI for service/, a separate Go module (the library's go.mod never
# depends on gRPC or Raft). Run from anywhere, after the library's own
# tests: it checks formatting, vets, builds gofluxiond and gofluxionctl,
# runs the tests (state machine, client against in-process servers, the
# stand-alone crash test and the Raft failover test with real processes
# killed by SIGKILL, the partition test on raft's in-memory transport, the
# Kubernetes manifest check), the fast ones again under the race detector,
# and a short run of the benchmarks. See README.md for the time it takes.
set -euo pipefail
cd "$(dirname "$0")"
t0=$SECONDS
stamp() { echo "   ($(( SECONDS - t0 ))s)"; }

echo "== service: go version"; go version
echo "== service: the library's go.mod has no gRPC, protobuf or Raft dependency"
if grep -E 'grpc|protobuf|hashicorp|prometheus' ../go.mod; then echo "the root go.mod depends on the service's stack"; exit 1; fi

echo "== service: go mod download"
go mod download
stamp

echo "== service: gofmt"
unformatted=$(gofmt -l $(find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi

echo "== service: go vet ./..."
go vet ./...
stamp

echo "== service: go build ./cmd/..."
go build -o /dev/null ./cmd/gofluxiond
go build -o /dev/null ./cmd/gofluxionctl
stamp

echo "== service: go test ./... (unit, differential, crash, failover, partition, manifests)"
go test -count=1 -timeout 20m ./...
stamp

echo "== service: go test -race -short (state machine, client, server without the 10,000-op failover)"
go test -race -short -count=1 -timeout 20m ./state ./client ./server
stamp

echo "== service: benchmarks (short): in process, stand-alone, three replicas; 1 and 16 goroutines, 16 clients x 4 in flight"
go test -run '^$' -bench Ops -benchtime 400x ./server
stamp
echo "== service passed in $(( SECONDS - t0 ))s"
