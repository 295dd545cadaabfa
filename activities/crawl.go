package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/store"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/topiccheck"
	"focuscrawl/internal/urlnorm"
)

// seedPriority puts seeds ahead of every predicted link (scores are ≤ 1).
const seedPriority = 2.0

// ValidateTopic parses and checks a topic file (package topiccheck),
// returning a non-retryable error that names the bad field.
func ValidateTopic(yamlText []byte) (*topic.Topic, error) {
	t, _, err := validateTopic(yamlText)
	return t, err
}

// validateTopic is ValidateTopic with the topic's decoded strategies.
func validateTopic(yamlText []byte) (*topic.Topic, topiccheck.Decoded, error) {
	t, d, err := topiccheck.ParseDecoded(yamlText)
	if err != nil {
		return nil, d, temporal.NewNonRetryableApplicationError("invalid topic file: "+err.Error(), crawlapi.ErrInvalidTopic, err)
	}
	return t, d, nil
}

// storedTopic parses yamlText as a stored topic version (topic.ParseStored)
// when it is, byte for byte, its topic's latest stored version.
func (a *Activities) storedTopic(ctx context.Context, yamlText []byte) (*topic.Topic, topiccheck.Decoded, bool) {
	t, err := topic.ParseStored(yamlText)
	if err != nil {
		return nil, topiccheck.Decoded{}, false
	}
	rec, err := a.Store.Topic(ctx, t.Name, 0)
	if err != nil || !bytes.Equal(rec.YAML, yamlText) {
		return nil, topiccheck.Decoded{}, false
	}
	d, err := topiccheck.Decode(t)
	return t, d, err == nil
}

// needsShape reports whether a topic's pages are measured when they are
// parsed (parseRecord.Shape): its loop policy or link learning reads it.
func needsShape(d topiccheck.Decoded) bool { return d.Loop.NeedsShape() || d.LearnsLinks }

// StartCrawl registers the topic version and the crawl, builds the topic
// model (fetching sample pages), and seeds the frontier. Re-running it for
// the same crawl is harmless: versions, crawl rows and seeds are idempotent.
func (a *Activities) StartCrawl(ctx context.Context, in crawlapi.StartCrawlInput) (crawlapi.StartCrawlResult, error) {
	// --fresh wipes the topic's index documents and rows, each one call.
	defer beatThroughout(ctx, "startcrawl")()
	t, strat, err := validateTopic([]byte(in.TopicYAML))
	if err != nil {
		// The topic's latest stored version, stored before a rule that now
		// refuses it (a refresh's crawl continuation runs that file): it
		// is loaded as stored, as running crawls load it.
		if ts, d, ok := a.storedTopic(ctx, []byte(in.TopicYAML)); ok {
			t, strat, err = ts, d, nil
		}
	}
	if err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	if err := a.checkCrawlID(ctx, in.CrawlID, t.Name); err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	// Topic model, sample pages and lexicon (prepareModel, buildModel in
	// topic.go), prepared before anything is stored or reset: a topic
	// refused for its lexicon or for giving no term leaves no stored
	// version, no wiped state (--fresh) and no crawl marked running that
	// no slice could ever run.
	inputs, err := a.prepareModel(ctx, t)
	if err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	if in.Fresh {
		if err := a.resetTopic(ctx, t.Name); err != nil {
			return crawlapi.StartCrawlResult{}, err
		}
	}
	version, err := a.Store.PutTopic(ctx, t.Name, []byte(in.TopicYAML))
	if err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	mv, nSamples, err := a.buildModel(ctx, t, version, inputs)
	if err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	if err := a.Store.CreateCrawl(ctx, store.Crawl{
		ID: in.CrawlID, Topic: t.Name, TopicVersion: version, State: store.CrawlRunning, StartedAt: startedAt(in, a.now()),
	}); err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	// A crawl recorded as ended from outside (recordEndedCrawls) that
	// starts again under its ID is its workflow reset: it runs — if this
	// attempt's run is open (an attempt of the closed run still going
	// must not record it running).
	if c, err := a.Store.Crawl(ctx, in.CrawlID); err == nil && store.EndedOutside(c.State) && a.ownRunOpen(ctx) {
		if err := a.Store.SetCrawlState(ctx, in.CrawlID, store.CrawlRunning); err != nil {
			return crawlapi.StartCrawlResult{}, err
		}
	}
	a.recordEndedCrawls(ctx, t.Name, in.CrawlID)
	seeded, err := a.enqueueSeeds(ctx, in.CrawlID, t, t.Seeds)
	if err != nil {
		return crawlapi.StartCrawlResult{}, err
	}
	fromSitemaps := 0
	if t.Sitemaps.Enabled {
		lt, err := a.loadTopic(ctx, t.Name, version, mv)
		if err != nil {
			return crawlapi.StartCrawlResult{}, err
		}
		if fromSitemaps, err = a.discoverSitemaps(ctx, in.CrawlID, t, lt.Model); err != nil {
			return crawlapi.StartCrawlResult{}, err
		}
	}
	a.Log.Info("crawl started", "crawl", in.CrawlID, "topic", t.Name, "version", version,
		"model", mv, "samples", nSamples, "seeded", seeded, "sitemap_urls", fromSitemaps)
	c := a.CrawlCfg
	return crawlapi.StartCrawlResult{
		Topic: t.Name, TopicVersion: version, ModelVersion: mv, Seeded: seeded, Samples: nSamples, SitemapURLs: fromSitemaps,
		Notes: inputs.notes,
		Params: crawlapi.CrawlParams{
			BatchSize: c.BatchSize, Pipelines: c.Pipelines, Hosts: c.Hosts, ClaimRatio: c.ClaimRatio, HoldUnscored: c.HoldUnscored, Slice: c.Slice,
			SlicesPerRun: c.SlicesPerRun, Lease: c.Lease, HeartbeatTimeout: c.HeartbeatTimeout,
			MaxPages: t.Limits.MaxPages, LearnEvery: a.learnEvery(strat), RankEvery: c.RankEvery,
			ExpandEvery: c.ExpandEvery, FetchPolicy: a.fetchPolicy(), SeedExplore: &c.SeedExplore,
		},
	}, nil
}

// learnEvery is a crawl's learning cadence for a topic (CrawlParams):
// crawl.learn_every, or 0 when its link predictor reads no learned model.
func (a *Activities) learnEvery(d topiccheck.Decoded) int {
	if !d.LearnsLinks {
		return 0 // nothing would read the model it learns
	}
	return a.CrawlCfg.LearnEvery
}

// recordEndedCrawls records the end of the topic's earlier crawls that
// ended without recording it: a workflow terminated (the Temporal UI, the
// CLI) or timed out runs no final step, one cancelled before its run
// understood cancels (older code; since 2026-11-28 a cancelled crawl
// records "canceled" itself) or during StartCrawl records nothing, and one failing where
// it records no state (its StartCrawl gave up) records nothing either, so
// its row stayed "running" (or "paused") for good, and 'search crawls'
// listed it so. Each such row among the topic's 100 newest is looked up in
// Temporal (the crawl ID is its workflow ID) and, when it is closed that
// way, the row gets that status (store.EndedOutside). A row whose workflow
// runs, continued as new, completed, or cannot be looked up (gone from
// Temporal's retention, no client outside a worker) is left as it is. A reset of such a workflow runs the
// crawl again under its ID: its StartCrawl, or its first slice's look at
// the row, records it running again.
// Best effort: a failure is logged, the new crawl starts regardless.
func (a *Activities) recordEndedCrawls(ctx context.Context, topicName, self string) {
	if a.Workflows == nil {
		return
	}
	crawls, err := a.Store.Crawls(ctx, topicName, 100)
	if err != nil {
		a.Log.Warn("could not list the topic's earlier crawls to record the ended ones", "topic", topicName, "error", err)
		return
	}
	for _, cr := range crawls {
		if cr.ID == self || (cr.State != store.CrawlRunning && cr.State != store.CrawlPaused) {
			continue
		}
		desc, err := a.Workflows.DescribeWorkflowExecution(ctx, cr.ID, "")
		if err != nil {
			continue // unknown to this namespace, or Temporal busy: nothing to say
		}
		state := endedState(desc.GetWorkflowExecutionInfo().GetStatus())
		if state == "" {
			continue
		}
		// Its slices' claims too: a terminated workflow releases nothing,
		// and the entries its slices held stayed leased for crawl.lease
		// (15 min). The next crawl of the topic could not fetch them, and
		// once its frontier was otherwise done it waited for them,
		// "crawling" with 0 queued and nothing fetched (chaos trial:
		// `temporal workflow terminate`, then `starter crawl` of the same
		// topic). Released before the state is recorded: a failed release
		// is tried again by the next crawl's start, which finds the row
		// still running. Every batch of the crawl's slices starts with its
		// ID and "/"; a closed crawl has no slice that may claim legitimately
		// (a slice of it still running on a worker stops at its next
		// heartbeat, which the server refuses, within seconds).
		// Its slices are "<ID>/s000001" on (workflows), their batches below
		// them. A crawl ID is free text (starter crawl --id): another
		// crawl whose ID extends this one's with "/s" has batches under
		// the same prefix, and its live claims must not be released (a
		// review's finding); then the lease frees this crawl's.
		if nested := nestedCrawl(cr.ID, self, crawls); nested != "" {
			a.Log.Warn("left an ended crawl's claims to their lease: another crawl's ID starts with its own", "crawl", cr.ID, "other", nested)
		} else if n, err := a.releaseClaims(ctx, topicName, cr.ID+"/s"); err != nil {
			a.Log.Warn("could not release an ended crawl's claims", "crawl", cr.ID, "state", state, "error", err)
			continue
		} else if n > 0 {
			a.Log.Info("closed an ended crawl's claims whose page it saved", "crawl", cr.ID, "closed", n)
		}
		if err := a.Store.SetCrawlState(ctx, cr.ID, state); err != nil {
			a.Log.Warn("could not record an ended crawl's state", "crawl", cr.ID, "state", state, "error", err)
			continue
		}
		a.Log.Info("recorded the end of an earlier crawl that did not record it", "crawl", cr.ID, "state", state)
	}
}

// ownRunOpen reports whether the workflow run of the activity ctx runs in
// is still open, as Temporal says; true outside a worker (no client: tests
// running activities directly), false when Temporal cannot tell.
func (a *Activities) ownRunOpen(ctx context.Context) bool {
	if a.Workflows == nil || !activity.IsActivity(ctx) {
		return true
	}
	we := activity.GetInfo(ctx).WorkflowExecution
	desc, err := a.Workflows.DescribeWorkflowExecution(ctx, we.ID, we.RunID)
	if err != nil {
		return false
	}
	s := desc.GetWorkflowExecutionInfo().GetStatus()
	return s == enums.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// endedState is the crawl state of a workflow closed without recording
// it — from outside, or failed — for a row still running or paused; ""
// for one that runs or completed.
func endedState(s enums.WorkflowExecutionStatus) string {
	switch s {
	case enums.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return store.CrawlTerminated
	case enums.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return store.CrawlCanceled
	case enums.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return store.CrawlTimedOut
	case enums.WORKFLOW_EXECUTION_STATUS_FAILED:
		// Its own failure paths record "failed"; a row still running or
		// paused failed on one that records nothing.
		return store.CrawlWorkflowFailed
	}
	return ""
}

// checkCrawlID refuses a crawl ID that an earlier crawl used: a crawl's
// pages, batches and slices are found by its ID, so a second crawl under
// the same ID would count the first one's work as its own (its slices'
// batch IDs would even coincide), and the finished state it found would
// stop its slices at once. The crawl's own StartCrawl, run again (an
// activity retry), finds its crawl running and passes; so does a reset of
// its workflow that recordEndedCrawls recorded as ended from outside
// (store.EndedOutside).
func (a *Activities) checkCrawlID(ctx context.Context, id, topicName string) error {
	old, err := a.Store.Crawl(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("look up crawl %s: %w", id, err)
	}
	var why string
	switch {
	case old.Topic != topicName:
		why = fmt.Sprintf("by a crawl of topic %q", old.Topic)
	case old.State != store.CrawlRunning && old.State != store.CrawlPaused && !store.EndedOutside(old.State):
		why = fmt.Sprintf("by a crawl of this topic that is %s", old.State)
	default:
		return nil
	}
	msg := fmt.Sprintf("crawl ID %q was already used %s (started %s): start this crawl under a new ID (starter crawl without --id picks one)",
		id, why, old.StartedAt.UTC().Format(time.RFC3339))
	return temporal.NewNonRetryableApplicationError(msg, crawlapi.ErrBadInput, nil)
}

// resetTopic forgets a topic's crawl state and its index documents.
func (a *Activities) resetTopic(ctx context.Context, name string) error {
	// Every page that has or may have a document: accepted ones whether
	// flagged or not (a document written, its flag's write failed) and any
	// flagged one (a withdrawal whose index deletion failed leaves a tunnel
	// flagged). Only accepted flagged pages were asked for, and the others'
	// documents stayed in search results for good once the reset had
	// deleted the rows that named them.
	seen := map[string]bool{}
	var ids []string
	collect := func(p store.Page) error {
		if p.FinalHash != "" && (p.Indexed || p.Decision == store.DecisionAccepted) && !seen[p.FinalHash] {
			seen[p.FinalHash] = true
			ids = append(ids, p.FinalHash)
		}
		return nil
	}
	if err := a.Store.AcceptedPages(ctx, name, collect); err != nil {
		return err
	}
	crawls, err := a.Store.Crawls(ctx, name, 0)
	if err != nil {
		return err
	}
	for _, c := range crawls {
		if err := a.Store.CrawlLog(ctx, c.ID, collect); err != nil {
			return err
		}
	}
	if err := a.Index.Delete(ctx, name, ids); err != nil {
		return fmt.Errorf("reset topic %s: delete index documents: %w", name, err)
	}
	// This worker's own memory of the topic too: the evaluation starts
	// every run of a topic fresh on one worker, and runs after the first
	// began with the earlier runs' gone directories already sunk.
	a.gone.forget(name)
	if err := a.Store.ResetTopic(ctx, name); err != nil {
		return err
	}
	// And its split distribution, read from the pages just deleted (a
	// crawl ID the cache has seen would not reload it: a reset workflow's
	// run of a --fresh crawl).
	a.splits.forget(name)
	// And which seed sites its crawls explored (explore.go), likewise.
	a.explored.forget(name)
	// And its frozen term statistics (termsample.go), for the same reason.
	a.termSamples.forget(name)
	return nil
}

// sampleHoldWait bounds how long a topic's sample pages wait, all together,
// for their hosts' pauses (a robots.txt Crawl-delay longer than
// fetch.max_host_delay, a Retry-After): the crawl's start runs under a
// 10-minute timeout, its sitemaps included.
var sampleHoldWait = 2 * time.Minute

// sampleTexts fetches and parses the topic's sample pages, paced as a
// crawl's fetches (the host's slot in the crawl store, robots.txt counted
// as a request, a Crawl-delay longer than fetch.max_host_delay waited for
// in full, until waitCtx's deadline: fetchAfterHolds), so a crawl's start
// does not send its samples and then its seed, often of the same site,
// back to back. A sample that cannot be fetched in time is logged and
// skipped: the topic still has its keywords and description.
func (a *Activities) sampleTexts(ctx, waitCtx context.Context, urls []string) []string {
	var texts []string
	for _, u := range urls {
		resp, err := a.fetchAfterHolds(ctx, waitCtx, urlnorm.Host(u), fetch.Request{URL: u}, time.Time{})
		if err != nil {
			a.Log.Warn("sample page not usable", "url", u, "error", err)
			continue
		}
		doc, err := parse.Parse(resp.FinalURL, resp.Body, parse.Options{})
		if err != nil {
			a.Log.Warn("sample page not parsable", "url", u, "error", err)
			continue
		}
		texts = append(texts, doc.Title+" "+doc.Text)
		heartbeat(ctx, len(texts))
	}
	return texts
}

func (a *Activities) enqueueSeeds(ctx context.Context, crawlID string, t *topic.Topic, urls []string) (int, error) {
	entries := make([]store.FrontierEntry, 0, len(urls))
	for _, u := range urls {
		n, err := urlnorm.Normalize(u)
		if err != nil {
			a.Log.Warn("seed dropped: not an http(s) URL", "crawl", crawlID, "url", u, "error", err)
			continue
		}
		if !t.InScope(urlnorm.Host(n)) {
			// Said here because nothing else would: the crawl only counts
			// the seeds it added (CrawlState.SeedsAdded).
			a.Log.Warn("seed dropped: host outside the topic's scope", "crawl", crawlID, "url", n, "host", urlnorm.Host(n))
			continue
		}
		entries = append(entries, store.FrontierEntry{
			Topic: t.Name, URLHash: urlnorm.Hash(n), URL: n, Host: urlnorm.Host(n),
			Priority: seedPriority, Strategy: "seed", CrawlID: crawlID,
		})
	}
	return a.Store.Enqueue(ctx, entries, store.EnqueueOptions{})
}

// AddSeeds adds URLs to a running crawl (the add-seeds signal).
func (a *Activities) AddSeeds(ctx context.Context, in crawlapi.AddSeedsInput) (int, error) {
	if len(in.URLs) > crawlapi.MaxSeedsPerSignal {
		return 0, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("add-seeds: %d URLs is more than %d per signal", len(in.URLs), crawlapi.MaxSeedsPerSignal), crawlapi.ErrBadInput, nil)
	}
	rec, err := a.Store.Topic(ctx, in.Topic, in.TopicVersion)
	if err != nil {
		return 0, err
	}
	t, err := topic.ParseStored(rec.YAML)
	if err != nil {
		return 0, temporal.NewNonRetryableApplicationError("stored topic invalid: "+err.Error(), crawlapi.ErrInvalidTopic, err)
	}
	return a.enqueueSeeds(ctx, in.CrawlID, t, in.URLs)
}

// SetCrawlState records the crawl's state (running, paused, completed, ...).
func (a *Activities) SetCrawlState(ctx context.Context, in crawlapi.SetCrawlStateInput) (struct{}, error) {
	return struct{}{}, a.Store.SetCrawlState(ctx, in.CrawlID, in.State)
}

// SetCrawlModels records the learned link model and rank versions the crawl
// now uses; running slices whose predictor reads one that changed end at
// their next look at the crawl (CrawlSlice), and the workflow launches
// their successors with the new versions.
func (a *Activities) SetCrawlModels(ctx context.Context, in crawlapi.SetCrawlModelsInput) (struct{}, error) {
	return struct{}{}, a.Store.SetCrawlModels(ctx, in.CrawlID, in.LinkModelVersion, in.RankVersion)
}

// CountQueued returns how many frontier entries of a topic are queued. The
// workflow asks before it ends a crawl as "frontier exhausted": a slice's
// own count can predate links another slice added after it.
func (a *Activities) CountQueued(ctx context.Context, topicName string) (int, error) {
	fs, err := a.Store.FrontierStats(ctx, topicName)
	return fs.Queued, err
}

// nestedCrawl returns the ID of a crawl among self and crawls whose batch
// IDs start with id + "/s" too (its ID does), or "".
func nestedCrawl(id, self string, crawls []store.Crawl) string {
	if strings.HasPrefix(self, id+"/s") {
		return self
	}
	for _, c := range crawls {
		if strings.HasPrefix(c.ID, id+"/s") {
			return c.ID
		}
	}
	return ""
}

// startedAt is the crawl's start as recorded: when its workflow was started
// (in.StartedAt), or now when the input does not say.
func startedAt(in crawlapi.StartCrawlInput, now time.Time) time.Time {
	if in.StartedAt.IsZero() {
		return now
	}
	return in.StartedAt
}
