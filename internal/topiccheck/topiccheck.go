// Package topiccheck validates a topic file completely: package topic
// checks its own fields, and this package adds what topic cannot know — that
// the page filter and link predictor it names exist and accept their
// parameters (packages relevance and linkpred). The worker's activities and
// the client command validate with it, so a topic file the client accepts is
// one the crawl accepts.
package topiccheck

import (
	"errors"

	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/topic"
)

// Parse parses a topic file and checks its strategies; the error names the
// bad field.
func Parse(yamlText []byte) (*topic.Topic, error) {
	t, err := topic.Parse(yamlText)
	if err != nil {
		return nil, err
	}
	if err := Strategies(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Strategies checks that t's page filter and link predictor are registered
// and accept their parameters, and that a dynamic threshold has a filter
// threshold to move.
func Strategies(t *topic.Topic) error {
	if err := errors.Join(relevance.Check(t.Strategy.PageFilter), linkpred.Check(t.Strategy.LinkPredictor)); err != nil {
		return err
	}
	if t.Strategy.DynamicThreshold.Enabled {
		_, err := relevance.BaseThreshold(t.Strategy.PageFilter, t)
		return err
	}
	return nil
}
