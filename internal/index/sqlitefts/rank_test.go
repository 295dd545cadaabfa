package sqlitefts

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"focuscrawl/internal/index"
)

// TestRankingCommonTermCounts: in a topical index the topic's own word is in
// most pages. FTS5's bm25() gives such a word an IDF of 1e-6, so in a query
// with a rarer word it was ignored, and the page that says "substitute"
// five times ranked below one that says it once (its longer text only
// lowered the rarer word's weight). With Lucene's IDF the common word
// counts, less than the rare one.
func TestRankingCommonTermCounts(t *testing.T) {
	x := openTemp(t)
	var docs []index.Document
	for i := range 8 {
		docs = append(docs, doc("p", fmt.Sprintf("other%d", i), "h", "page", "substitute command text of the manual"))
	}
	docs = append(docs, filler("p", 4)...) // without the common word: it is in 10 of 14 pages
	// Of the same length, so that "flags" weighs the same in both; the
	// page that says "substitute" once is a little more on topic.
	often := doc("p", "often", "h", "page", "substitute substitute substitute substitute flags substitute")
	once := doc("p", "once", "h", "page", "substitute flags alpha beta gamma delta")
	once.Relevance = 0.55
	mustUpsert(t, x, append(docs, often, once)...)
	res := mustSearch(t, x, index.Query{Text: "substitute flags"})
	if got, want := strings.Join(hitIDs(res), ","), "often,once"; got != want {
		t.Errorf("order = %s, want %s (the common word's occurrences count)", got, want)
	}
	// The rarer word weighs more than the common one: a second "flags"
	// beats four more "substitute".
	often.Text = "substitute flags flags alpha beta gamma"
	once.Text = "substitute substitute substitute substitute substitute flags"
	mustUpsert(t, x, often, once)
	res = mustSearch(t, x, index.Query{Text: "substitute flags"})
	if got, want := strings.Join(hitIDs(res), ","), "often,once"; got != want {
		t.Errorf("order = %s, want %s (the rarer word weighs more)", got, want)
	}
}

// luceneBM25 is the text score of the package comment computed from token
// counts (spaceSegmenter's tokens: the texts' words): BM25 with k1 1.2 and
// b 0.75 over the column-weighted term frequencies, the document's length
// in tokens of all columns against the index's mean, and Lucene's IDF,
// summed over terms (a repeated one counting each time).
func luceneBM25(docs []index.Document, d index.Document, terms []string) float64 {
	length := func(d index.Document) int {
		return len(strings.Fields(d.Title)) + len(strings.Fields(d.Text)) + len(strings.Fields(d.AnchorTexts))
	}
	count := func(s, term string) int {
		n := 0
		for _, w := range strings.Fields(s) {
			if w == term {
				n++
			}
		}
		return n
	}
	total := 0
	for _, e := range docs {
		total += length(e)
	}
	avg := float64(total) / float64(len(docs))
	score := 0.0
	for _, term := range terms {
		hits := 0
		for _, e := range docs {
			if count(e.Title+" "+e.Text+" "+e.AnchorTexts, term) > 0 {
				hits++
			}
		}
		tf := 4*float64(count(d.Title, term)) + float64(count(d.Text, term)) + 2*float64(count(d.AnchorTexts, term))
		idf := math.Log(1 + (float64(len(docs)-hits)+0.5)/(float64(hits)+0.5))
		score += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(length(d))/avg))
	}
	return score
}

// TestRankingIsBM25WithLuceneIDF: Search's scores are BM25 with Lucene's
// IDF as computed by hand (luceneBM25), for one term, two and three
// (one of them repeated) of which some are in more than half the pages and
// some are not, in the title, text and anchor texts; and the ranking's
// other way of taking bm25() apart (the one for expressions with OR or
// NEAR) gives the same scores.
func TestRankingIsBM25WithLuceneIDF(t *testing.T) {
	x := openTemp(t)
	docs := []index.Document{
		doc("p", "a", "h", "vim help", "vim registers and vim marks"),
		doc("p", "b", "h", "registers", "the vim registers hold text"),
		doc("p", "c", "h", "options", "vim options set with the set command"),
		doc("p", "d", "h", "marks", "marks remember a position in a file"),
		doc("p", "e", "h", "vim", "vim vim vim"),
	}
	docs[0].AnchorTexts = "registers help"
	docs[1].Relevance, docs[1].Authority = 0.9, 0.3
	mustUpsert(t, x, docs...)
	byID := map[string]index.Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	for _, q := range [][]string{{"vim"}, {"registers"}, {"vim", "registers"}, {"help", "registers", "vim"}, {"vim", "marks", "vim"}} {
		// Search takes a repeated term once (index.ParseQuery).
		var once []string
		for _, w := range q {
			if !slices.Contains(once, w) {
				once = append(once, w)
			}
		}
		res := mustSearch(t, x, index.Query{Text: strings.Join(q, " ")})
		if len(res.Hits) == 0 {
			t.Fatalf("%q: no hits", q)
		}
		for _, h := range res.Hits {
			d := byID[h.ID]
			want := luceneBM25(docs, d, once) * (0.5 + d.Relevance) * (1 + d.Authority)
			if math.Abs(h.Score-want) > 1e-9*want {
				t.Errorf("%q: %s scores %.12g, want %.12g", q, h.ID, h.Score, want)
			}
		}
		if len(q) < 2 {
			continue
		}
		phrases := make([]string, len(q))
		for i, w := range q {
			phrases[i] = ftsString(w)
		}
		expr := strings.Join(phrases, " AND ")
		plain, general := rankScores(t, x, expr, phrases, true), rankScores(t, x, expr, phrases, false)
		if len(plain) != len(res.Hits) || len(general) != len(plain) {
			t.Fatalf("%q: %d and %d scores, want %d", q, len(plain), len(general), len(res.Hits))
		}
		for id, s := range plain {
			if want := luceneBM25(docs, byID[id], q); math.Abs(s-want) > 1e-9*want || math.Abs(general[id]-want) > 1e-9*want {
				t.Errorf("%q: %s's text score %.12g, %.12g taken apart as for OR and NEAR; want %.12g", q, id, s, general[id], want)
			}
		}
	}
}

// rankScores is rankText's text score of each document matching expr, by ID.
func rankScores(t *testing.T, x *Index, expr string, phrases []string, plain bool) map[string]float64 {
	t.Helper()
	ctx := context.Background()
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	r, err := rankText(ctx, tx, expr, phrases, plain)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := tx.QueryContext(ctx, r.with+`SELECT d.id, `+r.score+` FROM docs_fts`+joinDocsSQL+r.joins+` WHERE docs_fts MATCH ?`,
		append(r.args, expr)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var id string
		var s float64
		if err := rows.Scan(&id, &s); err != nil {
			t.Fatal(err)
		}
		out[id] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
