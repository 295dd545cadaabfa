// Package crawllog defines the crawl log: the JSON Lines export of a crawl,
// one object per fetched URL in fetch order. It is the interface between a
// crawl and everything that judges it (the evaluation harness, notebooks,
// other tools), so its field names are stable.
package crawllog

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"focuscrawl/internal/store"
)

// Entry is one line of the crawl log.
type Entry struct {
	Seq          int64     `json:"seq"` // 1-based fetch order
	URL          string    `json:"url"`
	FinalURL     string    `json:"final_url"`
	Status       int       `json:"status"` // HTTP status, 0 when no response
	Depth        int       `json:"depth"`
	Parent       string    `json:"parent"` // URL of the page the link was found on; "" for seeds
	LinkScore    float64   `json:"link_score"`
	LinkStrategy string    `json:"link_strategy"`
	Relevance    float64   `json:"relevance"`
	Accepted     bool      `json:"accepted"`
	Decision     string    `json:"decision"` // accepted, rejected, duplicate, error, tunnel, or "" if not judged
	Filter       string    `json:"filter"`
	Reason       string    `json:"reason,omitempty"`
	ErrorClass   string    `json:"error_class,omitempty"`
	Error        string    `json:"error,omitempty"`
	ContentType  string    `json:"content_type,omitempty"`
	Charset      string    `json:"charset,omitempty"`
	Title        string    `json:"title,omitempty"`
	FetchedAt    time.Time `json:"fetched_at"`
}

// FromPage converts a stored page to a log entry.
func FromPage(p store.Page) Entry {
	return Entry{
		Seq: p.Seq, URL: p.URL, FinalURL: p.FinalURL, Status: p.Status, Depth: p.Depth, Parent: p.ParentURL,
		LinkScore: p.LinkScore, LinkStrategy: p.LinkStrategy, Relevance: p.Relevance,
		Accepted: p.Decision == store.DecisionAccepted, Decision: p.Decision, Filter: p.Filter, Reason: p.Reason,
		ErrorClass: p.ErrorClass, Error: p.Error, ContentType: p.ContentType, Charset: p.Charset,
		Title: p.Title, FetchedAt: p.FetchedAt,
	}
}

// Export writes a crawl's log to w and returns the number of entries.
func Export(ctx context.Context, s store.Crawls, crawlID string, w io.Writer) (int, error) {
	if _, err := s.Crawl(ctx, crawlID); err != nil {
		return 0, fmt.Errorf("export crawl %s: %w", crawlID, err)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	n := 0
	err := s.CrawlLog(ctx, crawlID, func(p store.Page) error {
		n++
		return enc.Encode(FromPage(p))
	})
	if err != nil {
		return n, fmt.Errorf("export crawl %s: %w", crawlID, err)
	}
	return n, bw.Flush()
}

// Read parses a crawl log. Lines that are not valid entries are errors that
// name the line number.
func Read(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var out []Entry
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("crawl log line %d: %w", line, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
