package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/vsm"
)

// maxLearnPages bounds the judged pages a learning filter rebuilds from.
const maxLearnPages = 5000

// learnerState is how a Learner filter's state is stored (model kind
// StateKind()): the bootstrapping round it was built for and the filter's
// own bytes. A rebuild happens once per round; a retried batch finds the
// round already stored and writes nothing.
type learnerState struct {
	Round int             `json:"round"`
	State json.RawMessage `json:"state"`
}

// pageFilter builds the topic's page filter for one batch with everything
// it may need: topic file, lexicon and samples of the batch's model version,
// and (for learning filters) the latest stored state, read once so the
// whole batch is judged by one version.
func (a *Activities) pageFilter(ctx context.Context, lt *loadedTopic, idf vsm.IDF) (relevance.Filter, error) {
	lex, err := a.lexiconOf(ctx, lt.Model)
	if err != nil {
		return nil, err
	}
	samples, err := a.samplesOf(ctx, lt.Model)
	if err != nil {
		return nil, err
	}
	env := relevance.Env{Model: lt.Model, IDF: idf, Topic: lt.Topic, Lexicon: lex, Terms: a.Tok, Samples: samples}
	spec := lt.Topic.Strategy.PageFilter
	f, err := relevance.New(spec, env)
	if err != nil {
		return nil, err
	}
	l, ok := f.(relevance.Learner)
	if !ok {
		return f, nil
	}
	st, err := a.learnerState(ctx, lt.Topic.Name, l.StateKind())
	if err != nil || len(st.State) == 0 {
		return f, err
	}
	env.State = st.State
	return relevance.New(spec, env)
}

func (a *Activities) learnerState(ctx context.Context, topicName, kind string) (learnerState, error) {
	data, _, err := a.Store.Model(ctx, topicName, kind, 0)
	if errors.Is(err, store.ErrNotFound) {
		return learnerState{}, nil
	} else if err != nil {
		return learnerState{}, err
	}
	var st learnerState
	if err := json.Unmarshal(data, &st); err != nil {
		return learnerState{}, fmt.Errorf("stored %s state of %s: %w", kind, topicName, err)
	}
	return st, nil
}

// learn rebuilds a learning filter's state when the crawl has judged another
// Every() pages since the stored round. The rebuild reads the crawl's judged
// pages in crawl order (at most maxLearnPages) with their term frequencies.
func (a *Activities) learn(ctx context.Context, f relevance.Filter, in BatchRef) error {
	l, ok := f.(relevance.Learner)
	if !ok {
		return nil
	}
	stats, err := a.Store.CrawlStats(ctx, in.CrawlID)
	if err != nil {
		return err
	}
	round := (stats.Accepted + stats.Rejected + stats.Tunnel) / l.Every()
	st, err := a.learnerState(ctx, in.Topic, l.StateKind())
	if err != nil || round <= st.Round {
		return err
	}
	var judged []relevance.Judged
	var hashes []string
	err = a.Store.CrawlLog(ctx, in.CrawlID, func(p store.Page) error {
		switch p.Decision {
		case store.DecisionAccepted, store.DecisionRejected, store.DecisionTunnel:
		default:
			return nil
		}
		if len(judged) >= maxLearnPages {
			return nil
		}
		judged = append(judged, relevance.Judged{URL: p.FinalURL, Decision: p.Decision, Filter: p.Filter, Relevance: p.Relevance})
		hashes = append(hashes, p.URLHash)
		return nil
	})
	if err != nil {
		return err
	}
	for i := range judged {
		rec, err := a.loadParse(ctx, store.Page{Topic: in.Topic, URLHash: hashes[i], URL: judged[i].URL})
		if err == nil {
			judged[i].TF = rec.TF
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	data, err := l.Learn(judged)
	if err != nil {
		return fmt.Errorf("%s: learn: %w", f.Name(), err)
	}
	enc, err := json.Marshal(learnerState{Round: round, State: data})
	if err != nil {
		return err
	}
	_, err = a.putModelIfChanged(ctx, in.Topic, l.StateKind(), enc)
	return err
}

// verdictPage builds what a filter sees of a parsed page.
func (a *Activities) verdictPage(f relevance.Filter, p store.Page, rec *parseRecord) *relevance.Page {
	rp := &relevance.Page{URL: p.FinalURL, Title: rec.Doc.Title, TF: rec.TF}
	if _, ok := f.(relevance.Positional); ok {
		rp.AnchorTF = a.Tok.TermFreq(rec.Doc.Anchor)
		rp.EmphasisTF = a.Tok.TermFreq(rec.Doc.Emphasis)
		rp.OtherTF = a.Tok.TermFreq(rec.Doc.Other)
	}
	return rp
}

// loopDecision applies the loop policy to a filter verdict: the accepted /
// rejected decision, seed 000's tunnelling of below-threshold pages, and
// seed 002's target-vs-hub note when detail_page is on.
func loopDecision(t *topic.Topic, v relevance.Verdict, p store.Page, rec *parseRecord) (string, string) {
	reason := v.Reason
	if !v.Relevant {
		if relevance.KeepAsTunnel(t.Strategy.Tunnel, t.Strategy.Seed, p.URLHash) {
			return store.DecisionTunnel, reason + fmt.Sprintf("; kept as tunnel (p %.2f)", t.Strategy.Tunnel)
		}
		if t.Strategy.DetailPage {
			reason += "; irrelevant: not expanded"
		}
		return store.DecisionRejected, reason
	}
	if t.Strategy.DetailPage {
		_, why := relevance.IsDetailPage(pageShape(rec))
		if isTarget(t, rec) {
			return store.DecisionAccepted, reason + "; " + why + ": stored, not expanded"
		}
		return store.DecisionAccepted, reason + "; " + why + ": expanded"
	}
	return store.DecisionAccepted, reason
}

// isTarget reports whether detail_page is on and the page is a target page
// (stored but not expanded). PredictLinks recomputes it from the stored
// parse record, which is deterministic, instead of storing a flag.
func isTarget(t *topic.Topic, rec *parseRecord) bool {
	if !t.Strategy.DetailPage || rec == nil || rec.Doc == nil {
		return false
	}
	d, _ := relevance.IsDetailPage(pageShape(rec))
	return d
}

func pageShape(rec *parseRecord) relevance.PageShape {
	// Words are approximated without the tokenizer: whitespace fields for
	// Latin text, CJK runes / 2 (a typical Chinese word length) for Chinese.
	words := func(s string) int {
		f := len(strings.Fields(s))
		cjk := 0
		for _, r := range s {
			if r >= 0x4e00 && r <= 0x9fff {
				cjk++
			}
		}
		return max(f, cjk/2)
	}
	all := words(rec.Doc.Text)
	plain := all - words(rec.Doc.Anchor)
	return relevance.PageShape{PlainWords: max(plain, 0), TotalWords: all, Links: len(rec.Doc.Links)}
}

// expandableUnderPolicy applies seed 002's loop policy when the topic sets
// strategy.detail_page: a rejected page is not expanded, an accepted target
// page is stored but not expanded, an accepted hub page and a tunnel page are
// expanded. Without detail_page every judged page is expanded.
//
// With strategy.tunnel > 0 rejected pages are not expanded either: the
// tunnel draw decides which of them still are (decision "tunnel"); without
// it the foundation's policy of expanding every judged page would make
// tunnelling meaningless.
func expandableUnderPolicy(t *topic.Topic, p store.Page, rec *parseRecord) bool {
	if p.Decision == store.DecisionRejected && t.Strategy.Tunnel > 0 {
		return false
	}
	if !t.Strategy.DetailPage {
		return true
	}
	switch p.Decision {
	case store.DecisionRejected:
		return false
	case store.DecisionAccepted:
		return !isTarget(t, rec)
	}
	return true
}
