package topicboot

import (
	"context"
	"testing"
)

// TestFetchNilPacer: Fetch's doc says "p (nil: not paced)"; it read
// p.Cfg and panicked.
func TestFetchNilPacer(t *testing.T) {
	srv := newSite(t)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Fetch with a nil Pacer panicked: %v", r)
		}
	}()
	pages, err := Fetch(context.Background(), fetcher(t), []string{srv.URL + "/roses/soil.html"}, nil)
	if err != nil || len(pages) != 1 {
		t.Fatal(pages, err)
	}
}
