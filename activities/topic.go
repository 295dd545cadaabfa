package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/modelstore"
	"focuscrawl/internal/topic"
	"focuscrawl/lexicons"
)

// UpdateTopic stores a new version of a running crawl's topic ("variable
// topic", seed 000) with its compiled model, sample pages and lexicon, and
// records it on the crawl. The workflow passes the returned versions to the
// batches it starts afterwards; batches in flight finish with the old ones.
func (a *Activities) UpdateTopic(ctx context.Context, in crawlapi.UpdateTopicInput) (crawlapi.UpdateTopicResult, error) {
	t, err := ValidateTopic([]byte(in.TopicYAML))
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	if t.Name != in.Topic {
		return crawlapi.UpdateTopicResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("update-topic: the new file names topic %q, the crawl is of %q", t.Name, in.Topic), crawlapi.ErrBadInput, nil)
	}
	if err := a.checkTerms(t); err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	version, err := a.Store.PutTopic(ctx, t.Name, []byte(in.TopicYAML))
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	mv, _, err := a.buildModel(ctx, t, version)
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	if err := a.Store.SetCrawlTopicVersion(ctx, in.CrawlID, version); err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	a.Log.Info("topic updated", "crawl", in.CrawlID, "topic", t.Name, "version", version, "model", mv)
	return crawlapi.UpdateTopicResult{TopicVersion: version, ModelVersion: mv}, nil
}

// buildModel fetches the topic's sample pages, loads its lexicon, stores
// both as versioned models and compiles the topic model that points at
// them. It returns the model version and the number of usable samples.
func (a *Activities) buildModel(ctx context.Context, t *topic.Topic, version int) (int, int, error) {
	var lexVersion int
	if t.Lexicon != "" {
		lex, err := lexicons.Resolve(a.CrawlCfg.LexiconDir, t.Lexicon)
		if err != nil {
			return 0, 0, temporal.NewNonRetryableApplicationError("topic lexicon: "+err.Error(), crawlapi.ErrInvalidTopic, err)
		}
		if lexVersion, err = modelstore.PutIfChanged(ctx, a.Store, t.Name, lexicon.ModelKind, lex.Encode()); err != nil {
			return 0, 0, err
		}
	}
	// Samples are fetched politely (sampleTexts): a slow host's delays and
	// a slow page can outlast the heartbeat timeout between two samples.
	stop := heartbeatEvery(ctx, 2*time.Second, func() any { return "fetching sample pages" })
	pos := a.sampleDocs(ctx, t.Samples)
	neg := a.sampleDocs(ctx, t.NegativeSamples)
	stop()
	texts := make([]string, len(pos))
	samples := &topic.Samples{}
	for i, d := range pos {
		texts[i] = d.text
		samples.Positive = append(samples.Positive, topic.SampleDoc{URL: d.url, TF: a.Tok.TermFreq(d.text)})
	}
	for _, d := range neg {
		samples.Negative = append(samples.Negative, topic.SampleDoc{URL: d.url, TF: a.Tok.TermFreq(d.text)})
	}
	var samplesVersion int
	if len(pos)+len(neg) > 0 {
		data, err := json.Marshal(samples)
		if err != nil {
			return 0, 0, err
		}
		if samplesVersion, err = modelstore.PutIfChanged(ctx, a.Store, t.Name, topic.SamplesKind, data); err != nil {
			return 0, 0, err
		}
	}
	model := topic.BuildModel(t, version, a.Tok, texts)
	if len(model.Terms) == 0 {
		// Stored, the model would fail every slice of the crawl, retried
		// without end ("topic model has no terms"); checkTerms caught the
		// files that give no terms without samples.
		return 0, 0, noTermsError(fmt.Sprintf("and none of its %d sample pages could be fetched and read", len(t.Samples)))
	}
	model.LexiconVersion, model.SamplesVersion = lexVersion, samplesVersion
	data, err := model.Encode()
	if err != nil {
		return 0, 0, err
	}
	mv, err := modelstore.PutIfChanged(ctx, a.Store, t.Name, topic.ModelKind, data)
	return mv, len(pos), err
}

// checkTerms refuses, before anything is stored, a topic without sample
// pages whose keywords and description give the topic model no term: every
// word a stop word ("the", "的"), punctuation or a symbol. topic.Parse
// cannot tell, since only the tokenizer knows its stop words. A topic with
// samples is judged once they are fetched (buildModel).
func (a *Activities) checkTerms(t *topic.Topic) error {
	if len(t.Samples) > 0 || len(topic.BuildModel(t, 0, a.Tok, nil).Terms) > 0 {
		return nil
	}
	return noTermsError("and it names no sample pages")
}

// noTermsError is the non-retryable invalid-topic error of a topic that
// gives its model no term; why says what else had none.
func noTermsError(why string) error {
	msg := "invalid topic file: the topic gives no term to judge pages by: its keywords and description hold only stop words, punctuation or symbols, " + why
	return temporal.NewNonRetryableApplicationError(msg, crawlapi.ErrInvalidTopic, nil)
}

type sampleDoc struct{ url, text string }

// sampleDocs fetches and parses sample pages (sampleTexts with URLs).
func (a *Activities) sampleDocs(ctx context.Context, urls []string) []sampleDoc {
	var out []sampleDoc
	for _, u := range urls {
		if texts := a.sampleTexts(ctx, []string{u}); len(texts) == 1 {
			out = append(out, sampleDoc{u, texts[0]})
		}
	}
	return out
}

// lexiconOf returns the lexicon a topic model names (nil when it names
// none), decoded once per version (internal/modelstore).
func (a *Activities) lexiconOf(ctx context.Context, m *topic.Model) (*lexicon.Lexicon, error) {
	if m.LexiconVersion == 0 {
		return nil, nil
	}
	return modelstore.Load(ctx, &a.models, a.Store, m.Name, lexicon.ModelKind, m.LexiconVersion, lexicon.Decode)
}

// samplesOf returns a topic model's sample pages (nil when there are none),
// decoded once per version.
func (a *Activities) samplesOf(ctx context.Context, m *topic.Model) (*topic.Samples, error) {
	if m.SamplesVersion == 0 {
		return nil, nil
	}
	return modelstore.Load(ctx, &a.models, a.Store, m.Name, topic.SamplesKind, m.SamplesVersion, topic.DecodeSamples)
}
