#!/usr/bin/env bash
# Runs every test: vet, unit tests and the integration tests that start a real
# Temporal dev server, real worker processes and loopback web sites.
# Set-up is automatic: Go modules download through the module proxy and the
# Temporal CLI is built once into $(go env GOPATH)/bin (about 4 minutes the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
FOCUSCRAWL_TEMPORAL_BIN="$(bash scripts/ensure-temporal.sh)"
export FOCUSCRAWL_TEMPORAL_BIN
echo "== go vet ./..."
go vet ./...
echo "== go test ./... (unit + integration; Temporal CLI: $FOCUSCRAWL_TEMPORAL_BIN)"
go test -count=1 -timeout 40m ./...
