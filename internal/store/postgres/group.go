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
// laid out before it starts; inside, rows are locked in the order the
// single-purpose methods lock them (the crawl's page-sequence lock, pages,
// sorted terms, the topic's document count, links sorted, frontier entries),
// and a deadlock or serialization failure reruns the whole transaction.
func (s *Store) WriteGroup(ctx context.Context, g store.GroupWrite) (int, error) {
	pages, parses, err := sqlshared.PackGroup(g)
	if err != nil {
		return 0, fmt.Errorf("store/postgres: %w", err)
	}
	links, err := linkColumns(g.Topic, g.Links)
	if err != nil {
		return 0, err
	}
	var entries []store.FrontierEntry
	if len(g.Entries) > 0 {
		if entries, err = mergeEntries(g.Entries); err != nil {
			return 0, err
		}
	}
	enqueued := 0
	err = s.tx(ctx, fmt.Sprintf("write group of %d pages, %d parses, %d decisions of topic %q",
		len(g.Pages), len(g.Parses), len(g.Decisions), g.Topic), func(tx pgx.Tx) error {
		for _, pp := range pages {
			if _, created, err := sqlshared.SavePageTx(ctx, writeTx{tx}, pp); err != nil {
				return err
			} else if !created {
				return fmt.Errorf("page %s (%s) is already saved", pp.Page.URLHash, pp.Page.URL)
			}
		}
		if err := saveParsesTx(ctx, tx, g.Topic, g.Parses, parses); err != nil {
			return err
		}
		for _, d := range g.Decisions {
			if err := sqlshared.SetDecisionTx(ctx, writeTx{tx}, g.Topic, d.URLHash, d.Decision); err != nil {
				return err
			}
		}
		if err := addLinks(ctx, tx, g.Topic, links); err != nil {
			return err
		}
		var err error
		if enqueued, err = enqueueTx(ctx, tx, entries, g.EnqueueOptions); err != nil {
			return err
		}
		if err := setIndexed(ctx, tx, g.Topic, g.Indexed, true); err != nil {
			return err
		}
		return completeEntries(ctx, tx, g.Topic, g.Complete)
	})
	if err != nil {
		return 0, err
	}
	return enqueued, nil
}
