package elastic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/elastic/go-elasticsearch/v8/esapi"

	estemplate "focuscrawl/deploy/elasticsearch"
	"focuscrawl/internal/index"
)

// Rebuild (index.Rebuilder) rebuilds topic's index under the current template (after a mapping
// or analyzer change) without downtime: it creates the topic's next index,
// copies every document into it with the _reindex API (a task, polled until
// done: a copy may take far longer than one request), moves the topic alias
// and the all-topics alias to it in one atomic _aliases call, then deletes
// the old index. Searches see the old index until the swap and the new one
// after it, never neither.
//
// Documents written to the topic between the copy and the swap land in the
// old index and are lost with it: pause the topic's crawl (starter pause)
// while reindexing. _reindex copies the stored _source, so the *_terms fields
// keep the segmentation they were indexed with; after a tokenizer change,
// write the pages again as well (starter reindex does both). A next index
// left by a rebuild that did not finish is reported, not deleted: its copy
// task may still be running (index.ErrRebuildLeftover). It returns the new
// index's name; a topic without an index fails with index.ErrNoTopicIndex;
// an old index that could not be deleted after the swap returns the new
// name with an error wrapping index.ErrRebuildOldIndexLeft.
func (x *Index) Rebuild(ctx context.Context, topic string) (string, error) {
	if x.readOnly {
		return "", ErrReadOnly
	}
	if err := checkTopic(topic); err != nil {
		return "", fmt.Errorf("elastic: reindex: %w", err)
	}
	alias := x.topicAlias(topic)
	raw, err := x.do(ctx, "get alias "+alias, esapi.IndicesGetAliasRequest{Name: []string{alias}})
	if isStatus(err, 404, "") {
		return "", fmt.Errorf("elastic: reindex topic %q: %w", topic, index.ErrNoTopicIndex)
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

	// The next index gets this binary's settings and mappings in the
	// request, whatever template the cluster holds: during a rolling
	// upgrade an older binary's Open may have put back its own, and the
	// rebuild is meant to give the topic this one's analysis.
	create, err := templateIndexBody()
	if err != nil {
		return "", err
	}
	if _, err := x.do(ctx, "create index "+next, esapi.IndicesCreateRequest{Index: next, Body: bytes.NewReader(create)}); isStatus(err, 400, "resource_already_exists_exception") {
		// Left by an earlier reindex that did not finish: its copy task
		// may still be writing into it, so it is not deleted here.
		return "", fmt.Errorf("elastic: reindex topic %q: index %s exists, from an earlier reindex that did not finish; "+
			"once no reindex task runs (GET _tasks?actions=*reindex), delete %s and retry: %w", topic, next, next, index.ErrRebuildLeftover)
	} else if err != nil {
		return "", err
	}
	body, _ := json.Marshal(map[string]any{
		"source": map[string]any{"index": old},
		"dest":   map[string]any{"index": next},
	})
	// The copy runs as a task, polled until done: waiting for it in one
	// request failed every topic that takes longer to copy than the
	// request timeout (the copy going on in the cluster meanwhile).
	what := "reindex " + old + " into " + next
	raw, err = x.do(ctx, what, esapi.ReindexRequest{
		Body: bytes.NewReader(body), WaitForCompletion: falsy(), Refresh: truthy(),
	})
	if err != nil {
		return "", err
	}
	var started struct {
		Task string `json:"task"`
	}
	if err := json.Unmarshal(raw, &started); err != nil || started.Task == "" {
		return "", fmt.Errorf("elastic: %s: no task in the response %.200s", what, raw)
	}
	rr, err := x.waitReindex(ctx, what, started.Task)
	if err != nil {
		return "", fmt.Errorf("%w (the aliases still point to %s; once task %s has ended, delete %s and retry)", err, old, started.Task, next)
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
		return next, fmt.Errorf("%w (the topic is served by %s; delete %s by hand): %w", err, next, old, index.ErrRebuildOldIndexLeft)
	}
	return next, nil
}

// templateIndexBody is the body of an index creation with the embedded
// template's settings and mappings.
func templateIndexBody() ([]byte, error) {
	var tmpl struct {
		Template struct {
			Settings json.RawMessage `json:"settings"`
			Mappings json.RawMessage `json:"mappings"`
		} `json:"template"`
	}
	if err := json.Unmarshal(estemplate.IndexTemplate, &tmpl); err != nil {
		return nil, fmt.Errorf("elastic: embedded index template: %w", err)
	}
	return json.Marshal(map[string]json.RawMessage{"settings": tmpl.Template.Settings, "mappings": tmpl.Template.Mappings})
}

// Index rebuilds its topics' indices (starter reindex).
var _ index.Rebuilder = (*Index)(nil)

// reindexResult is what a finished _reindex reports.
type reindexResult struct {
	Total    int               `json:"total"`
	Failures []json.RawMessage `json:"failures"`
}

// waitReindex polls the tasks API until the reindex task is done and
// returns its result; each poll is one request within the request timeout,
// the wait as long as the copy takes (bounded by ctx).
func (x *Index) waitReindex(ctx context.Context, what, task string) (reindexResult, error) {
	for {
		raw, err := x.do(ctx, what+": task "+task, esapi.TasksGetRequest{TaskID: task})
		if err != nil {
			return reindexResult{}, err
		}
		var st struct {
			Completed bool            `json:"completed"`
			Response  reindexResult   `json:"response"`
			Error     json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			return reindexResult{}, fmt.Errorf("elastic: %s: decode task %s: %w", what, task, err)
		}
		if st.Completed {
			if len(st.Error) > 0 {
				return reindexResult{}, fmt.Errorf("elastic: %s: task %s failed: %s", what, task, st.Error)
			}
			return st.Response, nil
		}
		t := time.NewTimer(x.pollEvery)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return reindexResult{}, fmt.Errorf("elastic: %s: waiting for task %s: %w", what, task, ctx.Err())
		}
	}
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
