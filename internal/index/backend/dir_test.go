package backend

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/config"
	"focuscrawl/internal/textproc"
)

// TestOpenCreatesTheIndexDirectory: the SQLite crawl store creates the
// directory of store.path (store/sqlite openAt: os.MkdirAll); the SQLite
// index must do the same for index.path, or at least say the directory is
// missing. A worker with FOCUSCRAWL_INDEX_PATH=/data/idx/index.db (new
// directory) failed with "begin schema transaction: unable to open database
// file (14)".
func TestOpenCreatesTheIndexDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new-dir", "index.db")
	ix, err := Open(context.Background(), config.Index{Driver: "sqlite", Path: path}, textproc.Shared())
	if err != nil {
		if strings.Contains(err.Error(), "unable to open database file") {
			t.Fatalf("index.path in a directory that does not exist yet: %v", err)
		}
		t.Fatal(err)
	}
	ix.Close()
}
