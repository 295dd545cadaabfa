package linkpred

import (
	"fmt"
	"net/url"
	"strings"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

func init() {
	Register("best-first", newBestFirst)
	Register("bfs", func(spec topic.Spec, _ Env) (Predictor, error) {
		return bfs{}, checkParams(spec)
	})
	Register("parent", func(spec topic.Spec, _ Env) (Predictor, error) {
		return parent{}, checkParams(spec)
	})
}

// BestFirst is focuscrawl's default predictor: the cosine between the link's
// own text and the topic vector, combined with the relevance of the page the
// link was found on:
//
//	score = λ · cos(link text, topic) + (1 − λ) · relevance(parent)
//
// The link text is the anchor text (counted twice: it describes the target
// most directly), the title attribute, image alt text, the ±30-character
// surrounding text and the words of the URL path (seed 000's UH/TeH hits).
//
// Parameters: lambda (default 0.5).
type BestFirst struct {
	Lambda float64
	topic  vsm.Vector
	idf    vsm.IDF
	terms  topic.TermCounter
}

func newBestFirst(spec topic.Spec, env Env) (Predictor, error) {
	if err := checkParams(spec, "lambda"); err != nil {
		return nil, err
	}
	l, err := spec.Float("lambda", 0.5)
	if err != nil {
		return nil, err
	}
	if l < 0 || l > 1 {
		return nil, fmt.Errorf("strategy.link_predictor best-first: lambda %v must be in [0,1]", l)
	}
	return &BestFirst{Lambda: l, topic: vsm.FromWeights(env.Model.Terms, env.IDF), idf: env.IDF, terms: env.Terms}, nil
}

// Name implements Predictor.
func (b *BestFirst) Name() string { return "best-first" }

// Score implements Predictor.
func (b *BestFirst) Score(p Parent, l Link) float64 {
	return b.Lambda*b.TextSimilarity(l) + (1-b.Lambda)*p.Relevance
}

// TextSimilarity is the cosine between a link's metadata and the topic.
func (b *BestFirst) TextSimilarity(l Link) float64 {
	tf := b.terms.TermFreq(strings.Join([]string{l.Anchor, l.Anchor, l.Title, l.Alt, l.Context, urlWords(l.URL)}, " "))
	return vsm.Cosine(vsm.FromTF(tf, b.idf), b.topic)
}

// urlWords turns a URL's path and query into space-separated words
// ("/docs/gimp-filter-blur.html" → "docs gimp filter blur html").
func urlWords(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	s := u.Path + " " + u.RawQuery
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '-', '_', '.', '=', '&', '+', '%':
			return ' '
		}
		return r
	}, s)
}

// bfs gives every link the same priority, so the frontier's insertion order
// decides: breadth-first crawling, the classic baseline.
type bfs struct{}

func (bfs) Name() string               { return "bfs" }
func (bfs) Score(Parent, Link) float64 { return 0 }

// parent gives every out-link the relevance of the page it was found on
// (issue 4's "parent" baseline).
type parent struct{}

func (parent) Name() string                   { return "parent" }
func (parent) Score(p Parent, _ Link) float64 { return p.Relevance }
