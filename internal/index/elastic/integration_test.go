package elastic

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"
)

// TestRealCluster runs the recorded scenarios (template, first write with
// index creation, retry without duplicates, deletion, score update, search
// with highlighted snippets in Chinese and English, alias swap) against a
// real Elasticsearch 8 when ELASTICSEARCH_URL is set, e.g.
//
//	ELASTICSEARCH_URL=http://elastic:changeme@127.0.0.1:9200 go test ./internal/index/elastic/ -run RealCluster
//
// User and password may be in the URL; ELASTICSEARCH_API_KEY,
// ELASTICSEARCH_CA_CERT and ELASTICSEARCH_INSECURE=1 are honoured too. It
// works under a unique index prefix and deletes what it created.
func TestRealCluster(t *testing.T) {
	raw := os.Getenv("ELASTICSEARCH_URL")
	if raw == "" {
		t.Skip("ELASTICSEARCH_URL is not set: no Elasticsearch cluster to test against (the recorded-response tests cover the request shapes)")
	}
	cfg := Config{
		APIKey: os.Getenv("ELASTICSEARCH_API_KEY"), CACert: os.Getenv("ELASTICSEARCH_CA_CERT"),
		InsecureSkipVerify: os.Getenv("ELASTICSEARCH_INSECURE") == "1",
		RequestTimeout:     30 * time.Second, Refresh: "wait_for",
		IndexPrefix: fmt.Sprintf("fctest-%d", time.Now().UnixNano()),
	}
	addr, user, pass := splitUserinfo(raw)
	cfg.Addresses, cfg.Username, cfg.Password = []string{addr}, user, pass
	ctx := context.Background()
	x, err := Open(ctx, cfg, textproc.Shared())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		x.es.Indices.Delete([]string{x.topicIndex("gimp", 1), x.topicIndex("gimp", 2)},
			x.es.Indices.Delete.WithIgnoreUnavailable(true))
		x.es.Indices.DeleteIndexTemplate(x.templateName())
		x.Close()
	})

	docs := []index.Document{
		{ID: "h1", Topic: "gimp", URL: "https://www.example.org/blur", Host: "www.example.org",
			Title: "Blur filters", Text: "The Gaussian blur filter softens an image.", Lang: "en", Relevance: 0.4, FetchedAt: fetched},
		{ID: "h2", Topic: "gimp", URL: "https://www.example.org/sharpen", Host: "www.example.org",
			Title: "Sharpen", Text: "Unsharp mask sharpens edges.", Lang: "en", Relevance: 0.8},
		{ID: "h3", Topic: "gimp", URL: "https://docs.example.cn/blur", Host: "docs.example.cn",
			Title: "高斯模糊滤镜", Text: "在 GIMP 中使用高斯模糊滤镜可以柔化图像。", Lang: "zh", Relevance: 0.9, FetchedAt: fetched},
	}
	for i := 0; i < 2; i++ { // the second round is a retry: no duplicates
		if err := x.Upsert(ctx, docs); err != nil {
			t.Fatalf("Upsert round %d: %v", i+1, err)
		}
	}
	if n, err := x.Count(ctx, "gimp"); err != nil || n != 3 {
		t.Fatalf("Count after two upserts = %d, %v; want 3", n, err)
	}
	res, err := x.Search(ctx, index.Query{Text: "高斯模糊", Topic: "gimp"})
	if err != nil || res.Total != 1 || res.Hits[0].ID != "h3" || !strings.Contains(res.Hits[0].Snippet, "<mark>") {
		t.Fatalf("Chinese search = %+v, %v", res, err)
	}
	res, err = x.Search(ctx, index.Query{Text: "blur", Host: "www.example.org"})
	if err != nil || res.Total != 1 || res.Hits[0].ID != "h1" || !strings.Contains(res.Hits[0].Snippet, "<mark>blur</mark>") {
		t.Fatalf("English search with host filter = %+v, %v", res, err)
	}
	if err := x.UpdateScores(ctx, "gimp", map[string]index.Scores{"h2": {Authority: 1}, "missing": {}}); err != nil {
		t.Fatalf("UpdateScores: %v", err)
	}
	if err := x.Delete(ctx, "gimp", []string{"h1", "missing"}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	next, err := x.Rebuild(ctx, "gimp")
	if err != nil || next != x.topicIndex("gimp", 2) {
		t.Fatalf("Rebuild = %q, %v", next, err)
	}
	if n, err := x.Count(ctx, ""); err != nil || n != 2 {
		t.Fatalf("Count after delete and reindex = %d, %v; want 2", n, err)
	}
	res, err = x.Search(ctx, index.Query{Text: "sharpens"})
	if err != nil || res.Total != 1 || res.Hits[0].Authority != 1 {
		t.Fatalf("search after reindex = %+v, %v; want h2 with authority 1", res, err)
	}
}

// splitUserinfo takes user:password out of a URL.
func splitUserinfo(raw string) (addr, user, pass string) {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw, "", ""
	}
	info, host, ok := strings.Cut(rest, "@")
	if !ok {
		return raw, "", ""
	}
	user, pass, _ = strings.Cut(info, ":")
	return scheme + "://" + host, user, pass
}
