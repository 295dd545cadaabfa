package backend

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"focuscrawl/internal/config"
	"focuscrawl/internal/index/sqlitefts"
)

type spaceSegmenter struct{}

func (spaceSegmenter) Segment(text string) string { return strings.ToLower(text) }

func TestOpenPicksTheConfiguredBackend(t *testing.T) {
	ix, err := Open(context.Background(), config.Index{Driver: "sqlite", Path: filepath.Join(t.TempDir(), "i.db")}, spaceSegmenter{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, ok := ix.(*sqlitefts.Index); !ok {
		t.Errorf("driver sqlite opened %T", ix)
	}
	if _, err := Open(context.Background(), config.Index{Driver: "lucene"}, spaceSegmenter{}); err == nil {
		t.Error("unknown driver opened")
	}
	// An unreachable cluster fails at Open, with the address in the error.
	_, err = Open(context.Background(), config.Index{Driver: "elasticsearch", Elasticsearch: config.Elasticsearch{
		Addresses: []string{"http://127.0.0.1:1"}, RequestTimeout: 2e9, MaxRetries: 1, IndexPrefix: "focuscrawl",
	}}, spaceSegmenter{})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("unreachable cluster: %v", err)
	}
}
