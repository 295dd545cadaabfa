// Package activities implements the Temporal activities declared in package
// crawlapi: StartCrawl, CrawlSlice (the streaming fetch path), the refresh's
// batch stages, learning, ranking, seed expansion and the small bookkeeping
// ones. Each is a method on Activities, which holds the clients they share
// (crawl store, search index, fetcher, tokenizer); Register registers them
// under their contract names. They are adapters: the crawl's policies live in
// the packages that own them (relevance, linkpred, linkmodel, graph, revisit,
// decision), versioned models are read through modelstore.
//
// Activities exchange only IDs and counts with the workflow; page bodies,
// parse results, URL lists and the link graph go through the crawl store.
// Every activity is idempotent: it is keyed by topic + URL hash or by batch
// ID, skips work already recorded, and can be retried after a crash at any
// point without losing or duplicating a page.
package activities

import (
	"context"
	"errors"
	"fmt"
	storebackend "focuscrawl/internal/store/backend"
	"log/slog"
	"maps"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/temporal"

	"focuscrawl/internal/config"
	"focuscrawl/internal/crawlapi"
	"focuscrawl/internal/fetch"
	"focuscrawl/internal/index"
	"focuscrawl/internal/index/backend"
	"focuscrawl/internal/modelstore"
	"focuscrawl/internal/parse"
	"focuscrawl/internal/relevance"
	"focuscrawl/internal/store"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
	"focuscrawl/internal/topiccheck"
	"focuscrawl/internal/vsm"
)

// Activities holds what the crawl activities need. Register a pointer to it
// with the worker; its exported methods are the activities.
type Activities struct {
	Store    store.Store
	Index    index.Index
	Fetcher  *fetch.Fetcher
	Tok      *textproc.Tokenizer
	FetchCfg config.Fetch // politeness bounds (host delay)
	CrawlCfg config.Crawl
	// RefreshCfg bounds the adaptive revisit intervals (refresh.go).
	RefreshCfg config.Refresh
	Log        *slog.Logger
	Now        func() time.Time
	// StoreDesc describes the crawl store (driver and redacted DSN or
	// path) for error messages that must tell an operator which store a
	// worker opened (requireCrawl).
	StoreDesc string
	// Workflows looks up workflows (recordEndedCrawls); set by the worker
	// to its Temporal client, nil elsewhere (then nothing is looked up).
	Workflows WorkflowDescriber
	// Heartbeats sends a crawl slice's heartbeats while it outlasts a
	// Temporal outage (outlastOutage); set by the worker to its Temporal
	// client, nil elsewhere (then a slice ends with its activity context).
	Heartbeats HeartbeatSender

	// models caches decoded topic and model versions: stored versions are
	// immutable (internal/modelstore).
	models modelstore.Cache

	// fetchSlots bounds the worker's HTTP requests in flight
	// (crawl.fetch_concurrency) across all activities; nil: unbounded.
	fetchSlots chan struct{}
	// serving is the worker's hosts with an entry in flight, per topic,
	// across crawl slices (slice.go), so two slices of one crawl in this
	// worker never hold entries of the same host at once.
	serving hostSet
	// explored is each crawl's seed hosts that had their exploration
	// (explore.go).
	explored exploredHosts
	// sent is when this worker last sent a request to each host.
	sent sendClock
	// renewEvery is how often a refresh stage looks whether its batch's
	// claim is due for renewal (keepClaim); 0: an eighth of crawl.lease.
	renewEvery time.Duration
	// splits caches each crawl's score distribution for split acceptance
	// (split.go).
	splits splitDists
	// learnTFs keeps learning filters' training pages' term counts between
	// rounds (learntfs.go).
	learnTFs learnTFs
	// prunedTo maps a pruned model version a batch named to the newest one
	// read in its place (loadOrNewest), "topic\x00kind\x00version" → int.
	prunedTo sync.Map
	// gone counts, per topic and URL directory, the fetches that found
	// nothing there and those that found a page (gone.go).
	gone goneDirs
	// termSamples keeps the frozen term statistics of topics whose term
	// sample is full (termsample.go).
	termSamples termSamples
}

// WorkflowDescriber is the part of the Temporal client the activities use.
type WorkflowDescriber interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
}

// New opens the store, the index, the fetcher and the tokenizer that cfg
// describes. Close releases them.
func New(cfg *config.Config, log *slog.Logger) (*Activities, error) {
	if log == nil {
		log = slog.Default()
	}
	st, err := storebackend.Open(context.Background(), cfg.Store)
	if err != nil {
		return nil, err
	}
	// A store this process cannot write is refused here, not by every
	// activity of every crawl, retried for ever (sqlite.Store.CheckWritable).
	if w, ok := st.(interface{ CheckWritable(context.Context) error }); ok {
		if err := w.CheckWritable(context.Background()); err != nil {
			st.Close()
			return nil, fmt.Errorf("open crawl store %s: %w", storebackend.Describe(cfg.Store), err)
		}
	}
	tok := textproc.Shared()
	ix, err := backend.Open(context.Background(), cfg.Index, tok)
	if err != nil {
		st.Close()
		return nil, err
	}
	f, err := fetch.New(cfg.Fetch.Config)
	if err != nil {
		st.Close()
		ix.Close()
		return nil, err
	}
	f.SetLogger(log)
	return &Activities{Store: st, Index: ix, Fetcher: f, Tok: tok, FetchCfg: cfg.Fetch, CrawlCfg: cfg.Crawl,
		RefreshCfg: cfg.Refresh, Log: log, Now: time.Now, StoreDesc: storebackend.Describe(cfg.Store),
		fetchSlots: make(chan struct{}, max(cfg.Crawl.FetchConcurrency, 1))}, nil
}

// Close releases the store and the index.
func (a *Activities) Close() error {
	return errors.Join(a.Index.Close(), a.Store.Close())
}

// parseRecord is what Parse stores per page (blob kind store.BlobParse):
// the parsed document and its term frequencies, so later stages never parse
// or tokenize the page again.
type parseRecord struct {
	Doc *parse.Document `json:"doc"`
	TF  map[string]int  `json:"tf"`
	// Shape measures the page for the loop policy's detail-page rule and
	// link learning's target pages, in tokenizer words; stored when the
	// topic uses either (nil: measured when asked, see shapeOf).
	Shape *relevance.PageShape `json:"shape,omitempty"`
	// Declared is the primary language subtag of the page's <html lang>
	// ("de" for "de-DE"), kept before Doc.Lang is narrowed to zh, en or ""
	// (normalizeLang): the page's own language is one its links may be
	// followed in (pageLanguages). Empty in records written before.
	Declared string `json:"declared_lang,omitempty"`
	// TextHash is the page's near-duplicate signature (textsig.Signature),
	// as its parse write stores it on the page: the filter stage probes
	// with it, also for a page whose row was read before that write.
	// Empty in records written before, and for pages with little text.
	TextHash string `json:"text_hash,omitempty"`
	// segmented is Doc.Text segmented for the index, from parsePage's one
	// tokenizer pass; not stored (a record read back from the store has
	// none, and the index segments the text itself).
	segmented string
}

// loadedTopic is a topic version with its compiled model and its decoded
// strategies.
type loadedTopic struct {
	Topic *topic.Topic
	Model *topic.Model
	topiccheck.Decoded
}

// loadTopic returns a topic version and model version from the store,
// cached in memory: both are immutable once written.
func (a *Activities) loadTopic(ctx context.Context, name string, version, modelVersion int) (*loadedTopic, error) {
	key := fmt.Sprintf("topic\x00%s\x00%d\x00%d", name, version, modelVersion)
	return modelstore.Remember(&a.models, key, func() (*loadedTopic, error) {
		rec, err := a.Store.Topic(ctx, name, version)
		if errors.Is(err, store.ErrNotFound) {
			// Every attempt would fail alike: the crawl's workflow fails
			// at once (unloadable) instead of relaunching its slices.
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("topic %s v%d is not in this crawl store", name, version), crawlapi.ErrNoTopic, err)
		}
		if err != nil {
			return nil, fmt.Errorf("load topic %s v%d: %w", name, version, err)
		}
		t, err := topic.ParseStored(rec.YAML) // validated when stored; later rules must not make it unloadable
		var d topiccheck.Decoded
		if err == nil {
			d, err = topiccheck.Decode(t)
		}
		if err != nil {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("stored topic %s v%d is invalid: %v", name, version, err), crawlapi.ErrInvalidTopic, err)
		}
		m, err := modelstore.Load(ctx, &a.models, a.Store, name, topic.ModelKind, modelVersion, topic.DecodeModel)
		if errors.Is(err, store.ErrNotFound) {
			return nil, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("topic model %s v%d is not in this crawl store", name, modelVersion), crawlapi.ErrNoTopic, err)
		}
		if err != nil {
			return nil, err
		}
		return &loadedTopic{Topic: t, Model: m, Decoded: d}, nil
	})
}

// idf builds the topic's current IDF over the given terms in one store
// call; with a group, what an earlier stage of the group read, or what its
// parse write left (group.flush), is reused, and only the other terms are
// read.
func (a *Activities) idf(ctx context.Context, topicName string, terms map[string]struct{}, g *group) (vsm.IDF, error) {
	if idf, ok, err := a.sampledIDF(ctx, g); ok || err != nil {
		return idf, err
	}
	all := make([]string, 0, len(terms))
	var missing []string
	for t := range terms {
		all = append(all, t)
		if g != nil && g.df != nil {
			if _, ok := g.df[t]; !ok {
				missing = append(missing, t)
			}
		}
	}
	if g != nil && g.df != nil {
		if len(missing) == 0 { // the group's earlier stage read them all
			return vsm.SmoothIDF(g.docs, g.df), nil
		}
		docs, df, err := a.termStats(ctx, topicName, missing, g)
		if err != nil {
			return nil, err
		}
		// Pages counted meanwhile (another group's write) moved the
		// document count: the kept frequencies are those of a few pages
		// ago, which an IDF — a statistic of the whole topic — does not
		// notice; reading them all again cost more CPU than anything else
		// in the stage (docs/benchmarks.md).
		maps.Copy(g.df, df)
		g.docs = docs
		return vsm.SmoothIDF(g.docs, g.df), nil
	}
	docs, df, err := a.termStats(ctx, topicName, all, g)
	if err != nil {
		return nil, err
	}
	if g != nil {
		// Kept for the group's next stage: the judged pages' links are
		// scored with the same statistics.
		g.df, g.docs = df, docs
	}
	return vsm.SmoothIDF(docs, df), nil
}

// termStats reads the topic's term statistics, with what the group's
// unflushed parse records will add.
func (a *Activities) termStats(ctx context.Context, topicName string, terms []string, g *group) (int, map[string]int, error) {
	tt, err := a.Store.TermStats(ctx, topicName, terms)
	if err != nil {
		return 0, nil, fmt.Errorf("term statistics of %s: %w", topicName, err)
	}
	docs, df := tt.Docs, tt.DF
	if tt.Full(a.CrawlCfg.TermSample) {
		// The topic's term sample is full (a worker that has not seen a
		// write find it so yet: sampledIDF) — by the size fixed for it,
		// which may not be this worker's: the group's write will not
		// count its parse records, so they add nothing here either.
		return docs, df, nil
	}
	pendingDocs, pendingDF := g.pendingTerms()
	docs += pendingDocs
	for t, n := range pendingDF {
		if _, ok := df[t]; ok {
			df[t] += n
		}
	}
	return docs, df, nil
}

func (a *Activities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}
