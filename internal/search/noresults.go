package search

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/textproc/fold"
)

// QueryKey is the form under which a no-result query is counted: the text
// with the differences the index never sees between two queries removed, as
// the tokenizer removes them from a query's terms — case, width, typographic
// apostrophes and hyphens and invisible format characters (fold.Word), the
// Unicode normal form (textproc.NFC) and the Chinese script
// (textproc.Simplified) — and its whitespace collapsed. "Rose" and "rose",
// 網路 and 网络, "café" precomposed and decomposed search for the same
// terms and find the same pages, so they are one query that found nothing,
// not several. Punctuation, stop words and quotes are kept: they are the
// user's phrasing, and merging on the index's terms alone would count
// "rose" and the quoted "the rose" as one.
func QueryKey(query string) string {
	return strings.Join(strings.Fields(textproc.Simplified(textproc.NFC(fold.Word(query)))), " ")
}

// MergeQueryCounts merges recorded no-result queries that have one
// QueryKey: the store keeps one row per text as typed (the rows written
// before queries were keyed, and the forms of one query typed since, alike:
// keying them in the store would take a schema change and could not rewrite
// the old rows, as it cannot run the tokenizer), and the readers count a
// query once. A merged query has the sum of the counts, the latest time,
// and the text of its most frequent typed form (then the latest asked, then
// the first in byte order), so the operator reads what users typed, not a
// folded key. The result is ordered as the stores order their rows: most
// frequent first, then most recent, then by text.
func MergeQueryCounts(qs []store.QueryCount) []store.QueryCount {
	type group struct {
		merged store.QueryCount
		shown  store.QueryCount // the form whose text is shown
	}
	groups := map[string]*group{}
	var order []string
	for _, q := range qs {
		k := QueryKey(q.Query)
		g := groups[k]
		if g == nil {
			groups[k] = &group{merged: q, shown: q}
			order = append(order, k)
			continue
		}
		g.merged.Count += q.Count
		if q.Last.After(g.merged.Last) {
			g.merged.Last = q.Last
		}
		if byFrequency(q, g.shown) < 0 {
			g.shown = q
		}
	}
	out := make([]store.QueryCount, 0, len(order))
	for _, k := range order {
		g := groups[k]
		g.merged.Query = g.shown.Query
		out = append(out, g.merged)
	}
	slices.SortStableFunc(out, byFrequency)
	return out
}

// byFrequency orders queries as the stores list them: most frequent first,
// then most recent, then by text.
func byFrequency(a, b store.QueryCount) int {
	if c := cmp.Compare(b.Count, a.Count); c != 0 {
		return c
	}
	if c := b.Last.Compare(a.Last); c != 0 {
		return c
	}
	return strings.Compare(a.Query, b.Query)
}

// NoResultQueries lists topic's no-result queries as MergeQueryCounts
// merges them, most frequent first; limit <= 0 means all. It reads every
// row of the topic: a limit on the rows would cut before the forms of one
// query are summed.
func NoResultQueries(ctx context.Context, st store.Queries, topic string, limit int) ([]store.QueryCount, error) {
	qs, err := st.NoResultQueries(ctx, topic, 0)
	if err != nil {
		return nil, err
	}
	qs = MergeQueryCounts(qs)
	if limit > 0 && len(qs) > limit {
		qs = qs[:limit]
	}
	return qs, nil
}
