package activities

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/index"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
)

// reindexChunk is how many documents ReindexPages writes per index call:
// the unit of its progress, resumed after a retry.
const reindexChunk = 100

// RebuildIndex makes the topic's index again under the analysis the code
// defines, when the index backend fixes it per index (index.Rebuilder:
// Elasticsearch); other backends need nothing (SQLite's index re-segments
// itself when a new binary first opens it). A topic without an index is
// not an error: ReindexPages then writes its pages into a new one.
func (a *Activities) RebuildIndex(ctx context.Context, in crawlapi.RebuildIndexInput) (crawlapi.RebuildIndexResult, error) {
	if err := reindexTopic(ctx, a, in.Topic); err != nil {
		return crawlapi.RebuildIndexResult{}, err
	}
	rb, ok := a.Index.(index.Rebuilder)
	if !ok {
		return crawlapi.RebuildIndexResult{Note: "this index backend needs no rebuild: its documents are only written again"}, nil
	}
	// The copy runs inside the cluster and Rebuild polls it; the beat
	// tells Temporal this worker is alive meanwhile.
	defer heartbeatEvery(ctx, 10*time.Second, func() any { return "rebuilding " + in.Topic })()
	name, err := rb.Rebuild(ctx, in.Topic)
	if errors.Is(err, index.ErrNoTopicIndex) {
		return crawlapi.RebuildIndexResult{Note: "the topic had no index: its pages go into a new one"}, nil
	}
	if err != nil {
		return crawlapi.RebuildIndexResult{}, err
	}
	a.Log.Info("topic index rebuilt", "topic", in.Topic, "index", name)
	return crawlapi.RebuildIndexResult{Index: name, Note: "new index " + name + " under the current template"}, nil
}

// reindexProgress is ReindexPages's heartbeat: its counts so far and the URL
// hash of the last page whose document is written, from which a retry goes
// on (AcceptedPages walks in URL hash order).
type reindexProgress struct {
	After  string
	Result crawlapi.ReindexPagesResult
}

// ReindexPages writes every accepted page of the topic flagged indexed into
// the search index again, built from its stored parse record as the crawl
// built it (indexDocument: the same text, relevance, link scores and
// anchor texts of its in-links), with the text segmented by the current
// tokenizer. An accepted page with a parse record that is not flagged
// indexed (a worker that died between the index write and the flag) is
// written and flagged too. Upserts are idempotent (topic + document ID),
// so a retry that writes a chunk again changes nothing; it resumes after
// the last chunk its heartbeat recorded.
//
// Documents of pages no longer accepted are not looked for: the crawl and
// refresh activities take them out when a page leaves, and the index
// interface cannot list a topic's documents.
func (a *Activities) ReindexPages(ctx context.Context, in crawlapi.ReindexPagesInput) (crawlapi.ReindexPagesResult, error) {
	if err := reindexTopic(ctx, a, in.Topic); err != nil {
		return crawlapi.ReindexPagesResult{}, err
	}
	var prog reindexProgress
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		if err := activity.GetHeartbeatDetails(ctx, &prog); err != nil {
			prog = reindexProgress{} // unreadable (another version's): start over, writes are idempotent
		}
	}
	// The beat reports the progress of the last written chunk only, so a
	// retry never skips a page whose document is not written.
	var mu sync.Mutex // done is read by the heartbeat's goroutine
	done := prog
	stop := heartbeatEvery(ctx, 5*time.Second, func() any {
		mu.Lock()
		defer mu.Unlock()
		return done
	})
	defer stop()
	var docs []index.Document
	var repair []string
	var last string
	res := prog.Result
	flush := func() error {
		if len(docs) > 0 {
			if err := a.Index.Upsert(ctx, docs); err != nil {
				return fmt.Errorf("reindex topic %q: write %d documents: %w", in.Topic, len(docs), err)
			}
		}
		if len(repair) > 0 {
			if err := a.Store.MarkIndexed(ctx, in.Topic, repair); err != nil {
				return fmt.Errorf("reindex topic %q: flag %d pages indexed: %w", in.Topic, len(repair), err)
			}
		}
		res.Written += len(docs)
		res.Repaired += len(repair)
		docs, repair = docs[:0], repair[:0]
		prog = reindexProgress{After: last, Result: res}
		mu.Lock()
		done = prog
		mu.Unlock()
		return ctx.Err()
	}
	err := a.Store.AcceptedPages(ctx, in.Topic, func(p store.Page) error {
		if p.URLHash <= prog.After {
			return nil // written before a retry
		}
		last = p.URLHash
		res.Accepted++
		rec, err := a.loadParse(ctx, p)
		switch {
		case errors.Is(err, store.ErrNotFound):
			res.NoRecord++
			return nil
		case err != nil:
			return fmt.Errorf("reindex topic %q: %w", in.Topic, err)
		case rec.Doc == nil || rec.Doc.NoIndex:
			res.NoIndex++
			return nil
		}
		doc, err := a.indexDocument(ctx, p, rec)
		if err != nil {
			return fmt.Errorf("reindex topic %q: %s: %w", in.Topic, p.URL, err)
		}
		docs = append(docs, doc)
		if !p.Indexed {
			repair = append(repair, p.URLHash)
		}
		if len(docs) >= reindexChunk {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return crawlapi.ReindexPagesResult{}, err
	}
	a.Log.Info("topic reindexed", "topic", in.Topic, "accepted", res.Accepted, "written", res.Written,
		"repaired", res.Repaired, "no_record", res.NoRecord, "noindex", res.NoIndex)
	return res, nil
}

// reindexTopic checks that the crawl store knows the topic: a reindex of a
// name it has never seen (a typo, a worker with another store) fails with
// the non-retryable ErrNoTopic instead of writing nothing.
func reindexTopic(ctx context.Context, a *Activities, name string) error {
	if err := topic.CheckName(name); err != nil {
		return nonRetryable(crawlapi.ErrBadInput, "reindex: "+err.Error())
	}
	if _, err := a.Store.Topic(ctx, name, 0); errors.Is(err, store.ErrNotFound) {
		return nonRetryable(crawlapi.ErrNoTopic,
			fmt.Sprintf("reindex: topic %q has never been crawled in crawl store %s", name, a.StoreDesc))
	} else if err != nil {
		return err
	}
	return nil
}
