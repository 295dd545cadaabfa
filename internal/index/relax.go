package index

import (
	"context"
	"fmt"
	"strings"
)

// MaxRelaxParts bounds the parts of a query SearchRelaxed looks up one by
// one (one search each): a longer query that finds nothing is answered as
// it is.
const MaxRelaxParts = 8

// QueryParts splits a query into the parts a relaxed search may leave out,
// in order and each once: every quoted part of two or more words as a
// phrase (in ASCII double quotes), and every word of the rest — the terms
// and phrases ParseQuery reads, so that the parts joined by spaces are a
// query of the same terms and phrases.
func QueryParts(text string, seg Segmenter) ([]string, error) {
	if _, _, err := ParseQuery(text, seg); err != nil {
		return nil, err
	}
	var parts []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			parts = append(parts, p)
		}
	}
	forParts(text, func(part string, quoted bool) {
		toks := searchableTokens(seg.Segment(part))
		if quoted && len(toks) > 1 {
			add(`"` + strings.Join(strings.Fields(part), " ") + `"`)
			return
		}
		for _, t := range toks {
			add(t)
		}
	})
	return parts, nil
}

// SearchRelaxed runs q on ix and, when no document has all of its words,
// looks each word and quoted phrase up alone (within q's topic and host
// filters) and runs q once more without those no document has at all: a
// query with a word the index does not know — a misspelling, a word the
// crawled pages use another form of — answered nothing, however well its
// other words matched. missing lists the parts left out, and Result is
// then that of the query without them; when that finds nothing either
// (the other words are there, not together) q's own empty answer is
// returned, missing nil, as it is when a look-up fails (the search's time
// is up): relaxing never turns an answer into an error. A query of one
// part, or of more than MaxRelaxParts, is answered as it is.
// Backend-neutral: both backends are only asked ordinary queries.
func SearchRelaxed(ctx context.Context, ix Index, seg Segmenter, q Query) (res Result, missing []string, err error) {
	res, err = ix.Search(ctx, q)
	if err != nil || res.Total > 0 || seg == nil {
		return res, nil, err
	}
	parts, err := QueryParts(q.Text, seg)
	if err != nil || len(parts) < 2 || len(parts) > MaxRelaxParts {
		return res, nil, err
	}
	var kept []string
	for _, p := range parts {
		one, err := ix.Search(ctx, Query{Text: p, Topic: q.Topic, Host: q.Host, Limit: 1})
		if err != nil {
			// The query was answered; a look-up that fails (the search's
			// time is up, the backend stumbles) leaves that answer as it
			// was rather than turning it into an error.
			return res, nil, nil
		}
		if one.Total == 0 {
			missing = append(missing, p)
		} else {
			kept = append(kept, p)
		}
	}
	if len(missing) == 0 || len(kept) == 0 {
		return res, nil, nil
	}
	q.Text = strings.Join(kept, " ")
	relaxed, err := ix.Search(ctx, q)
	if err != nil || relaxed.Total == 0 {
		return res, nil, nil
	}
	return relaxed, missing, nil
}

// RelaxedNote is what a search answered without the parts missing says
// ("" for none): `no page has "data": results without it`.
func RelaxedNote(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	q := make([]string, len(missing))
	for i, m := range missing {
		q[i] = m
		if !strings.HasPrefix(m, `"`) {
			q[i] = `"` + m + `"`
		}
	}
	it := "it"
	if len(missing) > 1 {
		it = "them"
	}
	return fmt.Sprintf("no page has %s: results without %s", strings.Join(q, ", "), it)
}

// QueryNote is what the answer to a search of text, relaxed by leaving out
// missing, says about its query: RelaxedNote, then OperatorNote, joined by
// "; " ("" for neither). The search page, its API and `search query` print
// it alike.
func QueryNote(text string, missing []string) string {
	var notes []string
	for _, n := range []string{RelaxedNote(missing), OperatorNote(text)} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return strings.Join(notes, "; ")
}
