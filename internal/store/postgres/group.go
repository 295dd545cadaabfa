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
// laid out before it starts; inside, locks are taken in the order the
// single-purpose methods take them (the topic's writers' lock shared, see
// topicKey; the crawl's page-sequence lock, pages, sorted terms, the topic's
// document count, the decided pages and then their hosts' yield rows
// sorted, links sorted, the known frontier entries whose priority rises
// sorted, the indexed pages and completed entries sorted), and a deadlock or
// serialization failure reruns the whole transaction. A known entry whose
// priority stays is not locked (raiseQueued): groups that link to each
// other's entries do not wait for each other.
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

		if res.Enqueued, err = enqueueTx(ctx, tx, entries, g.EnqueueOptions); err != nil {
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
