// Package relevance holds focuscrawl's page filters: strategies that judge
// how relevant a fetched page is to the crawl's topic (page-to-topic
// relevance, seed 000's "page filtering" module). Each filter is one file
// implementing Filter, registered by name; a topic file picks one with
// strategy.page_filter.
package relevance

import (

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
}

// Verdict is a filter's judgement of one page.
type Verdict struct {
	Score    float64 // relevance in [0,1]
	Relevant bool    // Score reached the filter's threshold
	Reason   string  // short explanation for the crawl log
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
