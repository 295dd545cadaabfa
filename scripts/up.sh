#!/usr/bin/env bash
# make up: Temporal dev server + one worker in the background. FOCUSCRAWL_*
# variables set when calling it reach the worker's configuration, e.g.
#   FOCUSCRAWL_FETCH_HOST_DELAY=0s make up
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
start_temporal
build_binaries
# The worker (and the starter's UI links) follow TEMPORAL_PORT and
# TEMPORAL_UI_PORT: with only the server moved, the worker dialled 7233 and
# exited at once.
export FOCUSCRAWL_TEMPORAL_ADDRESS="${FOCUSCRAWL_TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"
export FOCUSCRAWL_TEMPORAL_UI_URL="${FOCUSCRAWL_TEMPORAL_UI_URL:-http://127.0.0.1:$TEMPORAL_UI_PORT}"
export FOCUSCRAWL_METRICS_ADDRESS="${FOCUSCRAWL_METRICS_ADDRESS-$(metrics_address up)}"
# Another VAR_DIR is another installation: its crawl store and index live
# there too (they stayed in var/, shared with the default one), unless set.
if [ "$VAR_DIR" != var ]; then
  export FOCUSCRAWL_STORE_PATH="${FOCUSCRAWL_STORE_PATH:-$VAR_DIR/crawl.db}"
  export FOCUSCRAWL_INDEX_PATH="${FOCUSCRAWL_INDEX_PATH:-$VAR_DIR/index.db}"
fi
start_worker worker
# make down reads the same VAR_DIR: with another, plain 'make down' stops
# nothing of this one.
down="make down"
[ "$VAR_DIR" = var ] || down="VAR_DIR=$VAR_DIR make down"
cat <<MSG

focuscrawl is up.
  Temporal UI:  http://127.0.0.1:$TEMPORAL_UI_PORT
  start a crawl: $VAR_DIR/bin/starter crawl --topic topics/example-en.yaml --wait
  search it:     $VAR_DIR/bin/search query "QUERY"   (search serve: the search page)
  (or: go run ./starter ..., go run ./search ...)      stop everything: $down
  worker metrics: ${FOCUSCRAWL_METRICS_ADDRESS:-off}
MSG
if [ "$VAR_DIR" != var ]; then
  cat <<MSG
  This installation's store and index are not the default ones: search and export need
    export FOCUSCRAWL_STORE_PATH=$FOCUSCRAWL_STORE_PATH FOCUSCRAWL_INDEX_PATH=$FOCUSCRAWL_INDEX_PATH
MSG
fi
if [ "$FOCUSCRAWL_TEMPORAL_ADDRESS" != 127.0.0.1:7233 ]; then
  cat <<MSG
  Temporal is not on its default address: the starter needs
    export FOCUSCRAWL_TEMPORAL_ADDRESS=$FOCUSCRAWL_TEMPORAL_ADDRESS FOCUSCRAWL_TEMPORAL_UI_URL=$FOCUSCRAWL_TEMPORAL_UI_URL
MSG
fi
