#!/usr/bin/env bash
# make demo: a complete offline topic crawl on this machine.
#  1. builds what it needs (Temporal CLI once into $(go env GOPATH)/bin, the commands)
#  2. starts the Temporal dev server (Web UI, persistent db under var/) unless running
#  3. serves a real documentation web on loopback: the Chinese GIMP manual from
#     Debian's gimp-help-zh-cn package (apt-get download + dpkg -x), or, where apt
#     cannot fetch it, focuscrawl's own generated synthetic web
#  4. starts a demo worker, crawls the topic with progress, prints a summary
#     and a few search results, and leaves the Temporal UI running for you.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

DEMO_DIR="$VAR_DIR/demo"
CORPUS_DIR="$VAR_DIR/corpus"
SITE_PORT="${DEMO_SITE_PORT:-8089}"
mkdir -p "$DEMO_DIR" "$CORPUS_DIR"

cleanup() { stop_pid demo-site; stop_pid demo-worker; }
trap cleanup EXIT

start_temporal
build_binaries

# --- the demo web -----------------------------------------------------------
GIMP_DIR="$CORPUS_DIR/gimp-help-zh-cn/usr/share/gimp/2.0/help/zh_CN"
fetch_gimp() {
  command -v apt-get >/dev/null && command -v dpkg >/dev/null || return 1
  [ -f "$GIMP_DIR/index.html" ] && return 0
  say "fetching Debian package gimp-help-zh-cn (the GIMP manual in Chinese, ~50 MB)"
  local tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && apt-get download gimp-help-zh-cn >/dev/null 2>&1) ||
    { [ "$(id -u)" = 0 ] && apt-get update -qq >/dev/null 2>&1 && (cd "$tmp" && apt-get download gimp-help-zh-cn >/dev/null 2>&1); } ||
    { rm -rf "$tmp"; return 1; }
  dpkg -x "$tmp"/gimp-help-zh-cn_*.deb "$CORPUS_DIR/gimp-help-zh-cn"
  rm -rf "$tmp"
  [ -f "$GIMP_DIR/index.html" ]
}

if [ "${DEMO_CORPUS:-gimp}" = gimp ] && fetch_gimp; then
  SITE_DIR="$GIMP_DIR"
  TOPIC="topics/demo-gimp-filters-zh.yaml"
  RESOLVE="docs.gimp.test=127.0.0.1:$SITE_PORT"
  QUERIES=("模糊滤镜" "光照 阴影" "gaussian blur")
  MORE_QUERY="图层"
  say "demo web: the GIMP manual in Chinese ($(find "$SITE_DIR" -name '*.html' | wc -l) pages) as http://docs.gimp.test/"
else
  SITE_DIR="$CORPUS_DIR/synth"
  say "apt cannot provide the GIMP manual here; generating focuscrawl's synthetic web instead"
  rm -rf "$SITE_DIR"
  "$VAR_DIR/bin/eval" gen-site --out "$SITE_DIR" --seed 1
  TOPIC="$SITE_DIR/topic.yaml"
  RESOLVE="*.test=127.0.0.1:$SITE_PORT"
  QUERIES=("neural network" "机器学习 模型" "gradient")
  MORE_QUERY="机器学习"
fi

stop_pid demo-site
# Another program on the port would answer the crawl in the demo web's
# place (a crawl of a stranger's site, or of nothing: one 404 and done).
# (Up to 2 s: a demo site just stopped, kill -9 included, may still hold it.)
for _ in $(seq 20); do wait_port 127.0.0.1 "$SITE_PORT" 0 || break; sleep 0.1; done
if wait_port 127.0.0.1 "$SITE_PORT" 0; then
  echo "port $SITE_PORT is taken by another program; the demo web needs it (or set DEMO_SITE_PORT=another port)" >&2
  exit 1
fi
nohup "$VAR_DIR/bin/eval" serve-site --dir "$SITE_DIR" --addr "127.0.0.1:$SITE_PORT" >"$LOG_DIR/demo-site.log" 2>&1 &
echo $! >"$RUN_DIR/demo-site.pid"
if ! wait_port 127.0.0.1 "$SITE_PORT" 30 || ! is_running "$RUN_DIR/demo-site.pid"; then
  echo "demo site did not start; see $LOG_DIR/demo-site.log" >&2
  exit 1
fi

# --- the demo worker: its own task queue, store and index under var/demo ------
export FOCUSCRAWL_TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT"
export FOCUSCRAWL_TEMPORAL_UI_URL="http://127.0.0.1:$TEMPORAL_UI_PORT"
export FOCUSCRAWL_TEMPORAL_TASK_QUEUE="focuscrawl-demo"
# Always its own, even over a FOCUSCRAWL_METRICS_ADDRESS in the environment:
# that one is the make up worker's, which may be running beside the demo.
export FOCUSCRAWL_METRICS_ADDRESS="$(metrics_address demo)"
export FOCUSCRAWL_STORE_PATH="$DEMO_DIR/crawl.db"
export FOCUSCRAWL_INDEX_PATH="$DEMO_DIR/index.db"
export FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true   # the demo web is on loopback
export FOCUSCRAWL_FETCH_RESOLVE="$RESOLVE"
export FOCUSCRAWL_FETCH_HOST_DELAY="${DEMO_HOST_DELAY:-10ms}"  # our own local server: no need to be slow
stop_pid demo-worker
start_worker demo-worker

say "crawling (topic file $TOPIC)"
"$VAR_DIR/bin/starter" crawl --topic "$TOPIC" --fresh --wait | tee "$DEMO_DIR/crawl.out"
CRAWL_ID="$(sed -n 's/^crawl started: //p' "$DEMO_DIR/crawl.out" | head -n 1)"
"$VAR_DIR/bin/search" export "$CRAWL_ID" --out "$DEMO_DIR/crawl-log.jsonl" --force # the demo's own file, from its last run

for q in "${QUERIES[@]}"; do
  say "search: $q"
  "$VAR_DIR/bin/search" query --limit 3 "$q"
done

down="make down"
[ "$VAR_DIR" = var ] || down="VAR_DIR=$VAR_DIR make down"
cat <<MSG

Demo finished.
  crawl log (JSON Lines): $DEMO_DIR/crawl-log.jsonl
  search more:            FOCUSCRAWL_INDEX_PATH=$DEMO_DIR/index.db go run ./search query "$MORE_QUERY"
  Temporal Web UI:        http://127.0.0.1:$TEMPORAL_UI_PORT  (the dev server keeps running; '$down' stops it)
MSG
