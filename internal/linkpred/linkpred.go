// Package linkpred holds focuscrawl's link predictors: strategies that score
// an out-link before it is fetched (URL-to-topic relevance, seed 000's "link
// prediction" module). The score becomes the link's frontier priority, so the
// crawl fetches the most promising URLs first. Each predictor is one file
// implementing Predictor, registered by name; a topic file picks one with
// strategy.link_predictor.
package linkpred

import (
	"strings"

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
}

// Parent is the page a link was found on.
type Parent struct {
	URL       string
	Relevance float64 // the page filter's score
	Relevant  bool
	Depth     int
}

// Predictor scores links. Implementations must be safe for concurrent use.
type Predictor interface {
	Name() string
	// Score returns the link's priority; higher is fetched sooner.
	Score(p Parent, l Link) float64
}

// Env is what a predictor is built from.
type Env struct {
	Model *topic.Model
	IDF   vsm.IDF
	Terms topic.TermCounter
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
