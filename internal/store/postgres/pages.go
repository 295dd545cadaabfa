package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
	"focuscrawl/internal/store/sqlshared"
)

// SaveParse stores a page's parse result, title and language (and an empty
// text signature: only a group's parse writes carry one), and the first
// time only (per page row) adds its distinct terms to the topic's document
// frequencies and its document count. The page row is locked first, so two
// parses of one page count once; terms are upserted in sorted order, so
// parses of different pages lock shared term rows in one order.
func (s *Store) SaveParse(ctx context.Context, topic, urlHash string, parsed []byte, title, lang string, terms []string) error {
	packed, err := codec.Compress(parsed)
	if err != nil {
		return fmt.Errorf("store/postgres: save parse of page %s of topic %q: compress: %w", urlHash, topic, err)
	}
	w := store.ParseWrite{URLHash: urlHash, Parsed: parsed, Title: title, Lang: lang, Terms: terms}
	return s.tx(ctx, fmt.Sprintf("save parse of page %s of topic %q", urlHash, topic), func(tx pgx.Tx) error {
		if err := lockTopics(ctx, tx, topic); err != nil {
			return err
		}
		_, err := saveParsesTx(ctx, tx, topic, []store.ParseWrite{w}, [][]byte{packed}, 0)
		return err
	})
}

// saveParsesTx is SaveParse of several pages (with DropBody, DeleteBlob of
// the body too) in tx; packed[i] is ws[i].Parsed compressed. The terms of
// all pages counted now go into term_df in one statement, sorted, so that
// concurrent writers lock shared term rows in one order. It returns the
// topic's document count and the counted terms' document frequencies after
// the write (store.GroupResult.TermDocs, TermDF), nil when it counted no
// page. The pages count only while the topic's term sample is not full
// (store.GroupWrite.TermSample: sample, the size a sample this write
// starts gets).
func saveParsesTx(ctx context.Context, tx pgx.Tx, topic string, ws []store.ParseWrite, packed [][]byte, sample int) (sqlshared.TermCount, error) {
	before, err := sqlshared.TermSampleFull(ctx, writeTx{tx}, topic, len(ws), sample)
	if err != nil {
		return sqlshared.TermCount{}, err
	}
	full := before.Full
	df := map[string]int{}
	docs := 0
	for i, w := range ws {
		// One statement in the usual case: the update that counts the
		// page's terms succeeds only for a page not counted yet (and locks
		// its row); a second one, on a retry, sets title and language and
		// finds a missing page.
		counted := false
		tag, err := tx.Exec(ctx, `UPDATE pages SET title = $1, lang = $2, text_hash = $3, terms_counted = 1
			WHERE topic = $4 AND url_hash = $5 AND terms_counted = 0`, w.Title, w.Lang, w.TextHash, topic, w.URLHash)
		if err != nil {
			return sqlshared.TermCount{}, fmt.Errorf("set title and language: %w", err)
		}
		if tag.RowsAffected() == 0 {
			counted = true // a retry: the terms are in term_df already
			tag, err = tx.Exec(ctx, `UPDATE pages SET title = $1, lang = $2, text_hash = $3 WHERE topic = $4 AND url_hash = $5`,
				w.Title, w.Lang, w.TextHash, topic, w.URLHash)
			if err != nil {
				return sqlshared.TermCount{}, fmt.Errorf("set title and language: %w", err)
			}
			if tag.RowsAffected() == 0 {
				return sqlshared.TermCount{}, sqlshared.NotFound("page %s of topic %q", w.URLHash, topic)
			}
		}
		if err := sqlshared.PutBlob(ctx, writeTx{tx}, topic, w.URLHash, store.BlobParse, packed[i], len(w.Parsed)); err != nil {
			return sqlshared.TermCount{}, err
		}
		if w.DropBody {
			if err := sqlshared.DeleteBlobTx(ctx, writeTx{tx}, topic, w.URLHash, store.BlobBody); err != nil {
				return sqlshared.TermCount{}, err
			}
		}
		if counted || full {
			continue
		}
		docs++
		sqlshared.CountTerms(df, w.Terms)
	}
	if full {
		return before, nil
	}
	if docs == 0 {
		return sqlshared.TermCount{}, nil
	}
	if len(df) > 0 {
		terms := make([]string, 0, len(df))
		for t := range df {
			terms = append(terms, t)
		}
		slices.Sort(terms)
		counts := make([]int32, len(terms))
		for i, t := range terms {
			counts[i] = int32(df[t])
		}
		// Each counted term's new frequency comes back (GroupResult.TermDF);
		// df is reused for them.
		rows, err := tx.Query(ctx, `INSERT INTO term_df (topic, term, df)
			SELECT $1, t, n FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS u(t, n, i) ORDER BY i
			ON CONFLICT (topic, term) DO UPDATE SET df = term_df.df + excluded.df
			RETURNING term, df`, topic, terms, counts)
		if err != nil {
			return sqlshared.TermCount{}, fmt.Errorf("count %d terms: %w", len(terms), err)
		}
		var t string
		var n int
		if _, err := pgx.ForEachRow(rows, []any{&t, &n}, func() error { df[t] = n; return nil }); err != nil {
			return sqlshared.TermCount{}, fmt.Errorf("count %d terms: %w", len(terms), err)
		}
	}
	// Last: the topic's one document-count row is the hottest lock.
	var total int
	if err := (writeTx{tx}).QueryRow(ctx, sqlshared.CountedDocsSQL, topic, docs, sqlshared.FixedTermSample(sample)).Scan(&total); err != nil {
		return sqlshared.TermCount{}, fmt.Errorf("count documents: %w", err)
	}
	return sqlshared.TermCount{Docs: total, DF: df}, nil
}

// MarkIndexed flags pages as indexed; unknown hashes are skipped.
func (s *Store) MarkIndexed(ctx context.Context, topic string, urlHashes []string) error {
	return s.setIndexed(ctx, topic, urlHashes, true)
}

// setIndexed sets or clears the index flag of pages in one statement of its
// own, run again after a deadlock (execRetry); unknown hashes are skipped.
func (s *Store) setIndexed(ctx context.Context, topic string, urlHashes []string, indexed bool) error {
	return setIndexed(ctx, s.execRetry, topic, urlHashes, indexed)
}

// setIndexedSQL is setIndexed's statement: $1 topic, $2 URL hashes, $3
// the flag.
var setIndexedSQL = updateInKeyOrder(`pages`, `is_indexed = $3`, `pages.url_hash = ANY($2)`, ``, ``)

// setIndexed sets or clears the index flag of pages with exec (a
// transaction's, or execRetry), the rows locked in key order
// (updateInKeyOrder): sorting the hashes fixed no order, as a plan that
// walks the topic by another index and filters by the array
// (pages_text_hash, on a table without statistics) takes the rows in that
// index's order.
func setIndexed(ctx context.Context, exec execFunc, topic string, urlHashes []string, indexed bool) error {
	if len(urlHashes) == 0 {
		return nil
	}
	_, err := exec(ctx, setIndexedSQL, topic, urlHashes, sqlshared.BoolInt(indexed))
	if err != nil {
		return fmt.Errorf("store/postgres: set index flag of %d pages of topic %q to %v: %w", len(urlHashes), topic, indexed, err)
	}
	return nil
}

// setScoresSQL is SetScores' statement: $1 topic, $2 URL hashes, $3–$5
// their hub, authority and iPageRank scores.
var setScoresSQL = updateInKeyOrder(`pages`, `hub = x.hub, authority = x.auth, ipagerank = x.ipr`, `pages.url_hash = ANY($2)`,
	`unnest($2::text[], $3::float8[], $4::float8[], $5::float8[]) AS x(url_hash, hub, auth, ipr)`, `x.url_hash = pages.url_hash`)

// SetScores writes link-analysis scores [hub, authority, iPageRank] by URL
// hash in one statement, the rows locked in key order (updateInKeyOrder);
// hashes without a page (graph nodes never fetched) are skipped.
func (s *Store) SetScores(ctx context.Context, topic string, scores map[string][3]float64) error {
	if len(scores) == 0 {
		return nil
	}
	if err := sqlshared.CheckScores(scores); err != nil {
		return fmt.Errorf("store/postgres: set scores of topic %q: %w", topic, err)
	}
	var hashes []string
	var hub, auth, ipr []float64
	for h, sc := range scores {
		hashes = append(hashes, h)
		hub, auth, ipr = append(hub, sc[0]), append(auth, sc[1]), append(ipr, sc[2])
	}
	_, err := s.execRetry(ctx, setScoresSQL, topic, hashes, hub, auth, ipr)
	if err != nil {
		return fmt.Errorf("store/postgres: set scores of %d pages of topic %q: %w", len(hashes), topic, err)
	}
	return nil
}
