// Package search is focuscrawl's domain search service: an HTTP JSON API
// (GET /api/search) and a small server-rendered web page (GET /) over any
// index.Index — the embedded SQLite FTS5 index or Elasticsearch, which rank
// and highlight alike (see internal/index). The service adds what a public
// endpoint needs on top of the index:
//
//   - request parsing and validation: the q, topic, host and page
//     parameters are checked with index.ValidateQuery and index.ParseQuery
//     before the index is touched, and every bad input is a 400 with a JSON
//     error saying what is wrong, never a 500. Queries reach the index only
//     as index.Query text, which backends interpret through ParseQuery: no
//     query syntax or DSL of any backend is passed through;
//   - pagination: fixed page size, 1-based page numbers, bounded depth;
//   - recording searches that found nothing, per topic, for seed 003's
//     keyword expansion (store.Queries). Only topics that exist are
//     recorded (a search without a topic filter is a miss for each known
//     topic), and the request path never writes to the crawl store: misses
//     go to a bounded, rate-limited in-memory NoResultQueue that a
//     background loop flushes (see queue.go).
//
// Ranking is the index's: text score × (0.5 + relevance) × (1 + authority)
// on both backends (docs/search.md).
package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"focuscrawl/internal/index"
	"focuscrawl/internal/suggest"
)

// PageSize is the number of results per page.
const PageSize = 10

// MaxPage is the deepest page a client may ask for: index.MaxOffset hits.
const MaxPage = index.MaxOffset/PageSize + 1

// maxParamBytes bounds each raw parameter before any other check, so a
// megabyte-long q costs nothing but its rejection.
const maxParamBytes = 4096

// NoResultRecorder records a search of topic that found nothing.
// store.Store implements it.
type NoResultRecorder interface {
	RecordNoResultQuery(ctx context.Context, topic, query string, at time.Time) error
}

// Service answers searches. Index is required; the rest is optional.
type Service struct {
	Index index.Index
	// Seg is the index's Segmenter; the service uses it to reject
	// queries with no searchable word before they reach the index.
	Seg index.Segmenter
	// NoResults, when set, records searches that found nothing. It is
	// called on the request path, so in production it is a NoResultQueue,
	// never the store itself.
	NoResults NoResultRecorder
	// Topics, when set, lists the known topics: the page offers them as a
	// filter, and a no-result search without a topic filter is recorded
	// for each of them.
	Topics func(ctx context.Context) ([]string, error)
	Log    *slog.Logger
	Now    func() time.Time
	// Timeout bounds one search in the index (0: none). The server's write
	// timeout does not cancel a handler, so without it a slow query runs
	// on after its client has been answered or given up.
	Timeout time.Duration

	topicsMu      sync.Mutex
	topicsCache   []string
	topicsErr     error         // the last lookup's failure, while no list was ever read
	topicsRead    bool          // a lookup has succeeded: topicsCache is a list
	topicsExpires time.Time     // the cache (or the failure) holds until then
	topicsWait    chan struct{} // closed when the lookup in flight ends; nil: none
}

// topicsTTL is how long the topic list is cached: a request should not read
// the store each time, and a new topic may wait this long to be recognised.
const topicsTTL = time.Minute

// topicsRetry is how long a failed topic lookup is not tried again: with
// the store down or slow, every page view tried it, one after another.
// topicsLookupTimeout bounds one lookup, which no request's cancellation
// ends (its result serves every request waiting for it).
const (
	topicsRetry         = 5 * time.Second
	topicsLookupTimeout = 10 * time.Second
)

// ErrTimeout is the error of a search that took longer than
// Service.Timeout; the handlers answer it 503 with a message saying so.
var ErrTimeout = errors.New("the search took too long")

// Request is a parsed, validated search request.
type Request struct {
	Query, Topic, Host string
	Page               int // 1-based
	// Limit is the hits per page: PageSize unless the API's limit asks
	// for another (1..index.MaxLimit); 0 is PageSize.
	Limit int
}

// pageSize is r's hits per page.
func (r Request) pageSize() int {
	if r.Limit > 0 {
		return r.Limit
	}
	return PageSize
}

// Response is the JSON answer of /api/search.
type Response struct {
	Query    string `json:"query"`
	Topic    string `json:"topic,omitempty"`
	Host     string `json:"host,omitempty"`
	Page     int    `json:"page"`
	PageSize int    `json:"page_size"`
	// Total counts every matching document; Pages is the number of
	// pages a client may ask for (at most index.MaxOffset hits deep:
	// PageCount).
	Total int   `json:"total"`
	Pages int   `json:"pages"`
	Hits  []Hit `json:"hits"`
	// Notice says why a search filtered by topic found nothing when the
	// index has no document of that topic (a typo, another case: "GIMP"
	// for "gimp"), naming the closest known topic, that a query's OR or
	// -word is no operator (index.OperatorNote), and which words no page
	// has when the results are those of the query without them
	// (index.RelaxedNote).
	Notice string `json:"notice,omitempty"`
	// Missing are the words and quoted phrases of the query no page has
	// (within the filters): no page had all of the query's words, and Hits
	// and Total are those of the query without these (index.SearchRelaxed).
	Missing []string `json:"missing,omitempty"`
}

// Hit is one result. Snippet is HTML: escaped text with the query's terms in
// <mark>…</mark>; every other field is plain text.
type Hit struct {
	Rank      int     `json:"rank"` // 1-based position over all pages
	ID        string  `json:"id"`
	Topic     string  `json:"topic"`
	URL       string  `json:"url"`
	Host      string  `json:"host"`
	Title     string  `json:"title"`
	Lang      string  `json:"lang"`
	Snippet   string  `json:"snippet"`
	Score     float64 `json:"score"`
	Relevance float64 `json:"relevance"`
	Authority float64 `json:"authority"`
}

// BadRequestError is a request the service refuses; the message says why.
type BadRequestError struct{ msg string }

func (e *BadRequestError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &BadRequestError{msg: fmt.Sprintf(format, args...)}
}

// ParseRequest reads q, topic, host, page and limit from URL parameters
// and validates them as the index will, so that every problem is reported
// as a *BadRequestError. limit (hits per page, PageSize by default) is
// the API's: `search query --limit N --json` says it prints what the API
// answers, and a script moving from one to the other found no limit.
func (s *Service) ParseRequest(v url.Values) (Request, error) {
	for _, name := range []string{"q", "topic", "host", "page", "limit"} {
		if len(v[name]) > 1 {
			return Request{}, badRequest("parameter %s is given %d times", name, len(v[name]))
		}
		if n := len(v.Get(name)); n > maxParamBytes {
			return Request{}, badRequest("parameter %s is %d bytes long, the limit is %d", name, n, maxParamBytes)
		}
	}
	host, err := index.HostKey(v.Get("host"))
	if err != nil {
		return Request{}, badRequest("%s", err)
	}
	r := Request{Query: v.Get("q"), Topic: strings.TrimSpace(v.Get("topic")), Host: host, Page: 1}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > index.MaxLimit {
			return Request{}, badRequest("limit %q is not a whole number from 1 to %d", l, index.MaxLimit)
		}
		r.Limit = n
	}
	if p := v.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return Request{}, badRequest("page %q is not a positive whole number", p)
		}
		if maxPage := index.MaxOffset/r.pageSize() + 1; n > maxPage {
			return Request{}, badRequest("page %d is too deep: at most %d pages of %d results are served", n, maxPage, r.pageSize())
		}
		r.Page = n
	}
	if err := index.ValidateQuery(r.indexQuery()); err != nil {
		return Request{}, badRequest("%s", err)
	}
	if s.Seg != nil {
		if _, _, err := index.ParseQuery(r.indexQuery().Text, s.Seg); err != nil {
			return Request{}, badRequest("%s", err)
		}
	}
	return r, nil
}

func (r Request) indexQuery() index.Query {
	return index.Query{Text: index.CleanQueryText(r.Query), Topic: r.Topic, Host: r.Host, Limit: r.pageSize(), Offset: (r.Page - 1) * r.pageSize()}
}

// Search runs r. An index.ErrBadQuery from the index becomes a
// *BadRequestError; other errors are the index's.
func (s *Service) Search(ctx context.Context, r Request) (Response, error) {
	sctx := ctx
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, s.Timeout)
		defer cancel()
	}
	seg := s.Seg
	if s.unknownTopic(ctx, r.Topic) != "" {
		seg = nil // every word would be missing: say the topic is unknown, no look-ups
	}
	res, missing, err := index.SearchRelaxed(sctx, s.Index, seg, r.indexQuery())
	if errors.Is(err, index.ErrBadQuery) {
		return Response{}, badRequest("%s", err)
	}
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		return Response{}, fmt.Errorf("%w (%v)", ErrTimeout, s.Timeout)
	}
	if err != nil {
		return Response{}, err
	}
	out := NewResponse(r, r.pageSize(), res)
	if res.Total == 0 || missing != nil { // the query itself found nothing
		s.recordNoResult(ctx, r)
		out.Notice = s.unknownTopic(ctx, r.Topic)
	}
	out.Missing = missing
	if n := index.QueryNote(r.indexQuery().Text, missing); n != "" {
		out.Notice = strings.TrimPrefix(out.Notice+"; "+n, "; ")
	}
	return out, nil
}

// unknownTopic is Response.Notice for a topic filter that names no topic
// the index knows ("" when it does, or when the list is not available).
func (s *Service) unknownTopic(ctx context.Context, topic string) string {
	if topic == "" {
		return ""
	}
	known, err := s.KnownTopics(ctx)
	if err != nil || len(known) == 0 || slices.Contains(known, topic) {
		return ""
	}
	msg := fmt.Sprintf("the index has no topic %q", topic)
	for _, k := range known {
		if strings.EqualFold(k, strings.TrimSpace(topic)) {
			return msg + fmt.Sprintf(" (did you mean %q?)", k)
		}
	}
	if c := suggest.Closest(strings.ToLower(topic), known, 2); c != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", c)
	}
	return msg
}

// PageCount is how many pages of pageSize hits total matches make, as
// far as pages are served (index.MaxOffset).
func PageCount(total, pageSize int) int {
	return min((total+pageSize-1)/pageSize, index.MaxOffset/pageSize+1)
}

// NewResponse is the /api/search answer for page r.Page of res, pages of
// pageSize hits. `search query --json` prints the same, so that one script
// reads both.
func NewResponse(r Request, pageSize int, res index.Result) Response {
	out := Response{
		Query: r.Query, Topic: r.Topic, Host: r.Host, Page: r.Page, PageSize: pageSize,
		Total: res.Total, Pages: PageCount(res.Total, pageSize), Hits: make([]Hit, len(res.Hits)),
	}
	for i, h := range res.Hits {
		out.Hits[i] = Hit{
			Rank: (r.Page-1)*pageSize + i + 1, ID: h.ID, Topic: h.Topic, URL: h.URL, Host: h.Host,
			Title: h.Title, Lang: h.Lang, Snippet: h.Snippet, Score: h.Score,
			Relevance: h.Relevance, Authority: h.Authority,
		}
	}
	return out
}

// recordNoResult stores a miss. Failing to record is logged, not returned:
// the user still gets their (empty) answer.
func (s *Service) recordNoResult(ctx context.Context, r Request) {
	if s.NoResults == nil || r.Host != "" {
		// A miss restricted to one host says nothing about the topic's
		// vocabulary.
		return
	}
	known, err := s.KnownTopics(ctx)
	if err != nil {
		s.log().Warn("no-result query not recorded: cannot list topics", "error", err)
		return
	}
	topics := known
	if r.Topic != "" {
		// Any string can be sent as topic=: record only topics that exist,
		// or anyone could fill the store with made-up ones.
		if !slices.Contains(known, r.Topic) {
			return
		}
		topics = []string{r.Topic}
	}
	// A queue takes the miss once for all its topics (one rate token).
	if m, ok := s.NoResults.(multiTopicRecorder); ok {
		if err := m.RecordNoResultQueries(ctx, topics, r.Query, s.now()); err != nil {
			s.log().Warn("no-result query not recorded", "query", r.Query, "error", err)
		}
		return
	}
	for _, t := range topics {
		if err := s.NoResults.RecordNoResultQuery(ctx, t, r.Query, s.now()); err != nil {
			s.log().Warn("no-result query not recorded", "topic", t, "query", r.Query, "error", err)
		}
	}
}

// multiTopicRecorder is a NoResultRecorder that records one miss in several
// topics at once (NoResultQueue).
type multiTopicRecorder interface {
	RecordNoResultQueries(ctx context.Context, topics []string, query string, at time.Time) error
}

// KnownTopics returns the sorted topic list, or nil without a Topics func.
// The list is cached for topicsTTL; one lookup runs at a time, outside the
// lock, and the requests that come meanwhile wait for its answer (or for
// their own context). A failed lookup keeps serving the list read before,
// or returns its error, for topicsRetry. The caller must not modify the
// list.
func (s *Service) KnownTopics(ctx context.Context) ([]string, error) {
	if s.Topics == nil {
		return nil, nil
	}
	for {
		s.topicsMu.Lock()
		// The expiry alone says whether the cache is filled: an empty list
		// (no crawls yet) is an answer to keep too.
		if s.now().Before(s.topicsExpires) {
			ts, err := s.topicsCache, s.topicsErr
			s.topicsMu.Unlock()
			return ts, err
		}
		if wait := s.topicsWait; wait != nil {
			s.topicsMu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		wait := make(chan struct{})
		s.topicsWait = wait
		s.topicsMu.Unlock()

		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), topicsLookupTimeout)
		ts, err := s.Topics(lctx)
		cancel()
		s.topicsMu.Lock()
		switch {
		case err == nil:
			ts = slices.Clone(ts)
			sort.Strings(ts)
			s.topicsCache, s.topicsErr, s.topicsExpires, s.topicsRead = ts, nil, s.now().Add(topicsTTL), true
		case s.topicsRead:
			s.log().Warn("topic list not read; the one read before stays in use", "error", err)
			s.topicsExpires = s.now().Add(topicsRetry)
		default:
			s.topicsErr, s.topicsExpires = err, s.now().Add(topicsRetry)
		}
		s.topicsWait = nil
		close(wait)
		ts, err = s.topicsCache, s.topicsErr
		s.topicsMu.Unlock()
		return ts, err
	}
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
