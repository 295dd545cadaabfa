package searchcmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/cli"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/sqlitefts"
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

