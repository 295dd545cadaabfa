// Package relevance holds focuscrawl's page filters: strategies that judge
// how relevant a fetched page is to the crawl's topic (page-to-topic
// relevance, seed 000's "page filtering" module). Each filter is one file
// implementing Filter, registered by name; a topic file picks one with
// strategy.page_filter.
package relevance

import (
	"fmt"
	"math"

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
	Terms topic.TermCounter
	// Samples are the topic's sample pages' term frequencies; may be nil.
	Samples *topic.Samples
	// State is the latest stored state of a Learner filter (nil if none).
	State []byte
	// DynamicFactor scales the filter's threshold: the dynamic threshold
	// controller's current factor (dynamic.go); 0 or 1 leaves it alone.
	DynamicFactor float64
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

// Strategy is a page-filter spec decoded once, when its topic file is
// validated (Decode): the filter's name and its typed parameters. A crawl
// builds the filter from it for every batch (Build).
type Strategy = registry.Strategy[Filter]

var strategies = registry.New[Filter, Env]("strategy.page_filter", func(env Env) Env {
	if env.IDF == nil {
		env.IDF = vsm.Flat
	}
	if env.Model == nil {
		env.Model = &topic.Model{Terms: map[string]float64{"placeholder": 1}}
	}
	return env
})

// register makes a filter available by name: decode checks and decodes a
// spec's parameters into P, build makes the filter from them. It panics on
// duplicates, which are programming errors.
func register[P any](name string, decode func(topic.Spec) (P, error), build func(P, Env) (Filter, error)) {
	registry.Register(strategies, name, decode, build)
}

// Decode checks and decodes a page-filter spec (registry.Registry.Decode).
func Decode(spec topic.Spec) (Strategy, error) { return strategies.Decode(spec) }

// ReadsLexicon reports whether the page filter s names reads the topic's
// relatedness lexicon (Env.Lexicon): only semantic does.
func ReadsLexicon(s Strategy) bool {
	_, ok := s.Params().(SemanticParams)
	return ok
}

// Build makes the filter s names for one batch's environment.
func Build(s Strategy, env Env) (Filter, error) { return strategies.Build(s, env) }

// New decodes spec and builds its filter, for tools and tests.
func New(spec topic.Spec, env Env) (Filter, error) { return strategies.New(spec, env) }

// Check validates a page-filter spec (name and parameters).
func Check(spec topic.Spec) error { return strategies.Check(spec) }

// Names lists the registered filters.
func Names() []string { return strategies.Names() }

// checkParams rejects parameters a filter does not know, naming them.
func checkParams(spec topic.Spec, known ...string) error {
	return strategies.CheckParams(spec, known...)
}

// thresholdParam reads an optional "threshold" parameter in [0,1]; nil when
// the topic file leaves it out.
func thresholdParam(spec topic.Spec) (*float64, error) {
	if _, ok := spec.Params["threshold"]; !ok {
		return nil, nil
	}
	th, err := spec.Float("threshold", 0)
	if err != nil {
		return nil, err
	}
	if th < 0 || th > 1 {
		return nil, fmt.Errorf("strategy.page_filter %s: threshold %v must be in [0,1]", spec.Name, th)
	}
	return &th, nil
}

// orDefault is a filter's base threshold: the one its topic file gives,
// else def scaled by the topic's breadth (seed 000: broad topics lower,
// specific raise).
func orDefault(th *float64, def float64, t *topic.Topic) float64 {
	if th != nil {
		return *th
	}
	return def * t.ThresholdFactor()
}

// learnerParams is implemented by the parameters of Learner filters, so a
// decoded strategy says whether its filter learns before it is built.
type learnerParams interface{ learner() }

// thresholded is implemented by the parameters of filters that accept at a
// threshold, the one the dynamic threshold controller scales.
type thresholded interface {
	baseThreshold(t *topic.Topic) float64
}

// BaseThreshold is the acceptance threshold of the filter s names without
// the dynamic controller: its "threshold" parameter, else the filter's
// default scaled by the topic's breadth. For url-template it is the content
// fallback's threshold (URL matching keeps its r). A filter without a
// threshold is an error: the controller has nothing to scale.
func BaseThreshold(s Strategy, t *topic.Topic) (float64, error) {
	p, ok := s.Params().(thresholded)
	if !ok {
		return 0, fmt.Errorf("strategy.dynamic_threshold: page filter %s has no known threshold", s.Name())
	}
	return p.baseThreshold(t), nil
}

// threshold is the threshold a filter built in env accepts at: the base
// threshold times the dynamic controller's factor (Env.DynamicFactor),
// clamped to [0,1].
func threshold(name string, p thresholded, env Env) (float64, error) {
	th := p.baseThreshold(env.Topic)
	if f := env.DynamicFactor; f != 0 && f != 1 {
		th = math.Min(math.Max(th*f, 0), 1)
	}
	if th < 0 || th > 1 {
		return 0, fmt.Errorf("strategy.page_filter %s: threshold %v must be in [0,1]", name, th)
	}
	return th, nil
}
