package searchcmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlite"
	"focuscrawl/internal/urlnorm"
)

// TestTopicsListsTheStore: `search topics` names every topic of the crawl
// store with its version, its searchable documents, its frontier, what a
// refresh would revisit and its last crawl; an empty store says how a topic
// gets there. There was no way to see which topics a store held but to
// guess names for `search query --topic`.
func TestTopicsListsTheStore(t *testing.T) {
	ctx := context.Background()
	ixPath := curvesIndex(t) // 25 documents of topic gimp
	stPath := filepath.Join(t.TempDir(), "crawl.db")
	st, err := sqlite.Open(stPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, yml := range []string{
		"name: gimp\nkeywords: {curves: 1}\nseeds: [https://p.example/]\n",
		"name: gimp\nkeywords: {curves: 1, levels: 1}\nseeds: [https://p.example/]\n",
		"name: roses\nkeywords: {rose: 1}\nseeds: [https://r.example/]\n",
	} {
		if _, err := st.PutTopic(ctx, strings.SplitN(strings.TrimPrefix(yml, "name: "), "\n", 2)[0], []byte(yml)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateCrawl(ctx, store.Crawl{ID: "crawl/gimp/1", Topic: "gimp", TopicVersion: 2, State: store.CrawlRunning,
		StartedAt: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	var entries []store.FrontierEntry
	for _, u := range []string{"https://p.example/a", "https://p.example/b", "https://p.example/c"} {
		entries = append(entries, store.FrontierEntry{Topic: "gimp", URL: u, URLHash: urlnorm.Hash(u), Host: "p.example", Priority: 0.5})
	}
	if _, err := st.Enqueue(ctx, entries, store.EnqueueOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	run := func(args ...string) string {
		b, err := runSearch(t, append([]string{"topics", "--index.path=" + ixPath, "--store.path=" + stPath}, args...)...)
		if err != nil {
			t.Fatalf("topics %q: %v", args, err)
		}
		return string(b)
	}
	out := run()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TOPIC") {
		t.Fatalf("topics printed %q; want a header and two topics", out)
	}
	for _, want := range []string{"gimp", "v2", "25", "3", "crawl/gimp/1 (running"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("gimp's line %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(lines[2], "roses") || !strings.Contains(lines[2], "v1") {
		t.Errorf("roses's line %q", lines[2])
	}
	var sums []TopicSummary
	if err := json.Unmarshal([]byte(run("--json")), &sums); err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 || sums[0].Name != "gimp" || sums[0].Version != 2 || sums[0].Indexed == nil || *sums[0].Indexed != 25 || sums[0].Queued != 3 ||
		sums[0].LastCrawl == nil || sums[0].LastCrawl.ID != "crawl/gimp/1" || sums[1].Name != "roses" || sums[1].LastCrawl != nil {
		t.Errorf("topics --json = %+v", sums)
	}

	empty := filepath.Join(t.TempDir(), "empty.db")
	es, err := sqlite.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	es.Close()
	b, err := runSearch(t, "topics", "--store.path="+empty, "--index.path="+filepath.Join(t.TempDir(), "none.db"))
	if err != nil || !strings.Contains(string(b), "no topics yet") {
		t.Errorf("topics of an empty store = %q, %v; want \"no topics yet\" (and no index needed)", b, err)
	}
}
