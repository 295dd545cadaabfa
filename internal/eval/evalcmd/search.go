package evalcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/eval/searcheval"
	"focuscrawl/internal/textproc"
)

// searchFlags are the flags of eval search.
func searchFlags(fs *pflag.FlagSet) {
	fs.String("corpus-cache", "var/corpus", "where Debian documentation packages are unpacked (apt-get download + dpkg -x)")
	fs.String("split", "tune", "corpora to index and query: tune, heldout, fresh or all")
	fs.StringSlice("focus-corpora", nil, "only these registry corpora (overrides --split)")
	fs.String("work", "var/eval/search", "directory for the indexes")
	fs.String("out", "-", "Markdown table to write (- = stdout)")
	fs.String("queries", "", "also write each query's P@10, nDCG@10 and match count to this TSV file (to compare two runs)")
}

// runSearch is `eval search`: the index's ranking on the focus corpora,
// measured per variant of the indexed text (package searcheval).
func runSearch(ctx context.Context, env *cli.Env) error {
	if len(env.Args) != 0 {
		return cli.UsageError("usage: eval search [--split tune|heldout|fresh|all] [--out FILE]")
	}
	fs := env.FS
	cache, _ := fs.GetString("corpus-cache")
	split, _ := fs.GetString("split")
	names, _ := fs.GetStringSlice("focus-corpora")
	work, _ := fs.GetString("work")
	out, _ := fs.GetString("out")
	queries, _ := fs.GetString("queries")
	corpora, err := loadFocusCorpora(cache, split, names)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	var results []*searcheval.CorpusResult
	for _, c := range corpora {
		r, err := searcheval.Run(ctx, c, textproc.Shared(), work)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "%s: %d pages, %d queries\n", c.Spec.Name, r.Pages, len(r.Queries))
		results = append(results, r)
	}
	if queries != "" {
		var buf bytes.Buffer
		searcheval.WriteQueries(&buf, results)
		if err := os.WriteFile(queries, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	searcheval.WriteMarkdown(&buf, results)
	if out == "" || out == "-" {
		_, err = os.Stdout.Write(buf.Bytes())
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
