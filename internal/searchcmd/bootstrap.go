package searchcmd

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/safefile"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/topicboot"
	"focuscrawl/internal/urlnorm"
)

// topic bootstrap: a first topic file from a handful of example URLs
// (docs/topic-file.md "Bootstrapping a topic"); the logic is in
// internal/topicboot and topic.Bootstrap.
func init() {
	register("topic", cli.Command{
		Summary: "bootstrap a topic file from example pages (bootstrap URL... --name N [--out FILE [--force]])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("name", "", "the topic's name (required)")
			fs.String("out", "", "write the topic file here (default: standard output); an existing file is refused without --force")
			fs.Bool("force", false, "replace an existing --out file")
			fs.String("language", "auto", "zh, en or auto")
			fs.Int("keywords", topic.DefaultBootstrapKeywords, "how many keywords to keep")
		},
		Run: runTopicBootstrap,
	})
}

func runTopicBootstrap(ctx context.Context, env *cli.Env) error {
	if len(env.Args) < 2 || env.Args[0] != "bootstrap" {
		return cli.UsageError("usage: search topic bootstrap URL... --name N [--out FILE [--force]]")
	}
	name, _ := env.FS.GetString("name")
	out, _ := env.FS.GetString("out")
	force, _ := env.FS.GetBool("force")
	lang, _ := env.FS.GetString("language")
	n, _ := env.FS.GetInt("keywords")
	if name == "" {
		return cli.UsageError("--name is required")
	}
	// Checked before anything is fetched: the draft's own validation comes
	// only after the examples, their roots and their sites' background.
	if err := topic.CheckName(name); err != nil {
		return cli.Usagef("--name: %v", err)
	}
	if err := topic.CheckLanguage(lang); err != nil {
		return cli.Usagef("--language: %v", err)
	}
	if n < 1 {
		return cli.Usagef("--keywords must be at least 1, got %d", n)
	}
	urls, err := exampleURLs(env.Args[1:])
	if err != nil {
		return err
	}
	// Refused before the examples are fetched: a topic file at --out is
	// likely one the user has edited since an earlier bootstrap.
	if out != "" {
		if err := safefile.CheckAbsent(out, force); err != nil {
			return err
		}
	}
	f, err := fetch.New(env.Cfg.Fetch.Config)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "fetching %s, then each example site's root and up to %d pages they link to on their sites, as the sites' background (fetch.host_delay %s, or a longer Crawl-delay up to fetch.max_host_delay %s, between two requests to a host)\n",
		examples(len(urls)), topicboot.ContrastPages, env.Cfg.Fetch.HostDelay, env.Cfg.Fetch.MaxHostDelay)
	data, notes, err := topicboot.Bootstrap(ctx, f, urls, name, lang, n, textproc.Shared(), env.Cfg.Fetch)
	if err != nil {
		return err
	}
	for _, note := range notes {
		fmt.Fprintln(os.Stderr, note)
	}
	if out == "" {
		_, err = os.Stdout.Write(data)
		return err
	}
	if err := safefile.Write(out, force, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s from %s\n", out, examples(len(urls)))
	return nil
}

// exampleURLs normalises the example URLs and drops repeats (one fetched
// twice was written twice under samples); one that is no http(s) URL is a
// usage error, before anything is fetched.
func exampleURLs(args []string) ([]string, error) {
	var urls []string
	seen := map[string]bool{}
	for _, a := range args {
		u, err := urlnorm.Normalize(a)
		if err != nil {
			return nil, cli.Usagef("example %q: %v", a, err)
		}
		if !seen[u] {
			seen[u] = true
			urls = append(urls, u)
		}
	}
	return urls, nil
}

// examples is "1 example page" or "N example pages".
func examples(n int) string {
	if n == 1 {
		return "1 example page"
	}
	return fmt.Sprintf("%d example pages", n)
}
