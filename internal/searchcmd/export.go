package searchcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/safefile"
	"focuscrawl/internal/store"
	storebackend "focuscrawl/internal/store/backend"
)

func init() {
	register("export", cli.Command{
		Summary: "write a crawl's log as JSON Lines (CRAWL_ID [--out FILE [--force]])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("out", "", "output file (default: standard output); an existing file is refused without --force")
			fs.Bool("force", false, "replace an existing --out file")
		},
		Run: runExport,
	})
	register("crawls", cli.Command{
		Summary: "list recent crawls ([--topic NAME] [--limit N])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("topic", "", "only this topic")
			fs.Int("limit", 20, "how many")
		},
		Run: runCrawls,
	})
}

func runExport(ctx context.Context, env *cli.Env) error {
	id, err := env.OneArg("CRAWL_ID")
	if err != nil {
		return err
	}
	out, _ := env.FS.GetString("out")
	force, _ := env.FS.GetBool("force")
	st, err := openStoreToRead(ctx, env.Cfg.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	var n int
	if out == "" {
		n, err = crawllog.Export(ctx, st, id, os.Stdout)
	} else {
		n, err = exportToFile(ctx, st, id, out, force)
	}
	if err != nil {
		return noCrawl(id, err)
	}
	if out != "" {
		fmt.Fprintf(os.Stderr, "%d entries written to %s\n", n, out)
	}
	if n == 0 {
		c, err := st.Crawl(ctx, id)
		if err != nil {
			return err
		}
		if later, err := laterCrawl(ctx, st, c); err != nil {
			return err
		} else if later != "" {
			fmt.Fprintf(os.Stderr, "crawl %s has no pages in the crawl store: %s\n", id, forgotten(c.Topic, later))
		}
	}
	return nil
}

// laterCrawl returns the newest crawl of c's topic started after c when c
// has ended ("" otherwise). `starter crawl --fresh` deletes the pages of
// its topic's earlier crawls and keeps their records, so such a crawl
// then exported an empty log and was listed by `search crawls` as having
// fetched 0 pages, with nothing saying why (a user trial: a crawl of 200
// pages read "completed 0 0").
func laterCrawl(ctx context.Context, st store.Crawls, c store.Crawl) (string, error) {
	if c.State == store.CrawlRunning {
		return "", nil
	}
	// Newest first: the topic's newest crawl, when it started after c.
	crawls, err := st.Crawls(ctx, c.Topic, 1)
	if err != nil {
		return "", err
	}
	if len(crawls) > 0 && crawls[0].StartedAt.After(c.StartedAt) {
		return crawls[0].ID, nil
	}
	return "", nil
}

// forgotten says why an ended crawl of topic with a later crawl has no
// pages: it fetched none, or the later crawl was started with --fresh
// (the store cannot tell which).
func forgotten(topic, later string) string {
	return fmt.Sprintf("it fetched none, or a later crawl of topic %s started with --fresh forgot them (its newest crawl: %s)", topic, later)
}

// noCrawl says that a crawl ID the store does not know is not there, as
// `starter status` does; the store's error ("export crawl X: store/sqlite:
// crawl "X": store: not found") named the ID twice and no way on.
func noCrawl(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no crawl %q in the crawl store (list them with 'search crawls')", id)
	}
	return err
}

// exportToFile writes the crawl log to path (safefile.Write: never part of
// a log, an existing file replaced only with force).
func exportToFile(ctx context.Context, st store.Crawls, id, path string, force bool) (int, error) {
	n := 0
	err := safefile.Write(path, force, func(w io.Writer) error {
		var err error
		n, err = crawllog.Export(ctx, st, id, w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	return n, nil
}

// openStoreToRead opens the crawl store for a command that only reads it
// (export, crawls, keywords). Opening a SQLite store creates a missing
// file, so run from the wrong directory or with the wrong store.path these
// commands left an empty var/crawl.db behind and answered "no crawls yet"
// as if the store had none.
func openStoreToRead(ctx context.Context, cfg config.Store) (store.Store, error) {
	if cfg.Driver == "sqlite" {
		if err := needFile(cfg.Path, "crawl store", "store.path"); err != nil {
			return nil, err
		}
	}
	return storebackend.Open(ctx, cfg)
}

// needFile refuses a SQLite file (the crawl store, the index) that a
// read-only command would otherwise create empty — and then answer as if
// nothing had been crawled — naming the path and the key that sets it.
func needFile(path, what, key string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no %s at %s: run where the worker keeps it, or set %s (env %s)", what, path, key, config.EnvName(key))
	}
	return nil
}

func runCrawls(ctx context.Context, env *cli.Env) error {
	topicName, _ := env.FS.GetString("topic")
	topicName = strings.TrimSpace(topicName)
	limit, _ := env.FS.GetInt("limit")
	st, err := openStoreToRead(ctx, env.Cfg.Store)
	if err != nil {
		return err
	}
	defer st.Close()
	crawls, err := st.Crawls(ctx, topicName, limit)
	if err != nil {
		return err
	}
	if len(crawls) == 0 {
		fmt.Println("no crawls yet")
		return nil
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CRAWL\tTOPIC\tSTATE\tFETCHED\tACCEPTED\tSTARTED")
	marked := false
	for _, c := range crawls {
		cs, err := st.CrawlStats(ctx, c.ID)
		if err != nil {
			return err
		}
		fetched := strconv.Itoa(cs.Fetched)
		if cs.Fetched == 0 {
			if later, err := laterCrawl(ctx, st, c); err != nil {
				return err
			} else if later != "" {
				fetched, marked = "0*", true
			}
		}
		fmt.Fprintf(tw, "%s\t%s v%d\t%s\t%s\t%d\t%s\n", c.ID, c.Topic, c.TopicVersion, c.State, fetched,
			cs.Accepted, c.StartedAt.Local().Format("2006-01-02 15:04:05"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if marked {
		fmt.Println("* no pages in the crawl store: the crawl fetched none, or a later crawl of its topic started with --fresh forgot them")
	}
	return nil
}
