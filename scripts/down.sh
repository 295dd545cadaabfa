#!/usr/bin/env bash
# make down: stop what make up / make demo started in the background.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
stop_pid demo-site
stop_pid demo-worker
stop_pid worker
stop_pid temporal
