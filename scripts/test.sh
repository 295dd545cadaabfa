#!/usr/bin/env bash
# Runs every test: vet, unit tests and the integration tests that start a real
# Temporal dev server, real worker processes and loopback web sites, then a
# short run of every parser's fuzz target (scripts/fuzz.sh).
# Set-up is automatic: Go modules download through the module proxy and the
# Temporal CLI is built once into $(go env GOPATH)/bin (about 4 minutes the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
# The search page's browser test needs Chromium; install it when we can (root
# with apt-get), otherwise that one test skips with a message.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing chromium (Debian package) for the search page test"
  # A fresh machine may have no package lists yet: update once and retry.
  apt-get install -y -q chromium fonts-noto-cjk >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q chromium fonts-noto-cjk >/dev/null; } ||
    echo "chromium install failed: the browser test will skip"
fi
# The operator's own settings (make up prints "export
# FOCUSCRAWL_TEMPORAL_ADDRESS=..."; the README suggests
# FOCUSCRAWL_FETCH_HOST_DELAY=0s) would reach every configuration the tests
# load and fail those that check the defaults: only the tests' own switches
# are kept (config.OtherEnv names them).
for v in $(compgen -e | grep '^FOCUSCRAWL_' || true); do
  case "$v" in
    FOCUSCRAWL_TEMPORAL_BIN | FOCUSCRAWL_TEST_POSTGRES_DSN | FOCUSCRAWL_REQUIRE_POSTGRES | FOCUSCRAWL_ARTIFACT_DIR | FOCUSCRAWL_JIEBA_DICT_DIR) ;;
    *) echo "note: $v is not passed to the tests (an operator setting)"; unset "$v" ;;
  esac
done
FOCUSCRAWL_TEMPORAL_BIN="$(bash scripts/ensure-temporal.sh)"
export FOCUSCRAWL_TEMPORAL_BIN
# The PostgreSQL crawl store's tests use a server at 127.0.0.1:5432 (or
# $FOCUSCRAWL_TEST_POSTGRES_DSN); without one they skip, saying so.
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "note: no PostgreSQL at 127.0.0.1:5432: the PostgreSQL store tests will skip"
fi
echo "== go vet ./..."
go vet ./...
echo "== go test ./... (unit + integration; Temporal CLI: $FOCUSCRAWL_TEMPORAL_BIN)"
go test -count=1 -timeout 40m ./...
echo "== fuzz targets, 3 s each (longer: bash scripts/fuzz.sh 10m)"
bash scripts/fuzz.sh 3s
