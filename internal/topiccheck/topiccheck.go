// Package topiccheck validates a topic file completely: package topic
// checks its own fields, and this package adds what topic cannot know — that
// the page filter and link predictor it names exist and accept their
// parameters (packages relevance and linkpred). The worker's activities and
// the client command validate with it, so a topic file the client accepts is
// one the crawl accepts.
//
// Validation decodes the strategies' parameters (Decode); the crawl keeps
// what it decoded for every batch of the topic version, so a topic's
// parameters are read once.
package topiccheck

import (
	"errors"
	"fmt"
	"strings"

	"focuscrawl/internal/linkpred"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/topic"
)

// Decoded are a topic version's strategies as the crawl uses them: the page
// filter and link predictor with their parameters decoded, and the loop
// policy.
type Decoded struct {
	Filter    relevance.Strategy
	Predictor linkpred.Strategy
	Loop      relevance.LoopPolicy
	// LearnsLinks: the predictor reads the learned link model, so the crawl
	// runs LearnLinkModel.
	LearnsLinks bool
}

// UnusedLexicon returns a note when t names a lexicon that neither its page
// filter nor its link predictor reads ("" otherwise, or when t's strategies
// do not decode): a topic author who writes lexicon: with the default vsm
// and best-first gets no expansion, and nothing said so.
func UnusedLexicon(t *topic.Topic) string {
	if t.Lexicon == "" {
		return ""
	}
	d, err := Decode(t)
	if err != nil || relevance.ReadsLexicon(d.Filter) || linkpred.ReadsLexicon(d.Predictor) {
		return ""
	}
	return fmt.Sprintf("lexicon %s is not used: only the semantic page filter and the rw, rwb and ipagerank link predictors read a lexicon, and this topic's are %s and %s",
		t.Lexicon, d.Filter.Name(), d.Predictor.Name())
}

// Parse parses a topic file and checks its strategies; the error names the
// bad field.
func Parse(yamlText []byte) (*topic.Topic, error) {
	t, _, err := ParseDecoded(yamlText)
	return t, err
}

// ParseDecoded is Parse that also returns the decoded strategies.
func ParseDecoded(yamlText []byte) (*topic.Topic, Decoded, error) {
	t, err := topic.ParsePartial(yamlText)
	if err != nil {
		if t != nil {
			// The fields failed, but the strategies named can be checked
			// too: one report, not a second round after the first is fixed.
			err = errors.Join(err, namedStrategies(t, err.Error()))
		}
		return nil, Decoded{}, err
	}
	d, err := Decode(t)
	if err == nil {
		err = newFileRules(t)
	}
	if err != nil {
		return nil, Decoded{}, err
	}
	return t, d, nil
}

// newFileRules are checks a topic file meets when it is given, not when a
// stored version is loaded again: a rule added later must not make a
// crawl's stored topic unloadable.
func newFileRules(t *topic.Topic) error {
	// An explicit floor where none is computed would silently do nothing
	// (relevance.SampleFloor: split acceptance, the vsm page filter).
	if s := t.Strategy; s.SampleFloor != nil && *s.SampleFloor > 0 {
		switch {
		case s.PageFilter.Name != "vsm":
			return fmt.Errorf("strategy.sample_floor needs the vsm page filter (the topic's page filter is %s)", s.PageFilter.Name)
		case s.AcceptMode() != topic.AcceptSplit:
			return fmt.Errorf("strategy.sample_floor is read only by split acceptance: it needs strategy.accept: split (the topic's is %s)", s.AcceptMode())
		}
	}
	return nil
}

// namedStrategies is Decode's check of the page filter and link predictor
// that a topic whose other fields failed validation names. A strategy the
// field errors (fieldErrs) already name — a NaN parameter — or an empty
// name is left to them: one problem, one line.
func namedStrategies(t *topic.Topic, fieldErrs string) error {
	var errs []error
	if s := t.Strategy.PageFilter; s.Name != "" && !strings.Contains(fieldErrs, "strategy.page_filter") {
		_, err := relevance.Decode(s)
		errs = append(errs, err)
	}
	if s := t.Strategy.LinkPredictor; s.Name != "" && !strings.Contains(fieldErrs, "strategy.link_predictor") {
		_, err := linkpred.Decode(s)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Strategies checks that t's page filter and link predictor are registered
// and accept their parameters, and that a dynamic threshold has a filter
// threshold to move.
func Strategies(t *topic.Topic) error {
	_, err := Decode(t)
	return err
}

// Decode checks and decodes t's strategies (see Strategies).
func Decode(t *topic.Topic) (Decoded, error) {
	f, ferr := relevance.Decode(t.Strategy.PageFilter)
	p, perr := linkpred.Decode(t.Strategy.LinkPredictor)
	if err := errors.Join(ferr, perr); err != nil {
		return Decoded{}, err
	}
	if t.Strategy.DynamicThreshold.Enabled {
		if _, err := relevance.BaseThreshold(f, t); err != nil {
			return Decoded{}, err
		}
	}
	if s := t.Strategy; s.Promote != nil && *s.Promote && (s.AcceptMode() != topic.AcceptSplit || !s.Rejudging()) {
		return Decoded{}, errors.New("strategy.promote: true is read only by re-judgement: it needs strategy.accept: split and strategy.rejudge (not false)")
	}
	if s := t.Strategy; s.FeedbackOn() {
		// Feedback re-judgement extends the vsm cosine and runs as the final
		// re-judgement of split acceptance: asked for without them it would
		// silently do nothing.
		switch {
		case !relevance.FeedbackApplies(f):
			return Decoded{}, fmt.Errorf("strategy.feedback: true needs the vsm page filter with tfidf weighting (the topic's page filter is %s)", f.Name())
		case s.AcceptMode() != topic.AcceptSplit:
			return Decoded{}, fmt.Errorf("strategy.feedback: true needs strategy.accept: split (the topic's is %s)", s.AcceptMode())
		case !s.Rejudging():
			return Decoded{}, errors.New("strategy.feedback: true needs re-judgement (the topic has strategy.rejudge: false)")
		}
	}
	return Decoded{Filter: f, Predictor: p, Loop: relevance.LoopPolicyOf(t), LearnsLinks: linkpred.ReadsLinkModel(p)}, nil
}
