# Shared helpers for the scripts in this folder (sourced, not run).
# Ports and paths can be overridden from the environment.
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
VAR_DIR="${VAR_DIR:-var}"
RUN_DIR="$VAR_DIR/run"
LOG_DIR="$VAR_DIR/log"
mkdir -p "$RUN_DIR" "$LOG_DIR" "$VAR_DIR/bin"

# metrics_address ROLE: the Prometheus endpoint (metrics.address) of the
# worker that make up (ROLE up) or make demo (ROLE demo) starts. Each has
# its own, following TEMPORAL_PORT (7233 gives up the configuration's default
# 127.0.0.1:9464): every worker took the default before, so make demo after
# make up, or a second make up on other ports from another checkout, started
# a worker that exited at once, its port taken.
metrics_address() {
  local port=$((TEMPORAL_PORT + 2231))
  [ "$1" = demo ] && port=$((port + 1))
  echo "127.0.0.1:$port"
}

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# is_running PIDFILE: the process recorded in PIDFILE is alive.
is_running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# wait_port HOST PORT SECONDS: wait until a TCP port accepts connections.
wait_port() {
  local host=$1 port=$2 secs=$3 i
  for ((i = 0; i <= secs * 10; i++)); do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then return 0; fi
    [ "$i" -lt $((secs * 10)) ] && sleep 0.1
  done
  return 1
}

# open_log FILE WHAT: FILE, a process's log, gets a line saying WHAT starts
# now; the process then appends to it. Each start truncated its log before:
# the make up that brought back a worker killed mid-crawl (kill -9, the
# OOM killer) wiped the dead worker's log, the one place that said what it
# was doing and why it stopped.
open_log() {
  printf '==== %s: starting %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$2" >>"$1"
}

# start_temporal: the dev server with its Web UI and a persistent database
# under var/, unless one is already listening.
start_temporal() {
  local bin
  bin="$(bash scripts/ensure-temporal.sh)"
  if wait_port 127.0.0.1 "$TEMPORAL_PORT" 0; then
    say "Temporal already listening on 127.0.0.1:$TEMPORAL_PORT"
    ensure_search_attributes "$bin"
    return 0
  fi
  say "starting Temporal dev server on 127.0.0.1:$TEMPORAL_PORT (UI http://127.0.0.1:$TEMPORAL_UI_PORT, db $VAR_DIR/temporal.db)"
  open_log "$LOG_DIR/temporal.log" "the Temporal dev server"
  nohup "$bin" server start-dev --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --db-filename "$VAR_DIR/temporal.db" --log-level warn \
    --search-attribute FocuscrawlTopic=Keyword --search-attribute FocuscrawlKind=Keyword \
    >>"$LOG_DIR/temporal.log" 2>&1 &
  echo $! >"$RUN_DIR/temporal.pid"
  if ! wait_port 127.0.0.1 "$TEMPORAL_PORT" 60; then
    echo "Temporal dev server did not start; see $LOG_DIR/temporal.log" >&2
    tail -20 "$LOG_DIR/temporal.log" >&2
    return 1
  fi
  # The frontend port opens before the namespace is ready; wait for it.
  local i
  for ((i = 0; i < 60; i++)); do
    "$bin" operator namespace describe --address "127.0.0.1:$TEMPORAL_PORT" default >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  echo "Temporal dev server is up but the default namespace is not ready" >&2
  return 1
}

# ensure_search_attributes BIN: register focuscrawl's custom search attributes
# (workflow list filters FocuscrawlTopic / FocuscrawlKind) on a server that
# was started elsewhere; registering an existing attribute is a no-op.
ensure_search_attributes() {
  local name
  for name in FocuscrawlTopic FocuscrawlKind; do
    "$1" operator search-attribute create --address "127.0.0.1:$TEMPORAL_PORT" --namespace default \
      --name "$name" --type Keyword >/dev/null 2>&1 ||
      "$1" operator search-attribute list --address "127.0.0.1:$TEMPORAL_PORT" --namespace default 2>/dev/null |
      grep -q "$name" || echo "warning: could not register search attribute $name" >&2
  done
}

build_binaries() {
  say "building worker, starter, search and eval"
  local cmd
  for cmd in worker starter search eval; do
    go build -o "$VAR_DIR/bin/$cmd" "./$cmd"
  done
}

# worker_fingerprint: a checksum of what a worker started now would run
# with: its binary and the FOCUSCRAWL_* environment that becomes its
# configuration. Only the checksum is written down, never the values (a DSN
# may carry a password).
worker_fingerprint() {
  { env | grep '^FOCUSCRAWL_' | sort; cksum <"$VAR_DIR/bin/worker"; } | cksum
}

# start_worker NAME: a worker in the background with the current environment
# (FOCUSCRAWL_* variables reach its configuration). A worker NAME already
# running is kept when it runs this build with these settings, and restarted
# otherwise: kept, a second 'FOCUSCRAWL_FETCH_ALLOW_PRIVATE_NETWORKS=true
# make up' left the first worker's settings in force, and a loopback crawl
# failed as ssrf.
start_worker() {
  local name=$1 fp
  fp="$(worker_fingerprint)"
  if is_running "$RUN_DIR/$name.pid"; then
    if [ "$(cat "$RUN_DIR/$name.fingerprint" 2>/dev/null)" = "$fp" ]; then
      say "worker $name already running (pid $(cat "$RUN_DIR/$name.pid"))"
      return 0
    fi
    say "worker $name (pid $(cat "$RUN_DIR/$name.pid")) runs another build or other FOCUSCRAWL_* settings: restarting it"
    stop_pid "$name"
  fi
  open_log "$LOG_DIR/$name.log" "worker $name"
  nohup "$VAR_DIR/bin/worker" >>"$LOG_DIR/$name.log" 2>&1 &
  echo $! >"$RUN_DIR/$name.pid"
  echo "$fp" >"$RUN_DIR/$name.fingerprint"
  sleep 1
  if ! is_running "$RUN_DIR/$name.pid"; then
    echo "worker $name exited at once; see $LOG_DIR/$name.log" >&2
    tail -20 "$LOG_DIR/$name.log" >&2
    return 1
  fi
  say "worker $name running (pid $(cat "$RUN_DIR/$name.pid"), log $LOG_DIR/$name.log)"
}

# stop_pid NAME: stop a background process started by these scripts:
# SIGTERM, then SIGKILL only after STOP_GRACE seconds (default 30). A worker
# told to stop finishes the pages it has in flight and returns its claims,
# which takes up to twice crawl.stop_timeout (10 s by default); killed after
# 5 s, as before, it left its claims leased (their pages fetched again
# after the lease) and requests it had sent were sent again.
stop_pid() {
  local f="$RUN_DIR/$1.pid" grace="${STOP_GRACE:-30}" waited=0
  if is_running "$f"; then
    kill "$(cat "$f")" 2>/dev/null || true
    while is_running "$f" && [ "$waited" -lt $((grace * 10)) ]; do
      [ "$waited" -eq 20 ] && say "waiting for $1 to finish its graceful stop (up to ${grace}s)"
      sleep 0.1
      waited=$((waited + 1))
    done
    is_running "$f" && kill -9 "$(cat "$f")" 2>/dev/null || true
    say "stopped $1"
  fi
  rm -f "$f"
}
