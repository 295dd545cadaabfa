package sqlitefts

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"modernc.org/sqlite"

	"focuscrawl/internal/index"
)

// scoreSQL is the ranking formula of the package comment. bm25() is negative
// (more negative is better), hence the minus.
const scoreSQL = `(-bm25(docs_fts, 4.0, 1.0, 2.0)) * (0.5 + d.relevance) * (1.0 + d.authority)`

// fromSQL joins each match to its document. CROSS JOIN keeps docs_fts as the
// outer loop: the MATCH yields rowids, each looked up by docs' primary key.
const fromSQL = ` FROM docs_fts CROSS JOIN docs AS d ON d.docid = docs_fts.rowid WHERE docs_fts MATCH ?`

// Search runs q: every term and phrase must occur in the title, text or
// anchor texts; hits are ranked as the package comment describes.
func (x *Index) Search(ctx context.Context, q index.Query) (index.Result, error) {
	if err := index.ValidateQuery(q); err != nil {
		return index.Result{}, err
	}
	terms, phrases, err := index.ParseQuery(q.Text, x.seg)
	if err != nil {
		return index.Result{}, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = index.DefaultLimit
	}

	han := index.HanPhrases(q.Text, x.seg)
	plain, words := index.HanWords(terms, x.seg)
	where := fromSQL
	args := []any{matchExpression(plain, words, phrases, han)}
	// The filters before the character checks: SQLite tests these terms
	// in the order written, and a check reads the candidate's whole text,
	// in vain for a page of another topic or host.
	if q.Topic != "" {
		where += ` AND d.topic = ?`
		args = append(args, q.Topic)
	}
	if prefix := index.HostPortPrefix(q.Host); prefix != "" {
		// The hosts starting with prefix, "h:", are those in ["h:", "h;"):
		// ';' follows ':' in byte order. A range keeps the docs_host index
		// usable, where LIKE or GLOB would not (and GLOB reads the brackets
		// of an IPv6 host as a class).
		where += ` AND (d.host = ? OR (d.host >= ? AND d.host < ?))`
		args = append(args, q.Host, prefix, q.Host+";")
	} else if q.Host != "" {
		where += ` AND d.host = ?`
		args = append(args, q.Host)
	}
	for _, w := range words {
		// A page without the word as a token has its parts near each other
		// (matchExpression); its characters must then be in a row, or
		// 中华的华人和人民的共和国 would be found by 人民共和国. The rowids of
		// the pages with the token are listed once, so that their texts are
		// not read. CASE, not OR: SQLite evaluates the other side of an OR
		// before a subquery, and read every page's text (北京大学 in
		// BenchmarkSearchHanPhrase took 450 ms, against 60 with its three
		// tokens required).
		where += ` AND CASE WHEN d.docid IN (SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?) THEN 1 ELSE ` + containsAnywhere() + ` END`
		args = append(args, ftsString(w.Word))
		for range 3 {
			args = append(args, w.Word, w.Word)
		}
	}
	for _, p := range phrases {
		for _, chars := range han[strings.Join(p, " ")].Chars {
			// The phrase's tokens are near each other (matchExpression);
			// its characters must follow each other in the page's title,
			// text or anchor texts, whatever spaces the page has between them.
			where += ` AND ` + containsAnywhere()
			for range 3 {
				args = append(args, chars, chars)
			}
		}
	}

	// One read transaction, so Total and Hits come from the same snapshot.
	tx, err := x.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return index.Result{}, fmt.Errorf("sqlitefts: search %q: begin: %w", q.Text, err)
	}
	defer tx.Rollback()

	// Across topics a page indexed by several of them is one result: its
	// best-scored document (documents of one URL share their ID, the hash
	// of the URL). Within a topic IDs are unique; so they are in an index
	// of one topic, which min and max on the (topic, id) key tell without a
	// scan, and there the dedupe (twice the cost of a search matching much
	// of the index, BenchmarkSearch) is skipped.
	dedupe := false
	if q.Topic == "" {
		if err := tx.QueryRowContext(ctx, `SELECT coalesce((SELECT min(topic) FROM docs) <> (SELECT max(topic) FROM docs), 0)`).Scan(&dedupe); err != nil {
			return index.Result{}, fmt.Errorf("sqlitefts: search %q: count topics: %w", q.Text, err)
		}
	}
	// Without filters the count needs no join: looking up every match's
	// row in docs costs several times the MATCH itself.
	countSQL := `SELECT count(*)` + where
	switch {
	case dedupe:
		countSQL = `SELECT count(DISTINCT d.id)` + where
	case q.Topic == "" && q.Host == "" && len(han) == 0 && len(words) == 0:
		countSQL = `SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?`
	}
	res := index.Result{Hits: []index.Hit{}}
	if err := tx.QueryRowContext(ctx, countSQL, args...).Scan(&res.Total); err != nil {
		return index.Result{}, fmt.Errorf("sqlitefts: search %q: count matches: %w", q.Text, err)
	}
	if res.Total <= q.Offset {
		return res, nil
	}

	// Rank every match carrying only small columns, then read the page's
	// documents (text included, for snippets) by docid: the sorter never
	// holds page texts of matches that are not shown.
	matches := `SELECT d.docid AS docid, ` + scoreSQL + ` AS score, d.topic AS topic, d.id AS id` + where
	if dedupe {
		matches = `SELECT docid, score, topic, id FROM (SELECT docid, score, topic, id,
			row_number() OVER (PARTITION BY id ORDER BY score DESC, topic) AS n FROM (` + matches + `)) WHERE n = 1`
	}
	rows, err := tx.QueryContext(ctx,
		`SELECT d.topic, d.id, d.url, d.host, d.title, d.lang, d.text, d.link_spans, d.relevance, d.authority, p.score
		FROM (SELECT docid, score, topic, id FROM (`+matches+`)
			ORDER BY score DESC, topic, id LIMIT ? OFFSET ?) AS p
		CROSS JOIN docs AS d ON d.docid = p.docid
		ORDER BY p.score DESC, p.topic, p.id`,
		append(args, limit, q.Offset)...)
	if err != nil {
		return index.Result{}, fmt.Errorf("sqlitefts: search %q: %w", q.Text, err)
	}
	defer rows.Close()
	highlight := index.HighlightTerms(terms, phrases)
	for rows.Next() {
		var h index.Hit
		var text, spans string
		if err := rows.Scan(&h.Topic, &h.ID, &h.URL, &h.Host, &h.Title, &h.Lang, &text, &spans,
			&h.Relevance, &h.Authority, &h.Score); err != nil {
			return index.Result{}, fmt.Errorf("sqlitefts: search %q: read hit: %w", q.Text, err)
		}
		h.Snippet = index.SnippetOutside(text, index.DecodeSpans(spans, len(text)), highlight, index.DefaultSnippetRunes)
		res.Hits = append(res.Hits, h)
	}
	if err := rows.Err(); err != nil {
		return index.Result{}, fmt.Errorf("sqlitefts: search %q: read hits: %w", q.Text, err)
	}
	return res, nil
}

// matchExpression builds the FTS5 MATCH expression: every term and phrase as
// a quoted FTS5 string, joined by AND. Inside a string FTS5 knows no
// operators, so nothing the user typed can act as syntax. A Han word that
// pages may hold inside a longer word (words, index.HanWords) is the word
// or its parts near each other; a phrase of Han characters (han,
// index.HanPhrases) is its tokens near each other: documents are cut in
// search mode, so a phrase's tokens are not always adjacent in a document
// that has its characters in a row. Search checks the characters
// themselves where the tokens are only near each other.
func matchExpression(terms []string, words []index.HanWord, phrases [][]string, han map[string]index.HanPhrase) string {
	parts := make([]string, 0, len(terms)+len(words)+len(phrases))
	for _, t := range terms {
		parts = append(parts, ftsString(t))
	}
	for _, w := range words {
		parts = append(parts, "("+ftsString(w.Word)+" OR "+nearGroup(w.Parts, w.Distance())+")")
	}
	for _, p := range phrases {
		key := strings.Join(p, " ")
		if hp, ok := han[key]; ok {
			parts = append(parts, nearGroup(index.NearTokens(hp.Tokens), hp.Distance()))
			continue
		}
		// The tokenizer splits the string at the spaces, and a string of
		// several tokens is an FTS5 phrase.
		parts = append(parts, ftsString(key))
	}
	return strings.Join(parts, " AND ")
}

// nearGroup is the FTS5 expression for toks, the tokens of a run of Han
// characters, within distance of each other. Past index.MaxNear tokens
// they are only all required: NEAR's cost grows with the square of the
// group, and Search checks the characters in a row anyway.
func nearGroup(toks []string, distance int) string {
	quoted := make([]string, len(toks))
	for i, t := range toks {
		quoted[i] = ftsString(t)
	}
	switch {
	case len(quoted) == 1:
		return quoted[0]
	case len(quoted) > index.MaxNear:
		return "(" + strings.Join(quoted, " AND ") + ")"
	}
	return fmt.Sprintf("NEAR(%s, %d)", strings.Join(quoted, " "), distance)
}

// containsAnywhere is the SQL condition that the document's title, text or
// anchor texts hold the characters of the next six arguments (the same
// string) in a row (contains).
func containsAnywhere() string {
	return `(` + contains("d.title") + ` OR ` + contains("d.text") + ` OR ` + contains("d.anchor_texts") + `)`
}

// contains is the SQL condition that column holds the characters of the
// next two arguments (the same string) in a row: as stored first (the
// usual case, read in place), else passing over whitespace and invisible
// format characters between them (index.ContainsChars, the set
// index.HanPhrases strips from the query, through containsCharsFunc).
func contains(column string) string {
	return `(instr(` + column + `, ?) > 0 OR ` + containsCharsFunc + `(` + column + `, ?))`
}

// containsCharsFunc is the SQL function index.ContainsChars is registered
// as, for every connection the "sqlite" driver opens.
const containsCharsFunc = "focuscrawl_contains_chars"

func init() {
	sqlite.MustRegisterFunction(containsCharsFunc, &sqlite.FunctionImpl{
		NArgs:         2,
		Deterministic: true,
		// The text is read where SQLite holds it, not copied: the
		// function keeps neither argument.
		VolatileArgs: true,
		Scalar: func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			text, _ := args[0].(string)
			chars, _ := args[1].(string)
			return index.ContainsChars(text, chars), nil
		},
	})
}

// ftsString quotes s as an FTS5 string; a double quote inside is doubled.
func ftsString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
