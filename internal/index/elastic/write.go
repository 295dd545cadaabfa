package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"
	"github.com/elastic/go-elasticsearch/v8/esutil"

	"focuscrawl/internal/index"
)

// source is a document as stored in Elasticsearch (its _source).
type source struct {
	ID          string `json:"id"`
	Topic       string `json:"topic"`
	URL         string `json:"url"`
	Host        string `json:"host"`
	Lang        string `json:"lang"`
	Title       string `json:"title"`
	Content     string `json:"content"`
	AnchorTexts string `json:"anchor_texts"`
	// LinkSpans is index.EncodeSpans of the content's link text, omitted
	// when there is none.
	LinkSpans    string  `json:"link_spans,omitempty"`
	TitleTerms   string  `json:"title_terms"`
	ContentTerms string  `json:"content_terms"`
	AnchorTerms  string  `json:"anchor_terms"`
	Relevance    float64 `json:"relevance"`
	Hub          float64 `json:"hub"`
	Authority    float64 `json:"authority"`
	IPageRank    float64 `json:"ipagerank"`
	// FetchedAt is RFC 3339 in UTC, omitted when unknown.
	FetchedAt string `json:"fetched_at,omitempty"`
}

// prepare checks d, clamps its scores and segments its text (index.Prepare).
func (x *Index) prepare(d index.Document) (source, error) {
	if d.Topic != "" && d.ID != "" {
		if err := checkTopic(d.Topic); err != nil {
			return source{}, fmt.Errorf("document %s (%s): %w", d.ID, d.URL, err)
		}
	}
	p, err := index.Prepare(d, x.seg)
	if err != nil {
		return source{}, err
	}
	s := source{
		ID: d.ID, Topic: d.Topic, URL: d.URL, Host: d.Host, Lang: d.Lang,
		Title: d.Title, Content: d.Text, AnchorTexts: d.AnchorTexts,
		TitleTerms:   p.TitleTerms,
		ContentTerms: p.TextTerms,
		AnchorTerms:  p.AnchorTerms,
		Relevance:    p.Relevance,
		Hub:          p.Hub,
		Authority:    p.Authority,
		IPageRank:    p.IPageRank,
	}
	if x.spansErr == nil {
		s.LinkSpans = index.EncodeSpans(d.LinkSpans, len(d.Text))
	}
	if !d.FetchedAt.IsZero() {
		s.FetchedAt = d.FetchedAt.UTC().Format(time.RFC3339Nano)
	}
	return s, nil
}

// ensureTopic makes sure the topic's aliases exist, creating the topic's
// first index with both aliases in one request if they do not. Two workers
// racing here both ask for the same first index name; the loser's
// resource_already_exists_exception means the winner created it, aliases
// included.
func (x *Index) ensureTopic(ctx context.Context, topic string) error {
	if _, ok := x.ready.Load(topic); ok {
		return nil
	}
	exists, err := x.aliasExists(ctx, topic)
	if err != nil {
		return err
	}
	if !exists {
		props, err := addedMappings()
		if err != nil {
			return err
		}
		body, _ := json.Marshal(map[string]any{"aliases": map[string]any{
			x.topicAlias(topic): map[string]any{"is_write_index": true},
			x.allAlias():        map[string]any{},
		}, "mappings": map[string]any{"properties": props}})
		name := x.topicIndex(topic, 1)
		_, err = x.do(ctx, "create index "+name, esapi.IndicesCreateRequest{Index: name, Body: bytes.NewReader(body)})
		if err != nil && !isStatus(err, 400, "resource_already_exists_exception") {
			return err
		}
	}
	x.ready.Store(topic, struct{}{})
	return nil
}

// aliasExists reports whether the topic's alias exists.
func (x *Index) aliasExists(ctx context.Context, topic string) (bool, error) {
	alias := x.topicAlias(topic)
	_, err := x.do(ctx, "check alias "+alias, esapi.IndicesExistsAliasRequest{Name: []string{alias}})
	switch {
	case err == nil:
		return true, nil
	case isStatus(err, 404, ""):
		return false, nil
	default:
		return false, err
	}
}

// Upsert indexes docs by (Topic, ID) with one bulk request per flush,
// creating a topic's index on its first document. Every document is tried;
// the error lists those that failed (see the package comment).
func (x *Index) Upsert(ctx context.Context, docs []index.Document) error {
	if x.readOnly {
		return ErrReadOnly
	}
	if len(docs) == 0 {
		return nil
	}
	items := make([]esutil.BulkIndexerItem, 0, len(docs))
	topics := map[string]bool{}
	for i, d := range docs {
		s, err := x.prepare(d)
		if err != nil {
			return fmt.Errorf("elastic: upsert document %d of %d: %w", i+1, len(docs), err)
		}
		body, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("elastic: upsert document %s: %w", d.ID, err)
		}
		topics[d.Topic] = true
		items = append(items, esutil.BulkIndexerItem{
			Action: "index", Index: x.topicAlias(d.Topic), DocumentID: d.ID, RequireAlias: true,
			Body: bytes.NewReader(body),
		})
	}
	for _, t := range sortedKeys(topics) {
		if err := x.ensureTopic(ctx, t); err != nil {
			return err
		}
	}
	return x.bulk(ctx, fmt.Sprintf("upsert %d documents", len(docs)), items, false)
}

// Delete removes the documents of topic with the given IDs. IDs that are not
// indexed, and a topic that has no index yet, are not errors.
func (x *Index) Delete(ctx context.Context, topic string, ids []string) error {
	if x.readOnly {
		return ErrReadOnly
	}
	if topic == "" {
		return errors.New("elastic: delete: topic is required")
	}
	if err := checkTopic(topic); err != nil {
		return fmt.Errorf("elastic: delete: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	exists, err := x.aliasExists(ctx, topic)
	if err != nil || !exists {
		return err
	}
	items := make([]esutil.BulkIndexerItem, len(ids))
	for i, id := range ids {
		items[i] = esutil.BulkIndexerItem{Action: "delete", Index: x.topicAlias(topic), DocumentID: id, RequireAlias: true}
	}
	return x.bulk(ctx, fmt.Sprintf("delete %d documents of topic %q", len(ids), topic), items, true)
}

// updateRetries is the bulk updates' retry_on_conflict.
var updateRetries = 3

// flushCancel is the context key of a bulk request's cancel function,
// from OnFlushStart to OnFlushEnd.
type flushCancel struct{}

// maxListedFailures bounds how many failed items an error message names.
const maxListedFailures = 5

// bulk sends items through a BulkIndexer and reports failed items. With
// notFoundOK, a delete or update of a missing document counts as done.
func (x *Index) bulk(ctx context.Context, op string, items []esutil.BulkIndexerItem, notFoundOK bool) error {
	var mu sync.Mutex
	var failures []string
	failed := 0
	var flushErr error
	gone := map[string]bool{} // aliases an item found missing
	bi, err := esutil.NewBulkIndexer(esutil.BulkIndexerConfig{
		Client: x.es,
		// One worker keeps the order of the items (and of the requests
		// a test asserts); a crawl batch is a few dozen documents.
		NumWorkers: 1,
		Refresh:    x.refresh,
		// The request timeout bounds each bulk request, from the caller's
		// context (the indexer's worker flushes with a background one,
		// which the caller's cancellation would not reach). Bounding the
		// whole call instead failed a large write (UpdateScores of a big
		// crawl: many 5 MB requests) while the worker went on sending.
		OnFlushStart: func(context.Context) context.Context {
			rctx, cancel := context.WithTimeout(ctx, x.timeout)
			return context.WithValue(rctx, flushCancel{}, cancel)
		},
		OnFlushEnd: func(rctx context.Context) {
			if cancel, ok := rctx.Value(flushCancel{}).(context.CancelFunc); ok {
				cancel()
			}
		},
		OnError: func(_ context.Context, err error) {
			mu.Lock()
			defer mu.Unlock()
			if flushErr == nil {
				flushErr = err
			}
		},
	})
	if err != nil {
		return fmt.Errorf("elastic: %s: %w", op, err)
	}
	for _, it := range items {
		it.OnFailure = func(_ context.Context, it esutil.BulkIndexerItem, r esutil.BulkIndexerResponseItem, err error) {
			// A delete of a missing document answers 404 "not_found",
			// an update of one 404 document_missing_exception.
			if notFoundOK && r.Status == 404 && (r.Result == "not_found" || r.Error.Type == "document_missing_exception") {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			failed++
			if r.Error.Type == "index_not_found_exception" {
				gone[it.Index] = true
			}
			if len(failures) < maxListedFailures {
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s: %v", it.DocumentID, err))
				default:
					failures = append(failures, fmt.Sprintf("%s: HTTP %d %s: %s", it.DocumentID, r.Status, r.Error.Type, r.Error.Reason))
				}
			}
		}
		if err := bi.Add(ctx, it); err != nil {
			bi.Close(ctx)
			return fmt.Errorf("elastic: %s: %w", op, err)
		}
	}
	if err := bi.Close(ctx); err != nil {
		return fmt.Errorf("elastic: %s: %w", op, err)
	}
	mu.Lock()
	defer mu.Unlock()
	// A topic whose alias went away (its index deleted by hand) is no
	// longer ready: the next write creates its index again instead of
	// failing for as long as the worker runs.
	for alias := range gone {
		x.ready.Delete(strings.TrimPrefix(alias, x.topicAlias("")))
	}
	if flushErr != nil {
		return fmt.Errorf("elastic: %s: bulk request failed: %w", op, flushErr)
	}
	if failed > 0 {
		more := ""
		if failed > len(failures) {
			more = fmt.Sprintf("; and %d more", failed-len(failures))
		}
		return fmt.Errorf("elastic: %s: %d of %d items failed: %s%s", op, failed, len(items), strings.Join(failures, "; "), more)
	}
	return nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UpdateScores sets hub, authority and IPageRank of the topic's indexed
// documents with partial-document bulk updates (text and relevance stay).
// IDs that are not indexed, and a topic without an index, are ignored;
// negative, NaN or infinite scores are an error and nothing is sent.
func (x *Index) UpdateScores(ctx context.Context, topic string, scores map[string]index.Scores) error {
	if x.readOnly {
		return ErrReadOnly
	}
	if err := checkTopic(topic); err != nil {
		return fmt.Errorf("elastic: update scores: %w", err)
	}
	if len(scores) == 0 {
		return nil
	}
	ids := make([]string, 0, len(scores))
	for id, s := range scores {
		for _, v := range []float64{s.Hub, s.Authority, s.IPageRank} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return fmt.Errorf("elastic: update scores of %s in topic %q: invalid score %v", id, topic, v)
			}
		}
		ids = append(ids, id)
	}
	sort.Strings(ids) // deterministic requests
	exists, err := x.aliasExists(ctx, topic)
	if err != nil || !exists {
		return err
	}
	items := make([]esutil.BulkIndexerItem, len(ids))
	for i, id := range ids {
		s := scores[id]
		body, _ := json.Marshal(map[string]any{"doc": map[string]float64{
			"hub": s.Hub, "authority": s.Authority, "ipagerank": s.IPageRank,
		}})
		// A slice's upsert of the same document between Elasticsearch's
		// read and write of the update is a version conflict (409): the
		// update is applied again on the new version rather than failing
		// the whole recomputation.
		items[i] = esutil.BulkIndexerItem{Action: "update", Index: x.topicAlias(topic), DocumentID: id,
			RequireAlias: true, RetryOnConflict: &updateRetries, Body: bytes.NewReader(body)}
	}
	return x.bulk(ctx, fmt.Sprintf("update scores of %d documents of topic %q", len(ids), topic), items, true)
}
