package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/elastic/go-elasticsearch/v8/esapi"
)

// Reindex rebuilds topic's index under the current template (after a mapping
// or analyzer change) without downtime: it creates the topic's next index,
// copies every document into it with the _reindex API, moves the topic alias
// and the all-topics alias to it in one atomic _aliases call, then deletes
// the old index. Searches see the old index until the swap and the new one
// after it, never neither.
//
// Documents written to the topic between the copy and the swap land in the
// old index and are lost with it: pause the topic's crawl (starter pause)
// while reindexing. _reindex copies the stored _source, so the *_terms fields
// keep the segmentation they were indexed with; after a tokenizer change,
// re-upsert the pages instead. It returns the new index's name.
func (x *Index) Reindex(ctx context.Context, topic string) (string, error) {
	if err := checkTopic(topic); err != nil {
		return "", fmt.Errorf("elastic: reindex: %w", err)
	}
	alias := x.topicAlias(topic)
	raw, err := x.do(ctx, "get alias "+alias, esapi.IndicesGetAliasRequest{Name: []string{alias}})
	if isStatus(err, 404, "") {
		return "", fmt.Errorf("elastic: reindex topic %q: it has no index", topic)
	}
	if err != nil {
		return "", err
	}
	var byIndex map[string]json.RawMessage
	if err := json.Unmarshal(raw, &byIndex); err != nil {
		return "", fmt.Errorf("elastic: reindex: decode aliases: %w", err)
	}
	if len(byIndex) != 1 {
		return "", fmt.Errorf("elastic: reindex topic %q: alias %s points to %d indices, want 1", topic, alias, len(byIndex))
	}
	var old string
	for name := range byIndex {
		old = name
	}
	version, err := x.indexVersion(topic, old)
	if err != nil {
		return "", err
	}
	next := x.topicIndex(topic, version+1)

	if _, err := x.do(ctx, "create index "+next, esapi.IndicesCreateRequest{Index: next}); err != nil {
		return "", err
	}
	body, _ := json.Marshal(map[string]any{
		"source": map[string]any{"index": old},
		"dest":   map[string]any{"index": next},
	})
	raw, err = x.do(ctx, "reindex "+old+" into "+next, esapi.ReindexRequest{
		Body: bytes.NewReader(body), WaitForCompletion: truthy(), Refresh: truthy(),
	})
	if err != nil {
		return "", err
	}
	var rr struct {
		Total    int               `json:"total"`
		Failures []json.RawMessage `json:"failures"`
	}
	if err := json.Unmarshal(raw, &rr); err != nil {
		return "", fmt.Errorf("elastic: reindex: decode response: %w", err)
	}
	if len(rr.Failures) > 0 {
		return "", fmt.Errorf("elastic: reindex %s into %s: %d failures, first: %s (the aliases still point to %s; delete %s and retry)",
			old, next, len(rr.Failures), rr.Failures[0], old, next)
	}
	actions, _ := json.Marshal(map[string]any{"actions": []any{
		map[string]any{"remove": map[string]any{"index": old, "alias": alias}},
		map[string]any{"remove": map[string]any{"index": old, "alias": x.allAlias()}},
		map[string]any{"add": map[string]any{"index": next, "alias": alias, "is_write_index": true}},
		map[string]any{"add": map[string]any{"index": next, "alias": x.allAlias()}},
	}})
	if _, err := x.do(ctx, "swap aliases to "+next, esapi.IndicesUpdateAliasesRequest{Body: bytes.NewReader(actions)}); err != nil {
		return "", err
	}
	if _, err := x.do(ctx, "delete old index "+old, esapi.IndicesDeleteRequest{Index: []string{old}}); err != nil {
		return next, fmt.Errorf("%w (the topic is served by %s; delete %s by hand)", err, next, old)
	}
	return next, nil
}

// indexVersion parses the version suffix of one of topic's index names.
func (x *Index) indexVersion(topic, name string) (int, error) {
	stem := x.prefix + "-idx-" + topic + "-"
	v, err := strconv.Atoi(strings.TrimPrefix(name, stem))
	if !strings.HasPrefix(name, stem) || err != nil || v < 1 {
		return 0, fmt.Errorf("elastic: index %q behind the alias of topic %q is not named %sNNNNNN", name, topic, stem)
	}
	return v, nil
}
