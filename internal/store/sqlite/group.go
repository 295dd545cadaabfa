package sqlite

import (
	"context"
	"fmt"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/sqlshared"
)

// WriteGroup applies a processing group's writes in one write transaction
// (see store.Groups). Bodies and parse results are compressed before the
// transaction starts, so the write lock is held only for the statements.
func (s *Store) WriteGroup(ctx context.Context, g store.GroupWrite) (store.GroupResult, error) {
	pages, parses, err := sqlshared.PackGroup(g)
	if err != nil {
		return store.GroupResult{}, fmt.Errorf("store/sqlite: %w", err)
	}
	if err := checkEntries(g.Entries); err != nil {
		return store.GroupResult{}, err
	}
	var res store.GroupResult
	err = s.write(ctx, fmt.Sprintf("write group of %d pages, %d parses, %d decisions of topic %q",
		len(g.Pages), len(g.Parses), len(g.Decisions), g.Topic), func(tx *wtx) error {
		res = store.GroupResult{} // a rerun transaction starts over
		if err := checkFence(ctx, tx, g.Topic, g.Fence); err != nil {
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
		if err := addLinksTx(ctx, tx, g.Topic, g.Links); err != nil {
			return err
		}
		if len(g.Entries) > 0 {
			var err error
			if res.Enqueued, err = enqueueTx(ctx, tx, g.Entries, g.EnqueueOptions); err != nil {
				return err
			}
		}
		if err := setIndexedTx(ctx, tx, g.Topic, g.Indexed, true); err != nil {
			return err
		}
		return completeEntriesTx(ctx, tx, g.Topic, g.Complete)
	})
	if err != nil {
		return store.GroupResult{}, err
	}
	return res, nil
}
