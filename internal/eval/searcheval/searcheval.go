// Package searcheval measures the search index's ranking on the focus
// evaluation's corpora (internal/eval/focus): every page of a corpus is
// parsed as the crawler parses it and indexed in a private SQLite FTS5
// index, once per variant of what text a document carries, and each
// topic's keywords are run as queries whose relevant pages are the topic's
// structurally labelled targets (its sample pages included). It reports
// P@10 and nDCG@10 per corpus and split, so a change to what is indexed is
// decided on the tuning half and reported on the others, as the focus work
// is. No crawl runs: the index's ranking is measured apart from the
// crawler's choices.
package searcheval

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"focuscrawl/internal/eval/focus"
	"focuscrawl/internal/eval/metrics"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/sqlitefts"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/urlnorm"
)

// K is the rank cut-off of the measures: a result page.
const K = 10

// Variant names what text an indexed document carries. An experiment
// adds one to Variants and the report compares them query by query.
type Variant struct {
	Name string
	Text func(*parse.Document) string
}

// Variants are the variants measured: the crawler's own index text (all
// visible text, as activities.indexDocument indexes it). A second,
// main content only (navigation blocks left out by link density), ranked
// worse on every split and was dropped (docs/evaluation.md "Search
// ranking").
var Variants = []Variant{
	{Name: "index text", Text: func(d *parse.Document) string { return d.Text }},
}

// Query is one evaluation query.
type Query struct {
	Topic    string
	Set      string // Keyword or Pair
	Text     string
	Relevant metrics.Labels
}

// The query sets, reported apart.
const (
	// Keyword is each of a topic's keywords alone.
	Keyword = "keyword"
	// Pair is each two of a topic's keywords together, as a user adds a
	// word to narrow a search. In a single-word query a word's IDF only
	// scales every hit's score; only a query of several words measures
	// how the ranking weighs common against rare words (a topic's own
	// words are in most of its pages).
	Pair = "keyword pair"
)

// Sets are the query sets in the order reported.
var Sets = []string{Keyword, Pair}

// QueryResult is one query's measures under one variant.
type QueryResult struct {
	PAtK, NDCG float64
	Matches    int
	TopScore   float64 // the first hit's score (0 without hits)
}

// CorpusResult is one corpus's queries and their results per variant.
type CorpusResult struct {
	Corpus  string
	Split   focus.Split
	Pages   int
	Queries []Query
	Results map[string][]QueryResult // variant name → one per query
}

// Queries are a corpus's evaluation queries, with the topic's targets and
// sample pages as the relevant set: each keyword of each topic alone
// (set Keyword), then each two of them (set Pair). Not more: the index
// requires every query term to occur, and a topic's keywords together
// rarely all do. A pair no page holds both words of finds nothing under
// any ranking; it is kept, so that the sets do not depend on the index.
func Queries(c *focus.Corpus) []Query {
	var qs []Query
	for _, t := range c.Topics {
		rel := metrics.Labels{}
		for u := range t.Labels {
			rel[u] = struct{}{}
		}
		for u := range t.Neutral {
			rel[u] = struct{}{}
		}
		kws := make([]string, 0, len(t.Topic.Keywords))
		for k := range t.Topic.Keywords {
			kws = append(kws, k)
		}
		sort.Strings(kws)
		for _, k := range kws {
			qs = append(qs, Query{Topic: t.Name, Set: Keyword, Text: k, Relevant: rel})
		}
		for i, a := range kws {
			for _, b := range kws[i+1:] {
				qs = append(qs, Query{Topic: t.Name, Set: Pair, Text: a + " " + b, Relevant: rel})
			}
		}
	}
	return qs
}

// page is one corpus page, parsed.
type page struct {
	url string
	doc *parse.Document
}

// loadPages parses every HTML page of the corpus (the spec's page globs).
func loadPages(c *focus.Corpus) ([]page, error) {
	base := "http://" + c.Spec.Host + "/"
	var pages []page
	for _, g := range strings.Split(c.Spec.Pages, ",") {
		files, err := filepath.Glob(filepath.Join(c.Dir, g))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if !utf8.Valid(b) {
				// A few pages of the English corpora are Latin-1 (Maxima's
				// introduction); the fetcher reads them as windows-1252 too.
				if b, err = charmap.Windows1252.NewDecoder().Bytes(b); err != nil {
					return nil, fmt.Errorf("searcheval: %s: %w", f, err)
				}
			}
			rel, _ := filepath.Rel(c.Dir, f)
			u, err := urlnorm.Normalize(base + filepath.ToSlash(rel))
			if err != nil {
				return nil, err
			}
			doc, err := parse.Parse(u, b, parse.Options{})
			if err != nil {
				return nil, err
			}
			pages = append(pages, page{url: u, doc: doc})
		}
	}
	return pages, nil
}

// inAnchors collects, per page URL, the anchor texts of links into it from
// the corpus's other pages (at most 20, as the crawler's index keeps).
func inAnchors(pages []page) map[string][]string {
	out := map[string][]string{}
	for _, p := range pages {
		for _, l := range p.doc.Links {
			if l.URL == p.url || strings.TrimSpace(l.Anchor) == "" || len(out[l.URL]) >= 20 {
				continue
			}
			out[l.URL] = append(out[l.URL], l.Anchor)
		}
	}
	return out
}

// Run indexes corpus c once per variant under work and runs its queries.
func Run(ctx context.Context, c *focus.Corpus, tok *textproc.Tokenizer, work string) (*CorpusResult, error) {
	pages, err := loadPages(c)
	if err != nil {
		return nil, err
	}
	anchors := inAnchors(pages)
	res := &CorpusResult{Corpus: c.Spec.Name, Split: c.Spec.Split, Pages: len(pages), Queries: Queries(c), Results: map[string][]QueryResult{}}
	for i, v := range Variants {
		path := filepath.Join(work, fmt.Sprintf("%s-%d.db", c.Spec.Name, i))
		_ = os.Remove(path)
		x, err := sqlitefts.Open(path, tok)
		if err != nil {
			return nil, err
		}
		docs := make([]index.Document, 0, len(pages))
		for _, p := range pages {
			docs = append(docs, index.Document{
				ID: urlnorm.Hash(p.url), Topic: "eval", URL: p.url, Host: urlnorm.Host(p.url),
				Title: p.doc.Title, Text: v.Text(p.doc), Lang: c.Spec.Lang, Relevance: 0.5,
				AnchorTexts: strings.Join(anchors[p.url], " "),
			})
		}
		for start := 0; start < len(docs); start += 200 {
			if err := x.Upsert(ctx, docs[start:min(start+200, len(docs))]); err != nil {
				x.Close()
				return nil, err
			}
		}
		for _, q := range res.Queries {
			r, err := x.Search(ctx, index.Query{Text: q.Text, Limit: K})
			if err != nil {
				x.Close()
				return nil, fmt.Errorf("searcheval: %s: query %q: %w", c.Spec.Name, q.Text, err)
			}
			res.Results[v.Name] = append(res.Results[v.Name], Measure(r, q.Relevant))
		}
		if err := x.Close(); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// Measure scores one result page against the relevant set: P@K and
// nDCG@K with binary gains (the ideal ranking puts min(K, |relevant|)
// relevant pages first).
func Measure(r index.Result, relevant metrics.Labels) QueryResult {
	out := QueryResult{Matches: r.Total}
	dcg, hits := 0.0, 0
	for i, h := range r.Hits {
		if i >= K {
			break
		}
		if i == 0 {
			out.TopScore = h.Score
		}
		if _, ok := relevant[h.URL]; ok {
			hits++
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	ideal := 0.0
	for i := range min(K, len(relevant)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	out.PAtK = float64(hits) / K
	if ideal > 0 {
		out.NDCG = dcg / ideal
	}
	return out
}

// means is the mean P@K and nDCG@K of the results of the queries of set.
func means(qs []Query, rs []QueryResult, set string) (p, ndcg float64) {
	n := 0
	for i, r := range rs {
		if qs[i].Set != set {
			continue
		}
		p += r.PAtK
		ndcg += r.NDCG
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return p / float64(n), ndcg / float64(n)
}

// WriteMarkdown writes the per-corpus table of P@K and nDCG@K per query set
// and variant, the mean per split and set and, with two variants or more,
// the queries whose nDCG@K differs between the first and each other.
func WriteMarkdown(w io.Writer, results []*CorpusResult) {
	fmt.Fprint(w, "| split | corpus | pages | query set | queries |")
	for _, v := range Variants {
		fmt.Fprintf(w, " P@%d %s | nDCG@%d %s |", K, v.Name, K, v.Name)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|---|---:|---|---:|")
	for range Variants {
		fmt.Fprint(w, "---:|---:|")
	}
	fmt.Fprintln(w)
	type acc struct {
		p, ndcg []float64 // sums per variant
		n       int
	}
	type key struct {
		split focus.Split
		set   string
	}
	splits := map[key]*acc{}
	var order []key
	for _, r := range results {
		for _, set := range Sets {
			k := key{r.Split, set}
			s := splits[k]
			if s == nil {
				s = &acc{p: make([]float64, len(Variants)), ndcg: make([]float64, len(Variants))}
				splits[k] = s
				order = append(order, k)
			}
			s.n++
			n := 0
			for _, q := range r.Queries {
				if q.Set == set {
					n++
				}
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %d |", r.Split, r.Corpus, r.Pages, set, n)
			for i, v := range Variants {
				p, n := means(r.Queries, r.Results[v.Name], set)
				s.p[i] += p
				s.ndcg[i] += n
				fmt.Fprintf(w, " %.3f | %.3f |", p, n)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintln(w)
	for _, k := range order {
		s := splits[k]
		fmt.Fprintf(w, "- **%s**, %ss (mean over %d corpora):", k.split, k.set, s.n)
		for i, v := range Variants {
			fmt.Fprintf(w, " %s P@%d %.3f, nDCG@%d %.3f;", v.Name, K, s.p[i]/float64(s.n), K, s.ndcg[i]/float64(s.n))
		}
		fmt.Fprintln(w)
	}
	for _, v := range Variants[1:] {
		a := Variants[0].Name
		fmt.Fprintf(w, "\nQueries whose nDCG@%d differs (corpus, topic, query: %s → %s):\n\n", K, a, v.Name)
		for _, r := range results {
			for i, q := range r.Queries {
				if x, y := r.Results[a][i], r.Results[v.Name][i]; math.Abs(y.NDCG-x.NDCG) > 1e-9 {
					fmt.Fprintf(w, "- %s, %s, %q: %.3f → %.3f\n", r.Corpus, q.Topic, q.Text, x.NDCG, y.NDCG)
				}
			}
		}
	}
}

// WriteQueries writes one tab-separated line per query and variant
// (split, corpus, topic, query set, query, variant, P@K, nDCG@K, matches), so that
// two runs of different code can be compared query by query (a ranking
// change is not a variant: it changes the index, not the indexed text).
func WriteQueries(w io.Writer, results []*CorpusResult) {
	fmt.Fprintf(w, "split\tcorpus\ttopic\tset\tquery\tvariant\tP@%d\tnDCG@%d\tmatches\n", K, K)
	for _, r := range results {
		for _, v := range Variants {
			for i, q := range r.Queries {
				x := r.Results[v.Name][i]
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%.4f\t%d\n", r.Split, r.Corpus, q.Topic, q.Set, q.Text, v.Name, x.PAtK, x.NDCG, x.Matches)
			}
		}
	}
}
