package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"unicode/utf8"

	"focuscrawl/internal/store"
	"focuscrawl/internal/store/codec"
	"focuscrawl/internal/store/sqlshared"
)

// SaveParse stores a page's parse result, title and language (and an empty
// text signature: only a group's parse writes carry one), and the first
// time only (per page row) adds its distinct terms to the topic's document
// frequencies and its document count.
func (s *Store) SaveParse(ctx context.Context, topic, urlHash string, parsed []byte, title, lang string, terms []string) error {
	packed, err := codec.Compress(parsed)
	if err != nil {
		return fmt.Errorf("store/sqlite: save parse of page %s of topic %q: compress: %w", urlHash, topic, err)
	}
	return s.write(ctx, fmt.Sprintf("save parse of page %s of topic %q", urlHash, topic), func(tx *wtx) error {
		w := store.ParseWrite{URLHash: urlHash, Parsed: parsed, Title: title, Lang: lang, Terms: terms}
		_, err := saveParsesTx(ctx, tx, topic, []store.ParseWrite{w}, [][]byte{packed}, 0)
		return err
	})
}

// saveParsesTx is SaveParse of several pages (with DropBody, DeleteBlob of
// the body too) in tx; packed[i] is ws[i].Parsed compressed. The terms of
// all pages counted now are added up first: one upsert per distinct term
// of the group, not one per term of each page. It returns the topic's
// document count and the counted terms' document frequencies after the
// write (store.GroupResult.TermDocs, TermDF), nil when it counted no page.
// The pages count only while the topic's term sample is not full
// (store.GroupWrite.TermSample: sample, the size a sample this write
// starts gets).
func saveParsesTx(ctx context.Context, tx *wtx, topic string, ws []store.ParseWrite, packed [][]byte, sample int) (sqlshared.TermCount, error) {
	before, err := sqlshared.TermSampleFull(ctx, writeTx{tx}, topic, len(ws), sample)
	if err != nil {
		return sqlshared.TermCount{}, err
	}
	full := before.Full
	df := map[string]int{}
	docs := 0
	for i, w := range ws {
		// One statement in the usual case: the update that counts the
		// page's terms succeeds only for a page not counted yet; a second
		// one, on a retry, sets title and language and finds a missing page.
		counted := false
		r, err := tx.ExecContext(ctx, `UPDATE pages SET title = ?, lang = ?, text_hash = ?, terms_counted = 1
			WHERE topic = ? AND url_hash = ? AND terms_counted = 0`, w.Title, w.Lang, w.TextHash, topic, w.URLHash)
		if err != nil {
			return sqlshared.TermCount{}, fmt.Errorf("set title and language: %w", err)
		}
		if n, err := r.RowsAffected(); err != nil {
			return sqlshared.TermCount{}, err
		} else if n == 0 {
			counted = true // a retry: the terms are in term_df already
			r, err = tx.ExecContext(ctx, `UPDATE pages SET title = ?, lang = ?, text_hash = ? WHERE topic = ? AND url_hash = ?`,
				w.Title, w.Lang, w.TextHash, topic, w.URLHash)
			if err != nil {
				return sqlshared.TermCount{}, fmt.Errorf("set title and language: %w", err)
			}
			if n, err := r.RowsAffected(); err != nil {
				return sqlshared.TermCount{}, err
			} else if n == 0 {
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
	// One statement for the group's terms (a JSON object of term → count
	// walked by json_each; TermStats reads them back the same way), not one
	// per term: with ~1,000 distinct terms per group, the driver's cost per
	// statement was about as large as SQLite's work on the rows.
	counts := termCountsJSON(df)
	// The upsert returns each counted term's new frequency, which the
	// caller's IDF then needs no read for (store.GroupResult.TermDF); df is
	// reused for them, every term of it being returned.
	rows, err := tx.QueryContext(ctx, `INSERT INTO term_df (topic, term, df)
		SELECT ?, j.key, j.value FROM json_each(?) AS j WHERE true
		ON CONFLICT (topic, term) DO UPDATE SET df = term_df.df + excluded.df
		RETURNING term, df`, topic, string(counts))
	if err != nil {
		return sqlshared.TermCount{}, fmt.Errorf("count %d terms: %w", len(df), err)
	}
	if err := scanTermDF(rows, df); err != nil {
		return sqlshared.TermCount{}, fmt.Errorf("count %d terms: %w", len(df), err)
	}
	var total int
	err = tx.QueryRowContext(ctx, sqlshared.CountedDocsSQL, topic, docs, sqlshared.FixedTermSample(sample)).Scan(&total)
	if err != nil {
		return sqlshared.TermCount{}, fmt.Errorf("count documents: %w", err)
	}
	return sqlshared.TermCount{Docs: total, DF: df}, nil
}

// MarkIndexed flags pages as indexed; unknown hashes are skipped.
func (s *Store) MarkIndexed(ctx context.Context, topic string, urlHashes []string) error {
	return s.setIndexed(ctx, topic, urlHashes, true)
}

// setIndexed sets or clears the index flag of pages in one transaction;
// unknown hashes are skipped.
func (s *Store) setIndexed(ctx context.Context, topic string, urlHashes []string, indexed bool) error {
	if len(urlHashes) == 0 {
		return nil
	}
	verb := "mark"
	if !indexed {
		verb = "unmark"
	}
	return s.write(ctx, fmt.Sprintf("%s %d pages of topic %q indexed", verb, len(urlHashes), topic), func(tx *wtx) error {
		return setIndexedTx(ctx, tx, topic, urlHashes, indexed)
	})
}

func setIndexedTx(ctx context.Context, tx *wtx, topic string, urlHashes []string, indexed bool) error {
	upd, err := tx.PrepareContext(ctx, `UPDATE pages SET is_indexed = ? WHERE topic = ? AND url_hash = ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	for _, h := range urlHashes {
		if _, err := upd.ExecContext(ctx, sqlshared.BoolInt(indexed), topic, h); err != nil {
			return fmt.Errorf("set index flag of %s: %w", h, err)
		}
	}
	return nil
}

// SetScores writes link-analysis scores [hub, authority, iPageRank] by URL
// hash; hashes without a page (graph nodes never fetched) are skipped.
func (s *Store) SetScores(ctx context.Context, topic string, scores map[string][3]float64) error {
	if len(scores) == 0 {
		return nil
	}
	if err := sqlshared.CheckScores(scores); err != nil {
		return fmt.Errorf("store/sqlite: set scores of topic %q: %w", topic, err)
	}
	return s.write(ctx, fmt.Sprintf("set scores of %d pages of topic %q", len(scores), topic), func(tx *wtx) error {
		upd, err := tx.PrepareContext(ctx, `UPDATE pages SET hub = ?, authority = ?, ipagerank = ? WHERE topic = ? AND url_hash = ?`)
		if err != nil {
			return err
		}
		defer upd.Close()
		for h, sc := range scores {
			if _, err := upd.ExecContext(ctx, sc[0], sc[1], sc[2], topic, h); err != nil {
				return fmt.Errorf("set scores of %s: %w", h, err)
			}
		}
		return nil
	})
}

// termCountsJSON is df as a JSON object of term → count, for json_each:
// json.Marshal's result but in map order, since json.Marshal sorts a map's
// keys (with ~1,000 terms per group, the sort was a visible part of the
// group write's CPU). Strings are escaped as encoding/json decodes them:
// '"', '\\' and control characters escaped, invalid UTF-8 as U+FFFD (as
// json.Marshal writes it).
func termCountsJSON(df map[string]int) string {
	n := 2
	for t := range df {
		n += len(t) + 8
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for t, c := range df {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendJSONString(b, t)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(c), 10)
	}
	return string(append(b, '}'))
}

// appendJSONString appends s to b as a JSON string (termCountsJSON).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default: // a byte of invalid UTF-8
			b = append(b, `\ufffd`...)
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// scanTermDF reads (term, df) rows into df and closes them.
func scanTermDF(rows *sql.Rows, df map[string]int) error {
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return err
		}
		df[t] = n
	}
	return rows.Err()
}
