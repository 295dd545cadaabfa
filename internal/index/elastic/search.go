package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	"focuscrawl/internal/index"
	"focuscrawl/internal/textproc"
)

// rankScript is the ranking formula of the package comment. It is a constant:
// nothing a user sends ever becomes script or query DSL.
const rankScript = "_score * (0.5 + doc['relevance'].value) * (1.0 + doc['authority'].value)"

// searchFields are the segmented fields every term is looked up in, with
// sqlitefts' column weights.
var searchFields = []string{"title_terms^4", "content_terms", "anchor_terms^2"}

// hitSource lists the stored fields a hit needs (content for its snippet).
var hitSource = []string{"id", "topic", "url", "host", "title", "lang", "content", "link_spans", "relevance", "authority"}

// searchBody builds the search request body for q from ParseQuery's output.
// A Han word that pages may hold inside a longer word (words,
// index.HanWords) matches as itself or as a phrase of its parts; a phrase
// of Han characters (han, index.HanPhrases) is a phrase of its Tokens.
// Documents are cut in search mode, so such tokens may lie apart in a
// document that has the characters in a row: those phrases allow them the
// word's or phrase's Distance (slop). sqlitefts checks the characters in
// the stored text too, which this index cannot (content is stored, not
// indexed), so here such a word or phrase also matches its tokens near
// each other.
func searchBody(terms []string, words []index.HanWord, phrases [][]string, han map[string]index.HanPhrase, q index.Query, limit int) map[string]any {
	must := make([]any, 0, len(terms)+len(words)+len(phrases))
	for _, t := range terms {
		typ := "most_fields"
		if splitsInIndex(t) {
			// "e-mail", "3.14", "covid-19": one term to the tokenizer, two
			// words to the template's analyzer; most_fields would match
			// either (its operator is or), where sqlitefts matches the
			// words next to each other, as a phrase.
			typ = "phrase"
		}
		must = append(must, map[string]any{"multi_match": map[string]any{
			"query": t, "fields": searchFields, "type": typ,
		}})
	}
	for _, w := range words {
		must = append(must, map[string]any{"bool": map[string]any{
			"should": []any{
				map[string]any{"multi_match": map[string]any{"query": w.Word, "fields": searchFields, "type": "most_fields"}},
				map[string]any{"multi_match": map[string]any{
					"query": strings.Join(w.Parts, " "), "fields": searchFields, "type": "phrase",
					"slop": w.Distance(),
				}},
			},
			"minimum_should_match": 1,
		}})
	}
	for _, p := range phrases {
		key := strings.Join(p, " ")
		mm := map[string]any{"query": key, "fields": searchFields, "type": "phrase"}
		if hp, ok := han[key]; ok {
			// Repeats kept: without a characters-in-a-row check after it,
			// 讨论讨论 must stay two tokens here.
			mm["query"] = strings.Join(hp.Tokens, " ")
			mm["slop"] = hp.Distance()
		}
		must = append(must, map[string]any{"multi_match": mm})
	}
	boolQ := map[string]any{"must": must}
	var filter []any
	if q.Topic != "" {
		filter = append(filter, map[string]any{"term": map[string]any{"topic": q.Topic}})
	}
	if prefix := index.HostPortPrefix(q.Host); prefix != "" {
		filter = append(filter, map[string]any{"bool": map[string]any{
			"should": []any{
				map[string]any{"term": map[string]any{"host": q.Host}},
				map[string]any{"prefix": map[string]any{"host": prefix}},
			},
			"minimum_should_match": 1,
		}})
	} else if q.Host != "" {
		filter = append(filter, map[string]any{"term": map[string]any{"host": q.Host}})
	}
	if len(filter) > 0 {
		boolQ["filter"] = filter
	}
	body := map[string]any{
		"from":             q.Offset,
		"size":             limit,
		"track_total_hits": true,
		"_source":          hitSource,
		"query": map[string]any{"script_score": map[string]any{
			"query":  map[string]any{"bool": boolQ},
			"script": map[string]any{"source": rankScript},
		}},
		"sort": []any{
			map[string]any{"_score": "desc"},
			map[string]any{"topic": "asc"},
			map[string]any{"id": "asc"},
		},
	}
	if q.Topic == "" {
		// Across topics a page indexed by several of them is one result,
		// its best-scored document: documents of one URL share their ID
		// (the URL's hash) in every topic's index. hits.total counts
		// documents, so the pages are counted by the aggregation (near exact
		// below precisionThreshold distinct pages, approximate beyond).
		body["collapse"] = map[string]any{"field": "id"}
		body["aggs"] = map[string]any{"pages": map[string]any{
			"cardinality": map[string]any{"field": "id", "precision_threshold": precisionThreshold},
		}}
	}
	return body
}

// splitsInIndex reports whether the index template's analyzer (its pattern
// tokenizer, deploy/elasticsearch/index-template.json: words are runs of
// letters, numbers, private-use characters and textproc.ProtectedSymbols)
// cuts term into more than one word. A protected token ("c++", "c#") is
// one word there, so it is sent as any term (TestTemplateSplitsAsSearch).
func splitsInIndex(term string) bool {
	return strings.IndexFunc(term, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.Is(unicode.Co, r) &&
			!strings.ContainsRune(textproc.ProtectedSymbols, r)
	}) >= 0
}

// precisionThreshold is the distinct-page count below which a search across
// topics counts its total near exactly (Elasticsearch's maximum).
const precisionThreshold = 40000

// searchResponse is the part of a search response Search reads.
type searchResponse struct {
	Hits struct {
		Total struct {
			Value int `json:"value"`
		} `json:"total"`
		Hits []struct {
			ID     string   `json:"_id"`
			Score  *float64 `json:"_score"`
			Sort   []any    `json:"sort"`
			Source source   `json:"_source"`
		} `json:"hits"`
	} `json:"hits"`
	Aggregations struct {
		Pages *struct {
			Value int `json:"value"`
		} `json:"pages"`
	} `json:"aggregations"`
}

// target is the alias a query searches: the topic's, or every topic's.
func (x *Index) target(topic string) string {
	if topic == "" {
		return x.allAlias()
	}
	return x.topicAlias(topic)
}

// Search runs q as the package comment describes. A topic that has no index
// yet has no results.
func (x *Index) Search(ctx context.Context, q index.Query) (index.Result, error) {
	if err := index.ValidateQuery(q); err != nil {
		return index.Result{}, err
	}
	terms, phrases, err := index.ParseQuery(q.Text, x.seg)
	if err != nil {
		return index.Result{}, err
	}
	res := index.Result{Hits: []index.Hit{}}
	if q.Topic != "" && checkTopic(q.Topic) != nil {
		return res, nil // no index can hold such a topic
	}
	limit := q.Limit
	if limit == 0 {
		limit = index.DefaultLimit
	}
	plain, words := index.HanWords(terms, x.seg)
	body, err := json.Marshal(searchBody(plain, words, phrases, index.HanPhrases(q.Text, x.seg), q, limit))
	if err != nil {
		return index.Result{}, err
	}
	raw, err := x.do(ctx, fmt.Sprintf("search %q", q.Text), esapi.SearchRequest{
		Index: []string{x.target(q.Topic)}, Body: bytes.NewReader(body),
		IgnoreUnavailable: truthy(), AllowNoIndices: truthy(),
	})
	if isStatus(err, 404, "index_not_found_exception") {
		return res, nil
	}
	if err != nil {
		return index.Result{}, err
	}
	var sr searchResponse
	if err := json.Unmarshal(raw, &sr); err != nil {
		return index.Result{}, fmt.Errorf("elastic: search %q: decode response: %w", q.Text, err)
	}
	res.Total = sr.Hits.Total.Value
	if p := sr.Aggregations.Pages; p != nil {
		res.Total = p.Value // across topics: pages, not documents
	}
	highlight := index.HighlightTerms(terms, phrases)
	for _, h := range sr.Hits.Hits {
		s := h.Source
		hit := index.Hit{
			ID: h.ID, Topic: s.Topic, URL: s.URL, Host: s.Host, Title: s.Title, Lang: s.Lang,
			Snippet:   index.SnippetOutside(s.Content, index.DecodeSpans(s.LinkSpans, len(s.Content)), highlight, index.DefaultSnippetRunes),
			Relevance: s.Relevance, Authority: s.Authority,
		}
		switch {
		case h.Score != nil:
			hit.Score = *h.Score
		case len(h.Sort) > 0:
			// With a sort, _score may come back null; the first sort
			// value is the score.
			if f, ok := h.Sort[0].(float64); ok {
				hit.Score = f
			}
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

// Count returns the number of documents of topic, or of all topics if topic
// is "". A topic without an index has none.
func (x *Index) Count(ctx context.Context, topic string) (int, error) {
	if topic != "" && checkTopic(topic) != nil {
		return 0, nil
	}
	raw, err := x.do(ctx, fmt.Sprintf("count documents of topic %q", topic), esapi.CountRequest{
		Index: []string{x.target(topic)}, IgnoreUnavailable: truthy(), AllowNoIndices: truthy(),
	})
	if isStatus(err, 404, "index_not_found_exception") {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var cr struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(raw, &cr); err != nil {
		return 0, fmt.Errorf("elastic: count: decode response: %w", err)
	}
	return cr.Count, nil
}
