#!/usr/bin/env bash
# make eval: focuscrawl's evaluation and benchmarks (long: ~30 min; not part of make test).
#   bash scripts/eval.sh            all parts below
#   bash scripts/eval.sh focus      issue 12's evaluation on real Debian corpora (tune and held-out
#                                   halves, ablations, BFS and plain best-first baselines, 3 runs
#                                   per cell) → docs/evaluation.md
#   bash scripts/eval.sh compare    strategy comparison → docs/evaluation-strategies.md (+ docs/eval/*.svg)
#   bash scripts/eval.sh bench      Go benchmarks of the hot paths + end-to-end throughput
#                                   against a plain Colly crawler → docs/benchmarks.md
#   bash scripts/eval.sh polite     the politeness benchmark (40 virtual hosts, Crawl-delay 1 s,
#                                   stragglers; Colly vs focuscrawl) → docs/benchmarks-polite.md
# Extra arguments after the part name go to `eval focus|compare` (e.g. --split heldout, --full).
# Corpora: the synthetic web (generated), and Debian documentation packages
# (internal/eval/focus.Registry; gimp-help-zh-cn and gimp-help-en for compare),
# fetched once into var/corpus with apt-get download + dpkg -x.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

part="${1:-all}"
[ $# -gt 0 ] && shift
export FOCUSCRAWL_TEMPORAL_BIN="$(bash scripts/ensure-temporal.sh)"
mkdir -p docs "$VAR_DIR/eval"

if [ "$part" = all ] || [ "$part" = focus ]; then
  say "focus evaluation on real corpora (tune + held-out, 3 runs per cell) → docs/evaluation.md"
  go run ./eval focus --split all --runs 3 --out docs/evaluation.md --corpus-cache "$VAR_DIR/corpus" --work "$VAR_DIR/eval" "$@"
fi

if [ "$part" = all ] || [ "$part" = compare ]; then
  say "strategy comparison (real crawls on a private Temporal dev server) → docs/evaluation-strategies.md"
  go run ./eval compare --out docs/evaluation-strategies.md --corpus-cache "$VAR_DIR/corpus" --work "$VAR_DIR/eval" "$@"
fi

if [ "$part" = all ] || [ "$part" = polite ]; then
  say "politeness benchmark: keeping every host busy (Colly, one rule per host, vs focuscrawl) → docs/benchmarks-polite.md"
  go run ./eval throughput --polite --polite-pages 3000 --out docs/benchmarks-polite.md \
    --corpus-cache "$VAR_DIR/corpus" --work "$VAR_DIR/eval/throughput"
fi

if [ "$part" = all ] || [ "$part" = bench ]; then
  say "Go benchmarks of the hot paths"
  bench="$VAR_DIR/eval/bench.txt"
  go test -run '^$' -bench . -benchmem -benchtime 1s \
    ./internal/parse/ ./internal/textproc/ ./internal/relevance/ ./internal/linkpred/ \
    ./internal/store/sqlite/ ./internal/index/sqlitefts/ ./internal/fetch/ ./internal/graph/ | tee "$bench"
  say "end-to-end throughput: focuscrawl vs Colly on the same loopback site → docs/benchmarks.md"
  go run ./eval throughput --out docs/benchmarks.md --bench "$bench" --work "$VAR_DIR/eval/throughput"
fi
