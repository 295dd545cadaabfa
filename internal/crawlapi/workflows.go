package crawlapi

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
)

// The workflows.
var (
	// TopicCrawlWorkflow crawls one topic (workflows.TopicCrawlWorkflow).
	TopicCrawlWorkflow = Workflow[CrawlInput, *CrawlState]{Name: "TopicCrawlWorkflow"}
	// RefreshWorkflow revisits a topic's due pages (workflows.RefreshWorkflow).
	RefreshWorkflow = Workflow[RefreshInput, *RefreshState]{Name: "RefreshWorkflow"}
)

// Signal and query names of TopicCrawlWorkflow.
const (
	// SignalControl carries one of ControlPause, ControlResume, ControlStop
	// (payload: string). Operations sent as this one signal take effect in
	// the order sent; sent as the separate signals below, two that reach a
	// busy workflow together are handled by kind (the order in which the
	// workflow adds their channels to its selector), not by arrival.
	SignalControl = "control"
	// SignalPause, SignalResume and SignalStop are the control operations as
	// signals of their own (no payload), for the Temporal UI and older
	// clients; see SignalControl.
	SignalPause    = "pause"
	SignalResume   = "resume"
	SignalStop     = "stop"
	SignalAddSeeds = "add-seeds" // payload: []string of URLs, at most MaxSeedsPerSignal
	// SignalUpdateTopic carries a new version of the crawl's topic file
	// (payload: string, at most topic.MaxFileBytes); slices started after
	// the UpdateTopic activity returns use it (seed 000's variable topic).
	SignalUpdateTopic = "update-topic"
	QueryStatus       = "status" // returns CrawlState
)

// The operations of SignalControl.
const (
	ControlPause  = "pause"
	ControlResume = "resume"
	ControlStop   = "stop"
)

// QueryRefreshStatus is RefreshWorkflow's status query (returns RefreshState).
const QueryRefreshStatus = "status"

// Crawl phases, as reported by the status query.
const (
	PhaseStarting  = "starting"
	PhaseCrawling  = "crawling"
	PhasePaused    = "paused"
	PhaseStopping  = "stopping"
	PhaseCompleted = "completed"
	PhaseStopped   = "stopped"
	PhaseFailed    = "failed" // a slice failed with an error no relaunch can cure (its topic version does not load)
	// PhaseCanceled: the workflow was cancelled from outside (the Temporal
	// UI's or CLI's cancel, a schedule's cancel-other overlap policy); it
	// ran no final step. The crawl's phase and the refresh's.
	PhaseCanceled = "canceled"
)

// ReasonFrontierExhausted is a completed crawl's end reason (CrawlState.Reason)
// when no frontier entry of its topic was left to fetch. The starter reads
// it: such a crawl that fetched nothing found its seeds fetched already.
const ReasonFrontierExhausted = "frontier exhausted"

// Refresh phases (besides PhaseStarting and PhaseCompleted).
const (
	PhaseRefreshing = "refreshing"
	PhaseContinuing = "continuing" // the bounded crawl continuation runs
	PhaseBootstrap  = "bootstrap"  // the topic was never crawled: the first crawl runs
)

// CrawlInput starts a crawl, or continues one (Continued set) after
// continue-as-new.
type CrawlInput struct {
	TopicYAML string
	Fresh     bool
	// MaxPages, when > 0, lowers the topic's limits.max_pages for this crawl
	// (the bounded crawl continuation of a refresh).
	MaxPages  int
	Continued *CrawlState
}

// CrawlState is the crawl workflow's whole state: IDs, parameters and
// counters. It is the status query's answer and the workflow's result.
type CrawlState struct {
	CrawlID      string
	Topic        string
	TopicVersion int
	ModelVersion int
	// LinkModelVersion and RankVersion are the newest learned link model
	// and IPageRank scores (LearnLinkModel, RecomputeHubAuthority); slices
	// launched afterwards read exactly these versions. LearnedAt and
	// RankedAt are the Accepted counts when they were made.
	LinkModelVersion, RankVersion int
	LearnedAt, RankedAt           int
	Params                        CrawlParams
	Phase                         string
	Reason                        string // why the crawl ended
	StartedAt                     time.Time
	EndedAt                       time.Time
	Runs                          int // workflow runs (1 + continue-as-new count)

	// ExpandedAt is the Accepted count of the last seed expansion
	// (ExpandSeeds); Expanded counts the frontier entries expansion added
	// and CandidateKeywords the candidate keywords last recorded.
	ExpandedAt, Expanded, CandidateKeywords int

	Paused        bool
	StopRequested bool
	InFlight      int // crawl slices running
	Slices        int // crawl slices launched, also the slice ID sequence
	Allotted      int // page budget handed to the running slices
	Claimed       int // frontier entries claimed by finished slices (the page budget spent)
	Queued        int // frontier entries waiting, as of the last slice
	// FrontierDry carries into the next run, across continue-as-new, that
	// a slice found the frontier exhausted: a paused crawl's next run
	// forgot it and, resumed, launched slices that found nothing before it
	// asked the store. Set only as a run continues as new; the next run
	// takes it back and clears it.
	FrontierDry bool `json:",omitempty"`
	// DryRounds counts the ExpandPruned rounds the crawl ran (its frontier
	// dry with budget left), across continue-as-new: the next round's
	// number (ExpandPrunedInput.Round). DryExpanded counts the rejected
	// pages they expanded, moved from Rejected to Tunnel, and DryDetail the
	// accepted detail pages whose links they followed
	// (ExpandPrunedResult.Detail; they stay accepted).
	DryRounds   int `json:",omitempty"`
	DryExpanded int `json:",omitempty"`
	DryDetail   int `json:",omitempty"`

	Fetched, OK, Failed, Skipped int
	Parsed, ParseFailed          int
	Accepted, Rejected, Tunnel   int
	// Withdrawn counts the pages re-judgement (RejudgeCrawl) withdrew from
	// acceptance, as the store has them at the last re-judgement. Accepted
	// counts pages accepted when their slice reported, so it already leaves
	// out a page withdrawn before that; Accepted - Withdrawn is a lower
	// bound of the accepted set, not its size: AcceptedFinal is its size.
	Withdrawn int
	// AcceptedFinal is the size of the crawl's accepted set after its final
	// re-judgement, read from the store (0 until then, or without
	// re-judgement): Accepted less the withdrawn, plus the promoted,
	// exactly.
	AcceptedFinal int
	// Promoted counts the pages the final feedback re-judgement accepted
	// that the crawl had not accepted, or had withdrawn (restored: no
	// longer in Withdrawn), as the store has them; Accepted counts first
	// decisions, so a promoted page rejected online is not in it.
	Promoted            int
	Duplicates, Indexed int
	Links, Enqueued     int
	FailedSlices        int
	// SlicesFailedInRow counts the slices that failed (after their
	// retries), of any cause, since the last one that did not fail;
	// LastingFailedInRow those in a row that failed for a lasting cause
	// (workflows.lastingCause): at MaxFailedSlicesInRow of those the crawl
	// fails.
	SlicesFailedInRow  int
	LastingFailedInRow int
	// SeedsSent counts the URLs the add-seeds signals brought and
	// SeedsAdded those of them that became new frontier entries; the rest
	// were outside the topic's scope or already known to the crawl (the
	// worker's log names each URL it dropped).
	SeedsSent, SeedsAdded int
	// SitemapURLs counts the frontier entries sitemap discovery added when
	// the crawl started and when a topic update named seed hosts whose
	// sitemaps it had not read (topic.Sitemaps).
	SitemapURLs int `json:",omitempty"`
	// UpdateSeeded counts the frontier entries the update-topic signals'
	// files' seeds added: the seeds new to the crawl.
	UpdateSeeded int `json:",omitempty"`
	// MaxPagesCap is CrawlInput.MaxPages (0: none): a topic update's
	// limits.max_pages does not raise the page budget above it.
	MaxPagesCap int `json:",omitempty"`
	LastError   string
	// LastErrorAt is when LastError was set (workflow time; zero in states
	// of older runs): a status hours later showed a disk-full error the
	// crawl had long recovered from as if it were current (chaos trial).
	LastErrorAt time.Time `json:",omitzero"`
	// Notes says what of the topic file the crawl's model leaves out (a
	// keyword that gives no term), from StartCrawl and each update-topic:
	// warnings for the operator, not errors.
	Notes []string `json:",omitempty"`

	// Retrying lists the crawl's activities that failed and are waiting for
	// or running another attempt. Status fills it from the server's pending
	// activities; the workflow never sets it (and never records it: its
	// history and continue-as-new input leave it out).
	Retrying []Retry `json:"-"`
	// RunningNotAccepted and RunningUnjudged are the pages the running
	// slices have finished and not accepted (rejected, tunnel, duplicates,
	// failed), and fetched and not judged yet,
	// from their heartbeats (Status; never set by the workflow). The
	// workflow splits a slice's judged pages into rejected, tunnel and
	// duplicates only when the slice ends, so while slices run 'starter
	// status' read "fetched 126 … accepted 11, rejected 27, tunnel 26": 62
	// pages nowhere (an operator trial).
	RunningNotAccepted, RunningUnjudged int `json:"-"`
}

// Retry is a pending activity of a crawl on its second or later attempt: a
// slice whose worker died, or whose store or index is down, keeps the crawl
// "crawling" with nothing moving, and the workflow's own state does not say.
type Retry struct {
	Activity         string
	Attempt, Maximum int32     // Maximum 0: no limit
	NextAttempt      time.Time // zero while an attempt runs
	LastFailure      string
}

// HarvestRate is the share of fetched pages that were accepted as relevant.
func (s *CrawlState) HarvestRate() float64 {
	if s.OK == 0 {
		return 0
	}
	return float64(s.Accepted) / float64(s.OK)
}

// RefreshInput starts a refresh of one topic, or continues one.
type RefreshInput struct {
	Topic string
	// TopicYAML is optional. When the topic has never been crawled, a run
	// with TopicYAML starts the first crawl (a child TopicCrawlWorkflow)
	// instead, so a schedule can be created before any crawl ran.
	TopicYAML string
	// BatchesPerRun overrides the workflow's batches per run before it
	// continues as new (tests).
	BatchesPerRun int
	// All revisits every page the refresh may take, whatever its revisit
	// time (starter refresh --all): after a site changed all at once. A
	// schedule's runs leave it false and take the pages due.
	All       bool `json:",omitempty"`
	Continued *RefreshState
}

// RefreshState is RefreshWorkflow's whole state and its result.
type RefreshState struct {
	RefreshID    string
	Topic        string
	TopicVersion int
	ModelVersion int
	Params       RefreshParams
	Phase        string
	Reason       string
	StartedAt    time.Time
	EndedAt      time.Time
	Runs         int
	Due          int // pages due when the refresh started
	// MadeDue counts the pages a refresh of everything (RefreshInput.All)
	// made due at its start, earlier than their revisit times.
	MadeDue int `json:",omitempty"`
	Batches int
	Claimed int

	Checked, NotModified, Unchanged int
	Changed, Gone, Failed           int
	// Postponed counts pages left for a later refresh because their host
	// asked for a longer pause than fetch.max_host_delay
	// (RefetchResult.Postponed).
	Postponed int `json:",omitempty"`
	// Unreachable counts those of Failed whose host had not answered for
	// refresh.drop_unreachable_after: out of the index until it does
	// (RefetchResult.Unreachable).
	Unreachable     int `json:",omitempty"`
	Kept, Removed   int // changed pages kept in / removed from the index
	Links, Enqueued int // out-links of changed pages; new frontier entries
	FailedBatches   int
	// FailedInRow counts the batches that failed since the last one that
	// did not; at MaxFailedBatchesInRow the refresh stops, failed.
	FailedInRow  int
	LastError    string
	LastErrorAt  time.Time `json:",omitzero"` // when LastError was set (CrawlState.LastErrorAt)
	ChildCrawlID string    // bootstrap crawl or crawl continuation
	// Store is the crawl store StartRefresh read (StartRefreshResult.Store).
	Store string
	// TopicStoredAt is when that store recorded TopicVersion: with it, what
	// the refresh's activities check their worker's store against.
	TopicStoredAt time.Time
	// Outlook is when the topic's next page is due: StartRefresh's, then
	// (once the refresh has rescheduled pages) NextRefresh's at its end;
	// nil while unknown or stale.
	Outlook *RefreshOutlook
}

// NoPagesDueReason is the reason of a refresh that ended because a claim
// found no page due: when the next one is, and how long after now (the
// refresh's end), or that the topic has none to refresh. A nil outlook (a
// worker that predates it, or none to be had) gives the plain "no pages
// due". claimed is how many pages the refresh took before: then it says
// "no more pages due", since "completed (no pages due; …)" over "59 pages
// due when it started … checked 59" read as a refresh that found nothing
// to do (an operator trial).
func NoPagesDueReason(o *RefreshOutlook, claimed int, now time.Time) string {
	head := "no pages due"
	if claimed > 0 {
		head = "no more pages due"
	}
	switch {
	case o == nil:
		return head
	case o.Refreshable == 0:
		return "no accepted pages to refresh"
	}
	// The wait is counted from the refresh's end and says so: the reason
	// stays in the refresh's state, and "(in 13h57m)" read a day later
	// still said 13h57m (a trial; `starter status` adds a line counted from
	// its own now).
	r := head + "; the next page is due at " + o.NextDueAt.UTC().Format(time.RFC3339)
	if o.NextDueAt.After(now) {
		return r + " (" + FormatWait(o.NextDueAt.Sub(now)) + " after this refresh's end)"
	}
	// Due again while the refresh ran: it claims only the pages due at its
	// start, so each page is fetched once a refresh.
	return r + ", after this refresh's start: left to the next refresh"
}

// Until says how far t is from now for an operator: "in 6h30m", "now",
// "2h ago" (FormatWait).
func Until(t, now time.Time) string {
	switch d := t.Sub(now); {
	case d > 0:
		return "in " + FormatWait(d)
	case d > -time.Second:
		return "now"
	default:
		return FormatWait(-d) + " ago"
	}
}

// FormatWait formats a positive duration as precisely as an operator
// planning around it needs, where Duration.String gives "78h0m0s":
// seconds under a minute (rounded up: a page due in 0.4 s is not due in
// 0 s), minutes under two days, hours beyond.
func FormatWait(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d <= 59*time.Second:
		return (d + time.Second - 1).Truncate(time.Second).String()
	case d < time.Minute:
		return "1m" // rounded up to whole seconds it is a minute, not "1m0s"
	case d < 2*day:
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		switch {
		case h == 0:
			return fmt.Sprintf("%dm", m)
		case m == 0:
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	}
	d = d.Round(time.Hour)
	days, h := int(d/day), int(d%day/time.Hour)
	if h == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%dh", days, h)
}

// MaxFailedSlicesInRow is how many crawl slices in a row may fail (each
// after its ten attempts) for a lasting cause — a deployment mismatch (no
// worker with the crawl's fetch settings or store) or an error not retried
// — before the crawl fails: such slices spent no budget, so the crawl
// relaunched them, and continued as new, for ever while its status said
// crawling. Other failures (the store down, workers killed) are an outage
// the crawl waits out; they do not count.
const MaxFailedSlicesInRow = 6

// MaxFailedBatchesInRow is how many refresh batches in a row may fail (each
// after its activities' retries) before the refresh stops, failed: the
// cause (the index or the crawl store down, a topic that no longer judges)
// fails every batch alike, and going on would refetch refresh.max_pages
// pages into it.
const MaxFailedBatchesInRow = 3

// Custom search attributes of focuscrawl workflows. They must be registered
// on the Temporal namespace before a workflow may set them: `make up` does it
// on the dev server (scripts/lib.sh), the worker registers them when it
// starts (internal/searchattr), production clusters may need
//
//	temporal operator search-attribute create --name FocuscrawlTopic --type Keyword
//	temporal operator search-attribute create --name FocuscrawlKind  --type Keyword
//
// In the Temporal UI (or `temporal workflow list --query`) they find a
// topic's crawls: FocuscrawlTopic = "roses" AND FocuscrawlKind = "refresh".
var (
	// SearchAttrTopic holds the topic name.
	SearchAttrTopic = temporal.NewSearchAttributeKeyKeyword("FocuscrawlTopic")
	// SearchAttrKind holds the workflow kind: KindCrawl, KindRefresh or
	// KindReindex.
	SearchAttrKind = temporal.NewSearchAttributeKeyKeyword("FocuscrawlKind")
)

// Values of SearchAttrKind.
const (
	KindCrawl   = "crawl"
	KindRefresh = "refresh"
	KindReindex = "reindex"
)

// MemoTopicVersion is the memo key that records the topic version a
// workflow runs with (shown in the UI's memo panel).
const MemoTopicVersion = "topic_version"

// SearchAttributes returns the search attributes of a focuscrawl workflow
// of the given kind and topic. Whoever starts a workflow sets them; workflow
// code never upserts them, so a server without them cannot wedge a crawl.
func SearchAttributes(kind, topicName string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(SearchAttrTopic.ValueSet(topicName), SearchAttrKind.ValueSet(kind))
}

// SetError records msg as the crawl's last error, set at now (the
// workflow's clock).
func (s *CrawlState) SetError(now time.Time, msg string) {
	s.LastError, s.LastErrorAt = msg, now
}

// SetError records msg as the refresh's last error, set at now (the
// workflow's clock).
func (s *RefreshState) SetError(now time.Time, msg string) {
	s.LastError, s.LastErrorAt = msg, now
}
