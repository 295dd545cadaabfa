package searchcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/config"
	storebackend "focuscrawl/internal/store/backend"
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
