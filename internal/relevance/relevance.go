// Package relevance holds focuscrawl's page filters: strategies that judge
// how relevant a fetched page is to the crawl's topic (page-to-topic
// relevance, seed 000's "page filtering" module). Each filter is one file
// implementing Filter, registered by name; a topic file picks one with
// strategy.page_filter.
package relevance

import (
	"fmt"

	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/registry"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// Page is what a filter sees of a parsed page. Term frequencies are computed
// once by the caller with the project's tokenizer.
type Page struct {
	URL   string
	Title string
	// TF counts the terms of the title and the visible text.
	TF map[string]int
	// Position-class term frequencies (seed 001): anchor text, emphasised
	// text (title, h1, h2, strong, b) and other text. Filled by the caller
	// only for filters that implement Positional.
	AnchorTF, EmphasisTF, OtherTF map[string]int
}

// Positional is implemented by filters that need a page's position-class
// term frequencies (Page.AnchorTF, EmphasisTF, OtherTF).
type Positional interface {
	Filter
	Positional()
}

// Verdict is a filter's judgement of one page.
type Verdict struct {
	Score    float64 // relevance in [0,1]
	Relevant bool    // Score reached the filter's threshold
	Reason   string  // short explanation for the crawl log
	// Decider names the filter that actually decided when a filter
	// delegated (url-template's content fallback, a learner's cold start);
	// "" means the filter itself.
	Decider string
}

// Filter judges pages. Implementations must be safe for concurrent use.
type Filter interface {
	Name() string
	Judge(p *Page) Verdict
}

// Env is what a filter is built from: the compiled topic and the current
// IDF of the topic's collection.
type Env struct {
	Model *topic.Model
	IDF   vsm.IDF
	// Topic is the topic file (breadth, keywords); nil in Check.
	Topic *topic.Topic
	// Lexicon is the topic's relatedness lexicon; nil when it names none.
	Lexicon *lexicon.Lexicon
	// Terms tokenizes text (lexicon phrases); textproc.Tokenizer in production.
	Terms Tokenizer
	// Samples are the topic's sample pages' term frequencies; may be nil.
	Samples *topic.Samples
	// State is the latest stored state of a Learner filter (nil if none).
	State []byte
}

// Tokenizer splits text into terms (textproc.Tokenizer).
type Tokenizer interface {
	Tokens(text string) []string
}

// Learner is a filter with state beyond one page (bayes, sample-rank,
// url-template). Its state lives in the crawl store as model kind
// StateKind(), versioned; every batch reads one version (Env.State) and,
// every Every() judged pages, the caller rebuilds it with Learn from the
// crawl's judged pages. Learn must be a pure function of its inputs, so a
// retried or repeated rebuild writes the same bytes.
type Learner interface {
	Filter
	StateKind() string
	Every() int
	Learn(judged []Judged) ([]byte, error)
}

// Judged is a page the crawl has already judged, as Learn sees it.
type Judged struct {
	URL       string
	Decision  string // store.Decision* value
	Filter    string // the filter that decided
	Relevance float64
	TF        map[string]int
}

// threshold reads the "threshold" parameter; when absent it is def scaled by
// the topic's breadth factor (seed 000: broad topics lower, specific raise).
func threshold(spec topic.Spec, env Env, def float64) (float64, error) {
	th, err := spec.Float("threshold", def*env.Topic.ThresholdFactor())
	if err != nil {
		return 0, err
	}
	if th < 0 || th > 1 {
		return 0, fmt.Errorf("strategy.page_filter %s: threshold %v must be in [0,1]", spec.Name, th)
	}
	return th, nil
}

// Factory builds a filter from its spec (name + parameters).
type Factory func(spec topic.Spec, env Env) (Filter, error)

var strategies = registry.New[Filter, Env]("strategy.page_filter")

// Register makes a strategy available by name. It panics on duplicates,
// which are programming errors.
func Register(name string, f Factory) { strategies.Register(name, f) }

// New builds the filter a spec names.
func New(spec topic.Spec, env Env) (Filter, error) {
	if env.IDF == nil {
		env.IDF = vsm.Flat
	}
	if env.Model == nil {
		env.Model = &topic.Model{Terms: map[string]float64{"placeholder": 1}}
	}
	return strategies.Build(spec, env)
}

// Check validates a spec (name and parameters) without a real topic model,
// so a bad topic file fails before a crawl starts.
func Check(spec topic.Spec) error {
	_, err := New(spec, Env{})
	return err
}

// Names lists the registered filters.
func Names() []string { return strategies.Names() }

// checkParams rejects parameters a filter does not know, naming them.
func checkParams(spec topic.Spec, known ...string) error {
	return strategies.CheckParams(spec, known...)
}
