// Package evalcmd is the logic of the eval command, focuscrawl's evaluation
// tools: the focus evaluation on real corpora and the strategy comparison
// (real crawls through the evaluation harness), the throughput and
// politeness benchmarks (package throughput), the PostgreSQL store benchmark
// (package pgbench), and the synthetic web and loopback replay server that
// demos and evaluations crawl. The in-process worker the crawls run on is
// the caller's (crawlworker.Start), so this package builds on the contract
// alone.
package evalcmd

import (
	"context"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/throughput"
	"focuscrawl/internal/store/postgres/pgbench"
)

// Commands returns the eval command's subcommands by name; start starts the
// in-process worker of the tools that crawl.
func Commands(start harness.StartWorker) map[string]cli.Command {
	commands := map[string]cli.Command{
		"focus": {
			Summary: "the focus evaluation: real Debian corpora, tune/held-out split, ablations, baselines ([--split tune|heldout|fresh|all] [--runs 3] [--out FILE])",
			Flags:   evalFlags,
			Run:     func(ctx context.Context, env *cli.Env) error { return runFocus(ctx, env, start) },
		},
		"compare": {
			Summary: "compare strategies with real crawls of the synthetic web and the GIMP manuals ([--corpora …] [--pages N] [--full] [--out FILE])",
			Flags:   evalFlags,
			Run:     func(ctx context.Context, env *cli.Env) error { return runCompare(ctx, env, start) },
		},
		"pagemodel": {
			Summary: "the offline page-model evaluator: replay earlier focus crawl logs with candidate page scores and acceptance rules (--logs DIR [--split tune] [--out FILE])",
			Flags:   pagemodelFlags,
			Run:     func(_ context.Context, env *cli.Env) error { return runPageModel(env) },
		},
		"search": {
			Summary: "the search index's ranking on the focus corpora: topic keywords as queries, targets as relevant ([--split tune|heldout|fresh|all] [--out FILE])",
			Flags:   searchFlags,
			Run:     runSearch,
		},
		"throughput": {
			Summary: "end-to-end throughput against Colly (--out FILE [--bench FILE]), or with --polite the politeness benchmark",
			Main:    func(ctx context.Context, args []string) error { return throughput.Main(ctx, args, start) },
		},
		"pgbench": {
			Summary: "the PostgreSQL crawl store at size and with several workers (--rows, --edges, --workers, --update FILE)",
			Main:    pgbench.Main,
		},
	}
	siteCommands(commands)
	return commands
}
