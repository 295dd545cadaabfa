package activities

import (
	"cmp"
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
// the unit of its progress, resumed after a retry. A variable for tests.
var reindexChunk = 100

// RebuildIndex makes the topic's index again under the analysis this
// binary defines, when the index backend fixes it per index
// (index.Rebuilder: Elasticsearch); other backends need nothing (SQLite's
// index analyses queries with the code that runs them). A topic without an
// index is not an error. A next index left by a rebuild that did not
// finish fails it for good (crawlapi.ErrRebuildLeftover): retrying cannot
// help until an operator deleted it. An old index left after the swap is
// reported, not retried: the rebuild is done, and a retry would make
// another copy.
func (a *Activities) RebuildIndex(ctx context.Context, in crawlapi.RebuildIndexInput) (crawlapi.RebuildIndexResult, error) {
	if err := reindexTopic(ctx, a, in.Topic); err != nil {
		return crawlapi.RebuildIndexResult{}, err
	}
	rb, ok := a.Index.(index.Rebuilder)
	if !ok {
		return crawlapi.RebuildIndexResult{Note: "this index backend needs no rebuild: its documents were only written again"}, nil
	}
	// The copy runs inside the cluster and Rebuild polls it; the beat
	// tells Temporal this worker is alive meanwhile.
	defer heartbeatEvery(ctx, 10*time.Second, func() any { return "rebuilding " + in.Topic })()
	name, err := rb.Rebuild(ctx, in.Topic)
	switch {
	case errors.Is(err, index.ErrNoTopicIndex):
		return crawlapi.RebuildIndexResult{Note: "the topic has no index"}, nil
	case errors.Is(err, index.ErrRebuildLeftover):
		return crawlapi.RebuildIndexResult{}, nonRetryable(crawlapi.ErrRebuildLeftover, err.Error())
	case errors.Is(err, index.ErrRebuildOldIndexLeft) && name != "":
		a.Log.Warn("topic index rebuilt; the old index is left", "topic", in.Topic, "index", name, "error", err)
		return crawlapi.RebuildIndexResult{Index: name, Note: "new index " + name + " under the current template; " + err.Error()}, nil
	case err != nil:
		return crawlapi.RebuildIndexResult{}, err
	}
	a.Log.Info("topic index rebuilt", "topic", in.Topic, "index", name)
	return crawlapi.RebuildIndexResult{Index: name, Note: "new index " + name + " under the current template"}, nil
}

// ReindexPages writes every accepted page of the topic flagged indexed
// into the search index again, built from its stored parse record as the
// crawl built it (indexDocument: the same text, relevance, link scores and
// anchor texts of its in-links), with the text segmented by the current
// tokenizer. A document several pages share (their final URL) is written
// once, from the page a refresh would write it from (the earliest fetched:
// store.Pages.IndexHolders) or, when that one has no record to write it
// from or says noindex, from the next in that order that has one
// (documentWriters): skipping it left the document with its old terms. A
// page that asked not to be indexed has any document it still had deleted
// (dropDocuments, which spares a document another page holds). Accepted
// pages not flagged indexed are left alone: the refresh takes out of the
// index the pages of a host that has been down for long, keeping them
// accepted, and puts them back when it answers (restoreDocument); an index
// write that failed is redone by the batch's retry or the page's next
// revisit (lacksDocument).
//
// Upserts are idempotent (topic + document ID), so a retry that writes a
// chunk again changes nothing; it resumes after the last chunk its
// heartbeat recorded (one is recorded after every chunk). Each page's
// count depends only on the page and on the writers of the shared
// documents, which every attempt picks again from the same store, so a
// retry neither skips nor counts twice a page of a store that did not
// change meanwhile; the heartbeat needs no more than its checkpoint.
func (a *Activities) ReindexPages(ctx context.Context, in crawlapi.ReindexPagesInput) (crawlapi.ReindexPagesResult, error) {
	if err := reindexTopic(ctx, a, in.Topic); err != nil {
		return crawlapi.ReindexPagesResult{}, err
	}
	var prog crawlapi.ReindexProgress
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		if err := activity.GetHeartbeatDetails(ctx, &prog); err != nil {
			prog = crawlapi.ReindexProgress{} // unreadable (another release's): start over, writes are idempotent
		}
	}
	// The beat reports the progress of the last written chunk only, so a
	// retry never skips a page whose document is not written. It starts
	// before documentWriters, whose grouping reads the whole topic.
	var mu sync.Mutex // done is read by the heartbeat's goroutine
	done := prog
	snapshot := func() any {
		mu.Lock()
		defer mu.Unlock()
		return done
	}
	defer heartbeatEvery(ctx, 5*time.Second, snapshot)()
	writers, err := a.documentWriters(ctx, in.Topic)
	if err != nil {
		return crawlapi.ReindexPagesResult{}, fmt.Errorf("reindex topic %q: %w", in.Topic, err)
	}
	var docs []index.Document
	var noindexFinals, noindexPages, orphans []string
	var last string
	res := prog.Result
	flush := func() error {
		if len(docs) > 0 {
			written, err := a.upsertEach(ctx, docs)
			if err != nil {
				return fmt.Errorf("reindex topic %q: write %d documents: %w", in.Topic, len(docs), err)
			}
			res.Written += written
			res.Failed += len(docs) - written
		}
		if len(noindexFinals) > 0 {
			if err := a.dropDocuments(ctx, in.Topic, noindexFinals, noindexPages); err != nil {
				return fmt.Errorf("reindex topic %q: %w", in.Topic, err)
			}
		}
		if len(orphans) > 0 {
			if err := a.Index.Delete(ctx, in.Topic, orphans); err != nil {
				return fmt.Errorf("reindex topic %q: delete %d documents no page can be written from: %w", in.Topic, len(orphans), err)
			}
		}
		docs, noindexFinals, noindexPages, orphans = docs[:0], noindexFinals[:0], noindexPages[:0], orphans[:0]
		prog = crawlapi.ReindexProgress{After: last, Result: res}
		mu.Lock()
		done = prog
		mu.Unlock()
		if activity.IsActivity(ctx) {
			recordHeartbeat(ctx, prog) // at once: a retry must not write the chunk's pages again and count them twice
		}
		return ctx.Err()
	}
	// A retry goes on after the last chunk an earlier attempt wrote.
	err = a.Store.AcceptedPagesAfter(ctx, in.Topic, prog.After, func(p store.Page) error {
		last = p.URLHash
		res.Accepted++
		writer, shared := writers[p.FinalHash]
		if writer != "" && writer != p.URLHash {
			res.Shared++
			return nil
		}
		// Unflagged pages are read too: one that turned noindex may still
		// have its old document (a batch that failed before dropping it:
		// lacksDocument), which the rebuild's copy would carry over.
		rec, err := a.loadParse(ctx, p)
		switch {
		case a.headerNoindex(p.RobotsTag) || err == nil && rec.Doc != nil && rec.Doc.NoIndex:
			res.NoIndex++
			if shared && writer == "" {
				// No page sharing the document has a record to write it
				// from (documentWriters), and this one, of the same
				// final URL, asks it out: dropDocuments would keep it
				// for the other holders.
				orphans = append(orphans, p.FinalHash)
				return nil
			}
			noindexFinals, noindexPages = append(noindexFinals, p.FinalHash), append(noindexPages, p.URLHash)
			return nil
		case !p.Indexed:
			res.NotIndexed++
			return nil
		case errors.Is(err, store.ErrNotFound):
			res.NoRecord++
			return nil
		case errors.Is(err, errUnreadableParse):
			// A record no release can read: one page must not stop the
			// topic's reindex; logged and counted.
			a.Log.Warn("reindex: parse record unreadable, page skipped", "topic", in.Topic, "url", p.URL, "error", err)
			res.Failed++
			return nil
		case err != nil:
			return fmt.Errorf("reindex topic %q: %w", in.Topic, err)
		case rec.Doc == nil:
			res.NoRecord++
			return nil
		}
		doc, err := a.indexDocument(ctx, p, rec)
		if err != nil {
			return fmt.Errorf("reindex topic %q: %s: %w", in.Topic, p.URL, err)
		}
		docs = append(docs, doc)
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
		"not_indexed", res.NotIndexed, "shared", res.Shared, "no_record", res.NoRecord, "noindex", res.NoIndex, "failed", res.Failed)
	return res, nil
}

// upsertEach writes docs in one call; when that fails it writes them one by
// one, so that a document the index refuses for good (a mapping it rejects)
// costs that document, logged, and not the topic's reindex, retried for
// hours. It returns how many were written, and an error when none was: an
// index that is down refuses every one, and the activity's retry waits it
// out.
func (a *Activities) upsertEach(ctx context.Context, docs []index.Document) (int, error) {
	if err := a.Index.Upsert(ctx, docs); err == nil {
		return len(docs), nil
	} else if len(docs) == 1 {
		return 0, err
	}
	written := 0
	var first error
	for _, d := range docs {
		if e := a.Index.Upsert(ctx, []index.Document{d}); e != nil {
			if ctx.Err() != nil {
				return written, ctx.Err()
			}
			first = cmp.Or(first, e)
			a.Log.Warn("reindex: document refused, page skipped", "topic", d.Topic, "url", d.URL, "error", e)
			continue
		}
		written++
	}
	if written == 0 {
		return 0, first
	}
	return written, nil
}

// documentWriters maps the final URL hash of every document that several
// of the topic's accepted, indexed pages share (store.Pages.
// SharedFinalHashes) to the page (URL hash) the reindex writes it from:
// the first in IndexHolders' order (the earliest fetched, then the lowest
// seq) with a record to write it from (writable), each one passed over
// added to IndexHolders' except to get the next; "" when none has one.
// Shared documents are rare, so the map is small where the topic's pages
// are many: an earlier version mapped every indexed page, 1.5 GB at ten
// million.
func (a *Activities) documentWriters(ctx context.Context, topicName string) (map[string]string, error) {
	pending, err := a.Store.SharedFinalHashes(ctx, topicName)
	if err != nil {
		return nil, err
	}
	writers := make(map[string]string, len(pending))
	var except []string
	for len(pending) > 0 {
		holders, err := a.Store.IndexHolders(ctx, topicName, pending, except)
		if err != nil {
			return nil, err
		}
		var next []string
		for _, f := range pending {
			h, ok := holders[f]
			if !ok {
				writers[f] = "" // every holder passed over
				continue
			}
			ok, err := a.writable(ctx, h)
			if err != nil {
				return nil, err
			}
			if ok {
				writers[f] = h.URLHash
				continue
			}
			except = append(except, h.URLHash)
			next = append(next, f)
		}
		pending = next
	}
	return writers, nil
}

// writable reports whether the reindex can write p's document: p has a
// parse record that reads, with a document, and neither its header nor its
// page says noindex. An error is one reading the record again may cure.
func (a *Activities) writable(ctx context.Context, p store.Page) (bool, error) {
	if a.headerNoindex(p.RobotsTag) {
		return false, nil
	}
	rec, err := a.loadParse(ctx, p)
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, errUnreadableParse):
		return false, nil
	case err != nil:
		return false, err
	}
	return rec.Doc != nil && !rec.Doc.NoIndex, nil
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
