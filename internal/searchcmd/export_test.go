package searchcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	"focuscrawl/internal/crawllog"
	"focuscrawl/internal/store"
	storebackend "focuscrawl/internal/store/backend"
	"focuscrawl/internal/store/sqlite"
	"focuscrawl/internal/urlnorm"
)

// TestStoreReadersNeedAStore: export, crawls and keywords only read the
// crawl store. Run where there is none (the wrong directory, a mistyped
// store.path), they created an empty SQLite store and answered as if it
// had no crawls ("no crawls yet"); they now fail, naming the path, and
// create nothing.
func TestStoreReadersNeedAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "var", "crawl.db")
	for _, args := range [][]string{
		{"crawls"},
		{"topics"},
		{"export", "crawl/t/1"},
		{"export", "crawl/t/1", "--out", filepath.Join(t.TempDir(), "log.jsonl")},
		{"keywords", "t"},
	} {
		err := cli.Run(context.Background(), "search", "", Commands(), append(args, "--store.driver=sqlite", "--store.path="+path))
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%q = %v; want an error naming %s", args, err, path)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("%q created %s", args, path)
		}
	}
}

// TestQueryNeedsAnIndex: `search query` on a SQLite index that does not
// exist says so, naming the path, and creates nothing; before, it created
// an empty index and answered "no results".
func TestQueryNeedsAnIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db") // its directory exists
	err := cli.Run(context.Background(), "search", "", Commands(), []string{"query", "roses", "--index.driver=sqlite", "--index.path=" + path})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("query = %v; want an error naming %s", err, path)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("query created %s", path)
	}
}

// exportStore writes a SQLite crawl store holding crawl "crawl/t/1" with
// two fetched pages and returns its path.
func exportStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	if err := st.CreateCrawl(ctx, store.Crawl{ID: "crawl/t/1", Topic: "t"}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://a.test/1", "http://a.test/2"} {
		p := store.Page{Topic: "t", URLHash: urlnorm.Hash(u), URL: u, FinalURL: u, FinalHash: urlnorm.Hash(u),
			CrawlID: "crawl/t/1", Status: 200, FetchedAt: time.Now()}
		if _, _, err := st.SavePage(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestExportRefusesExistingFile: `export --out FILE` over an existing file
// fails, naming the file and --force, and leaves the file as it was;
// before, it replaced it without a word. With --force it replaces it.
func TestExportRefusesExistingFile(t *testing.T) {
	storePath := exportStore(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(out, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) error {
		return cli.Run(context.Background(), "search", "", Commands(),
			append([]string{"export", "crawl/t/1", "--out", out, "--store.driver=sqlite", "--store.path=" + storePath}, extra...))
	}
	err := run()
	if err == nil || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("export over an existing file = %v; want an error naming %s and --force", err, out)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me\n" {
		t.Errorf("the refused export left %q in the file; want it unchanged", b)
	}
	if err := run("--force"); err != nil {
		t.Fatalf("export --force: %v", err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := crawllog.Read(bytes.NewReader(b))
	if err != nil || len(entries) != 2 {
		t.Errorf("export --force wrote %d entries (%v): %q; want the crawl's 2", len(entries), err, b)
	}
	checkOnlyFiles(t, dir, "log.jsonl")
}

// failingLog is a crawl store whose crawl log fails after its first pages,
// as a store connection lost mid-export does.
type failingLog struct {
	store.Store // nil: export reads only Crawl and CrawlLog
	pages       int
}

func (f failingLog) Crawl(_ context.Context, id string) (store.Crawl, error) {
	return store.Crawl{ID: id, Topic: "t"}, nil
}

func (f failingLog) CrawlLog(_ context.Context, _ string, fn func(store.Page) error) error {
	for i := range f.pages {
		u := fmt.Sprintf("http://a.test/%d", i)
		// A long title, so the written part is larger than any buffer.
		if err := fn(store.Page{URL: u, FinalURL: u, Seq: int64(i + 1), Title: strings.Repeat("t", 1000)}); err != nil {
			return err
		}
	}
	return errors.New("connection lost")
}

// TestExportFailureLeavesNoPartialFile: an export that fails part way
// leaves no file where there was none, the old file where there was one
// (--force), and no temporary file. Before, the temporary file had a
// fixed name beside the output (FILE.tmp): a file of the user's with that
// name was truncated, then deleted.
func TestExportFailureLeavesNoPartialFile(t *testing.T) {
	for _, old := range []bool{false, true} {
		dir := t.TempDir()
		out := filepath.Join(dir, "log.jsonl")
		if err := os.WriteFile(out+".tmp", []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if old {
			if err := os.WriteFile(out, []byte("old log\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := exportToFile(context.Background(), failingLog{pages: 100}, "crawl/t/1", out, old)
		if err == nil || !strings.Contains(err.Error(), "connection lost") {
			t.Errorf("export with a failing store (old file %v) = %v; want the store's error", old, err)
		}
		if old {
			if b, _ := os.ReadFile(out); string(b) != "old log\n" {
				t.Errorf("the failed export left %q in the old file; want it unchanged", b)
			}
			checkOnlyFiles(t, dir, "log.jsonl", "log.jsonl.tmp")
		} else {
			checkOnlyFiles(t, dir, "log.jsonl.tmp")
		}
		if b, _ := os.ReadFile(out + ".tmp"); string(b) != "mine\n" {
			t.Errorf("the failed export left %q in log.jsonl.tmp; want the file it did not write unchanged", b)
		}
	}
}

// checkOnlyFiles checks that dir holds exactly the named files.
func checkOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Errorf("%s holds %q; want %q", dir, got, names)
	}
}

// TestBootstrapRefusesExistingFile: `search topic bootstrap --out FILE`
// over an existing file — likely a topic file edited since an earlier
// bootstrap — fails before fetching anything, naming the file and --force,
// and leaves it as it was; before, it replaced it without a word.
func TestBootstrapRefusesExistingFile(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "topic.yaml")
	if err := os.WriteFile(out, []byte("name: edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := cli.Run(context.Background(), "search", "", Commands(),
		[]string{"topic", "bootstrap", srv.URL + "/a.html", "--name", "t", "--out", out, "--fetch.allow_private_networks=true"})
	if err == nil || !strings.Contains(err.Error(), out) || !strings.Contains(err.Error(), "--force") {
		t.Errorf("bootstrap over an existing file = %v; want an error naming %s and --force", err, out)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the refused bootstrap made %d requests; want none", n)
	}
	if b, _ := os.ReadFile(out); string(b) != "name: edited\n" {
		t.Errorf("the refused bootstrap left %q; want the file unchanged", b)
	}
}

// TestBootstrapChecksArgumentsFirst: a bad --name, --language or
// --keywords, or an example that is no URL, is a usage error before any
// request; before, the name and language were refused only after every
// example, root and background page was fetched, and --keywords -3 meant 20.
func TestBootstrapChecksArgumentsFirst(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests.Add(1) }))
	defer srv.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{srv.URL + "/a.html", "--name", "Bad Name"}, "--name"},
		{[]string{srv.URL + "/a.html", "--name", "t", "--language", "fr"}, "--language"},
		{[]string{srv.URL + "/a.html", "--name", "t", "--keywords", "-3"}, "--keywords"},
		{[]string{"ftp://x.test/a", "--name", "t"}, "example"},
	} {
		args := append([]string{"topic", "bootstrap"}, append(tc.args, "--fetch.allow_private_networks=true")...)
		err := cli.Run(context.Background(), "search", "", Commands(), args)
		var ue cli.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q = %v; want a usage error naming %s", tc.args, err, tc.want)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("refused bootstraps made %d requests; want none", n)
	}
}

// TestExportUnknownCrawl: exporting a crawl ID the store does not know (a
// typo) said "export crawl X: store/sqlite: crawl "X": store: not found";
// it says there is no such crawl and how to list them, and --out leaves no
// file behind.
func TestExportUnknownCrawl(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.db")
	st, err := storebackend.Open(context.Background(), config.Store{Driver: "sqlite", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out := filepath.Join(dir, "log.jsonl")
	for _, args := range [][]string{{"export", "crawl/t/1"}, {"export", "crawl/t/1", "--out", out}} {
		err := cli.Run(context.Background(), "search", "", Commands(), append(args, "--store.driver=sqlite", "--store.path="+path))
		if want := `no crawl "crawl/t/1" in the crawl store (list them with 'search crawls')`; err == nil || err.Error() != want {
			t.Errorf("%q = %v; want %q", args, err, want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("export of an unknown crawl wrote %s", out)
	}
}

// TestForgottenCrawlSaysWhy: `starter crawl --fresh` deletes the pages of
// its topic's earlier crawls and keeps their records. In a user trial a
// crawl of 200 pages was then listed by `search crawls` as "completed 0 0"
// and exported as an empty log without a word; both now say that such a
// crawl fetched none or a later --fresh crawl forgot its pages. A crawl
// with pages is listed as before.
func TestForgottenCrawlSaysWhy(t *testing.T) {
	path := exportStore(t)
	st, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.SetCrawlState(ctx, "crawl/t/1", "completed"); err != nil {
		t.Fatal(err)
	}
	// The --fresh crawl, after crawl/t/1 (started now): its start resets
	// the topic, then it saves a page.
	if err := st.CreateCrawl(ctx, store.Crawl{ID: "crawl/t/2", Topic: "t", StartedAt: time.Now().Add(time.Minute), State: store.CrawlRunning}); err != nil {
		t.Fatal(err)
	}
	if err := st.ResetTopic(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	u := "http://a.test/3"
	if _, _, err := st.SavePage(ctx, store.Page{Topic: "t", URLHash: urlnorm.Hash(u), URL: u, FinalURL: u, FinalHash: urlnorm.Hash(u),
		CrawlID: "crawl/t/2", Status: 200, FetchedAt: time.Now()}, nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	flags := []string{"--store.driver=sqlite", "--store.path=" + path}
	list, err := runSearch(t, append([]string{"crawls"}, flags...)...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(list), "0*") || !strings.Contains(string(list), "--fresh") {
		t.Errorf("search crawls:\n%s\nwant crawl/t/1's 0 marked, saying a later --fresh crawl may have forgotten its pages", list)
	}
	if line := lineOf(string(list), "crawl/t/2"); !strings.Contains(line, " 1 ") {
		t.Errorf("search crawls lists crawl/t/2 as %q; want its 1 page", line)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	log, err := runSearch(t, append([]string{"export", "crawl/t/1"}, flags...)...)
	os.Stderr = saved
	w.Close()
	note, _ := io.ReadAll(r)
	if err != nil || len(log) != 0 {
		t.Fatalf("export of the forgotten crawl = %q, %v; want an empty log", log, err)
	}
	if !strings.Contains(string(note), "no pages in the crawl store") || !strings.Contains(string(note), "crawl/t/2") {
		t.Errorf("export of the forgotten crawl said %q on stderr; want why it has no pages, naming crawl/t/2", note)
	}
}

// lineOf returns the first line of s containing sub ("" when none does).
func lineOf(s, sub string) string {
	for line := range strings.Lines(s) {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}
