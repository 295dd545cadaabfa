// Command eval runs focuscrawl's evaluation tools: real crawls through a
// private Temporal dev server and an in-process worker, benchmarks, and the
// synthetic web and loopback server that demos and evaluations crawl. Long
// runs are driven by scripts/eval.sh (make eval).
//
//	go run ./eval focus --split all --runs 3              # → docs/evaluation.md
//	go run ./eval compare                                 # → docs/evaluation-strategies.md
//	go run ./eval throughput --out docs/benchmarks.md     # (--polite: docs/benchmarks-polite.md)
//	go run ./eval pgbench --update docs/benchmarks.md     # PostgreSQL store at size
//	go run ./eval pagemodel --logs var/eval/focus/logs    # offline page models over earlier crawl logs
//	go run ./eval search --split tune                     # the search index's ranking on the focus corpora
//	go run ./eval gen-site --out DIR [--seed N]
//	go run ./eval serve-site --dir DIR [--addr 127.0.0.1:8089]
//
// The tools are in package evalcmd; the worker they crawl with is the
// worker command's own (package crawlworker).
package main

import (
	"log/slog"

	"go.temporal.io/sdk/client"

	"focuscrawl/crawlworker"
	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/eval/evalcmd"
	"focuscrawl/internal/eval/harness"
)

// startWorker starts the in-process worker of the crawling tools.
func startWorker(c client.Client, cfg *config.Config, log *slog.Logger) (harness.Worker, error) {
	w, err := crawlworker.Start(c, cfg, log)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return w, nil
}

func main() {
	crawlworker.TuneGC() // the in-process worker runs as the worker command does; the whole process, baselines included
	cli.Main("eval", "focuscrawl's evaluation tools", evalcmd.Commands(startWorker))
}
