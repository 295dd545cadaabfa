#!/usr/bin/env bash
# Ensures the Temporal CLI (dev server) v1.5.1 is installed into $(go env GOPATH)/bin,
# a cache outside the clone, so fresh clones and CI reuse it. Prints the binary's path.
# The first build takes about 4 minutes; later calls return at once.
set -euo pipefail
want="1.5.1"
bin="$(go env GOPATH)/bin/temporal"
# The CLI reports "0.0.0-DEV" as its version when built with go install, so
# read the module version from the binary's embedded build information.
if [ -x "$bin" ] && go version -m "$bin" 2>/dev/null | grep -Eq "mod[[:space:]]+github.com/temporalio/cli[[:space:]]+v$want"; then
  echo "$bin"
  exit 0
fi
echo "building Temporal CLI v$want into $(dirname "$bin") (one time, ~4 min)..." >&2
GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@v$want" >&2
"$bin" --version >&2
echo "$bin"
