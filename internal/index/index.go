// Package index defines focuscrawl's search index: the documents a topic crawl
// accepts, the queries users run over them, and the Index interface every
// backend implements (sqlitefts, the embedded default; elastic, Elasticsearch 8;
// package index/backend opens the one the configuration names).
//
// The model: a Document is one accepted page of one topic, keyed by (Topic,
// ID) where ID is urlnorm.Hash of the page's normalised final URL. The same
// page crawled for two topics is two documents. Upserting a key that exists
// replaces the document; it never duplicates it.
//
// Text is matched by terms, never by raw user syntax. Both documents and
// queries are cut into terms by one Segmenter (in production
// textproc.Shared(), which segments Chinese with gojieba), so a backend only
// ever sees space-joined terms. ParseQuery is the single place user input is
// interpreted: double-quoted parts become phrases, everything else becomes
// terms that must all match. Backends build their own query language from
// that output and must quote every term, so that text such as `a OR b` or
// `title:x*` is searched as words, never executed as syntax.
//
// What stays backend-neutral lives here too: ValidateQuery (the limits every
// backend enforces, reported as ErrBadQuery) and Snippet (the highlighter that
// marks query terms in a document's original, unsegmented text).
package index

import (
	"context"
	"errors"
	"time"
)

// Segmenter cuts text into lower-cased terms joined by single spaces. It must
// be safe for concurrent use and deterministic: documents and queries are
// segmented separately and must agree on every term.
type Segmenter interface {
	Segment(text string) string
}

// Document is one accepted page of a topic crawl, as indexed for search.
type Document struct {
	// ID is urlnorm.Hash of the page's normalised final URL. With Topic it is
	// the document key: upserts by key never duplicate, so search never
	// shows one URL twice. Two pages of a topic that end at one final URL
	// name one document: the crawler judges the second a duplicate and
	// deletes the document only when no accepted page holds it any more
	// (activities.dropDocuments), whichever backend holds it.
	ID    string
	Topic string
	URL   string
	Host  string
	Title string
	// Text is the page's plain visible text, original (unsegmented): it is
	// what snippets are cut from. Backends segment it for matching.
	Text string
	// TextSegmented, when not empty, is Text already segmented by the
	// Segmenter the index uses (textproc.Tokenizer.Segment; the crawler
	// gets it from its one tokenizer pass over the page), so Prepare does
	// not segment Text again. It must be exactly Segment(Text).
	TextSegmented string `json:"-"`
	// LinkSpans are the byte ranges of Text that are link text
	// (parse.Document.LinkSpans); snippets are cut outside them where the
	// query's words are (SnippetOutside). Stored with the text
	// (EncodeSpans); nil for documents indexed before they were.
	LinkSpans [][2]int `json:"-"`
	Lang      string
	// Relevance is the page-to-topic score in [0,1]; it weights ranking.
	Relevance float64
	// Hub, Authority and IPageRank are link-analysis scores, 0 until
	// computed. Authority weights ranking.
	Hub, Authority, IPageRank float64
	FetchedAt                 time.Time
	// AnchorTexts are the anchor texts of links pointing to the page,
	// joined; they are searched like a short second title.
	AnchorTexts string
}

// Query is one search request. Text is user input; Topic and Host, when not
// empty, restrict the search to one topic and one host (a HostKey; without
// a port, the host on every port: HostPortPrefix). Limit is the page
// size (0 means DefaultLimit, at most MaxLimit) and Offset the number of hits
// to skip (at most MaxOffset). Check it with ValidateQuery.
type Query struct {
	Text, Topic, Host string
	Limit, Offset     int
}

// Hit is one search result.
type Hit struct {
	ID, Topic, URL, Host, Title, Lang string
	// Snippet is HTML: an escaped excerpt of the document's text with the
	// query's terms wrapped in <mark>…</mark> (see Snippet). Render it
	// as-is; do not escape it again.
	Snippet string
	// Score is the backend's final ranking score: higher is better. Scores
	// are comparable within one Result only.
	Score     float64
	Relevance float64
	Authority float64
}

// Scores are a document's link-analysis scores (RecomputeHubAuthority).
type Scores struct {
	Hub, Authority, IPageRank float64
}

// Result is one page of search results. Total counts every match, not only
// those on this page: every matching document of a topic or, across topics,
// every matching page (a page several topics indexed is one hit, the
// document of the topic that scores it highest).
type Result struct {
	Total int
	Hits  []Hit
}

// Index is a full-text index of accepted pages. Implementations are safe for
// concurrent use.
type Index interface {
	// Upsert inserts or replaces docs, all or none. It is idempotent by
	// (Topic, ID): a key upserted twice is one document.
	Upsert(ctx context.Context, docs []Document) error
	// Delete removes the documents of topic with the given IDs, all or
	// none. IDs that are not indexed are ignored.
	Delete(ctx context.Context, topic string, ids []string) error
	// Search runs q. Invalid queries fail with an error wrapping ErrBadQuery.
	Search(ctx context.Context, q Query) (Result, error)
	// Count returns the number of documents of topic; topic "" counts all.
	Count(ctx context.Context, topic string) (int, error)
	// UpdateScores sets the link-analysis scores of indexed documents of
	// topic, keyed by document ID. IDs that are not indexed are ignored;
	// negative or NaN scores are an error. It leaves text and relevance alone.
	UpdateScores(ctx context.Context, topic string, scores map[string]Scores) error
	// Close releases the index. It must not be used afterwards.
	Close() error
}

// ErrNoTopicIndex is the error a Rebuilder returns for a topic that has no
// index to rebuild.
var ErrNoTopicIndex = errors.New("the topic has no index")

// ErrRebuildLeftover is the error a Rebuilder returns when the index it
// would make exists already, left by a rebuild that did not finish: an
// operator must check that nothing still writes into it and delete it.
var ErrRebuildLeftover = errors.New("a rebuild that did not finish left the next index")

// ErrRebuildOldIndexLeft is the error a Rebuilder returns, with the new
// index's name, when the rebuild is done but the old index could not be
// deleted: the topic is served by the new one.
var ErrRebuildOldIndexLeft = errors.New("the old index is left, unused")

// A Rebuilder is an Index whose analysis is fixed when a topic's index is
// made (Elasticsearch: analyzers are per index), so that documents written
// after a change of the analysis the code defines are analysed the old way
// until the index is made again. Rebuild makes the topic's index again
// under the current definition, with its documents, and returns the new
// index's name; a topic without an index fails with ErrNoTopicIndex.
type Rebuilder interface {
	Rebuild(ctx context.Context, topic string) (string, error)
}
