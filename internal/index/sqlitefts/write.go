package sqlitefts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"focuscrawl/internal/index"
)

// row is a document ready to write: scores checked and clamped, text
// segmented.
type row struct {
	d                    index.Document
	segTitle, segText    string
	segAnchors           string
	fetchedAt            sql.NullInt64
	relevance, hub, auth float64
	ipagerank            float64
}

const upsertDocSQL = `INSERT INTO docs
	(topic, id, url, host, title, text, lang, relevance, hub, authority, ipagerank, fetched_at, anchor_texts, link_spans)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (topic, id) DO UPDATE SET
		url = excluded.url, host = excluded.host, title = excluded.title,
		text = excluded.text, lang = excluded.lang, relevance = excluded.relevance,
		hub = excluded.hub, authority = excluded.authority, ipagerank = excluded.ipagerank,
		fetched_at = excluded.fetched_at, anchor_texts = excluded.anchor_texts, link_spans = excluded.link_spans
	RETURNING docid`

// A contentless_delete table accepts INSERT OR REPLACE: the old row's tokens
// are removed from the index before the new ones are added.
const replaceFTSSQL = `INSERT OR REPLACE INTO docs_fts (rowid, title, body, anchors) VALUES (?, ?, ?, ?)`

// Upsert inserts or replaces docs in one transaction: all are written or
// none. A document whose (Topic, ID) exists replaces it, FTS row included,
// keeping its internal docid. Documents need a Topic and an ID.
func (x *Index) Upsert(ctx context.Context, docs []index.Document) error {
	if len(docs) == 0 {
		return nil
	}
	// Segmenting (gojieba for Chinese) is the slow part; do it before taking
	// the write lock so that other writers wait only for the inserts.
	rows := make([]row, len(docs))
	for i, d := range docs {
		r, err := x.prepare(d)
		if err != nil {
			return fmt.Errorf("sqlitefts: upsert document %d of %d: %w", i+1, len(docs), err)
		}
		rows[i] = r
	}

	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitefts: upsert %d documents: begin: %w", len(docs), err)
	}
	defer tx.Rollback()
	upsertDoc, err := tx.PrepareContext(ctx, upsertDocSQL)
	if err != nil {
		return fmt.Errorf("sqlitefts: upsert: prepare: %w", err)
	}
	defer upsertDoc.Close()
	replaceFTS, err := tx.PrepareContext(ctx, replaceFTSSQL)
	if err != nil {
		return fmt.Errorf("sqlitefts: upsert: prepare: %w", err)
	}
	defer replaceFTS.Close()

	// All docs rows first, then all FTS rows. The docs upsert runs in a
	// statement savepoint (it can abort on its UNIQUE constraint), and
	// opening a savepoint makes FTS5 flush its pending terms to a new
	// segment: interleaved, every document became a segment of its own,
	// and FTS5 spent most of the write merging them (automerge and
	// crisismerge in the throughput benchmark's profile). In this order the
	// transaction's documents go to disk as one segment, at commit.
	docids := make([]int64, len(rows))
	for i, r := range rows {
		d := r.d
		err := upsertDoc.QueryRowContext(ctx, d.Topic, d.ID, d.URL, d.Host, d.Title, d.Text, d.Lang,
			r.relevance, r.hub, r.auth, r.ipagerank, r.fetchedAt, d.AnchorTexts, index.EncodeSpans(d.LinkSpans, len(d.Text))).Scan(&docids[i])
		if err != nil {
			return fmt.Errorf("sqlitefts: upsert document %s of topic %q (%s): %w", d.ID, d.Topic, d.URL, err)
		}
	}
	for i, r := range rows {
		d := r.d
		if _, err := replaceFTS.ExecContext(ctx, docids[i], r.segTitle, r.segText, r.segAnchors); err != nil {
			return fmt.Errorf("sqlitefts: index text of document %s of topic %q (%s): %w", d.ID, d.Topic, d.URL, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlitefts: upsert %d documents: commit: %w", len(docs), err)
	}
	return nil
}

// prepare checks d and segments its text (index.Prepare).
func (x *Index) prepare(d index.Document) (row, error) {
	p, err := index.Prepare(d, x.seg)
	if err != nil {
		return row{}, err
	}
	r := row{
		d:          d,
		segTitle:   p.TitleTerms,
		segText:    p.TextTerms,
		segAnchors: p.AnchorTerms,
		relevance:  p.Relevance,
		hub:        p.Hub,
		auth:       p.Authority,
		ipagerank:  p.IPageRank,
	}
	if !d.FetchedAt.IsZero() {
		r.fetchedAt = sql.NullInt64{Int64: d.FetchedAt.UnixMilli(), Valid: true}
	}
	return r, nil
}

// Delete removes the documents of topic with the given ids, and their FTS
// rows, in one transaction. Unknown ids are ignored.
func (x *Index) Delete(ctx context.Context, topic string, ids []string) error {
	if topic == "" {
		return errors.New("sqlitefts: delete: topic is required")
	}
	if len(ids) == 0 {
		return nil
	}
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlitefts: delete %d documents of topic %q: begin: %w", len(ids), topic, err)
	}
	defer tx.Rollback()
	delDoc, err := tx.PrepareContext(ctx, `DELETE FROM docs WHERE topic = ? AND id = ? RETURNING docid`)
	if err != nil {
		return fmt.Errorf("sqlitefts: delete: prepare: %w", err)
	}
	defer delDoc.Close()
	delFTS, err := tx.PrepareContext(ctx, `DELETE FROM docs_fts WHERE rowid = ?`)
	if err != nil {
		return fmt.Errorf("sqlitefts: delete: prepare: %w", err)
	}
	defer delFTS.Close()
	for _, id := range ids {
		var docid int64
		// SQLite makes a RETURNING statement's changes on its first step,
		// so reading the one row completes the delete.
		err := delDoc.QueryRowContext(ctx, topic, id).Scan(&docid)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sqlitefts: delete document %s of topic %q: %w", id, topic, err)
		}
		if _, err := delFTS.ExecContext(ctx, docid); err != nil {
			return fmt.Errorf("sqlitefts: delete indexed text of document %s of topic %q: %w", id, topic, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlitefts: delete %d documents of topic %q: commit: %w", len(ids), topic, err)
	}
	return nil
}
