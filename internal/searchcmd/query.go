package searchcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/pflag"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/backend"
	"focuscrawl/internal/search"
	"focuscrawl/internal/textproc"
)

func init() {
	register("query", cli.Command{
		Summary: "search the index (QUERY [--topic NAME] [--host HOST] [--limit N] [--page N] [--json])",
		Flags: func(fs *pflag.FlagSet) {
			fs.String("topic", "", "only this topic")
			fs.String("host", "", "only this host (without a port: on every port)")
			fs.Int("limit", 10, "results per page")
			fs.Int("page", 1, "result page (1-based)")
			fs.Bool("json", false, "print JSON")
		},
		Run: runQuery,
	})
}

var markRE = regexp.MustCompile(`</?mark>`)

func runQuery(ctx context.Context, env *cli.Env) error {
	if len(env.Args) == 0 {
		return cli.UsageError("usage: search query QUERY")
	}
	q := index.Query{Text: index.CleanQueryText(strings.Join(env.Args, " "))}
	q.Topic, _ = env.FS.GetString("topic")
	q.Topic = strings.TrimSpace(q.Topic) // as the search page's field is
	host, _ := env.FS.GetString("host")
	var err error
	if q.Host, err = index.HostKey(host); err != nil {
		return cli.UsageError(err.Error())
	}
	q.Limit, _ = env.FS.GetInt("limit")
	page, _ := env.FS.GetInt("page")
	// The offset is computed here, so the flags are checked here: with
	// --limit 0 (the index's "default page size") every page was page 1, and
	// a huge --page overflowed the product, possibly back into range.
	if q.Limit < 1 || q.Limit > index.MaxLimit {
		return cli.Usagef("--limit must be 1..%d, got %d", index.MaxLimit, q.Limit)
	}
	if page < 1 {
		return cli.UsageError("--page must be 1 or more")
	}
	if maxPage := index.MaxOffset/q.Limit + 1; page > maxPage {
		return cli.Usagef("--page %d is too deep: with --limit %d at most %d pages are served", page, q.Limit, maxPage)
	}
	q.Offset = (page - 1) * q.Limit
	if err := index.ValidateQuery(q); err != nil {
		return cli.UsageError(err.Error())
	}
	// Opening a SQLite index creates a missing file: run from the wrong
	// directory, a search would leave an empty index behind and answer
	// "no results" as if the crawl had found nothing.
	if c := env.Cfg.Index; c.Driver == "sqlite" {
		if err := needFile(c.Path, "index", "index.path"); err != nil {
			return err
		}
	}
	ix, err := backend.OpenReadOnly(ctx, env.Cfg.Index, textproc.Lazy())
	if err != nil {
		return err
	}
	defer ix.Close()
	defer textproc.Close()
	res, missing, err := index.SearchRelaxed(ctx, ix, textproc.Lazy(), q)
	if errors.Is(err, index.ErrBadQuery) {
		return cli.UsageError(err.Error())
	} else if err != nil {
		return err
	}
	if asJSON, _ := env.FS.GetBool("json"); asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		out := search.NewResponse(search.Request{Query: q.Text, Topic: q.Topic, Host: q.Host, Page: page}, q.Limit, res)
		out.Missing, out.Notice = missing, index.QueryNote(q.Text, missing)
		return enc.Encode(out)
	}
	fi, err := os.Stdout.Stat()
	tty := err != nil || fi.Mode()&os.ModeCharDevice != 0
	if err := printResults(os.Stdout, tty, q, res, missing); err != nil {
		return err
	}
	if res.Total == 0 && missing == nil && q.Topic != "" {
		if known, ok := topicNames(ctx, env); ok && !slices.Contains(known, q.Topic) {
			// A mistyped --topic read as "the crawl found nothing".
			list := strings.Join(known, ", ")
			if list == "" {
				list = "none yet"
			}
			fmt.Printf("no topic %q in the crawl store; its topics: %s\n", q.Topic, list)
		}
	}
	return nil
}

// topicNames lists the crawl store's topics, if there is a crawl store to
// read here (the index may be elsewhere than the store: then ok is false).
func topicNames(ctx context.Context, env *cli.Env) (names []string, ok bool) {
	st, err := openStoreToRead(ctx, env.Cfg.Store)
	if err != nil {
		return nil, false
	}
	defer st.Close()
	names, err = st.TopicNames(ctx)
	return names, err == nil
}

// plainSnippet turns an index.Snippet (escaped HTML with <mark>) into text,
// the marks replaced by on and off.
func plainSnippet(snippet, on, off string) string {
	var b strings.Builder
	pos := 0
	for _, m := range markRE.FindAllStringIndex(snippet, -1) {
		b.WriteString(printable(html.UnescapeString(snippet[pos:m[0]])))
		if snippet[m[0]+1] == '/' {
			b.WriteString(off)
		} else {
			b.WriteString(on)
		}
		pos = m[1]
	}
	b.WriteString(printable(html.UnescapeString(snippet[pos:])))
	return b.String()
}

// printable replaces control characters with U+FFFD. Titles and snippets
// are text of crawled pages, which may carry terminal escape sequences
// (setting the window title, clearing the screen, writing the clipboard),
// and bidirectional overrides and isolates, which make a terminal show
// text in another order than it has (a URL that reads as another).
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || bidiControl(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

// bidiControl reports the explicit bidirectional formatting characters:
// embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069).
func bidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// printResults writes res for a reader: on a terminal (tty) matches are
// bold, elsewhere they are marked with "**". Text from crawled pages goes
// through printable.
func printResults(w io.Writer, tty bool, q index.Query, res index.Result, missing []string) error {
	note := ""
	if n := index.QueryNote(q.Text, missing); n != "" {
		note = " (" + n + ")"
	}
	if res.Total == 0 {
		_, err := fmt.Fprintf(w, "no results for %q%s\n", q.Text, note)
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d results for %q%s\n\n", res.Total, q.Text, note)
	on, off := "**", "**"
	if tty {
		on, off = "\x1b[1m", "\x1b[0m"
	}
	if len(res.Hits) == 0 && q.Limit > 0 {
		// A --page past the end printed the count and nothing else, as if
		// the results had vanished.
		last := search.PageCount(res.Total, q.Limit)
		fmt.Fprintf(bw, "page %d is past the last page: %d with --limit %d\n", q.Offset/q.Limit+1, last, q.Limit)
	}
	for i, h := range res.Hits {
		title := printable(h.Title)
		if strings.TrimSpace(h.Title) == "" {
			title = "(no title)" // an empty numbered line read as a missing result
		}
		fmt.Fprintf(bw, "%2d. %s\n    %s\n    %s\n    topic %s · relevance %.3f · score %.4g\n\n",
			q.Offset+i+1, title, printable(h.URL), plainSnippet(h.Snippet, on, off),
			printable(h.Topic), h.Relevance, h.Score)
	}
	return bw.Flush()
}
