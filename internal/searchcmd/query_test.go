package searchcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/sqlitefts"
	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
	"focuscrawl/internal/textproc"
)

// curvesIndex writes an index of 25 pages about curves and returns its path.
func curvesIndex(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.db")
	x, err := sqlitefts.Open(path, textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var docs []index.Document
	for i := range 25 {
		docs = append(docs, index.Document{ID: fmt.Sprintf("p%02d", i), Topic: "gimp", Host: "p.example",
			URL: fmt.Sprintf("https://p.example/%d", i), Title: "curves", Text: "curves tool", Lang: "en"})
	}
	if err := x.Upsert(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestQueryPagingFlagsAreChecked: --limit 0 computed the offset from 0, so
// any --page showed page 1; a huge --page overflowed the offset (here to
// exactly 0) instead of being refused. Both are usage errors now.
func TestQueryPagingFlagsAreChecked(t *testing.T) {
	path := curvesIndex(t)
	for _, args := range [][]string{
		{"--limit", "0", "--page", "3"},
		{"--limit", "-5"},
		{"--limit", "101"},
		{"--limit", "16", "--page", "1152921504606846977"}, // (page-1)*16 = 2^64
		{"--page", "1002"},
	} {
		err := cli.Run(context.Background(), "search", "", Commands(),
			append([]string{"query", "curves", "--index.path=" + path}, args...))
		var ue cli.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("query %s: error %v, want a usage error", strings.Join(args, " "), err)
		}
	}
	// The deepest page is still served.
	if err := cli.Run(context.Background(), "search", "", Commands(),
		[]string{"query", "curves", "--index.path=" + path, "--page", "1001"}); err != nil {
		t.Errorf("query --page 1001: %v", err)
	}
}

// TestQueryOutputHasNoControlCharacters: titles and snippets come from
// crawled pages, which may carry terminal control sequences (a <title> with
// &#27;]0;…&#7; sets the terminal's title, ESC [2J clears the screen, OSC 52
// writes the clipboard). They were printed as they were; now every control
// character is shown as U+FFFD, and the only escapes are the bold marks.
func TestQueryOutputHasNoControlCharacters(t *testing.T) {
	res := index.Result{Total: 1, Hits: []index.Hit{{
		Title:   "curves\x1b]0;owned\x07 tool\u009b2J",
		URL:     "https://p.example/1",
		Snippet: "the <mark>curves</mark> tool\x1b[2J\x1b]52;c;ZXZpbA==\x07 \r\x00end",
		Topic:   "gimp",
	}}}
	for _, tty := range []bool{true, false} {
		var b strings.Builder
		if err := printResults(&b, tty, index.Query{Text: "curves"}, res, nil); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if tty {
			if !strings.Contains(out, "\x1b[1mcurves\x1b[0m") {
				t.Errorf("tty output lacks the bold match: %q", out)
			}
			out = strings.NewReplacer("\x1b[1m", "", "\x1b[0m", "").Replace(out)
		}
		for _, r := range out {
			if r != '\n' && unicode.IsControl(r) {
				t.Errorf("tty=%v: output carries control character %U: %q", tty, r, b.String())
				break
			}
		}
		if !strings.Contains(out, "curves\uFFFD]0;owned\uFFFD tool\uFFFD2J") {
			t.Errorf("tty=%v: title not shown with U+FFFD for its controls: %q", tty, out)
		}
	}
}

// TestQueryUntitledHit: a page without a title is listed as "(no title)",
// not as an empty numbered line (a new user's trial).
func TestQueryUntitledHit(t *testing.T) {
	res := index.Result{Total: 2, Hits: []index.Hit{{URL: "https://p.example/1", Topic: "t"}, {Title: " \t", URL: "https://p.example/2", Topic: "t"}}}
	var b strings.Builder
	if err := printResults(&b, false, index.Query{Text: "x"}, res, nil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" 1. (no title)\n    https://p.example/1\n", " 2. (no title)\n    https://p.example/2\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output %q lacks %q", b.String(), want)
		}
	}
}

// TestQueryHostFilterIsChecked: --host goes through index.HostKey as the
// service's host parameter does; it was passed on raw, so "a.example/x" was
// searched as a host (and "B.Example" found nothing where the page found it).
func TestQueryHostFilterIsChecked(t *testing.T) {
	err := cli.Run(context.Background(), "search", "", Commands(),
		[]string{"query", "curves", "--index.path=" + curvesIndex(t), "--host", "p.example/x"})
	var ue cli.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "host filter") {
		t.Errorf("query --host p.example/x: error %v, want a usage error about the host filter", err)
	}
}

// TestQueryJSONIsTheAPIShape: `search query --json` printed index.Result
// with Go's field names ("Total", "Hits", "URL"), while /api/search answers
// "total", "hits", "url" with a rank: a script written against one did not
// read the other. Both now have the API's shape.
func TestQueryJSONIsTheAPIShape(t *testing.T) {
	path := curvesIndex(t)
	b, err := runSearch(t, "query", "curves", "--index.path="+path, "--json", "--limit", "10", "--page", "2")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Query    string `json:"query"`
		Page     int    `json:"page"`
		PageSize int    `json:"page_size"`
		Total    int    `json:"total"`
		Pages    int    `json:"pages"`
		Hits     []struct {
			Rank    int    `json:"rank"`
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("output %q: %v", b, err)
	}
	if got.Query != "curves" || got.Page != 2 || got.PageSize != 10 || got.Total != 25 || got.Pages != 3 ||
		len(got.Hits) != 10 || got.Hits[0].Rank != 11 || got.Hits[0].URL == "" || got.Hits[0].Snippet == "" {
		t.Errorf("query --json = %s; want the /api/search shape: query, page 2, page_size 10, total 25, pages 3, 10 hits ranked from 11", b)
	}
}

// TestQueryNamesAnUnknownTopic: a mistyped --topic answered "no results",
// as if the topic's crawl had found nothing. When the crawl store has no
// such topic, the answer says so and lists the topics it has.
func TestQueryNamesAnUnknownTopic(t *testing.T) {
	ixPath := curvesIndex(t)
	stPath := filepath.Join(t.TempDir(), "crawl.db")
	st, err := sqlite.Open(stPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.PutTopic(context.Background(), "gimp", []byte("name: gimp\nkeywords: {curves: 1}\nseeds: [https://p.example/]\n")); err != nil {
		t.Fatal(err)
	}
	st.Close()
	query := func(args ...string) string {
		b, err := runSearch(t, append([]string{"query", "--index.path=" + ixPath, "--store.path=" + stPath}, args...)...)
		if err != nil {
			t.Fatalf("query %q: %v", args, err)
		}
		return string(b)
	}
	if out := query("curves", "--topic", "gimpp"); !strings.Contains(out, `no topic "gimpp"`) || !strings.Contains(out, "gimp") {
		t.Errorf("query of an unknown topic said %q; want it to name the topic as unknown and list gimp", out)
	}
	if out := query("nomatchword", "--topic", "gimp"); strings.Contains(out, "no topic") {
		t.Errorf("query of a known topic without results said %q", out)
	}
	// A name pasted with spaces around it is the topic (the search page
	// trims its field too).
	if out := query("nomatchword", "--topic", " gimp "); strings.Contains(out, "no topic") {
		t.Errorf("query of --topic ' gimp ' said %q", out)
	}
}

// runSearch runs the search command with args and returns what it printed
// on standard output.
func runSearch(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	out := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		out <- b
	}()
	err = cli.Run(context.Background(), "search", "", Commands(), args)
	os.Stdout = saved
	w.Close()
	return <-out, err
}

// TestQueryPagePastTheEnd: `search query --page 99` of 81 results printed
// "81 results" and nothing else; it says the page is past the last one.
func TestQueryPagePastTheEnd(t *testing.T) {
	var b strings.Builder
	res := index.Result{Total: 81}
	if err := printResults(&b, false, index.Query{Text: "git merge", Limit: 10, Offset: 980}, res, nil); err != nil {
		t.Fatal(err)
	}
	if want := "page 99 is past the last page: 9 with --limit 10"; !strings.Contains(b.String(), want) {
		t.Errorf("output %q does not say %q", b.String(), want)
	}
}

// TestPrintableBidi: text from crawled pages reaches the terminal without
// control characters or bidirectional overrides and isolates, which make a
// terminal show a title or URL in another order than it has.
func TestPrintableBidi(t *testing.T) {
	in := "good\u202Egnp.exe\u2066x\u2069 \x1b]0;title\x07 中文 ok"
	got := printable(in)
	for _, r := range []rune{'\u202E', '\u2066', '\u2069', '\x1b', '\x07'} {
		if strings.ContainsRune(got, r) {
			t.Errorf("printable(%q) = %q keeps %U", in, got, r)
		}
	}
	if !strings.Contains(got, "中文 ok") {
		t.Errorf("printable(%q) = %q lost ordinary text", in, got)
	}
}

// TestQueryCountsPrintable: recorded no-result queries come from anyone
// using the search page; `search keywords` prints them with bidirectional
// and control characters replaced. Before, a query holding U+202E printed
// as is and reordered the operator's terminal line.
func TestQueryCountsPrintable(t *testing.T) {
	var b strings.Builder
	qs := []store.QueryCount{{Query: "abc\u202eevil\u2066x\x1b[2J", Count: 2, Last: time.Unix(0, 0)}}
	if err := writeQueryCounts(&b, qs); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\u202e\u2066\x1b") || !strings.Contains(out, "abc\uFFFDevil\uFFFDx\uFFFD[2J") {
		t.Errorf("printed %q; want the controls replaced by U+FFFD", out)
	}
}

// TestQueryNotesOperators: `search query "sasl -dovecot"` listed the
// dovecot pages first without a word on why; the count line says there
// are no operators, with results and without.
func TestQueryNotesOperators(t *testing.T) {
	for _, total := range []int{0, 1} {
		res := index.Result{Total: total}
		if total > 0 {
			res.Hits = []index.Hit{{Title: "Dovecot", URL: "http://example.org/d"}}
		}
		var b strings.Builder
		if err := printResults(&b, false, index.Query{Text: "sasl -dovecot", Limit: 10}, res, nil); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(b.String(), "\n"); !strings.Contains(first, "(no search operators here: -dovecot is searched as a word;") {
			t.Errorf("total %d: first line %q does not note the operator", total, first)
		}
	}
}

// TestKeywordsLiveCountOneQueryOnce: `search keywords --live` lists the
// forms of one no-result query (網路 and 网络, "Rose" and "rose") as one
// query with their counts summed, and --limit counts merged queries.
// Before, each typed form was a line of its own and took a place of the
// limit.
func TestKeywordsLiveCountOneQueryOnce(t *testing.T) {
	stPath := filepath.Join(t.TempDir(), "crawl.db")
	st, err := sqlite.Open(stPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, q := range []string{"網路", "网络", "網路", "Rose", "rose", "gimp"} {
		if err := st.RecordNoResultQuery(ctx, "gimp", q, at); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	b, err := runSearch(t, "keywords", "gimp", "--live", "--limit", "2", "--store.driver=sqlite", "--store.path="+stPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] != "QUERY" && f[0] != "no-result" && f[0] != "The" {
			got = append(got, f[0]+"×"+f[1])
		}
	}
	if want := []string{"網路×3", "Rose×2"}; !slices.Equal(got, want) {
		t.Errorf("keywords --live --limit 2 listed %q, want %q; output:\n%s", got, want, b)
	}
}

// TestQueryLeavesOutMissingWords: `search query` answers a query with a
// word no page has as the search page does — the results without it, and
// a line naming it; --json carries missing and the notice.
func TestQueryLeavesOutMissingWords(t *testing.T) {
	path := curvesIndex(t)
	b, err := runSearch(t, "query", "curves", "nomatchword", "--index.path="+path, "--limit", "1")
	if err != nil {
		t.Fatal(err)
	}
	if out := string(b); !strings.HasPrefix(out, `25 results for "curves nomatchword" (no page has "nomatchword": results without it)`) {
		t.Errorf("query curves nomatchword printed %q", out)
	}
	b, err = runSearch(t, "query", "curves", "nomatchword", "--index.path="+path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Total   int      `json:"total"`
		Missing []string `json:"missing"`
		Notice  string   `json:"notice"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("output %q: %v", b, err)
	}
	if got.Total != 25 || strings.Join(got.Missing, ",") != "nomatchword" || !strings.Contains(got.Notice, "no page has") {
		t.Errorf("query --json = %s", b)
	}
}
