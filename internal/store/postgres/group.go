package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// WriteGroup applies a processing group's writes in one transaction (see
// store.Groups). Bodies and parse results are compressed, links and entries
// laid out before it starts; inside, locks are taken in one order of tables
// and, within each table, in key order, so that concurrent groups and the
// single-statement writers (updateInKeyOrder: Reprioritize, DemoteQueued,
// ReleaseBatches, CompleteBatch, MarkIndexed, SetScores) cannot wait for
// each other in a cycle: the topic's writers' lock shared (see topicKey),
// the fence's shared; the crawl's page-sequence lock and the new pages;
// the existing pages the group writes (parses, decisions, index flags),
// all locked in one run in key order before the first is written
// (lockGroupPages); their blobs, under those page locks; sorted terms, the
// topic's document count; the hosts' yield rows sorted; links sorted; new
// frontier entries inserted in key order; then, in one run in key order,
// the known entries whose priority rises and the entries it completes
// (raiseQueued). A deadlock or serialization failure reruns the whole
// transaction. A known entry whose priority stays is not locked
// (raiseQueued): groups that link to each other's entries do not wait for
// each other.
func (s *Store) WriteGroup(ctx context.Context, g store.GroupWrite) (store.GroupResult, error) {
	pages, parses, err := sqlshared.PackGroup(g)
	if err != nil {
		return store.GroupResult{}, fmt.Errorf("store/postgres: %w", err)
	}
	links, err := linkColumns(g.Topic, g.Links)
	if err != nil {
		return store.GroupResult{}, err
	}
	var entries mergedEntries
	if len(g.Entries) > 0 {
		if entries, err = mergeEntries(g.Entries); err != nil {
			return store.GroupResult{}, err
		}
	}
	topics := []string{g.Topic}
	for _, e := range entries.first {
		topics = append(topics, e.Topic)
	}
	var res store.GroupResult
	err = s.tx(ctx, fmt.Sprintf("write group of %d pages, %d parses, %d decisions of topic %q",
		len(g.Pages), len(g.Parses), len(g.Decisions), g.Topic), func(tx pgx.Tx) error {
		res = store.GroupResult{} // a rerun transaction starts over
		if err := lockTopics(ctx, tx, topics...); err != nil {
			return err
		}
		if err := checkFence(ctx, tx, g.Topic, g.Fence, lockShared); err != nil {
			return err
		}
		var err error
		if res.Seqs, err = sqlshared.SaveGroupPagesTx(ctx, writeTx{tx}, pages); err != nil {
			return err
		}
		if err := lockGroupPages(ctx, tx, g); err != nil {
			return err
		}
		tc, err := saveParsesTx(ctx, tx, g.Topic, g.Parses, parses, g.TermSample)
		if err != nil {
			return err
		}
		res.TermDocs, res.TermDF, res.TermSampleFull, res.TermSampleGen = tc.Docs, tc.DF, tc.Full, tc.Gen
		if err := sqlshared.SetDecisionsTx(ctx, writeTx{tx}, g.Topic, g.Decisions); err != nil {
			return err
		}
		if err := addLinks(ctx, tx, g.Topic, links); err != nil {
			return err
		}

		if res.Enqueued, err = enqueueTx(ctx, tx, entries, g.EnqueueOptions, entryKeys{g.Topic, g.Complete}); err != nil {
			return err
		}
		if err := setIndexed(ctx, tx.Exec, g.Topic, g.Indexed, true); err != nil {
			return err
		}
		return completeEntries(ctx, tx.Exec, g.Topic, g.Complete)
	})
	if err != nil {
		return store.GroupResult{}, err
	}
	return res, nil
}

// lockGroupPagesSQL locks pages of topic $1 by URL hash ($2) in key order.
var lockGroupPagesSQL = lockInKeyOrder(`pages`, `pages.url_hash = ANY($2)`)

// lockGroupPages locks the existing pages g writes — its parse results,
// decisions and index flags, three statements, the first two a page at a
// time in the caller's order — in one run in key order, before the first
// of them: written as they came, a group waiting for one page held others,
// and MarkIndexed or SetScores (key order) over the same pages, or another
// group's writes, waited for it in turn. A hash without a page locks
// nothing (the writes then report it as they do).
func lockGroupPages(ctx context.Context, tx pgx.Tx, g store.GroupWrite) error {
	hashes := make([]string, 0, len(g.Parses)+len(g.Decisions)+len(g.Indexed))
	for _, w := range g.Parses {
		hashes = append(hashes, w.URLHash)
	}
	for _, d := range g.Decisions {
		hashes = append(hashes, d.URLHash)
	}
	hashes = append(hashes, g.Indexed...)
	if len(hashes) < 2 {
		return nil // one page's statements lock one row: no order to keep
	}
	if _, err := tx.Exec(ctx, lockGroupPagesSQL, g.Topic, hashes); err != nil {
		return fmt.Errorf("lock %d pages: %w", len(hashes), err)
	}
	return nil
}
