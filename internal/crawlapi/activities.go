package crawlapi

import (
	"time"

	"focuscrawl/internal/store"
)

// The activities of TopicCrawlWorkflow.
var (
	// StartCrawl validates the topic, stores its version and model, creates
	// the crawl and seeds the frontier.
	StartCrawl = Activity[StartCrawlInput, StartCrawlResult]{Name: "StartCrawl"}
	// CrawlSlice runs the streaming fetch path for a bounded time and budget.
	CrawlSlice = Activity[SliceInput, SliceResult]{Name: "CrawlSlice"}
	// CountQueued returns how many frontier entries of a topic (the input)
	// are queued.
	CountQueued = Activity[string, int]{Name: "CountQueued"}
	// SetCrawlState records a crawl's state in the store, where running
	// slices read it.
	SetCrawlState = Activity[SetCrawlStateInput, struct{}]{Name: "SetCrawlState"}
	// SetCrawlModels records in the store the learned link model and rank
	// versions a crawl now uses, where running slices read them.
	SetCrawlModels = Activity[SetCrawlModelsInput, struct{}]{Name: "SetCrawlModels"}
	// ReleaseSlice ends the claims a crawl slice left when it failed every
	// attempt, and returns how many fetched entries it closed.
	ReleaseSlice = Activity[ReleaseSliceInput, int]{Name: "ReleaseSlice"}
	// SliceStats counts what a crawl slice's claims did, from the store
	// (store.BatchStats of its batches). The workflow asks after
	// ReleaseSlice: a slice that failed for good reports nothing, yet the
	// pages it fetched spent the crawl's budget.
	SliceStats = Activity[ReleaseSliceInput, store.BatchStats]{Name: "SliceStats"}
	// AddSeeds adds URLs to a running crawl's frontier (the add-seeds
	// signal) and returns how many were new.
	AddSeeds = Activity[AddSeedsInput, int]{Name: "AddSeeds"}
	// UpdateTopic stores a new version of a running crawl's topic (the
	// update-topic signal).
	UpdateTopic = Activity[UpdateTopicInput, UpdateTopicResult]{Name: "UpdateTopic"}
	// LearnLinkModel stores a new version of the learned link models.
	LearnLinkModel = Activity[LearnInput, LearnResult]{Name: "LearnLinkModel"}
	// RecomputeHubAuthority runs PageRank, HITS and IPageRank over the
	// topic's crawl graph.
	RecomputeHubAuthority = Activity[HubAuthInput, HubAuthResult]{Name: "RecomputeHubAuthority"}
	// RejudgeCrawl re-applies crawl-relative acceptance to every page the
	// crawl has accepted, against the whole crawl's score distribution,
	// and withdraws the acceptance of those now below it.
	RejudgeCrawl = Activity[RejudgeInput, RejudgeResult]{Name: "RejudgeCrawl"}
	// ExpandSeeds runs one seed-expansion round (seed 003 §2).
	ExpandSeeds = Activity[ExpandInput, ExpandResult]{Name: "ExpandSeeds"}
	// ExpandPruned follows the out-links of a crawl's best pruned pages
	// when its frontier ran dry with budget left.
	ExpandPruned = Activity[ExpandPrunedInput, ExpandPrunedResult]{Name: "ExpandPruned"}
)

// The activities of RefreshWorkflow. Between Refetch and FinishRefresh the
// workflow runs the batch stages Parse, FilterPages and PredictLinks on the
// refresh batch: changed pages go through the code path of a first crawl.
var (
	// StartRefresh resolves the topic's latest versions and counts the
	// pages due.
	StartRefresh = Activity[StartRefreshInput, StartRefreshResult]{Name: "StartRefresh"}
	// ClaimRefresh leases the next due pages to a batch and returns how many.
	ClaimRefresh = Activity[RefreshClaimInput, int]{Name: "ClaimRefresh"}
	// Refetch re-fetches a batch's pages with conditional requests.
	Refetch = Activity[BatchRef, RefetchResult]{Name: "Refetch"}
	// Parse parses a batch's changed pages.
	Parse = Activity[BatchRef, ParseResult]{Name: "Parse"}
	// FilterPages judges and indexes a batch's parsed pages.
	FilterPages = Activity[BatchRef, FilterResult]{Name: "FilterPages"}
	// PredictLinks scores a batch's out-links and admits new ones to the
	// frontier.
	PredictLinks = Activity[BatchRef, PredictResult]{Name: "PredictLinks"}
	// FinishRefresh removes gone and no-longer-relevant pages from the index
	// and schedules each page's next visit.
	FinishRefresh = Activity[BatchRef, FinishRefreshResult]{Name: "FinishRefresh"}
	// ReleaseRefresh ends at once the claim of a batch whose refresh was
	// cancelled (store.Refreshes.ReleaseRefresh), so that its pages are
	// claimable again now, not after crawl.lease and refresh.min_interval,
	// and returns how many pages the batch still held.
	ReleaseRefresh = Activity[ReleaseRefreshInput, int]{Name: "ReleaseRefresh"}
	// TopicYAML returns a stored topic file, for a crawl a refresh starts.
	TopicYAML = Activity[TopicYAMLInput, string]{Name: "TopicYAML"}
	// NextRefresh tells when the topic's next page is due, for a refresh
	// that rescheduled pages: StartRefresh's outlook is stale by its end.
	NextRefresh = Activity[NextRefreshInput, RefreshOutlook]{Name: "NextRefresh"}
)

// Error types of non-retryable application errors: retrying cannot help.
const (
	ErrInvalidTopic = "InvalidTopic"
	ErrBadInput     = "BadInput"
	// ErrNoTopic: a refresh names a topic the store has never seen.
	// StartRefresh's carries the store's description as its details.
	ErrNoTopic = "NoTopic"
	// ErrSuperseded: a crawl slice attempt that a newer attempt of the
	// same slice replaced (store.ErrFenced).
	ErrSuperseded = "Superseded"
)

// ErrWrongStore is the type of the retryable error a crawl's activity fails
// with on a worker whose crawl store does not hold the crawl (a worker
// started with another store configuration), and a refresh's after
// StartRefresh on one whose store does not hold the refresh's topic version
// as StartRefresh's store recorded it: retrying lets another worker of the
// task queue take it.
const ErrWrongStore = "WrongStore"

// ErrWrongConfig is the type of the retryable error a crawl slice fails with
// on a worker whose fetch settings differ from the crawl's
// (CrawlParams.FetchPolicy): retrying lets another worker take it.
const ErrWrongConfig = "WrongConfig"

// MaxSeedsPerSignal bounds the URLs one add-seeds signal may carry, since
// signal payloads are recorded in workflow history.
const MaxSeedsPerSignal = 1000

// StartCrawlInput starts (or restarts) a crawl of a topic.
type StartCrawlInput struct {
	CrawlID   string
	TopicYAML string // the topic file; small (topic.MaxFileBytes)
	Fresh     bool   // forget the topic's earlier crawl state first
	// StartedAt is when the crawl's workflow was started, recorded as the
	// crawl's start (zero: when the activity runs, as before the field).
	StartedAt time.Time
}

// CrawlParams are the scheduling parameters of a crawl, taken from the
// worker's configuration when the crawl starts and carried in workflow state.
type CrawlParams struct {
	BatchSize        int           // most pages processed together (crawl.batch_size)
	Pipelines        int           // crawl slices in flight (crawl.pipelines)
	Hosts            int           // hosts one slice serves at once (crawl.hosts)
	ClaimRatio       float64       // claim floor relative to the frontier's best (crawl.claim_ratio)
	HoldUnscored     bool          // crawl.hold_unscored: see SliceInput.HoldUnscored
	Slice            time.Duration // how long a slice claims before it reports (crawl.slice)
	SlicesPerRun     int           // continue-as-new after this many slices (crawl.slices_per_run)
	Lease            time.Duration
	HeartbeatTimeout time.Duration
	MaxPages         int
	LearnEvery       int // LearnLinkModel every this many new accepted pages; 0 = never (also when the predictor reads no link model)
	RankEvery        int // RecomputeHubAuthority every this many accepted pages; 0 = at the end only
	ExpandEvery      int // ExpandSeeds every this many new accepted pages; 0 = never
	// SeedExplore is crawl.seed_explore as the worker that started the crawl
	// had it, so every worker explores the crawl's seed sites alike (see
	// SliceInput.SeedExplore); nil for crawls started before it was recorded.
	SeedExplore *int `json:",omitempty"`
	// FetchPolicy is the fetch settings every worker that fetches for the
	// crawl must share, as the worker that started it had them: "key=value"
	// by configuration key, sorted, space-separated (a string keeps the
	// inputs comparable); see SliceInput.FetchPolicy. Empty for crawls
	// started before it was recorded.
	FetchPolicy string `json:",omitempty"`
}

// StartCrawlResult describes the registered crawl.
type StartCrawlResult struct {
	Topic        string
	TopicVersion int
	ModelVersion int
	Seeded       int
	Samples      int // sample pages fetched for the topic model
	// SitemapURLs counts the new frontier entries sitemap discovery added
	// (topic.Sitemaps; 0 when it is off).
	SitemapURLs int `json:",omitempty"`
	Params      CrawlParams
	// Notes are warnings about the topic file for the operator
	// (CrawlState.Notes).
	Notes []string `json:",omitempty"`
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
	// TopicStoredAt is when the refresh's crawl store recorded
	// TopicVersion (StartRefreshResult.TopicStoredAt); zero for a crawl's
	// slices and for refreshes that predate it.
	TopicStoredAt time.Time
	// MinHub is the refresh's refresh.hub_min_score, recorded when it
	// started (RefreshParams.HubMinScore): the batch's stages revisit hubs
	// by the score its claim chose them by. nil for a crawl's slices and
	// for refreshes that predate it (the worker's config then).
	MinHub *float64 `json:",omitempty"`
	// SeedExplore and CrawlPages are the crawl slice's own
	// (SliceInput.SeedExplore, SliceInput.CrawlPages); nil and 0 for a
	// refresh's batches and for slices from before them.
	SeedExplore *int `json:",omitempty"`
	CrawlPages  int  `json:",omitempty"`
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

// SetCrawlModelsInput records the learned link model and rank versions a
// crawl now uses (store.Crawls.SetCrawlModels).
type SetCrawlModelsInput struct {
	CrawlID                       string
	LinkModelVersion, RankVersion int
}

// ReleaseSliceInput names a failed crawl slice (SliceInput.SliceID), for
// ReleaseSlice and SliceStats.
type ReleaseSliceInput struct {
	Topic, SliceID string
}

// SliceInput runs one crawl slice (CrawlSlice): the streaming fetch path for
// a bounded time and page budget.
type SliceInput struct {
	CrawlID, Topic string
	// FetchPolicy is CrawlParams.FetchPolicy: a worker whose settings
	// differ refuses the slice (ErrWrongConfig) rather than record, for
	// good, failures another worker would not have (a worker without
	// fetch.allow_private_networks failed a loopback crawl's seed as
	// "ssrf", and the crawl completed at once with nothing fetched).
	FetchPolicy string `json:",omitempty"`
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
	// HoldUnscored: while pages of the topic are in flight in any worker
	// (claimed within the hold window), leave entries scored 0 queued
	// (crawl.hold_unscored).
	HoldUnscored bool
	// SeedExplore is the crawl's recorded crawl.seed_explore
	// (CrawlParams.SeedExplore) and CrawlPages its page budget
	// (CrawlParams.MaxPages, a --max-pages or a refresh's continuation
	// below the topic file's limits.max_pages): how many pages each seed
	// site is explored for (activities/explore.go). nil and 0 (a workflow
	// from before them): the worker's crawl.seed_explore and the topic
	// file's limits.max_pages.
	SeedExplore *int `json:",omitempty"`
	CrawlPages  int  `json:",omitempty"`
	// StopAfterAccepted ends the slice's claiming once it has accepted this
	// many pages, its earlier attempts' included (0: no limit): the
	// workflow sets it so that learning, ranking and seed expansion come at
	// their cadence.
	StopAfterAccepted int
	Group             int           // most pages processed together (crawl.batch_size)
	Lease             time.Duration // claim lease (crawl.lease)
}

// Ref is the slice as a batch reference: its ID and the versions its pages
// are judged with.
func (in SliceInput) Ref() BatchRef {
	return BatchRef{CrawlID: in.CrawlID, Topic: in.Topic, BatchID: in.SliceID, TopicVersion: in.TopicVersion,
		ModelVersion: in.ModelVersion, LinkModelVersion: in.LinkModelVersion, RankVersion: in.RankVersion,
		SeedExplore: in.SeedExplore, CrawlPages: in.CrawlPages}
}

// SliceResult reports a finished slice. Stats come from the store (exact
// across retries); Links and Enqueued count the last attempt's work only.
type SliceResult struct {
	Stats           store.BatchStats
	Links, Enqueued int
	Reason          string // why the slice stopped claiming (fetchloop.Reason*, ReasonWorkerStopping)
	Exhausted       bool   // the frontier had nothing left for it
	Queued          int    // queued frontier entries when it ended
	// FailedByClass splits Stats.Failed by error class (robots, timeout,
	// http_client, ...) for the worker's fetch-error metric; nil with no
	// failures.
	FailedByClass map[string]int `json:",omitempty"`
}

// ReasonWorkerStopping is a crawl slice's end reason (SliceResult.Reason)
// when its worker was told to stop (crawl.stop_timeout): nothing about the
// crawl, whose next slice runs on another worker.
const ReasonWorkerStopping = "worker stopping"

// SliceProgress is a crawl slice's heartbeat: what the attempt has done so
// far, visible in the Temporal UI while the slice runs and added to the
// workflow's counters by Status.
type SliceProgress struct {
	Fetched, OK, Processed, Accepted, Links, Enqueued int64
	// Indexed counts the accepted pages the attempt wrote to the index; a
	// running crawl's status read "indexed 0" beside a hundred accepted
	// pages without it (0 from a worker older than the field).
	Indexed int64
	// Queued is the topic's queued frontier entries as the attempt last
	// read them from the store, QueuedAt when (Unix nanoseconds; 0: not
	// read yet). The workflow's own count is from the last slice's end.
	Queued, QueuedAt int64
}

// UpdateTopicInput carries a new version of a running crawl's topic file.
type UpdateTopicInput struct {
	CrawlID   string
	Topic     string // the crawl's topic name; the new file must keep it
	TopicYAML string
	// FromVersion is the topic version the crawl used until now: the new
	// file's sitemaps are read for the seed hosts that version did not
	// read. 0 (a workflow from before it): no sitemap is read.
	FromVersion int `json:",omitempty"`
}

// UpdateTopicResult names the versions the crawl uses from its next batch
// and what else of the new file takes effect in the running crawl.
type UpdateTopicResult struct {
	TopicVersion int
	ModelVersion int
	// MaxPages is the file's limits.max_pages and LearnEvery the learning
	// cadence its link predictor calls for (as StartCrawlResult.Params has
	// them). MaxPages 0: a worker from before they were returned; the
	// crawl keeps its budget and cadence.
	MaxPages   int `json:",omitempty"`
	LearnEvery int `json:",omitempty"`
	// Seeded counts the new frontier entries the file's seeds made (seeds
	// the crawl knew are not queued again), SitemapURLs those its sitemaps
	// made (see UpdateTopicInput.FromVersion).
	Seeded      int `json:",omitempty"`
	SitemapURLs int `json:",omitempty"`
	// Notes are warnings about the file for the operator (CrawlState.Notes).
	Notes []string `json:",omitempty"`
}

// LearnInput asks for a new link model of a crawl's topic.
type LearnInput struct {
	CrawlID, Topic string
	// Results is the crawl's accepted-page count when the workflow asked;
	// it makes the request's identity explicit in history.
	Results int
}

// LearnResult names the stored model version.
type LearnResult struct {
	Version  int // linkmodel.ModelKind version to put in BatchRefs
	Results  int // result (target) pages learned from (linkmodel.Model.Results)
	Vertices int // vertices of the JLSE link graph G_W
}

// RejudgeInput asks for a re-judgement of a crawl's judged pages.
type RejudgeInput struct {
	CrawlID, Topic             string
	TopicVersion, ModelVersion int
	Accepted                   int // the crawl's accepted count when asked (identity in history)
	// Final: no slice of the crawl is running, so accepted pages not yet
	// indexed are not in flight and may be withdrawn too.
	Final bool
}

// RejudgeResult counts what a re-judgement changed.
type RejudgeResult struct {
	// Applied: the topic re-judges (split acceptance, strategy.rejudge);
	// without it the call does nothing and the counts below are zero.
	Applied  bool
	Judged   int // judged pages looked at
	Demoted  int // withdrawn by this call (no longer accepted, removed from the index)
	Promoted int // accepted by feedback re-judgement, this call's included, read from the store
	// Feedback: the call scored the crawl's pages again with feedback
	// re-judgement (final call, vsm topic with strategy.feedback).
	Feedback  bool
	Withdrawn int // withdrawn by every re-judgement of the crawl so far, read from the store
	Indexed   int // the crawl's pages in the index after this call, read from the store
	Accepted  int // the crawl's pages accepted after this call, read from the store
}

// HubAuthInput asks for a link-analysis recomputation over a topic's crawl
// graph.
type HubAuthInput struct {
	CrawlID, Topic             string
	TopicVersion, ModelVersion int
	Accepted                   int // the crawl's accepted count when asked (identity in history)
}

// HubAuthResult reports a recomputation.
type HubAuthResult struct {
	RankVersion    int // linkmodel.RanksKind version to put in BatchRefs
	Nodes, Edges   int
	Pages          int // fetched pages scored
	Indexed        int // index documents updated
	Reprioritized  int // unfetched URLs offered a new priority (ipagerank: all; others: hub out-links; only queued ones change)
	PageRankIters  int
	HITSIters      int
	IPageRankIters int
}

// ExpandInput asks for one seed-expansion round of a running crawl.
type ExpandInput struct {
	CrawlID, Topic string
	TopicVersion   int
	ModelVersion   int
	// MaxNew bounds the frontier entries the round may add (the page budget
	// the crawl has left).
	MaxNew int
}

// ExpandResult counts what a seed-expansion round found and added.
type ExpandResult struct {
	FriendLinks int // candidate URLs per source (before dedup against the frontier)
	TopHosts    int
	Templates   int
	Enqueued    int // new frontier entries (at most MaxNew)
	// Keywords is the number of candidate keywords stored as version
	// KeywordsVersion of model kind store.CandidateKeywordsKind (0: none).
	Keywords        int
	KeywordsVersion int
}

// RefreshParams are the worker's refresh settings, recorded in workflow
// state when a refresh starts.
type RefreshParams struct {
	BatchSize        int
	MaxPages         int
	HubMinScore      float64
	ContinueMaxPages int
	HeartbeatTimeout time.Duration
}

// StartRefreshInput names the topic to refresh.
type StartRefreshInput struct {
	RefreshID string
	Topic     string
	// DueAt, when set (the refresh's start), first makes every page the
	// refresh may take that is not due by then due at DueAt
	// (store.Refreshes.MakeRefreshDue): a refresh of everything, not only
	// of the pages whose revisit time has come (RefreshInput.All).
	DueAt time.Time `json:",omitempty"`
}

// StartRefreshResult gives the versions a refresh judges with and the work due.
type StartRefreshResult struct {
	Topic        string
	TopicVersion int
	ModelVersion int
	Due          int // pages due now
	// MadeDue counts the pages DueAt made due earlier than they were.
	MadeDue int `json:",omitempty"`
	Params  RefreshParams
	// TopicStoredAt is when this crawl store recorded TopicVersion. The
	// refresh's later activities are given it with the version and refuse
	// a worker whose store lacks the version or recorded it at another
	// time: a store other than the one read here (ErrWrongStore).
	TopicStoredAt time.Time
	// Store describes the crawl store StartRefresh read (driver and
	// redacted DSN or path), so that the refresh's status names it.
	Store string
	// Outlook is nil from a worker that predates it.
	Outlook *RefreshOutlook
}

// RefreshOutlook says when a refresh of a topic will next find work: counts
// and a time, never URLs, since it is recorded in workflow history.
type RefreshOutlook struct {
	// Refreshable counts the pages a refresh may take at some time:
	// accepted ones, hubs when refresh.hub_min_score is set, and dropped
	// pages still to be checked again (refresh.recheck_dropped). 0: the
	// topic has nothing to refresh.
	Refreshable int
	// NextDueAt is the earliest time a refresh could claim one of them
	// (the time asked about when one is due); zero when Refreshable is 0.
	NextDueAt time.Time
}

// NextRefreshInput names the topic whose next due page NextRefresh finds.
type NextRefreshInput struct {
	Topic  string
	MinHub float64
	// TopicVersion and TopicStoredAt identify the refresh's crawl store
	// (StartRefreshResult.TopicStoredAt).
	TopicVersion  int
	TopicStoredAt time.Time
}

// RefreshClaimInput asks for the next refresh batch.
type RefreshClaimInput struct {
	Topic, BatchID string
	Max            int
	MinHub         float64
	// TopicVersion and TopicStoredAt identify the refresh's crawl store
	// (StartRefreshResult.TopicStoredAt); zero in claims that predate them,
	// which are not checked.
	TopicVersion  int
	TopicStoredAt time.Time
	// DueBy is the refresh's start (RefreshState.StartedAt): only pages
	// due by then are claimed (store.RefreshClaim.DueBy), so a page the
	// refresh revisited and that comes due again before it ends is left to
	// the next refresh. Zero in claims that predate it: due now.
	DueBy time.Time
}

// ReleaseRefreshInput names the refresh batch ReleaseRefresh releases: the
// topic and batch ID key it (RefreshClaimInput's), so a retry releases the
// same pages. TopicVersion and TopicStoredAt identify the refresh's crawl
// store, as in the batch's BatchRef: a worker with another store refuses
// it (ErrWrongStore) rather than release nothing there.
type ReleaseRefreshInput struct {
	Topic, BatchID string
	TopicVersion   int
	TopicStoredAt  time.Time
}

// RefetchResult counts a Refetch activity's work. ErrorsByClass is bounded
// by the number of fetch error classes.
type RefetchResult struct {
	Checked     int // pages requested
	NotModified int // 304 answers to conditional requests
	Unchanged   int // 200 with the same content hash
	Changed     int // new content: re-parsed, re-judged, re-indexed next
	Gone        int // 404, 410, 401, 451: removed from the index
	Failed      int // transient failures: kept, retried soon
	Skipped     int // already handled by an earlier attempt
	// Postponed counts pages not requested because their host asked for a
	// longer pause than fetch.max_host_delay (robots.txt Crawl-delay, a
	// 429/503's Retry-After): due again when it ends, left to a later
	// refresh. Not in Checked.
	Postponed int `json:",omitempty"`
	// Unreachable counts those of Failed whose host has been down for
	// refresh.drop_unreachable_after (revisit.Unreachable): out of the
	// index until they answer again, kept and revisited meanwhile.
	Unreachable   int `json:",omitempty"`
	ErrorsByClass map[string]int
}

// FinishRefreshResult counts what FinishRefresh did to the index.
type FinishRefreshResult struct {
	Kept    int // changed pages still relevant (re-indexed by FilterPages)
	Removed int // gone or no longer relevant pages deleted from the index
}

// TopicYAMLInput names a stored topic version (0 = latest).
type TopicYAMLInput struct {
	Topic   string
	Version int
	// StoredAt is when the refresh's crawl store recorded Version
	// (StartRefreshResult.TopicStoredAt); zero: the version alone is checked.
	StoredAt time.Time
}

// ExpandPrunedInput asks ExpandPruned to follow the out-links of a crawl's
// best pruned pages.
type ExpandPrunedInput struct {
	CrawlID, Topic                string
	TopicVersion, ModelVersion    int
	LinkModelVersion, RankVersion int
	Max                           int // most pages expanded
	Claimed                       int // the crawl's claimed count when asked (identity in history)
	// Round numbers the crawl's rounds (CrawlState.DryRounds): a retried
	// attempt finds the pages its round expanded by it and expands no
	// others. 0 (a workflow from before rounds were numbered): none.
	Round int `json:",omitempty"`
}

// ExpandPrunedResult says what ExpandPruned did.
type ExpandPrunedResult struct {
	Expanded int // pages turned from rejected into tunnels by this call
	// Detail counts the accepted target pages (strategy.detail_page,
	// stored with their links unfollowed) whose links this call followed;
	// they stay accepted, so the crawl's counts do not move.
	Detail   int `json:",omitempty"`
	Links    int // their out-links (Expanded's and Detail's pages') scored
	Enqueued int // new frontier entries their links made
	Queued   int // the topic's queued frontier entries afterwards (from the store: exact on a retry)
}
