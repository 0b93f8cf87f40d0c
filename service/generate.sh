#!/usr/bin/env bash
# Regenerates pb/ from proto/ with buf; the plugins run with go run, so
# nothing but Go is needed. The generated code is committed.
set -euo pipefail
cd "$(dirname "$0")"
go run github.com/bufbuild/buf/cmd/buf@v1.75.0 generate
