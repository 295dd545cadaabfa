package linkpred

import (
	"fmt"
	"strings"

	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/internal/vsm"
)

func init() {
	register("best-first", decodeBestFirst, newBestFirst)
	register("bfs", noParams, func(struct{}, Env) (Predictor, error) { return bfs{}, nil })
	register("parent", noParams, func(struct{}, Env) (Predictor, error) { return parent{}, nil })
}

// BestFirst is focuscrawl's default predictor: the cosine between the link's
// own text and the topic vector, combined with the relevance of the page the
// link was found on:
//
//	score = λ · cos(link text, topic) + (1 − λ) · relevance(parent)
//
// The link text is the anchor text (counted twice: it describes the target
// most directly), the title attribute, image alt text, the ±30-byte
// surrounding text and the words of the URL path (seed 000's UH/TeH hits).
//
// Two components from seed 000 refine it (docs/algorithms.md "best-first"):
//
//	score' = ((1 − μ) · score + μ · AMH(link)) · m(type(parent → link))
//
// AMH is the metadata-hit score (MetaHits; μ = parameter amh, default 0:
// off), m the link-type multiplier (LinkTypeMultiplier: downward and
// horizontal links first; parameter link_type, default true).
//
// Parameters: lambda (default 0.5), amh (0), amh_a/amh_b/amh_c (AMH
// weights), min_term_weight (AMH's topic words, 0.3), link_type (true).
type BestFirst struct {
	Lambda   float64
	AMH      float64 // μ, the weight of the metadata-hit score
	LinkType bool    // apply the link-type multiplier
	hits     *MetaHits
	topic    vsm.Vector
	idf      vsm.IDF
	terms    topic.TermCounter
}

// BestFirstParams are the best-first predictor's decoded parameters.
type BestFirstParams struct {
	Lambda   float64
	AMH      float64        // μ
	Hits     MetaHitsParams // amh_a, amh_b, amh_c, min_term_weight
	LinkType bool
}

// textOnly is best-first scoring the link text alone (λ = 1), the fallback
// of the learning predictors before their first model.
var textOnly = BestFirstParams{Lambda: 1, Hits: defaultMetaHits, LinkType: true}

func decodeBestFirst(spec topic.Spec) (BestFirstParams, error) {
	if err := checkParams(spec, "lambda", "amh", "amh_a", "amh_b", "amh_c", "min_term_weight", "link_type"); err != nil {
		return BestFirstParams{}, err
	}
	p := BestFirstParams{LinkType: true}
	var err error
	if p.Lambda, err = spec.Float("lambda", 0.5); err != nil {
		return p, err
	}
	if p.Lambda < 0 || p.Lambda > 1 {
		return p, fmt.Errorf("strategy.link_predictor best-first: lambda %v must be in [0,1]", p.Lambda)
	}
	if p.AMH, err = spec.Float("amh", 0); err != nil {
		return p, err
	}
	if err := unit(spec.Name, "amh", p.AMH); err != nil {
		return p, err
	}
	if p.Hits, err = decodeMetaHitsWeights(spec, "amh_a", "amh_b", "amh_c"); err != nil {
		return p, err
	}
	if v, ok := spec.Params["link_type"]; ok {
		if p.LinkType, ok = v.(bool); !ok {
			return p, fmt.Errorf("strategy.link_predictor %s: parameter link_type: %v is not true or false", spec.Name, v)
		}
	}
	return p, nil
}

func newBestFirst(p BestFirstParams, env Env) (Predictor, error) {
	return &BestFirst{Lambda: p.Lambda, AMH: p.AMH, LinkType: p.LinkType, hits: p.Hits.build(env),
		topic: vsm.FromWeights(env.Model.Terms, env.IDF), idf: env.IDF, terms: env.Terms}, nil
}

// Name implements Predictor.
func (b *BestFirst) Name() string { return "best-first" }

// Score implements Predictor.
func (b *BestFirst) Score(p Parent, l Link) float64 {
	s := b.Lambda*b.TextSimilarity(l) + (1-b.Lambda)*p.Relevance
	if b.AMH > 0 {
		s = (1-b.AMH)*s + b.AMH*b.hits.AMH(l)
	}
	if b.LinkType && p.URL != "" {
		s *= LinkTypeMultiplier[ClassifyLink(p.URL, l.URL)]
	}
	return s
}

// TextSimilarity is the cosine between a link's metadata and the topic.
func (b *BestFirst) TextSimilarity(l Link) float64 {
	return linkTextCosine(b.terms, b.idf, b.topic, l)
}

// linkTextCosine is best-first's link-text cosine: anchor (twice), title,
// alt, surrounding text and URL words against the topic vector.
func linkTextCosine(terms topic.TermCounter, idf vsm.IDF, tv vsm.Vector, l Link) float64 {
	tf := terms.TermFreq(strings.Join([]string{l.Anchor, l.Anchor, l.Title, l.Alt, l.Context, urlnorm.Words(l.URL)}, " "))
	return vsm.Cosine(vsm.FromTF(tf, idf), tv)
}

// BestLinkText is the highest best-first link-text cosine among links: how
// strongly a page points at the topic, whatever its own text says (the
// loop policy's topical-hub test, relevance.LoopPolicy.Hub).
func BestLinkText(m *topic.Model, idf vsm.IDF, terms topic.TermCounter, links []Link) float64 {
	score := LinkTextScorer(m, idf, terms)
	best := 0.0
	for _, l := range links {
		best = max(best, score(l))
	}
	return best
}

// LinkTextScorer returns best-first's link-text cosine against m's topic
// vector (built once), for scoring many links; a nil idf weighs terms flat.
func LinkTextScorer(m *topic.Model, idf vsm.IDF, terms topic.TermCounter) func(Link) float64 {
	if idf == nil {
		idf = vsm.Flat // as in New
	}
	tv := vsm.FromWeights(m.Terms, idf)
	return func(l Link) float64 { return linkTextCosine(terms, idf, tv, l) }
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
