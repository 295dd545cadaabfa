#!/usr/bin/env bash
# make up: Temporal dev server + one worker in the background. FOCUSCRAWL_*
# variables set when calling it reach the worker's configuration, e.g.
#   FOCUSCRAWL_FETCH_HOST_DELAY=0s make up
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
start_temporal
build_binaries
start_worker worker
cat <<MSG

focuscrawl is up.
  Temporal UI:  http://127.0.0.1:$TEMPORAL_UI_PORT
  start a crawl: $VAR_DIR/bin/starter crawl --topic topics/example-en.yaml --wait
  search it:     $VAR_DIR/bin/search query "QUERY"   (search serve: the search page)
  (or: go run ./starter ..., go run ./search ...)      stop everything: make down
MSG
