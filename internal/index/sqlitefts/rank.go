package sqlitefts

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// rank is the SQL that scores a match's text in Search's ranking query
// (rankText).
type rank struct {
	with  string // a WITH clause to start the statement with, or ""
	args  []any  // with's arguments
	joins string // joins after joinDocsSQL, of the tables with defines
	score string // the text score, an SQL expression
}

// ftsIDF is the IDF of FTS5's bm25() for a phrase in hits of n rows,
// including its floor of 1e-6 for a phrase in half the rows or more
// (fts5_aux.c, fts5Bm25GetData).
func ftsIDF(n, hits int) float64 {
	idf := math.Log((float64(n) - float64(hits) + 0.5) / (float64(hits) + 0.5))
	if idf <= 0 {
		return 1e-6
	}
	return idf
}

// luceneIDF is the IDF of Lucene's BM25Similarity, Elasticsearch's
// default: positive however common the phrase.
func luceneIDF(n, hits int) float64 {
	return math.Log(1 + (float64(n)-float64(hits)+0.5)/(float64(hits)+0.5))
}

// rankText builds the text score of the package comment: FTS5's BM25 with
// Lucene's IDF in place of its own. FTS5 computes bm25() in C and offers
// no way to change its IDF from SQL, and the driver registers no FTS5
// ranking functions from Go, so the score is taken apart: for a phrase p
// of expr, bm25(expr AND p) − bm25(expr) is p's term alone, ftsIDF(p) ×
// its term-frequency part (every occurrence of p in the page, weighted
// by column), which multiplied by luceneIDF(p)/ftsIDF(p) is the term
// Lucene's IDF gives. One bm25() per distinct phrase is read from a
// materialized MATCH of its own, joined by rowid; each phrase's document
// count is counted first, in the same read transaction as the search.
// When the expression is only phrases that all must match (plain: no OR,
// no NEAR) bm25(expr) is the sum of the phrases' terms, so one phrase
// needs no query of its own.
func rankText(ctx context.Context, tx *sql.Tx, expr string, phrases []string, plain bool) (rank, error) {
	var distinct []string
	copies := map[string]int{}
	for _, p := range phrases {
		if copies[p] == 0 {
			distinct = append(distinct, p)
		}
		copies[p]++
	}
	// The counts FTS5's bm25() uses: its rows (docs has one per row of
	// docs_fts, written in the same transaction) and the rows holding
	// each phrase.
	q := `SELECT (SELECT count(*) FROM docs)`
	args := make([]any, len(distinct))
	for i, p := range distinct {
		q += `, (SELECT count(*) FROM docs_fts WHERE docs_fts MATCH ?)`
		args[i] = p
	}
	var n int
	hits := make([]int, len(distinct))
	dest := []any{&n}
	for i := range hits {
		dest = append(dest, &hits[i])
	}
	if err := tx.QueryRowContext(ctx, q, args...).Scan(dest...); err != nil {
		return rank{}, fmt.Errorf("count the phrases' documents: %w", err)
	}
	// k[i] turns phrase i's term of bm25() into its term with Lucene's IDF.
	k := make([]float64, len(distinct))
	for i := range distinct {
		k[i] = luceneIDF(n, hits[i]) / ftsIDF(n, hits[i])
	}
	if len(distinct) == 1 {
		// bm25() is one phrase's terms: scaled, not taken apart.
		return rank{score: num(k[0]) + ` * ` + bm25SQL}, nil
	}

	var r rank
	var with []string
	// phraseScore adds the materialized bm25(expr AND p) of distinct phrase
	// i, as r<i>.s.
	phraseScore := func(i int) string {
		with = append(with, fmt.Sprintf(`r%d(docid, s) AS MATERIALIZED (SELECT rowid, `+bm25SQL+` FROM docs_fts WHERE docs_fts MATCH ?)`, i))
		r.args = append(r.args, "("+expr+") AND "+distinct[i])
		r.joins += fmt.Sprintf(` LEFT JOIN r%d ON r%[1]d.docid = docs_fts.rowid`, i)
		return fmt.Sprintf(`r%d.s`, i)
	}
	var terms []string
	if plain {
		// Every match holds every phrase, so each r<i> has a row for
		// it. With the last phrase's term g_m = (bm25 − Σ c_i·g_i)/c_m
		// (c the copies, g_i = r<i>.s − bm25 for i < m), the score
		// Σ c_i·k_i·g_i is k_m·bm25 + Σ c_i·(k_i − k_m)·g_i: linear in
		// bm25 and the r<i>.s, and a phrase as common as the last (same
		// k) needs no query.
		m := len(distinct) - 1
		own := k[m]
		for i := range m {
			a := float64(copies[distinct[i]]) * (k[i] - k[m])
			if a == 0 {
				continue
			}
			own -= a
			terms = append(terms, num(a)+` * `+phraseScore(i))
		}
		terms = append([]string{num(own) + ` * ` + bm25SQL}, terms...)
	} else {
		// A page matching expr through one side of an OR lacks the
		// other side's phrases: no row in their r<i>, a term of 0.
		for i := range distinct {
			terms = append(terms, fmt.Sprintf(`%s * (coalesce(%s, %s) - %[3]s)`,
				num(float64(copies[distinct[i]])*k[i]), phraseScore(i), bm25SQL))
		}
	}
	if len(with) > 0 {
		r.with = `WITH ` + strings.Join(with, `, `) + ` `
	}
	r.score = `(` + strings.Join(terms, ` + `) + `)`
	return r, nil
}

// num is f as an SQL literal that reads back as f.
func num(f float64) string {
	return strconv.FormatFloat(f, 'g', -1, 64)
}
