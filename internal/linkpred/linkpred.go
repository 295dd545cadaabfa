// Package linkpred holds focuscrawl's link predictors: strategies that score
// an out-link before it is fetched (URL-to-topic relevance, seed 000's "link
// prediction" module). The score becomes the link's frontier priority, so the
// crawl fetches the most promising URLs first. Each predictor is one file
// implementing Predictor, registered by name; a topic file picks one with
// strategy.link_predictor.
package linkpred

import (
	"strings"

	"focuscrawl/internal/linkmodel"
	"focuscrawl/internal/registry"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// Link is an out-link with its extended metadata (seed 000 §8).
type Link struct {
	URL     string
	Anchor  string
	Title   string
	Alt     string
	Context string // surrounding text, ±30 characters
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

// ReadsLinkModel reports whether the predictor spec names reads the learned
// link model (an unknown or invalid spec reads nothing).
func ReadsLinkModel(spec topic.Spec) bool {
	p, err := New(spec, Env{})
	if err != nil {
		return false
	}
	r, ok := p.(ModelReader)
	return ok && r.ReadsLinkModel()
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

// Factory builds a predictor from its spec.
type Factory func(spec topic.Spec, env Env) (Predictor, error)

var strategies = registry.New[Predictor, Env]("strategy.link_predictor")

// Register makes a strategy available by name. It panics on duplicates,
// which are programming errors.
func Register(name string, f Factory) { strategies.Register(name, f) }

// New builds the predictor a spec names.
func New(spec topic.Spec, env Env) (Predictor, error) {
	if env.IDF == nil {
		env.IDF = vsm.Flat
	}
	if env.Model == nil {
		env.Model = &topic.Model{Terms: map[string]float64{"placeholder": 1}}
	}
	if env.Terms == nil {
		env.Terms = splitCounter{}
	}
	return strategies.Build(spec, env)
}

// Check validates a spec without a real topic.
func Check(spec topic.Spec) error {
	_, err := New(spec, Env{})
	return err
}

// Names lists the registered predictors.
func Names() []string { return strategies.Names() }

func checkParams(spec topic.Spec, known ...string) error {
	return strategies.CheckParams(spec, known...)
}

// splitCounter is a whitespace term counter used only when validating specs.
type splitCounter struct{}

func (splitCounter) TermFreq(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		m[w]++
	}
	return m
}
