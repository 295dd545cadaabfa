package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"sync"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/decision"
	"focuscrawl/internal/modelstore"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/vsm"
)

// maxLearnPages bounds the judged pages a learning filter rebuilds from
// (a variable for tests only).
var maxLearnPages = 5000

// learnerState is how a Learner filter's state is stored (model kind
// StateKind()): the bootstrapping round it was built for and the filter's
// own bytes. A rebuild happens once per round; a retried batch finds the
// round already stored and writes nothing.
type learnerState struct {
	Round int             `json:"round"`
	State json.RawMessage `json:"state"`
	// Inputs fingerprints what State was learned from (judgedPages): a
	// round whose training pages are the same carries State over without
	// reading their parse records or learning again.
	Inputs string `json:"inputs,omitempty"`
}

// pageFilter builds the topic's page filter for one batch with everything
// it may need: topic file, lexicon and samples of the batch's model version,
// the dynamic threshold's factor, and (for learning filters) the latest
// stored state, read once so the whole batch is judged by one version.
func (a *Activities) pageFilter(ctx context.Context, lt *loadedTopic, idf vsm.IDF, factor float64) (relevance.Filter, error) {
	lex, err := a.lexiconOf(ctx, lt.Model)
	if err != nil {
		return nil, err
	}
	samples, err := a.samplesOf(ctx, lt.Model)
	if err != nil {
		return nil, err
	}
	env := relevance.Env{Model: lt.Model, IDF: idf, Topic: lt.Topic, Lexicon: lex, Terms: a.Tok, Samples: samples,
		DynamicFactor: factor}
	f, err := relevance.Build(lt.Filter, env)
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
	return relevance.Build(lt.Filter, env)
}

// learnerState reads a learning filter's latest stored state (zero: none).
func (a *Activities) learnerState(ctx context.Context, topicName, kind string) (learnerState, error) {
	var st learnerState
	_, err := modelstore.Latest(ctx, a.Store, topicName, kind, &st)
	return st, err
}

// learn rebuilds a learning filter's state when the crawl has judged another
// Every() pages since the stored round. The rebuild reads the crawl's judged
// pages in crawl order (at most maxLearnPages) with their term frequencies.
func (a *Activities) learn(ctx context.Context, f relevance.Filter, in crawlapi.BatchRef) error {
	l, ok := f.(relevance.Learner)
	if !ok {
		return nil
	}
	stats, err := a.Store.CrawlStats(ctx, in.CrawlID)
	if err != nil {
		return err
	}
	round := stats.Judged() / l.Every()
	st, err := a.learnerState(ctx, in.Topic, l.StateKind())
	if err != nil || round <= st.Round {
		return err
	}
	judged, pages, pagesFP, err := a.judgedPages(ctx, in.CrawlID)
	if err != nil {
		return err
	}
	// What else Learn depends on: the filter's parameters and sample pages
	// (the topic and model versions: update-topic makes new ones) and its
	// code and the parser's (the worker's build).
	inputs := fingerprint(pagesFP, strconv.Itoa(in.TopicVersion), strconv.Itoa(in.ModelVersion), buildRevision())
	if inputs == st.Inputs && len(st.State) > 0 {
		// Once the crawl has judged maxLearnPages pages the training set
		// stays its first ones, and only a re-judgement changes them: a
		// round every Every() judged pages rebuilt the same state from
		// the same parse records, thousands of them, for the rest of the
		// crawl. The round is recorded, the state carried over.
		return a.putLearnerState(ctx, in.Topic, l.StateKind(), learnerState{Round: round, State: st.State, Inputs: inputs})
	}
	for i := range judged {
		k := learnTFKey{in.Topic, pages[i].URLHash, pages[i].ContentHash}
		if tf, ok := a.learnTFs.get(k); ok {
			judged[i].TF = tf
			continue
		}
		rec, err := a.loadParse(ctx, store.Page{Topic: in.Topic, URLHash: pages[i].URLHash, URL: judged[i].URL})
		if err == nil {
			judged[i].TF = rec.TF
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		a.learnTFs.put(k, judged[i].TF)
	}
	data, err := l.Learn(judged)
	if err != nil {
		return fmt.Errorf("%s: learn: %w", f.Name(), err)
	}
	return a.putLearnerState(ctx, in.Topic, l.StateKind(), learnerState{Round: round, State: data, Inputs: inputs})
}

// putLearnerState stores a learning filter's state (only if its bytes
// changed) and keeps the newest keepLearnedVersions: only the latest is
// read, and a round every Every() judged pages left one behind each.
func (a *Activities) putLearnerState(ctx context.Context, topicName, kind string, st learnerState) error {
	enc, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if _, err := modelstore.PutIfChanged(ctx, a.Store, topicName, kind, enc); err != nil {
		return err
	}
	_, err = a.Store.PruneModels(ctx, topicName, kind, keepLearnedVersions)
	return err
}

// judgedPages reads the crawl's judged pages in crawl order (URL, decision,
// deciding filter, score), at most maxLearnPages, with their stored rows and
// a fingerprint of what a learner would learn from them (each page's hash,
// final URL, decision, filter, score, content and text hashes). It stops reading the crawl's
// log at the maxLearnPages-th: it read the whole log, every round, to
// keep its first pages.
// Pages rejected as keyword stuffing are left out: stored with relevance 0,
// they were the first negatives bayes took (lowest relevance first), and
// their terms are the topic's own keywords repeated thousands of times —
// one of them taught the filter that the topic's keywords are off topic.
func (a *Activities) judgedPages(ctx context.Context, crawlID string) (judged []relevance.Judged, pages []store.Page, inputs string, err error) {
	fp := sha256.New()
	err = a.Store.CrawlLog(ctx, crawlID, func(p store.Page) error {
		if len(judged) >= maxLearnPages {
			return errEnoughPages
		}
		if decision.Judged(p.Decision) && !stuffedPage(p) {
			judged = append(judged, relevance.Judged{URL: p.FinalURL, Decision: p.Decision, Filter: p.Filter, Relevance: p.Relevance})
			pages = append(pages, p)
			fmt.Fprintf(fp, "%s\x00%s\x00%s\x00%s\x00%x\x00%s\x00%s\n", p.URLHash, p.FinalURL, p.Decision, p.Filter,
				math.Float64bits(p.Relevance), p.ContentHash, p.TextHash)
		}
		return nil
	})
	if errors.Is(err, errEnoughPages) {
		err = nil
	}
	return judged, pages, hex.EncodeToString(fp.Sum(nil)), err
}

// fingerprint hashes parts, each ended by a NUL.
func fingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildRevision names the worker's build (its VCS revision and whether
// the tree was modified; "" when the binary records none, as in tests).
var buildRevision = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value
		}
	}
	return rev + " " + dirty
})

// errEnoughPages stops judgedPages' read of a crawl's log.
var errEnoughPages = errors.New("enough judged pages")

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
