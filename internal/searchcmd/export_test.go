package searchcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/cli"
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
