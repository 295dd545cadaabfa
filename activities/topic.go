package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/lexicon"
	"focuscrawl/internal/modelstore"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/urlnorm"
	"focuscrawl/lexicons"
)

// UpdateTopic stores a new version of a running crawl's topic ("variable
// topic", seed 000) with its compiled model, sample pages and lexicon, and
// records it on the crawl. The workflow passes the returned versions to the
// batches it starts afterwards; batches in flight finish with the old ones.
// The rest of the file takes effect as a crawl's start gives it effect: its
// seeds are queued (those the crawl knows are not added again, so a retry
// or a repeated file adds nothing), its sitemaps are read for the seed
// hosts the crawl's previous version did not read (updateSitemaps), and
// its page budget and learning cadence are returned for the workflow.
func (a *Activities) UpdateTopic(ctx context.Context, in crawlapi.UpdateTopicInput) (crawlapi.UpdateTopicResult, error) {
	defer beatThroughout(ctx, "updatetopic")()
	t, strat, err := validateTopic([]byte(in.TopicYAML))
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	if t.Name != in.Topic {
		return crawlapi.UpdateTopicResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("update-topic: the new file names topic %q, the crawl is of %q", t.Name, in.Topic), crawlapi.ErrBadInput, nil)
	}
	// Prepared first: a refused file is never stored as the topic's latest
	// version (a later refresh would run it with the previous model).
	inputs, err := a.prepareModel(ctx, t)
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	version, err := a.Store.PutTopic(ctx, t.Name, []byte(in.TopicYAML))
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	mv, _, err := a.buildModel(ctx, t, version, inputs)
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	seeded, err := a.enqueueSeeds(ctx, in.CrawlID, t, t.Seeds)
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	fromSitemaps, err := a.updateSitemaps(ctx, in, t, version, mv)
	if err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	// The crawl's row takes the new version last, once nothing after can
	// fail: a slice ends when its version is not the row's, and a failed
	// update leaves the workflow on the old version (it records the
	// error and goes on). Written first, a failure in the seeding or the
	// sitemaps left every later slice ending before its first claim,
	// relaunched again and again — a crawl that made no progress.
	if err := a.Store.SetCrawlTopicVersion(ctx, in.CrawlID, version); err != nil {
		return crawlapi.UpdateTopicResult{}, err
	}
	a.Log.Info("topic updated", "crawl", in.CrawlID, "topic", t.Name, "version", version, "model", mv,
		"seeded", seeded, "sitemap_urls", fromSitemaps, "max_pages", t.Limits.MaxPages)
	return crawlapi.UpdateTopicResult{TopicVersion: version, ModelVersion: mv,
		MaxPages: t.Limits.MaxPages, LearnEvery: a.learnEvery(strat), Seeded: seeded, SitemapURLs: fromSitemaps,
		Notes: inputs.notes}, nil
}

// updateSitemaps reads, for a topic update with sitemaps on, the sitemaps
// of the seed hosts whose sitemaps the crawl's previous version
// (in.FromVersion) did not read — every seed host when it had sitemaps off,
// else those new to the file or to its scope — and returns the entries it
// queued. A host read before is not read again: each reading queues up to
// sitemaps.max_urls entries new to the crawl, so every update would add as
// many again. Nothing is read for the version the crawl has (the same file
// sent again) or when the previous version is unknown (FromVersion 0).
func (a *Activities) updateSitemaps(ctx context.Context, in crawlapi.UpdateTopicInput, t *topic.Topic, version, mv int) (int, error) {
	if !t.Sitemaps.Enabled || in.FromVersion <= 0 || in.FromVersion == version {
		return 0, nil
	}
	rec, err := a.Store.Topic(ctx, t.Name, in.FromVersion)
	if err != nil {
		return 0, fmt.Errorf("update-topic: load the crawl's previous topic version %d: %w", in.FromVersion, err)
	}
	read := map[string]bool{} // seed hosts whose sitemaps were read
	if old, err := topic.ParseStored(rec.YAML); err == nil && old.Sitemaps.Enabled {
		for _, s := range old.Seeds {
			if root, ok := rootOf(s); ok && old.InScope(urlnorm.Host(root)) {
				read[urlnorm.Host(root)] = true
			}
		}
	}
	unread := *t
	unread.Seeds = nil
	for _, s := range t.Seeds {
		if root, ok := rootOf(s); ok && !read[urlnorm.Host(root)] {
			unread.Seeds = append(unread.Seeds, s)
		}
	}
	if len(unread.Seeds) == 0 {
		return 0, nil
	}
	lt, err := a.loadTopic(ctx, t.Name, version, mv)
	if err != nil {
		return 0, err
	}
	return a.discoverSitemaps(ctx, in.CrawlID, &unread, lt.Model)
}

// modelInputs is what a topic's model is built from, gathered before
// anything of the topic is stored (prepareModel): a topic refused for its
// lexicon or for giving no term is refused without a stored version.
type modelInputs struct {
	lex      *lexicon.Lexicon // nil when the topic names none
	pos, neg []sampleDoc
	model    *topic.Model // compiled with version 0; buildModel sets it
	notes    []string     // for the operator: what of the file the model leaves out (termlessKeywords)
}

// prepareModel resolves the topic's lexicon, fetches its sample pages and
// compiles its model, storing nothing. A topic whose model has no term is
// refused: for good when it names no sample page (checkTerms), retryably
// when its samples could not be fetched — a sample host down for a minute,
// a store blip while booking its politeness slot, a worker shutting down —
// so the start's retries apply before the crawl fails.
func (a *Activities) prepareModel(ctx context.Context, t *topic.Topic) (*modelInputs, error) {
	if err := a.checkTerms(t); err != nil {
		return nil, err
	}
	in := &modelInputs{}
	if note := a.termlessKeywords(t); note != "" {
		in.notes = append(in.notes, note)
		a.Log.Warn("topic keywords give no term", "topic", t.Name, "note", note)
	}
	if t.Lexicon != "" {
		lex, err := lexicons.Resolve(a.CrawlCfg.LexiconDir, t.Lexicon)
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError("topic lexicon: "+err.Error(), crawlapi.ErrInvalidTopic, err)
		}
		in.lex = lex
	}
	// Samples are fetched politely (sampleTexts): a slow host's delays and
	// a slow page can outlast the heartbeat timeout between two samples.
	stop := heartbeatEvery(ctx, 2*time.Second, func() any { return "fetching sample pages" })
	// Their waits for hosts' pauses share one deadline (sampleHoldWait).
	wctx, cancel := context.WithTimeout(ctx, sampleHoldWait)
	defer cancel()
	in.pos = a.sampleDocs(ctx, wctx, t.Samples)
	in.neg = a.sampleDocs(ctx, wctx, t.NegativeSamples)
	stop()
	if err := ctx.Err(); err != nil {
		return nil, err // samples lost to a cancellation say nothing about the topic
	}
	texts := make([]string, len(in.pos))
	for i, d := range in.pos {
		texts[i] = d.text
	}
	in.model = topic.BuildModel(t, 0, a.Tok, texts)
	if len(in.model.Terms) == 0 {
		// Stored, the model would fail every slice of the crawl, retried
		// without end ("topic model has no terms").
		return nil, fmt.Errorf("topic %s gives no term to judge pages by: its keywords and description hold only stop words, punctuation or symbols, and none of its %d sample pages could be fetched and read (retried: a sample host may be down)", t.Name, len(t.Samples))
	}
	return in, nil
}

// buildModel stores a prepared topic's lexicon and sample pages as
// versioned models and its model, compiled for topic version version, that
// points at them. It returns the model version and the number of usable
// samples.
func (a *Activities) buildModel(ctx context.Context, t *topic.Topic, version int, in *modelInputs) (int, int, error) {
	var lexVersion int
	if in.lex != nil {
		var err error
		if lexVersion, err = modelstore.PutIfChanged(ctx, a.Store, t.Name, lexicon.ModelKind, in.lex.Encode()); err != nil {
			return 0, 0, err
		}
	}
	samples := &topic.Samples{}
	for _, d := range in.pos {
		samples.Positive = append(samples.Positive, topic.SampleDoc{URL: d.url, TF: a.Tok.TermFreq(d.text)})
	}
	for _, d := range in.neg {
		samples.Negative = append(samples.Negative, topic.SampleDoc{URL: d.url, TF: a.Tok.TermFreq(d.text)})
	}
	var samplesVersion int
	if len(in.pos)+len(in.neg) > 0 {
		data, err := json.Marshal(samples)
		if err != nil {
			return 0, 0, err
		}
		if samplesVersion, err = modelstore.PutIfChanged(ctx, a.Store, t.Name, topic.SamplesKind, data); err != nil {
			return 0, 0, err
		}
	}
	model := *in.model
	model.Version = version
	model.LexiconVersion, model.SamplesVersion = lexVersion, samplesVersion
	data, err := model.Encode()
	if err != nil {
		return 0, 0, err
	}
	mv, err := modelstore.PutIfChanged(ctx, a.Store, t.Name, topic.ModelKind, data)
	return mv, len(in.pos), err
}

// checkTerms refuses, before anything is stored, a topic without sample
// pages whose keywords and description give the topic model no term: every
// word a stop word ("the", "的"), punctuation or a symbol. topic.Parse
// cannot tell, since only the tokenizer knows its stop words. A topic with
// samples is judged once they are fetched (prepareModel).
func (a *Activities) checkTerms(t *topic.Topic) error {
	if len(t.Samples) > 0 || len(topic.BuildModel(t, 0, a.Tok, nil).Terms) > 0 {
		return nil
	}
	return noTermsError("and it names no sample pages")
}

// termlessKeywords says which of a topic's keywords give no term ("the",
// "R", "802.11": stop words, single letters, symbols, long numbers — "C++",
// "C#" and "F#" do give one, textproc's protected tokens —
// which the tokenizer drops from pages too), in a note for the operator,
// or "" when all give one. The model is built without them, as before,
// but no longer silently, though the file weighted them. A note, not a
// refusal: some are a topic's own words ("802.11", a one-syllable Korean
// noun) that no spelling makes a term, and a file stored before this
// check must still start (a refresh's continuation runs it).
func (a *Activities) termlessKeywords(t *topic.Topic) string {
	var lost []string
	for kw := range t.Keywords {
		if len(a.Tok.TermFreq(kw)) == 0 {
			lost = append(lost, strconv.Quote(kw))
		}
	}
	if len(lost) == 0 {
		return ""
	}
	slices.Sort(lost)
	return fmt.Sprintf("keywords %s give no term and are left out of the topic model: the tokenizer drops stop words, "+
		"single letters, symbols and long numbers, from pages too (write words it keeps, e.g. \"wi-fi\" for 802.11)", strings.Join(lost, ", "))
}

// noTermsError is the non-retryable invalid-topic error of a topic that
// gives its model no term; why says what else had none.
func noTermsError(why string) error {
	msg := "invalid topic file: the topic gives no term to judge pages by: its keywords and description hold only stop words, punctuation or symbols, " + why
	return temporal.NewNonRetryableApplicationError(msg, crawlapi.ErrInvalidTopic, nil)
}

type sampleDoc struct{ url, text string }

// sampleDocs fetches and parses sample pages (sampleTexts with URLs).
func (a *Activities) sampleDocs(ctx, waitCtx context.Context, urls []string) []sampleDoc {
	var out []sampleDoc
	for _, u := range urls {
		if texts := a.sampleTexts(ctx, waitCtx, []string{u}); len(texts) == 1 {
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
