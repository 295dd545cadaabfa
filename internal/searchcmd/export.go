package searchcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawllog"
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
	if out == "" {
		_, err = crawllog.Export(ctx, st, id, os.Stdout)
		return err
	}
	n, err := exportToFile(ctx, st, id, out, force)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d entries written to %s\n", n, out)
	return nil
}

// exportToFile writes the crawl log to path through a temporary file in
// path's directory (so the rename is within one file system, hence
// atomic), moved into place only once the whole log is written and synced:
// a failed or interrupted export leaves the old file, or none, never part
// of a log. An existing path is replaced only with force.
func exportToFile(ctx context.Context, st store.Crawls, id, path string, force bool) (int, error) {
	// Refused before the log is read: an export of a long crawl takes a
	// while, and the answer would be the same after it.
	if err := refuseExisting(path, force); err != nil {
		return 0, err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// A name of its own (CreateTemp), never a fixed one such as FILE.tmp,
	// which a file of the user's or a concurrent export may have.
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return 0, fmt.Errorf("export: %w", err)
	}
	tmp, placed := f.Name(), false
	defer func() {
		if !placed {
			f.Close()
			os.Remove(tmp)
		}
	}()
	n, err := crawllog.Export(ctx, st, id, f)
	if err != nil {
		return n, err
	}
	// CreateTemp makes the file 0600; an export is an ordinary file (as
	// os.Create made it before, umask aside).
	if err := f.Chmod(0o644); err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	if err := f.Close(); err != nil {
		return n, fmt.Errorf("export: %w", err)
	}
	if err := place(tmp, path, force); err != nil {
		return n, err
	}
	placed = true
	return n, nil
}

// refuseExisting fails when path exists and force is not set, naming the
// flag that replaces it.
func refuseExisting(path string, force bool) error {
	if force {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("export: %s already exists: pass --force to replace it", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}

// place moves the written temporary file tmp to path. Without force it
// links it there, which fails if path has appeared since refuseExisting
// looked (a rename would silently replace it), and falls back to a check
// and a rename on a file system without hard links.
func place(tmp, path string, force bool) error {
	if !force {
		err := os.Link(tmp, path)
		if err == nil {
			os.Remove(tmp)
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			return refuseExisting(path, false)
		}
		if err := refuseExisting(path, false); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
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
	for _, c := range crawls {
		cs, err := st.CrawlStats(ctx, c.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%s v%d\t%s\t%d\t%d\t%s\n", c.ID, c.Topic, c.TopicVersion, c.State, cs.Fetched,
			cs.Accepted, c.StartedAt.Local().Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}
