package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
	"focuscrawl/internal/urlnorm"
)

// The rows of the upgrade test (its operations are in upgrade_ops.go).
// They are what a crawl in progress leaves: a topic with two versions, a
// finished crawl and a running one, a frontier in every state (done
// batches, a live claim, a claim whose lease ran out, queued links of
// several hosts and priorities), pages of every outcome with their bodies
// and parse records, the link graph, term statistics, models, no-result
// queries, revisit bookkeeping (with a final URL a page gave up), host
// slots, holds and yields, and fences.
// Times are relative to t0, which the operations take as now.

// The fixture's topics.
const (
	fxGo   = "go"
	fxRust = "rust"
)

// fxEntry is a frontier row of the fixture; its seq is its place in
// fxEntries.
type fxEntry struct {
	topic, url string
	prio       float64
	state      string
	batch      string
	pos        int64
	lease      time.Duration // lease_until - t0; 0 = none
	attempts   int64
	crawl      string
	parent     string // URL of the page the link was found on; "" = seed
	anchor     string
	score      float64
	strategy   string
}

var fxEntries = []fxEntry{
	{fxGo, "https://a.test/", 10, store.StateDone, "c-old/s1/a1/b1", 1, -47 * time.Hour, 1, "c-old", "", "", 0, "seed"},
	{fxGo, "https://a.test/go/", 8, store.StateDone, "c-old/s1/a1/b1", 2, -47 * time.Hour, 1, "c-old", "https://a.test/", "Go", 0.8, "nb"},
	{fxGo, "https://b.test/", 7, store.StateDone, "c-old/s1/a1/b1", 3, -47 * time.Hour, 2, "c-old", "", "", 0, "seed"},
	{fxGo, "https://c.test/copy", 6, store.StateDone, "c-old/s1/a1/b2", 1, -46 * time.Hour, 1, "c-old", "https://a.test/", "copy", 0.6, "nb"},
	{fxGo, "https://a.test/gopher", 5, store.StateDone, "c-old/s1/a1/b2", 2, -46 * time.Hour, 1, "c-old", "https://a.test/go/", "Gopher", 0.5, "nb"},
	{fxGo, "https://d.test/skip", 4, store.StateDone, "c-old/s1/a1/b2", 3, -46 * time.Hour, 1, "c-old", "https://a.test/", "skip", 0.4, "nb"},
	// A live claim of the running crawl: one page saved, one not.
	{fxGo, "https://a.test/live", 6, store.StateClaimed, "c-new/s1/a2/b1", 1, 30 * time.Minute, 1, "c-new", "https://a.test/gopher", "live", 0.6, "nb"},
	{fxGo, "https://b.test/live", 5, store.StateClaimed, "c-new/s1/a2/b1", 2, 30 * time.Minute, 1, "c-new", "https://a.test/gopher", "b live", 0.5, "nb"},
	// A claim whose lease ran out: the entry with a page is done at the
	// next claim, the other goes back to the queue.
	{fxGo, "https://c.test/expired", 5, store.StateClaimed, "c-new/s1/a1/b1", 1, -10 * time.Minute, 1, "c-new", "https://a.test/gopher", "c", 0.5, "nb"},
	{fxGo, "https://d.test/expired", 4, store.StateClaimed, "c-new/s1/a1/b1", 2, -10 * time.Minute, 1, "c-new", "https://a.test/gopher", "d", 0.4, "nb"},
	{fxGo, "https://a.test/q1", 3, store.StateQueued, "", 0, 0, 0, "c-old", "https://a.test/", "Go", 0.7, "nb"},
	{fxGo, "https://b.test/q2", 3, store.StateQueued, "", 0, 0, 0, "c-old", "https://a.test/", "B", 0.7, "nb"},
	{fxGo, "https://c.test/q3", 2, store.StateQueued, "", 0, 0, 0, "c-old", "https://a.test/go/", "C3", 0.2, "nb"},
	{fxGo, "https://c.test/q4", 2, store.StateQueued, "", 0, 0, 0, "c-old", "https://a.test/go/", "C4", 0.2, "nb"},
	{fxGo, "https://d.test/q5", 1, store.StateQueued, "", 0, 0, 0, "c-new", "https://c.test/expired", "D5", 0.1, "nb"},
	{fxGo, "https://b.test/zero", 0, store.StateQueued, "", 0, 0, 0, "c-new", "https://c.test/expired", "", 0, "nb"},
	{fxGo, "https://a.test/old/x", 0.5, store.StateQueued, "", 0, 0, 1, "c-old", "https://a.test/go/", "x", 0.05, "nb"}, // requeued after an expiry
	{fxRust, "https://r.test/", 1, store.StateDone, "r1/s1/a1/b1", 1, -20 * time.Hour, 1, "r1", "", "", 0, "seed"},
	{fxRust, "https://r.test/a", 1, store.StateQueued, "", 0, 0, 0, "r1", "https://r.test/", "a", 0.5, "nb"},
	{fxRust, "https://r.test/b", 0.5, store.StateQueued, "", 0, 0, 0, "r1", "https://r.test/", "b", 0.2, "nb"},
}

// fxPage is a pages row of the fixture, with its blobs.
type fxPage struct {
	topic, url, crawl, batch string
	seq                      int64
	status                   int64
	errClass                 string
	decision                 string
	relevance                float64
	indexed                  int64
	counted                  int64         // terms_counted
	fetched                  time.Duration // fetched_at - t0
	contentHash              string
	robots                   string
	body, parse              string // "" = no blob
}

var fxPages = []fxPage{
	{fxGo, "https://a.test/", "c-old", "c-old/s1/a1/b1", 1, 200, "", store.DecisionAccepted, 0.9, 1, 1, -47 * time.Hour, "h-home", "noarchive", "<h1>Go</h1>", `{"title":"Go"}`},
	{fxGo, "https://a.test/go/", "c-old", "c-old/s1/a1/b1", 2, 200, "", store.DecisionRejected, 0.1, 0, 1, -47 * time.Hour, "h-go", "", "<p>go go</p>", `{"title":"Go dir"}`},
	{fxGo, "https://b.test/", "c-old", "c-old/s1/a1/b1", 3, 0, "timeout", store.DecisionError, 0, 0, 0, -47 * time.Hour, "", "", "", ""},
	{fxGo, "https://c.test/copy", "c-old", "c-old/s1/a1/b2", 4, 200, "", store.DecisionDuplicate, 0, 0, 1, -46 * time.Hour, "h-home", "", "", `{"title":"Copy"}`},
	{fxGo, "https://a.test/gopher", "c-old", "c-old/s1/a1/b2", 5, 200, "", store.DecisionAccepted, 0.8, 0, 1, -46 * time.Hour, "h-gopher", "noindex", "<p>gopher</p>", `{"title":"Gopher"}`},
	{fxGo, "https://a.test/live", "c-new", "c-new/s1/a2/b1", 1, 200, "", store.DecisionPending, 0, 0, 0, -20 * time.Minute, "h-live", "", "<p>live</p>", ""},
	{fxGo, "https://c.test/expired", "c-new", "c-new/s1/a1/b1", 2, 200, "", store.DecisionTunnel, 0.3, 0, 1, -40 * time.Minute, "h-expired", "", "<p>c</p>", `{"title":"C"}`},
	{fxRust, "https://r.test/", "r1", "r1/s1/a1/b1", 1, 200, "", store.DecisionAccepted, 0.7, 1, 1, -20 * time.Hour, "h-rust", "", "<p>rust</p>", `{"title":"Rust"}`},
}

// fxLinks are the fixture's edges: topic, source URL, target URL, anchor.
var fxLinks = [][4]string{
	{fxGo, "https://a.test/", "https://a.test/go/", "Go"},
	{fxGo, "https://a.test/", "https://a.test/q1", "Go"},
	{fxGo, "https://a.test/", "https://b.test/q2", "B"},
	{fxGo, "https://a.test/", "https://c.test/copy", ""},
	{fxGo, "https://a.test/go/", "https://a.test/gopher", "Gopher"},
	{fxGo, "https://a.test/go/", "https://c.test/q3", "C3"},
	{fxGo, "https://a.test/gopher", "https://a.test/", "home"},
	{fxGo, "https://c.test/expired", "https://d.test/q5", "D5"},
	{fxGo, "https://a.test/live", "https://a.test/", "home"},
	{fxRust, "https://r.test/", "https://r.test/a", "a"},
}

func ns(d time.Duration) int64 { return t0.Add(d).UnixNano() }

// fxRevisitAt is a page's refresh_next_at (migration 16 / 15): the next_at
// of its refresh_state row below, nil without one. Runs from versions
// without the column compare the migration's backfill with what the
// triggers set in a fresh database, where the fixture's pages come before
// their revisit rows.
func fxRevisitAt(p fxPage) any {
	switch {
	case p.topic != fxGo:
		return nil
	case p.url == "https://a.test/":
		return ns(-time.Hour)
	case p.url == "https://a.test/gopher":
		return ns(-2 * time.Hour)
	}
	return nil
}

// fxTopicYAML is version v of topic's file in the fixture.
func fxTopicYAML(topic string, v int) []byte {
	return fmt.Appendf(nil, "name: %s\nversion: %d\n", topic, v)
}

// sha256hex is the topics.hash of a topic file.
func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// fxBlob is the blobs row of a page's body or parse record.
func fxBlob(topic, url, kind, data string) fxRow {
	packed, err := codec.Compress([]byte(data))
	if err != nil {
		panic(err)
	}
	return fx("blobs", "topic", topic, "url_hash", hash(url), "kind", kind, "encoding", codec.Encoding,
		"size", int64(len(data)), "data", packed)
}

// upgradeFixture returns the fixture's rows in an order that satisfies the
// foreign keys (pages before their blobs and revisit rows).
func upgradeFixture() []fxRow {
	var rows []fxRow
	for _, tp := range []struct {
		name string
		v    int
		at   time.Duration
	}{{fxGo, 1, -72 * time.Hour}, {fxGo, 2, -2 * time.Hour}, {fxRust, 1, -30 * time.Hour}} {
		y := fxTopicYAML(tp.name, tp.v)
		rows = append(rows, fx("topics", "name", tp.name, "version", int64(tp.v), "yaml", y,
			"hash", sha256hex(y), "created_at", ns(tp.at)))
	}
	rows = append(rows,
		fx("crawls", "id", "c-old", "topic", fxGo, "topic_version", int64(1), "state", store.CrawlCompleted,
			"started_at", ns(-48*time.Hour), "updated_at", ns(-40*time.Hour),
			"link_model_version", int64(0), "rank_version", int64(0)),
		// The model versions (migration 13 / 12) are written where the
		// schema has them; older releases' rows get the default, 0.
		fx("crawls", "id", "c-new", "topic", fxGo, "topic_version", int64(2), "state", store.CrawlRunning,
			"started_at", ns(-time.Hour), "updated_at", ns(-time.Minute),
			"link_model_version", int64(2), "rank_version", int64(3)),
		fx("crawls", "id", "r1", "topic", fxRust, "topic_version", int64(1), "state", store.CrawlRunning,
			"started_at", ns(-21*time.Hour), "updated_at", ns(-20*time.Hour),
			"link_model_version", int64(0), "rank_version", int64(0)))
	next := map[string]int64{}
	for i, e := range fxEntries {
		var lease int64
		if e.lease != 0 {
			lease = ns(e.lease)
		}
		var parentHash string
		depth := int64(0)
		if e.parent != "" {
			parentHash, depth = hash(e.parent), 1
		}
		seq := int64(i + 1) // unique across topics: PostgreSQL's sequence is shared
		next[e.topic] = seq + 1
		sink := 1.0
		if e.url == "https://d.test/q5" {
			sink = 0.5 // demoted (store.Frontier.DemoteQueued)
		}
		rows = append(rows, fx("frontier", "topic", e.topic, "url_hash", hash(e.url), "url", e.url,
			"host", urlnorm.Host(e.url), "priority", e.prio, "depth", depth, "parent_hash", parentHash,
			"parent_url", e.parent, "anchor", e.anchor, "anchor_path", e.anchor, "link_score", e.score,
			"strategy", e.strategy, "state", e.state, "batch_id", e.batch, "lease_until", lease,
			"attempts", e.attempts, "crawl_id", e.crawl, "seq", seq, "claim_pos", e.pos, "sink", sink))
	}
	// SQLite's per-topic frontier sequences (absent on PostgreSQL).
	for _, topic := range []string{fxGo, fxRust} {
		rows = append(rows, fx("sequences", "name", "frontier/"+topic, "value", next[topic]))
	}
	for _, p := range fxPages {
		var errMsg, title, textHash string
		if p.errClass != "" {
			errMsg = "fetch failed: " + p.errClass
		}
		if p.parse != "" {
			title, textHash = "Title of "+p.url, "sig-"+p.contentHash
		}
		finalURL := p.url
		if p.url == "https://a.test/go/" {
			finalURL = "https://a.test/go/index.html" // a redirect
		}
		rows = append(rows, fx("pages", "topic", p.topic, "url_hash", hash(p.url), "url", p.url,
			"final_url", finalURL, "final_hash", hash(finalURL), "crawl_id", p.crawl, "batch_id", p.batch,
			"seq", p.seq, "depth", int64(1), "parent_url", "https://a.test/", "anchor_path", "Home > Go",
			"link_score", 0.5, "link_strategy", "nb", "status", p.status, "error_class", p.errClass,
			"error_msg", errMsg, "content_type", "text/html", "charset", "utf-8", "etag", `"e-`+p.contentHash+`"`,
			"last_modified", "Mon, 06 May 2024 07:00:00 GMT", "content_hash", p.contentHash,
			"bytes", int64(len(p.body)), "fetched_at", ns(p.fetched), "title", title, "lang", "en",
			"relevance", p.relevance, "filter_name", "vsm", "decision", p.decision, "reason", "fixture",
			"is_indexed", p.indexed, "hub", 0.25, "authority", 0.5, "ipagerank", 0.125,
			"terms_counted", p.counted, "robots_tag", p.robots, "refresh_next_at", fxRevisitAt(p), "text_hash", textHash))
	}
	for _, p := range fxPages {
		if p.body != "" {
			rows = append(rows, fxBlob(p.topic, p.url, store.BlobBody, p.body))
		}
		if p.parse != "" {
			rows = append(rows, fxBlob(p.topic, p.url, store.BlobParse, p.parse))
		}
	}
	for _, l := range fxLinks {
		rows = append(rows, fx("links", "topic", l[0], "src", hash(l[1]), "dst", hash(l[2]), "dst_url", l[2],
			"anchor", l[3], "context", "… "+l[3]+" …", "score", 0.5))
	}
	rows = append(rows,
		fx("hosts", "host", "a.test", "next_allowed_at", ns(2*time.Second), "held_until", int64(0)),
		fx("hosts", "host", "b.test", "next_allowed_at", ns(-time.Minute), "held_until", ns(time.Hour)),
		fx("hosts", "host", "c.test", "next_allowed_at", ns(-time.Hour), "held_until", ns(-time.Hour)),
		fx("term_df", "topic", fxGo, "term", "go", "df", int64(4)),
		fx("term_df", "topic", fxGo, "term", "gopher", "df", int64(2)),
		fx("term_df", "topic", fxGo, "term", "concurrency", "df", int64(1)),
		fx("term_df", "topic", fxRust, "term", "rust", "df", int64(1)),
		// The go topic was reset twice before (its term sample's
		// generation, migration 20 / 18); its sample was started with no
		// bound, rust's with a size of 1,000 (migration 21 / 20).
		fx("topic_docs", "topic", fxGo, "docs", int64(5), "gen", int64(2), "sample", int64(-1)),
		fx("topic_docs", "topic", fxRust, "docs", int64(1), "gen", int64(0), "sample", int64(1000)),
		fx("models", "topic", fxGo, "kind", "link", "version", int64(1), "data", []byte("link model 1"), "created_at", ns(-40*time.Hour)),
		fx("models", "topic", fxGo, "kind", "link", "version", int64(2), "data", []byte("link model 2"), "created_at", ns(-time.Hour)),
		fx("models", "topic", fxGo, "kind", "topic-vector", "version", int64(1), "data", []byte{0, 1, 2, 255}, "created_at", ns(-40*time.Hour)),
		fx("models", "topic", fxRust, "kind", "link", "version", int64(1), "data", []byte("rust model"), "created_at", ns(-20*time.Hour)),
		fx("no_result_queries", "topic", fxGo, "query", "go generics", "count", int64(3), "last_at", ns(-time.Hour)),
		fx("no_result_queries", "topic", fxGo, "query", "gopher", "count", int64(1), "last_at", ns(-2*time.Hour)),
		// Revisits: the home page was revisited twice and is due again; the
		// gopher page's refresh claim ran out twice without an outcome, after
		// two revisits that failed transiently.
		fx("refresh_state", "topic", fxGo, "url_hash", hash("https://a.test/"), "next_at", ns(-time.Hour),
			"interval_ns", int64(24*time.Hour), "checks", int64(2), "changes", int64(1), "batch_id", "",
			"lease_until", int64(0), "failures", int64(0), "dropped", int64(0), "unreachable", int64(0), "unreachable_since", int64(0)),
		fx("refresh_state", "topic", fxGo, "url_hash", hash("https://a.test/gopher"), "next_at", ns(-2*time.Hour),
			"interval_ns", int64(12*time.Hour), "checks", int64(1), "changes", int64(0), "batch_id", "refresh/old",
			"lease_until", ns(-5*time.Minute), "failures", int64(2), "dropped", int64(1),
			"unreachable", int64(2), "unreachable_since", ns(-30*time.Hour)),
		// A claim of the gopher page that ran out had moved it off the
		// final URL it had before (.html).
		fx("refresh_given_up", "topic", fxGo, "url_hash", hash("https://a.test/gopher"),
			"final_hash", hash("https://a.test/gopher.html")),
		fx("host_yield", "topic", fxGo, "host", "a.test", "judged", int64(3), "accepted", int64(2)),
		fx("host_yield", "topic", fxGo, "host", "b.test", "judged", int64(1), "accepted", int64(0)),
		fx("host_yield", "topic", fxGo, "host", "c.test", "judged", int64(2), "accepted", int64(0)),
		// The running crawl's slice fence, and one written by a release
		// that did not stamp fences (kept by PruneFences).
		fx("fences", "topic", fxGo, "name", "c-new/s1", "token", int64(2), "raised_at", ns(-time.Hour)),
		fx("fences", "topic", fxGo, "name", "c-old/s1", "token", int64(1), "raised_at", int64(0)),
	)
	return rows
}
