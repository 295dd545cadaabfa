package crawllog

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
)

func TestExportReadRoundTrip(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.CreateCrawl(ctx, store.Crawl{ID: "crawl/t/1", Topic: "t", TopicVersion: 1, State: store.CrawlRunning}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	pages := []store.Page{
		{Topic: "t", URLHash: "h1", URL: "http://a.test/", FinalURL: "http://a.test/", FinalHash: "h1", CrawlID: "crawl/t/1",
			Status: 200, LinkScore: 2, LinkStrategy: "seed", FetchedAt: at},
		{Topic: "t", URLHash: "h2", URL: "http://a.test/x", FinalURL: "http://a.test/x", FinalHash: "h2", CrawlID: "crawl/t/1",
			Status: 0, ErrorClass: "timeout", Error: "read timed out", Depth: 1, ParentURL: "http://a.test/", FetchedAt: at},
	}
	for _, p := range pages {
		if _, _, err := st.SavePage(ctx, p, []byte("<html>")); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.SetDecision(ctx, "t", "h1", store.Decision{Relevance: 0.4, Filter: "vsm", Decision: store.DecisionAccepted,
		Reason: "cosine 0.4", Title: "标题 <b>&"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := Export(ctx, st, "crawl/t/1", &buf)
	if err != nil || n != 2 {
		t.Fatalf("Export = %d, %v", n, err)
	}
	// Titles are written as-is (no HTML escaping of <, > and &).
	if !strings.Contains(buf.String(), `"title":"标题 <b>&"`) {
		t.Fatalf("title escaped or missing: %s", buf.String())
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Seq != 1 || got[1].Seq != 2 {
		t.Fatalf("entries out of fetch order: %+v", got)
	}
	if !got[0].Accepted || got[0].Filter != "vsm" || got[0].Relevance != 0.4 || got[0].LinkStrategy != "seed" {
		t.Errorf("first entry: %+v", got[0])
	}
	if got[1].Accepted || got[1].ErrorClass != "timeout" || got[1].Parent != "http://a.test/" || got[1].Depth != 1 {
		t.Errorf("second entry: %+v", got[1])
	}
	if !got[1].FetchedAt.Equal(at) {
		t.Errorf("fetched_at = %v, want %v", got[1].FetchedAt, at)
	}
	if _, err := Export(ctx, st, "crawl/none", &buf); err == nil {
		t.Error("exporting an unknown crawl must fail")
	}
}

func TestReadNamesBadLine(t *testing.T) {
	_, err := Read(strings.NewReader("{\"seq\":1}\n\nnot json\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("error %v does not name line 3", err)
	}
}
