package activities

import (
	"time"

	"focuscrawl/internal/store"
)

// Activity names, as operators see them in the Temporal UI.
const (
	NameStartCrawl    = "StartCrawl"
	NameClaimBatch    = "ClaimBatch"
	NameFetch         = "Fetch"
	NameParse         = "Parse"
	NameFilterPages   = "FilterPages"
	NamePredictLinks  = "PredictLinks"
	NameAddSeeds      = "AddSeeds"
	NameCrawlSlice    = "CrawlSlice"
	NameCountQueued   = "CountQueued"
	NameSetCrawlState = "SetCrawlState"
)

// Error types of non-retryable application errors: retrying cannot help.
const (
	ErrInvalidTopic = "InvalidTopic"
	ErrBadInput     = "BadInput"
)

// MaxSeedsPerSignal bounds the URLs one add-seeds signal may carry, since
// signal payloads are recorded in workflow history.
const MaxSeedsPerSignal = 1000

// StartCrawlInput starts (or restarts) a crawl of a topic.
type StartCrawlInput struct {
	CrawlID   string
	TopicYAML string // the topic file; small (topic.MaxFileBytes)
	Fresh     bool   // forget the topic's earlier crawl state first
}

// CrawlParams are the scheduling parameters of a crawl, taken from the
// worker's configuration when the crawl starts and carried in workflow state.
type CrawlParams struct {
	BatchSize        int           // most pages processed together (crawl.batch_size)
	Pipelines        int           // crawl slices in flight (crawl.pipelines)
	Hosts            int           // hosts one slice serves at once (crawl.hosts)
	ClaimRatio       float64       // claim floor relative to the frontier's best (crawl.claim_ratio)
	Slice            time.Duration // how long a slice claims before it reports (crawl.slice)
	SlicesPerRun     int           // continue-as-new after this many slices (crawl.slices_per_run)
	Lease            time.Duration
	HeartbeatTimeout time.Duration
	MaxPages         int
	LearnEvery       int // LearnLinkModel every this many new accepted pages; 0 = never (also when the predictor reads no link model)
	RankEvery        int // RecomputeHubAuthority every this many accepted pages; 0 = at the end only
	ExpandEvery      int // ExpandSeeds every this many new accepted pages; 0 = never (expand.go)
}

// StartCrawlResult describes the registered crawl.
type StartCrawlResult struct {
	Topic        string
	TopicVersion int
	ModelVersion int
	Seeded       int
	Samples      int // sample pages fetched for the topic model
	Params       CrawlParams
}

// ClaimInput asks for a batch.
type ClaimInput struct {
	CrawlID, Topic, BatchID string
	Max                     int
	MaxPerHost              int
	Lease                   time.Duration
}

// ClaimResult reports a claimed batch and the frontier left behind.
type ClaimResult struct {
	BatchID string
	Size    int
	Queued  int // queued entries after the claim
}

// BatchRef names one batch and the topic/model versions it is judged with,
// so every stage of a batch reads one consistent version.
type BatchRef struct {
	CrawlID      string
	Topic        string
	BatchID      string
	TopicVersion int
	ModelVersion int
	// LinkModelVersion and RankVersion are the versions of the learned link
	// model (linkmodel.ModelKind) and the IPageRank scores
	// (linkmodel.RanksKind) the batch's link predictor reads; 0 = none yet.
	// The workflow records them when it launches the batch.
	LinkModelVersion int
	RankVersion      int
}

// FetchResult counts a Fetch activity's work.
type FetchResult struct {
	Fetched int // pages saved by this call (OK or failed)
	OK      int
	Failed  int
	Skipped int // already fetched earlier (retry, or another crawl)
}

// ParseResult counts a Parse activity's work.
type ParseResult struct {
	Parsed int
	Failed int
	Links  int
}

// FilterResult counts a FilterPages activity's work.
type FilterResult struct {
	Accepted, Rejected, Duplicates, Errors, Indexed int
}

// PredictResult counts a PredictLinks activity's work.
type PredictResult struct {
	Links    int // out-links scored
	Enqueued int // new frontier entries
	Dropped  int // out of scope, too deep, nofollow, or over a cap
}

// AddSeedsInput adds URLs to a running crawl's frontier.
type AddSeedsInput struct {
	CrawlID, Topic string
	TopicVersion   int
	URLs           []string
}

// SetCrawlStateInput records a crawl's state in the store.
type SetCrawlStateInput struct {
	CrawlID string
	State   string
}

// SliceInput runs one crawl slice (CrawlSlice): the streaming fetch path for
// a bounded time and page budget.
type SliceInput struct {
	CrawlID, Topic string
	// SliceID names the slice (unique within the crawl); every claim it
	// makes is a batch whose ID starts with SliceID + "/".
	SliceID                    string
	TopicVersion, ModelVersion int
	LinkModelVersion           int
	RankVersion                int
	// Budget is how many frontier entries the slice may claim in all its
	// attempts together.
	Budget int
	// Duration ends the slice's claiming after this long (0: no limit).
	Duration time.Duration
	Hosts    int     // hosts served at once (crawl.hosts)
	MinRatio float64 // claim floor relative to the frontier's best (crawl.claim_ratio)
	// StopAfterAccepted ends the slice's claiming once it has accepted this
	// many pages (0: no limit): the workflow sets it so that learning,
	// ranking and seed expansion come at their cadence.
	StopAfterAccepted int
	Group             int           // most pages processed together (crawl.batch_size)
	Lease             time.Duration // claim lease (crawl.lease)
}

func (in SliceInput) ref() BatchRef {
	return BatchRef{CrawlID: in.CrawlID, Topic: in.Topic, BatchID: in.SliceID, TopicVersion: in.TopicVersion,
		ModelVersion: in.ModelVersion, LinkModelVersion: in.LinkModelVersion, RankVersion: in.RankVersion}
}

// SliceResult reports a finished slice. Stats come from the store (exact
// across retries); Links and Enqueued count the last attempt's work only.
type SliceResult struct {
	Stats           store.BatchStats
	Links, Enqueued int
	Reason          string // why the slice stopped claiming (fetchloop.Reason*)
	Exhausted       bool   // the frontier had nothing left for it
	Queued          int    // queued frontier entries when it ended
}
