package evalcmd

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/replay"
	"focuscrawl/internal/eval/synth"
)

// evalFlags are the flags of compare and focus (both run real crawls).
func evalFlags(fs *pflag.FlagSet) {
	fs.String("out", "", "Markdown report to write (default: focus → docs/evaluation.md, compare → docs/evaluation-strategies.md; compare's plots go to <dir>/eval/)")
	fs.String("work", "var/eval", "working directory: crawl store, index, crawl logs, synthetic web")
	fs.String("corpus-cache", "var/corpus", "where Debian documentation packages are unpacked (apt-get download + dpkg -x)")
	fs.StringSlice("corpora", []string{"synth", "synth-sparse", "gimp-help-zh-cn", "gimp-help-en"},
		"corpora to crawl (synth: the generator's default web; synth-sparse: 60 sites, 10% on topic)")
	fs.Int("pages", 1000, "page budget of every crawl")
	fs.Int("n", 500, "N of the harvest@N and recall@N columns")
	fs.Int64("synth-seed", 1, "seed of the synthetic web")
	fs.Int("synth-hosts", 0, "sites of the synthetic web (0 = generator default)")
	fs.Float64("synth-on-topic", -1, "share of on-topic sites of the synthetic web (-1 = generator default)")
	fs.Bool("full", false, "cross every link predictor with every page filter (default: each predictor with the default filter, each filter with the default predictor)")
	fs.StringSlice("predictors", nil, "link predictors to compare (default: every registered one)")
	fs.StringSlice("filters", nil, "page filters to compare (default: every registered one)")
	fs.String("temporal-bin", "", "Temporal CLI for the private dev server (default $(go env GOPATH)/bin/temporal)")
	fs.String("temporal-existing", "", "use this running Temporal server (host:port) instead of a private dev server")
	fs.String("split", "all", "focus: corpora to run: tune, heldout, fresh or all")
	fs.StringSlice("focus-corpora", nil, "focus: run only these registry corpora (overrides --split)")
	fs.Int("runs", 3, "focus: runs per cell (at least 3)")
	fs.Bool("sitemaps", false, "focus: serve every corpus with a robots.txt naming a generated sitemap of its HTML pages (for a sitemaps=true configuration; the packages have none)")
	fs.Bool("list", false, "focus: unpack and label the corpora, list the topics (targets, budgets) and exit without crawling")
	fs.StringSlice("configs", nil, "focus: configurations to run (default: all but the learning cells; \"learning\" = the learning on/off cells of jlse, bfc and anchor-context; \"all\" = both; only when named: bootstrapped (the topic drafted from three targets), \"<configuration> elsewhere\" (crawled on another project's corpus), \"<configuration> multi-site\" (also seeded at two other corpora's front pages, first), sitemaps, strategy.KEY=VALUE, breadth=broad|specific, \"A + B\")")
	fs.String("render", "", "focus: re-render the report from a results.json of an earlier run (<work>/focus/results.json) without crawling; several, comma-separated, are merged (cells the first lacks are added)")
}

// runCompare is `eval compare`: every strategy combination crawled on the
// synthetic web and the GIMP manuals, written as a report with plots.
func runCompare(ctx context.Context, env *cli.Env, start harness.StartWorker) error {
	if len(env.Args) != 0 {
		return cli.UsageError("usage: eval compare [--out FILE] [--corpora synth,gimp-help-zh-cn,gimp-help-en] [--pages N] [--full]")
	}
	fs := env.FS
	out, _ := fs.GetString("out")
	if out == "" {
		out = "docs/evaluation-strategies.md"
	}
	work, _ := fs.GetString("work")
	cache, _ := fs.GetString("corpus-cache")
	names, _ := fs.GetStringSlice("corpora")
	pages, _ := fs.GetInt("pages")
	n, _ := fs.GetInt("n")
	seed, _ := fs.GetInt64("synth-seed")
	full, _ := fs.GetBool("full")
	preds, _ := fs.GetStringSlice("predictors")
	filters, _ := fs.GetStringSlice("filters")
	if pages < 1 || n < 1 {
		return cli.UsageError("--pages and --n must be positive")
	}

	// Corpora, each on its own loopback replay server.
	var corpora []*harness.Corpus
	for _, name := range names {
		var c *harness.Corpus
		var err error
		switch name {
		case "synth":
			sc := synth.DefaultConfig()
			sc.Seed = seed
			if h, _ := fs.GetInt("synth-hosts"); h > 0 {
				sc.Hosts = h
			}
			if share, _ := fs.GetFloat64("synth-on-topic"); share >= 0 {
				sc.OnTopicHosts = share
			}
			c, err = harness.SynthCorpus(work, "synth", sc)
		case "synth-sparse":
			// A larger web where the topic is rarer, as on the open web: 60
			// sites, 10% of them on topic (about 11% of pages are targets).
			sc := synth.DefaultConfig()
			sc.Seed, sc.Hosts, sc.OnTopicHosts = seed, 60, 0.1
			sc.Domain = "sparse" // its own host names: both webs are served at once
			c, err = harness.SynthCorpus(work, "synth-sparse", sc)
		case harness.GIMPZh.Package:
			c, err = harness.GIMPCorpus(cache, harness.GIMPZh)
		case harness.GIMPEn.Package:
			c, err = harness.GIMPCorpus(cache, harness.GIMPEn)
		default:
			return cli.Usagef("--corpora: unknown corpus %q (known: synth, synth-sparse, %s, %s)", name, harness.GIMPZh.Package, harness.GIMPEn.Package)
		}
		if err != nil {
			return err
		}
		corpora = append(corpora, c)
	}
	resolve := map[string]string{}
	for _, c := range corpora {
		srv, err := replay.New(c.Dir, replay.Options{})
		if err != nil {
			return err
		}
		base, err := srv.Start("127.0.0.1:0")
		if err != nil {
			return err
		}
		defer srv.Close()
		if _, dup := resolve[c.Resolve]; dup {
			return fmt.Errorf("corpus %s: host pattern %s is already served by another corpus", c.Name, c.Resolve)
		}
		resolve[c.Resolve] = strings.TrimPrefix(base, "http://")
	}

	h, err := startHarness(ctx, env, filepath.Join(work, "state"), resolve, start)
	if err != nil {
		return err
	}
	defer h.Close()

	cc := h.Cfg.Crawl
	rep := &harness.Report{
		Command: commandLine(),
		Machine: harness.Machine(), Date: time.Now(), Pages: pages, N: n,
		Config: fmt.Sprintf("crawl.batch_size=%d, crawl.pipelines=%d, crawl.fetch_concurrency=%d, fetch.host_delay=0 (loopback)",
			cc.BatchSize, cc.Pipelines, cc.FetchConcurrency),
	}
	var nilIfEmpty = func(s []string) []string {
		if len(s) == 0 {
			return nil
		}
		return s
	}
	for _, c := range corpora {
		runs, err := h.Compare(ctx, c, harness.CompareOptions{
			Pages: pages, Full: full, Predictors: nilIfEmpty(preds), Filters: nilIfEmpty(filters),
			LogDir: filepath.Join(work, "logs"), Progress: os.Stderr,
		})
		if err != nil {
			return err
		}
		rep.Corpora = append(rep.Corpora, harness.CorpusResults{Corpus: c, Runs: runs})
	}
	var buf bytes.Buffer
	plotDir := filepath.Join(filepath.Dir(out), "eval")
	if err := rep.WriteMarkdown(&buf, plotDir, "eval"); err != nil {
		return err
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report written to %s (plots in %s, crawl logs in %s)\n", out, plotDir, filepath.Join(work, "logs"))
	return nil
}

// commandLine is how the report says it was made: this process's command line.
func commandLine() string { return "go run ./eval " + strings.Join(os.Args[1:], " ") }

// startHarness starts the evaluation harness (Temporal dev server or the
// --temporal-existing one, in-process worker) with its state in dir.
func startHarness(ctx context.Context, env *cli.Env, dir string, resolve map[string]string, start harness.StartWorker) (*harness.Harness, error) {
	tbin, _ := env.FS.GetString("temporal-bin")
	taddr, _ := env.FS.GetString("temporal-existing")
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	return harness.Start(ctx, harness.Options{
		Dir: dir, TemporalAddress: taddr, TemporalBin: tbin, Config: env.Cfg, Resolve: resolve, Log: log, StartWorker: start,
	})
}
