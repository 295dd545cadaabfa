package evalcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/eval/harness"
	"focuscrawl/internal/eval/pagemodel"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topicboot"
)

// runFocus is `eval focus`: the issue-12 evaluation on real corpora
// (package internal/eval/focus does the work).
func runFocus(ctx context.Context, env *cli.Env, start harness.StartWorker) error {
	if len(env.Args) != 0 {
		return cli.UsageError("usage: eval focus [--split tune|heldout|fresh|all] [--runs 3] [--out FILE]")
	}
	fs := env.FS
	out, _ := fs.GetString("out")
	if out == "" {
		out = "docs/evaluation.md"
	}
	// A report whose kept notes would be lost is refused before an hour of
	// crawling, not after it.
	if err := harness.CheckKept(out, "notes"); err != nil {
		return err
	}
	work, _ := fs.GetString("work")
	cache, _ := fs.GetString("corpus-cache")
	split, _ := fs.GetString("split")
	names, _ := fs.GetStringSlice("focus-corpora")
	runs, _ := fs.GetInt("runs")
	if from, _ := fs.GetString("render"); from != "" {
		var rep *focus.Report
		for _, f := range strings.Split(from, ",") { // several: merged, the first one's header kept
			r, err := focus.LoadReport(f)
			if err != nil {
				return err
			}
			if rep == nil {
				rep = r
			} else {
				rep.Merge(r)
			}
		}
		if rep.LearnEvery == 0 {
			rep.LearnEvery = env.Cfg.Crawl.LearnEvery // results saved before the field existed
		}
		return writeFocusReport(rep, out)
	}
	if runs < 3 {
		return cli.UsageError("--runs must be at least 3: every cell is a mean and spread")
	}
	corpora, err := loadFocusCorpora(cache, split, names)
	if err != nil {
		return err
	}
	if list, _ := fs.GetBool("list"); list {
		for _, c := range corpora {
			for _, t := range c.Topics {
				fmt.Printf("%-7s %-12s %-4s %5d pages  %-26s %4d targets  budget %d\n",
					c.Spec.Split, c.Spec.Name, c.Spec.Lang, c.Pages, t.Name, len(t.Labels), t.Budget)
			}
		}
		return nil
	}
	sitemaps, _ := fs.GetBool("sitemaps")
	web, err := focus.Serve(corpora, filepath.Join(work, "focus"), sitemaps)
	if err != nil {
		return err
	}
	defer web.Close()
	if web.CertFile != "" {
		// The fetcher uses the system roots; this makes them the off-site
		// server's certificate (set before any TLS use in this process).
		os.Setenv("SSL_CERT_FILE", web.CertFile)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	h, err := startHarness(ctx, env, filepath.Join(work, "focus", "state"), web.Resolve, start)
	if err != nil {
		return err
	}
	defer h.Close()
	cc := h.Cfg.Crawl
	rep := &focus.Report{
		Command: commandLine(),
		Machine: harness.Machine(), Date: time.Now(), Runs: runs, Corpora: corpora, LearnEvery: cc.LearnEvery,
		Load: "load average at start " + strings.Join(strings.Fields(string(load))[:3], " "),
		Settings: fmt.Sprintf("focuscrawl worker settings: crawl.batch_size=%d, crawl.pipelines=%d, crawl.fetch_concurrency=%d, crawl.learn_every=%d, fetch.host_delay=0 (loopback), private dev Temporal server, in-process worker.",
			cc.BatchSize, cc.Pipelines, cc.FetchConcurrency, cc.LearnEvery),
	}
	confs, _ := fs.GetStringSlice("configs")
	if slices.ContainsFunc(confs, func(c string) bool { return strings.Contains(c, focus.ConfSitemaps) }) && !sitemaps {
		fmt.Fprintln(os.Stderr, "warning: configuration \"sitemaps\" without --sitemaps: the corpora are served without sitemaps, so it measures the default")
	}
	r := &focus.Runner{H: h, Web: web, Tok: textproc.Shared(), Runs: runs, LogDir: filepath.Join(work, "focus", "logs"), Progress: os.Stderr,
		Configs: focus.ExpandConfigs(confs), Bootstrap: bootstrapper(h.Cfg.Fetch), Corpora: corpora}
	for _, c := range corpora {
		for _, t := range c.Topics {
			res, err := r.Run(ctx, c, t)
			if res != nil {
				rep.Results = append(rep.Results, res)
			}
			if err != nil {
				return err
			}
		}
	}
	if err := rep.Save(filepath.Join(work, "focus", "results.json")); err != nil {
		return err
	}
	return writeFocusReport(rep, out)
}

// bootstrapper drafts topics as `search topic bootstrap` does, with the
// crawler's fetcher configured as the harness's worker is (the evaluation
// web's virtual hosts, private networks allowed, no host delay).
func bootstrapper(cfg config.Fetch) focus.Bootstrapper {
	return func(ctx context.Context, urls []string, name string) ([]byte, error) {
		f, err := fetch.New(cfg.Config)
		if err != nil {
			return nil, err
		}
		defer f.CloseIdleConnections()
		data, _, err := topicboot.Bootstrap(ctx, f, urls, name, "auto", 0, textproc.Shared(), cfg)
		return data, err
	}
}

// writeFocusReport renders rep as Markdown into out.
func writeFocusReport(rep *focus.Report, out string) error {
	var buf bytes.Buffer
	rep.WriteMarkdown(&buf)
	// Sections written by hand (follow-up experiments, where things stand)
	// go between notes markers and survive a regeneration.
	notes, err := harness.KeptSection(out, "notes")
	if err != nil {
		// The markers broke during the run (it was checked before): keep
		// the run's report beside the file instead of losing either.
		aside := out + ".new"
		if werr := os.WriteFile(aside, buf.Bytes(), 0o644); werr != nil {
			return fmt.Errorf("%w; the report could not be kept either: %v", err, werr)
		}
		return fmt.Errorf("%w; the run's report is in %s", err, aside)
	}
	if notes != "" {
		buf.WriteString("\n" + notes)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "report written to %s\n", out)
	return nil
}

// pagemodelFlags are the flags of eval pagemodel.
func pagemodelFlags(fs *pflag.FlagSet) {
	fs.String("logs", "", "directory of the focus crawl logs to replay (<work>/focus/logs of an earlier eval focus)")
	fs.String("replay-config", "default", "the configuration whose crawl logs are replayed")
	fs.String("corpus-cache", "var/corpus", "where Debian documentation packages are unpacked (apt-get download + dpkg -x)")
	fs.String("split", "tune", "corpora whose topics are replayed: tune, heldout or all (fresh corpora are never replayed)")
	fs.StringSlice("focus-corpora", nil, "replay only these registry corpora (overrides --split)")
	fs.String("out", "-", "Markdown tables to write (- = stdout)")
}

// runPageModel is `eval pagemodel`: the offline page-model evaluator
// (package internal/eval/pagemodel) over the crawl logs of an earlier
// `eval focus` run; no crawl runs.
func runPageModel(env *cli.Env) error {
	if len(env.Args) != 0 {
		return cli.UsageError("usage: eval pagemodel --logs DIR [--replay-config default] [--split tune] [--out FILE]")
	}
	fs := env.FS
	cache, _ := fs.GetString("corpus-cache")
	split, _ := fs.GetString("split")
	names, _ := fs.GetStringSlice("focus-corpora")
	logs, _ := fs.GetString("logs")
	config, _ := fs.GetString("replay-config")
	out, _ := fs.GetString("out")
	if logs == "" {
		return cli.UsageError("eval pagemodel needs --logs DIR (the crawl logs of an earlier eval focus run)")
	}
	// Fresh corpora are never replayed: --split all leaves them out, and
	// naming one is refused before anything is downloaded.
	specs, err := focus.Select(split, names)
	if err != nil {
		return cli.UsageError(err.Error())
	}
	var keep []string
	for _, c := range specs {
		switch {
		case c.Split != focus.Fresh:
			keep = append(keep, c.Name)
		case split == "fresh" || len(names) > 0:
			return cli.UsageError(fmt.Sprintf("eval pagemodel: corpus %s is a fresh corpus: its crawls are run and reported, never replayed (focus.Fresh)", c.Name))
		}
	}
	corpora, err := loadFocusCorpora(cache, "all", keep)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := pagemodel.Run(corpora, logs, strings.ReplaceAll(config, " ", "-"), textproc.Shared(), pagemodel.Scorers(), pagemodel.Rules(), &buf); err != nil {
		return err
	}
	if out == "" || out == "-" {
		_, err = os.Stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// loadFocusCorpora selects the corpora of a split (names: a subset) and
// loads them from cache; an unknown split or name is a usage error.
func loadFocusCorpora(cache, split string, names []string) ([]*focus.Corpus, error) {
	specs, err := focus.Select(split, names)
	if err != nil {
		return nil, cli.UsageError(err.Error())
	}
	var corpora []*focus.Corpus
	for _, s := range specs {
		c, err := focus.Load(cache, ".", s)
		if err != nil {
			return nil, err
		}
		corpora = append(corpora, c)
	}
	return corpora, nil
}
