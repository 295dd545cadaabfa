// Package linkpred holds focuscrawl's link predictors: strategies that score
// an out-link before it is fetched (URL-to-topic relevance, seed 000's "link
// prediction" module). The score becomes the link's frontier priority, so the
// crawl fetches the most promising URLs first. Each predictor is one file
// implementing Predictor, registered by name; a topic file picks one with
// strategy.link_predictor.
package linkpred

import (
	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/registry"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// Link is an out-link with its extended metadata (docs/algorithms.md "Page
// analysis: image links").
type Link struct {
	URL     string
	Anchor  string
	Title   string
	Alt     string
	Context string // surrounding text, ±30 bytes cut on rune boundaries (parse.Link.Context)
	// DOMContext is the text within DOM tree distance 5 of the link (seed
	// 002; parse.Link.DOMContext), JLSE's context attribute; "" (links
	// parsed before the field existed) means use Context.
	DOMContext string
}

// Parent is the page a link was found on.
type Parent struct {
	URL       string
	Hash      string  // URL hash of the page (crawl-graph node key)
	Relevance float64 // the page filter's score
	Relevant  bool
	Depth     int
	// AnchorPath is the anchor texts from the seed down to this page
	// (seed 004), " > "-joined.
	AnchorPath string
	// Terms are the page's term frequencies (RWB scores a failed link by
	// the best word of the whole parent page); may be nil.
	Terms map[string]int
}

// Discard is the score a predictor returns for a link it predicts
// irrelevant and wants dropped (seed 000: URLs below the threshold are not
// admitted to the queue). Any negative score discards; the edge is still
// recorded in the crawl graph.
const Discard = -1.0

// PageScorer is implemented by predictors whose link scores depend on the
// page's other links (JLSE normalises priorities over a page's links).
// PredictLinks calls ScorePage instead of Score when it is implemented.
type PageScorer interface {
	ScorePage(p Parent, links []Link) []float64
}

// OwnScorer is implemented by predictors whose priority mixes the link's
// own score with a score of the page it was found on (ipagerank:
// λ·RWB(link) + (1−λ)·IPR(parent)). The crawl graph keeps the own part as
// the edge's score: RecomputeHubAuthority reads it as an unfetched URL's
// relevance in IPageRank and combines it with the URL's IPageRank, which
// already carries the parent's rank — kept mixed, the parent's rank
// counted twice. PredictLinks calls ScoreOwn instead of Score when it is
// implemented (a PageScorer's ScorePage comes first); for the other
// predictors the edge keeps the priority.
type OwnScorer interface {
	// ScoreOwn returns the link's priority, as Score would, and its own
	// score without the parent's part, never negative.
	ScoreOwn(p Parent, l Link) (priority, own float64)
}

// Relatedness is seed 000's R(k) (lexicon.Lexicon implements it).
type Relatedness interface {
	Relatedness(word string, topicTerms []string) float64
}

// Predictor scores links. Implementations must be safe for concurrent use.
type Predictor interface {
	Name() string
	// Score returns the link's priority; higher is fetched sooner.
	Score(p Parent, l Link) float64
}

// ModelReader is implemented by predictors that read the learned link
// model (Env.LinkModel). For the others LearnLinkModel is wasted work, and
// the crawl does not run it.
type ModelReader interface {
	ReadsLinkModel() bool
}

// ReadsLinkModel reports whether the predictor s names reads the learned
// link model.
func ReadsLinkModel(s Strategy) bool {
	p, err := Build(s, Env{})
	if err != nil {
		return false
	}
	r, ok := p.(ModelReader)
	return ok && r.ReadsLinkModel()
}

// ReadsRanks reports whether the predictor s names reads the crawl's
// IPageRank scores (Env.Ranks): only ipagerank does.
func ReadsRanks(s Strategy) bool {
	_, ok := s.Params().(IPageRankParams)
	return ok
}

// ReadsLexicon reports whether the predictor s names reads the topic's
// relatedness lexicon (Env.Lexicon): rw, rwb and ipagerank (through its rwb).
func ReadsLexicon(s Strategy) bool {
	switch s.Params().(type) {
	case RWParams, IPageRankParams:
		return true
	}
	return false
}

// Env is what a predictor is built from. Learned state is one consistent
// version chosen by the workflow for the whole batch.
type Env struct {
	Model *topic.Model
	IDF   vsm.IDF
	Terms topic.TermCounter
	// Lexicon gives word relatedness for rw/rwb/ipagerank; nil means exact
	// topic-term matches only.
	Lexicon Relatedness
	// LinkModel is the learned link model (jlse, bfc, anchor-context
	// layers); nil before the first learning round.
	LinkModel *linkmodel.Model
	// Ranks are the IPageRank scores of the last recomputation; nil before it.
	Ranks *linkmodel.Ranks
	// Seed seeds every random choice (topic strategy.seed).
	Seed int64
}

// Strategy is a link-predictor spec decoded once, when its topic file is
// validated (Decode): the predictor's name and its typed parameters (one of
// the *Params types of this package). A crawl builds the predictor from it
// for every batch (Build).
type Strategy = registry.Strategy[Predictor]

var strategies = registry.New[Predictor, Env]("strategy.link_predictor", func(env Env) Env {
	if env.IDF == nil {
		env.IDF = vsm.Flat
	}
	if env.Model == nil {
		env.Model = &topic.Model{Terms: map[string]float64{"placeholder": 1}}
	}
	return env
})

// register makes a predictor available by name: decode checks and decodes
// a spec's parameters into P, build makes the predictor from them. It
// panics on duplicates, which are programming errors.
func register[P any](name string, decode func(topic.Spec) (P, error), build func(P, Env) (Predictor, error)) {
	registry.Register(strategies, name, decode, build)
}

// noParams decodes the spec of a predictor without parameters.
func noParams(spec topic.Spec) (struct{}, error) { return struct{}{}, checkParams(spec) }

// Decode checks and decodes a link-predictor spec (registry.Registry.Decode).
func Decode(spec topic.Spec) (Strategy, error) { return strategies.Decode(spec) }

// Build makes the predictor s names for one batch's environment.
func Build(s Strategy, env Env) (Predictor, error) { return strategies.Build(s, env) }

// New decodes spec and builds its predictor, for tools and tests.
func New(spec topic.Spec, env Env) (Predictor, error) { return strategies.New(spec, env) }

// Check validates a link-predictor spec (name and parameters).
func Check(spec topic.Spec) error { return strategies.Check(spec) }

// Names lists the registered predictors.
func Names() []string { return strategies.Names() }

func checkParams(spec topic.Spec, known ...string) error {
	return strategies.CheckParams(spec, known...)
}
